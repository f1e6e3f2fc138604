/*
 * hist.h - a latency histogram in microseconds, with the buckets every
 * histogram of /metrics has: 50 us to 10 s (a storage stall up to
 * SQLite's 5 s busy timeout lands in a bucket of its own), then +Inf.
 * Plain data: the owner guards it (the loop's metrics, or the store's
 * mutex for the writer thread's).
 */
#ifndef SERVER_HIST_H
#define SERVER_HIST_H

#include <stdint.h>

#define HIST_BUCKETS 17

/* bucket[i] counts the values of at most hist_bounds_us[i] and above the
 * bound before it; bucket[HIST_BUCKETS], those above every bound. */
extern const int64_t hist_bounds_us[HIST_BUCKETS];

struct hist {
    uint64_t bucket[HIST_BUCKETS + 1];
    uint64_t count;
    int64_t sum_us;
};

/* Counts one value of us microseconds. */
void hist_add(struct hist *h, int64_t us);

#endif
