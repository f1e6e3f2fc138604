/*
 * botapi.h - the streaming half of lichess's Bot and Board APIs
 * (docs/PROTOCOL.md, "The lichess Bot and Board API"): GET
 * /api/stream/event, GET /api/bot|board/game/stream/{id} (NDJSON streams
 * held by net's ndjson.c through hub_env's stream functions) and the
 * POST actions on a game (move, resign, abort, draw), which run as the
 * WebSocket commands do. Event-loop thread only.
 */
#ifndef SERVER_HUB_BOTAPI_H
#define SERVER_HUB_BOTAPI_H

#include <stdbool.h>
#include <stdint.h>

#include "hub/http.h"
#include "hub/module.h"

extern const struct hub_module hub_botapi_module;

/* The HTTP API's routes of this module: true when q is one of them (*r
 * filled, or status 0: the answer comes later), false otherwise. */
bool botapi_http(struct hub *h, const struct http_request *q, int64_t now,
                 uint64_t later, struct http_reply *r);

/* The stream whose owner this is went (its client left, or it was cut):
 * net_handlers.stream_closed. */
void botapi_stream_closed(struct hub *h, void *owner);

/* The token whose SHA-256 is hash was revoked here: every stream of it
 * (event, game, board seek) ends now (botapi_tokens.c). */
void botapi_token_revoked(struct hub *h, const uint8_t hash[32]);

#endif
