/*
 * shard.c - what the cluster keeps on which of the bus's shards
 * (docs/cluster.md, "Shards"): which shard a game and a connection are
 * on, a game's keys there and the steps of its take, handover and
 * release, the sets of each node's games, and each shard's mark (a
 * restarted shard's games taken again by their hosts). The leases are
 * on the first shard and a game's keys on its own, so no script can
 * read both: a take is a compare-and-set on the game's shard after a
 * look at the host's lease on the first (cluster_internal.h).
 */
#include "cluster/cluster_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ids.h"
#include "lib/log.h"

/* ---- where things are -------------------------------------------------- */

int cluster_game_shard(const struct cluster *c, const char *gid)
{
    return bus_shard(&c->bus, gid);
}

int cluster_conn_shard(const struct cluster *c, const char *node,
                       uint64_t conn)
{
    char key[PROTO_KEY_MAX + 24];

    snprintf(key, sizeof key, "%s/%llu", node, (unsigned long long)conn);
    return bus_shard(&c->bus, key);
}

/* A game's keys: one hash tag, so one slot in Redis Cluster. */
static void game_keys(const char *gid, char host[PROTO_KEY_MAX + 16],
                      char epoch[PROTO_KEY_MAX + 16])
{
    snprintf(host, PROTO_KEY_MAX + 16, "game:{%s}:host", gid);
    snprintf(epoch, PROTO_KEY_MAX + 16, "game:{%s}:epoch", gid);
}

/* node_games (op "add"/"del" gid, or "pick" n and, with share, its
 * slice) on shard. */
static int node_games(struct cluster *c, int shard, const char *node,
                      const char *op, const char *arg,
                      const struct sweep_share *share, bus_reply_fn *fn,
                      void *farg)
{
    char key[PROTO_KEY_MAX + 16], from[24], upto[24], of[24];

    snprintf(key, sizeof key, "node:{%s}:games", node);
    if (share) {
        snprintf(from, sizeof from, "%lld", share->from);
        snprintf(upto, sizeof upto, "%lld", share->upto);
        snprintf(of, sizeof of, "%lld", share->of);
    }
    return cluster_eval_on(
        c, shard, BUS_NODE_GAMES, fn ? fn : cluster_log_reply,
        fn ? farg : (void *)"node_games", 1, (const char *[]){key},
        share ? 5 : 2, (const char *[]){op, arg, from, upto, of});
}

/* ---- a take ------------------------------------------------------------ */

struct take {
    struct cluster *c;
    char gid[PROTO_KEY_MAX + 1];
    char floor[24];
    char dead[PROTO_KEY_MAX + 1]; /* the host found without a lease */
    char from[PROTO_KEY_MAX + 1]; /* whose set listed the game, or "" */
    int64_t seen;                 /* the dead host's last sign of life */
    bus_reply_fn *fn;
    void *arg;
};

static void on_take(void *arg, const struct bus_value *v, const char *err);

static int take_send(struct take *t)
{
    char host[PROTO_KEY_MAX + 16], epoch[PROTO_KEY_MAX + 16];

    game_keys(t->gid, host, epoch);
    return cluster_eval_on(t->c, cluster_game_shard(t->c, t->gid),
                           BUS_GAME_TAKE, on_take, t, 2,
                           (const char *[]){host, epoch}, 3,
                           (const char *[]){t->c->node, t->floor, t->dead});
}

/* The take's answer to its caller, {epoch, node[, seen]} or {0, host}
 * (cluster_take), and t freed. The set
 * that listed the game forgets it unless its node hosts the game. */
static void take_done(struct take *t, long long epoch, const char *host,
                      const char *err, const struct bus_value *errv)
{
    struct cluster *c = t->c;
    struct bus_value el[3] = {
        {.type = BUS_INT, .integer = epoch},
        {.type = BUS_STR, .str = host, .len = strlen(host)},
        {.type = BUS_INT, .integer = t->seen},
    };
    /* (seen only when taken from a node found dead: lease.c's reclaim
     * tells a game another node had meanwhile by it) */
    struct bus_value v = {
        .type = BUS_ARRAY, .n = epoch && t->dead[0] ? 3 : 2, .v = el};

    if (!err && t->from[0] && strcmp(t->from, c->node) &&
        strcmp(t->from, host))
        node_games(c, cluster_game_shard(c, t->gid), t->from, "del", t->gid,
                   NULL, NULL, NULL);
    t->fn(t->arg, err ? errv : &v, err);
    free(t);
}

/* node_alive's answer about the host that holds the game: a lease
 * held, the game is that node's; none, it is taken from it. */
