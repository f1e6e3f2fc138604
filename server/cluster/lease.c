/*
 * lease.c - the node's lease: joining under an incarnation, renewing, a lapse and
 * the games taken back, the sweep for dead nodes, the scan for games
 * nobody hosts, Redis up and down (cluster.h, cluster_internal.h).
 */
#include "cluster/cluster_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "lib/ids.h"
#include "lib/log.h"
#include "lib/msgbuf.h"

/* ---- the lease, the sweep ---------------------------------------------- */

void lease_new_incarnation(struct cluster *c)
{
    if (ids_random(c->inc, 8) < 0)
        snprintf(c->inc, sizeof c->inc, "%llx",
                 (unsigned long long)cluster_now(c));
}

static void on_up(void *arg, const struct bus_value *v, const char *err)
{
    struct cluster *c = arg;

    c->renewing = false;
    if (err || !bus_is(v, BUS_INT)) {
        log_warn("event=cluster_lease_failed error=\"%s\"",
                 err ? err : "unexpected reply");
        return;
    }
    if (v->integer == 0) {       /* tried again next tick */
        if (!c->id_taken_logged) /* (once until it joins) */
            log_error("event=cluster_node_id_taken node=%s "
                      "msg=\"another incarnation holds its lease (a node "
                      "with the same node_id, or this node's own within "
                      "%d ms of a restart); tried again each second\"",
                      c->node, CLUSTER_LEASE_MS);
        c->id_taken_logged = true;
        return;
    }
    c->id_taken_logged = false;
    c->leased = true;
    c->lease_until = cluster_now(c) + CLUSTER_LEASE_MS;
    c->renewed_at = cluster_now(c);
    log_info("event=cluster_joined node=%s incarnation=%s", c->node, c->inc);
    if (!c->joined) { /* (a restart: its last run's challenges are gone) */
        c->joined = true;
        challenges_drop_node(c, c->node);
    }
    if (!c->orphans_scan) { /* games nobody hosts: a cluster restarted */
        c->orphans_scan = true;
        c->orphans_after[0] = '\0';
        /* not a game created since a lease before: its creator is alive
         * and takes it in Redis just after storing it (taken first from
         * here, the creator found it fenced: a node joining a busy
         * cluster cut the players of dozens of new games) */
        c->orphans_before = hub_wall_ms(c->h) - CLUSTER_LEASE_MS;
        /* and a lease after joining: after a Redis restart every live
         * node takes its own games back at once (reclaim), and a game
         * another node's scan took first fenced its host (its players
         * cut with 1012); what nobody has claimed by then is an orphan */
        c->orphans_at = cluster_now(c) + CLUSTER_LEASE_MS;
    }
    lease_reclaim(c, BUS_EVERY); /* (each game's held commands run or go
                                    with its take) */
    edge_resync_all(c);
    if (c->remotes_stale && c->shards_down == 0) {
        c->remotes_stale = false;
        host_resync_remotes(c);
    }
}

static void node_up(struct cluster *c)
{
    char ms[24], wall[24], games[24];

    snprintf(ms, sizeof ms, "%d", CLUSTER_LEASE_MS);
    snprintf(wall, sizeof wall, "%lld", (long long)hub_wall_ms(c->h));
    snprintf(games, sizeof games, "%zu", c->epochs.n);
    c->renewing = true;
    if (cluster_eval(c, BUS_NODE_UP, on_up, c, 1, (const char *[]){"nodes"},
                     5,
                     (const char *[]){c->node, c->inc, ms, wall, games}) < 0)
        c->renewing = false;
}

static void on_renewed(void *arg, const struct bus_value *v, const char *err)
{
    struct cluster *c = arg;

    c->renewing = false;
    if (c->renew_draining && !err) /* (marked stopping, or lapsed) */
        c->drain_marked = true;
    if (err || !bus_is(v, BUS_INT))
        return; /* tried again next tick */
    if (v->integer == 1) {
        c->lease_until = cluster_now(c) + CLUSTER_LEASE_MS;
        c->renewed_at = cluster_now(c);
        held_run(c, NULL); /* nobody could take the games meanwhile */
        if (c->remotes_stale && c->shards_down == 0) {
            c->remotes_stale = false;
            host_resync_remotes(c);
        }
        return;
    }
    /* lapsed: a new incarnation takes every game of this node's again
     * (those another node adopted meanwhile are fenced here) */
    log_warn("event=cluster_lease_lost node=%s incarnation=%s", c->node,
             c->inc);
    c->m.leases_lost++;
    c->leased = false;
    lease_new_incarnation(c);
    node_up(c);
}

int lease_renew(struct cluster *c, int ms, bus_reply_fn *fn)
{
    char lease[24], wall[24], games[24];

    snprintf(lease, sizeof lease, "%d", ms);
    snprintf(wall, sizeof wall, "%lld", (long long)hub_wall_ms(c->h));
    snprintf(games, sizeof games, "%zu", c->epochs.n);
    return cluster_eval(c, BUS_NODE_RENEW, fn, c, 1,
                        (const char *[]){"nodes"}, 6,
                        (const char *[]){c->node, c->inc, lease, wall, games,
                                         c->handing ? "1" : "0"});
}

