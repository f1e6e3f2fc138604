/*
 * redis.h - a node's connection to Redis (docs/cluster.md): Redis's
 * protocol (hiredis's reader and formatter) over streams of our own
 * (stream.h: TCP or a unix socket, TLS when asked) on the server's libev
 * loop.
 *
 * One struct redis owns two connections to one server: one for commands
 * and scripts, one for pub/sub (a subscribed connection takes no other
 * command). Each authenticates first (AUTH, with a user for Redis 6's
 * ACLs). It is "up" when both are connected, every script is loaded
 * (SCRIPT LOAD) and every wanted channel is subscribed again; it reports
 * each up/down transition through `on_state`, so that the node can tell
 * its clients and resync what it follows. After a loss (or a failed
 * attempt) it reconnects both, waiting backoff_min_ms, then twice that
 * after each failure, up to backoff_max_ms; an attempt that is not up
 * after connect_timeout_ms counts as failed.
 *
 * Commands. Every accepted command gets exactly one call of its
 * redis_reply_fn, never from within the call that issued it (a refusal
 * is reported on a later turn of the loop). While up, a command is sent
 * at once (pipelined with the others). While down, it waits in a queue
 * of at most queue_max commands (REDIS_QUEUE_MAX by default), each for
 * at most queue_ms (REDIS_QUEUE_MS): when up again the queue is sent in
 * order; a command that finds the queue full, or outstays queue_ms,
 * fails with `err` "redis: not connected". A command that was sent
 * when the connection was lost fails with "redis: connection lost": it
 * may or may not have run (the caller decides whether it can repeat
 * it; the scripts of redis_scripts.h can all be repeated).
 *
 * Signatures. With the cluster's key, redis_publish signs what it
 * publishes, and a message on a followed channel reaches on_message
 * only when its signature holds and it is not a replay (sign.h); others
 * are dropped, counted (redis_stats) and logged
 * (`cluster_message_refused`).
 *
 * Only the event-loop thread uses it. No function here may be called
 * from within one of this redis's callbacks except redis_command*,
 * redis_publish, redis_eval, redis_subscribe, redis_unsubscribe and
 * redis_is_up (in particular not redis_free). Nothing in it is global:
 * a process may hold one per Redis it uses.
 */
#ifndef SERVER_REDIS_H
#define SERVER_REDIS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "cluster/bus.h"
#include "cluster/sign.h"
#include "cluster/stream.h"
#include "lib/hist.h"

struct ev_loop;
struct redis;

/* Commands that wait while Redis is down, and for how long at most. */
#define REDIS_QUEUE_MAX 1024
#define REDIS_QUEUE_MS 1000

/* A command's result, as the bus's (bus.h): on success err is NULL and
 * reply is Redis's answer (owned by redis.c, valid only during the
 * call). On failure err is a sentence (valid only during the call) and
 * reply is either NULL (not sent, or no answer: see above) or Redis's
 * error reply (BUS_ERROR, err its text). Only this file's .c sees
 * hiredis. */
typedef bus_reply_fn redis_reply_fn;

/* A message on a followed channel, and an up/down transition, as the
 * bus's (bus.h): up true when both connections are ready (after a
 * connect or a reconnect), false when one was lost (the other is then
 * closed too). */
typedef bus_message_fn redis_message_fn;
typedef void redis_state_fn(void *arg, bool up);

struct redis_config {
    /* "host:port" ("[v6]:port"), or a unix socket's path (anything with
     * a '/'). A host name is resolved blocking, on each attempt: give an
     * address or a socket path. */
    const char *address;
    /* AUTH on both connections: AUTH user password (Redis 6+ ACLs) with
     * a user, AUTH password without one; password NULL: none. */
    const char *user;
    const char *password;
    /* TLS over TCP: what to trust and show (server_name NULL: the
     * address's host); NULL: plain. */
    const struct stream_tls_config *tls;
    /* The cluster's shared key (key_len >= SIGN_KEY_MIN bytes, copied):
     * redis_publish signs, and only signed messages reach on_message.
     * NULL: nothing signed or checked (a test of this file alone). */
    const void *key;
    size_t key_len;
    int connect_timeout_ms; /* 0: 2000 */
    int backoff_min_ms;     /* 0: 100 */
    int backoff_max_ms;     /* 0: 2000 */
    int queue_max;          /* 0: REDIS_QUEUE_MAX; -1: none (fail at once) */
    int queue_ms;           /* 0: REDIS_QUEUE_MS */
    redis_state_fn *on_state;     /* may be NULL */
    redis_message_fn *on_message; /* may be NULL */
    void *arg;                    /* for on_state and on_message */
};

/* Creates the connection to cfg->address on loop and starts connecting
 * (on_state(up) follows on a later turn of the loop). cfg's strings are
 * copied. Returns NULL with a sentence in err when the address cannot be
 * parsed, a TLS file cannot be used, the key is too short or memory runs
 * out (an unreachable server is no error: it is retried). The caller
 * owns the result and frees it with redis_free. */
struct redis *redis_new(struct ev_loop *loop, const struct redis_config *cfg,
                        char *err, size_t errlen);

/* Replaces the callbacks of cfg (on_state, on_message and their arg):
 * for an owner made after r (the hub's cluster). */
void redis_set_handlers(struct redis *r, redis_state_fn *on_state,
                        redis_message_fn *on_message, void *arg);

/* Closes both connections and frees r: every pending or queued command's
 * callback is called with "redis: closed" first; on_state is not called.
 * redis_free(NULL) is a no-op. */
void redis_free(struct redis *r);

