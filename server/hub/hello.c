/*
 * hello.c - hello: a new guest, or a player back with its token, and the
 * welcome every identity change sends (hello, login, register).
 */
#include "hub/hub_internal.h"

#include <openssl/crypto.h>
#include <string.h>
#include "hub/account.h"
#include "cluster/cluster.h"
#include "lib/ids.h"
#include "hub/prefs.h"
#include "lib/tunables.h"
#include "lib/log.h"

/* ---- commands ---------------------------------------------------------- */

/* Sorts a player's games oldest first, stably: games created in the same
 * millisecond keep the order in which the player got them (creation
 * order), not an order of their random GIDs. n is at most
 * max_games_per_player (or what a restart restored). */
static void sort_created(struct game **gs, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct game *g = gs[i];
        size_t j = i;
        while (j > 0 && game_created_ms(gs[j - 1]) > game_created_ms(g)) {
            gs[j] = gs[j - 1];
            j--;
        }
        gs[j] = g;
    }
}

/* In a cluster: attaches s at the hosts of its player's live games on
 * other nodes, then sends s its welcome with every live game of its
 * player on any node (the store's list). */
static void cluster_welcome(struct session *s, struct proto_me *pp,
                            const char *token, const struct proto_id *id,
                            uint64_t seq)
{
    struct hub *h = s->hub;
    size_t max = (size_t)h->cfg.max_games_per_player + 8, n = 0;
    char(*live)[PROTO_KEY_MAX + 1] = malloc(max * sizeof *live);
    const char **gids = malloc(max * sizeof *gids);

    if (!live || !gids ||
        store_player_live_games(h->store, s->player->pid, live, max, &n) <
            0) {
        hub_busy(s, id);
    } else {
        for (size_t i = 0; i < n; i++)
            gids[i] = live[i];
        cluster_welcome_after_attach(
            h->cluster, s, gids, n,
            proto_render_welcome(pp, token, gids, n, id), seq);
    }
    free(gids);
    free(live);
}

void hub_welcome(struct session *s, const char *token,
                 const struct proto_id *id, uint64_t seq)
{
    struct player *p = s->player;
    struct proto_rating ratings[RATING_CATEGORIES];
    struct proto_me pp = {p->pid, p->name, p->account, ratings, 0, NULL};
    char *settings = NULL;
    size_t n, k = 0;
    struct game_ref *refs = NULL;
    struct game **gs = NULL;
    const char **gids = NULL;

    if (p->account) {
        pp.n_ratings = hub_ratings_shown(s->hub, p->pid, ratings, false);
        pp.settings = settings = prefs_get(s->hub, p->pid);
    }
    if (s->hub->cluster) {
        cluster_welcome(s, &pp, token, id, seq);
        free(settings);
        return;
    }
    refs = hub_games_snapshot(p, &n);
    gs = malloc((n ? n : 1) * sizeof *gs);
    gids = malloc((n ? n : 1) * sizeof *gids);
    for (size_t i = 0; refs && gs && i < n; i++)
        if ((gs[k] = table_get(&s->hub->games, refs[i].gid)) != NULL)
            k++;
    n = k;
    if (refs && gs && gids) {
        sort_created(gs, n);
        for (size_t i = 0; i < n; i++)
            gids[i] = game_gid(gs[i]);
        hub_send_text(s, proto_render_welcome(&pp, token, gids, n, id), seq);
    }
    free(settings);
    free(gids);
    free(gs);
    free(refs);
}

void hub_do_hello(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;
    struct player *p;
    uint8_t hash[32];
    char key[65];

    if (s->player) {
        hub_send_error(s, PROTO_BAD_FIELD, "hello: already said", &m->id);
        return;
    }
    if (m->token[0]) {
        struct store_player sp;
        uint64_t seq = 0;
        int64_t last = 0;
        bool account = false;
        int rc = 1;
        ids_token_hash(m->token, hash);
        hub_hex(hash, 32, key);
        p = account_revoked(h, key) ? NULL : table_get(&h->tokens, key);
        if (!p)
            rc = account_revoked(h, key)
                     ? 0
                     : account_find_by_token(h, hash, &sp, &account, &last);
        if (rc <= 0) {
            hub_send_error(s, PROTO_BAD_TOKEN,
                           rc < 0 ? "the player database did not answer"
                                  : "unknown token",
                           &m->id);
            return;
        }
        if (!p) {
            p = hub_player_get(h, sp.pid, sp.name);
            if (!p)
                return;
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
        bool was_gone = !hub_player_present(p);
        if (hub_attach(s, p) < 0) {
            hub_player_release(h, p);
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
        return;
    }

    struct store_player sp;
    char token[2 * LIMIT_TOKEN_BYTES];
    uint64_t seq;
    struct addr *a = hub_addr_get(h, s->ip);
    if (a && !bucket_take(&a->guests, h->cfg.guests_per_ip_per_min / 60.0,
                          h->cfg.guests_per_ip_per_min, now)) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "too many new players from your "
                       "address; try again in a minute",
                       &m->id);
        return;
    }
    memset(&sp, 0, sizeof sp);
    if (ids_random(sp.pid, LIMIT_PID_BYTES) < 0 ||
        ids_random(token, LIMIT_TOKEN_BYTES) < 0) {
        hub_send_error(s, PROTO_RATE_LIMITED, "no randomness available",
                       &m->id);
        return;
    }
    if (m->name[0]) {
        snprintf(sp.name, sizeof sp.name, "%s", m->name);
    } else {
        char r[16];
        ids_random(r, 6);
        r[6] = '\0';
        snprintf(sp.name, sizeof sp.name, "Guest-%.6s", r);
    }
    ids_token_hash(token, sp.token_hash);
    sp.created_ms = hub_wall_ms(h);
    seq = store_put_player(h->store, &sp);
    if (!seq) {
        hub_send_error(s, PROTO_RATE_LIMITED, "the server is busy; try again",
                       &m->id);
        return;
    }
    p = hub_player_get(h, sp.pid, sp.name);
    if (!p)
        return;
    hub_player_set_token(h, p, sp.token_hash);
    if (hub_attach(s, p) < 0) {
        hub_player_release(h, p);
        return;
    }
    hub_welcome(s, token, &m->id, seq);
    char q[2 * PROTO_NAME_MAX + 8];
    log_info("event=player_new player=%s name=%s", p->pid,
             log_quote(q, sizeof q, p->name));
}
