/*
 * ratelimit.c - token buckets per address (see ratelimit.h).
 */
#include "ratelimit.h"

#include <stdio.h>
#include <stdlib.h>

#include "table.h"

struct bucket {
    char addr[64];
    double tokens;
    int64_t last; /* when tokens was computed */
};

struct ratelimit {
    struct table t; /* addr -> struct bucket (owned) */
    double rate;    /* tokens a millisecond */
    double burst;
    size_t max;
    int64_t swept;  /* the last sweep ... */
    bool ever;      /* ... if any */
};

struct ratelimit *ratelimit_new(int rate_per_s, int burst, size_t max_addrs)
{
    struct ratelimit *rl = calloc(1, sizeof *rl);

    if (!rl)
        return NULL;
    table_init(&rl->t);
    rl->rate = rate_per_s / 1000.0;
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

/* b's tokens at now. */
static double refill(const struct ratelimit *rl, const struct bucket *b,
                     int64_t now)
{
    double tokens = b->tokens + (double)(now - b->last) * rl->rate;

    return tokens < rl->burst ? tokens : rl->burst;
}

/* Forgets the buckets that are full again. */
static void sweep(struct ratelimit *rl, int64_t now)
{
    rl->swept = now;
    rl->ever = true;
    for (size_t i = 0; i < rl->t.cap; i++) {
        struct table_slot *sl = &rl->t.slots[i];
        struct bucket *b = sl->value;
        if (b && refill(rl, b, now) >= rl->burst) {
            table_del(&rl->t, b->addr);
            free(b);
        }
    }
}

bool ratelimit_take(struct ratelimit *rl, const char *addr, int64_t now)
{
    struct bucket *b = table_get(&rl->t, addr);

    if (!b) {
        if (rl->t.n >= rl->max && (!rl->ever || now - rl->swept >= 1000))
            sweep(rl, now);
        if (rl->t.n >= rl->max || !(b = calloc(1, sizeof *b)))
            return false;
        snprintf(b->addr, sizeof b->addr, "%s", addr);
        b->tokens = rl->burst;
        b->last = now;
        if (table_put(&rl->t, b->addr, b) < 0) {
            free(b);
            return false;
        }
    }
    b->tokens = refill(rl, b, now);
    b->last = now;
    if (b->tokens < 1.0)
        return false;
    b->tokens -= 1.0;
    return true;
}

size_t ratelimit_addrs(const struct ratelimit *rl)
{
    return rl->t.n;
}
