/*
 * botaccount.c - bot accounts (issue 27 item 5; PROTOCOL.md "Bot
 * accounts"): POST /api/bot/account/upgrade turns the token's account
 * into a bot account for good, as lichess's does, and only an account
 * that has played no game. The flag is a column of the account's row
 * (migrations/0018_bot.sql), read with it (store_find_account), so
 * every node knows it: GET /api/account, /api/user/{name} and
 * /api/users/status show "title":"BOT".
 *
 * What a client costs: the token's buckets (apitokens.c), then one read
 * off the loop (the token's row, its account's row, at most one of its
 * ended games and one of its live games) and at most one write.
 */
#include "hub/botaccount.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apitoken.h"
#include "game/rating.h"
#include "lib/ratelimit.h"
#include "lib/tunables.h"
#include "hub/apitokens.h"
#include "hub/botapi.h"
#include "hub/hub_internal.h"
#include "hub/reads.h"
#include "lib/log.h"
#include "store/store.h"

/* GET /api/bot/online's nb: lichess's default; our most. */
#define BOT_ONLINE_DEFAULT 50
#define BOT_ONLINE_MAX 300
/* In a cluster, the bot accounts read and asked about at most a request
 * (by username): the store's rows and the PUBLISHes one request costs. */
#define BOT_ONLINE_ASK 300

#define NO_GAMES_ONLY                                                     \
    "No longer allowed to upgrade to BOT: this account has played games " \
    "(only a new account that has played none can be upgraded)"

struct upgrade {
    bool bot;   /* the account is a bot already */
    bool games; /* it has a game, ended or live, in the store */
};

static void answer(struct hub *h, uint64_t later, int status,
                   const char *body)
{
    struct http_reply out = {0};

    out.status = status;
    out.type = "application/json";
    out.body = strdup(body);
    if (!out.body)
        out.status = 500;
    out.len = out.body ? strlen(out.body) : 0;
    hub_http_answer(h, later, &out);
}

/* Reader thread: the account's row and whether it has any game. */
static int upgrade_run(struct store *st, const struct apitoken_who *who,
                       void *arg)
{
    struct upgrade *u = arg;
    struct store_account a;
    struct store_game_list l = {0};
    char gid[1][33];
    size_t n = 0;
    int rc = store_find_account(st, who->username, &a);

    if (rc != 1)
        return rc < 0 ? -1 : 0;
    u->bot = a.bot;
    if (store_player_live_games(st, who->pid, gid, 1, &n) < 0 ||
        store_list_player_games(st, who->pid, NULL, 1, &l) < 0)
        return -1;
    u->games = n > 0 || l.n > 0;
    store_game_list_clear(&l);
    return 1;
}

static void upgrade_then(struct hub *h, const struct apitoken_who *who,
                         int rc, void *arg, uint64_t later)
{
    struct upgrade *u = arg;
    struct player *p;
    uint64_t seq;

    if (!h) /* (the hub is going) */
        return;
    p = table_get(&h->players, who->pid);
    if (rc < 0) {
        answer(h, later, 500, "{\"error\":\"database_error\"}");
    } else if (rc == 0) {
        answer(h, later, 404, "{\"error\":\"Not found.\"}");
    } else if (u->bot) {
        answer(h, later, 200, "{\"ok\":true}"); /* (nothing changes) */
    } else if (u->games || (p && p->ngames > 0)) {
        /* (a game of this node not written yet counts too) */
        answer(h, later, 400, "{\"error\":\"" NO_GAMES_ONLY "\"}");
    } else if (!(seq = store_put_bot(h->store, who->pid))) {
        answer(h, later, 503, "{\"error\":\"busy\"}");
    } else {
        if (p && p->facts)
            p->facts->bot = true;
        log_info("event=bot_upgrade pid=%s name=%s", who->pid, who->username);
        /* (once committed: lichess-bot -u reads its profile next) */
        botapi_ok_after(h, later, seq);
    }
}

bool botaccount_refused(struct session *s, const struct proto_msg *m)
{
    const struct player *p = s->player;

    switch (m->type) {
    case PROTO_T_SEEK:
    case PROTO_T_ACCEPT:
    case PROTO_T_INVITE:
    case PROTO_T_JOIN:
    case PROTO_T_REMATCH:
    case PROTO_T_COMPUTER:
    case PROTO_T_CHALLENGE:
    case PROTO_T_CHALLENGE_ACCEPT:
        break;
    default:
        return false;
    }
    if (!p || !p->facts || !p->facts->bot)
        return false;
    hub_send_error(s, PROTO_BOT_API_ONLY,
                   "a bot account plays through the Bot API only "
                   "(challenges: POST /api/challenge/{username})",
                   &m->id);
    return true;
}

