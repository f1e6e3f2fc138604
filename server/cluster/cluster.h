/*
 * cluster.h - the hub's part in a cluster of nodes (ARCHITECTURE.md, "A
 * cluster of nodes"): every node is an edge for the connections it
 * accepted and a host for the games it runs, and Redis carries what
 * crosses nodes.
 *
 * Edge. A command about a game this node does not host is forwarded to
 * the game's host on the game's command channel (`cmd:G`, which only its
 * host follows), with the connection's identity (node, connection
 * number, player); a game with no host (PUBLISH reached nobody) that the
 * store has live is adopted here, one that is over is answered here from
 * the store. The connection follows the game from then on (until it
 * closes or unwatches): the edge detaches it from the host when it
 * closes, and attaches it again (and resyncs it) when the game moves to
 * another host or Redis comes back.
 *
 * Host. Every connection of another node that follows a hosted game is
 * mirrored by a remote session (session.remote), attached to its player
 * like a local connection: the games' messages, replies and presence
 * work as on one node. What is sent to a remote session waits, as a
 * local connection's queue does, until the store has committed what it
 * reports, then goes out on the edge's node channel (`node:N`), one
 * PUBLISH for a message to several connections of one node. When the
 * host starts a game, it tells each player's channel (`player:P`), which
 * the edges with a connection of that player follow, so that those
 * connections attach.
 *
 * Placement and leases: server/cluster/lua (node_up, node_renew, game_take,
 * game_handover, game_release, cluster_sweep): the node's lease is its
 * liveness key; a game is its host's while that lease lasts; taking a
 * game gives it a new epoch, which the store fences the game's writes
 * with (store_take_epoch).
 *
 * Only the event-loop thread calls these functions; the hub owns the
 * cluster (hub_new creates it when its environment has a Redis).
 */
#ifndef SERVER_CLUSTER_H
#define SERVER_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct hub;
struct session;
struct game;
struct msgbuf;
struct redis;
struct player;

/* The lease's length and how often it is renewed (and the sweep for
 * dead nodes runs): a node paused or cut off for CLUSTER_LEASE_MS loses
 * its games to the others. */
#define CLUSTER_LEASE_MS 3000
#define CLUSTER_TICK_MS 1000

struct cluster;

/* Joins the cluster as node_id (copied) over r (not owned: it outlives
 * the cluster; it must have no script of its own: the cluster adds
 * server/cluster/lua's), taking r's state and message callbacks. NULL when out
 * of memory. */
struct cluster *cluster_new(struct hub *h, struct redis *r,
                            const char *node_id);

/* Frees c (its remote sessions, outbox, follows); the hub's players and
 * games are the hub's. NULL: no-op. */
void cluster_free(struct cluster *c);

/* The node leaves the cluster (the end of a shutdown, before its Redis is
 * freed): from now on nothing is sent to Redis, and callbacks of what was
 * pending (called by redis_free) change nothing. NULL: no-op. */
void cluster_stop(struct cluster *c);

/* This node's id. */
const char *cluster_node(const struct cluster *c);

/* True when Redis is up and this node holds its lease. */
bool cluster_ready(const struct cluster *c);

/* True while this node's lease surely lasts (renewed less than
 * CLUSTER_LEASE_MS ago by the monotonic clock): a host acts on its games
 * only then (a paused process resumes with its lease lapsed, and another
 * node may have taken them). */
bool cluster_leased(struct cluster *c);

/* ---- edge --------------------------------------------------------------
 *
 * A local connection s sends message m (text: its len bytes as received)
 * about game gid, which is not in this node's memory: forwards it to the
 * game's host, adopts the game, or answers it from the store. */
void cluster_forward(struct cluster *c, struct session *s,
                     const struct proto_msg *m, const char *text, size_t len,
                     int64_t now);

/* A local connection opened: it gets its number (s->id) for the hosts'
 * deliveries. 0, or -1 when out of memory. */
int cluster_session_opened(struct cluster *c, struct session *s);

/* s (a local connection) says hello for its player: attaches it at the
 * hosts of the player's live games not hosted here (gids[0..n)), and
 * sends it welcome (taken: malloc'ed text; with the store sequence seq)
 * once Redis has answered every attach's PUBLISH: by then each attach
 * is in its host's queue, ahead of any message the client sends after
 * its welcome (a move the host made just after the welcome went out
 * missed a connection whose attach was still on its way). */
