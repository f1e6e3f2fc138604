/*
 * metrics.h - the server's counters and their Prometheus text rendering,
 * with the process's own figures (memory, descriptors, CPU, start time,
 * read from /proc when rendered) and the store's failure counts. Only
 * the event-loop thread updates or renders them.
 *
 * Every label takes values from a fixed set (routes, status codes, close
 * codes below), so no request can grow the number of series.
 */
#ifndef SERVER_METRICS_H
#define SERVER_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "ending.h"
#include "proto.h"
#include "lib/hist.h"
#include "lib/netstats.h"
#include "store/store.h"

struct store;

struct metrics {
    int64_t connections;    /* open WebSocket connections */
    int64_t lobby_watchers; /* connections watching the lobby (lobbyfeed) */
    uint64_t connections_total;
    uint64_t messages_in;              /* text messages received */
    uint64_t moves;                    /* moves played */
    uint64_t finished[ENDING_REASONS]; /* by reason */
    uint64_t rejected[PROTO_CODE_COUNT];
    uint64_t closed_flood;  /* connections closed 1008 for flooding */
    int db_file_lost;       /* the database file left its path */
    struct hist lag_credit; /* each move's lag credit (game_move_lag) */
    struct hist move;       /* handling one move message played here */
    struct hist commit;     /* a move's arrival to its journal commit,
                               when its `moved` may go out */
    struct net_stats net;   /* the network's (net_attach) */
};

/* Counts a finished game under its reason (labelled with the table's
 * metrics label); anything not a reason is ignored. */
void metrics_finished(struct metrics *m, enum ending_reason reason);

/* The journal writer's figures, copied from the store for rendering. */
struct metrics_store {
    size_t queue_depth;                  /* store_queue_depth */
    struct store_timing timing;          /* store_timing */
    struct store_wal_stats wal;          /* store_wal_stats */
    uint64_t failures[STORE_FAIL_KINDS]; /* store_failures */
};

/* Renders the Prometheus text exposition (malloc'ed, caller frees);
 * the gauges that live elsewhere are passed in, and the store's queue
 * depth and failures read from st. */
char *metrics_render(const struct metrics *m, size_t live_games,
                     size_t open_seeks, size_t subscriptions,
                     const struct metrics_store *st);

#endif
