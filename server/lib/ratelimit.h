/*
 * ratelimit.h - token buckets per address (or any short key), for the
 * HTTP API and the logins: each key may make `burst` requests at once and
 * `rate_per_s` a second after that.
 *
 * Memory is bounded: at most max_addrs addresses are kept. When that many
 * are, the buckets that have refilled (those addresses behave like new
 * ones) are forgotten, at most once a second; if none has, a new address
 * is refused until some have: a flood from many addresses is throttled
 * as a whole rather than growing the table. Time comes in as `now`
 * (monotonic ms). Event-loop thread only.
 */
#ifndef SERVER_RATELIMIT_H
#define SERVER_RATELIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ratelimit;

/* NULL when out of memory. rate_per_s > 0 (a fraction for limits per
 * minute), burst >= 1. */
struct ratelimit *ratelimit_new(double rate_per_s, int burst,
                                size_t max_addrs);

/* Frees rl and every bucket. NULL is a no-op. */
void ratelimit_free(struct ratelimit *rl);

/* Takes a token from addr's bucket: true when the request may go on,
 * false when it is over the limit (or out of memory). addr is copied. */
bool ratelimit_take(struct ratelimit *rl, const char *addr, int64_t now);

/* Addresses with a bucket. */
size_t ratelimit_addrs(const struct ratelimit *rl);

#endif
