/*
 * cluster_internal.h - what the cluster's files (cluster.c, edge.c,
 * host.c, adopt.c, lease.c, handover.c, seeks.c) share: their records,
 * and the functions one calls of another. Not for anything outside
 * server/cluster/. Only the event-loop thread calls these functions.
 */
#ifndef SERVER_CLUSTER_INTERNAL_H
#define SERVER_CLUSTER_INTERNAL_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster/cluster.h"
#include "cluster/redis.h"
#include "hub/router.h"
#include "hub/seekbook.h"
#include "hub/session.h"
#include "lib/table.h"
#include "proto.h"

struct game;
struct lobby_seek;
struct lobbyfeed;
struct msgbuf;
struct player;

/* A connection may follow this many games of other nodes at once. */
#define CLUSTER_FOLLOWS_MAX 64
/* A command that finds no host while another node adopts the game is
 * sent again this often, this many times, before it is refused busy. */
#define CLUSTER_RETRY_MS 100
#define CLUSTER_RETRIES 50
/* The sweep adopts at most this many of a dead node's games a tick. */
#define CLUSTER_SWEEP_GAMES 256
/* Bytes of a header line. */
#define HDR_MAX 256

/* ---- records ----------------------------------------------------------- */

/* A connection of another node, mirrored on this host: the router's
 * record (ext) of a remote session of the hub's. */
struct remote {
    struct cluster *c;
    struct session *s;               /* the hub's; s->ext is this */
    char key[3 * PROTO_KEY_MAX + 8]; /* "NODE/INC/CONN" */
    char node[PROTO_KEY_MAX + 1];
    char inc[PROTO_KEY_MAX + 1];
    uint64_t conn;
    int64_t rtt_ms;
    struct table games; /* gid -> its own copy: games it follows here */
};

/* What the cluster keeps of a local connection (its session's ext). */
struct edge {
    uint64_t id;         /* its number on this node, for the hosts */
    char id_key[24];     /* ... in decimal */
    struct table rgames; /* games of other nodes it follows: gid -> its
                            own copy (the key) */
    char seek_sid[33];   /* its open seek in Redis (a SID); "" none */
    size_t attaching;    /* its hello's attaches not yet answered */
};

static inline struct edge *edge_of(const struct session *s)
{
    assert(s->conn && s->ext); /* a local connection's */
    return s->ext;
}

/* The local connections that follow one game of another node. */
struct follow {
    char gid[PROTO_KEY_MAX + 1];
    struct session **s;
    size_t n, cap;
};

/* A message for one connection of another node. */
struct outmsg {
    struct outmsg *next;
    struct msgbuf *b;
    uint64_t seq;
    uint64_t conn;
};

/* A cluster_publish that waits for the store to commit seq. */
struct deferred {
    struct deferred *next;
    uint64_t seq;
    char channel[PROTO_KEY_MAX + 16];
    size_t len;
    char payload[];
};

/* What waits for one node, in order. */
struct outq {
    char node[PROTO_KEY_MAX + 1];
    struct outmsg *head, *tail;
};

/* A client message that waits for its game to be adopted here or found
 * elsewhere. */
struct pending {
    struct pending *next;
    uint64_t sid; /* the local session (it may have closed meanwhile) */
    char kind;
    size_t len;
    char text[]; /* len bytes, NUL-terminated */
};

enum adopt_stage { ADOPT_TAKE, ADOPT_EPOCH, ADOPT_DONE };

struct adoption {
    struct cluster *c;
    char gid[PROTO_KEY_MAX + 1];
    enum adopt_stage stage;
    int64_t epoch;
    uint64_t seq;    /* the epoch's take in the store */
    int64_t seen_ms; /* the previous host's last sign of life (wall) */
    bool handover;   /* handed over: the clock ran until seen_ms */
    struct pending *head, *tail;
};

struct cluster {
    struct hub *h;
    struct store *store; /* the hub's */
    struct redis *r;
    char node[PROTO_KEY_MAX + 1];
    char inc[17]; /* this incarnation: new at start and after a lapse */
    bool up, leased, renewing;
    int64_t lease_until; /* monotonic: the lease surely lasts until then */
    struct hub_alarm *tick, *flusher;
    bool flush_armed;
    uint64_t next_conn;
    struct table locals;   /* decimal session id -> local session */
    struct table remotes;  /* key -> struct remote */
    struct table follows;  /* gid -> struct follow */
    struct table outqs;    /* node -> struct outq */
    struct table adopting; /* gid -> struct adoption */
    struct table epochs;   /* gid -> int64_t*: the epoch of a hosted game */
    struct retry *retries; /* commands to send again, oldest first */
    struct deferred *defer, *defer_tail; /* in seq order */
    struct hub_alarm *retry_alarm;
    char peers[16][PROTO_KEY_MAX + 1]; /* the nodes (SMEMBERS nodes), for
                                          the handover */
    size_t n_peers;
    bool asked_peers, peers_known;
    char orphans_after[PROTO_KEY_MAX + 1]; /* the scan of the store's live
                                              games: where it is */
    bool orphans_scan;                     /* under way */
    int64_t orphans_before; /* ... of the games created before this (wall) */
    int64_t orphans_at;     /* ... from then on (monotonic ms) */
    struct table handing_over; /* gid -> its own copy: a handover in flight */
    struct hub_alarm *handover_alarm; /* while a shutdown hands games over */
    size_t handover_left;
    bool handing, released; /* released: its lease let go (the end) */
    bool id_taken_logged;
};

