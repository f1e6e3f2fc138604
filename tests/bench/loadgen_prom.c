/*
 * loadgen_prom.c - Prometheus text readings (see loadgen_prom.h).
 */
#include "loadgen_prom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value on the line that begins with prefix (at a line start), or
 * NULL. */
static const char *line_value(const char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    const char *p = text;

    while (p && *p) {
        if (!strncmp(p, prefix, n))
            return p + n;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return NULL;
}

static int parse_num(const char *s, double *out)
{
    char *end;

    if (!strncmp(s, "+Inf", 4)) {
        *out = INFINITY;
        return 0;
    }
    *out = strtod(s, &end);
    return end == s ? -1 : 0;
}

int lg_prom_value(const char *text, const char *series, double *out)
{
    char prefix[256];
    const char *v;

    if (snprintf(prefix, sizeof prefix, "%s ", series) >= (int)sizeof prefix)
        return -1;
    v = line_value(text, prefix);
    return v ? parse_num(v, out) : -1;
}

int lg_prom_hist(const char *text, const char *name, struct lg_prom_hist *out)
{
    char prefix[256];
    size_t n;
    const char *p = text;

    memset(out, 0, sizeof *out);
    n = (size_t)snprintf(prefix, sizeof prefix, "%s_bucket{le=\"", name);
    if (n >= sizeof prefix)
        return -1;
    while (p && *p) {
        if (!strncmp(p, prefix, n)) {
            const char *q = p + n, *close = strchr(q, '"');
            if (!close || out->n == LG_PROM_MAX_BUCKETS ||
                parse_num(q, &out->le[out->n]) != 0 ||
                strncmp(close, "\"} ", 3) != 0 ||
                parse_num(close + 3, &out->cum[out->n]) != 0)
                return -1;
            out->n++;
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (out->n == 0 || !isinf(out->le[out->n - 1]))
        return -1;
    snprintf(prefix, sizeof prefix, "%s_sum", name);
    if (lg_prom_value(text, prefix, &out->sum) != 0)
        return -1;
    snprintf(prefix, sizeof prefix, "%s_count", name);
    return lg_prom_value(text, prefix, &out->count);
}

int lg_prom_hist_sub(struct lg_prom_hist *after,
                     const struct lg_prom_hist *before)
{
    if (after->n != before->n)
        return -1;
    for (int i = 0; i < after->n; i++)
        if (after->le[i] != before->le[i])
            return -1;
    for (int i = 0; i < after->n; i++)
        after->cum[i] -= before->cum[i];
    after->sum -= before->sum;
    after->count -= before->count;
    return 0;
}

double lg_prom_quantile(const struct lg_prom_hist *h, double q)
{
    double total = h->n ? h->cum[h->n - 1] : 0, rank, below = 0, lo = 0;

    if (total <= 0)
        return 0;
    rank = q * total;
    for (int i = 0; i < h->n; i++) {
        if (h->cum[i] >= rank) {
            if (isinf(h->le[i]))
                return i > 0 ? h->le[i - 1] : 0;
            if (h->cum[i] == below)
                return h->le[i];
            return lo +
                   (h->le[i] - lo) * (rank - below) / (h->cum[i] - below);
        }
        below = h->cum[i];
        lo = h->le[i];
    }
    return lo;
}
