/*
 * lobbyfeed.h - the lobby feed: the connections watching the lobby
 * (lobby_watch) and the snapshots they get of its open seeks and live
 * games (PROTOCOL.md section 5, "Watching the lobby").
 *
 * A snapshot lists the oldest LOBBY_SEEKS_MAX open seeks and the first
 * LOBBY_GAMES_MAX started games in the feed's order (lobbyfeed_rank_cmp);
 * it is rendered once and the same bytes (a msgbuf) are queued to every
 * watcher, so a watcher costs a queue entry per snapshot, never a
 * render. While there are watchers a timer ticks every LOBBY_TICK_MS;
 * a tick renders a snapshot only when something may have changed (the
 * lobby's version moved, or the hub touched the feed because a game
 * said something) and sends it only when its bytes differ from the last
 * one. So the feed renders at most once a tick, whatever the number of
 * seeks, games, watchers or changes, and nothing at all while nobody
 * watches or nothing changes. A new watcher gets the last snapshot at
 * once (a fresh render only when the last is stale and a tick's time has
 * passed since it: then every watcher gets it). A snapshot goes out
 * once the store has committed what it shows (its moves and games); while
 * the last one waits for that (the database stalls), no new one is
 * rendered, so a stall costs each watcher one queued snapshot.
 *
 * The feed reads the hub's lobby and table of games (not owned; both
 * outlive it) and sends through the hub's environment. It remembers
 * watchers by session; a session knows its place in the feed
 * (session.lobby_slot), so a watch ends in constant time. Only the
 * event-loop thread uses it.
 */
#ifndef SERVER_LOBBYFEED_H
#define SERVER_LOBBYFEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lobbyfeed;
struct hub_env;
struct lobby;
struct table;
struct session;

/* Creates the feed over env (not copied: the hub's, which outlives the
 * feed), lobby and games (gid -> struct game). *gauge (may be NULL) is
 * kept equal to the number of watchers. NULL when out of memory. */
struct lobbyfeed *lobbyfeed_new(const struct hub_env *env,
                                const struct lobby *lobby,
                                const struct table *games, int64_t *gauge);

/* filter(ctx, s, snap, &cut): what watcher s gets of snapshot snap: a
 * message of its own (the feed sends it and unrefs it), or NULL: snap
 * itself, unless it set cut (out of memory: nothing). NULL: snap to
 * everyone. (relation.c: a blocked player's seeks.) */
struct msgbuf;
void lobbyfeed_set_filter(struct lobbyfeed *f,
                          struct msgbuf *(*filter)(void *ctx,
                                                   const struct session *s,
                                                   struct msgbuf *snap,
                                                   bool *cut),
                          void *ctx);

/* Frees the feed, its timer and its last snapshot (the watchers are the
 * hub's sessions). NULL is a no-op. */
void lobbyfeed_free(struct lobbyfeed *f);

/* s watches the lobby from now on and gets a snapshot at once. Again
 * while it watches: s gets nothing, unless a fresh render (as above)
 * differs from the last snapshot, which then goes to every watcher; a
 * repeated request never queues the same bytes twice. Returns 0, or -1
 * when out of memory (s does not watch then). */
int lobbyfeed_watch(struct lobbyfeed *f, struct session *s, int64_t now);

/* s no longer watches (it unwatched, closed or logged out); a session
 * that does not watch is a no-op. */
void lobbyfeed_unwatch(struct lobbyfeed *f, struct session *s);

/* The live games may have changed (a game sent a message): the next tick
 * renders a snapshot. Costs nothing more. */
void lobbyfeed_touch(struct lobbyfeed *f);

size_t lobbyfeed_watchers(const struct lobbyfeed *f);
/* The watchers, *n of them (valid until the next watch or unwatch):
 * the lobby's chat room's readers (rooms.c). */
struct session *const *lobbyfeed_list(const struct lobbyfeed *f, size_t *n);

/* Takes the snapshots from fetch instead (a cluster: every node's seeks
 * and games are in Redis): asked every tick while anyone watches, at
 * most one at a time; fetch(arg, f) answers with lobbyfeed_snapshot,
 * now or later. */
void lobbyfeed_set_source(struct lobbyfeed *f,
                          void (*fetch)(void *arg, struct lobbyfeed *f),
                          void *arg);

/* fetch's answer: text (a rendered snapshot, taken; NULL when the fetch
 * failed), sent to every watcher when it differs from the last one. */
void lobbyfeed_snapshot(struct lobbyfeed *f, char *text, int64_t now);

/* How a live game ranks in a snapshot: rated games first, the higher
 * sum of the two players' ratings first, then (rated or casual) the
 * newest first, then by GID. */
struct lobbyfeed_rank {
    bool rated;
    long rating_sum; /* both players' shown ratings (0 for one unknown) */
    int64_t created_ms;
    const char *gid;
};

/* Negative when a comes before b, positive after, 0 when equal. */
int lobbyfeed_rank_cmp(const struct lobbyfeed_rank *a,
                       const struct lobbyfeed_rank *b);

#endif
