/*
 * challenge_internal.h - what challenge.c (the module: its state and the
 * WebSocket's commands), challenge_api.c (the HTTP API's ways in) and
 * challenge_nodes.c (the challenges across the nodes of a cluster)
 * share: the records and the steps each calls of the others. Only the event-loop thread calls these functions.
 */
#ifndef SERVER_HUB_CHALLENGE_INTERNAL_H
#define SERVER_HUB_CHALLENGE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hub/challenge.h"
#include "hub/module.h"
#include "lib/table.h"
#include "proto.h"

struct hub;
struct player;
struct ratelimit;
struct session;

/* A pending challenge, this node's (home) or a copy of another's. */
struct challenge {
    struct hub *h;
    char id[PROTO_KEY_MAX + 1];
    char from[PROTO_KEY_MAX + 1], from_name[PROTO_NAME_MAX + 1];
    char to[PROTO_KEY_MAX + 1], to_name[PROTO_NAME_MAX + 1];
    bool from_account, to_account;
    bool from_bot, to_bot; /* bot accounts ("bot", "title":"BOT") */
    struct clock_spec clock;
    int color; /* enum proto_color: the challenger's wish */
    bool rated;
    struct hub_alarm *lapse; /* armed while the challenger is away */
    int64_t lapse_wall;      /* then: when it lapses (Unix ms), else 0 */
    bool home;               /* made here (its lapse runs here); false: a
                                copy of another node's (a cluster) */
    bool ending;             /* a close is on its way (cluster) */
    bool elsewhere; /* its lapse found the challenger on another node */
};

struct challenge_op;

/* The module's state. */
struct challenges {
    struct table byid;    /* id -> struct challenge */
    struct table parties; /* pid -> its side (challenge.c) */
    struct ratelimit *made;
    struct challenge_op *ops; /* waiting for the router (a cluster's) */
    size_t nops;
    bool no_fetch; /* a fetched command runs again: no second fetch */
};

/* The tell of a challenge to its players' other nodes (module.h). */
#define CHALLENGE_TELL 'X'
/* Steps waiting for the router at once (a cluster): past them a command
 * is answered busy. */
#define CHALLENGE_OPS_MAX 10000

extern const struct hub_module hub_challenge_module;

/* ---- challenge.c --------------------------------------------------------- */

/* The checks of a challenge's players (from, to), then the challenge is
 * made (*out, not listed: challenge_propose opens it); nobody is told
 * yet. 0, or an enum proto_code with msg (PROTO_BUSY: out of memory). */
int challenge_make(struct hub *h, const struct challenge_who *from,
                   const struct challenge_who *to,
                   const struct clock_spec *clock, int color, bool rated,
                   struct challenge **out, char *msg, size_t len);
/* pid's pending challenges in this node's memory, both ways, oldest
 * first (*n of them; valid until the next change). */
struct challenge *const *challenge_party(struct hub *h, const char *pid,
                                         size_t *n);

/* Both players' connections here hear c as v shows it; s (NULL: none)
 * gets it with id, its player's other connections without. */
void challenge_tell(struct hub *h, const struct challenge *c,
                    const struct proto_challenge *v, struct session *s,
                    const struct proto_id *id);
/* c joins the pending ones: 0, or -1 when out of memory (c freed). */
int challenge_list_add(struct hub *h, struct challenge *c);
/* c leaves this node's memory, nobody told (freed). */
void challenge_forget(struct hub *h, struct challenge *c);
/* c ends here with status (a decline's reason, an accept's game): its
 * players' connections here hear it (s with id), and it is freed. */
void challenge_end_here(struct hub *h, struct challenge *c,
                        const char *status, int decline, const char *game,
                        struct session *s, const struct proto_id *id);
/* The same, and its players' other nodes are told (a cluster). */
void challenge_finish(struct hub *h, struct challenge *c, const char *status,
                      int decline, const char *game, struct session *s,
                      const struct proto_id *id);
/* pid's challenges v (n of them, both ways, oldest first) to s as our
 * protocol's `challenges`, with id. */
void challenge_send_list(struct hub *h, struct session *s, const char *pid,
                         struct challenge *const *v, size_t n,
                         const struct proto_id *id);
/* c accepted by pid (name): its game starts here and c ends (finish).
 * The game's GID, or NULL when the server is busy (s answered). */
const char *challenge_start(struct hub *h, struct challenge *c,
                            const char *pid, const char *name,
                            struct session *s, const struct proto_id *id,
                            int64_t now);

/* ---- challenge_api.c ----------------------------------------------------- */

/* {"in":[...],"out":[...]} of pid's challenges v (nv of them), lichess's
 * ChallengeJson each (malloc'ed; NULL when out of memory). */
char *challenge_render_list(struct hub *h, const char *pid,
                            struct challenge *const *v, size_t nv);

/* ---- challenge_nodes.c ------------------------------------------------- */

/* True in a cluster: the router counts and ends the challenges. */
bool challenge_clustered(const struct hub *h);
/* Tells c's players' other nodes text (a cluster; nothing alone). */
void challenge_tell_nodes(struct hub *h, const struct challenge *c,
                          const char *text);
/* c (made, not listed) is opened: at once on a node alone, through the
 * router in a cluster (the caps across nodes); then both players hear it
 * (s, NULL for none, with id), an HTTP call's done its ChallengeJson. */
void challenge_propose(struct hub *h, struct challenge *c, struct session *s,
                       const struct proto_id *id, challenge_done_fn *done,
                       uint64_t later);
/* c ends with status (the reason decline, or the accepter pid, name): at
 * once on a node alone; in a cluster once the router says this node
 * ends it. s (with m's id), or done and later, are answered. */
void challenge_end_ask(struct hub *h, struct challenge *c, const char *status,
                       int decline, const char *pid, const char *name,
                       struct session *s, const struct proto_msg *m,
                       challenge_done_fn *done, uint64_t later);
/* c's lapse (a home challenge's) rings ms from now (-1: not armed: its
 * challenger is here, it is kept open), its lapse_wall with it; in a
 * cluster its record in Redis says so too (one script, challenge.lua's
 * update), so that another node's read or list sees when it expires. */
void challenge_rearm(struct hub *h, struct challenge *c, int64_t ms);
/* The lapse's alarm (arg: the challenge). */
void challenge_lapse(void *arg);
/* In a cluster, challenge id not in memory here is read from the router
 * (s's command m runs again then, or then(h, arg)): true when asked. */
bool challenge_fetch_for(struct hub *h, const char *id, struct session *s,
                         const struct proto_msg *m,
                         void (*then)(struct hub *h, void *arg), void *arg);
/* In a cluster, pid's pending challenges on every node are read from the
 * router and sent to s (challenge_send_list, with m's id; s waits
 * meanwhile), or rendered (challenge_render_list) to done. */
void challenge_list_ask(struct hub *h, const char *pid, struct session *s,
                        const struct proto_msg *m, challenge_done_fn *done,
                        uint64_t later);
/* The module's tell (module.h's told). */
void challenge_told(struct hub *h, struct player *p, const char *payload,
                    size_t len, int64_t now);
/* s closes: the steps it waits for answer nobody. All steps freed (the
 * module's free). */
void challenge_ops_closed(struct hub *h, struct session *s);
void challenge_ops_free(struct hub *h);

#endif
