/*
 * botaccount.h - bot accounts: POST /api/bot/account/upgrade (see
 * botaccount.c, PROTOCOL.md "Bot accounts").
 */
#ifndef SERVER_HUB_BOTACCOUNT_H
#define SERVER_HUB_BOTACCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hub/http.h"

struct hub;
struct hub_module;

/* The module: its state is the caps' buckets (modules.c lists it). */
extern const struct hub_module hub_botaccount_module;

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

/* The caps on a bot account's games, checked when a challenge between a
 * and b (bot: a_bot, b_bot) is made and accepted: a bot playing
 * bot_max_games here already, or one with no bot-vs-bot game left of
 * bot_games_per_day (lichess's rule: only games between two bots count)
 * when both are bots. 0, or PROTO_TOO_MANY_GAMES with msg. Loop thread. */
int botaccount_may_play(struct hub *h, const char *a, bool a_bot,
                        const char *b, bool b_bot, int64_t now, char *msg,
                        size_t len);
/* A game between a and b started: a bot-vs-bot game counts in each
 * one's day. Loop thread. */
void botaccount_started(struct hub *h, const char *a, bool a_bot,
                        const char *b, bool b_bot, int64_t now);

#endif
