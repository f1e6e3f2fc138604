/*
 * lichessapi.c - the plain (not streamed) endpoints of lichess's API
 * that lichess-bot and the Board API's clients call (see lichessapi.h,
 * PROTOCOL.md section 9, "lichess's endpoints").
 *
 * What a client costs. Every route is under the HTTP API's bucket per
 * address (http_rate_per_s); one with a token also pays from the
 * token's bucket (apitokens.c) before its one read. Each route is at
 * most one read off the loop (reads.h): the token's row and, for a
 * challenge, the challenged account's row; for /api/users/status at
 * most LICHESS_STATUS_IDS account rows by their unique key; for
 * /api/user/{name} one account's row and its ratings (one row per
 * category); for /api/games/user/{username} the account's row, one
 * page of at most LICHESS_EXPORT_MAX games and each one's row; an
 * accept also reads its two players' facts (facts.c) unless fresh.
 * What is live (who is online, who plays, the challenges) is read from
 * the loop's memory once the read is back.
 */
#include "hub/lichessapi.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apitoken.h"
#include "game/game.h"
#include "game/rating.h"
#include "hub/apiform.h"
#include "hub/apitokens.h"
#include "hub/challenge.h"
#include "hub/history.h"
#include "hub/hub_internal.h"
#include "hub/lichessapi_internal.h"
#include "hub/reads.h"
#include "hub/router.h"
#include "store/store.h"

#define JSON_TYPE "application/json"
/* GET /api/users/status: lichess's most ids a request; in a cluster the
 * live games of each read to say whether it plays (rows by their key). */
#define LICHESS_STATUS_IDS 100
#define LICHESS_STATUS_GAMES 4
/* GET /api/games/user/{username}: the most games an answer holds (its
 * `max`, 1-100; lichess has no cap, but every game is a row read). */
#define LICHESS_EXPORT_MAX 100

static void reply(struct http_reply *r, int status, char *body)
{
    r->status = body ? status : 500;
    r->type = body ? JSON_TYPE : "text/plain";
    r->body = body;
    r->len = body ? strlen(body) : 0;
}

/* {"error": words}, as lichess answers every refusal. */
void lichessapi_error(struct http_reply *r, int status, const char *words)
{
    reply(r, status, proto_render_api_error(words));
}

char *lichessapi_dump(json_t *o)
{
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;

    json_decref(o);
    return s;
}

/* Submits the read q (its run, answer and request set): r says later,
 * or 503 when the reader's queue is full (q freed). */
static void submit(struct hub *h, struct hub_read *q, struct http_reply *r)
{
    r->status = 0; /* later */
    if (hub_read_submit(h, q, NULL, NULL) < 0)
        lichessapi_error(r, 503, "busy");
}

void lichessapi_answer_error(struct hub *h, uint64_t later, int status,
                             const char *words)
{
    struct http_reply out = {0};

    lichessapi_error(&out, status, words);
    hub_http_answer(h, later, &out);
}

void lichessapi_answer_json(struct hub *h, uint64_t later, char *body)
{
    struct http_reply out = {0};

    reply(&out, 200, body);
    hub_http_answer(h, later, &out);
}

/* True when s is a username's shape: 2-20 of A-Z a-z 0-9 _ -. */
static bool username_valid(const char *s, size_t n)
{
    if (n < 2 || n > 20)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return false;
    }
    return true;
}

/* ---- POST /api/challenge/{username} ------------------------------------- */

struct create {
    char to[21];
    struct clock_spec clock;
    int color;
    bool rated;
    struct store_account dest;
    int found;
    bool bot; /* the challenger is a bot account */
};

/* A challenge's fields (lichess's names): NULL and *c filled, or the
 * error's words (a constant, or why's len bytes). Only what this server plays: standard chess from the
 * start, a Fischer clock or days per move. */
