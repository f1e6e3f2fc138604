/*
 * holds.c - the turns waiting for a store commit (see holds.h).
 */
#include "game/holds.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "strcopy.h"

void holds_init(struct holds *h)
{
    memset(h, 0, sizeof *h);
}

void holds_clear(struct holds *h)
{
    free(h->q);
    holds_init(h);
}

/* Doubles the ring, unwrapping it so that the oldest entry comes first. */
static int grow(struct holds *h)
{
    size_t cap = h->cap ? 2 * h->cap : 64;
    struct hold *q = malloc(cap * sizeof *q);

    if (!q)
        return -1;
    for (size_t i = 0; i < h->n; i++)
        q[i] = h->q[(h->head + i) % h->cap];
    free(h->q);
    h->q = q;
    h->head = 0;
    h->cap = cap;
    return 0;
}

int holds_push(struct holds *h, const char *gid, uint64_t seq, int64_t since)
{
    struct hold *e;
    size_t at;

    if (h->n == h->cap && grow(h) < 0)
        return -1;
    assert(h->n < h->cap && h->head < h->cap);
    /* sorted by seq, so that a commit releases a prefix: from the end,
     * the entries of later writes move up one (none, nearly always) */
    for (at = h->n; at > 0; at--) {
        struct hold *prev = &h->q[(h->head + at - 1) % h->cap];
        if (prev->seq <= seq)
            break;
        h->q[(h->head + at) % h->cap] = *prev;
    }
    e = &h->q[(h->head + at) % h->cap];
    strcopy(e->gid, sizeof e->gid, gid);
    e->seq = seq;
    e->since = since;
    /* sorted: a commit releases a prefix */
    assert(at == 0 || h->q[(h->head + at - 1) % h->cap].seq <= seq);
    h->n++;
    return 0;
}

const struct hold *holds_oldest(const struct holds *h)
{
    return h->n ? &h->q[h->head] : NULL;
}

bool holds_pop_committed(struct holds *h, uint64_t committed,
                         struct hold *out)
{
    if (!h->n || h->q[h->head].seq > committed)
        return false;
    *out = h->q[h->head];
    h->head = (h->head + 1) % h->cap;
    h->n--;
    return true;
}
