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

#include <stdlib.h>
#include <string.h>

#include "apitoken.h"
#include "hub/apitokens.h"
#include "hub/hub_internal.h"
#include "lib/log.h"
#include "store/store.h"

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
    } else if (!store_put_bot(h->store, who->pid)) {
        answer(h, later, 503, "{\"error\":\"busy\"}");
    } else {
        if (p && p->facts)
            p->facts->bot = true;
        log_info("event=bot_upgrade pid=%s name=%s", who->pid, who->username);
        answer(h, later, 200, "{\"ok\":true}");
    }
}

bool botaccount_http(struct hub *h, const struct http_request *q, int64_t now,
                     uint64_t later, struct http_reply *r)
{
    struct upgrade *u;

    if (strcmp(q->path, "/api/bot/account/upgrade"))
        return false;
    memset(r, 0, sizeof *r);
    if (strcmp(q->method, "POST")) {
        r->status = 405;
        r->type = "application/json";
        r->body = strdup("{\"error\":\"method_not_allowed\"}");
        r->len = r->body ? strlen(r->body) : 0;
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
