/*
 * grow.h - room for one more item in a growing array, the one way every
 * array of the server grows (player's connections and games, a game's
 * subscribers, the store's lists, ...).
 *
 * The capacity doubles, from `first` when the array is empty: most
 * arrays of the hub hold one or two items per player, and tens of
 * thousands of idle players' arrays count in the bytes a connection
 * costs. Pure; the caller owns the array and frees it:
 *
 *     struct x *v = grow_array(a->v, &a->cap, a->n, sizeof *v, 4);
 *     if (!v)
 *         return -1;
 *     a->v = v;
 *     a->v[a->n++] = item;
 */
#ifndef SERVER_LIB_GROW_H
#define SERVER_LIB_GROW_H

#include <stddef.h>

/* arr (n items of size bytes, room for *cap) with room for n + 1: arr
 * itself when it has it, else a bigger copy (*cap updated, arr freed).
 * NULL when out of memory: arr and *cap are unchanged then. */
void *grow_array(void *arr, size_t *cap, size_t n, size_t size, size_t first);

#endif
