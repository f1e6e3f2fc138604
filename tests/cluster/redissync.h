/*
 * redissync.h - the tests' way to wait for server/cluster/redis.c: run the loop
 * until something happened, and a reply as one line of text to compare.
 */
#ifndef TESTS_CLUSTER_REDISSYNC_H
#define TESTS_CLUSTER_REDISSYNC_H

#include <stdbool.h>

#include "cluster/redis.h"

struct ev_loop;

/* Runs turns of loop until *flag is true or timeout_s seconds passed.
 * Returns *flag. */
bool redissync_run_until(struct ev_loop *loop, const bool *flag,
                         double timeout_s);

/* A reply as text (malloc'ed; the caller frees it): a string or status
 * as it is, an integer in decimal, nil as "nil", an array as
 * "[a,b,...]", an error as "!" and its text; NULL reply and err as "!"
 * and err. */
char *redissync_text(const struct bus_value *reply, const char *err);

/* Sends a command (hiredis format) and waits up to 10 s for its reply;
 * returns redissync_text of it (caller frees), or "!timeout". */
char *redissync_command(struct ev_loop *loop, struct redis *r,
                        const char *format, ...);

/* A client of the redis-server at socket on loop with every script of
 * server/cluster/lua added (as their ids), once it is up (asserts it within 10
 * s). The caller frees it with redis_free. */
struct redis *redissync_open_scripts(struct ev_loop *loop,
                                     const char *socket);

/* The same logged in as user with password (AUTH user password). */
struct redis *redissync_open_as(struct ev_loop *loop, const char *socket,
                                const char *user, const char *password);

/* Runs the loop until channel has n subscribers (PUBSUB NUMSUB sent on
 * r, a user that may), or fails the test after 5 s. */
void redissync_wait_numsub(struct ev_loop *loop, struct redis *r,
                           const char *channel, int n);

/* The same for redis_eval. */
char *redissync_eval(struct ev_loop *loop, struct redis *r, int script,
                     int nkeys, const char *const *keys, int nargs,
                     const char *const *args);

#endif