static const char *create_parse(const struct api_form *f, struct create *c,
                                char *why, size_t len)
{
    const char *rated = api_form_get(f, "rated"),
               *color = api_form_get(f, "color");
    const char *limit = api_form_get(f, "clock.limit");
    const char *inc = api_form_get(f, "clock.increment");
    const char *days = api_form_get(f, "days"),
               *variant = api_form_get(f, "variant");
    const char *fen = api_form_get(f, "fen");
    static const char *const known[] = {
        "rated",   "clock.limit", "clock.increment", "days", "color",
        "variant", "fen",         "keepAliveStream", "rules"};
    long l, i, d;

    if (api_form_unknown(f, known, sizeof known / sizeof *known, why, len))
        return why;
    if (api_form_get(f, "rules") && *api_form_get(f, "rules"))
        return "rules: none is served here";
    if (rated && strcmp(rated, "true") && strcmp(rated, "false"))
        return "rated: true or false";
    c->rated = rated && !strcmp(rated, "true");
    c->color = !color || !strcmp(color, "random") ? PROTO_RANDOM
               : !strcmp(color, "white")          ? PROTO_WHITE
               : !strcmp(color, "black")          ? PROTO_BLACK
                                                  : -1;
    if (c->color < 0)
        return "color: random, white or black";
    if (variant && strcmp(variant, "standard"))
        return "variant: only standard is played here";
    if (fen && *fen)
        return "fen: only games from the start position are played here";
    if (api_form_get(f, "keepAliveStream") &&
        strcmp(api_form_get(f, "keepAliveStream"), "false"))
        return "keepAliveStream is not served here";
    if (limit || inc) {
        if (days)
            return "days: not with a clock";
        if (!api_form_int(limit, 0, 10800, &l) ||
            !api_form_int(inc, 0, 60, &i))
            return "clock.limit (0-10800) and clock.increment (0-60) "
                   "both";
        c->clock = (struct clock_spec){0, (int)l, (int)i, 0};
    } else if (days) {
        if (!api_form_int(days, 1, 14, &d))
            return "days: 1, 2, 3, 5, 7, 10 or 14";
        c->clock = (struct clock_spec){1, 0, 0, (int)d * 86400};
    } else {
        return "clock.limit and clock.increment, or days";
    }
    if (!clock_spec_valid(&c->clock))
        return "this clock is not played here (see /api: PROTOCOL.md)";
    return NULL;
}

static int create_run(struct store *st, const struct apitoken_who *who,
                      void *arg)
{
    struct create *c = arg;
    struct store_account me;
    int rc = store_find_account(st, who->username, &me);

    c->bot = rc == 1 && me.bot;
    c->found = store_find_account(st, c->to, &c->dest);
    return c->found < 0 || rc < 0 ? -1 : 0;
}

/* The HTTP status of a challenge's refusal (enum proto_code). */
static int refusal_status(int code)
{
    switch (code) {
    case PROTO_NO_SUCH_CHALLENGE:
        return 404;
    case PROTO_RATE_LIMITED:
        return 429;
    case PROTO_CHALLENGE_UNAVAILABLE:
        return 501;
    case PROTO_SERVER_FULL:
    case PROTO_BUSY:
        return 503;
    default:
        return 400;
    }
}

/* A challenge call's end (challenge.h's challenge_done_fn). */
static void challenge_done(struct hub *h, uint64_t later, int code,
                           const char *msg, char *json)
{
    if (code)
        lichessapi_answer_error(h, later, refusal_status(code),
                                code == PROTO_NO_SUCH_CHALLENGE ? "Not found."
                                                                : msg);
    else
        lichessapi_answer_json(h, later,
                               json ? json : strdup("{\"ok\":true}"));
}

static void create_then(struct hub *h, const struct apitoken_who *who, int rc,
                        void *arg, uint64_t later)
{
    struct create *c = arg;
    struct challenge_who from = {who->pid, who->username, true, c->bot};
    struct challenge_who to = {c->dest.pid, c->dest.username, true,
                               c->dest.bot};

    (void)rc;
    if (c->found != 1) {
        lichessapi_answer_error(h, later, 404, "No such user");
        return;
    }
    challenge_api_create(h, &from, &to, &c->clock, c->color, c->rated,
                         hub_now_ms(h), challenge_done, later);
}

