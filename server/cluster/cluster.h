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
 * game_handover, game_release, nodes_dead, node_games): the node's lease
 * is its entry in the hash of nodes; a game is its host's while that
 * lease lasts; taking a
 * game gives it a new epoch, which the store fences the game's writes
 * with (store_take_epoch).
 *
 * Only the event-loop thread calls these functions; app/ creates the
 * cluster after the hub and frees it before.
 */
#ifndef SERVER_CLUSTER_H
#define SERVER_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct hub;
struct bus;

/* The lease's length and how often it is renewed (and the sweep for
 * dead nodes runs): a node paused or cut off for CLUSTER_LEASE_MS loses
 * its games to the others. */
#define CLUSTER_LEASE_MS 3000
#define CLUSTER_TICK_MS 1000

struct cluster;

/* Joins the cluster as node_id (copied) over bus (copied; its impl
 * outlives the cluster: Redis's, redis_bus_init), taking its state and
 * message handlers, and becomes h's router and seek book (router.h,
 * seekbook.h). Call it before the hub's first connection. NULL when out
 * of memory. */
struct cluster *cluster_new(struct hub *h, const struct bus *bus,
                            const char *node_id);

/* Gives the hub its own router and seek book back and frees c (its
 * records of remote sessions, outbox, follows; the sessions themselves
 * are the hub's). Before hub_free. NULL: no-op. */
void cluster_free(struct cluster *c);

/* The node leaves the cluster (the end of a shutdown, before its bus is
 * freed): from now on nothing is sent to the bus, its handlers are
 * taken back, and callbacks of what was pending (called by redis_free)
 * change nothing. NULL: no-op. */
void cluster_stop(struct cluster *c);

/* This node's id. */
const char *cluster_node(const struct cluster *c);

/* The balance (docs/cluster.md, "Balance"): this node hands over up to
 * per_s of its games a second while it is the most loaded node and the
 * nodes are out of balance; 0 (cluster_new's): never. */
void cluster_set_balance(struct cluster *c, int per_s);

/* cluster_trace: a log line per step of each command about a game
 * (trace.c; docs/cluster.md, "Tracing a command"). */
void cluster_set_trace(struct cluster *c, bool on);

/* True when Redis is up and this node holds its lease. */
bool cluster_ready(const struct cluster *c);

/* The number of remote sessions and of games being adopted: for the
 * metrics and tests. */
size_t cluster_remote_sessions(const struct cluster *c);
size_t cluster_adoptions(const struct cluster *c);

#endif
