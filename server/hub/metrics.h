/*
 * metrics.h - the hub's counters (app/status.c renders them in /metrics,
 * with the network's, the store's and the process's own). Only the
 * event-loop thread updates them.
 */
#ifndef SERVER_METRICS_H
#define SERVER_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ending.h"
#include "proto.h"
#include "lib/hist.h"
#include "lib/netstats.h"

/* A cluster node's figures (router_ops.metrics fills them: the cluster's
 * counters, its gauges at the moment, its bus's). A node alone has none.
 * The strings are the cluster's, valid until the loop's next turn. */
struct cluster_metrics {
    const char *node, *incarnation;
    bool leased;             /* it holds its lease now */
    int64_t lease_age_ms;    /* since its lease was last renewed (or since
                               it started, never leased) */
    size_t hosted, followed; /* games hosted here; games of other nodes
                                followed by local connections */
    size_t remotes;          /* other nodes' connections mirrored here */
    size_t adopting;         /* adoptions under way */
    /* Counters: the cluster's files add to them (one line each). */
    uint64_t adopted[2];     /* games adopted: [0] taken over, [1] handed */
    uint64_t take_failed[2]; /* takes that failed: [0] a new game's, [1]
                                an adoption's */
    uint64_t handed_over;    /* games handed to another node (a shutdown) */
    uint64_t fenced;         /* games fenced here */
    uint64_t held;      /* other nodes' commands held: the lease in doubt */
    uint64_t refused;   /* other nodes' commands answered busy */
    uint64_t forwarded; /* local connections' commands to a host */
    uint64_t limit_takes[2]; /* shared limits' tokens: [0] taken here and
                                told, [1] other nodes' heard here */
    uint64_t leases_lost;    /* renewals that found the lease lapsed */
    uint64_t dead_nodes;     /* dead nodes this node's sweep removed
                                from the set (each by one node, once) */
    /* The bus (Redis). */
    bool bus_up;
    uint64_t reconnects;    /* times it came up after a loss */
    uint64_t bus_errors[3]; /* [0] error replies, [1] lost with the
                                 connection, [2] refused: not connected */
    size_t bus_queued;      /* commands waiting for the connection */
    size_t bus_pending;     /* sent, not answered yet */
    struct hist round_trip; /* a command's or script's round trip */
    struct hist publish;    /* a PUBLISH's round trip */
    /* Other nodes' messages dropped (cluster/sign.h's verdicts): [0]
     * forged, [1] stale, [2] replayed. */
    uint64_t messages_refused[3];
};

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