static void on_host_alive(void *arg, const struct bus_value *v,
                          const char *err)
{
    struct take *t = arg;
    const char *inc = bus_str(bus_at(v, 0), NULL);

    if (err || !inc) {
        take_done(t, 0, "", err ? err : "unexpected reply", v);
        return;
    }
    if (inc[0]) {
        take_done(t, 0, t->dead, NULL, NULL);
        return;
    }
    t->seen = bus_int(bus_at(v, 1), 0);
    if (take_send(t) < 0)
        take_done(t, 0, "", "the cluster was left", NULL);
}

static void on_take(void *arg, const struct bus_value *v, const char *err)
{
    struct take *t = arg;
    struct cluster *c = t->c;
    long long epoch = bus_int(bus_at(v, 0), -1);
    const char *host = bus_str(bus_at(v, 1), NULL);
    char alive[PROTO_KEY_MAX + 1];

    if (err || epoch < 0 || !host) {
        take_done(t, 0, "", err ? err : "unexpected reply", v);
        return;
    }
    if (epoch > 0) {
        const char *prev = bus_str(bus_at(v, 2), "");
        int shard = cluster_game_shard(c, t->gid);
        node_games(c, shard, c->node, "add", t->gid, NULL, NULL, NULL);
        if (prev[0] && strcmp(prev, c->node) && strcmp(prev, t->from))
            node_games(c, shard, prev, "del", t->gid, NULL, NULL, NULL);
        take_done(t, epoch, c->node, NULL, NULL);
        return;
    }
    if (t->dead[0] || !proto_key_valid(host)) { /* (a second look) */
        take_done(t, 0, host, NULL, NULL);
        return;
    }
    /* another node hosts it: taken only when that node's lease lapsed */
    snprintf(t->dead, sizeof t->dead, "%s", host);
    snprintf(alive, sizeof alive, "%s", host);
    if (cluster_eval(c, BUS_NODE_ALIVE, on_host_alive, t, 1,
                     (const char *[]){"nodes"}, 1,
                     (const char *[]){alive}) < 0)
        take_done(t, 0, "", "the cluster was left", NULL);
}

int cluster_take(struct cluster *c, const char *gid, int64_t floor,
                 const char *from, bus_reply_fn *fn, void *arg)
{
    struct take *t = calloc(1, sizeof *t);

    if (!t)
        return -1;
    t->c = c;
    snprintf(t->gid, sizeof t->gid, "%s", gid);
    snprintf(t->floor, sizeof t->floor, "%lld", (long long)floor);
    snprintf(t->from, sizeof t->from, "%s", from ? from : "");
    t->fn = fn;
    t->arg = arg;
    if (take_send(t) < 0) {
        free(t);
        return -1;
    }
    return 0;
}

/* ---- a handover, a release ------------------------------------------- */

struct moved {
    struct cluster *c;
    char gid[PROTO_KEY_MAX + 1];
    char to[PROTO_KEY_MAX + 1];
    bus_reply_fn *fn;
    void *arg;
};

static void on_handed(void *arg, const struct bus_value *v, const char *err)
{
    struct moved *m = arg;
    int shard = cluster_game_shard(m->c, m->gid);

    if (!err && bus_int(v, 0) > 0) {
        node_games(m->c, shard, m->c->node, "del", m->gid, NULL, NULL, NULL);
        node_games(m->c, shard, m->to, "add", m->gid, NULL, NULL, NULL);
    }
    m->fn(m->arg, v, err);
    free(m);
}

int cluster_hand_game(struct cluster *c, const char *gid, const char *to,
                      bus_reply_fn *fn, void *arg)
{
    char host[PROTO_KEY_MAX + 16], epoch[PROTO_KEY_MAX + 16];
    struct moved *m = malloc(sizeof *m);

    if (!m)
        return -1;
    *m = (struct moved){.c = c, .fn = fn, .arg = arg};
    snprintf(m->gid, sizeof m->gid, "%s", gid);
    snprintf(m->to, sizeof m->to, "%s", to);
    game_keys(gid, host, epoch);
    if (cluster_eval_on(c, cluster_game_shard(c, gid), BUS_GAME_HANDOVER,
                        on_handed, m, 2, (const char *[]){host, epoch}, 2,
                        (const char *[]){c->node, to}) < 0) {
        free(m);
        return -1;
    }
    return 0;
}

void cluster_release_game(struct cluster *c, const char *gid)
{
    char host[PROTO_KEY_MAX + 16], epoch[PROTO_KEY_MAX + 16];
    int shard = cluster_game_shard(c, gid);

    game_keys(gid, host, epoch);
    cluster_eval_on(c, shard, BUS_GAME_RELEASE, cluster_log_reply,
                    (void *)"release", 2, (const char *[]){host, epoch}, 1,
                    (const char *[]){c->node});
    node_games(c, shard, c->node, "del", gid, NULL, NULL, NULL);
}

