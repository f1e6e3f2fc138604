/*
 * loadgen_run.h - one load-generator process: a libwebsockets client
 * context holding its share of the games (or of the connections), driven
 * by its parent through two pipes.
 *
 * Life of a process: connect every player (at most `max_connecting`
 * handshakes at a time), pair them into games, and write 'R' on out_fd
 * when every game has started (or the ramp timed out). A 'G' on ctl_fd
 * opens the measurement window: the counters restart, and after
 * duration_s the process writes one struct lg_stats on out_fd. It keeps
 * its connections (and its load) until ctl_fd reaches end of file, then
 * closes them and returns.
 */
#ifndef LOADGEN_RUN_H
#define LOADGEN_RUN_H

#include <stdint.h>

#include "loadgen_hist.h"
#include "loadgen_msg.h"

enum lg_mode {
    LG_MODE_PLAY,    /* games played, replaced when they end */
    LG_MODE_CONNECT, /* connect, hello, welcome, close, again */
    LG_MODE_IDLE,    /* games with both first moves made, then silence */
    LG_MODE_ECHO,    /* against an echo server: each connection sends a
                        move-sized text, waits for it back, again */
};

#define LG_MAX_PORTS 8

struct lg_config {
    enum lg_mode mode;
    char host[256];
    int port;
    /* >0: the nodes of a cluster on host: the connections of game slot K
     * go to ports[(K + k) % n_ports], k their index in the slot (A 0, B 1,
     * spectators 2...), so a game's players sit on different nodes */
    int ports[LG_MAX_PORTS];
    int n_ports;
    /* a connection cut mid-game reconnects (to the next port) with its
     * token, resyncs with `sync` and plays on; a move without its `moved`
     * for LG_RESYNC_S is resynced too. Without it the slot starts over. */
    bool resume;
    char path[256];
    int games;            /* this process's games */
    int first_game;       /* global index of its first game (names, seeds) */
    int spectators;       /* per game */
    int connections;      /* connect mode: attempts kept in flight; echo
                             mode: connections */
    bool relay;           /* echo mode against echo_server --relay:
                             connections 2K and 2K+1 take turns */
    int move_interval_ms; /* mean time between moves of a game; 0: at once */
    double duration_s;    /* length of the measurement window */
    uint64_t seed;
    long plies;         /* >0: each slot's moves in all, then it is silent */
    int src_addrs;      /* >1: bind to 127.0.0.1 + (connection % N) */
    int max_connecting; /* handshakes in progress at once */
    double ramp_timeout_s;
    int proc_index; /* for messages */
    int verbose;    /* progress on stderr all along, not only ramp */
    int use_libev;  /* event loop: libev (epoll) rather than poll() */
    int acked_fd;   /* >= 0 (--acked): a line "GID PLY" per game played,
                       the highest ply a `moved` or `state` of it showed
                       (each acknowledged: the server sends nothing about
                       a game before it is stored) */
    int ctl_fd;     /* read: 'G', then end of file */
    int out_fd;     /* write: 'R', then struct lg_stats */
};

/* What one process measured in its window; several merge by adding. */
struct lg_stats {
    uint64_t moves; /* moves whose mover saw its own `moved` */
    uint64_t games_started;
    uint64_t games_ended;
    uint64_t errors[LG_ERR_COUNT];
    uint64_t unexpected_closes; /* established connections the server cut */
    uint64_t connect_failures;  /* attempts that never got established */
    uint64_t stalls;            /* games without progress, restarted */
    uint64_t unanswered;        /* moves waiting 5 s or more at the end */
    uint64_t late_moves;        /* open loop: moves sent after their time */
    uint64_t queue_full;        /* client-side outbound ring overflowed */
    uint64_t shutdowns;         /* {"t":"shutdown"} received */
    uint64_t connects;          /* connect mode: hello -> welcome done */
    uint64_t echoes;            /* echo mode: round trips done */
    uint64_t connections;       /* established at the end of the window */
    uint64_t games_live;        /* games being played at the end */
    uint64_t cpu_us;            /* this process's CPU time in the window */
    uint64_t resets;            /* slots given up (error, close, stall) */
    /* --resume: connections re-established and resynced, resyncs of a
     * move without its `moved`, moves acknowledged on a connection (a
     * `moved` or `state` it read) that its own later resync's `state` no
     * longer had, games found ended while away and how many of them the
     * server ended as abandoned; resync states behind what the other
     * connection of the slot had seen (overtaken, left alone). Whether
     * an acknowledged move is stored is --acked's to say. */
    uint64_t reconnects, resumes, resyncs, lost_moves, ended_away, abandoned,
        stale_states;
    double window_s;
    double ramp_s;          /* start to 'R' */
    uint64_t ramp_games;    /* games in play at 'R' (all, unless the ramp
                               timed out) */
    struct lg_hist own;     /* move written -> mover's own `moved` */
    struct lg_hist opp;     /* move written -> opponent's `moved` */
    struct lg_hist spec;    /* move written -> a spectator's `moved` */
    struct lg_hist welcome; /* connect mode: connect -> `welcome` */
    struct lg_hist echo;    /* echo mode: message written -> echo */
};

/* Runs one process as described above. Returns 0, or 1 when the client
 * context could not be created or memory ran out. */
int lg_run(const struct lg_config *cfg);

#endif
