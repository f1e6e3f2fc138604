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
#include "hub/reads.h"
#include "hub/router.h"
#include "store/store.h"

#define JSON_TYPE "application/json"
/* GET /api/users/status: lichess's most ids a request. */
#define LICHESS_STATUS_IDS 100
/* The most nowPlaying games (lichess: nb, 1-50, default 9). */
#define LICHESS_PLAYING_MAX 50
#define LICHESS_PLAYING_DEFAULT 9
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
static void error(struct http_reply *r, int status, const char *words)
{
    reply(r, status, proto_render_api_error(words));
}

static char *dump(json_t *o)
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
        error(r, 503, "busy");
}

static void answer_error(struct hub *h, uint64_t later, int status,
                         const char *words)
{
    struct http_reply out = {0};

    error(&out, status, words);
    hub_http_answer(h, later, &out);
}

static void answer_json(struct hub *h, uint64_t later, char *body)
{
    struct http_reply out = {0};

    reply(&out, 200, body);
    hub_http_answer(h, later, &out);
}

/* True (r answered 501) in a cluster: who is online and which games a
 * player plays are each node's memory, not shared (docs/cluster.md). */
static bool node_local(struct hub *h, struct http_reply *r)
{
    if (h->router.ops == &hub_local_router)
        return false;
    error(r, 501,
          "not served in a cluster yet: who is online and "
          "playing is each node's");
    return true;
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

static void create_then(struct hub *h, const struct apitoken_who *who, int rc,
                        void *arg, uint64_t later)
{
    struct create *c = arg;
    struct challenge_who from = {who->pid, who->username, true, c->bot};
    struct challenge_who to = {c->dest.pid, c->dest.username, true,
                               c->dest.bot};
    char msg[160], *json;
    int code;

    (void)rc;
    if (c->found != 1) {
        answer_error(h, later, 404, "No such user");
        return;
    }
    code = challenge_api_create(h, &from, &to, &c->clock, c->color, c->rated,
                                hub_now_ms(h), &json, msg, sizeof msg);
    if (code)
        answer_error(h, later, refusal_status(code), msg);
    else
        answer_json(h, later, json);
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
        error(r, 404, "No such user");
        return;
    }
    if ((bad = api_form_parse(&f, q->body ? q->body : "", q->body_len))) {
        error(r, 400, bad);
        return;
    }
    if (!(c = calloc(1, sizeof *c))) {
        error(r, 500, "out_of_memory");
        return;
    }
    if ((bad = create_parse(&f, c, why, sizeof why))) {
        free(c);
        error(r, 400, bad);
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
 * start a rated game from, their live games to count). */
struct accept {
    char id[PROTO_KEY_MAX + 1];
    struct apitoken_who who;
    uint64_t later;
};

static void accept_now(struct hub *h, const struct accept *a)
{
    struct challenge_who me = {a->who.pid, a->who.username, true, false};
    char msg[160];
    int code = challenge_api_accept(h, a->id, &me, hub_now_ms(h), msg,
                                    sizeof msg);

    if (code)
        answer_error(h, a->later, refusal_status(code),
                     code == PROTO_NO_SUCH_CHALLENGE ? "Not found." : msg);
    else
        answer_json(h, a->later, strdup("{\"ok\":true}"));
}

static void accept_read(struct hub *h, void *who, void *arg, bool ok)
{
    struct accept *a = arg;

    (void)who;
    if (ok) /* (every check made again, on the state of now) */
        accept_now(h, a);
    else
        answer_error(h, a->later, 503, "busy");
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
        answer_error(h, later, 500, "out_of_memory");
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
        answer_error(h, later, 503, "busy");
    free(a);
}

static void verdict_then(struct hub *h, const struct apitoken_who *who,
                         int rc, void *arg, uint64_t later)
{
    struct verdict *v = arg;
    int code;

    (void)rc;
    if (v->decline == -2) {
        accept(h, who, v->id, later);
        return;
    }
    code = challenge_api_end(h, v->id, who->pid, v->decline);
    if (code)
        answer_error(h, later, refusal_status(code), "Not found.");
    else
        answer_json(h, later, strdup("{\"ok\":true}"));
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
        error(r, 404, "Not found.");
        return;
    }
    if ((bad = api_form_parse(&f, q->body ? q->body : "", q->body_len))) {
        error(r, 400, bad);
        return;
    }
    reason = api_form_get(&f, "reason");
    if (reason && decline >= 0 &&
        (decline = proto_decline_parse(reason)) < 0) {
        error(r, 400,
              "reason: generic, later, tooFast, tooSlow, "
              "timeControl, rated, casual, standard, variant, noBot "
              "or onlyBot");
        return;
    }
    if (!proto_key_valid(id)) {
        error(r, 404, "Not found.");
        return;
    }
    if (!(v = calloc(1, sizeof *v))) {
        error(r, 500, "out_of_memory");
        return;
    }
    snprintf(v->id, sizeof v->id, "%s", id);
    v->decline = decline;
    apitoken_auth(h, q, now, later, lichessapi_play_scopes(), NULL,
                  verdict_then, v, r);
}

