/*
 * tourney.h - what the arena and Swiss directors (arena_director.c,
 * swiss_director.c) do alike: growing their arrays, rendering a reply,
 * who may create an event, a player's rating for an event's clock,
 * starting a pairing's game, pushing the same standings bytes to every
 * watcher, and reading how a game ended from the store after a restart.
 * Only the event-loop thread calls it.
 */
#ifndef SERVER_HUB_TOURNEY_H
#define SERVER_HUB_TOURNEY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "hub/hub_internal.h"

/* How often a director ticks (pairs, pushes standings). */
#define TOURNEY_TICK_MS 1000

/* The head of a director's event (its own struct starts with it). */
struct tourney_event {
    char id[PROTO_KEY_MAX + 1];
    char name[PROTO_NAME_MAX + 1];
    char creator[PROTO_KEY_MAX + 1];
    int64_t next_call; /* the journal's next seq */
    uint64_t seq;      /* the store seq of its last call */
    bool finished;     /* over: not ticked any more */
    bool dirty;        /* the standings may have changed */
    struct session **watchers;
    int *pages; /* each watcher's page (0: the event's own choice) */
    size_t nw, wcap, pgcap;
};

/* A director's events and its tick. */
struct tourney_director {
    struct tourney_event **ev; /* oldest first */
    size_t n, cap;
    struct hub_alarm *tick;
    bool armed;
    struct hub *hub;
    void (*tick_event)(struct hub *h, struct tourney_event *e, int64_t wall);
    void (*free_event)(struct tourney_event *e);
};

/* A director ticking each of its events not finished every second with
 * tick_event (wall: hub_wall_ms); NULL when out of memory. */
struct tourney_director *tourney_director_new(
    struct hub *h,
    void (*tick_event)(struct hub *h, struct tourney_event *e, int64_t wall),
    void (*free_event)(struct tourney_event *e));
void tourney_director_free(struct hub *h, struct tourney_director *d);

/* Arms d's tick, one second from now, unless it is armed. */
void tourney_arm(struct hub *h, struct tourney_director *d);

struct tourney_event *tourney_find(const struct tourney_director *d,
                                   const char *id);
/* Adds e (taken on success): 0, or -1 when out of memory. */
int tourney_add(struct tourney_director *d, struct tourney_event *e);
/* The events not finished, of creator pid (NULL: anyone's). */
size_t tourney_open(const struct tourney_director *d, const char *pid);

/* s watches e (and no other event of d), its standings' page page (0:
 * the director's default): 0, or -1 when out of memory. */
int tourney_watch(struct tourney_director *d, struct tourney_event *e,
                  struct session *s, int page);
void tourney_unwatch(struct tourney_director *d, struct session *s);

/* Pushes e's standings to its watchers and clears e->dirty: one
 * render(e, wall, page) (malloc'ed text, NULL: none) per page watched,
 * its bytes to every watcher of that page. */
void tourney_push_pages(struct hub *h, struct tourney_event *e, int64_t wall,
                        char *(*render)(const struct tourney_event *e,
                                        int64_t wall, int page));

/* The summaries (summary(e, wall)) of d's events, newest first: those
 * not finished and the newest max_finished finished ones. */
json_t *tourney_list(const struct tourney_director *d, int64_t wall,
                     size_t max_finished,
                     json_t *(*summary)(const struct tourney_event *e,
                                        int64_t wall));

/* Replays one journal row of event id: seq 0 makes it (make), others
 * apply in order. 0, or -1 when refused (the caller logs it). */
int tourney_replay(struct tourney_director *d, const char *id, int64_t seq,
                   const char *line,
                   struct tourney_event *(*make)(const char *id,
                                                 const char *line),
                   int (*apply)(struct tourney_event *e, const char *line));

/* Makes room for one more of n elements of size in *v (capacity *cap):
 * 0, or -1 when out of memory (nothing changed). */
int tourney_grow(void **v, size_t *cap, size_t n, size_t size);

/* o with "id" (when id has one), as compact JSON (malloc'ed); takes o.
 * NULL when o is NULL or out of memory. */
char *tourney_finish(json_t *o, const struct proto_id *id);

/* Sends o (taken) to s, with id, at store seq. */
void tourney_send(struct session *s, json_t *o, const struct proto_id *id,
                  uint64_t seq);

/* Sends text (taken; NULL: nothing) to the n watchers, one buffer. */
void tourney_push(struct hub *h, char *text, struct session *const *watchers,
                  size_t n, uint64_t seq);

/* True when s may create an event by the operator's policy
 * (arena_create) and m's clock; else sends the error (no_tournaments on
 * a node of a cluster or when off, needs_account, bad_clock). */
bool tourney_may_create(struct session *s, const struct proto_msg *m);

/* True when p may act as e's organiser: its creator, or a moderator (the
 * operator's role, as p's facts read at login have it). */
bool tourney_organiser(const struct tourney_event *e, const struct player *p);

/* p's rating for a base + inc clock as the player's facts have it,
 * rounded; 1500 (a new player's) when unknown. */
int tourney_rating(const struct player *p, int base_s, int inc_s);

/* A new game of seats on a base + inc clock from the start position, not
 * announced yet (the caller journals it first, then calls
 * tourney_announce). NULL when refused. */
struct game *tourney_game(struct hub *h, int base_s, int inc_s,
                          const struct game_seat_init seats[2]);

/* Announces g and sends o (taken) to both of its seats' players. */
void tourney_announce(struct hub *h, struct game *g, json_t *o, uint64_t seq);

/* How a game that is not in memory ended, from its stored row: 1 with
 * *r, *no_start, *plies, *to_move and *ended_ms set, or 0 when it has
 * not ended (or cannot be read). Reads at once: at start-up only. */
int tourney_stored_end(struct hub *h, const char *gid, enum ending_result *r,
                       bool *no_start, int *plies, int *to_move,
                       int64_t *ended_ms);

#endif
