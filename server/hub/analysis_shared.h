/*
 * analysis_shared.h - the cluster's one queue of computer analyses
 * (analysis_shared.c; docs/cluster.md, "Computer analysis"), between
 * analysis.c and the router (router.h's analysis_queue: Redis's
 * cluster/lua/analysis_queue.lua).
 *
 * On a node alone none of it runs: analysis.c keeps its own queue.
 * Loop thread only.
 */
#ifndef SERVER_HUB_ANALYSIS_SHARED_H
#define SERVER_HUB_ANALYSIS_SHARED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct hub;
struct session;
struct store_game;
struct store_move;
struct analysis_relay;
struct analysis_shared;

/* The refusals' messages (here and on a node alone). */
#define ANALYSIS_MSG_PLAYER \
    "you have an analysis queued or running: one at a time"
#define ANALYSIS_MSG_ADDRESS \
    "your address has an analysis queued or running: one at a time"
#define ANALYSIS_MSG_FULL "the analysis queue is full: try later"

/* ---- analysis_shared.c's side ----------------------------------------- */

/* True when h is a node of a cluster (its jobs go to the shared queue). */
bool analysis_shared_on(const struct hub *h);

/* The shared queue's part of this node (NULL when out of memory), which
 * takes jobs while the node runs engines and renews those it runs. */
struct analysis_shared *analysis_shared_new(struct hub *h);
void analysis_shared_free(struct analysis_shared *q);

/* Puts gid's job (asked by pid at addr, "" none; own: pid plays in it;
 * total: its positions) in the shared queue, and answers s (NULL: a
 * row read back at a start, nobody to answer) with id: `analysis`
 * "queued" (s then hears it through the relay), or the refusal
 * (analysis_limit, busy). The "queued" row is written here. */
void analysis_shared_put(struct analysis_shared *q, struct session *s,
                         const struct proto_id *id, const char *gid,
                         const char *pid, const char *addr, bool own,
                         int64_t requested_ms, int total);

/* gid's job here ended (or cannot run): it leaves the shared queue,
 * and this node takes the next when it has no other. */
void analysis_shared_done(struct analysis_shared *q, const char *gid);

/* s closes: nothing is answered to it any more. */
void analysis_shared_closed(struct analysis_shared *q, struct session *s);

/* ---- analysis.c's side ------------------------------------------------ */

/* The relay and the shared queue's part of h's analysis module (NULL
 * once it went). */
struct analysis_relay *analysis_relay_of(struct hub *h);
struct analysis_shared *analysis_shared_of(struct hub *h);

/* How many jobs run or wait here. */
int analysis_jobs_here(struct hub *h);

/* Runs a job the shared queue gave this node: the game row with its
 * moves, its requester pid and addr ("": none), asked at requested_ms
 * (Unix). 0, or -1 (out of memory, an unusable game). */
int analysis_run_shared(struct hub *h, const struct store_game *row,
                        const struct store_move *moves, size_t n,
                        const char *pid, const char *addr,
                        int64_t requested_ms);

/* The jobs of the shared queue that run here: at most max, their games,
 * requesters and addresses into gids, pids, addrs (valid until the loop
 * goes on); how many. */
int analysis_shared_jobs(struct hub *h, const char **gids, const char **pids,
                         const char **addrs, int max);

/* gid's job here is another node's now (this node's lease on it
 * lapsed): it stops, its result unsent. */
void analysis_drop_job(struct hub *h, const char *gid);

/* The rows still "queued" are read again at the next tick (and put in
 * the shared queue again: a Redis restart forgets its queue). */
void analysis_requeue_soon(struct hub *h);

#endif
