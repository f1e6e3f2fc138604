/*
 * ratelimit.h - token buckets per address (or any short key), for the
 * HTTP API, the logins and the registrations: each key may make `burst`
 * requests at once and `rate_per_s` a second after that.
 *
 * Memory is bounded: at most max_addrs keys have a bucket. A new key
 * when that many have one takes the place of the bucket used least
 * recently (whose key then starts again with a full bucket), so a flood
 * of made-up keys never locks a real one out: it costs a key at most the
 * state of its own bucket, and only once the flood has gone through
 * max_addrs other keys since the key's last request. Buckets that have
 * refilled (their keys behave like new ones) are forgotten as they come
 * up oldest. Time comes in as `now` (monotonic ms). Event-loop thread
 * only.
 */
#ifndef SERVER_RATELIMIT_H
#define SERVER_RATELIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest key told apart, in bytes (longer ones are cut there). */
#define RATELIMIT_KEY_MAX 95

struct ratelimit;

/* NULL when out of memory. rate_per_s > 0 (a fraction for limits per
 * minute), burst >= 1, max_addrs >= 1. */
struct ratelimit *ratelimit_new(double rate_per_s, int burst,
                                size_t max_addrs);

/* Frees rl and every bucket. NULL is a no-op. */
void ratelimit_free(struct ratelimit *rl);

/* Takes a token from addr's bucket: true when the request may go on,
 * false when it is over the limit (or out of memory). addr is copied
 * (at most RATELIMIT_KEY_MAX bytes of it). */
bool ratelimit_take(struct ratelimit *rl, const char *addr, int64_t now);

/* Gives back the token a take of addr took (a request that turned out
 * not to count: a bucket of failures charged before the outcome is
 * known), up to the burst. Nothing when addr has no bucket now. */
void ratelimit_give(struct ratelimit *rl, const char *addr);

/* Keys with a bucket. */
size_t ratelimit_addrs(const struct ratelimit *rl);

#endif