/* ---- the sweep of a dead node's games ---------------------------------- */

struct picked {
    struct sweep *sw;
    int shard;
};

/* One dead node's sweep: its games on each shard, then, when no shard
 * had any left, the node forgotten. */
struct sweep {
    struct cluster *c;
    char node[PROTO_KEY_MAX + 1];
    int left;  /* shards not answered yet */
    bool some; /* a shard had games (or did not answer) */
    struct picked picks[BUS_SHARDS_MAX];
};

static void on_forgotten(void *arg, const struct bus_value *v,
                         const char *err)
{
    struct cluster *c = arg;

    if (!err && bus_int(v, 0) == 1)
        c->m.dead_nodes++;
}

/* node_games' pick: {size, g1, g2, ...}. */
static void on_picked(void *arg, const struct bus_value *v, const char *err)
{
    struct picked *p = arg;
    struct sweep *sw = p->sw;
    struct cluster *c = sw->c;

    if (err || !bus_is(v, BUS_ARRAY) || bus_int(bus_at(v, 0), 1) != 0)
        sw->some = true;
    for (size_t i = 1; !err && bus_is(v, BUS_ARRAY) && i < v->n; i++) {
        const char *g = bus_str(&v->v[i], NULL);
        if (g && proto_key_valid(g) && !hub_game(c->h, g))
            adopt_game_from(c, g, sw->node);
    }
    if (--sw->left)
        return;
    if (!sw->some && !c->stopped) {
        char node[PROTO_KEY_MAX + 1];
        snprintf(node, sizeof node, "%s", sw->node);
        cluster_eval(c, BUS_NODE_FORGET, on_forgotten, c, 1,
                     (const char *[]){"nodes"}, 1, (const char *[]){node});
    }
    free(sw);
}

void cluster_sweep_node(struct cluster *c, const char *node,
                        const struct sweep_share *share)
{
    struct sweep *sw = calloc(1, sizeof *sw);
    char max[16];

    if (!sw)
        return;
    sw->c = c;
    snprintf(sw->node, sizeof sw->node, "%s", node);
    snprintf(max, sizeof max, "%d", CLUSTER_SWEEP_GAMES);
    sw->left = c->bus.shards;
    for (int k = 0; k < c->bus.shards; k++) {
        sw->picks[k] = (struct picked){sw, k};
        if (node_games(c, k, node, "pick", max, share, on_picked,
                       &sw->picks[k]) < 0) {
            sw->some = true;
            if (--sw->left == 0) {
                free(sw);
                return;
            }
        }
    }
}

/* ---- the shards' marks ------------------------------------------------- */

struct mark {
    struct cluster *c;
    int shard;
};

static void on_mark(void *arg, const struct bus_value *v, const char *err)
{
    struct mark *mk = arg;
    struct cluster *c = mk->c;
    int k = mk->shard, at = -1, of = -1;
    const char *m = bus_str(v, NULL);

    free(mk);
    if (err || !m)
        return; /* (looked at again when the shard next comes up) */
    if (sscanf(m, "%d/%d", &at, &of) != 2 || at != k || of != c->bus.shards) {
        log_error("event=cluster_shards_mismatch shard=%d mark=\"%.40s\" "
                  "hint=\"every node must list the same Redis instances in "
                  "the same order in 'redis'\"",
                  k, m);
    }
    if (c->marks[k][0] && strcmp(c->marks[k], m) && k != BUS_FIRST &&
        c->leased) {
        /* it restarted empty: the keys of this node's games on it are
         * gone (the first shard's restart is a lapse of the lease, which
         * takes every game again: lease.c; so is a lease lost meanwhile) */
        log_warn("event=cluster_shard_restarted shard=%d node=%s", k,
                 c->node);
        lease_reclaim(c, k);
    }
    snprintf(c->marks[k], sizeof c->marks[k], "%s", m);
}

void cluster_shard_mark(struct cluster *c, int shard)
{
    struct mark *mk = malloc(sizeof *mk);
    char at[24], word[17];

    if (!mk)
        return;
    *mk = (struct mark){c, shard};
    snprintf(at, sizeof at, "%d/%d", shard, c->bus.shards);
    if (ids_random(word, 8) < 0)
        snprintf(word, sizeof word, "%llx",
                 (unsigned long long)cluster_now(c));
    if (cluster_eval_on(c, shard, BUS_SHARD_MARK, on_mark, mk, 1,
                        (const char *[]){"shard"}, 2,
                        (const char *[]){at, word}) < 0)
        free(mk);
}
