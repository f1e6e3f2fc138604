/*
 * hello.c - hello: a new guest, or a player back with its token, and the
 * welcome every identity change sends (hello, login, register).
 */
#include "hub/hub_internal.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/account.h"
#include "hub/prefs.h"
#include "lib/ids.h"
#include "lib/log.h"
#include "lib/msgbuf.h"
#include "lib/tunables.h"

/* ---- commands ---------------------------------------------------------- */

/* The welcome's text for s's player with token and the live games
 * gids[0..n). */
static struct msgbuf *welcome_of(struct session *s, const char *token,
                                 const char *const *gids, size_t n,
                                 const struct proto_id *id)
{
    struct player *p = s->player;
    struct proto_rating ratings[RATING_CATEGORIES];
    struct proto_me pp = {p->pid, p->name, p->account, ratings, 0, NULL};
    char *settings = NULL;
    struct msgbuf *b;

    if (p->account) {
        pp.n_ratings = hub_ratings_shown(s->hub, p->pid, ratings, false);
        pp.settings = settings = prefs_get(s->hub, p->pid);
    }
    b = msgbuf_take(proto_render_welcome(&pp, token, gids, n, id));
    free(settings);
    return b;
}

void hub_welcome(struct session *s, const char *token,
                 const struct proto_id *id, uint64_t seq)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    size_t max = (size_t)h->cfg.max_games_per_player + 8, n = 0;
    char(*buf)[PROTO_KEY_MAX + 1];
    const char **gids;
    struct msgbuf *b = NULL;

    if (p->ngames + 8 > max) /* (a restart restores what it finds) */
        max = p->ngames + 8;
    buf = malloc(max * sizeof *buf);
    gids = malloc(max * sizeof *gids);
    /* the player's live games on every node, oldest first */
    if (!buf || !gids ||
        h->router.ops->list_games(h->router.ctx, p, gids, buf, max, &n) < 0 ||
        !(b = welcome_of(s, token, gids, n, id)))
        hub_busy(s, id);
    else /* (in a cluster, once s follows those games at their hosts) */
        h->router.ops->welcome(h->router.ctx, s, gids, n, b, seq);
    msgbuf_unref(b);
    free(gids);
    free(buf);
}

/* The player a token names: in memory, or read from the store (a
 * guest's row, an account's token) into *sp. 1 with *p or *sp, 0
 * (unknown or revoked), -1 (a database error). */
static int token_player(struct hub *h, const uint8_t hash[32],
                        struct player **p, struct store_player *sp,
                        bool *account, int64_t *last)
{
    char key[65];

    hub_hex(hash, 32, key);
    *account = false;
    *p = NULL;
    if (account_revoked(h, key))
        return 0;
    if ((*p = table_get(&h->tokens, key)) != NULL)
        return 1;
    return account_find_by_token(h, hash, sp, account, last);
}

/* hello with a token: the player is back on s. */
static void hello_back(struct session *s, const struct proto_msg *m,
                       int64_t now)
{
    struct hub *h = s->hub;
    struct store_player sp;
    struct player *p;
    uint8_t hash[32];
    uint64_t seq = 0;
    int64_t last = 0;
    bool account, was_gone;
    int rc;

    ids_token_hash(m->token, hash);
    rc = token_player(h, hash, &p, &sp, &account, &last);
    if (rc <= 0) {
        hub_send_error(s, PROTO_BAD_TOKEN,
                       rc < 0 ? "the player database did not answer"
                              : "unknown token",
                       &m->id);
        return;
    }
    if (!p) {
        if (!(p = hub_player_get(h, sp.pid, sp.name))) {
            hub_busy(s, &m->id);
            return;
        }
        if (account) {
            p->account = true;
            snprintf(p->name, sizeof p->name, "%s", sp.name);
        } else {
            hub_player_set_token(h, p, hash);
            /* A guest purge queued before p was in memory may delete
             * the row just read: put it back, behind the purge. */
            if (h->purge_seq > store_committed(h->store))
                seq = store_put_player(h->store, &sp);
        }
    }
    was_gone = !hub_player_present(p);
    if (hub_attach(s, p) < 0) {
        hub_player_release(h, p);
        hub_busy(s, &m->id);
        return;
    }
    if (account) {
        account_set_token(s, hash);
        if (hub_wall_ms(h) - last >= LIMIT_TOKEN_TOUCH_MS)
            store_touch_token(h->store, hash, hub_wall_ms(h));
    }
    /* subscribed to p's games from here on, through p->fan */
    hub_welcome(s, m->token, &m->id, seq);
    if (was_gone)
        hub_player_back(h, p, now);
    log_info("event=player_resumed player=%s", p->pid);
}

/* A new guest's row, named as hello asks or Guest-XXXXXX, with a new
 * token (its text into token). 0, or -1 (no randomness). */
static int guest_row(struct hub *h, const struct proto_msg *m,
                     struct store_player *sp, char *token)
{
    memset(sp, 0, sizeof *sp);
    if (ids_random(sp->pid, LIMIT_PID_BYTES) < 0 ||
        ids_random(token, LIMIT_TOKEN_BYTES) < 0)
        return -1;
    if (m->name[0]) {
        snprintf(sp->name, sizeof sp->name, "%s", m->name);
    } else {
        char r[16];
        ids_random(r, 6);
        r[6] = '\0';
        snprintf(sp->name, sizeof sp->name, "Guest-%.6s", r);
    }
    ids_token_hash(token, sp->token_hash);
    sp->created_ms = hub_wall_ms(h);
    return 0;
}

/* hello without a token: a new guest, within its address's budget. */
static void hello_new(struct session *s, const struct proto_msg *m,
                      int64_t now)
{
    struct hub *h = s->hub;
    char key[ADDRKEY_MAX];
    char token[2 * LIMIT_TOKEN_BYTES], q[2 * PROTO_NAME_MAX + 8];
    struct store_player sp;
    struct player *p;
    uint64_t seq;

    hub_addr_key(h, s->ip, key);
    if (!hub_limit_take(h, h->guests, key, now)) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "too many new players from your "
                       "address; try again in a minute",
                       &m->id);
        return;
    }
    if (guest_row(h, m, &sp, token) < 0) {
        hub_send_error(s, PROTO_RATE_LIMITED, "no randomness available",
                       &m->id);
        return;
    }
    seq = store_put_player(h->store, &sp);
    if (!seq || !(p = hub_player_get(h, sp.pid, sp.name))) {
        hub_busy(s, &m->id);
        return;
    }
    hub_player_set_token(h, p, sp.token_hash);
    if (hub_attach(s, p) < 0) {
        hub_player_release(h, p);
        hub_busy(s, &m->id);
        return;
    }
    hub_welcome(s, token, &m->id, seq);
    log_info("event=player_new player=%s name=%s", p->pid,
             log_quote(q, sizeof q, p->name));
}

void hub_do_hello(struct session *s, const struct proto_msg *m, int64_t now)
{
    if (s->player)
        hub_send_error(s, PROTO_BAD_FIELD, "hello: already said", &m->id);
    else if (m->token[0])
        hello_back(s, m, now);
    else
        hello_new(s, m, now);
}
