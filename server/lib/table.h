/*
 * table.h - a hash table from strings to pointers (open addressing with
 * linear probing). The table does not copy keys: each key must stay valid
 * while its entry exists (keys usually live inside the value). Used for
 * games by GID and players by PID and by token hash.
 */
#ifndef SERVER_TABLE_H
#define SERVER_TABLE_H

#include <stddef.h>

struct table_slot {
    const char *key; /* NULL: empty; TABLE_TOMBSTONE: deleted */
    void *value;
};

struct table {
    struct table_slot *slots;
    size_t cap;  /* a power of two, or 0 */
    size_t n;    /* live entries */
    size_t used; /* live entries plus tombstones */
};

/* Sets *t to an empty table (no allocation yet). */
void table_init(struct table *t);
/* Frees the slots; the values are the caller's. */
void table_clear(struct table *t);
/* The value under key, or NULL. */
void *table_get(const struct table *t, const char *key);
/* Adds or replaces key -> value. Returns 0, or -1 when out of memory. */
int table_put(struct table *t, const char *key, void *value);
/* Removes key; returns its value or NULL. */
void *table_del(struct table *t, const char *key);

#endif