/* ---- edge: envelopes to hosts ------------------------------------------ */

/* What a forwarded command's PUBLISH waits with. */
struct fwd {
    struct cluster *c;
    uint64_t sid;
    char gid[PROTO_KEY_MAX + 1];
    char kind;
    bool welcome; /* an attach of the session's hello: holds its welcome */
    int tries;
    size_t len;
    char text[];
};

/* ---- cluster.c --------------------------------------------------------- */

/* ---- small helpers ----------------------------------------------------- */

int64_t cluster_now(struct cluster *c);

void cluster_id_key(uint64_t id, char *out, size_t len);

/* A reply callback that only logs failures. */
void cluster_log_reply(void *arg, const redisReply *reply, const char *err);

/* PUBLISH channel payload (len bytes); fn(arg) gets the number of
 * receivers. */
int cluster_publish(struct cluster *c, const char *channel,
                    const char *payload, size_t len, redis_reply_fn *fn,
                    void *arg);

/* redis_eval and redis_command on c's Redis; -1 (fn not called) once the
 * node has left the cluster (cluster_stop). */
int cluster_eval(struct cluster *c, int script, redis_reply_fn *fn, void *arg,
                 int nkeys, const char *const *keys, int nargs,
                 const char *const *args);

int cluster_cmd(struct cluster *c, redis_reply_fn *fn, void *arg,
                const char *format, ...);

struct session *cluster_local_session(struct cluster *c, uint64_t sid);

/* Splits the header line of msg (up to '\n' or the end) into at most
 * max space-separated tokens (copied into buf); *body is what follows
 * the '\n' ("" without one). Returns the number of tokens. */
int cluster_split(const char *msg, size_t len, char *buf, size_t buflen,
                  char **tok, int max, const char **body, size_t *bodylen);

bool cluster_leased(struct cluster *c);

/* ---- host.c ------------------------------------------------------------ */

/* ---- the outbox (host -> edges) ---------------------------------------- */

void host_flush_soon(struct cluster *c);

void cluster_tell_player(struct cluster *c, const char *pid, char kind,
                         const char *payload, size_t len, uint64_t seq);

void host_on_flush(void *arg);

void host_outqs_free(struct cluster *c);

/* A message on cmd:G from another node's connection. */
void host_on_command(struct cluster *c, const char *gid, const char *msg,
                     size_t len);

/* Drops every remote session of node (its lease lapsed; inc NULL: any
 * incarnation, else only those of other incarnations). */
void host_drop_node(struct cluster *c, const char *node, const char *inc);

/* g is hosted here from now on: its commands come here, its followers
 * elsewhere are told, and this node's own followers of it now follow it
 * locally. */
void host_hosting(struct cluster *c, struct game *g, int64_t epoch);

int cluster_host_new(struct cluster *c, const char *gid);

void cluster_tell_players(struct cluster *c, struct game *g);

/* The same without telling the edges: they go on following gid, and
 * attach again when its new host says so (a handover, a host_fence). */
void host_forget_remotes(struct cluster *c, const char *gid);

void cluster_unhost(struct cluster *c, const char *gid);

/* Game gid may no longer be written here (the store fenced it, or
 * another node took it while this node's lease had lapsed): every
 * connection that could have been sent something about it that will
 * never be stored is closed (its client reconnects and resyncs from the
 * true host), and the game leaves memory without a write. */
void host_fence(struct cluster *c, const char *gid);

void cluster_wake(struct cluster *c);

/* ---- edge.c ------------------------------------------------------------ */

/* ---- edge: follows ----------------------------------------------------- */

void edge_subscribe(struct cluster *c, const char *prefix, const char *key,
                    bool on);

/* s no longer follows gid. */
void edge_follow_drop(struct cluster *c, struct session *s, const char *gid);

/* Publishes f's envelope on its game's command channel. */
void edge_send(struct cluster *c, struct fwd *f);

struct fwd *edge_fwd_new(struct cluster *c, struct session *s,
                         const char *gid, char kind, const char *text,
                         size_t len);

/* The message a pending or forwarded command carries, parsed again and
 * run here: its game is in memory now, or it is answered from the
 * store. */
void edge_run_here(struct cluster *c, uint64_t sid, const char *text,
                   size_t len);

