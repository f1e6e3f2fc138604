/*
 * recent.c - the keys noted lately (see recent.h): a table by key and a
 * list in the order of noting (lru.h), whose head is forgotten first.
 */
#include "lib/recent.h"

#include <stdio.h>
#include <stdlib.h>

#include "lib/lru.h"
#include "lib/table.h"

struct entry {
    char key[RECENT_KEY_MAX + 1];
    int64_t at; /* noted last */
    struct lru_node used;
};

struct recent {
    struct table t;   /* key -> struct entry (owned) */
    struct lru order; /* least recently noted first */
    size_t max;
    int64_t ttl;
};

struct recent *recent_new(size_t max, int64_t ttl_ms)
{
    struct recent *r = calloc(1, sizeof *r);

    if (!r)
        return NULL;
    table_init(&r->t);
    r->max = max ? max : 1;
    r->ttl = ttl_ms;
    return r;
}

void recent_free(struct recent *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->t.cap; i++)
        free(r->t.slots[i].value); /* NULL in empty and deleted slots */
    table_clear(&r->t);
    free(r);
}

/* key cut as it is kept. */
static const char *cut(const char *key, char out[RECENT_KEY_MAX + 1])
{
    snprintf(out, RECENT_KEY_MAX + 1, "%s", key);
    return out;
}

int recent_note(struct recent *r, const char *key, int64_t now)
{
    char k[RECENT_KEY_MAX + 1];
    struct entry *e = table_get(&r->t, cut(key, k));

    if (e) {
        e->at = now;
        lru_touch(&r->order, &e->used);
        return 0;
    }
    if (r->t.n >= r->max && r->order.head) {
        e = lru_container(r->order.head, struct entry, used);
        lru_remove(&r->order, &e->used);
        table_del(&r->t, e->key);
    } else if (!(e = malloc(sizeof *e))) {
        return -1;
    }
    snprintf(e->key, sizeof e->key, "%s", k);
    e->at = now;
    if (table_put(&r->t, e->key, e) < 0) {
        free(e);
        return -1;
    }
    lru_push(&r->order, &e->used);
    return 0;
}

bool recent_seen(const struct recent *r, const char *key, int64_t now)
{
    char k[RECENT_KEY_MAX + 1];
    const struct entry *e = table_get(&r->t, cut(key, k));

    return e && now - e->at < r->ttl;
}

size_t recent_count(const struct recent *r)
{
    return r->t.n;
}
