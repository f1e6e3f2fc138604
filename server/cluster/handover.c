/*
 * handover.c - a game handed to another live node once its last writes
 * have committed: the shutdown's (SIGTERM: every hosted game, each to the
 * least loaded node) and the balance's (balance.c) (cluster.h,
 * cluster_internal.h).
 */
#include "cluster/cluster_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "lib/log.h"

/* ---- handover ---------------------------------------------------------- */

static size_t cluster_handover(struct cluster *c, int64_t now);

/* A handover in flight: c->handing_over's value (its key is gid). */
struct handover {
    struct cluster *c;
    bool balance; /* the balance's, not a shutdown's */
    bool unsure;  /* its answer was lost: asked again (handover_retry) */
    char gid[PROTO_KEY_MAX + 1];
    char to[PROTO_KEY_MAX + 1];
};

/* The peer named node leaves the list (it is not alive). */
static void peer_drop(struct cluster *c, const char *node)
{
    for (size_t i = 0; i < c->n_peers; i++)
        if (!strcmp(c->peers[i].node, node)) {
            memmove(&c->peers[i], &c->peers[i + 1],
                    (c->n_peers - i - 1) * sizeof c->peers[0]);
            c->n_peers--;
            return;
        }
}

/* g is handed over at epoch: its connections here follow it to its new
 * host, which is told, and it leaves this node. */
static void handed(struct cluster *c, struct handover *ho, struct game *g,
                   long long epoch)
{
    struct codec_msg h = {
        .kind = CODEC_HANDOVER, .epoch = epoch, .wall_ms = hub_wall_ms(c->h)};
    /* a write since the handover began (its timer: a flag) commits
     * before the new host takes its epoch, and is read there, or after,
     * and is refused: what it sent must then never be released */
    bool settled = game_seq(g) <= store_committed(c->store);

    /* (they follow it first, and attach at the new host: edge.c) */
    relay_handed(c, ho->gid);
    if (settled)
        edge_follow_away(c, g);
    snprintf(h.to, sizeof h.to, "%s", ho->to);
    snprintf(h.gid, sizeof h.gid, "%s", ho->gid);
    snprintf(h.node, sizeof h.node, "%s", c->node);
    cluster_send(c, &h, NULL, NULL);
    log_info("event=cluster_handed_over game=%s to=%s epoch=%lld why=%s "
             "settled=%d",
             ho->gid, ho->to, epoch, ho->balance ? "balance" : "shutdown",
             settled ? 1 : 0);
    c->m.handed_over++;
    host_drop(c, ho->gid, !settled);
}

/* game_handover's answer: the new epoch, or 0 (nothing changed). */
static void on_handed(void *arg, const struct bus_value *v, const char *err)
{
    struct handover *ho = arg;
    struct cluster *c = ho->c;
    struct game *g = hub_game(c->h, ho->gid);
    long long epoch = !err && bus_is(v, BUS_INT) ? v->integer : -1;

    if (epoch < 0 && g && !c->stopped) {
        /* no answer: it may have run; asked again, the same, once the
         * bus is up (a repeat answers the same epoch); after the node
         * left the cluster (its bus freed) nothing more is asked */
        log_warn("event=cluster_handover_unsure game=%s to=%s error=\"%s\"",
                 ho->gid, ho->to, err ? err : "unexpected reply");
        ho->unsure = true;
        return;
    }
    table_del(&c->handing_over, ho->gid);
    if (ho->balance) {
        assert(c->balance_moving > 0);
        c->balance_moving--;
        /* (the loads again once every node has renewed since: a tick
         * and a half, whatever their phases; balance.c) */
        c->balance_settle_at = cluster_now(c) + CLUSTER_TICK_MS * 3 / 2;
    }
    if (g && epoch > 0) {
        handed(c, ho, g, epoch);
    } else if (g && table_get(&c->epochs, ho->gid)) {
        /* still hosted here: its commands come here again; the node it
         * was to go to is not alive, and a shutdown's next try goes to
         * another */
        cluster_follow(c, "cmd", ho->gid, true);
        if (!ho->balance)
            peer_drop(c, ho->to);
    }
    free(ho);
}

static int send_handover(struct cluster *c, struct handover *ho)
{
    return cluster_hand_game(c, ho->gid, ho->to, on_handed, ho);
}

