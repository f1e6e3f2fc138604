/*
 * table.c - string-keyed hash table (see table.h).
 */
#include "lib/table.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char tombstone;
#define TOMBSTONE (&tombstone)

/* FNV-1a: short keys, no adversarial control (keys are random ids). */
static size_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return (size_t)h;
}

void table_init(struct table *t)
{
    memset(t, 0, sizeof *t);
}

void table_clear(struct table *t)
{
    free(t->slots);
    table_init(t);
}

static struct table_slot *find(const struct table *t, const char *key)
{
    if (!t->cap)
        return NULL;
    for (size_t i = hash(key) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        struct table_slot *s = &t->slots[i];
        if (!s->key)
            return NULL;
        if (s->key != TOMBSTONE && !strcmp(s->key, key))
            return s;
    }
}

void *table_get(const struct table *t, const char *key)
{
    struct table_slot *s = find(t, key);

    return s ? s->value : NULL;
}

static int grow(struct table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 16;
    struct table_slot *old = t->slots, *slots;
    size_t oldcap = t->cap;

    if (t->n * 2 < t->cap) /* mostly tombstones: rehash at the same size */
        cap = t->cap;
    slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    t->slots = slots;
    t->cap = cap;
    t->used = t->n;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].key && old[i].key != TOMBSTONE) {
            size_t j = hash(old[i].key) & (cap - 1);
            while (slots[j].key)
                j = (j + 1) & (cap - 1);
            slots[j] = old[i];
        }
    free(old);
    return 0;
}

int table_put(struct table *t, const char *key, void *value)
{
    struct table_slot *s = find(t, key);
    size_t i;

    if (s) {
        s->key = key;
        s->value = value;
        return 0;
    }
    if ((t->used + 1) * 10 > t->cap * 7 && grow(t) < 0)
        return -1;
    for (i = hash(key) & (t->cap - 1);
         t->slots[i].key && t->slots[i].key != TOMBSTONE;
         i = (i + 1) & (t->cap - 1))
        ;
    if (!t->slots[i].key)
        t->used++;
    t->slots[i].key = key;
    t->slots[i].value = value;
    t->n++;
    return 0;
}

void *table_del(struct table *t, const char *key)
{
    struct table_slot *s = find(t, key);
    void *v;

    if (!s)
        return NULL;
    v = s->value;
    s->key = TOMBSTONE;
    s->value = NULL;
    t->n--;
    return v;
}
