/*
 * recent.h - a bounded set of keys, each with the time it was last
 * noted, for "has this happened lately": the logins that succeeded, by
 * account and address (hub/account.c gives those priority in a login
 * flood). At most `max` keys are kept; noting a new one when full
 * forgets the key noted least recently. A key older than `ttl_ms` counts
 * as not seen. Time comes in as `now` (monotonic ms). Event-loop thread
 * only.
 */
#ifndef SERVER_RECENT_H
#define SERVER_RECENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest key kept, in bytes (longer ones are cut there). */
#define RECENT_KEY_MAX 127

struct recent;

/* NULL when out of memory. max >= 1, ttl_ms > 0. */
struct recent *recent_new(size_t max, int64_t ttl_ms);

/* Frees r and its keys. NULL is a no-op. */
void recent_free(struct recent *r);

/* key happened at now (copied). 0, or -1 when out of memory. */
int recent_note(struct recent *r, const char *key, int64_t now);

/* True when key was noted within ttl_ms before now. */
bool recent_seen(const struct recent *r, const char *key, int64_t now);

/* Keys kept. */
size_t recent_count(const struct recent *r);

#endif
