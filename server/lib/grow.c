/*
 * grow.c - growing arrays (see grow.h).
 */
#include "lib/grow.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>

void *grow_array(void *arr, size_t *cap, size_t n, size_t size, size_t first)
{
    size_t c;
    void *a;

    assert(n <= *cap && size > 0 && first > 0);
    if (n < *cap)
        return arr;
    c = *cap ? 2 * *cap : first;
    if (c < *cap || c > SIZE_MAX / size) /* (an overflow: never in use) */
        return NULL;
    a = realloc(arr, c * size);
    if (!a)
        return NULL;
    *cap = c;
    return a;
}