static void challenge_create(struct hub *h, const struct http_request *q,
                             const char *name, int64_t now, uint64_t later,
                             struct http_reply *r)
{
    struct api_form f;
    struct create *c;
    const char *bad;
    char why[64];

    if (!username_valid(name, strlen(name))) {
        lichessapi_error(r, 404, "No such user");
        return;
    }
    if ((bad = api_form_parse(&f, q->body ? q->body : "", q->body_len))) {
        lichessapi_error(r, 400, bad);
        return;
    }
    if (!(c = calloc(1, sizeof *c))) {
        lichessapi_error(r, 500, "out_of_memory");
        return;
    }
    if ((bad = create_parse(&f, c, why, sizeof why))) {
        free(c);
        lichessapi_error(r, 400, bad);
        return;
    }
    snprintf(c->to, sizeof c->to, "%s", name);
    apitoken_auth(h, q, now, later, lichessapi_play_scopes(), create_run,
                  create_then, c, r);
}

/* ---- POST /api/challenge/{id}/accept|decline|cancel --------------------- */

struct verdict {
    char id[PROTO_KEY_MAX + 1];
    int decline; /* accept: -2; cancel: -1; decline: its reason */
};

/* An accept waiting for its players' facts (facts.c: their ratings to
 * start a rated game from, their live games to count), or a verdict for
 * its challenge's record (another node's: challenge_fetch). */
struct accept {
    char id[PROTO_KEY_MAX + 1];
    struct apitoken_who who;
    uint64_t later;
    int decline; /* as struct verdict's */
};

static void accept_now(struct hub *h, const struct accept *a)
{
    struct challenge_who me = {a->who.pid, a->who.username, true, false};

    challenge_api_accept(h, a->id, &me, hub_now_ms(h), challenge_done,
                         a->later);
}

static void verdict_now(struct hub *h, const struct apitoken_who *who,
                        const char *id, int decline, uint64_t later);

/* The record of a's challenge is here (or none is pending): a runs. */
static void verdict_fetched(struct hub *h, void *arg)
{
    struct accept *a = arg;

    verdict_now(h, &a->who, a->id, a->decline, a->later);
    free(a);
}

/* True when the verdict waits for its challenge's record (another
 * node's, in a cluster: verdict_fetched runs it then). */
static bool verdict_fetch(struct hub *h, const struct apitoken_who *who,
                          const char *id, int decline, uint64_t later)
{
    struct accept *a;

    if (challenge_find(h, id) || !(a = calloc(1, sizeof *a)))
        return false;
    snprintf(a->id, sizeof a->id, "%s", id);
    a->who = *who;
    a->later = later;
    a->decline = decline;
    if (challenge_fetch(h, id, verdict_fetched, a) == 0)
        return true;
    free(a);
    return false;
}

static void accept_read(struct hub *h, void *who, void *arg, bool ok)
{
    struct accept *a = arg;

    (void)who;
    if (ok) /* (every check made again, on the state of now) */
        accept_now(h, a);
    else
        lichessapi_answer_error(h, a->later, 503, "busy");
    free(a);
}

/* The challenge's players' facts read unless fresh, then accept_now. */
static void accept(struct hub *h, const struct apitoken_who *who,
                   const char *id, uint64_t later)
{
    const struct challenge *c = challenge_find(h, id);
    struct proto_challenge v;
    struct accept *a = calloc(1, sizeof *a);
    const char *pids[2];
    int rc;

    if (!a) {
        lichessapi_answer_error(h, later, 500, "out_of_memory");
        return;
    }
    snprintf(a->id, sizeof a->id, "%s", id);
    a->who = *who;
    a->later = later;
    if (c)
        challenge_view(h, c, &v);
    if (!c || strcmp(v.dest.id, who->pid)) { /* (answered Not found.) */
        accept_now(h, a);
        free(a);
        return;
    }
    pids[0] = v.challenger.id;
    pids[1] = who->pid;
    rc = hub_facts_then(h, pids, 2,
                        hub_facts_since(h, v.rated, hub_now_ms(h)), NULL,
                        NULL, accept_read, a);
    if (rc == 0)
        return; /* (accept_read frees a) */
    if (rc > 0)
        accept_now(h, a);
    else
        lichessapi_answer_error(h, later, 503, "busy");
    free(a);
}

