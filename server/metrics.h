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
#include "hist.h"
#include "store.h"

struct store;

#define METRICS_CLOSE_CODES 11   /* WebSocket close codes counted, "other" */
#define METRICS_HTTP_STATUSES 10 /* HTTP statuses counted, "other" */

/* What an HTTP request asked for (the route label). */
enum metrics_route {
    METRICS_ROUTE_API_GAME,     /* /api/games/GID */
    METRICS_ROUTE_PGN,          /* /api/games/GID/pgn */
    METRICS_ROUTE_PLAYER_GAMES, /* /api/players/PID/games */
    METRICS_ROUTE_STATIC,       /* the client's files, /g/GID */
    METRICS_ROUTE_HEALTHZ,
    METRICS_ROUTE_METRICS,
    METRICS_ROUTE_REDIRECT, /* the plain-HTTP redirect listener */
    METRICS_ROUTE_OTHER,    /* any other /api/ path */
    METRICS_ROUTES
};

struct metrics {
    int64_t connections; /* open WebSocket connections */
    uint64_t connections_total;
    uint64_t messages_in;              /* text messages received */
    uint64_t moves;                    /* moves played */
    uint64_t finished[ENDING_REASONS]; /* by reason */
    uint64_t rejected[PROTO_CODE_COUNT];
    uint64_t out_queue_bytes; /* bytes waiting in all outbound queues */
    uint64_t closed_overflow; /* connections cut for not reading */
    uint64_t closed_flood;    /* connections closed 1008 for flooding */
    /* WebSocket upgrades refused: Origin not allowed (403), server full
     * (503), too many from one address (429) */
    uint64_t refused_origin, refused_full, refused_per_ip;
    int db_file_lost;           /* the database file left its path */
    uint64_t refused_http_rate; /* API requests over an address's rate */
    struct hist move;           /* handling one move message */
    struct hist commit;         /* a move's arrival to its journal commit,
                                   when its `moved` may go out */
    struct hist loop_lag;       /* how late a periodic timer fires */
    uint64_t ws_closes[METRICS_CLOSE_CODES];
    uint64_t http[METRICS_ROUTES][METRICS_HTTP_STATUSES];
};

/* Counts a finished game under its reason (labelled with the table's
 * metrics label); anything not a reason is ignored. */
void metrics_finished(struct metrics *m, enum ending_reason reason);

/* Counts a closed WebSocket under its close code (1006: closed without a
 * close frame either way). */
void metrics_ws_close(struct metrics *m, int code);

/* Counts an HTTP response. */
void metrics_http(struct metrics *m, enum metrics_route route, int status);

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
