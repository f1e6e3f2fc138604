/*
 * busfake.h - a bus (cluster/bus.h) in one process, for the cluster's
 * unit tests: several nodes' hubs meet on it as on Redis, without one.
 *
 * It keeps a small model of Redis's keys (strings with an expiry on the
 * test's clock, sets) and runs in C the scripts of cluster/lua that
 * place games and keep leases (node_up, node_renew, node_alive, nodes,
 * nodes_dead, node_forget, game_take, game_handover, game_release,
 * node_games, shard_mark), as their headers say, on one shard (but
 * nodes_dead shares no games by load: busfake.c); the
 * lobby's (cards, snapshot) answer as an empty
 * lobby would, and the seeks' refuse ("the fake bus has no seeks").
 * Replies and messages are queued, as Redis's arrive on a later turn of
 * the loop, and busfake_pump delivers them in the order they were made;
 * what goes to a client that is down or paused waits (paused) or is
 * lost (down), as over a socket.
 */
#ifndef TESTS_UNIT_BUSFAKE_H
#define TESTS_UNIT_BUSFAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster/bus.h"

struct busfake;
struct busfake_client;

/* The shared server, its keys expiring by *now (ms, the test's clock). */
struct busfake *busfake_new(const int64_t *now);
/* Frees f and every client (their buses must not be used after). */
void busfake_free(struct busfake *f);

/* A client of f (one node's connection): fills *bus; its first state
 * change (up) arrives with the next pump. */
struct busfake_client *busfake_connect(struct busfake *f, struct bus *bus);

/* Delivers what is queued, in order, to the clients that are not paused
 * (what a call it delivers queues is delivered too). How many events
 * were delivered. */
size_t busfake_pump(struct busfake *f);

/* A paused client gets nothing until it is unpaused (its process is
 * stopped: what is sent to it waits in its socket). */
void busfake_pause(struct busfake_client *c, bool paused);

/* While held, c's SUBSCRIBEs are on their way: messages published on
 * those channels miss c (another of its connections got there first).
 * Released, they take effect. */
void busfake_hold_subscribes(struct busfake_client *c, bool held);

/* The client's connection goes down (its calls fail, what was queued
 * for it is lost, it hears state false) or comes back (state true; its
 * channels followed again). */
void busfake_set_up(struct busfake_client *c, bool up);

/* The number of keys (expired ones not counted), for tests. */
size_t busfake_keys(struct busfake *f);

#endif
