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
#include "hub/maintenance.h"
#include "hub/prefs.h"
#include "hub/reads.h"
#include "lib/ids.h"
#include "lib/log.h"
#include "lib/msgbuf.h"
#include "lib/tunables.h"

/* ---- commands ---------------------------------------------------------- */

/* The welcome's text for s's player with token, the live games
 * gids[0..n) and settings (an account's JSON, NULL: none). */
static struct msgbuf *welcome_of(struct session *s, const char *token,
                                 const char *const *gids, size_t n,
                                 const char *settings,
                                 const struct proto_id *id)
{
    struct player *p = s->player;
    struct proto_rating ratings[RATING_CATEGORIES];
    struct proto_me pp = {p->pid, p->name, p->account, ratings,
                          0,      NULL,    false};

    if (p->account) {
        pp.n_ratings = hub_ratings_shown(s->hub, p->pid, ratings, false);
        pp.settings = settings;
        pp.moderator = p->facts && p->facts->moderator;
    }
    return msgbuf_take(proto_render_welcome(&pp, token, gids, n, id));
}

/* p's live games, oldest first, at most max into gids (their text in
 * buf): on a node alone those in memory; in a cluster every node's, as
 * its facts read them, and then those in memory not among them (new
 * since). How many. */
static size_t live_games(struct hub *h, struct player *p, const char **gids,
                         char (*buf)[PROTO_KEY_MAX + 1], size_t max)
{
    struct game **gs = malloc((max ? max : 1) * sizeof *gs);
    size_t n = 0, k;

    if (p->facts && p->facts->with_live)
        for (; n < p->facts->n_live && n < max; n++) {
            memcpy(buf[n], p->facts->live[n], sizeof buf[n]);
            gids[n] = buf[n];
        }
    k = gs ? hub_player_games_sorted(h, p, gs, max) : 0;
    for (size_t i = 0; i < k && n < max; i++) {
        bool listed = false;
        for (size_t j = 0; j < n && !listed; j++)
            listed = !strcmp(gids[j], game_gid(gs[i]));
        if (!listed) {
            snprintf(buf[n], sizeof buf[n], "%s", game_gid(gs[i]));
            gids[n] = buf[n];
            n++;
        }
    }
    free(gs);
    return n;
}

void hub_welcome(struct session *s, const char *token,
                 const struct proto_id *id, uint64_t seq,
                 const char *settings)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    size_t max = (size_t)h->cfg.max_games_per_player + 8, n = 0;
    char(*buf)[PROTO_KEY_MAX + 1];
    const char **gids;
    struct msgbuf *b = NULL;

    prefs_note(p, settings);
    if (p->ngames + 8 > max) /* (a restart restores what it finds) */
        max = p->ngames + 8;
    if (p->facts && p->facts->n_live + 8 > max)
        max = p->facts->n_live + 8;
    buf = malloc(max * sizeof *buf);
    gids = malloc(max * sizeof *gids);
    if (buf && gids)
        n = live_games(h, p, gids, buf, max);
    if (!buf || !gids || !(b = welcome_of(s, token, gids, n, settings, id)))
        hub_busy(s, id);
    else /* (in a cluster, once s follows those games at their hosts) */
        h->router.ops->welcome(h->router.ctx, s, gids, n, b, seq);
    if (b) {
        hub_playban_welcomed(s);
        hub_maintenance_welcomed(s);
    }
    msgbuf_unref(b);
    free(gids);
    free(buf);
}

/* The rest of hello with a token, once its player is known: p (NULL:
 * sp's, a record made here), a guest or an account (last: its token's
 * last use), with facts read for it (NULL: p's own are fresh) and an
 * account's stored settings. */
static void hello_found(struct session *s, const struct proto_msg *m,
                        const uint8_t hash[32], struct player *p,
                        const struct store_player *sp, bool account,
                        int64_t last, const struct facts_row *facts,
                        const char *settings, uint64_t seen, int64_t now)
{
    struct hub *h = s->hub;
    uint64_t seq = 0;
    bool was_gone;
    char *shown;

    if (!p) {
        if (!(p = hub_player_get(h, sp->pid, sp->name))) {
            hub_busy(s, &m->id);
            return;
        }
        if (account) {
            p->account = true;
            snprintf(p->name, sizeof p->name, "%s", sp->name);
        } else {
            hub_player_set_token(h, p, hash);
            /* A guest purge queued before p was in memory may delete
             * the row just read: put it back, behind the purge. */
            if (h->purge_seq > store_committed(h->store))
                seq = store_put_player(h->store, sp);
        }
    }
    if (facts && facts->rc == 0)
        hub_facts_apply(h, p, facts);
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
    shown = p->account ? prefs_get(h, p->pid, settings, seen) : NULL;
    hub_welcome(s, m->token, &m->id, seq, shown);
    free(shown);
    if (was_gone)
        hub_player_back(h, p, now);
    log_info("event=player_resumed player=%s", p->pid);
}

/* hello's read: the player a token names (a guest's row, or an account
 * whose token was used lately), its facts and an account's settings. */
struct hello_read {
    struct hub_read r;
    struct proto_msg m;
    uint8_t hash[32];
    int64_t since_ms;
    size_t max_live;
    struct store_player sp; /* found: its pid and name */
    int64_t last;           /* an account token's last use */
    struct facts_row facts;
    char *settings; /* an account's, malloc'ed; NULL: none stored */
};

enum { TOKEN_NONE, TOKEN_GUEST, TOKEN_ACCOUNT };

