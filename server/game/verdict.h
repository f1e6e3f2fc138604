/*
 * verdict.h - flag-fall verdicts off the event loop. When a clock runs
 * out and the static tests say the opponent can still checkmate, the
 * rules core's bounded search of every reachable position may prove it
 * cannot (FIDE 6.9): from a millisecond to some tens of milliseconds, too
 * long to stall every other game for. A worker thread answers the
 * questions in order and hands the answers back to the loop thread, which
 * it wakes with the function given at start.
 *
 * Every answer comes within a bound, however many questions wait: each
 * question may wait at most `window` search nodes (VERDICT_WINDOW_NODES,
 * about VERDICT_BOUND_MS of one core) from its arrival to its answer, and
 * the searches share that (see verdict.c). A search cut short answers
 * "can mate", as an unproven position counts.
 */
#ifndef SERVER_VERDICT_H
#define SERVER_VERDICT_H

#include <stdbool.h>

#include "board.h"
#include "dead.h"

/* A question's answer may wait this long after its flag (the protocol's
 * promise), on a core of the development machine with a release build. */
#define VERDICT_BOUND_MS 100
/* ... which is about this many search nodes: ~90 ms at the ~2,800 nodes
 * a millisecond of the development machine (tests/bench/bench_flag),
 * leaving the rest for the flag's timer and the hand-over. */
#define VERDICT_WINDOW_NODES 250000L

struct verdicts;

/* An answer, valid during the collect callback. */
struct verdict {
    const char *gid;
    bool can_mate;
    struct dead_proof proof; /* why it cannot, when !can_mate */
    bool cut_short;          /* the budget ran out: "can mate" is unproven */
    long budget;             /* the search's node budget */
    long nodes;              /* nodes it explored */
    long waited; /* nodes (and question costs) the worker spent from
                       the question's arrival to this answer */
};

/* Starts the worker (with its own ~10 MB of search scratch). wake is
 * called from the worker after each answer. window_nodes: what a question
 * may wait (0: VERDICT_WINDOW_NODES). Returns NULL when out of memory or
 * no thread could start; verdicts_stop frees the result. */
struct verdicts *verdicts_start(void (*wake)(void), long window_nodes);

/* Asks whether `color` can still checkmate on b, for game gid (copied).
 * Returns 0, or -1 when too many questions wait or out of memory (the
 * caller then decides on the static tests itself). */
int verdicts_ask(struct verdicts *v, const char *gid, const struct board *b,
                 int color);

/* Calls answer(arg, a) on the calling thread for every answer ready,
 * oldest first. */
void verdicts_collect(struct verdicts *v,
                      void (*answer)(void *arg, const struct verdict *a),
                      void *arg);

/* Stops the worker after the search in progress (questions not yet
 * answered are dropped) and frees v. NULL is a no-op. */
void verdicts_stop(struct verdicts *v);

#endif