/* True when both connections are ready (between on_state(up) and
 * on_state(down)). */
bool redis_is_up(const struct redis *r);

/* Sends (or queues) a command given as argc binary-safe arguments
 * (argvlen NULL: NUL-terminated strings); copies them. fn(arg, ...) is
 * called once with its result. Returns 0; -1 when out of memory or
 * within redis_free (fn is then not called). */
int redis_command_argv(struct redis *r, redis_reply_fn *fn, void *arg,
                       int argc, const char **argv, const size_t *argvlen);

/* The same with hiredis's printf-like format ("SET %s %b", ...). Returns
 * 0, or -1 on a bad format or when out of memory (fn is then not
 * called). */
int redis_command(struct redis *r, redis_reply_fn *fn, void *arg,
                  const char *format, ...);
/* The same with a va_list. */
int redis_vcommand(struct redis *r, redis_reply_fn *fn, void *arg,
                   const char *format, va_list ap);

/* PUBLISHes msg (len bytes) on channel, signed when r has the key:
 * fn gets the number of subscribers that received it (as
 * redis_command's). Returns 0, or -1 when out of memory. */
int redis_publish(struct redis *r, const char *channel, const char *msg,
                  size_t len, redis_reply_fn *fn, void *arg);

/* Registers a Lua script (copied); returns its number for redis_eval
 * (0, 1, ...), or -1 when out of memory. Scripts are loaded (SCRIPT
 * LOAD) on each connection before it is up, so redis_eval's EVALSHA
 * finds them; should Redis have lost one (SCRIPT FLUSH, a restart between
 * a loss and its detection), redis_eval sends that call again as EVAL
 * (which loads it again). */
int redis_script_add(struct redis *r, const char *source);

/* Runs script number `script` with nkeys keys and nargs arguments
 * (NUL-terminated strings, copied): EVALSHA, then EVAL on NOSCRIPT.
 * Returns 0 (fn will be called) or -1 when out of memory or the script
 * number is unknown (fn is not called). */
int redis_eval(struct redis *r, int script, redis_reply_fn *fn, void *arg,
               int nkeys, const char *const *keys, int nargs,
               const char *const *args);

/* Adds channel (copied) to the channels this redis follows: subscribed
 * now when up, and again after every reconnect; messages on it go to
 * on_message. Following a channel twice is following it once (the
 * caller counts its followers). Returns 0, or -1 when out of memory. */
int redis_subscribe(struct redis *r, const char *channel);

/* Stops following channel: once Redis has the UNSUBSCRIBE, no message
 * of it reaches on_message. One published before (on its way, or
 * published while the UNSUBSCRIBE is) still does: Redis counted this
 * node among its receivers, and its publisher takes it as delivered,
 * so the caller must answer it (a node's command for a game no longer
 * hosted here is refused busy). Returns 0, or -1 when it was not
 * followed. */
int redis_unsubscribe(struct redis *r, const char *channel);

/* Why the last attempt failed or the connection was lost ("" while up
 * and after a successful (re)connect); owned by r, valid until its next
 * call. */
const char *redis_error(const struct redis *r);

/* How many channels are followed. */
size_t redis_channels(const struct redis *r);

/* The bus over rs[0..n) (1 <= n <= BUS_SHARDS_MAX), shard k being
 * rs[k]: registers every script of cluster/lua on each (in enum
 * bus_script's order: none may have scripts of its own yet), takes over
 * their handlers (redis_set_handlers: each one's state changes go to the
 * bus's with its shard) and fills *out. Returns the bus's own record,
 * which the caller frees with redis_bus_free after the bus's last use
 * (rs outlive both); NULL when out of memory, n is out of range or a
 * script's name is not the enum's (a build out of step). */
struct redis_bus *redis_bus_new(struct redis *const *rs, int n,
                                struct bus *out);
void redis_bus_free(struct redis_bus *b);

/* Connects to cfg's Redis once as redis_new does (AUTH, TLS, PING,
 * SUBSCRIBE), on a loop of its own, and waits until both connections
 * are up or the attempt failed, at most timeout_ms: 0; else -1 with a
 * sentence in err and *refused true when the settings are at fault (a
 * bad address, TLS file or key; Redis refused the user or password, or
 * a command or channel by its ACL; the certificate is not trusted or
 * not the server name's; the server speaks no TLS) and false when
 * Redis does not answer (start-up and --check-config). Any thread. */
int redis_check(const struct redis_config *cfg, int timeout_ms, bool *refused,
                char *err, size_t errlen);

/* True when the last failure (redis_error) was a refusal, as
 * redis_check's *refused. */
bool redis_refused(const struct redis *r);

/* The counters the tests and the metrics read. */
struct redis_stats {
    unsigned long connects; /* times it came up */
    unsigned long losses;   /* times it went down */
    unsigned long noscript; /* EVALSHA calls sent again as EVAL */
    unsigned long refused;  /* commands failed with "not connected" */
    unsigned long lost;     /* commands failed with "connection lost" */
    unsigned long errors;   /* commands answered with an error reply */
    unsigned long failures; /* attempts that did not come up */
    /* Messages dropped, by what sign.h found (forged, stale, replayed;
     * index enum sign_verdict, SIGN_OK unused). */
    unsigned long dropped[SIGN_VERDICTS];
    size_t queued;          /* commands waiting for the connection now */
    size_t pending;         /* commands sent, without an answer yet */
    struct hist round_trip; /* a command's first send to its answer (not
                               PUBLISH's) */
    struct hist publish;    /* a PUBLISH's send to its answer */
};
void redis_stats(const struct redis *r, struct redis_stats *out);

#endif