static void verdict_now(struct hub *h, const struct apitoken_who *who,
                        const char *id, int decline, uint64_t later)
{
    if (verdict_fetch(h, who, id, decline, later))
        return;
    if (decline == -2)
        accept(h, who, id, later);
    else
        challenge_api_end(h, id, who->pid, decline, challenge_done, later);
}

static void verdict_then(struct hub *h, const struct apitoken_who *who,
                         int rc, void *arg, uint64_t later)
{
    struct verdict *v = arg;

    (void)rc;
    verdict_now(h, who, v->id, v->decline, later);
}

static void challenge_verdict(struct hub *h, const struct http_request *q,
                              const char *id, const char *what, int64_t now,
                              uint64_t later, struct http_reply *r)
{
    struct verdict *v;
    struct api_form f;
    const char *bad, *reason;
    int decline = !strcmp(what, "accept")   ? -2
                  : !strcmp(what, "cancel") ? -1
                                            : PROTO_DECLINE_GENERIC;

    if (decline == PROTO_DECLINE_GENERIC && strcmp(what, "decline")) {
        lichessapi_error(r, 404, "Not found.");
        return;
    }
    if ((bad = api_form_parse(&f, q->body ? q->body : "", q->body_len))) {
        lichessapi_error(r, 400, bad);
        return;
    }
    reason = api_form_get(&f, "reason");
    if (reason && decline >= 0 &&
        (decline = proto_decline_parse(reason)) < 0) {
        lichessapi_error(
            r, 400,
            "reason: generic, later, tooFast, tooSlow, "
            "timeControl, rated, casual, standard, variant, noBot "
            "or onlyBot");
        return;
    }
    if (!proto_key_valid(id)) {
        lichessapi_error(r, 404, "Not found.");
        return;
    }
    if (!(v = calloc(1, sizeof *v))) {
        lichessapi_error(r, 500, "out_of_memory");
        return;
    }
    snprintf(v->id, sizeof v->id, "%s", id);
    v->decline = decline;
    apitoken_auth(h, q, now, later, lichessapi_play_scopes(), NULL,
                  verdict_then, v, r);
}

/* ---- GET /api/challenge ------------------------------------------------- */

static void list_then(struct hub *h, const struct apitoken_who *who, int rc,
                      void *arg, uint64_t later)
{
    (void)rc;
    (void)arg;
    challenge_api_list(h, who->pid, challenge_done, later);
}

/* lichess's: the token's account's pending challenges, both ways (scope
 * challenge:read, as lichess asks). */
static void challenge_list(struct hub *h, const struct http_request *q,
                           int64_t now, uint64_t later, struct http_reply *r)
{
    apitoken_auth(h, q, now, later, apitoken_scope_bit("challenge:read", 14),
                  NULL, list_then, NULL, r);
}

/* ---- GET /api/users/status, GET /api/user/{name} ------------------------ */

struct users_read {
    struct hub_read r;
    uint64_t later;
    size_t n;
    char names[LICHESS_STATUS_IDS][21];
    struct store_account rows[LICHESS_STATUS_IDS];
    int found[LICHESS_STATUS_IDS];
    /* a cluster's (shared: the store has every node's games): each has a
     * started game among its first LICHESS_STATUS_GAMES live ones */
    bool shared;
    bool playing[LICHESS_STATUS_IDS];
    /* /api/user/{name}: its ratings */
    bool one;
    struct store_rating ratings[RATING_CATEGORIES];
    size_t nratings;
};

