/*
 * verdict.h - flag-fall verdicts off the event loop. When a clock runs
 * out, the rules core decides whether the opponent could still checkmate
 * (FIDE 6.9) with a bounded search of every reachable position
 * (dead_search_can_mate): from a millisecond to some tens of milliseconds,
 * too long to stall every other game for. A worker thread answers the
 * questions in order and hands the answers back to the loop thread, which
 * it wakes with the function given at start.
 */
#ifndef SERVER_VERDICT_H
#define SERVER_VERDICT_H

#include <stdbool.h>

#include "board.h"

struct verdicts;

/* Starts the worker (with its own ~9 MB of search scratch). wake is called
 * from the worker after each answer. Returns NULL when out of memory or
 * no thread could start; verdicts_stop frees the result. */
struct verdicts *verdicts_start(void (*wake)(void));

/* Asks whether `color` can still checkmate on b, for game gid (copied).
 * Returns 0, or -1 when too many questions wait or out of memory (the
 * caller then decides on the static tests itself). */
int verdicts_ask(struct verdicts *v, const char *gid, const struct board *b,
                 int color);

/* Calls answer(arg, gid, can_mate) on the calling thread for every answer
 * ready, oldest first. */
void verdicts_collect(struct verdicts *v,
                      void (*answer)(void *arg, const char *gid,
                                     bool can_mate),
                      void *arg);

/* Stops the worker after the search in progress (questions not yet
 * answered are dropped) and frees v. NULL is a no-op. */
void verdicts_stop(struct verdicts *v);

#endif