void cluster_forward(struct cluster *c, struct session *s,
                     const struct proto_msg *m, const char *text, size_t len,
                     int64_t now);

/* The router's welcome: s is attached at the hosts of its player's live
 * games not hosted here (gids[0..n)) and gets b once Redis has answered
 * every attach's PUBLISH: by then each attach is in its host's queue,
 * ahead of any message the client sends after its welcome (a move the
 * host made just after the welcome went out missed a connection whose
 * attach was still on its way). */
void edge_welcome(void *ctx, struct session *s, const char *const *gids,
                  size_t n, struct msgbuf *b, uint64_t seq);

void edge_player_joined(void *ctx, struct player *p);

void edge_player_left(void *ctx, struct player *p);

/* The router's: s no longer speaks for its player (its seek went with
 * the seek book's drop). After its close (s->ext NULL): nothing left. */
void edge_session_detached(void *ctx, struct session *s);

/* A local connection opened: it gets its number for the hosts'
 * deliveries. */
int edge_session_opened(void *ctx, struct session *s);

/* It closes: detached from every host it follows, and forgotten. */
void edge_session_closed(void *ctx, struct session *s);

/* Every follower of every remote game attaches again with a resync:
 * Redis came back, or this node's lease was taken again. */
void edge_resync_all(struct cluster *c);

void edge_on_node_message(struct cluster *c, const char *msg, size_t len);

/* player:P: P has a new game (N GID: P's connections here attach to
 * it), logged out everywhere (L NODE) or changed its settings (C
 * NODE\nJSON) on another node. */
void edge_on_player_message(struct cluster *c, const char *pid,
                            const char *msg, size_t len);

/* game:G: G moved to another host; its followers here attach there. */
void edge_on_game_message(struct cluster *c, const char *gid, const char *msg,
                          size_t len);

/* Commands that waited for an adoption that did not happen here: sent
 * to the game's host again (another node took it), after a pause. */
struct retry {
    struct retry *next;
    struct fwd *f;
    int64_t at;
};

/* ---- adopt.c ----------------------------------------------------------- */

/* ---- adoption ---------------------------------------------------------- */

void adopt_pending_free(struct pending *p);

void adopt_on_retry(void *arg);

/* Adopts gid: with epoch 0, takes it in Redis first (it has no live
 * host); with an epoch (a handover), the lease is already this node's.
 * seen_ms: when the previous host was last alive (wall), or 0. p (taken)
 * waits for the adoption. */
void adopt_game(struct cluster *c, const char *gid, int64_t epoch,
                int64_t seen_ms, struct pending *p);

void adopt_release(struct cluster *c, const char *gid);

int adopt_epoch_set(struct cluster *c, const char *gid, int64_t epoch);

void adopt_epoch_drop(struct cluster *c, const char *gid);

/* The epoch of a has committed: the game is read from the store and
 * restored here. */
void adopt_finish(struct cluster *c, struct adoption *a);

/* A command reached no host: the game is adopted here when the store
 * has it live, else it is answered here from the store. */
void adopt_no_host(struct cluster *c, struct fwd *f);

/* ---- lease.c ----------------------------------------------------------- */

/* ---- the lease, the sweep ---------------------------------------------- */

void lease_node_keys(struct cluster *c, char *alive, size_t len);

void lease_new_incarnation(struct cluster *c);

/* Every CLUSTER_TICK_MS: the lease, the sweep, and the incarnations of
 * the nodes whose connections are mirrored here. */
void lease_on_tick(void *arg);

/* ---- Redis up and down -------------------------------------------------- */

void lease_on_state(void *arg, bool up);

/* ---- handover.c -------------------------------------------------------- */

void handover_tick(void *arg);

void cluster_begin_handover(struct cluster *c);

bool cluster_handing_over(const struct cluster *c, const char *gid);

bool cluster_handed_over(const struct cluster *c);

/* ---- seeks.c ----------------------------------------------------------- */

void cluster_seek(struct cluster *c, struct session *s,
                  const struct proto_msg *m, const char *sid, int rating,
                  bool provisional);

void cluster_cancel_seek(struct cluster *c, struct session *s,
                         const struct proto_id *id);

/* s's open seek (it closes, or no longer speaks for its player) goes. */
void seeks_drop(struct cluster *c, struct session *s);

/* Writes g's card (all its fields, or only its ply). */
void seeks_card_put(struct cluster *c, const struct game *g, bool ply_only);

void cluster_game_ended(struct cluster *c, const char *gid);

void seeks_cards_tick(struct cluster *c);

void cluster_lobby_fetch(void *arg, struct lobbyfeed *f);

void cluster_accept(struct cluster *c, struct session *s,
                    const struct proto_msg *m);

extern const struct router_ops cluster_router;
extern const struct seekbook_ops cluster_seekbook;

#endif
