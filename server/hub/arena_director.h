/*
 * arena_director.h - the arena tournaments' director (PROTOCOL.md,
 * "Arena tournaments"): the hub module that drives common/arena's pure
 * core for every event of this node.
 *
 * It answers arena_create, arena_join, arena_withdraw, arena_list,
 * arena_watch and arena_unwatch. Every TOURNEY_TICK_MS while an event is
 * open it tells the core who is waiting (connected, in no live game),
 * asks for the pairings and starts each as a game through the hub's
 * hub_start_game, with the event's clock; each game's end is reported
 * back with its result and plies. The watchers of an event get its
 * standings, rendered at most once a tick and only when they changed,
 * the same bytes to every watcher.
 *
 * Every call the core gets (arena.h lists them) is journaled, in order,
 * through the store writer (migration arena_calls) before what it
 * changes is announced; hub_arena_restore replays the journal at start.
 * Presence is not journaled: the players connect again. A node of a
 * cluster directs no event (arena_create answers no_tournaments).
 * Only the event-loop thread calls it.
 */
#ifndef SERVER_HUB_ARENA_DIRECTOR_H
#define SERVER_HUB_ARENA_DIRECTOR_H

#include "hub/module.h"

/* Events open or running at once on a node (the operator's max_arenas
 * is at most this), and finished events listed. (The players of one
 * event: the operator's arena_players.) */
#define ARENA_EVENTS_MAX 100
#define ARENA_FINISHED_LISTED 50
/* Events one player may have open or running at once. */
#define ARENA_EVENTS_PER_CREATOR 2
/* Players shown in a standings message, best first. */
#define ARENA_STANDINGS_SHOWN 200
/* The tag of an arena's standings relayed to the other nodes of a
 * cluster (module.h's tell_tag; tourney_cluster.c). */
#define ARENA_TELL 'T'
/* A node of a cluster that starts takes over the events whose end is
 * less than this long ago and that no node directs. */
#define ARENA_KNOWN_AFTER_MS (3600 * 1000)

extern const struct hub_module hub_arena_module;

struct tourney_director;
/* The arena's and the Swiss events' directors (tourney.h), NULL while
 * their module has none. Loop thread. */
struct tourney_director *hub_arena_director(struct hub *h);
struct tourney_director *hub_swiss_director(struct hub *h);
/* A node of a cluster at start: the events of each director's journal
 * that may not have finished are known (tourney_known): 0, or -1 on a
 * database error (hub_tourney_known). */
int hub_arena_known(struct hub *h);
int hub_swiss_known(struct hub *h);

#endif