/* ---- GET /api/account/playing ------------------------------------------- */

static const char *speed_name(const struct clock_spec *k)
{
    int est = k->initial_s + 40 * k->increment_s;

    if (k->per_move)
        return "correspondence";
    return est < 30     ? "ultraBullet"
           : est < 180  ? "bullet"
           : est < 480  ? "blitz"
           : est < 1500 ? "rapid"
                        : "classical";
}

/* One game of nowPlaying, from seat color's side. */
static json_t *playing_one(struct game *g, int color, int64_t now)
{
    const struct clock_spec *k = game_clock_spec(g);
    char fen[FEN_MAX], opp[PROTO_NAME_MAX + 1];
    int ply = game_ply(g), o = 1 - color;
    struct proto_player op = game_seat_player(g, o), me;
    json_t *j;

    game_fen(g, fen);
    me = game_seat_player(g, color);
    apitoken_user_id(op.name ? op.name : "", opp, sizeof opp);
    j = json_pack(
        "{s:s,s:s,s:s,s:s,s:b,s:b,s:s,s:{s:s,s:s},s:s,s:s,s:b,s:{s:s,s:s},"
        "s:I,s:s,s:{s:i,s:s}}",
        "gameId", game_gid(g), "fullId", game_gid(g), "color",
        color ? "black" : "white", "fen", fen, "hasMoved", ply > color,
        "isMyTurn", game_side_to_move(g) == color, "lastMove",
        ply ? game_move_uci(g, ply - 1) : "", "variant", "key", "standard",
        "name", "Standard", "speed", speed_name(k), "perf", speed_name(k),
        "rated", game_rated(g), "opponent", "id", opp, "username",
        op.name ? op.name : "", "secondsLeft",
        (json_int_t)(game_time_left(g, color, now) / 1000), "source",
        "friend", "status", "id", 20, "name", "started");
    if (j && op.has_rating)
        json_object_set_new(json_object_get(j, "opponent"), "rating",
                            json_integer(op.rating));
    if (j && me.has_rating)
        json_object_set_new(j, "rating", json_integer(me.rating));
    return j;
}

/* One of nowPlaying before it is written: its game and seat, and what
 * its order is by (lichess: the most urgent first; here my_games's:
 * my turn first, then the least time left). */
struct playing {
    struct game *g;
    int color;
    bool turn;
    int64_t left;
};

static int by_urgency(const void *pa, const void *pb)
{
    const struct playing *a = pa, *b = pb;

    if (a->turn != b->turn)
        return a->turn ? -1 : 1;
    return (a->left > b->left) - (a->left < b->left);
}

static void playing_then(struct hub *h, const struct apitoken_who *who,
                         int rc, void *arg, uint64_t later)
{
    struct player *p = table_get(&h->players, who->pid);
    size_t n = p ? p->ngames : 0, k = 0;
    struct playing *v = calloc(n ? n : 1, sizeof *v);
    int nb = *(int *)arg, mine = 0;
    json_t *list = json_array();
    int64_t now = hub_now_ms(h);

    (void)rc;
    for (size_t i = 0; v && i < n; i++) {
        struct game *g = hub_game(h, p->games[i].gid);
        int c = g ? game_color_of(g, who->pid) : -1;
        if (!g || c < 0 || game_status(g) != GAME_STARTED)
            continue; /* an invitation */
        v[k] = (struct playing){g, c, game_side_to_move(g) == c,
                                game_turn_left(g, now)};
        mine += v[k++].turn;
    }
    if (v)
        qsort(v, k, sizeof *v, by_urgency);
    for (size_t i = 0; v && list && i < k && i < (size_t)nb; i++)
        json_array_append_new(list, playing_one(v[i].g, v[i].color, now));
    if (!v || !list) {
        free(v);
        json_decref(list);
        answer_error(h, later, 500, "out_of_memory");
        return;
    }
    free(v);
    answer_json(
        h, later,
        dump(json_pack("{s:o,s:i}", "nowPlaying", list, "nbMyTurn", mine)));
}

static void account_playing(struct hub *h, const struct http_request *q,
                            int64_t now, uint64_t later, struct http_reply *r)
{
    const char *nb = NULL;
    long v = LICHESS_PLAYING_DEFAULT;
    int *arg;

    for (size_t i = 0; i < q->nargs; i++)
        if (!strncmp(q->args[i], "nb=", 3))
            nb = q->args[i] + 3;
    if (nb && !api_form_int(nb, 1, LICHESS_PLAYING_MAX, &v)) {
        error(r, 400, "nb: 1-50");
        return;
    }
    if (node_local(h, r))
        return;
    if (!(arg = malloc(sizeof *arg))) {
        error(r, 500, "out_of_memory");
        return;
    }
    *arg = (int)v;
    apitoken_auth(h, q, now, later, 0, NULL, playing_then, arg, r);
}

