/*
 * lichessapi.h - lichess's plain API endpoints (PROTOCOL.md, "HTTP API:
 * lichess's endpoints"): POST /api/challenge/{username} and
 * /api/challenge/{id}/accept|decline|cancel through the challenge
 * module (challenge.h), GET /api/account/playing, /api/users/status and
 * /api/user/{name}. The streams and a game's actions are another
 * module's. Event-loop thread only.
 */
#ifndef SERVER_HUB_LICHESSAPI_H
#define SERVER_HUB_LICHESSAPI_H

#include <stdbool.h>
#include <stdint.h>

#include "hub/http.h"

struct hub;

/* The scopes that let a token challenge and answer challenges (any of
 * them, as lichess: challenge:write, bot:play, board:play). */
unsigned lichessapi_play_scopes(void);

/* True when q is one of these routes (*r filled, or status 0: the answer
 * comes later through the hub), false when it is another's. */
bool lichessapi_http(struct hub *h, const struct http_request *q, int64_t now,
                     uint64_t later, struct http_reply *r);

#endif