void lease_renew_now(struct cluster *c)
{
    c->renewing = true;
    c->renew_draining = c->handing;
    if (lease_renew(c, CLUSTER_LEASE_MS, on_renewed) < 0)
        c->renewing = false;
}

/* A game hosted here taken again (lease_reclaim). */
struct reclaim {
    struct cluster *c;
    char gid[PROTO_KEY_MAX + 1];
};

static void on_reclaimed(void *arg, const struct bus_value *v,
                         const char *err)
{
    struct reclaim *r = arg;
    struct cluster *c = r->c;
    long long epoch = bus_int(bus_at(v, 0), -1);

    if (!hub_game(c->h, r->gid) || err || epoch < 0) {
        held_refuse(c, r->gid); /* (its lease still in doubt) */
        free(r); /* tried again at the next lapse; fencing guards it */
        return;
    }
    if (epoch == 0) {
        host_fence(c, r->gid); /* (its held commands refused) */
    } else if (bus_at(v, 2)) {
        /* it was another node's meanwhile (the answer names that node's
         * last sign of life), whose lease lapsed too: the moves played
         * there are in the store, not in this copy. Written on from this
         * copy, the next end would have replaced them (the game's moves
         * are copied from memory): acknowledged moves lost. So this copy
         * goes, its connections closed and its held commands refused,
         * and the game is read again at the epoch just taken. */
        int64_t seen = bus_int(bus_at(v, 2), 0);
        struct adoption *a;
        host_fence(c, r->gid);
        adopt_game(c, r->gid, epoch, seen, NULL);
        if ((a = table_get(&c->adopting, r->gid)) != NULL)
            a->handover = false; /* (a takeover, counted so) */
    } else if (store_take_epoch(c->store, r->gid, epoch)) {
        adopt_epoch_set(c, r->gid, epoch);
        held_run(c, r->gid); /* (written with the new epoch) */
    } else {
        held_refuse(c, r->gid); /* (the store's queue is full) */
    }
    free(r);
}

void lease_reclaim(struct cluster *c, int shard)
{
    for (size_t i = 0; i < c->epochs.cap; i++) {
        int64_t *e = c->epochs.slots[i].value;
        const char *gid = c->epochs.slots[i].key;
        struct reclaim *r;
        if (!e ||
            (shard != BUS_EVERY && cluster_game_shard(c, gid) != shard) ||
            !(r = malloc(sizeof *r)))
            continue;
        r->c = c;
        snprintf(r->gid, sizeof r->gid, "%s", gid);
        if (cluster_take(c, r->gid, *e, NULL, on_reclaimed, r) < 0)
            free(r);
    }
}

/* nodes_dead's answer: {from, upto, of, node, seen, lately, ...}: each
 * dead node's remote sessions go, its seeks go, and its games are
 * adopted: this node's share of those of a node that died lately. */
static void on_swept(void *arg, const struct bus_value *v, const char *err)
{
    struct cluster *c = arg;
    struct sweep_share share;

    if (err || !bus_is(v, BUS_ARRAY) || v->n < 3)
        return;
    share = (struct sweep_share){bus_int(bus_at(v, 0), 1),
                                 bus_int(bus_at(v, 1), 0),
                                 bus_int(bus_at(v, 2), 0)};
    for (size_t i = 3; i + 2 < v->n; i += 3) {
        const char *node = bus_str(bus_at(v, i), NULL);
        bool lately = bus_int(bus_at(v, i + 2), 0) == 1;
        if (!node || !proto_key_valid(node))
            continue;
        log_info("event=cluster_node_dead node=%s", node);
        host_drop_node(c, node, NULL);
        seeks_drop_node(c, node);
        challenges_drop_node(c, node);
        if (!c->handing) /* (a stopping node adopts none) */
            cluster_sweep_node(c, node, lately ? &share : NULL);
    }
}

/* A page of the orphans' scan, read off the loop. */
struct orphans_read {
    struct hub_read r;
    char after[PROTO_KEY_MAX + 1];
    int64_t before;
    char gids[CLUSTER_SWEEP_GAMES][PROTO_KEY_MAX + 1];
    size_t n;
};

static int orphans_run(struct store *st, struct hub_read *r)
{
    struct orphans_read *q = (struct orphans_read *)r;

    return store_live_gids(st, q->after, q->before, q->gids,
                           CLUSTER_SWEEP_GAMES, &q->n);
}

static void orphans_answer(struct hub_read *r, int rc)
{
    struct orphans_read *q = (struct orphans_read *)r;
    struct cluster *c = r->who;

    c->orphans_reading = false;
    /* (a failed page is read again next tick; a scan begun again since,
     * after a lapse, starts from its own first page) */
    if (rc < 0 || !c->orphans_scan || strcmp(q->after, c->orphans_after))
        return;
    for (size_t i = 0; i < q->n; i++)
        if (!hub_game(c->h, q->gids[i]) &&
            !table_get(&c->adopting, q->gids[i]))
            adopt_game(c, q->gids[i], 0, 0, NULL);
    if (q->n < CLUSTER_SWEEP_GAMES)
        c->orphans_scan = false;
    else
        snprintf(c->orphans_after, sizeof c->orphans_after, "%s",
                 q->gids[q->n - 1]);
}

