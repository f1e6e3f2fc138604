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

/* One side of a challenge made through the HTTP API. */
struct challenge_who {
    const char *pid, *name;
    bool account;
    bool bot; /* a bot account (also known from its player's facts) */
};

/* How an HTTP API call of this module ends: code 0 with json (malloc'ed,
 * taken; NULL: {"ok":true}), or an enum proto_code with msg
 * (PROTO_NO_SUCH_CHALLENGE: none pending for the caller with that id).
 * Called once, within the call or later (a cluster's router answered),
 * with later as given. */
typedef void challenge_done_fn(struct hub *h, uint64_t later, int code,
                               const char *msg, char *json);

/* POST /api/challenge/{username}: from challenges to (an account, not
 * necessarily online) as a page's `challenge` would, after the same
 * rate and caps; both players' pages hear it (on every node); done
 * gets the ChallengeJson. */
void challenge_api_create(struct hub *h, const struct challenge_who *from,
                          const struct challenge_who *to,
                          const struct clock_spec *clock, int color,
                          bool rated, int64_t now, challenge_done_fn *done,
                          uint64_t later);

/* POST /api/challenge/{id}/accept by me, its challenged player: the
 * game starts here (the games' caps checked). */
void challenge_api_accept(struct hub *h, const char *id,
                          const struct challenge_who *me, int64_t now,
                          challenge_done_fn *done, uint64_t later);

/* GET /api/challenge: pid's pending challenges as lichess's
 * {"in":[ChallengeJson...],"out":[...]}, each list oldest first, to
 * done (at once on a node alone; in a cluster once the router has
 * listed them, every node's: PROTO_BUSY when it could not). */
void challenge_api_list(struct hub *h, const char *pid,
                        challenge_done_fn *done, uint64_t later);

/* POST /api/challenge/{id}/decline (decline: enum proto_decline) by its
 * challenged player pid, or /cancel (decline -1) by its challenger. */
void challenge_api_end(struct hub *h, const char *id, const char *pid,
                       int decline, challenge_done_fn *done, uint64_t later);

/* In a cluster, challenge id may be another node's: 1 when it is in
 * this node's memory (then not called); 0 when its record is being read
 * (then(h, arg) is called once it is here, or known not pending); -1
 * when there is nothing to read (a node alone) or it cannot be asked. */
int challenge_fetch(struct hub *h, const char *id,
                    void (*then)(struct hub *h, void *arg), void *arg);

/* A dead node's challenge id (from -> to) was closed by the router (a
 * cluster's sweep): its copy here ends, expired, and its players' other
 * nodes are told. */
void challenge_lost(struct hub *h, const char *id, const char *from,
                    const char *to);

/* A dead node's challenge (its record, len bytes), whose lapse had not
 * passed, is this node's from now on (the router re-homed it: a
 * cluster's sweep): held here as made here, its lapse armed (when it
 * had none, its challenger was on the dead node: a full lapse). */
void challenge_adopt(struct hub *h, const char *record, size_t len);

#endif