static int users_run(struct store *st, struct hub_read *r)
{
    struct users_read *q = (struct users_read *)r;

    for (size_t i = 0; i < q->n; i++) {
        char gids[LICHESS_STATUS_GAMES][33];
        size_t n = 0;
        struct store_game g;
        if ((q->found[i] = store_find_account(st, q->names[i], &q->rows[i])) <
            0)
            return -1;
        if (!q->shared || q->one || q->found[i] != 1)
            continue;
        if (store_player_live_games(st, q->rows[i].pid, gids,
                                    LICHESS_STATUS_GAMES, &n) < 0)
            return -1;
        for (size_t k = 0; k < n && !q->playing[i]; k++) {
            int rc = store_get_game(st, gids[k], &g, NULL, NULL, NULL);
            if (rc < 0)
                return -1;
            q->playing[i] = rc == 1 && !strcmp(g.status, "started");
        }
    }
    if (q->one && q->found[0] == 1 &&
        store_player_ratings(st, q->rows[0].pid, q->ratings,
                             RATING_CATEGORIES, &q->nratings) < 0)
        return -1;
    return 0;
}

/* online: a page or stream of the player's is open here; playing: it
 * has a started game here. */
static void presence(struct hub *h, const char *pid, bool *online,
                     bool *playing)
{
    struct player *p = table_get(&h->players, pid);

    *online = p && hub_player_present(p);
    *playing = false;
    for (size_t i = 0; p && i < p->ngames; i++) {
        struct game *g = hub_game(h, p->games[i].gid);
        if (g && game_status(g) == GAME_STARTED)
            *playing = true;
    }
}

/* lichess's perfs: {CAT: {games, rating, rd, prog, prov?}}. */
static json_t *perfs(const struct users_read *q)
{
    json_t *o = json_object();

    for (size_t i = 0; o && i < q->nratings; i++) {
        const struct store_rating *x = &q->ratings[i];
        json_t *p;
        if (x->games <= 0)
            continue;
        p = json_pack("{s:i,s:i,s:i,s:i}", "games", x->games, "rating",
                      rating_round(x->rating), "rd", rating_round(x->rd),
                      "prog", 0);
        if (p && x->rd > RATING_RD_PROVISIONAL)
            json_object_set_new(p, "prov", json_true());
        json_object_set_new(o, apitoken_perf_key(x->category), p);
    }
    return o;
}

/* In a cluster, /api/users/status's users while the nodes are asked
 * who is online (router.h's present: the nodes that follow player:P). */
struct status_wait {
    struct hub *h;
    uint64_t later;
    size_t n, waiting;
    struct {
        char id[21], name[21];
        bool bot, playing;
        long online; /* nodes with a connection of its; -1: unknown */
    } u[LICHESS_STATUS_IDS];
};

/* One user's presence answered. */
struct status_ask {
    struct status_wait *w;
    size_t i;
};

static void status_render(struct status_wait *w)
{
    json_t *out = json_array();

    for (size_t i = 0; out && i < w->n; i++) {
        json_t *u = json_pack("{s:s,s:s}", "id", w->u[i].id, "name",
                              w->u[i].name);
        if (u && w->u[i].bot)
            json_object_set_new(u, "title", json_string("BOT"));
        if (u && w->u[i].online > 0)
            json_object_set_new(u, "online", json_true());
        if (u && w->u[i].playing)
            json_object_set_new(u, "playing", json_true());
        json_array_append_new(out, u);
    }
    lichessapi_answer_json(w->h, w->later, lichessapi_dump(out));
    free(w);
}

static void status_answered(void *arg, long rc, const char *text, size_t len)
{
    struct status_ask *a = arg;
    struct status_wait *w = a->w;

    (void)text;
    (void)len;
    w->u[a->i].online = rc;
    free(a);
    if (--w->waiting == 0)
        status_render(w);
}

/* users/status in a cluster: online is asked of the nodes for each user
 * with no connection here; playing is the store's. */
