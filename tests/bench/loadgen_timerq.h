/*
 * loadgen_timerq.h - many one-shot timers on one clock: a binary min-heap
 * of caller-owned timers, so arming, re-arming and cancelling cost
 * O(log n) whatever the number of timers. (libwebsockets keeps its
 * lws_sul timers in a sorted list, O(n) per insertion: fine for a few,
 * slow for one per game.) The load generator drives it with one lws_sul
 * armed at lg_timerq_next().
 */
#ifndef LOADGEN_TIMERQ_H
#define LOADGEN_TIMERQ_H

#include <stdint.h>

/* Embedded in its owner; lg_timer_init before first use. */
struct lg_timer {
    int64_t due_us;
    int slot;                          /* heap index, -1 when not armed */
    void (*cb)(struct lg_timer *t);    /* called once when due */
};

/* Zero-initialise; lg_timerq_free releases the heap array (the timers
 * belong to their owners). */
struct lg_timerq {
    struct lg_timer **heap;
    int n, cap;
};

/* Makes t a disarmed timer calling cb. */
void lg_timer_init(struct lg_timer *t, void (*cb)(struct lg_timer *t));

/* Arms t (re-arms it when armed) to fire at due_us. Returns 0, or -1 when
 * out of memory (t is then disarmed). */
int lg_timerq_arm(struct lg_timerq *q, struct lg_timer *t, int64_t due_us);

/* Disarms t; a no-op when it is not armed. */
void lg_timerq_cancel(struct lg_timerq *q, struct lg_timer *t);

/* The earliest due time, INT64_MAX when no timer is armed. */
int64_t lg_timerq_next(const struct lg_timerq *q);

/* Disarms and returns the earliest timer due at or before now_us, or NULL
 * when none is due. The caller then calls its cb. */
struct lg_timer *lg_timerq_pop_due(struct lg_timerq *q, int64_t now_us);

/* Frees the heap array; every timer is left disarmed. */
void lg_timerq_free(struct lg_timerq *q);

#endif
