/* hist.c - see hist.h. */
#include "lib/hist.h"

const int64_t hist_bounds_us[HIST_BUCKETS] = {
    50,    100,    250,    500,    1000,    2500,    5000,    10000,    25000,
    50000, 100000, 250000, 500000, 1000000, 2500000, 5000000, 10000000,
};

void hist_add(struct hist *h, int64_t us)
{
    int i = 0;

    while (i < HIST_BUCKETS && us > hist_bounds_us[i])
        i++;
    h->bucket[i]++;
    h->count++;
    h->sum_us += us;
}