/* ---- the caps ----------------------------------------------------------- */

struct botaccounts {
    struct ratelimit *day; /* each bot's bot-vs-bot games, per pid */
};

static struct botaccounts *B(struct hub *h)
{
    return hub_module_state(h, &hub_botaccount_module);
}

static int too_busy(struct hub *h, const char *pid, char *msg, size_t len)
{
    const struct player *p = table_get(&h->players, pid);

    if (!p || hub_live_held(p) < (size_t)h->cfg.bot_max_games)
        return 0; /* (every node's, in a cluster: its facts') */
    snprintf(msg, len, "%s plays %d games: the most a bot plays at once",
             p->name, h->cfg.bot_max_games);
    return PROTO_TOO_MANY_GAMES;
}

int botaccount_may_play(struct hub *h, const char *a, bool a_bot,
                        const char *b, bool b_bot, int64_t now, char *msg,
                        size_t len)
{
    struct ratelimit *day = B(h)->day;
    int code;

    if ((a_bot && (code = too_busy(h, a, msg, len))) ||
        (b_bot && (code = too_busy(h, b, msg, len))))
        return code;
    if (!a_bot || !b_bot)
        return 0;
    for (int i = 0; i < 2; i++) { /* (a token taken and given back) */
        const char *pid = i ? b : a;
        if (!ratelimit_take(day, pid, now)) {
            snprintf(msg, len,
                     "a bot plays %d games against bots a day: no more "
                     "today",
                     h->cfg.bot_games_per_day);
            return PROTO_TOO_MANY_GAMES;
        }
        ratelimit_give(day, pid);
    }
    return 0;
}

void botaccount_started(struct hub *h, const char *a, bool a_bot,
                        const char *b, bool b_bot, int64_t now)
{
    if (!a_bot || !b_bot)
        return;
    ratelimit_take(B(h)->day, a, now);
    ratelimit_take(B(h)->day, b, now);
}

static int init(struct hub *h)
{
    struct botaccounts *b = calloc(1, sizeof *b);

    hub_module_set_state(h, &hub_botaccount_module, b);
    if (!b)
        return -1;
    b->day = ratelimit_new(h->cfg.bot_games_per_day / 86400.0,
                           h->cfg.bot_games_per_day, LIMIT_BOT_DAY_KEYS);
    return b->day ? 0 : -1;
}

static void fini(struct hub *h)
{
    struct botaccounts *b = B(h);

    if (b) {
        ratelimit_free(b->day);
        free(b);
    }
    hub_module_set_state(h, &hub_botaccount_module, NULL);
}

const struct hub_module hub_botaccount_module = {
    .name = "botaccount",
    .init = init,
    .free = fini,
};

static void reply(struct http_reply *r, int status, const char *type,
                  char *body)
{
    r->status = body ? status : 500;
    r->type = body ? type : "text/plain";
    r->body = body;
    r->len = body ? strlen(body) : 0;
}

/* One rating as lichess's perf: games, rating, rd, prog, prov. */
static json_t *perf(const struct store_rating *x)
{
    return json_pack("{s:i,s:i,s:i,s:i,s:b}", "games", x->games, "rating",
                     rating_round(x->rating), "rd", rating_round(x->rd),
                     "prog", 0, "prov", x->rd > RATING_RD_PROVISIONAL);
}

/* One bot named name as lichess's User: id, username, title, perfs
 * (taken), online. */
static json_t *online_json(const char *name, json_t *perfs)
{
    char id[PROTO_NAME_MAX + 1];

    apitoken_user_id(name, id, sizeof id);
    return json_pack("{s:s,s:s,s:s,s:o,s:b}", "id", id, "username", name,
                     "title", "BOT", "perfs", perfs ? perfs : json_object(),
                     "online", 1);
}

/* One bot of this node's players as lichess's User. */
static json_t *online_user(const struct player *p)
{
    json_t *perfs = json_object();

    for (int c = 0; perfs && c < RATING_CATEGORIES; c++) {
        const struct store_rating *x = &p->facts->ratings[c];
        if (p->facts->has[c] && x->games > 0)
            json_object_set_new(perfs,
                                apitoken_perf_key(rating_category_name(
                                    (enum rating_category)c)),
                                perf(x));
    }
    return online_json(p->name, perfs);
}

/* Appends u's line (taken) to the NDJSON out (*len bytes of *cap): 1,
 * 0 when u is NULL, or -1 when out of memory (*out freed and NULL). */