/* ---- GET /api/users/status, GET /api/user/{name} ------------------------ */

struct users_read {
    struct hub_read r;
    uint64_t later;
    size_t n;
    char names[LICHESS_STATUS_IDS][21];
    struct store_account rows[LICHESS_STATUS_IDS];
    int found[LICHESS_STATUS_IDS];
    /* /api/user/{name}: its ratings */
    bool one;
    struct store_rating ratings[RATING_CATEGORIES];
    size_t nratings;
};

static int users_run(struct store *st, struct hub_read *r)
{
    struct users_read *q = (struct users_read *)r;

    for (size_t i = 0; i < q->n; i++)
        if ((q->found[i] = store_find_account(st, q->names[i], &q->rows[i])) <
            0)
            return -1;
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
        json_object_set_new(o, x->category, p);
    }
    return o;
}

static void users_answer(struct hub_read *r, int rc)
{
    struct users_read *q = (struct users_read *)r;
    struct hub *h = r->h;
    json_t *out;
    char id[21];
    bool online, playing;

    if (rc < 0) {
        answer_error(h, q->later, 500, "database_error");
        return;
    }
    if (q->one) {
        const struct store_account *a = &q->rows[0];
        if (q->found[0] != 1) {
            answer_error(h, q->later, 404, "Not found.");
            return;
        }
        apitoken_user_id(a->username, id, sizeof id);
        presence(h, a->pid, &online, &playing);
        out = json_pack("{s:s,s:s,s:o,s:I}", "id", id, "username",
                        a->username, "perfs", perfs(q), "createdAt",
                        (json_int_t)a->created_ms);
        if (out && a->bot)
            json_object_set_new(out, "title", json_string("BOT"));
        if (out && h->router.ops == &hub_local_router) /* (node_local) */
            json_object_set_new(out, "online", json_boolean(online));
        answer_json(h, q->later, dump(out));
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
    answer_json(h, q->later, dump(out));
}

static void users_submit(struct hub *h, struct users_read *q, uint64_t later,
                         struct http_reply *r)
{
    q->r.run = users_run;
    q->r.answer = users_answer;
    q->later = later;
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
        error(r, 400, "ids: a list of usernames separated by commas");
        return;
    }
    if (node_local(h, r))
        return;
    if (!(q = calloc(1, sizeof *q))) {
        error(r, 500, "out_of_memory");
        return;
    }
    for (p = ids; *p;) {
        size_t n = strcspn(p, ",");
        if (n > 0) {
            if (q->n == LICHESS_STATUS_IDS) {
                free(q);
                error(r, 400, "ids: at most 100");
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
        error(r, 404, "Not found.");
        return;
    }
    if (!(q = calloc(1, sizeof *q))) {
        error(r, 500, "out_of_memory");
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
        answer_error(r->h, q->later, 500, "database_error");
        return;
    }
    if (q->found != 1) {
        answer_error(r->h, q->later, 404, "No such user");
        return;
    }
    out.status = 200;
    out.type = "application/x-chess-pgn";
    out.body = q->pgn ? q->pgn : strdup("");
    out.len = q->pgn ? q->len : 0;
    q->pgn = NULL;
    if (!out.body) {
        answer_error(r->h, q->later, 500, "out_of_memory");
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
            error(r, 400, "max: 1-100");
            return;
        }
    }
    if (!username_valid(name, strlen(name))) {
        error(r, 404, "No such user");
        return;
    }
    if (!(q = calloc(1, sizeof *q))) {
        error(r, 500, "out_of_memory");
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
    if (!strncmp(path, "/api/challenge/", 15)) {
        const char *rest = path + 15;
        size_t n = strcspn(rest, "/");
        if (!post) {
            error(r, 405, "method_not_allowed");
            return true;
        }
        if (n == 0 || n >= sizeof seg) {
            error(r, 404, "Not found.");
            return true;
        }
        memcpy(seg, rest, n);
        seg[n] = '\0';
        if (!rest[n])
            challenge_create(h, q, seg, now, later, r);
        else if (strchr(rest + n + 1, '/'))
            error(r, 404, "Not found.");
        else
            challenge_verdict(h, q, seg, rest + n + 1, now, later, r);
        return true;
    }
    if (!strncmp(path, "/api/games/user/", 16)) {
        if (!get)
            error(r, 405, "method_not_allowed");
        else
            games_export(h, q, path + 16, later, r);
        return true;
    }
    if (!strcmp(path, "/api/account/playing") ||
        !strcmp(path, "/api/users/status") ||
        !strncmp(path, "/api/user/", 10)) {
        if (!get)
            error(r, 405, "method_not_allowed");
        else if (path[5] == 'a')
            account_playing(h, q, now, later, r);
        else if (path[9] == 's')
            users_status(h, q, later, r);
        else
            user_public(h, path + 10, later, r);
        return true;
    }
    return false;
}
