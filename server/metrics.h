/*
 * metrics.h - the server's counters and their Prometheus text rendering.
 * Only the event-loop thread updates or renders them.
 */
#ifndef SERVER_METRICS_H
#define SERVER_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"
#include "store.h"

#define METRICS_REASONS 13
#define METRICS_BUCKETS 14

/* A latency histogram: cumulative buckets are rendered from these. */
struct metrics_hist {
    uint64_t bucket[METRICS_BUCKETS + 1]; /* last: +Inf */
    uint64_t count;
    double sum;                           /* seconds */
};

struct metrics {
    int64_t connections;     /* open WebSocket connections */
    uint64_t connections_total;
    uint64_t messages_in;    /* text messages received */
    uint64_t moves;          /* moves played */
    uint64_t finished[METRICS_REASONS];
    uint64_t rejected[PROTO_CODE_COUNT];
    uint64_t out_queue_bytes; /* bytes waiting in all outbound queues */
    uint64_t closed_overflow;  /* connections cut for not reading */
    uint64_t closed_flood;     /* connections closed 1008 for flooding */
    /* WebSocket upgrades refused: Origin not allowed (403), server full
     * (503), too many from one address (429) */
    uint64_t refused_origin, refused_full, refused_per_ip;
    struct metrics_hist move;   /* handling one move message */
    struct metrics_hist commit; /* a move's arrival to its journal commit,
                                   when its `moved` may go out */
};

/* Counts a finished game under its protocol reason. */
void metrics_finished(struct metrics *m, const char *reason);

/* Records one latency of us microseconds in h. */
void metrics_hist_add(struct metrics_hist *h, int64_t us);

/* The journal writer's figures, copied from the store for rendering. */
struct metrics_store {
    size_t queue_depth;          /* store_queue_depth */
    struct store_timing timing;  /* store_timing */
    struct store_wal_stats wal;  /* store_wal_stats */
};

/* Renders the Prometheus text exposition (malloc'ed, caller frees);
 * the gauges that live elsewhere are passed in. */
char *metrics_render(const struct metrics *m, size_t live_games,
                     size_t open_seeks, const struct metrics_store *st);

#endif
