/*
 * metrics.h - the hub's counters (app/status.c renders them in /metrics,
 * with the network's, the store's and the process's own). Only the
 * event-loop thread updates them.
 */
#ifndef SERVER_METRICS_H
#define SERVER_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "ending.h"
#include "proto.h"
#include "lib/hist.h"
#include "lib/netstats.h"

struct metrics {
    int64_t connections;    /* open WebSocket connections */
    int64_t lobby_watchers; /* connections watching the lobby (lobbyfeed) */
    uint64_t connections_total;
    uint64_t messages_in;              /* text messages received */
    uint64_t moves;                    /* moves played */
    uint64_t finished[ENDING_REASONS]; /* by reason */
    uint64_t rejected[PROTO_CODE_COUNT];
    uint64_t closed_flood; /* connections closed 1008 for flooding */
    /* accounts flagged by fairplay.c: [0] short games, [1] one opponent */
    uint64_t rating_suspects[2];
    int db_file_lost; /* the database file left its path */
    /* store reads (hub/reads.c): submitted, answered late (no answer by
     * the deadline), refused (the reader's queue full), refused by a
     * connection's or an address's budget (rate_limited); commands
     * answered no_such_game from the unknown games without a read */
    uint64_t reads, reads_late, reads_refused, reads_limited;
    uint64_t unknown_game_hits;
    struct hist lag_credit; /* each move's lag credit (game_move_lag) */
    struct hist move;       /* handling one move message played here */
    struct hist commit;     /* a move's arrival to its journal commit,
                               when its `moved` may go out */
    struct net_stats net;   /* the network's (net_attach) */
};

/* Counts a finished game under its reason (labelled with the table's
 * metrics label); anything not a reason is ignored. */
static inline void metrics_finished(struct metrics *m,
                                    enum ending_reason reason)
{
    if (ending_get(reason))
        m->finished[reason]++;
}

#endif
