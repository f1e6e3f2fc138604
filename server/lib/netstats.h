/*
 * netstats.h - what the network counts: its outbound queues, the
 * connections it cut or refused, WebSocket closes by code, HTTP answers
 * by route and status, how long moves took on the loop and to commit, and
 * the loop's lag. net.c and its parts write them on the event-loop thread
 * (through the pointer net_attach takes); metrics.c renders them. Every
 * label takes values from a fixed set (below), so no request can grow
 * the number of series.
 */
#ifndef SERVER_NETSTATS_H
#define SERVER_NETSTATS_H

#include <stdint.h>

#include "lib/hist.h"

#define NETSTATS_CLOSE_CODES 11   /* close codes counted, and "other" */
#define NETSTATS_HTTP_STATUSES 10 /* HTTP statuses counted, and "other" */

/* What an HTTP request asked for (the route label). */
enum netstats_route {
    NETSTATS_ROUTE_API_GAME,     /* /api/games/GID */
    NETSTATS_ROUTE_PGN,          /* /api/games/GID/pgn */
    NETSTATS_ROUTE_PLAYER_GAMES, /* /api/players/PID/games */
    NETSTATS_ROUTE_PLAYER,       /* /api/players/PID, .../ratings/CAT */
    NETSTATS_ROUTE_LEADERBOARD,  /* /api/leaderboard/CAT */
    NETSTATS_ROUTE_STATIC,       /* the client's files, /g/GID */
    NETSTATS_ROUTE_HEALTHZ,
    NETSTATS_ROUTE_READYZ,
    NETSTATS_ROUTE_METRICS,
    NETSTATS_ROUTE_REDIRECT, /* the plain-HTTP redirect listener */
    NETSTATS_ROUTE_OTHER,    /* any other /api/ path */
    NETSTATS_ROUTES
};

struct net_stats {
    uint64_t out_queue_bytes; /* bytes waiting in all outbound queues */
    uint64_t closed_overflow; /* connections cut for not reading */
    uint64_t streams;         /* open NDJSON streams (net/ndjson.c) */
    /* WebSocket upgrades refused: Origin not allowed (403), server full
     * (503), too many from one address (429) */
    uint64_t refused_origin, refused_full, refused_per_ip;
    uint64_t refused_http_rate; /* API requests over an address's rate */
    struct hist loop_lag;       /* how late a periodic timer fires */
    uint64_t ws_closes[NETSTATS_CLOSE_CODES];
    uint64_t http[NETSTATS_ROUTES][NETSTATS_HTTP_STATUSES];
};

/* The labels: ws_closes[i] counts netstats_close_codes[i] (the last, any
 * other code), http[r][i] route netstats_routes[r] and status
 * netstats_http_statuses[i] (the last, any other). */
extern const int netstats_close_codes[NETSTATS_CLOSE_CODES - 1];
extern const int netstats_http_statuses[NETSTATS_HTTP_STATUSES - 1];
extern const char *const netstats_routes[NETSTATS_ROUTES];

/* Counts a closed WebSocket under its close code (1006: closed without a
 * close frame either way). */
void netstats_ws_close(struct net_stats *s, int code);

/* Counts an HTTP response. */
void netstats_http(struct net_stats *s, enum netstats_route route,
                   int status);

#endif
