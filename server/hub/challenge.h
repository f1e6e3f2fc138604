/*
 * challenge.h - challenges to a named player (PROTOCOL.md,
 * "Challenges"): one player asks another, by name or PID, for a game
 * with a clock, a colour and rated or casual; the other accepts (the game
 * starts as a paired seek's does), declines with one of lichess's
 * reasons, or the challenger cancels; a challenge whose challenger has no
 * connection left lapses challenge_lapse_ms later. The module
 * (challenge.c, hub_challenge_module) answers the commands; the
 * functions here are for the other ways in to the same object (the HTTP
 * API and the bots, later). Only the event-loop thread calls them.
 */
#ifndef SERVER_HUB_CHALLENGE_H
#define SERVER_HUB_CHALLENGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct hub;
struct challenge;

/* The pending challenge id, or NULL. */
const struct challenge *challenge_find(struct hub *h, const char *id);

/* c as the wire shows it (pointers into c: valid while it is pending). */
void challenge_view(struct hub *h, const struct challenge *c,
                    struct proto_challenge *out);

/* How many challenges are pending on this node. */
size_t challenge_count(struct hub *h);

#endif
