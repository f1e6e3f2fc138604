/*
 * ratelimit.c - token buckets per address (see ratelimit.h).
 */
#include "lib/ratelimit.h"

#include <stdio.h>
#include <stdlib.h>

#include "lib/bucket.h"
#include "lib/table.h"

struct entry {
    char addr[64];
    struct bucket b;
};

struct ratelimit {
    struct table t; /* addr -> struct entry (owned) */
    double rate;    /* tokens a second */
    double burst;
    size_t max;
    int64_t swept; /* the last sweep ... */
    bool ever;     /* ... if any */
};

struct ratelimit *ratelimit_new(double rate_per_s, int burst,
                                size_t max_addrs)
{
    struct ratelimit *rl = calloc(1, sizeof *rl);

    if (!rl)
        return NULL;
    table_init(&rl->t);
    rl->rate = rate_per_s;
    rl->burst = burst;
    rl->max = max_addrs;
    return rl;
}

void ratelimit_free(struct ratelimit *rl)
{
    if (!rl)
        return;
    for (size_t i = 0; i < rl->t.cap; i++) {
        struct table_slot *sl = &rl->t.slots[i];
        if (sl->value)
            free(sl->value);
    }
    table_clear(&rl->t);
    free(rl);
}

/* Forgets the buckets that are full again. */
static void sweep(struct ratelimit *rl, int64_t now)
{
    rl->swept = now;
    rl->ever = true;
    for (size_t i = 0; i < rl->t.cap; i++) {
        struct table_slot *sl = &rl->t.slots[i];
        struct entry *e = sl->value;
        if (e && bucket_level(&e->b, rl->rate, rl->burst, now) >= rl->burst) {
            table_del(&rl->t, e->addr);
            free(e);
        }
    }
}

bool ratelimit_take(struct ratelimit *rl, const char *addr, int64_t now)
{
    struct entry *e = table_get(&rl->t, addr);

    if (!e) {
        if (rl->t.n >= rl->max && (!rl->ever || now - rl->swept >= 1000))
            sweep(rl, now);
        if (rl->t.n >= rl->max || !(e = calloc(1, sizeof *e)))
            return false;
        snprintf(e->addr, sizeof e->addr, "%s", addr);
        bucket_init(&e->b, rl->burst);
        if (table_put(&rl->t, e->addr, e) < 0) {
            free(e);
            return false;
        }
    }
    return bucket_take(&e->b, rl->rate, rl->burst, now);
}

size_t ratelimit_addrs(const struct ratelimit *rl)
{
    return rl->t.n;
}