int handover_start(struct cluster *c, const char *gid, const char *to,
                   bool balance)
{
    struct handover *ho = calloc(1, sizeof *ho);

    assert(hub_game(c->h, gid) && !table_get(&c->handing_over, gid));
    if (!ho)
        return -1;
    ho->c = c;
    ho->balance = balance;
    snprintf(ho->gid, sizeof ho->gid, "%s", gid);
    snprintf(ho->to, sizeof ho->to, "%s", to);
    if (table_put(&c->handing_over, ho->gid, ho) < 0) {
        free(ho);
        return -1;
    }
    cluster_follow(c, "cmd", gid, false);
    TRACE_CMD(c, "handover_out", gid, NULL, 0, NULL, 0, "to=%s why=%s", to,
              balance ? "balance" : "shutdown");
    if (send_handover(c, ho) < 0) {
        cluster_follow(c, "cmd", gid, true);
        table_del(&c->handing_over, ho->gid);
        free(ho);
        return -1;
    }
    if (balance)
        c->balance_moving++;
    return 0;
}

void handover_retry(struct cluster *c)
{
    if (!c->up)
        return;
    for (size_t i = 0; i < c->handing_over.cap; i++) {
        struct handover *ho = c->handing_over.slots[i].value;
        if (ho && ho->unsure) {
            ho->unsure = false;
            if (send_handover(c, ho) < 0)
                ho->unsure = true;
        }
    }
}

/* The live nodes and their loads (nodes.lua): the others, for the
 * handover. */
static void on_peers(void *arg, const struct bus_value *v, const char *err)
{
    struct cluster *c = arg;
    struct node_load all[CLUSTER_NODES_MAX];
    size_t n = err ? 0 : balance_loads(v, all, CLUSTER_NODES_MAX);

    c->n_peers = 0;
    c->peers_known = true;
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].node, c->node))
            c->peers[c->n_peers++] = all[i];
}

/* The lease let go at the end of a handover (a lease of 1 ms): the
 * others see this node gone at once, and its restart joins at once. */
static void on_released(void *arg, const struct bus_value *v, const char *err)
{
    struct cluster *c = arg;

    (void)v;
    (void)err;
    c->released = true;
    c->leased = false;
}

void handover_tick(void *arg)
{
    struct cluster *c = arg;

    handover_retry(c);
    c->handover_left = cluster_handover(c, cluster_now(c));
    if (c->handover_left) {
        hub_alarm_arm(c->h, c->handover_alarm, cluster_now(c) + 10);
    } else if (c->leased && c->up && c->renewing) {
        hub_alarm_arm(c->h, c->handover_alarm, cluster_now(c) + 10);
    } else if (c->leased && c->up) {
        c->renewing = true;   /* (no renewal of the tick after this) */
        held_refuse(c, NULL); /* (the lease goes: nothing runs here) */
        if (lease_renew(c, 1, on_released) < 0)
            c->released = true;
    } else {
        c->released = true;
    }
}

void cluster_begin_handover(struct cluster *c)
{
    if (c->handing)
        return;
    c->handing = true;
    c->handover_left = c->epochs.n;
    hub_alarm_arm(c->h, c->handover_alarm, cluster_now(c));
}

bool cluster_handing_over(const struct cluster *c, const char *gid)
{
    return table_get(&c->handing_over, gid) != NULL;
}

bool cluster_handed_over(const struct cluster *c)
{
    return !c->handing || (c->handover_left == 0 && c->released);
}

static size_t cluster_handover(struct cluster *c, int64_t now)
{
    size_t left = 0;
    uint64_t committed = store_committed(c->store);

    (void)now;
    if (!c->up || !c->leased)
        return 0;
    if (!c->drain_marked) { /* first: no more games handed to it */
        if (!c->renewing)
            lease_renew_now(c);
        return c->epochs.n;
    }
    if (!c->asked_peers) {
        c->asked_peers = true;
        cluster_eval(c, BUS_NODES, on_peers, c, 1, (const char *[]){"nodes"},
                     0, NULL);
        return c->epochs.n;
    }
    if (!c->peers_known)
        return c->epochs.n;
    if (!c->n_peers) /* nobody to hand them to: adopted after the lease */
        return 0;
    for (size_t i = 0; i < c->epochs.cap; i++) {
        const char *gid = c->epochs.slots[i].key;
        struct node_load *to;
        struct game *g;
        if (!c->epochs.slots[i].value)
            continue;
        left++;
        g = hub_game(c->h, gid);
        if (!g || game_seq(g) > committed || table_get(&c->handing_over, gid))
            continue; /* its last writes first; one try at a time */
        /* to the least loaded, counting what it was just given */
        to = balance_least(c->peers, c->n_peers);
        if (handover_start(c, gid, to->node, false) == 0)
            to->games++;
    }
    return left;
}