void cluster_welcome_after_attach(struct cluster *c, struct session *s,
                                  const char *const *gids, size_t n,
                                  char *welcome, uint64_t seq);

/* A local connection joined its player (the first one subscribes the
 * player's channel) or left it (the last one unsubscribes), and a local
 * connection s closes: it is detached from every host it follows. */
void cluster_player_joined(struct cluster *c, struct player *p);
void cluster_player_left(struct cluster *c, struct player *p);
/* s no longer speaks for its player (a logout, a login as another): it
 * is detached from every host it follows. */
void cluster_session_detached(struct cluster *c, struct session *s);
void cluster_session_closed(struct cluster *c, struct session *s);

/* The lobby's seeks in Redis: s places seek m (sid: its new id; rating:
 * s's rounded rating in the clock's category, rated seeks), answered
 * `seeking`, and a pairing starts the game here (hub_start_paired); or
 * cancels its player's open seek (seek_cancelled, or no_seek). */
void cluster_seek(struct cluster *c, struct session *s,
                  const struct proto_msg *m, const char *sid, int rating,
                  bool provisional);
void cluster_cancel_seek(struct cluster *c, struct session *s,
                         const struct proto_id *id);
/* accept of m->seek: its fields read from Redis, hub_accept_refused's
 * checks, then the seek taken atomically (no_such_seek when another took
 * it first) and the game started here. */
void cluster_accept(struct cluster *c, struct session *s,
                    const struct proto_msg *m);

/* Tells the player's connections on other nodes, once the store has
 * committed seq: kind 'L' (a logout everywhere: they are logged out) or
 * 'C' (its settings changed to payload, len bytes of JSON). */
void cluster_tell_player(struct cluster *c, const char *pid, char kind,
                         const char *payload, size_t len, uint64_t seq);

/* The lobby feed's source in a cluster (lobbyfeed_set_source): every
 * node's open seeks and the first live games from Redis, rendered as a
 * snapshot and handed to lobbyfeed_snapshot. */
struct lobbyfeed;
void cluster_lobby_fetch(void *arg, struct lobbyfeed *f);

/* ---- host --------------------------------------------------------------
 *
 * Queues b for the remote session s (adding a reference), to be
 * published once the store has committed seq. */
void cluster_send(struct cluster *c, struct session *s, struct msgbuf *b,
                  uint64_t seq);

/* A new game g hosted here (before its row is written: the epoch's take
 * goes first): takes it in Redis and follows its command channel.
 * Returns 0, or -1 when the store's queue is full. */
int cluster_host_new(struct cluster *c, const char *gid);

/* g's seats changed (created, joined): tells each player's channel, so
 * that the player's connections on other nodes attach. */
void cluster_tell_players(struct cluster *c, struct game *g);

/* g started here (or was adopted started): its card goes into the
 * lobby's list of live games, or (ended) out of it. */
void cluster_game_started(struct cluster *c, const struct game *g);
void cluster_game_ended(struct cluster *c, const char *gid);

/* Game gid leaves this node's memory (it ended and lingered): releases
 * it in Redis and stops following its commands. */
void cluster_unhost(struct cluster *c, const char *gid);

/* The loop woke: publishes what the store has committed, finishes the
 * adoptions whose epoch committed, and handles games the store fenced. */
void cluster_wake(struct cluster *c);

/* A shutdown (SIGTERM): hands every hosted game to another live node,
 * each once its last writes have committed (cluster_handover, called
 * again every 10 ms), and stops taking commands for them. True once
 * nothing is left to hand over (or nobody to hand it to). */
void cluster_begin_handover(struct cluster *c);
bool cluster_handed_over(const struct cluster *c);
/* True while gid, hosted here, is being handed to another node: its
 * commands are not run here any more (a move made in that window would
 * be written with the old epoch, refused once the new host took the
 * game, and yet its `moved` released), but forwarded to the new host. */
bool cluster_handing_over(const struct cluster *c, const char *gid);
size_t cluster_handover(struct cluster *c, int64_t now);

/* The number of remote sessions, followed remote games, games being
 * adopted: for the metrics and tests. */
size_t cluster_remote_sessions(const struct cluster *c);
size_t cluster_adoptions(const struct cluster *c);

#endif
