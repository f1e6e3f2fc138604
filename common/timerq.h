/*
 * timerq.h - many one-shot timers on one clock: a binary min-heap of
 * caller-owned timers, so arming, re-arming and cancelling cost O(log n)
 * whatever the number of timers. (libwebsockets 4.1 keeps its lws_sul
 * timers in one sorted list, O(n) per insertion: fine for a few, the top
 * of the profile with one per game.) The server and the load generator
 * each drive one with a single event-loop timer armed at timerq_next().
 * The unit of the due times is the caller's.
 */
#ifndef TIMERQ_H
#define TIMERQ_H

#include <stdint.h>

/* Embedded in its owner; timerq_timer_init before first use. */
struct timerq_timer {
    int64_t due;
    int slot;                           /* heap index, -1 when not armed */
    void (*cb)(struct timerq_timer *t); /* called once when due */
};

/* Zero-initialise; timerq_free releases the heap array (the timers
 * belong to their owners). */
struct timerq {
    struct timerq_timer **heap;
    int n, cap;
};

/* Makes t a disarmed timer calling cb. */
void timerq_timer_init(struct timerq_timer *t,
                       void (*cb)(struct timerq_timer *t));

/* Arms t (re-arms it when armed) to fire at due. Returns 0, or -1 when
 * out of memory (t is then disarmed). */
int timerq_arm(struct timerq *q, struct timerq_timer *t, int64_t due);

/* Disarms t; a no-op when it is not armed. */
void timerq_cancel(struct timerq *q, struct timerq_timer *t);

/* The earliest due time, INT64_MAX when no timer is armed. */
int64_t timerq_next(const struct timerq *q);

/* Disarms and returns the earliest timer due at or before now, or NULL
 * when none is due. The caller then calls its cb. */
struct timerq_timer *timerq_pop_due(struct timerq *q, int64_t now);

/* Frees the heap array; every timer is left disarmed. */
void timerq_free(struct timerq *q);

#endif
