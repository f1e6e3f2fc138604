/*
 * arena_event.h - what the arena director's files share (arena_director.c:
 * the module, its calls, the tick, the commands; arena_berserk.c: the
 * berserk). Not for other files. Only the event-loop thread calls these
 * functions.
 */
#ifndef SERVER_HUB_ARENA_EVENT_H
#define SERVER_HUB_ARENA_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "hub/hub_internal.h"
#include "hub/tourney.h"
#include "lib/table.h"

struct entrant {
    char pid[PROTO_KEY_MAX + 1];
    char name[PROTO_NAME_MAX + 1];
};

/* A game of an event not over yet, by its GID (event.running). */
struct running {
    char gid[PROTO_KEY_MAX + 1];
    size_t k; /* its index */
};

struct event {
    struct tourney_event head; /* first: tourney.c sees it */
    struct arena *a;
    struct entrant *players;
    size_t np, pcap;
    char (*gids)[PROTO_KEY_MAX + 1]; /* game index -> GID */
    size_t ng, gcap;
    const char *status_shown;
    struct proto_entry entry; /* the entry conditions */
    struct table running;     /* GID -> struct running (owned): the games
                                 not over, found at once by a berserk
                                 and by any game's end */
};

/* Journals line as e's next call and applies it: 0, or -1 (nothing
 * changed; logged). */
int arena_call(struct hub *h, struct event *e, const char *line,
               int64_t wall);

/* arena_berserk.c: the event of which g is a game not over (its index
 * in *k), or NULL; side's berserk in e's game k journaled (plies played
 * then) as the event's call; the berserk command (PROTOCOL.md). */
struct event *arena_event_of_game(struct hub *h, const struct game *g,
                                  size_t *k);
void arena_note_berserk(struct hub *h, struct event *e, size_t k, int side,
                        int plies);
void arena_do_berserk(struct session *s, const struct proto_msg *m,
                      int64_t now);
/* The players of c's games may berserk (allowed, with a base time). */
struct arena_config;
bool arena_berserk_allowed(const struct arena_config *c);
/* The module's game_hosted and told_all (arena_berserk.c): an arena
 * game hosted here linked to its event (state's "event"). */
void arena_game_hosted(struct hub *h, struct game *g, int64_t now);
void arena_told_all(struct hub *h, const char *payload, size_t len,
                    int64_t now);

#endif
