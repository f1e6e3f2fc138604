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
#include "lib/log.h"
#include "store/store.h"

/* GET /api/bot/online's nb: lichess's default; our most. */
#define BOT_ONLINE_DEFAULT 50
#define BOT_ONLINE_MAX 300

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

/* One bot as lichess's User: id, username, title, perfs, online. */
static json_t *online_user(const struct player *p)
{
    char id[sizeof p->name];
    json_t *perfs = json_object(), *o;

    apitoken_user_id(p->name, id, sizeof id);
    for (int c = 0; perfs && c < RATING_CATEGORIES; c++) {
        const struct store_rating *x = &p->facts->ratings[c];
        if (p->facts->has[c] && x->games > 0)
            json_object_set_new(
                perfs,
                apitoken_perf_key(
                    rating_category_name((enum rating_category)c)),
                json_pack("{s:i,s:i,s:i,s:i,s:b}", "games", x->games,
                          "rating", rating_round(x->rating), "rd",
                          rating_round(x->rd), "prog", 0, "prov",
                          x->rd > RATING_RD_PROVISIONAL));
    }
    o = json_pack("{s:s,s:s,s:s,s:o,s:b}", "id", id, "username", p->name,
                  "title", "BOT", "perfs", perfs ? perfs : json_object(),
                  "online", 1);
    return o;
}

/* GET /api/bot/online: the bot accounts with a page or stream open here,
 * one User a line, at most nb (1-BOT_ONLINE_MAX, default
 * BOT_ONLINE_DEFAULT). One walk of the players in memory, no read. */
static void bot_online(struct hub *h, const struct http_request *q,
                       struct http_reply *r)
{
    long nb = BOT_ONLINE_DEFAULT;
    size_t len = 0, cap = 256, n = 0;
    char *out = malloc(cap), *end;

    for (size_t i = 0; i < q->nargs; i++)
        if (!strncmp(q->args[i], "nb=", 3)) {
            nb = strtol(q->args[i] + 3, &end, 10);
            if (!q->args[i][3] || *end || nb < 1 || nb > BOT_ONLINE_MAX) {
                free(out);
                reply(r, 400, "application/json",
                      strdup("{\"error\":\"nb: a number of 1 to 300\"}"));
                return;
            }
        }
    if (h->router.ops != &hub_local_router) { /* (presence: each node's) */
        free(out);
        reply(r, 501, "application/json",
              strdup("{\"error\":\"not served in a cluster yet: who is "
                     "online is each node's\"}"));
        return;
    }
    if (out)
        out[0] = '\0';
    for (size_t i = 0; out && i < h->players.cap && n < (size_t)nb; i++) {
        const struct player *p = h->players.slots[i].value;
        char *line;
        size_t k;
        json_t *u;
        if (!p || !p->facts || !p->facts->bot || !hub_player_present(p))
            continue;
        u = online_user(p);
        line = u ? json_dumps(u, JSON_COMPACT) : NULL;
        json_decref(u);
        if (!line)
            continue;
        k = strlen(line);
        if (len + k + 2 > cap) {
            char *grown = realloc(out, (cap = 2 * (len + k + 2)));
            if (!grown) {
                free(line);
                free(out);
                out = NULL;
                break;
            }
            out = grown;
        }
        memcpy(out + len, line, k);
        out[len += k] = '\n';
        out[++len] = '\0';
        free(line);
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
            bot_online(h, q, r);
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