static void status_cluster(struct hub *h, const struct users_read *q)
{
    struct status_wait *w = calloc(1, sizeof *w);

    if (!w) {
        lichessapi_answer_error(h, q->later, 500, "out_of_memory");
        return;
    }
    w->h = h;
    w->later = q->later;
    w->waiting = 1; /* (until every question is asked) */
    for (size_t i = 0; i < q->n; i++) {
        struct player *p;
        struct status_ask *a;
        size_t k = w->n;
        if (q->found[i] != 1)
            continue; /* (lichess leaves out who does not exist) */
        w->n++;
        apitoken_user_id(q->rows[i].username, w->u[k].id, sizeof w->u[k].id);
        snprintf(w->u[k].name, sizeof w->u[k].name, "%s",
                 q->rows[i].username);
        w->u[k].bot = q->rows[i].bot;
        w->u[k].playing = q->playing[i];
        p = table_get(&h->players, q->rows[i].pid);
        w->u[k].online = p && hub_player_present(p) ? 1 : -1;
        if (w->u[k].online > 0 || !(a = malloc(sizeof *a)))
            continue;
        *a = (struct status_ask){w, k};
        w->waiting++;
        if (h->router.ops->present(h->router.ctx, q->rows[i].pid,
                                   status_answered, a) < 0) {
            w->waiting--;
            free(a);
        }
    }
    if (--w->waiting == 0)
        status_render(w);
}

/* /api/user/{name} in a cluster, its player not connected here: out
 * waits for the nodes' answer (online: one has a connection of its). */
struct user_wait {
    struct hub *h;
    uint64_t later;
    json_t *out;
};

static void user_online_answered(void *arg, long rc, const char *text,
                                 size_t len)
{
    struct user_wait *w = arg;

    (void)text;
    (void)len;
    if (rc >= 0) /* (unknown: left out) */
        json_object_set_new(w->out, "online", json_boolean(rc > 0));
    lichessapi_answer_json(w->h, w->later, lichessapi_dump(w->out));
    free(w);
}

static void user_online_ask(struct hub *h, const char *pid, json_t *out,
                            uint64_t later)
{
    struct user_wait *w = malloc(sizeof *w);

    if (w)
        *w = (struct user_wait){h, later, out};
    if (!w || h->router.ops->present(h->router.ctx, pid, user_online_answered,
                                     w) < 0) {
        free(w);
        lichessapi_answer_json(
            h, later, lichessapi_dump(out)); /* (online unknown: left out) */
    }
}

static void users_answer(struct hub_read *r, int rc)
{
    struct users_read *q = (struct users_read *)r;
    struct hub *h = r->h;
    json_t *out;
    char id[21];
    bool online, playing;

    if (rc < 0) {
        lichessapi_answer_error(h, q->later, 500, "database_error");
        return;
    }
    if (q->one) {
        const struct store_account *a = &q->rows[0];
        if (q->found[0] != 1) {
            lichessapi_answer_error(h, q->later, 404, "Not found.");
            return;
        }
        apitoken_user_id(a->username, id, sizeof id);
        presence(h, a->pid, &online, &playing);
        out = json_pack("{s:s,s:s,s:o,s:I}", "id", id, "username",
                        a->username, "perfs", perfs(q), "createdAt",
                        (json_int_t)a->created_ms);
        if (out && a->bot)
            json_object_set_new(out, "title", json_string("BOT"));
        if (out && !online && h->router.ops->present) {
            user_online_ask(h, a->pid, out, q->later);
            return;
        }
        if (out)
            json_object_set_new(out, "online", json_boolean(online));
        lichessapi_answer_json(h, q->later, lichessapi_dump(out));
        return;
    }
    if (q->shared && h->router.ops->present) {
        status_cluster(h, q);
        return;
    }
    out = json_array();
    for (size_t i = 0; out && i < q->n; i++) {
        json_t *u;
        if (q->found[i] != 1)
            continue; /* (lichess leaves out who does not exist) */
        apitoken_user_id(q->rows[i].username, id, sizeof id);
        presence(h, q->rows[i].pid, &online, &playing);
        u = json_pack("{s:s,s:s}", "id", id, "name", q->rows[i].username);
        if (u && q->rows[i].bot)
            json_object_set_new(u, "title", json_string("BOT"));
        if (u && online)
            json_object_set_new(u, "online", json_true());
        if (u && playing)
            json_object_set_new(u, "playing", json_true());
        json_array_append_new(out, u);
    }
    lichessapi_answer_json(h, q->later, lichessapi_dump(out));
}

