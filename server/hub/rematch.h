/*
 * rematch.h - rematch offers after a game's end (PROTOCOL.md section 7).
 *
 * An offer is kept with its ended game's host record (the hub's, see
 * hub_internal.h) and lapses after LIMIT_REMATCH_MS, when a player
 * leaves the game or its last connection closes, or with the game. The
 * hub dispatches the commands here and calls the rest at those moments.
 * Only the event-loop thread calls these functions.
 */
#ifndef SERVER_REMATCH_H
#define SERVER_REMATCH_H

#include <stdint.h>

#include "proto.h"

struct hub;
struct game;
struct game_host;
struct player;
struct session;

/* rematch and rematch_decline: the checks in the protocol's order, then
 * an offer is made (both players hear rematch_offered), answered (a new
 * game, colours swapped, the same clock, start position and rated flag)
 * or declined. */
void rematch_command(struct session *s, const struct proto_msg *m,
                     int64_t now);

/* Ends gh's pending rematch offer, if any: both players forget it and,
 * unless reason is NULL, hear {"t":"rematch_declined",...,"reason":R}
 * with color (the player who declined or left; -1: null). */
void rematch_clear(struct hub *h, struct game_host *gh, int color,
                   const char *reason);

/* p's last connection closed: the offers to and from p lapse. */
void rematch_player_gone(struct hub *h, struct player *p);

/* The player pid sent leave for g: a pending offer lapses, and the
 * player may not offer again (a leave and offer loop would spam the
 * opponent). */
void rematch_left(struct hub *h, struct game *g, const char *pid);

#endif