static int append_line(char **out, size_t *len, size_t *cap, json_t *u)
{
    char *line = u ? json_dumps(u, JSON_COMPACT) : NULL;
    size_t k = line ? strlen(line) : 0;
    int added = line != NULL;

    json_decref(u);
    if (line && *len + k + 2 > *cap) {
        char *grown = realloc(*out, (*cap = 2 * (*len + k + 2)));
        if (!grown) {
            free(line);
            free(*out);
            *out = NULL;
            return -1;
        }
        *out = grown;
    }
    if (line) {
        memcpy(*out + *len, line, k);
        (*out)[ *len += k] = '\n';
        (*out)[++*len] = '\0';
    }
    free(line);
    return added;
}

/* ---- in a cluster ------------------------------------------------------- */

/* GET /api/bot/online in a cluster: the bot accounts read from the store
 * (at most BOT_ONLINE_ASK, by username), each asked of the nodes
 * (router.h's present: a PUBLISH on player:P) unless it has a connection
 * here, then the ratings of the first nb online read, and the lines
 * written. One request costs at most BOT_ONLINE_ASK rows and questions
 * and nb ratings' reads (PROTOCOL.md). */
struct online_ask {
    struct hub *h;
    uint64_t later;
    size_t nb, n, waiting;
    struct store_block bots[BOT_ONLINE_ASK];
    long online[BOT_ONLINE_ASK]; /* nodes with a connection; -1 unknown */
    size_t pick[BOT_ONLINE_MAX], npick; /* the online ones listed */
    struct store_rating ratings[BOT_ONLINE_MAX][RATING_CATEGORIES];
    size_t nratings[BOT_ONLINE_MAX];
};

/* A read of a (its bots, then its picks' ratings). */
struct online_read {
    struct hub_read r;
    struct online_ask *a; /* NULL once handed on */
};

/* One bot's presence asked. */
struct online_q {
    struct online_ask *a;
    size_t i;
};

static void online_clear(struct hub_read *r)
{
    free(((struct online_read *)r)->a);
}

static int online_bots_run(struct store *st, struct hub_read *r)
{
    struct online_ask *a = ((struct online_read *)r)->a;

    return store_list_bots(st, a->bots, BOT_ONLINE_ASK, &a->n);
}

static int online_ratings_run(struct store *st, struct hub_read *r)
{
    struct online_ask *a = ((struct online_read *)r)->a;

    for (size_t k = 0; k < a->npick; k++)
        if (store_player_ratings(st, a->bots[a->pick[k]].pid, a->ratings[k],
                                 RATING_CATEGORIES, &a->nratings[k]) < 0)
            return -1;
    return 0;
}

static void online_ratings_answer(struct hub_read *r, int rc)
{
    struct online_ask *a = ((struct online_read *)r)->a;
    size_t len = 0, cap = 256;
    char *out = malloc(cap);
    struct http_reply done = {0};

    if (rc < 0) {
        answer(a->h, a->later, 500, "{\"error\":\"database_error\"}");
        free(out);
        return;
    }
    if (out)
        out[0] = '\0';
    for (size_t k = 0; out && k < a->npick; k++) {
        json_t *perfs = json_object();
        for (size_t c = 0; perfs && c < a->nratings[k]; c++)
            if (a->ratings[k][c].games > 0)
                json_object_set_new(
                    perfs, apitoken_perf_key(a->ratings[k][c].category),
                    perf(&a->ratings[k][c]));
        append_line(&out, &len, &cap,
                    online_json(a->bots[a->pick[k]].name, perfs));
    }
    reply(&done, 200, "application/x-ndjson", out);
    hub_http_answer(a->h, a->later, &done);
}

/* Every presence is in: the first nb online, their ratings read. */
static void online_picked(struct online_ask *a)
{
    struct online_read *q = calloc(1, sizeof *q);

    for (size_t i = 0; i < a->n && a->npick < a->nb; i++)
        if (a->online[i] > 0)
            a->pick[a->npick++] = i;
    if (!q) {
        answer(a->h, a->later, 500, "{\"error\":\"out_of_memory\"}");
        free(a);
        return;
    }
    q->a = a;
    q->r.run = online_ratings_run;
    q->r.answer = online_ratings_answer;
    q->r.clear = online_clear;
    if (hub_read_submit(a->h, &q->r, NULL, NULL) < 0)
        answer(a->h, a->later, 503, "{\"error\":\"busy\"}"); /* (a freed) */
}