static void users_submit(struct hub *h, struct users_read *q, uint64_t later,
                         struct http_reply *r)
{
    q->r.run = users_run;
    q->r.answer = users_answer;
    q->later = later;
    q->shared = hub_shared_store(h);
    submit(h, &q->r, r);
}

static void users_status(struct hub *h, const struct http_request *hq,
                         uint64_t later, struct http_reply *r)
{
    const char *ids = NULL, *p;
    struct users_read *q;

    for (size_t i = 0; i < hq->nargs; i++)
        if (!strncmp(hq->args[i], "ids=", 4))
            ids = hq->args[i] + 4;
    if (!ids || !*ids) {
        lichessapi_error(r, 400,
                         "ids: a list of usernames separated by commas");
        return;
    }
    if (!(q = calloc(1, sizeof *q))) {
        lichessapi_error(r, 500, "out_of_memory");
        return;
    }
    for (p = ids; *p;) {
        size_t n = strcspn(p, ",");
        if (n > 0) {
            if (q->n == LICHESS_STATUS_IDS) {
                free(q);
                lichessapi_error(r, 400, "ids: at most 100");
                return;
            }
            if (username_valid(p, n)) /* (else nobody: left out) */
                snprintf(q->names[q->n++], sizeof q->names[0], "%.*s", (int)n,
                         p);
        }
        p += n + (p[n] == ',');
    }
    users_submit(h, q, later, r);
}

static void user_public(struct hub *h, const char *name, uint64_t later,
                        struct http_reply *r)
{
    struct users_read *q;

    if (!username_valid(name, strlen(name))) {
        lichessapi_error(r, 404, "Not found.");
        return;
    }
    if (!(q = calloc(1, sizeof *q))) {
        lichessapi_error(r, 500, "out_of_memory");
        return;
    }
    q->one = true;
    q->n = 1;
    snprintf(q->names[0], sizeof q->names[0], "%s", name);
    users_submit(h, q, later, r);
}

/* ---- GET /api/games/user/{username} ------------------------------------ */

struct export_read {
    struct hub_read r;
    uint64_t later;
    char name[21];
    int max, found;
    struct store_account a;
    struct store_game_list list;
    char *pgn; /* the games' PGN, one after the other */
    size_t len;
};

static void export_clear(struct hub_read *r)
{
    struct export_read *q = (struct export_read *)r;

    store_game_list_clear(&q->list);
    free(q->pgn);
}

/* Appends text and a blank line to q->pgn: 0, or -1 when out of memory. */
static int export_add(struct export_read *q, const char *text)
{
    size_t n = strlen(text);
    char *p;

    while (n && text[n - 1] == '\n')
        n--;
    if (!(p = realloc(q->pgn, q->len + n + 3)))
        return -1;
    q->pgn = p;
    memcpy(p + q->len, text, n);
    memcpy(p + q->len + n, "\n\n", 3);
    q->len += n + 2;
    return 0;
}

static int export_run(struct store *st, struct hub_read *r)
{
    struct export_read *q = (struct export_read *)r;
    struct history_filter f;
    char next[33];

    q->found = store_find_account(st, q->name, &q->a);
    if (q->found != 1)
        return q->found;
    history_parse(&f, NULL, NULL, NULL, NULL);
    if (history_read(st, q->a.pid, NULL, q->max, &f, &q->list, next) < 0)
        return -1;
    for (size_t i = 0; i < q->list.n; i++) {
        struct store_game row;
        char *pgn = NULL;
        int rc = store_get_game(st, q->list.games[i].gid, &row, NULL, NULL,
                                &pgn);
        if (rc < 0 || (rc == 1 && pgn && export_add(q, pgn) < 0)) {
            free(pgn);
            return -1;
        }
        free(pgn);
    }
    return 1;
}

