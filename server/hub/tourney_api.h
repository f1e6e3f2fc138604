/*
 * tourney_api.h - the tournaments' HTTP API (PROTOCOL.md section 9,
 * "Tournaments over HTTP"): lichess's paths to create, join, withdraw
 * from, start and end an arena or a Swiss event, to read one as JSON,
 * the arenas as a list, and an event's results as NDJSON.
 *
 * Each request runs the WebSocket command it stands for (arena_join,
 * swiss_results, ...) on a session of its own, the token's account's (a
 * guest's for a GET), so every check and cap is the command's. In a
 * cluster, a command for an event another node directs is relayed to
 * that node (tell_all, tag TOURNEY_API_TELL), which runs it on a session
 * of the same player and tells the answer back. Event-loop thread only.
 */
#ifndef SERVER_HUB_TOURNEY_API_H
#define SERVER_HUB_TOURNEY_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hub/http.h"
#include "hub/module.h"

/* The module's tell tag: relayed commands and their answers. */
#define TOURNEY_API_TELL 'U'

extern const struct hub_module hub_tourney_api_module;

/* The module's routes: true when q is one of them (*r filled, or status
 * 0: the answer comes later through the hub), false when it is another
 * route's. */
bool tourney_api_http(struct hub *h, const struct http_request *q,
                      int64_t now, uint64_t later, struct http_reply *r);

/* True when s is a session of this module's (one request's). */
bool tourney_api_session(const struct session *s);

/* s's command (text, len bytes) is for event eid, which this node does
 * not direct (known: it has a copy of it): relays it to the director,
 * whose answer reaches s. A command relayed here is not relayed again
 * (answered busy). */
void tourney_api_forward(struct hub *h, struct session *s, const char *eid,
                         const char *text, size_t len, bool known);

#endif