static void online_answered(void *arg, long rc, const char *text, size_t len)
{
    struct online_q *q = arg;
    struct online_ask *a = q->a;

    (void)text;
    (void)len;
    a->online[q->i] = rc;
    free(q);
    if (--a->waiting == 0)
        online_picked(a);
}

static void online_bots_answer(struct hub_read *r, int rc)
{
    struct online_read *q = (struct online_read *)r;
    struct online_ask *a = q->a;
    struct hub *h = a->h;

    if (rc < 0) {
        answer(h, a->later, 500, "{\"error\":\"database_error\"}");
        return;
    }
    q->a = NULL;    /* (a is the questions' now) */
    a->waiting = 1; /* (until every question is asked) */
    for (size_t i = 0; i < a->n; i++) {
        struct player *p = table_get(&h->players, a->bots[i].pid);
        struct online_q *ask;
        a->online[i] = p && hub_player_present(p) ? 1 : -1;
        if (a->online[i] > 0 || !(ask = malloc(sizeof *ask)))
            continue;
        *ask = (struct online_q){a, i};
        a->waiting++;
        if (h->router.ops->present(h->router.ctx, a->bots[i].pid,
                                   online_answered, ask) < 0) {
            a->waiting--;
            free(ask);
        }
    }
    if (--a->waiting == 0)
        online_picked(a);
}

static void bot_online_cluster(struct hub *h, size_t nb, uint64_t later,
                               struct http_reply *r)
{
    struct online_read *q = calloc(1, sizeof *q);

    if (!q || !(q->a = calloc(1, sizeof *q->a))) {
        free(q);
        reply(r, 500, "application/json", strdup("{\"error\":\"busy\"}"));
        return;
    }
    q->a->h = h;
    q->a->later = later;
    q->a->nb = nb;
    q->r.run = online_bots_run;
    q->r.answer = online_bots_answer;
    q->r.clear = online_clear;
    r->status = 0; /* later */
    if (hub_read_submit(h, &q->r, NULL, NULL) < 0)
        reply(r, 503, "application/json", strdup("{\"error\":\"busy\"}"));
}

/* GET /api/bot/online: the bot accounts with a page or stream open, one
 * User a line, at most nb (1-BOT_ONLINE_MAX, default
 * BOT_ONLINE_DEFAULT). On a node alone one walk of the players in
 * memory, no read; in a cluster, bot_online_cluster. */
static void bot_online(struct hub *h, const struct http_request *q,
                       uint64_t later, struct http_reply *r)
{
    long nb = BOT_ONLINE_DEFAULT;
    size_t len = 0, cap = 256, n = 0;
    char *out, *end;

    for (size_t i = 0; i < q->nargs; i++)
        if (!strncmp(q->args[i], "nb=", 3)) {
            nb = strtol(q->args[i] + 3, &end, 10);
            if (!q->args[i][3] || *end || nb < 1 || nb > BOT_ONLINE_MAX) {
                reply(r, 400, "application/json",
                      strdup("{\"error\":\"nb: a number of 1 to 300\"}"));
                return;
            }
        }
    if (h->router.ops->present) {
        bot_online_cluster(h, (size_t)nb, later, r);
        return;
    }
    if ((out = malloc(cap)) != NULL)
        out[0] = '\0';
    for (size_t i = 0; out && i < h->players.cap && n < (size_t)nb; i++) {
        const struct player *p = h->players.slots[i].value;
        if (!p || !p->facts || !p->facts->bot || !hub_player_present(p))
            continue;
        if (append_line(&out, &len, &cap, online_user(p)) > 0)
            n++;
    }
    reply(r, 200, "application/x-ndjson", out);
}

bool botaccount_http(struct hub *h, const struct http_request *q, int64_t now,
                     uint64_t later, struct http_reply *r)
{
    struct upgrade *u;

    if (!strcmp(q->path, "/api/bot/online")) {
        memset(r, 0, sizeof *r);
        if (strcmp(q->method, "GET"))
            reply(r, 405, "application/json",
                  strdup("{\"error\":\"method_not_allowed\"}"));
        else
            bot_online(h, q, later, r);
        return true;
    }
    if (strcmp(q->path, "/api/bot/account/upgrade"))
        return false;
    memset(r, 0, sizeof *r);
    if (strcmp(q->method, "POST")) {
        reply(r, 405, "application/json",
              strdup("{\"error\":\"method_not_allowed\"}"));
        return true;
    }
    if (!(u = calloc(1, sizeof *u))) {
        r->status = 500;
        r->type = "text/plain";
        return true;
    }
    apitoken_auth(h, q, now, later, apitoken_scope_bit("bot:play", 8),
                  upgrade_run, upgrade_then, u, r);
    return true;
}