static void export_answer(struct hub_read *r, int rc)
{
    struct export_read *q = (struct export_read *)r;
    struct http_reply out = {0};

    if (rc < 0) {
        lichessapi_answer_error(r->h, q->later, 500, "database_error");
        return;
    }
    if (q->found != 1) {
        lichessapi_answer_error(r->h, q->later, 404, "No such user");
        return;
    }
    out.status = 200;
    out.type = "application/x-chess-pgn";
    out.body = q->pgn ? q->pgn : strdup("");
    out.len = q->pgn ? q->len : 0;
    q->pgn = NULL;
    if (!out.body) {
        lichessapi_answer_error(r->h, q->later, 500, "out_of_memory");
        return;
    }
    hub_http_answer(r->h, q->later, &out);
}

static void games_export(struct hub *h, const struct http_request *hq,
                         const char *name, uint64_t later,
                         struct http_reply *r)
{
    struct export_read *q;
    long max = LICHESS_EXPORT_MAX;

    for (size_t i = 0; i < hq->nargs; i++) {
        const char *a = hq->args[i];
        if (!strncmp(a, "max=", 4) &&
            !api_form_int(a + 4, 1, LICHESS_EXPORT_MAX, &max)) {
            lichessapi_error(r, 400, "max: 1-100");
            return;
        }
    }
    if (!username_valid(name, strlen(name))) {
        lichessapi_error(r, 404, "No such user");
        return;
    }
    if (!(q = calloc(1, sizeof *q))) {
        lichessapi_error(r, 500, "out_of_memory");
        return;
    }
    snprintf(q->name, sizeof q->name, "%s", name);
    q->max = (int)max;
    q->r.run = export_run;
    q->r.answer = export_answer;
    q->r.clear = export_clear;
    q->later = later;
    submit(h, &q->r, r);
}

/* ---- the routes --------------------------------------------------------- */

unsigned lichessapi_play_scopes(void)
{
    return apitoken_scope_bit("challenge:write", 15) |
           apitoken_scope_bit("bot:play", 8) |
           apitoken_scope_bit("board:play", 10);
}

bool lichessapi_http(struct hub *h, const struct http_request *q, int64_t now,
                     uint64_t later, struct http_reply *r)
{
    bool get = !strcmp(q->method, "GET"), post = !strcmp(q->method, "POST");
    const char *path = q->path;
    char seg[64];

    memset(r, 0, sizeof *r);
    if (!strcmp(path, "/api/challenge")) {
        if (!get)
            lichessapi_error(r, 405, "method_not_allowed");
        else
            challenge_list(h, q, now, later, r);
        return true;
    }
    if (!strncmp(path, "/api/challenge/", 15)) {
        const char *rest = path + 15;
        size_t n = strcspn(rest, "/");
        if (!post) {
            lichessapi_error(r, 405, "method_not_allowed");
            return true;
        }
        if (n == 0 || n >= sizeof seg) {
            lichessapi_error(r, 404, "Not found.");
            return true;
        }
        memcpy(seg, rest, n);
        seg[n] = '\0';
        if (!rest[n])
            challenge_create(h, q, seg, now, later, r);
        else if (strchr(rest + n + 1, '/'))
            lichessapi_error(r, 404, "Not found.");
        else
            challenge_verdict(h, q, seg, rest + n + 1, now, later, r);
        return true;
    }
    if (!strncmp(path, "/api/games/user/", 16)) {
        if (!get)
            lichessapi_error(r, 405, "method_not_allowed");
        else
            games_export(h, q, path + 16, later, r);
        return true;
    }
    if (!strcmp(path, "/api/account/playing") ||
        !strcmp(path, "/api/users/status") ||
        !strncmp(path, "/api/user/", 10)) {
        if (!get)
            lichessapi_error(r, 405, "method_not_allowed");
        else if (path[5] == 'a')
            lichessapi_playing(h, q, now, later, r);
        else if (path[9] == 's')
            users_status(h, q, later, r);
        else
            user_public(h, path + 10, later, r);
        return true;
    }
    return false;
}
