/*
 * balance.c - the games spread over the nodes: the loads of the live
 * nodes (the games each hosts, nodes.lua), the least loaded for a
 * handover, and the balance: each tick the most loaded node hands a few
 * games between moves to the least loaded until the nodes are even
 * (docs/cluster.md, "Balance"; cluster.h, cluster_internal.h).
 *
 * One mover at a time: every node reads the same loads and only the most
 * loaded (ties: the first name) moves, to the least loaded, at most half
 * their difference and balance_per_s games a tick, and not while its
 * last tick's handovers are in flight, nor for a tick and a half after
 * they landed: the loads are those the nodes reported at their last
 * renewal (nodes.lua), and every node renews once meanwhile, whatever
 * the phase of its tick. It starts past
 * CLUSTER_BALANCE_PCT % of the mean (plus a slack) and stops within
 * CLUSTER_BALANCE_STOP_PCT %, so games arriving at random do not start it
 * again at once. A move is the shutdown's handover (handover_start): a
 * compare-and-set of the host in Redis with a new epoch, fenced in the
 * store as every other take, so a game is on one host at a time.
 */
#include "cluster/cluster_internal.h"

#include <stdio.h>
#include <string.h>

#include "game/game.h"
#include "lib/log.h"

size_t balance_loads(const struct bus_value *v, struct node_load *out,
                     size_t max)
{
    size_t n = 0;

    if (!bus_is(v, BUS_ARRAY))
        return 0;
    for (size_t i = 0; i + 1 < v->n && n < max; i += 2) {
        const char *node = bus_str(&v->v[i], NULL);
        long long games = bus_int(&v->v[i + 1], -1);
        if (!node || !proto_key_valid(node) || games < 0)
            continue;
        snprintf(out[n].node, sizeof out[n].node, "%s", node);
        out[n++].games = games;
    }
    return n;
}

struct node_load *balance_least(struct node_load *l, size_t n)
{
    struct node_load *best = NULL;

    for (size_t i = 0; i < n; i++)
        if (!best || l[i].games < best->games ||
            (l[i].games == best->games && strcmp(l[i].node, best->node) < 0))
            best = &l[i];
    return best;
}

/* The most loaded of l[0..n) (ties: the first name), or NULL. */
static struct node_load *most(struct node_load *l, size_t n)
{
    struct node_load *best = NULL;

    for (size_t i = 0; i < n; i++)
        if (!best || l[i].games > best->games ||
            (l[i].games == best->games && strcmp(l[i].node, best->node) < 0))
            best = &l[i];
    return best;
}

/* True when games is within pct % of the mean of total over n nodes
 * plus slack games. */
static bool within(long long games, long long total, size_t n, int pct,
                   int slack)
{
    return games * 100 * (long long)n <=
           (long long)pct * total + (long long)slack * 100 * (long long)n;
}

/* Up to k of the games hosted here that may move unnoticed, each handed
 * to node `to`; CLUSTER_BALANCE_SCAN slots looked at from where the last
 * look stopped. */
static void move_games(struct cluster *c, const char *to, long long k)
{
    uint64_t committed = store_committed(c->store);
    size_t cap = c->epochs.cap,
           scan = cap < CLUSTER_BALANCE_SCAN ? cap : CLUSTER_BALANCE_SCAN;

    for (size_t j = 0; j < scan && k > 0; j++) {
        size_t i = (c->balance_cursor + j) % cap;
        const char *gid = c->epochs.slots[i].key;
        struct game *g;
        if (!c->epochs.slots[i].value)
            continue;
        g = hub_game(c->h, gid);
        if (!g || !game_movable(g) || game_seq(g) > committed ||
            table_get(&c->handing_over, gid))
            continue;
        if (handover_start(c, gid, to, true) == 0)
            k--;
    }
    c->balance_cursor = cap ? (c->balance_cursor + scan) % cap : 0;
}

/* nodes.lua's answer: the loads; this node moves games when it is the
 * most loaded and over the mark. */
static void on_loads(void *arg, const struct bus_value *v, const char *err)
{
    struct cluster *c = arg;
    struct node_load l[CLUSTER_NODES_MAX], *top, *low;
    size_t n = err ? 0 : balance_loads(v, l, CLUSTER_NODES_MAX);
    long long total = 0, k;

    c->balance_asked = false;
    for (size_t i = 0; i < n; i++)
        total += l[i].games;
    top = most(l, n);
    low = balance_least(l, n);
    if (n < 2 || c->handing || !cluster_leased(c) ||
        strcmp(top->node, c->node)) {
        c->balancing = false; /* (the move is another node's) */
        return;
    }
    if (c->balancing ? within(top->games, total, n, CLUSTER_BALANCE_STOP_PCT,
                              CLUSTER_BALANCE_STOP_SLACK)
                     : within(top->games, total, n, CLUSTER_BALANCE_PCT,
                              CLUSTER_BALANCE_SLACK)) {
        if (c->balancing)
            log_info("event=cluster_balanced node=%s games=%lld nodes=%zu "
                     "total=%lld",
                     c->node, top->games, n, total);
        c->balancing = false;
        return;
    }
    if (!c->balancing)
        log_info("event=cluster_balancing node=%s games=%lld nodes=%zu "
                 "total=%lld to=%s to_games=%lld",
                 c->node, top->games, n, total, low->node, low->games);
    c->balancing = true;
    k = (top->games - low->games) / 2;
    if (k > c->balance_per_s)
        k = c->balance_per_s;
    if (k > 0)
        move_games(c, low->node, k);
}

void balance_tick(struct cluster *c)
{
    handover_retry(c);
    if (c->balance_per_s <= 0 || c->handing || c->balance_asked ||
        c->balance_moving || cluster_now(c) < c->balance_settle_at ||
        !cluster_leased(c))
        return;
    c->balance_asked = true;
    if (cluster_eval(c, BUS_NODES, on_loads, c, 1, (const char *[]){"nodes"},
                     0, NULL) < 0)
        c->balance_asked = false;
}

void cluster_set_balance(struct cluster *c, int per_s)
{
    c->balance_per_s = per_s;
}
