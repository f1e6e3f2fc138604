/*
 * botapi_json.h - lichess's JSON of the Bot and Board API's lines
 * (docs/PROTOCOL.md, "The lichess Bot and Board API"), built from a game
 * in memory or from our protocol's messages, for hub/botapi.c. Each
 * returns a new jansson object (the caller's), or NULL when out of
 * memory. Event-loop thread only.
 */
#ifndef SERVER_HUB_BOTAPI_JSON_H
#define SERVER_HUB_BOTAPI_JSON_H

#include <jansson.h>
#include <stdint.h>

struct clock_spec;
struct game;

/* gameState of g at now (monotonic ms, for the clocks). */
json_t *botapi_game_state(struct game *g, int64_t now);

/* gameFull of g at now. */
json_t *botapi_game_full(struct game *g, int64_t now);

/* The event stream's `type` (gameStart, gameFinish) of g for player pid
 * (a seat of g). */
json_t *botapi_game_event(struct game *g, const char *type, const char *pid,
                          int64_t now);

/* Our protocol's challenge object c (PROTOCOL.md, "Challenges") as
 * lichess's ChallengeJson for pid (its direction), or NULL when c is
 * not one. */
json_t *botapi_challenge_json(json_t *c, const char *pid);

/* lichess's speed of a clock ("bullet", ...: its estimate, initial + 40
 * increments; "correspondence" per move). */
const char *botapi_speed(const struct clock_spec *c);

#endif
