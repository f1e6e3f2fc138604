/*
 * loadgen_prom.h - reading the server's /metrics (Prometheus text) in the
 * load generator: a histogram family's buckets and a plain sample, the
 * difference of two readings (before and after the measurement window),
 * and quantiles estimated from the buckets. No I/O: the caller fetches
 * the text.
 */
#ifndef LOADGEN_PROM_H
#define LOADGEN_PROM_H

#define LG_PROM_MAX_BUCKETS 40

/* One reading of a histogram: cumulative counts per upper bound, in the
 * exposition's order (ascending), the last bound +Inf. */
struct lg_prom_hist {
    int n;
    double le[LG_PROM_MAX_BUCKETS];
    double cum[LG_PROM_MAX_BUCKETS];
    double sum, count;
};

/* Reads histogram `name` (its NAME_bucket{le="..."}, NAME_sum and
 * NAME_count lines) from text. 0, or -1 when it is missing or has more
 * than LG_PROM_MAX_BUCKETS buckets. */
int lg_prom_hist(const char *text, const char *name,
                 struct lg_prom_hist *out);

/* Reads the value of the sample named exactly `series` (a name, with its
 * labels when it has any: `a_total{code="x"}`). 0, or -1 when missing. */
int lg_prom_value(const char *text, const char *series, double *out);

/* after -= before, bucket by bucket: what was counted between the two
 * readings. 0, or -1 when their bounds differ (a restarted server). */
int lg_prom_hist_sub(struct lg_prom_hist *after,
                     const struct lg_prom_hist *before);

/* The value below which a fraction q (0 < q <= 1) of the samples fall,
 * interpolated linearly inside its bucket as Prometheus's
 * histogram_quantile does (a bucket's samples spread evenly from the
 * bound before it, 0 for the first); in the +Inf bucket, the highest
 * finite bound. 0 when the histogram is empty. In the bounds' unit. */
double lg_prom_quantile(const struct lg_prom_hist *h, double q);

#endif
