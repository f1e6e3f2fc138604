/*
 * tourney.h - what the arena and Swiss directors (arena_director.c,
 * swiss_director.c) do alike: growing their arrays, rendering a reply,
 * who may create an event, a player's rating for an event's clock,
 * starting a pairing's game, pushing the same standings bytes to every
 * watcher, and reading how a game ended from the store after a restart.
 * Only the event-loop thread calls it.
 */
#ifndef SERVER_HUB_TOURNEY_H
#define SERVER_HUB_TOURNEY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "hub/hub_internal.h"

/* Makes room for one more of n elements of size in *v (capacity *cap):
 * 0, or -1 when out of memory (nothing changed). */
int tourney_grow(void **v, size_t *cap, size_t n, size_t size);

/* o with "id" (when id has one), as compact JSON (malloc'ed); takes o.
 * NULL when o is NULL or out of memory. */
char *tourney_finish(json_t *o, const struct proto_id *id);

/* Sends o (taken) to s, with id, at store seq. */
void tourney_send(struct session *s, json_t *o, const struct proto_id *id,
                  uint64_t seq);

/* Sends text (taken; NULL: nothing) to the n watchers, one buffer. */
void tourney_push(struct hub *h, char *text, struct session *const *watchers,
                  size_t n, uint64_t seq);

/* True when s may create an event by the operator's policy
 * (arena_create) and m's clock; else sends the error (no_tournaments on
 * a node of a cluster or when off, needs_account, bad_clock). */
bool tourney_may_create(struct session *s, const struct proto_msg *m);

/* p's rating for a base + inc clock as the player's facts have it,
 * rounded; 1500 (a new player's) when unknown. */
int tourney_rating(const struct player *p, int base_s, int inc_s);

/* A new game of seats on a base + inc clock from the start position, not
 * announced yet (the caller journals it first, then calls
 * tourney_announce). NULL when refused. */
struct game *tourney_game(struct hub *h, int base_s, int inc_s,
                          const struct game_seat_init seats[2]);

/* Announces g and sends o (taken) to both of its seats' players. */
void tourney_announce(struct hub *h, struct game *g, json_t *o, uint64_t seq);

/* How a game that is not in memory ended, from its stored row: 1 with
 * *r, *no_start, *plies, *to_move and *ended_ms set, or 0 when it has
 * not ended (or cannot be read). Reads at once: at start-up only. */
int tourney_stored_end(struct hub *h, const char *gid, enum ending_result *r,
                       bool *no_start, int *plies, int *to_move,
                       int64_t *ended_ms);

#endif