static int hello_run(struct store *st, struct hub_read *r)
{
    struct hello_read *q = (struct hello_read *)r;
    int found = TOKEN_NONE;
    int rc = store_find_player_by_token(st, q->hash, &q->sp);

    if (rc < 0)
        return -1;
    if (rc == 1) {
        found = TOKEN_GUEST;
    } else {
        rc = store_find_account_token(st, q->hash, q->since_ms, &q->sp,
                                      &q->last);
        if (rc < 0)
            return -1;
        if (rc == 1)
            found = TOKEN_ACCOUNT;
    }
    if (found == TOKEN_NONE)
        return found;
    hub_facts_read(st, q->sp.pid, q->max_live, &q->facts);
    if (q->facts.rc < 0 ||
        (found == TOKEN_ACCOUNT &&
         store_get_settings(st, q->sp.pid, &q->settings) < 0))
        return -1;
    return found;
}

static void hello_clear(struct hub_read *r)
{
    struct hello_read *q = (struct hello_read *)r;

    hub_facts_row_clear(&q->facts);
    free(q->settings);
    OPENSSL_cleanse(q->m.token, sizeof q->m.token);
}

static void bad_token(struct session *s, const struct proto_msg *m,
                      bool failed)
{
    hub_send_error(s, PROTO_BAD_TOKEN,
                   failed ? "the player database did not answer"
                          : "unknown token",
                   &m->id);
}

static void hello_answered(struct hub_read *r, int rc)
{
    struct hello_read *q = (struct hello_read *)r;
    struct session *s = r->who;
    struct hub *h = r->h;
    struct player *p, *mem;
    char key[72];

    s->waiting = false;
    if (s->player) { /* (a login came meanwhile: it is not held) */
        hub_send_error(s, PROTO_BAD_FIELD, "hello: already said", &q->m.id);
        return;
    }
    if (rc < 0) {
        bad_token(s, &q->m, true);
        return;
    }
    /* what this node wrote since the read began, which it may miss: a
     * revocation, a registration, a player back in memory */
    hub_hex(q->hash, 32, key);
    if (account_revoked_since(h, key, r->seen)) {
        bad_token(s, &q->m, false);
        return;
    }
    if ((p = table_get(&h->tokens, key)) != NULL) { /* (its facts too) */
        hello_found(s, &q->m, q->hash, p, NULL, false, 0,
                    rc == TOKEN_GUEST && !strcmp(q->sp.pid, p->pid)
                        ? &q->facts
                        : NULL,
                    NULL, r->seen, hub_now_ms(h));
        return;
    }
    if (rc == TOKEN_GUEST && (mem = table_get(&h->players, q->sp.pid)) &&
        mem->account)
        rc = TOKEN_NONE; /* it registered: its guest token is dead */
    snprintf(key, sizeof key, "pid:%s", q->sp.pid);
    if (rc == TOKEN_ACCOUNT && account_revoked_since(h, key, r->seen))
        rc = TOKEN_NONE;
    if (rc == TOKEN_NONE) {
        bad_token(s, &q->m, false);
        return;
    }
    hello_found(s, &q->m, q->hash, NULL, &q->sp, rc == TOKEN_ACCOUNT, q->last,
                &q->facts, q->settings, r->seen, hub_now_ms(h));
}

static void hello_answer(struct hub_read *r, int rc)
{
    struct session *s = r->who;

    hello_answered(r, rc);
    if (!s->waiting) /* (what came after the hello, in order) */
        hub_session_replay(s);
}

/* hello with a token: the player is back on s. From memory when it is
 * there (another connection of a guest's), else read. */
static void hello_back(struct session *s, const struct proto_msg *m,
                       int64_t now)
{
    struct hub *h = s->hub;
    struct hello_read *q;
    struct player *p;
    uint8_t hash[32];
    char key[65];

    ids_token_hash(m->token, hash);
    hub_hex(hash, 32, key);
    if (account_revoked(h, key)) {
        bad_token(s, m, false);
        return;
    }
    /* (a cluster reads anyway: its welcome lists every node's games) */
    if ((p = table_get(&h->tokens, key)) != NULL && p->facts &&
        !hub_shared_store(h)) {
        hello_found(s, m, hash, p, NULL, false, 0, NULL, NULL,
                    store_committed(h->store), now);
        return;
    }
    if (!(q = calloc(1, sizeof *q))) {
        hub_busy(s, &m->id);
        return;
    }
    q->r.run = hello_run;
    q->r.answer = hello_answer;
    q->r.clear = hello_clear;
    q->m = *m;
    memcpy(q->hash, hash, sizeof hash);
    q->since_ms = hub_wall_ms(h) - LIMIT_ACCOUNT_TOKEN_IDLE_MS;
    q->max_live = hub_facts_max_live(h);
    if (hub_read_submit_for(s, &q->r, &m->id, 0) == 0)
        s->waiting = true;
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
    hub_facts_new_player(h, p); /* (nothing to read: it is new) */
    if (hub_attach(s, p) < 0) {
        hub_player_release(h, p);
        hub_busy(s, &m->id);
        return;
    }
    hub_welcome(s, token, &m->id, seq, NULL);
    log_info("event=player_new player=%s name=%s", p->pid,
             log_quote(q, sizeof q, p->name));
}

void hub_do_hello(struct session *s, const struct proto_msg *m, int64_t now)
{
    if (s->player || s->waiting)
        hub_send_error(s, PROTO_BAD_FIELD, "hello: already said", &m->id);
    else if (m->token[0])
        hello_back(s, m, now);
    else
        hello_new(s, m, now);
}
