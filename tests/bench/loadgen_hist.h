/*
 * loadgen_hist.h - a latency histogram for the load generator: a fixed
 * array of log-linear buckets (the HdrHistogram layout), so recording is
 * O(1), memory is constant whatever the sample count, and histograms from
 * several processes merge by adding counts.
 *
 * Values are unsigned integers (microseconds in the load generator).
 * Values below 2^LG_HIST_SUB_BITS are counted exactly; above, every power
 * of two is cut into 2^(LG_HIST_SUB_BITS-1) equal buckets, so a reported
 * percentile is at most 1/128 (0.8%) above the true value. Values of
 * 2^LG_HIST_MAX_BITS and more are counted in the last bucket (the exact
 * maximum is kept apart).
 */
#ifndef LOADGEN_HIST_H
#define LOADGEN_HIST_H

#include <stdint.h>

#define LG_HIST_SUB_BITS 8
#define LG_HIST_MAX_BITS 36
#define LG_HIST_HALF (1u << (LG_HIST_SUB_BITS - 1))
#define LG_HIST_BUCKETS \
    (2 * LG_HIST_HALF + (LG_HIST_MAX_BITS - LG_HIST_SUB_BITS) * LG_HIST_HALF)

/* A plain value: zero it (or call lg_hist_clear) before use; copyable,
 * nothing to free. */
struct lg_hist {
    uint64_t total;
    uint64_t min, max;
    uint64_t counts[LG_HIST_BUCKETS];
};

/* Empties h. */
void lg_hist_clear(struct lg_hist *h);

/* Counts one sample of value v. */
void lg_hist_record(struct lg_hist *h, uint64_t v);

/* Adds every sample of from to into. */
void lg_hist_merge(struct lg_hist *into, const struct lg_hist *from);

/* The value at quantile q (0 < q <= 1): the highest value of the bucket
 * holding the ceil(q * total)-th smallest sample, never above the exact
 * maximum. 0 when h is empty. */
uint64_t lg_hist_quantile(const struct lg_hist *h, double q);

/* The bucket index of v, and the highest value a bucket holds (exposed for
 * the unit test). */
unsigned lg_hist_bucket(uint64_t v);
uint64_t lg_hist_bucket_high(unsigned i);

#endif
