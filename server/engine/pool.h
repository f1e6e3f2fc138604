/*
 * pool.h - the engine pool: UCI engines (Debian's Stockfish by default)
 * as child processes, each driven by a worker thread of its own, and a
 * bounded queue of requests from the event loop, which never waits on
 * an engine: it asks (engine_pool_ask), and the answer comes back on
 * the loop as the store's commits do, through a wake-up
 * (engine_pool_collect from the hub's wake).
 *
 * A request is a position (a start FEN and the moves from it), a budget
 * (a move time, a depth, nodes, the clocks), engine options (Skill Level
 * ...), a deadline and a priority; its answer is the best move, the last
 * score and principal variation the engine gave, and its name. Playing
 * the computer (hub/computer.c) asks for one move per turn; analysis
 * asks for many positions with a node budget, through the same call.
 *
 * Engines are started on their first request (an idle server runs
 * none) and kept. An engine that crashes, hangs past its deadline,
 * answers an illegal move (checked with the rules core) or garbage is
 * killed (`quit`, then SIGKILL) and the request tried once more on a
 * fresh one; each such restart is logged (event=engine_restart) and
 * counted by its fault. A request whose second try fails too is
 * answered ENGINE_FAILED: every request gets exactly one answer.
 *
 * Threads: engine_pool_start, _ask, _collect, _stats and _stop on the
 * loop (the owner's thread); the workers call the wake function given
 * at start. The process must ignore SIGPIPE or the workers block it
 * (they do, uciproc.h).
 */
#ifndef SERVER_ENGINE_POOL_H
#define SERVER_ENGINE_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/uci.h"
#include "lib/hist.h"

/* How long an engine may take to start (exec, `uci` to `uciok`, and the
 * first `readyok`: Stockfish loads its network file then). */
#define ENGINE_START_MS 10000
/* Beyond a request's move time, how long its engine may take before it
 * is told to stop: a loaded machine's scheduling, the pipes, a `stop`
 * that comes late. */
#define ENGINE_SLACK_MS 1000
/* After `stop`, the wait for its `bestmove` before the engine counts as
 * hung. */
#define ENGINE_STOP_MS 500
/* After `quit`, the wait for an engine to exit before SIGKILL. */
#define ENGINE_QUIT_MS 300
/* Options a request may set. */
#define ENGINE_OPTIONS_MAX 4

/* Who waits for the answer: a move in a game on the clock goes ahead of
 * analysis, and only it may fill the last half of the queue. */
enum engine_prio { ENGINE_PRIO_PLAY = 0, ENGINE_PRIO_ANALYSIS = 1 };

enum engine_status {
    ENGINE_OK = 0,  /* a legal best move */
    ENGINE_FAILED,  /* both tries failed (fault says how the last did) */
    ENGINE_EXPIRED, /* its deadline passed before an engine took it */
};

/* Why an engine was killed (the label of its restarts). */
enum engine_fault {
    ENGINE_FAULT_NONE = 0,
    ENGINE_FAULT_CRASH,   /* it exited, or closed its output */
    ENGINE_FAULT_HANG,    /* no answer by the deadline, nor after stop */
    ENGINE_FAULT_ILLEGAL, /* a best move the position does not allow */
    ENGINE_FAULT_GARBAGE, /* a bad bestmove, a line too long or not text */
    ENGINE_FAULT_START,   /* it did not start (exec failed, no uciok) */
    ENGINE_FAULTS
};

/* "crash", "hang", "illegal", "garbage", "start" ("none" for NONE). */
const char *engine_fault_name(enum engine_fault f);

/* A `setoption name NAME value VALUE`. An engine keeps its options: the
 * pool sends only those that differ from what that engine was last
 * told. */
struct engine_option {
    char name[32];
    char value[16];
};

struct engine_answer;

struct engine_ask {
    const char *tag;   /* the requester's key (a GID; copied, at most 32
                          bytes): logged, and an engine whose last request
                          had another tag first hears `ucinewgame` */
    uint64_t cookie;   /* the requester's, handed back */
    const char *fen;   /* the start position; NULL or "": the standard */
    const char *moves; /* UCI moves from it, separated by spaces ("" or
                          NULL: none); copied */
    struct engine_option options[ENGINE_OPTIONS_MAX];
    int n_options;
    struct uci_budget budget; /* uci_budget_limited */
    /* Monotonic ms: a request still waiting then is answered EXPIRED;
     * a search still running then is stopped. A move time in the budget
     * stops it sooner: an engine gets movetime + ENGINE_SLACK_MS. */
    int64_t deadline_ms;
    enum engine_prio prio;
    /* Called on the loop by engine_pool_collect with the answer (valid
     * during the call). */
    void (*done)(void *arg, const struct engine_answer *a);
    void *arg;
};

struct engine_answer {
    enum engine_status status;
    enum engine_fault fault; /* ENGINE_FAILED: how the last try failed */
    const char *tag;
    uint64_t cookie;
    char bestmove[UCI_MAX]; /* ENGINE_OK: legal in the position */
    struct uci_info info;   /* the last info line with a score (and its
                                pv), has_score false when none came */
    const char *engine;     /* the engine's `id name` ("" unknown) */
    int64_t think_ms;       /* `go` to `bestmove` of the try that answered */
    int tries;              /* 1 or 2 (0: it never ran) */
};

struct engine_pool_config {
    const char *path; /* the engine's program (copied) */
    int engines;      /* at most this many at once, >= 1 */
    size_t queue;     /* requests that may wait, >= 2 */
    void (*wake)(void);
    /* The waits above, 0 for ENGINE_START_MS, ENGINE_SLACK_MS,
     * ENGINE_STOP_MS (the tests shorten them). */
    int64_t start_ms, slack_ms, stop_ms;
};

struct engine_pool_stats {
    int engines;                      /* the most at once */
    int running;                      /* processes alive now */
    size_t queued;                    /* requests waiting */
    uint64_t restarts[ENGINE_FAULTS]; /* engines killed, by fault */
    uint64_t answers[3];              /* by enum engine_status */
    struct hist think;                /* think_ms of each ENGINE_OK */
};

struct engine_pool;

/* Starts the workers (no engine yet). NULL when out of memory or a
 * thread could not start. */
struct engine_pool *engine_pool_start(const struct engine_pool_config *c);

/* Queues q (copied). 0, or -1 when the queue is full (for analysis: its
 * first half), the position or the budget is unusable, or out of memory;
 * the caller is then never called back for it. */
int engine_pool_ask(struct engine_pool *p, const struct engine_ask *q);

/* True when the queue is at least half full: a new computer game is
 * refused then (its moves could wait behind too many). */
bool engine_pool_saturated(struct engine_pool *p);

/* Calls each answer's done on the calling thread (the loop), oldest
 * first: every answer goes to its own requester, so each user of the
 * pool may call this from its wake (the first takes them all). Cheap
 * when none waits; NULL: a no-op. */
void engine_pool_collect(struct engine_pool *p);

/* The figures of /metrics. */
void engine_pool_stats(struct engine_pool *p, struct engine_pool_stats *out);

/* Stops the searches running, kills every engine, joins the workers and
 * frees p; requests not answered are dropped without their done. NULL:
 * a no-op. */
void engine_pool_stop(struct engine_pool *p);

#endif
