/*
 * seekbook.h - the lobby's open seeks, a port of the hub: where a seek
 * waits for its opponent, how an accept takes it, what the lobby feed
 * shows.
 *
 * On one node the book is the hub's lobby (game/lobby.h, router_local.c);
 * in a cluster it is Redis's, shared by every node (cluster/seeks.c).
 * The hub checks a seek or an accept against its own rules first
 * (seeks.c: rated games need an account, the limit on live games); the
 * book places, pairs, takes and cancels. A pairing starts its game on
 * the node of the player who completed it (hub_start_paired,
 * hub_accept_start). Only the event-loop thread calls these functions.
 */
#ifndef SERVER_HUB_SEEKBOOK_H
#define SERVER_HUB_SEEKBOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct game;
struct hub;
struct lobby_seek;
struct lobbyfeed;
struct session;
struct clock_spec;

struct seekbook_ops {
    /* s places seek k (every field set; k->owner is s) for message m:
     * refused too_many_games when k->addr's players hold
     * max_seeks_per_ip other seeks; else s is answered `seeking` and,
     * when k pairs with another open seek, the game starts. */
    void (*place)(void *ctx, struct session *s, const struct proto_msg *m,
                  const struct lobby_seek *k, int64_t now);
    /* s cancels its player's open seek (seek_cancelled, or no_seek). */
    void (*cancel)(void *ctx, struct session *s, const struct proto_id *id);
    /* s accepts seek m->seek (no_such_seek, hub_accept_refused's
     * checks, then the game). */
    void (*accept)(void *ctx, struct session *s, const struct proto_msg *m,
                   int64_t now);
    /* True when s's player has an open seek (counted as a game by the
     * limit on live games). */
    bool (*has)(void *ctx, const struct session *s);
    /* s closes, no longer speaks for its player, or is idle (seeks.c):
     * the seek s made goes. True when there was one. */
    bool (*drop)(void *ctx, struct session *s);
    /* s lets its open seek go on without it: the seek stays in the book
     * until taken, cancelled or replaced (a Board API correspondence
     * seek: botapi_seek.c), and s's closing no longer drops it. */
    void (*disown)(void *ctx, struct session *s);
    /* Open seeks this node holds (the metrics' gauge). */
    size_t (*count)(void *ctx);
    /* The lobby feed's snapshots (lobbyfeed_set_source), or NULL: the
     * feed renders the hub's own lobby and games. */
    void (*fetch)(void *arg, struct lobbyfeed *f);
};

struct seekbook {
    const struct seekbook_ops *ops;
    void *ctx;
};

/* Keeps the open seeks in b (copied; ctx outlives the hub), or in the
 * hub's lobby (b NULL). */
void hub_set_seekbook(struct hub *h, const struct seekbook *b);

/* ---- the hub's side ---------------------------------------------------- */

/* s's seek paired with player other's: the game starts here, s playing
 * colour color (0 white), announced, once other's facts are read
 * (facts.c: they show in game_start); then started(arg, g), g NULL when
 * it could not start. Not called when s closes first (the pairing is
 * dropped, as when s closes before the book answered). */
void hub_start_paired(struct session *s, const struct clock_spec *clock,
                      bool rated, int color, const char *other, int64_t now,
                      void (*started)(void *arg, struct game *g), void *arg);

/* accept's checks after no_such_seek, in the protocol's order (true:
 * one failed and s was answered, or both players' facts are being read,
 * as read since `since` (hub_facts_since when m first came: a rated
 * seek's ratings read since the accept asked), and the accept m runs
 * again then: facts.c), and the game it starts
 * (not announced yet: game_announce_start; NULL: s was answered busy). */
bool hub_accept_refused(struct session *s, const struct lobby_seek *k,
                        const struct proto_msg *m, int64_t since);
struct game *hub_accept_start(struct session *s, const struct lobby_seek *k,
                              const struct proto_id *id, int64_t now);

/* Since when a command's facts about its players (hub/facts.c) must have
 * been read, in a cluster: since the command first asked (a command run
 * again after its read asks since the first time), so that what another
 * node changed a moment ago is seen: a rated end (the ratings a rated
 * start begins from), a game ended (the caps). rated: whether the start
 * is rated. now: the command's (unused: the facts' own clock is
 * facts.c's, microseconds when asked). */
int64_t hub_facts_since(struct hub *h, bool rated, int64_t now);

/* max_seeks_per_ip: the open seeks a book lets one address's players
 * hold (place's first check), and its refusal (too_many_games to s). */
int hub_seeks_per_ip(const struct hub *h);
void hub_seeks_full(struct session *s, const struct proto_id *id);

/* The lobby feed (the book's fetch answers it: lobbyfeed_snapshot). */
struct lobbyfeed *hub_lobbyfeed(struct hub *h);

#endif
