/* bucket.c - see bucket.h. */
#include "lib/bucket.h"

#include <assert.h>

void bucket_init(struct bucket *b, double burst)
{
    b->tokens = burst;
    b->last_ms = -1;
}

double bucket_level(const struct bucket *b, double rate_per_s, double burst,
                    int64_t now)
{
    double tokens = b->tokens;

    if (b->last_ms >= 0 && now > b->last_ms)
        tokens += rate_per_s * (double)(now - b->last_ms) / 1000.0;
    return tokens < burst ? tokens : burst;
}

void bucket_give(struct bucket *b, double burst)
{
    b->tokens = b->tokens + 1.0 < burst ? b->tokens + 1.0 : burst;
}

bool bucket_take(struct bucket *b, double rate_per_s, double burst,
                 int64_t now)
{
    b->tokens = bucket_level(b, rate_per_s, burst, now);
    b->last_ms = now;
    assert(b->tokens <= burst);
    if (b->tokens < 1.0)
        return false;
    b->tokens -= 1.0;
    return true;
}
