/*
 * bus.h - what the cluster needs of Redis, as a port: publish and
 * subscribe to channels, and run one of a fixed set of atomic scripts
 * with typed results.
 *
 * The nodes of a cluster meet on a bus: each node publishes on channels
 * (codec.h says what travels on them) and follows those it is told
 * about; the placement of games, the leases and the lobby's seeks are
 * scripts the bus runs atomically (enum bus_script; in Redis the Lua
 * files of cluster/lua, in the unit tests a fake that runs them in C:
 * tests/unit/busfake.c). The Redis bus is redis.c's (redis_bus_init).
 *
 * A bus may be several independent servers, its shards (shards.h: a
 * bus over one bus per Redis instance): each call names the shard it
 * goes to. What grows with the games (a game's keys and command
 * channel, the messages to a connection) is spread over them by a
 * stable hash (bus_shard); what every node shares (the leases, the
 * lobby, the players' and the limits' channels) is on the first,
 * BUS_FIRST. A message reaches the subscribers of its channel on the
 * shard it was published on.
 *
 * Every accepted call (0 returned) gets exactly one call of its
 * bus_reply_fn, never from within the call that issued it. A message
 * published reaches every subscriber of its channel at most once, in
 * the order published by one publisher on one shard. Only the
 * event-loop thread uses a bus.
 */
#ifndef SERVER_CLUSTER_BUS_H
#define SERVER_CLUSTER_BUS_H

#include <stdbool.h>
#include <stddef.h>

struct cluster_metrics;

/* A script's result, or a part of one. */
enum bus_type { BUS_NIL, BUS_INT, BUS_STR, BUS_ARRAY, BUS_ERROR };

struct bus_value {
    enum bus_type type;
    long long integer;         /* BUS_INT */
    const char *str;           /* BUS_STR, BUS_ERROR: NUL-terminated */
    size_t len;                /* ... its bytes */
    size_t n;                  /* BUS_ARRAY: its elements, v[0..n) */
    const struct bus_value *v; /* ... */
};

/* A call's result: v (valid only during the call) with err NULL; or err
 * (a sentence, valid only during the call) with v NULL (not sent, or no
 * answer: it may or may not have run; every script can be run again) or
 * v the bus's error reply (BUS_ERROR, err its text). */
typedef void bus_reply_fn(void *arg, const struct bus_value *v,
                          const char *err);
/* A message on a followed channel (both valid only during the call). */
typedef void bus_message_fn(void *arg, const char *channel, const char *msg,
                            size_t len);
/* A shard of the bus came up (true: every channel followed on it is
 * followed again) or went down; never twice in a row the same for one
 * shard, its first an up. */
typedef void bus_state_fn(void *arg, int shard, bool up);

/* The shard of what every node shares; "every shard" (subscribe). */
#define BUS_FIRST 0
#define BUS_EVERY (-1)
/* A bus has at most this many shards. */
#define BUS_SHARDS_MAX 16

/* The scripts, in the order of cluster/lua/meson.build (the Redis bus
 * checks the names). Each file's header says its keys, arguments and
 * result. */
enum bus_script {
    BUS_NODE_UP,
    BUS_NODE_RENEW,
    BUS_GAME_TAKE,
    BUS_GAME_HANDOVER,
    BUS_GAME_RELEASE,
    BUS_NODES_DEAD,
    BUS_LOBBY_SNAPSHOT,
    BUS_GAME_CARD,
    BUS_SEEK_PLACE,
    BUS_SEEK_CANCEL,
    BUS_NODE_ALIVE,
    BUS_NODES,
    BUS_GAMES_TOP,
    BUS_GAME_UNCARD,
    BUS_SEEK_READ,
    BUS_NODE_GAMES,
    BUS_NODE_FORGET,
    BUS_SHARD_MARK,
    BUS_ANALYSIS_QUEUE,
    BUS_CHALLENGE,
    BUS_EVENT_LEASE,
    BUS_EVENT_COUNT,
    BUS_SCRIPTS
};

/* The script's file name without ".lua" ("node_up"). */
const char *bus_script_name(enum bus_script s);

/* Each call names its shard, 0 .. bus.shards - 1 (subscribe and
 * unsubscribe: or BUS_EVERY). */
struct bus_ops {
    /* PUBLISH: fn gets the number of receivers (BUS_INT); fn NULL:
     * failures are only logged. */
    int (*publish)(void *impl, int shard, const char *channel,
                   const char *msg, size_t len, bus_reply_fn *fn, void *arg);
    /* Follows channel (copied) from now on, again after every loss;
     * following it twice is following it once. 0, or -1. */
    int (*subscribe)(void *impl, int shard, const char *channel);
    /* Stops following channel: a message published before the bus had
     * this (its publisher counted this node) still arrives, none after.
     * 0, or -1 when it was not followed. */
    int (*unsubscribe)(void *impl, int shard, const char *channel);
    /* Runs script s with nkeys keys and nargs arguments (copied). */
    int (*eval)(void *impl, int shard, enum bus_script s, int nkeys,
                const char *const *keys, int nargs, const char *const *args,
                bus_reply_fn *fn, void *arg);
    /* Where messages and state changes go from now on. */
    void (*set_handlers)(void *impl, bus_state_fn *on_state,
                         bus_message_fn *on_message, void *arg);
    /* Fills out's bus_ fields, reconnects, round_trip, publish and
     * messages_refused (the metrics); NULL: the bus counts nothing. */
    void (*stats)(void *impl, struct cluster_metrics *out);
};

struct bus {
    const struct bus_ops *ops;
    void *impl;
    int shards; /* 1 .. BUS_SHARDS_MAX */
};

/* The shard of key (a game's id, a connection's "NODE/CONN") on b: a
 * stable hash (FNV-1a, 32 bits) of its bytes modulo b->shards, the same
 * on every node whose list of shards is the same. */
int bus_shard(const struct bus *b, const char *key);

/* ---- reading results --------------------------------------------------- */

/* True when v is a value of type t. */
bool bus_is(const struct bus_value *v, enum bus_type t);
/* Element i of array v, or NULL (not an array, or too short). */
const struct bus_value *bus_at(const struct bus_value *v, size_t i);
/* v's integer (a BUS_INT, or a BUS_STR of digits), or def. */
long long bus_int(const struct bus_value *v, long long def);
/* v's text (a BUS_STR), or def. */
const char *bus_str(const struct bus_value *v, const char *def);

#endif
