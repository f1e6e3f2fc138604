/*
 * handover.c - the handover of a shutdown (SIGTERM): every hosted game to another
 * live node, each once its last writes have committed (cluster.h, cluster_internal.h).
 */
#include "cluster/cluster_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "lib/log.h"

/* ---- handover ---------------------------------------------------------- */

static size_t cluster_handover(struct cluster *c, int64_t now);

struct handover {
    struct cluster *c;
    char gid[PROTO_KEY_MAX + 1];
    char to[PROTO_KEY_MAX + 1];
};

/* game_handover's answer: the new epoch, or 0 (nothing changed: this
 * node does not host the game). */
static void on_handed(void *arg, const struct bus_value *v, const char *err)
{
    struct handover *ho = arg;
    struct cluster *c = ho->c;
    struct game *g = hub_game(c->h, ho->gid);
    long long epoch = !err && bus_is(v, BUS_INT) ? v->integer : -1;

    free(table_del(&c->handing_over, ho->gid));
    if (g && epoch == 0) {
        /* this node no longer hosts the game (another took it while
         * its lease was in doubt): the next try goes to another, and
         * with nobody left the rest is adopted after the lease */
        for (size_t i = 0; i < c->n_peers; i++)
            if (!strcmp(c->peers[i], ho->to)) {
                memmove(c->peers[i], c->peers[i + 1],
                        (c->n_peers - i - 1) * sizeof c->peers[0]);
                c->n_peers--;
                break;
            }
    } else if (g && epoch > 0) {
        struct codec_msg h = {.kind = CODEC_HANDOVER,
                              .epoch = epoch,
                              .wall_ms = hub_wall_ms(c->h)};
        snprintf(h.to, sizeof h.to, "%s", ho->to);
        snprintf(h.gid, sizeof h.gid, "%s", ho->gid);
        snprintf(h.node, sizeof h.node, "%s", c->node);
        cluster_send(c, &h, NULL, NULL);
        log_info("event=cluster_handed_over game=%s to=%s epoch=%lld",
                 ho->gid, ho->to, epoch);
        c->m.handed_over++;
        adopt_epoch_drop(c, ho->gid);
        host_forget_remotes(c, ho->gid);
        hub_drop_game(c->h, g, false);
    }
    free(ho);
}

/* The live nodes (nodes.lua): the others, for the handover. */
static void on_peers(void *arg, const struct bus_value *v, const char *err)
{
    struct cluster *c = arg;

    c->n_peers = 0;
    c->peers_known = true;
    if (err || !bus_is(v, BUS_ARRAY))
        return;
    for (size_t i = 0; i < v->n && c->n_peers < 16; i++) {
        const char *node = bus_str(&v->v[i], NULL);
        if (node && proto_key_valid(node) && strcmp(node, c->node))
            snprintf(c->peers[c->n_peers++], sizeof c->peers[0], "%s", node);
    }
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
    size_t left = 0, k = 0;
    uint64_t committed = store_committed(c->store);

    (void)now;
    if (!c->up || !c->leased)
        return 0;
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
        struct game *g;
        struct handover *ho;
        const char *to = NULL;
        if (!c->epochs.slots[i].value)
            continue;
        left++;
        g = hub_game(c->h, gid);
        if (!g || game_seq(g) > committed || table_get(&c->handing_over, gid))
            continue; /* its last writes first; one try at a time */
        to = c->peers[k % c->n_peers];
        if (!(ho = malloc(sizeof *ho)))
            continue;
        k++;
        ho->c = c;
        snprintf(ho->gid, sizeof ho->gid, "%s", gid);
        snprintf(ho->to, sizeof ho->to, "%s", to);
        {
            char *key = strdup(gid);
            if (!key || table_put(&c->handing_over, key, key) < 0) {
                free(key);
                free(ho);
                continue;
            }
        }
        cluster_follow(c, "cmd", gid, false);
        if (cluster_hand_game(c, gid, to, on_handed, ho) < 0) {
            free(table_del(&c->handing_over, ho->gid));
            free(ho);
        }
    }
    return left;
}
