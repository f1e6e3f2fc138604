/*
 * lobby.h - open seeks and their pairing.
 *
 * Two seeks are compatible when their clocks are equal, their colours fit
 * (random fits anything, white fits black), they come from different
 * players, both are rated or both casual, and, for rated seeks, each
 * one's rating lies within the other's rating range (a seek without a
 * range accepts any); a new seek pairs with the oldest compatible one,
 * else it waits.
 * A player has at most one open seek: a new one replaces it. A seek dies
 * with the connection (`owner`) that made it, or when the hub expires it
 * (seeks.c: idle). Pure bookkeeping: no I/O,
 * no clock; the caller supplies identifiers and the coin for random
 * colours. Only the event-loop thread uses it.
 */
#ifndef SERVER_LOBBY_H
#define SERVER_LOBBY_H

#include <stdbool.h>
#include <stddef.h>

#include "clock.h"
#include "proto.h"

struct lobby;

struct lobby_seek {
    char sid[PROTO_KEY_MAX + 1];
    char pid[PROTO_KEY_MAX + 1];
    char name[PROTO_NAME_MAX + 1]; /* the seeker's, as the lobby shows it */
    char addr[64]; /* its connection's address key (the per-address
                      limits'): max_seeks_per_ip counts by it */
    void *owner;   /* the connection that made it; not owned */
    struct clock_spec clock;
    enum proto_color color;
    bool rated;
    bool account;     /* the seeker is an account (else a guest) */
    long rating;      /* rated: the seeker's rating, rounded */
    bool provisional; /* rated: ... and whether it is provisional */
    bool has_range;   /* rated: pair only with ratings in [lo, hi] */
    int lo, hi;
};

/* Returns an empty lobby (NULL when out of memory). */
struct lobby *lobby_new(void);
/* Frees the lobby and its seeks. lobby_free(NULL) is a no-op. */
void lobby_free(struct lobby *l);

/*
 * Offers seek s (copied), after removing any open seek of the same player.
 * Returns 1 when it paired: *match is the (removed) oldest compatible seek
 * and *s_color the colour (0 white, 1 black) of the new seek's player;
 * `coin` (0 or 1) decides when both wanted random. Returns 0 when the seek
 * now waits, -1 when out of memory (nothing changed but the old seek's
 * removal).
 */
int lobby_seek(struct lobby *l, const struct lobby_seek *s, int coin,
               struct lobby_seek *match, int *s_color);

/* Two players apart(ctx, a, b) (their PIDs) never pair (a block
 * between them: hub/relation.c); NULL: any two may. */
void lobby_set_apart(struct lobby *l,
                     bool (*apart)(void *ctx, const char *a, const char *b),
                     void *ctx);

/* Removes pid's open seek. Returns 1 when there was one, else 0. */
int lobby_cancel(struct lobby *l, const char *pid);

/* 1 when pid has an open seek, else 0. */
int lobby_has(const struct lobby *l, const char *pid);

/* Removes every seek that owner made. Returns how many. */
int lobby_drop_owner(struct lobby *l, const void *owner);

/* The seeks that owner made stay when it goes (a correspondence seek of
 * the HTTP API's: it waits for a taker, not for a connection): owner
 * NULL. Returns how many. */
int lobby_disown(struct lobby *l, const void *owner);

/* Open seeks. */
size_t lobby_count(const struct lobby *l);

/* Open seeks whose addr is addr, but pid's (which a new seek of pid's
 * replaces). */
size_t lobby_count_addr(const struct lobby *l, const char *addr,
                        const char *pid);

/* Counts every change of the open seeks (a seek added, paired, cancelled,
 * dropped or taken): equal values mean the same seeks. */
unsigned long lobby_version(const struct lobby *l);

/* The open seek with SID sid (owned by the lobby, valid until the next
 * change), or NULL. */
const struct lobby_seek *lobby_find(const struct lobby *l, const char *sid);

/* Removes the open seek with SID sid into *out. Returns 1, or 0 when
 * there is none. */
int lobby_take(struct lobby *l, const char *sid, struct lobby_seek *out);

/* The colour (0 white, 1 black) of a player who takes seek s, the
 * complement of the colour its seeker wants; `coin` (0 or 1) decides
 * when the seeker wanted random. */
int lobby_taker_color(const struct lobby_seek *s, int coin);

/* Points out[] at the newest max open seeks (owned by the lobby, valid
 * until its next change), newest first; returns how many. (Pairing takes
 * the oldest compatible seek; the lobby shows the newest, so that old
 * seeks never hide a new one.) */
size_t lobby_list(const struct lobby *l, const struct lobby_seek **out,
                  size_t max);

#endif
