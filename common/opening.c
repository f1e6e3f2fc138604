/*
 * opening.c - looking positions up in the table of opening names that
 * common/openings/gen.c generates: a binary search of its sorted keys.
 */
#include "opening.h"

#include <assert.h>

#include "opening_table.h"

int opening_at(uint64_t key)
{
    size_t lo = 0, hi = opening_table.n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k = opening_table.keys[mid];
        if (k == key)
            return (int)mid + 1;
        if (k < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

int opening_count(void)
{
    return (int)opening_table.n;
}

const char *opening_eco(int id)
{
    assert(id >= 1 && (size_t)id <= opening_table.n);
    return opening_table.pool + opening_table.text[id - 1];
}

const char *opening_name(int id)
{
    return opening_eco(id) + 4; /* after "ECO\0" */
}

uint64_t opening_key(int id)
{
    assert(id >= 1 && (size_t)id <= opening_table.n);
    return opening_table.keys[id - 1];
}

/* Whether a position of r at ply (1..r->n) may be named: r started from
 * the initial position and ply is within OPENING_MAX_PLY. */
static int nameable(const struct record *r, size_t ply)
{
    return r->keys[0] == opening_table.start_key && ply >= 1 &&
           ply <= OPENING_MAX_PLY;
}

int opening_after(const struct record *r, int prev)
{
    int id;

    if (!nameable(r, r->n))
        return prev;
    id = opening_at(r->keys[r->n]);
    return id ? id : prev;
}

int opening_of(const struct record *r)
{
    int id = 0;

    for (size_t ply = 1; ply <= r->n && nameable(r, ply); ply++) {
        int at = opening_at(r->keys[ply]);
        if (at)
            id = at;
    }
    return id;
}
