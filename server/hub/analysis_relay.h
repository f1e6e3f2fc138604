/*
 * analysis_relay.h - what the computer analysis (analysis.c) knows that
 * the store cannot tell yet (analysis_relay.c): a finished result until
 * its row is committed, and in a cluster the progress and the end of the
 * jobs that run on other nodes, for this node's connections.
 *
 * Loop thread only.
 */
#ifndef SERVER_HUB_ANALYSIS_RELAY_H
#define SERVER_HUB_ANALYSIS_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct hub;
struct session;
struct analysis_relay;
struct store_analysis;

/* The tag of the analysis's word to every node (module.h's tell_tag). */
#define ANALYSIS_TELL 'A'

/* A relay of h (NULL when out of memory); freed with what it holds. */
struct analysis_relay *analysis_relay_new(struct hub *h);
void analysis_relay_free(struct analysis_relay *r);

/* A job of this node finished: its result text (taken), pid its
 * requester, requested_ms when it was asked (wall), seq the write of its
 * "done" row. Kept until the store has committed seq and every read in
 * flight has seen it (or dropped, text freed, when out of memory). */
void analysis_relay_done(struct analysis_relay *r, const char *gid,
                         const char *pid, int64_t requested_ms, uint64_t seq,
                         char *text);

/* Sends s the result of gid that the store may not give yet (with id):
 * true, or false when there is none. */
bool analysis_relay_send(struct analysis_relay *r, struct session *s,
                         const char *gid, const struct proto_id *id);

/* That result's text, or NULL (one whose row is committed may still be
 * there, as the store has it). Valid until the loop goes on. */
const char *analysis_relay_result(struct analysis_relay *r, const char *gid);

/* How many of pid's finished analyses of this node, asked at since_ms
 * (wall) or later, a count missed whose read (store_analyses_by) found
 * the rows seen[0..n_seen) of pid since since_ms or earlier: those whose
 * game's row is not among them. The read sees a job's row or not,
 * whatever the order of the commits: a job is counted once either way.
 * (A read that found as many rows as it asked for may have left some
 * out: its count is at the limit already.) */
int analysis_relay_uncounted(struct analysis_relay *r, const char *pid,
                             const struct store_analysis *seen, size_t n_seen,
                             int64_t since_ms);

/* text (an analysis_progress about gid, or with done its finished
 * analysis) to every other node, whose listeners of gid hear it
 * (router.h's tell_all; a node alone: nothing), and to this node's (a
 * job taken up here after it ran elsewhere). */
void analysis_relay_tell(struct analysis_relay *r, const char *gid,
                         const char *text, bool done);

/* s hears the job of gid that runs on another node from now on, until
 * its end (or ANALYSIS_RELAY_IDLE_MS without news; nothing when this
 * node's relay already holds ANALYSIS_RELAY_GAMES games' listeners, or
 * the game ANALYSIS_SUBS_MAX: s reads the end with `analysis`). */
void analysis_relay_listen(struct analysis_relay *r, struct session *s,
                           const char *gid);

/* s hears gid's job here now (analysis.c's listeners): not twice. */
void analysis_relay_forget(struct analysis_relay *r, struct session *s,
                           const char *gid);

/* What another node told (hub_told_all). */
void analysis_relay_told(struct analysis_relay *r, const char *payload,
                         size_t len, int64_t now);

/* s closes; the sweep forgets what is stale. */
void analysis_relay_closed(struct analysis_relay *r, struct session *s);
void analysis_relay_sweep(struct analysis_relay *r, int64_t now);

struct json_t;
/* Sends o (consumed; NULL: nothing) to s, with id (a command's; NULL or
 * none: without). */
void analysis_send_json(struct session *s, struct json_t *o,
                        const struct proto_id *id);

/* Connections that hear one job's progress (analysis.c's and the
 * relay's). */
#define ANALYSIS_SUBS_MAX 64

#endif