/* One page of the scan, after joining, of the store's live games: each
 * not hosted here is adopted unless a live node hosts it (game_take
 * decides), so that after the whole cluster restarted (Redis empty, no
 * node's set to sweep) every live game finds a host and its clocks and
 * deadlines run again. CLUSTER_SWEEP_GAMES a tick, read off the loop
 * (orphans_answer goes on): the tick that renews the lease never waits
 * for the database. */
static void orphans_tick(struct cluster *c)
{
    struct orphans_read *q;

    if (!c->orphans_scan || c->orphans_reading ||
        cluster_now(c) < c->orphans_at || !(q = calloc(1, sizeof *q)))
        return;
    q->r.run = orphans_run;
    q->r.answer = orphans_answer;
    snprintf(q->after, sizeof q->after, "%s", c->orphans_after);
    q->before = c->orphans_before;
    if (hub_read_submit(c->h, &q->r, &c->reads, c) == 0)
        c->orphans_reading = true; /* (else again next tick) */
}

/* node's current incarnation is inc (NULL: none, its lease lapsed):
 * remote sessions of any other incarnation of it go. */
struct alive_check {
    struct cluster *c;
    char node[PROTO_KEY_MAX + 1];
};

static void on_alive(void *arg, const struct bus_value *v, const char *err)
{
    struct alive_check *a = arg;

    const char *inc = bus_str(bus_at(v, 0), NULL);

    if (!err && inc)
        host_drop_node(a->c, a->node, inc[0] ? inc : NULL);
    free(a);
}

/* Every CLUSTER_TICK_MS: the lease, the sweep, and the incarnations of
 * the nodes whose connections are mirrored here. */
void lease_on_tick(void *arg)
{
    struct cluster *c = arg;
    char wall[24], share[16];
    struct table seen;

    hub_alarm_arm(c->h, c->tick, cluster_now(c) + CLUSTER_TICK_MS);
    held_expire(c, cluster_now(c));
    if (!c->up || c->renewing)
        return;
    if (!c->leased) {
        node_up(c);
        return;
    }
    lease_renew_now(c);
    seeks_cards_tick(c);
    seeks_fans_tick(c);
    orphans_tick(c);
    snprintf(wall, sizeof wall, "%lld", (long long)hub_wall_ms(c->h));
    snprintf(share, sizeof share, "%d", CLUSTER_SHARE_MS);
    cluster_eval(c, BUS_NODES_DEAD, on_swept, c, 1, (const char *[]){"nodes"},
                 3, (const char *[]){c->node, wall, share});
    balance_tick(c);
    table_init(&seen);
    for (size_t i = 0; i < c->remotes.cap; i++) {
        struct remote *rs = c->remotes.slots[i].value;
        struct alive_check *a;
        if (!rs || table_get(&seen, rs->node) ||
            table_put(&seen, rs->node, rs) < 0 || !(a = malloc(sizeof *a)))
            continue;
        a->c = c;
        snprintf(a->node, sizeof a->node, "%s", rs->node);
        if (cluster_eval(c, BUS_NODE_ALIVE, on_alive, a, 1,
                         (const char *[]){"nodes"}, 1,
                         (const char *[]){a->node}) < 0)
            free(a);
    }
    table_clear(&seen);
}

/* ---- the bus up and down ------------------------------------------------ */

void lease_on_state(void *arg, int shard, bool up)
{
    struct cluster *c = arg;
    bool all_were_up = c->shards_down == 0;

    c->shards_down += up ? -1 : 1;
    assert(c->shards_down >= 0 && c->shards_down <= c->bus.shards);
    if (shard == BUS_FIRST)
        c->up = up;
    log_info("event=cluster_redis_%s node=%s shard=%d", up ? "up" : "down",
             c->node, shard);
    if (all_were_up || c->shards_down == 0) {
        /* to every local connection after hello: the first shard lost,
         * and the last one back */
        struct msgbuf *b = msgbuf_take(proto_render_cluster(up));
        if (b)
            hub_notice_all(c->h, b);
        msgbuf_unref(b);
    }
    if (!up) {
        c->remotes_stale = true; /* (deliveries fail until it is back) */
        return;
    }
    cluster_shard_mark(c, shard);
    if (shard == BUS_FIRST) {
        /* renew at once: it tells whether the lease held (its answer
         * resyncs the remote sessions) */
        if (c->leased)
            lease_renew_now(c);
        else if (!c->renewing)
            node_up(c);
    } else if (c->shards_down == 0 && c->leased && c->remotes_stale) {
        c->remotes_stale = false; /* (the lease held meanwhile) */
        host_resync_remotes(c);
    }
    if (c->shards_down == 0 && c->leased)
        edge_resync_all(c);
}
