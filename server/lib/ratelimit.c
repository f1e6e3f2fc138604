/*
 * ratelimit.c - token buckets per address (see ratelimit.h): a table of
 * the buckets by key, and a list of them in the order of their last
 * request (lru.h), whose head is the one a new key replaces when the
 * table is full.
 */
#include "lib/ratelimit.h"

#include <stdio.h>
#include <stdlib.h>

#include "lib/bucket.h"
#include "lib/lru.h"
#include "lib/table.h"

struct entry {
    char addr[RATELIMIT_KEY_MAX + 1];
    struct bucket b;
    struct lru_node used; /* in rl->order */
};

struct ratelimit {
    struct table t;   /* addr -> struct entry (owned) */
    struct lru order; /* every entry, least recently used first */
    double rate;      /* tokens a second */
    double burst;
    size_t max;
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
    rl->max = max_addrs ? max_addrs : 1;
    return rl;
}

void ratelimit_free(struct ratelimit *rl)
{
    if (!rl)
        return;
    for (size_t i = 0; i < rl->t.cap; i++)
        free(rl->t.slots[i].value); /* NULL in empty and deleted slots */
    table_clear(&rl->t);
    free(rl);
}

static struct entry *oldest(struct ratelimit *rl)
{
    return rl->order.head ? lru_container(rl->order.head, struct entry, used)
                          : NULL;
}

static void forget(struct ratelimit *rl, struct entry *e)
{
    lru_remove(&rl->order, &e->used);
    table_del(&rl->t, e->addr);
    free(e);
}

/* A bucket for the new key addr: when the table is full, the least
 * recently used entry's, reset. NULL when out of memory. */
static struct entry *entry_new(struct ratelimit *rl, const char *addr)
{
    struct entry *e = NULL;

    if (rl->t.n >= rl->max && (e = oldest(rl)) != NULL) {
        lru_remove(&rl->order, &e->used);
        table_del(&rl->t, e->addr);
    } else if (!(e = malloc(sizeof *e))) {
        return NULL;
    }
    snprintf(e->addr, sizeof e->addr, "%s", addr);
    bucket_init(&e->b, rl->burst);
    if (table_put(&rl->t, e->addr, e) < 0) {
        free(e);
        return NULL;
    }
    lru_push(&rl->order, &e->used);
    return e;
}

bool ratelimit_take(struct ratelimit *rl, const char *addr, int64_t now)
{
    char key[RATELIMIT_KEY_MAX + 1];
    struct entry *e, *old;

    snprintf(key, sizeof key, "%s", addr); /* as it is kept */
    addr = key;
    e = table_get(&rl->t, addr);

    if (e)
        lru_touch(&rl->order, &e->used);
    /* the two oldest, when refilled, are forgotten: the table shrinks
     * back at about the pace it grew */
    for (int i = 0; i < 2 && (old = oldest(rl)) != NULL && old != e; i++) {
        if (bucket_level(&old->b, rl->rate, rl->burst, now) < rl->burst)
            break;
        forget(rl, old);
    }
    if (!e && !(e = entry_new(rl, addr)))
        return false;
    return bucket_take(&e->b, rl->rate, rl->burst, now);
}

size_t ratelimit_addrs(const struct ratelimit *rl)
{
    return rl->t.n;
}

void ratelimit_give(struct ratelimit *rl, const char *addr)
{
    char key[RATELIMIT_KEY_MAX + 1];
    struct entry *e;

    snprintf(key, sizeof key, "%s", addr);
    if ((e = table_get(&rl->t, key)) != NULL)
        bucket_give(&e->b, rl->burst);
}
