/*
 * tourney_api_internal.h - what tourney_api.c (the calls, the relay, the
 * routes) and tourney_api_render.c (lichess's shapes) share. Event-loop
 * thread only.
 */
#ifndef SERVER_HUB_TOURNEY_API_INTERNAL_H
#define SERVER_HUB_TOURNEY_API_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

struct hub;

/* GET .../games: the most games one answer reads (its `max`, 1 up to
 * this; lichess streams them all, but each is a row read). */
#define TOURNEY_API_GAMES_MAX 300

/* How a call's answer is rendered. */
enum tourney_api_kind {
    TOURNEY_API_OK,      /* {"ok":true} */
    TOURNEY_API_CREATED, /* the created event */
    TOURNEY_API_EVENT,   /* the event, from its standings' first page */
    TOURNEY_API_LIST,    /* the arenas, by status */
    TOURNEY_API_RESULTS, /* every row, a line each (at most nb; 0: all) */
    TOURNEY_API_GAMES,   /* the games' PGN (at most nb), from the store */
};

/* {"error":words,"code":code?} (malloc'ed; NULL when out of memory). */
char *tourney_api_error_body(const char *words, const char *code);

/* Answers the request later with status and that error. */
void tourney_api_fail(struct hub *h, uint64_t later, int status,
                      const char *words, const char *code);

/* Answers the request later from text, a command's answer (an error's
 * by its code's status), rendered as kind says (swiss: a Swiss event's);
 * a TOURNEY_API_GAMES answer after its read. */
void tourney_api_render(struct hub *h, uint64_t later,
                        enum tourney_api_kind kind, bool swiss, int nb,
                        const char *text);

#endif
