/*
 * bucket.h - a token bucket: `burst` tokens at most, refilled at
 * `rate_per_s` a second; each event that passes takes one. Time comes in
 * as `now` (monotonic ms). Plain data, owned by whoever embeds it; the
 * rate and burst are passed to each call (they are settings).
 */
#ifndef SERVER_BUCKET_H
#define SERVER_BUCKET_H

#include <stdbool.h>
#include <stdint.h>

struct bucket {
    double tokens;
    int64_t last_ms; /* when tokens was computed; -1: never */
};

/* A full bucket. */
void bucket_init(struct bucket *b, double burst);

/* The tokens b holds at now (nothing taken). */
double bucket_level(const struct bucket *b, double rate_per_s, double burst,
                    int64_t now);

/* Takes a token: true when the event may pass. */
bool bucket_take(struct bucket *b, double rate_per_s, double burst,
                 int64_t now);

/* Gives back a token taken (at most burst): what it paid for turned out
 * free (hub/reads.c: a read that found its game). */
void bucket_give(struct bucket *b, double burst);

#endif
