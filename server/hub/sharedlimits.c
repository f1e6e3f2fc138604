/*
 * sharedlimits.c - the per-address and per-name limits that the nodes of
 * a cluster share (docs/cluster.md, "The lobby, presence and the limits
 * per address"): new guests, registrations and logins per address,
 * logins per username.
 *
 * Each node keeps its own token buckets (lib/ratelimit.h). A token a node
 * takes for a key is told the other nodes (router.h's limit_taken), each
 * of which takes one from its own bucket of that key (hub_limit_charge).
 * So every node's bucket of a key counts the takes of the whole cluster,
 * a round trip of Redis late: a client that spreads itself over N nodes
 * gets the limit once, not N times (at most one burst more, for the
 * takes in flight at once). While Redis is down a node counts its own
 * takes only. Only the event-loop thread calls these functions.
 */
#include "hub/hub_internal.h"

#include <assert.h>
#include <string.h>

#include "lib/ratelimit.h"

int hub_limit_share(struct hub *h, const char *name, struct ratelimit *rl)
{
    assert(rl && proto_key_valid(name) && strlen(name) < 32);
    if (h->nshared == HUB_SHARED_LIMITS_MAX)
        return -1;
    h->shared[h->nshared++] = (struct shared_limit){name, rl};
    return 0;
}

bool hub_limit_take(struct hub *h, struct ratelimit *rl, const char *key,
                    int64_t now)
{
    if (!ratelimit_take(rl, key, now))
        return false;
    if (h->router.ops->limit_taken)
        for (size_t i = 0; i < h->nshared; i++)
            if (h->shared[i].rl == rl)
                h->router.ops->limit_taken(h->router.ctx, h->shared[i].name,
                                           key);
    return true;
}

void hub_limit_charge(struct hub *h, const char *name, const char *key,
                      int64_t now)
{
    for (size_t i = 0; i < h->nshared; i++)
        if (!strcmp(h->shared[i].name, name)) {
            ratelimit_take(h->shared[i].rl, key, now); /* (empty: spent) */
            return;
        }
}
