/*
 * timerq.c - binary min-heap of timers (see timerq.h).
 */
#include "timerq.h"

#include <assert.h>
#include <stdlib.h>

void timerq_timer_init(struct timerq_timer *t,
                       void (*cb)(struct timerq_timer *t))
{
    t->due = 0;
    t->slot = -1;
    t->cb = cb;
}

static void put(struct timerq *q, int i, struct timerq_timer *t)
{
    q->heap[i] = t;
    t->slot = i;
}

static void sift_up(struct timerq *q, int i)
{
    struct timerq_timer *t = q->heap[i];

    while (i > 0) {
        int parent = (i - 1) / 2;
        if (q->heap[parent]->due <= t->due)
            break;
        put(q, i, q->heap[parent]);
        i = parent;
    }
    put(q, i, t);
}

static void sift_down(struct timerq *q, int i)
{
    struct timerq_timer *t = q->heap[i];

    for (;;) {
        int c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && q->heap[c + 1]->due < q->heap[c]->due)
            c++;
        if (t->due <= q->heap[c]->due)
            break;
        put(q, i, q->heap[c]);
        i = c;
    }
    put(q, i, t);
}

/* Takes slot i out of the heap. */
static void remove_at(struct timerq *q, int i)
{
    struct timerq_timer *last = q->heap[--q->n];

    q->heap[i]->slot = -1;
    if (i == q->n)
        return;
    put(q, i, last);
    sift_down(q, i);
    sift_up(q, last->slot);
}

int timerq_arm(struct timerq *q, struct timerq_timer *t, int64_t due)
{
    assert(t->cb && (t->slot < 0 || q->heap[t->slot] == t));
    if (t->slot >= 0)
        remove_at(q, t->slot);
    if (q->n == q->cap) {
        int cap = q->cap ? 2 * q->cap : 64;
        struct timerq_timer **h = realloc(q->heap, (size_t)cap * sizeof *h);
        if (!h)
            return -1;
        q->heap = h;
        q->cap = cap;
    }
    t->due = due;
    put(q, q->n++, t);
    sift_up(q, t->slot);
    return 0;
}

void timerq_cancel(struct timerq *q, struct timerq_timer *t)
{
    assert(t->slot < 0 || (t->slot < q->n && q->heap[t->slot] == t));
    if (t->slot >= 0)
        remove_at(q, t->slot);
}

int64_t timerq_next(const struct timerq *q)
{
    return q->n ? q->heap[0]->due : INT64_MAX;
}

struct timerq_timer *timerq_pop_due(struct timerq *q, int64_t now)
{
    struct timerq_timer *t;

    if (!q->n || q->heap[0]->due > now)
        return NULL;
    t = q->heap[0];
    remove_at(q, 0);
    return t;
}

void timerq_free(struct timerq *q)
{
    for (int i = 0; i < q->n; i++)
        q->heap[i]->slot = -1;
    free(q->heap);
    q->heap = NULL;
    q->n = q->cap = 0;
}
