/*
 * loadgen_timerq.c - binary min-heap of timers (see loadgen_timerq.h).
 */
#include "loadgen_timerq.h"

#include <stdlib.h>

void lg_timer_init(struct lg_timer *t, void (*cb)(struct lg_timer *t))
{
    t->due_us = 0;
    t->slot = -1;
    t->cb = cb;
}

static void put(struct lg_timerq *q, int i, struct lg_timer *t)
{
    q->heap[i] = t;
    t->slot = i;
}

static void sift_up(struct lg_timerq *q, int i)
{
    struct lg_timer *t = q->heap[i];

    while (i > 0) {
        int parent = (i - 1) / 2;
        if (q->heap[parent]->due_us <= t->due_us)
            break;
        put(q, i, q->heap[parent]);
        i = parent;
    }
    put(q, i, t);
}

static void sift_down(struct lg_timerq *q, int i)
{
    struct lg_timer *t = q->heap[i];

    for (;;) {
        int c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && q->heap[c + 1]->due_us < q->heap[c]->due_us)
            c++;
        if (t->due_us <= q->heap[c]->due_us)
            break;
        put(q, i, q->heap[c]);
        i = c;
    }
    put(q, i, t);
}

/* Takes slot i out of the heap. */
static void remove_at(struct lg_timerq *q, int i)
{
    struct lg_timer *last = q->heap[--q->n];

    q->heap[i]->slot = -1;
    if (i == q->n)
        return;
    put(q, i, last);
    sift_down(q, i);
    sift_up(q, last->slot);
}

int lg_timerq_arm(struct lg_timerq *q, struct lg_timer *t, int64_t due_us)
{
    if (t->slot >= 0)
        remove_at(q, t->slot);
    if (q->n == q->cap) {
        int cap = q->cap ? 2 * q->cap : 64;
        struct lg_timer **h = realloc(q->heap, (size_t)cap * sizeof *h);
        if (!h)
            return -1;
        q->heap = h;
        q->cap = cap;
    }
    t->due_us = due_us;
    put(q, q->n++, t);
    sift_up(q, t->slot);
    return 0;
}

void lg_timerq_cancel(struct lg_timerq *q, struct lg_timer *t)
{
    if (t->slot >= 0)
        remove_at(q, t->slot);
}

int64_t lg_timerq_next(const struct lg_timerq *q)
{
    return q->n ? q->heap[0]->due_us : INT64_MAX;
}

struct lg_timer *lg_timerq_pop_due(struct lg_timerq *q, int64_t now_us)
{
    struct lg_timer *t;

    if (!q->n || q->heap[0]->due_us > now_us)
        return NULL;
    t = q->heap[0];
    remove_at(q, 0);
    return t;
}

void lg_timerq_free(struct lg_timerq *q)
{
    for (int i = 0; i < q->n; i++)
        q->heap[i]->slot = -1;
    free(q->heap);
    q->heap = NULL;
    q->n = q->cap = 0;
}
