/*
 * loadgen_hist.c - log-linear latency histogram (see loadgen_hist.h).
 *
 * Layout: buckets 0 .. 2*HALF-1 hold the values 0 .. 2*HALF-1 exactly.
 * A larger value v with its top bit at position msb is shifted right by
 * shift = msb - SUB_BITS + 1, which leaves SUB_BITS significant bits
 * (HALF .. 2*HALF-1); octave `shift` owns the HALF buckets after those of
 * octave shift-1.
 */
#include "loadgen_hist.h"

#include <math.h>
#include <string.h>

void lg_hist_clear(struct lg_hist *h)
{
    memset(h, 0, sizeof *h);
}

unsigned lg_hist_bucket(uint64_t v)
{
    unsigned msb, shift;

    if (v < 2 * LG_HIST_HALF)
        return (unsigned)v;
    if (v >> LG_HIST_MAX_BITS)
        return LG_HIST_BUCKETS - 1;
    msb = 63u - (unsigned)__builtin_clzll(v);
    shift = msb - LG_HIST_SUB_BITS + 1;
    return 2 * LG_HIST_HALF + (shift - 1) * LG_HIST_HALF +
           (unsigned)((v >> shift) - LG_HIST_HALF);
}

uint64_t lg_hist_bucket_high(unsigned i)
{
    unsigned k, shift;
    uint64_t sub;

    if (i < 2 * LG_HIST_HALF)
        return i;
    k = i - 2 * LG_HIST_HALF;
    shift = k / LG_HIST_HALF + 1;
    sub = k % LG_HIST_HALF + LG_HIST_HALF;
    return ((sub + 1) << shift) - 1;
}

void lg_hist_record(struct lg_hist *h, uint64_t v)
{
    h->counts[lg_hist_bucket(v)]++;
    if (!h->total || v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    h->total++;
}

void lg_hist_merge(struct lg_hist *into, const struct lg_hist *from)
{
    if (!from->total)
        return;
    for (unsigned i = 0; i < LG_HIST_BUCKETS; i++)
        into->counts[i] += from->counts[i];
    if (!into->total || from->min < into->min)
        into->min = from->min;
    if (from->max > into->max)
        into->max = from->max;
    into->total += from->total;
}

uint64_t lg_hist_quantile(const struct lg_hist *h, double q)
{
    uint64_t rank, seen = 0, high;

    if (!h->total)
        return 0;
    if (q > 1.0)
        q = 1.0;
    rank = (uint64_t)ceil(q * (double)h->total);
    if (rank < 1)
        rank = 1;
    for (unsigned i = 0; i < LG_HIST_BUCKETS; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            high = lg_hist_bucket_high(i);
            return high < h->max ? high : h->max;
        }
    }
    return h->max;
}
