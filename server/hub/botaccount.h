/*
 * botaccount.h - bot accounts: POST /api/bot/account/upgrade (see
 * botaccount.c, PROTOCOL.md "Bot accounts").
 */
#ifndef SERVER_HUB_BOTACCOUNT_H
#define SERVER_HUB_BOTACCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "hub/http.h"

struct hub;

/* The route of this module: true when q is it (*r filled, or status 0:
 * the answer comes later through the hub), false when q is another
 * route's. Loop thread. */
bool botaccount_http(struct hub *h, const struct http_request *q, int64_t now,
                     uint64_t later, struct http_reply *r);

struct session;
struct proto_msg;

/* True (s answered bot_api_only) when m would start a game (seek,
 * accept, invite, join, rematch, computer, challenge, challenge_accept)
 * and s's player is a bot account: a bot plays through the API only.
 * Loop thread (the hub's dispatch). */
bool botaccount_refused(struct session *s, const struct proto_msg *m);

#endif
