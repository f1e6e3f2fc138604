/*
 * events.c - tournaments across nodes (router.h's event_lease,
 * event_forward and event_count; docs/cluster.md "Tournaments in a cluster"): the lease
 * of an event's director in Redis (lua/event_lease.lua), the director's
 * follow of the event's command channel cmd:E, and a command of a local
 * connection sent there. The director runs it with the connection's
 * remote session (host.c's host_on_command), as a game's host does;
 * the cluster's count of open events (lua/event_count.lua).
 */
#include "cluster/cluster_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lease_ask {
    struct cluster *c;
    char eid[PROTO_KEY_MAX + 1];
    bool take;
    router_answer_fn *fn;
    void *arg;
};

static void on_lease(void *arg, const struct bus_value *v, const char *err)
{
    struct lease_ask *a = arg;
    long rc = err || !bus_is(v, BUS_INT) ? -1 : (long)v->integer;

    /* the director follows its commands' channel while it holds the
     * lease (following twice is following once) */
    if (rc == 1 && a->take)
        cluster_follow(a->c, "cmd", a->eid, true);
    else if (rc >= 0)
        cluster_follow(a->c, "cmd", a->eid, false);
    a->fn(a->arg, rc, NULL, 0);
    free(a);
}

int cluster_event_lease(void *ctx, const char *eid, int64_t lease_ms,
                        bool ours, router_answer_fn *fn, void *arg)
{
    struct cluster *c = ctx;
    struct lease_ask *a;
    char key[PROTO_KEY_MAX + 24], ms[24];

    if (!c->up || !(a = calloc(1, sizeof *a)))
        return -1;
    a->c = c;
    a->take = lease_ms > 0;
    a->fn = fn;
    a->arg = arg;
    snprintf(a->eid, sizeof a->eid, "%s", eid);
    snprintf(key, sizeof key, "event:{%s}:director", eid);
    snprintf(ms, sizeof ms, "%lld", (long long)(lease_ms > 0 ? lease_ms : 1));
    if (a->take && ours) /* (a new event's first command may come
                            right after its creation) */
        cluster_follow(c, "cmd", eid, true);
    if (cluster_eval(c, BUS_EVENT_LEASE, on_lease, a, 1,
                     (const char *[]){key}, 3,
                     (const char *[]){a->take ? "take" : "release", c->node,
                                      ms}) < 0) {
        free(a);
        return -1;
    }
    return 0;
}

bool cluster_event_forward(void *ctx, struct session *s, const char *eid,
                           const char *text, size_t len, bool known)
{
    struct cluster *c = ctx;
    struct fwd *f;

    if (!s->conn || !(f = edge_fwd_new(c, s, eid, CODEC_COMMAND, text, len)))
        return false;
    f->event = known ? FWD_EVENT : FWD_EVENT_UNKNOWN;
    edge_send(c, f);
    c->m.forwarded++;
    return true;
}

struct count_ask {
    router_answer_fn *fn;
    void *arg;
};

static void on_count(void *arg, const struct bus_value *v, const char *err)
{
    struct count_ask *a = arg;

    a->fn(a->arg, err || !bus_is(v, BUS_INT) ? -3 : (long)v->integer, NULL,
          0);
    free(a);
}

int cluster_event_count(void *ctx, const char *kind, const char *op,
                        const char *eid, const char *pid, int64_t life_ms,
                        int max_all, int max_creator, router_answer_fn *fn,
                        void *arg)
{
    struct cluster *c = ctx;
    struct count_ask *a;
    char key[64], life[24], all[16], per[16];

    if (!c->up || !(a = calloc(1, sizeof *a)))
        return -1;
    a->fn = fn;
    a->arg = arg;
    snprintf(key, sizeof key, "event:{count}:%s", kind);
    snprintf(life, sizeof life, "%lld", (long long)life_ms);
    snprintf(all, sizeof all, "%d", max_all);
    snprintf(per, sizeof per, "%d", max_creator);
    if (cluster_eval(c, BUS_EVENT_COUNT, on_count, a, 1,
                     (const char *[]){key}, 6,
                     (const char *[]){op, eid, pid, life, all, per}) < 0) {
        free(a);
        return -1;
    }
    return 0;
}
