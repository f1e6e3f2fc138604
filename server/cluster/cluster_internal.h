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
#include "cluster/bus.h"
#include "cluster/codec.h"
#include "hub/metrics.h"
#include "hub/reads.h"
#include "hub/router.h"
#include "hub/seekbook.h"
#include "hub/session.h"
#include "lib/table.h"
#include "store/store.h"
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
/* The games a node remembers it handed over (relay.c): a command that
 * crossed the handover and comes after it is sent on to the new host
 * for CLUSTER_LEASE_MS after. */
#define CLUSTER_HANDED_RING 256
/* The sweep adopts at most this many of a dead node's games a tick; the
 * games of a node dead for less than CLUSTER_SHARE_MS are shared by
 * load (nodes_dead.lua): each live node adopts its share. */
#define CLUSTER_SWEEP_GAMES 256
#define CLUSTER_SHARE_MS (CLUSTER_LEASE_MS + 3 * CLUSTER_TICK_MS)
/* The nodes a handover or the balance considers (the first ones). */
#define CLUSTER_NODES_MAX 16
/* The nodes are balanced when the most loaded hosts at most
 * CLUSTER_BALANCE_PCT % of the mean plus CLUSTER_BALANCE_SLACK games.
 * Past that, the most loaded node moves games to the least loaded until
 * it is within CLUSTER_BALANCE_STOP_PCT % plus CLUSTER_BALANCE_STOP_SLACK
 * (hysteresis: it stops with room to spare). balance.c looks at most at
 * CLUSTER_BALANCE_SCAN of its hosted games a tick for games to move. */
#define CLUSTER_BALANCE_PCT 125
#define CLUSTER_BALANCE_SLACK 8
#define CLUSTER_BALANCE_STOP_PCT 110
#define CLUSTER_BALANCE_STOP_SLACK 4
#define CLUSTER_BALANCE_SCAN 1024
/* A host holds the commands that come while its lease is in doubt at
 * most this long, and at most this many (held.c); then, or beyond, they
 * are refused busy. */
#define CLUSTER_HOLD_MS CLUSTER_LEASE_MS
#define CLUSTER_HELD_MAX 4096
/* Event commands of other nodes' connections that may wait for a read
 * of their player at once on a director (beyond: refused busy). */
#define CLUSTER_EVENT_WAITS 64

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
    struct table begun; /* gid -> its own copy: games of its player that
                           began here while it was in the player's fan
                           (cluster_tell_players): their game_start and
                           state reached it then, and their START sends
                           none again; forgotten at that START or when
                           the game leaves this node */
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
    enum codec_kind kind; /* an envelope's */
    size_t len;
    char text[]; /* len bytes, NUL-terminated */
};

/* An adoption's steps: the store's epoch of the game read (the floor of
 * the take), the take in Redis, the take's epoch committed to the
 * store, the game read from the store; each read is off the loop. */
enum adopt_stage {
    ADOPT_FLOOR,
    ADOPT_TAKE,
    ADOPT_EPOCH,
    ADOPT_READ,
    ADOPT_DONE
};

/* A live node and the games it hosts (nodes.lua). */
struct node_load {
    char node[PROTO_KEY_MAX + 1];
    long long games;
};

struct adoption {
    struct cluster *c;
    char gid[PROTO_KEY_MAX + 1];
    enum adopt_stage stage;
    int64_t epoch;
    uint64_t seq;    /* the epoch's take in the store */
    int64_t seen_ms; /* the previous host's last sign of life (wall) */
    bool handover;   /* handed over: the clock ran until seen_ms */
    char from[PROTO_KEY_MAX + 1]; /* the node whose set lists it ("") */
    struct pending *head, *tail;
};

struct held;

struct cluster {
    struct hub *h;
    struct store *store;    /* the hub's */
    struct hub_reads reads; /* its store reads in flight (reads.h) */
    struct bus bus;
    bool stopped; /* cluster_stop: nothing more goes to the bus */
    char node[PROTO_KEY_MAX + 1];
    char inc[17]; /* this incarnation: new at start and after a lapse */
    bool up, leased, renewing;
    int64_t lease_until; /* monotonic: the lease surely lasts until then */
    int64_t renewed_at;  /* monotonic: its last renewal (or the start) */
    struct cluster_metrics m; /* the counters (the gauges are filled when
                                 read: cluster.c's metrics) */
    struct hub_alarm *tick, *flusher;
    bool flush_armed;
    /* The remote sessions whose event command waits for a read
     * (host.c's event_command): freed once it ran, if they follow no
     * game. Their keys, "NODE/INC/CONN". */
    char event_waits[CLUSTER_EVENT_WAITS][3 * PROTO_KEY_MAX + 8];
    size_t n_event_waits;
    uint64_t next_conn;
    struct table locals;   /* decimal session id -> local session */
    struct table fans;     /* a session's address -> struct fan (seeks.c) */
    int fans_ticks;        /* ticks since the fans' seeks were looked up */
    struct table remotes;  /* key -> struct remote */
    struct table follows;  /* gid -> struct follow */
    struct table outqs;    /* node -> struct outq */
    struct table adopting; /* gid -> struct adoption */
    struct table epochs;   /* gid -> int64_t*: the epoch of a hosted game */
    struct retry *retries; /* commands to send again, oldest first */
    struct relay *relays;  /* crossed a handover: published again (relay.c) */
    struct hub_alarm *relay_alarm;
    struct {                         /* the last games handed over */
        char gid[PROTO_KEY_MAX + 1]; /* ("": none) */
        int64_t at;                  /* (monotonic ms) */
    } handed[CLUSTER_HANDED_RING];
    size_t handed_next;
    struct deferred *defer, *defer_tail; /* in seq order */
    struct hub_alarm *retry_alarm;
    struct node_load peers[CLUSTER_NODES_MAX]; /* the other live nodes,
                                                  for the handover */
    size_t n_peers;
    bool asked_peers, peers_known;
    char orphans_after[PROTO_KEY_MAX + 1]; /* the scan of the store's live
                                              games: where it is */
    bool orphans_scan;                     /* under way */
    bool joined;            /* it joined once (this process): lease.c */
    bool orphans_reading;   /* a page's read is on its way */
    int64_t orphans_before; /* ... of the games created before this (wall) */
    int64_t orphans_at;     /* ... from then on (monotonic ms) */
    struct table handing_over;        /* gid -> struct handover: in flight */
    struct hub_alarm *handover_alarm; /* while a shutdown hands games over */
    size_t handover_left;
    bool handing, released; /* released: its lease let go (the end) */
    bool renew_draining;    /* the renewal in flight marks it stopping */
    bool drain_marked;      /* ... answered: nobody hands it games now */
    bool id_taken_logged;
    int balance_per_s;     /* games it may hand over a second to balance
                              the load; 0: none (cluster_set_balance) */
    bool balance_asked;    /* the nodes' loads asked, not yet answered */
    bool trace;            /* cluster_trace: a line per command's step */
    bool balancing;        /* moving games: the most loaded, over the mark */
    size_t balance_moving; /* its balance's handovers in flight */
    int64_t balance_settle_at; /* the loads are asked again from then on */
    size_t balance_cursor;     /* where the next look for games to move starts
                              in epochs' slots */
    struct held *held;         /* commands held while the lease is in doubt */
    size_t n_held;
    bool remotes_stale; /* the bus went down: what was sent to other
                           nodes' connections may be lost */
    int shards_down;    /* the bus's shards down now (all, before each's
                        first up) */
    char marks[BUS_SHARDS_MAX][48]; /* each shard's mark (shard_mark.lua)
                                       as last seen; "" not yet */
};

/* ---- edge: envelopes to hosts ------------------------------------------ */

/* What a forwarded command's PUBLISH waits with. */
struct fwd {
    struct cluster *c;
    uint64_t sid;
    char gid[PROTO_KEY_MAX + 1];
    enum codec_kind kind; /* an envelope's */
    bool welcome; /* an attach of the session's hello: holds its welcome */
    /* a game's command, or an event's for its director (events.c):
     * one this node has a copy of, or not */
    enum { FWD_GAME, FWD_EVENT, FWD_EVENT_UNKNOWN } event;
    int tries;
    size_t len;
    char text[];
};

/* Commands that waited for an adoption that did not happen here: sent
 * to the game's host again (another node took it), after a pause. */
struct retry {
    struct retry *next;
    struct fwd *f;
    int64_t at;
};

/* ---- cluster.c: helpers --------------------------------------------- */

int64_t cluster_now(struct cluster *c);
void cluster_id_key(uint64_t id, char *out, size_t len);

/* A bus_reply_fn that only logs a failure (arg: the words for what). */
void cluster_log_reply(void *arg, const struct bus_value *v, const char *err);

/* Publishes payload (len bytes) on channel, or message m on its channel;
 * fn(arg) gets the number of receivers (fn NULL: failures are logged).
 * The eval of a script, a follow of "PREFIX:KEY" (on) or its end. Each
 * -1 (fn not called) once the node has left the cluster (cluster_stop),
 * or (cluster_send) when m does not encode. */
int cluster_publish(struct cluster *c, const char *channel,
                    const char *payload, size_t len, bus_reply_fn *fn,
                    void *arg);
int cluster_send(struct cluster *c, const struct codec_msg *m,
                 bus_reply_fn *fn, void *arg);
int cluster_eval(struct cluster *c, enum bus_script script, bus_reply_fn *fn,
                 void *arg, int nkeys, const char *const *keys, int nargs,
                 const char *const *args);
void cluster_follow(struct cluster *c, const char *prefix, const char *key,
                    bool on);
/* The same on a shard of the bus: cluster_publish sends "cmd:G" and
 * "game:G" to G's shard, cluster_send each kind where shard.c says,
 * cluster_eval runs on the first shard, and cluster_follow follows
 * "node:N" on every shard, "cmd:G" and "game:G" on G's, the others on
 * the first. */
int cluster_eval_on(struct cluster *c, int shard, enum bus_script script,
                    bus_reply_fn *fn, void *arg, int nkeys,
                    const char *const *keys, int nargs,
                    const char *const *args);

/* The local session numbered sid (it may have closed meanwhile: NULL). */
struct session *cluster_local_session(struct cluster *c, uint64_t sid);

/* True while this node's lease surely lasts (renewed less than
 * CLUSTER_LEASE_MS ago by the monotonic clock): a host acts on its games
 * only then (a paused process resumes with its lease lapsed, and another
 * node may have taken them). */
bool cluster_leased(struct cluster *c);

/* ---- shard.c: what is on which shard ----------------------------------- */

/* The shard of game gid's keys and channels; of connection conn of node
 * (what a host sends it: node:N on every shard, each connection's on
 * its own, so that its messages keep their order). */
int cluster_game_shard(const struct cluster *c, const char *gid);
int cluster_conn_shard(const struct cluster *c, const char *node,
                       uint64_t conn);

/* Takes gid for this node (game_take.lua on its shard, at an epoch above
 * floor): when another node hosts it, that node's lease is looked at
 * (node_alive.lua) and the game taken from it only when it lapsed. fn
 * gets {epoch, this node[, seen]} (seen, when taken from a node whose
 * lease lapsed: its last sign of life) or {0, host} (a live node hosts it), or err. The sets of
 * the nodes' games follow (node_games.lua), and from (NULL none), the
 * node whose set listed gid, forgets it unless it hosts it. 0, or -1
 * (fn not called). */
int cluster_take(struct cluster *c, const char *gid, int64_t floor,
                 const char *from, bus_reply_fn *fn, void *arg);

/* game_handover.lua of gid to node `to` (fn: the new epoch, or 0), the
 * sets following; game_release.lua of gid (only logged). */
int cluster_hand_game(struct cluster *c, const char *gid, const char *to,
                      bus_reply_fn *fn, void *arg);
void cluster_release_game(struct cluster *c, const char *gid);

/* This node's share of the games of the nodes that died lately
 * (nodes_dead.lua): positions from..upto of 1..of. */
struct sweep_share {
    long long from, upto, of;
};

/* Dead node's games on every shard adopted, a sweep's worth
 * (CLUSTER_SWEEP_GAMES a shard): share's slice of each shard's set
 * (node_games.lua), or any (share NULL: it died a while ago); with none
 * left anywhere it is forgotten (node_forget.lua). */
void cluster_sweep_node(struct cluster *c, const char *node,
                        const struct sweep_share *share);

/* Shard's mark read (or written) now that it is up: a restart is
 * answered by taking this node's games on it again (lease_reclaim), a
 * mark of another place in the list is logged. */
void cluster_shard_mark(struct cluster *c, int shard);

/* ---- host.c: the host's side ------------------------------------------ */

/* Publishes what the store has committed soon (on the loop's next turn). */
void host_flush_soon(struct cluster *c);
void host_on_flush(void *arg); /* (the flusher's alarm) */
void host_outqs_free(struct cluster *c);

/* Tells the player's connections on other nodes a module's payload, once
 * the store has committed seq (router_ops.tell). */
/* A line of the lobby's chat room (text: len bytes) to every node, this
 * one too, once the store has committed seq (rooms:all). */
void cluster_room_line(struct cluster *c, const char *text, size_t len,
                       uint64_t seq);
void cluster_tell_player(struct cluster *c, const char *pid, char kind,
                         const char *payload, size_t len, uint64_t seq);

/* An envelope on cmd:G from another node's connection: run, held while
 * the lease is in doubt (held.c), or refused. */
void host_on_command(struct cluster *c, const struct codec_msg *m);

/* The envelope m cannot run here: a command is answered `rate_limited`
 * ("busy", with its id) to its connection, an attach or a resync is
 * dropped (made again when the game's new host says so). */
void host_refuse(struct cluster *c, const struct codec_msg *m);

/* Every remote session is sent the state of each game it follows here
 * again: what the host sent them while its bus was down is lost. */
void host_resync_remotes(struct cluster *c);

/* Drops every remote session of node (its lease lapsed; inc NULL: any
 * incarnation, else only those of other incarnations). */
void host_drop_node(struct cluster *c, const char *node, const char *inc);

/* Drops what waits for connections conns[0..n) of node and tells their
 * edge to close them (a message to them was lost, or their game fenced). */
void host_kill(struct cluster *c, const char *node, const uint64_t *conns,
               size_t n);

/* g is hosted here from now on (at epoch): its commands come here, its
 * followers elsewhere are told, and this node's own followers of it now
 * follow it locally. */
void host_hosting(struct cluster *c, struct game *g, int64_t epoch);

/* A new game gid hosted here (before its row is written: the epoch's
 * take goes first): taken in the bus, its command channel followed. 0,
 * or -1 when the store's queue is full. */
int cluster_host_new(struct cluster *c, const char *gid);

/* g's seats changed: each player's channel is told (their connections on
 * other nodes attach). */
void cluster_tell_players(struct cluster *c, struct game *g);

/* The remote sessions that follow gid forget it, their edges not told:
 * they go on following gid and attach again when its new host says so
 * (a handover, a fence). */
void host_forget_remotes(struct cluster *c, const char *gid);

/* gid leaves this node's memory: released, its commands unfollowed. */
void cluster_unhost(struct cluster *c, const char *gid);

/* gid leaves this node's memory without a write: handed over, or
 * fenced (cut: the connections that may have been sent something about
 * it that will never be stored are closed; the others follow it to its
 * new host, which attaches them). */
void host_drop(struct cluster *c, const char *gid, bool cut);

/* Game gid may no longer be written here (the store fenced it, or
 * another node took it while this node's lease had lapsed): every
 * connection that could have been sent something about it that will
 * never be stored is closed (its client reconnects and resyncs from the
 * true host), and the game leaves memory without a write. */
void host_fence(struct cluster *c, const char *gid);

/* The loop woke: fenced games, adoptions whose epoch committed, the
 * outbox. */
void cluster_wake(struct cluster *c);

/* ---- held.c: commands held while the lease is in doubt ------------------ */

/* Holds m (copied) behind the others; refused busy when CLUSTER_HELD_MAX
 * are held or out of memory. */
void held_add(struct cluster *c, const struct codec_msg *m);
/* True when a command of gid is held (the next waits behind it). */
bool held_has(const struct cluster *c, const char *gid);
/* The lease holds: the held commands of gid (NULL: all) run, in order. */
void held_run(struct cluster *c, const char *gid);
/* gid cannot run here (fenced, gone): its held commands (NULL: all) are
 * refused busy. */
void held_refuse(struct cluster *c, const char *gid);
/* Those held CLUSTER_HOLD_MS or longer are refused busy (every tick). */
void held_expire(struct cluster *c, int64_t now);
void held_free(struct cluster *c);

/* ---- edge.c: the edge's side ------------------------------------------ */

/* s no longer follows gid. */
void edge_follow_drop(struct cluster *c, struct session *s, const char *gid);

/* g, hosted here, goes to another node: its local subscribers (its
 * players' connections here, its spectators here) follow it there from
 * now on and attach when its new host says so (CODEC_HOSTED); one that
 * may follow no more games is closed (1012: it reconnects, resyncs). */
void edge_follow_away(struct cluster *c, struct game *g);

/* A command or an attach for local s about gid (kind: an envelope's;
 * text: COMMAND's message), malloc'ed; NULL when out of memory. Its
 * envelope published on the game's command channel (f taken). */
struct fwd *edge_fwd_new(struct cluster *c, struct session *s,
                         const char *gid, enum codec_kind kind,
                         const char *text, size_t len);
void edge_send(struct cluster *c, struct fwd *f);

/* The "id" of a command's message text (kind 0: none, or unparsable). */
void edge_command_id(const char *text, size_t len, struct proto_id *id);

/* A command of local session sid (kind: an envelope's; text: its
 * message) that cannot be forwarded or run is answered `rate_limited`
 * ("busy", with its id); the other kinds need no answer. */
void edge_busy(struct cluster *c, uint64_t sid, enum codec_kind kind,
               const char *text, size_t len);

/* The message a pending or forwarded command carries, parsed again and
 * run here: its game is in memory now, or it is answered from the
 * store. */
void edge_run_here(struct cluster *c, uint64_t sid, const char *text,
                   size_t len);

/* Local s's command m (text: len bytes) about a game of another node:
 * to its host; s follows the game from now on. */
void cluster_forward(struct cluster *c, struct session *s,
                     const struct proto_msg *m, const char *text, size_t len,
                     int64_t now);

/* The router's ops of the edge (router.h): the welcome after attaches,
 * a player's first and last connection, a session's life. */
void edge_welcome(void *ctx, struct session *s, const char *const *gids,
                  size_t n, struct msgbuf *b, uint64_t seq);
void edge_player_joined(void *ctx, struct player *p);
void edge_player_left(void *ctx, struct player *p);
void edge_session_detached(void *ctx, struct session *s);
int edge_session_opened(void *ctx, struct session *s);
void edge_session_closed(void *ctx, struct session *s);

/* Every follower of every remote game attaches again with a resync: the
 * bus came back, or this node's lease was taken again. */
void edge_resync_all(struct cluster *c);

/* What hosts and nodes send an edge (node:N, player:P, game:G). */
void edge_on_message(struct cluster *c, const struct codec_msg *m);

/* ---- adopt.c: adoption ------------------------------------------------ */

void adopt_pending_free(struct pending *p);
void adopt_on_retry(void *arg); /* (the retries' alarm) */

/* Adopts gid: with epoch 0, takes it in the bus first (it has no live
 * host); with an epoch (a handover), the lease is already this node's.
 * seen_ms: when the previous host was last alive (wall), or 0. p (taken)
 * waits for the adoption. */
void adopt_game(struct cluster *c, const char *gid, int64_t epoch,
                int64_t seen_ms, struct pending *p);
/* Adopts gid, listed in the set of dead node `from`'s games (the sweep). */
void adopt_game_from(struct cluster *c, const char *gid, const char *from);

/* A node handed m->gid over to this one (CODEC_HANDOVER). */
void adopt_handed_over(struct cluster *c, const struct codec_msg *m);

/* The epoch of a game hosted here (0 or -1 when out of memory), or no
 * longer hosted. */
int adopt_epoch_set(struct cluster *c, const char *gid, int64_t epoch);
void adopt_epoch_drop(struct cluster *c, const char *gid);

/* The epoch of a has committed: the game is read from the store and
 * restored here. */
void adopt_finish(struct cluster *c, struct adoption *a);

/* A command reached no host: the game is adopted here when the store
 * has it live, else it is answered here from the store (f taken). */
void adopt_no_host(struct cluster *c, struct fwd *f);
/* ---- events.c: tournaments (router.h's event_lease, event_forward) */
int cluster_event_lease(void *ctx, const char *eid, int64_t lease_ms,
                        bool ours, router_answer_fn *fn, void *arg);
bool cluster_event_forward(void *ctx, struct session *s, const char *eid,
                           const char *text, size_t len, bool known);
int cluster_event_count(void *ctx, const char *kind, const char *op,
                        const char *eid, const char *pid, int64_t life_ms,
                        int max_all, int max_creator, router_answer_fn *fn,
                        void *arg);

/* ---- lease.c: the lease ------------------------------------------------ */

void lease_new_incarnation(struct cluster *c);

/* Each game hosted here on shard (BUS_EVERY: on every shard) taken again
 * (a new epoch): after a lapse of the lease, or a shard's restart. A
 * game another node took meanwhile is fenced. */
void lease_reclaim(struct cluster *c, int shard);

/* node_renew.lua of this node's lease for ms from now, with the games
 * it hosts and, while it stops (handing), marked stopping: nobody hands
 * it games (fn(c, ...) gets 1 renewed, 0 lapsed). 0, or -1 (fn not
 * called). */
int lease_renew(struct cluster *c, int ms, bus_reply_fn *fn);

/* The lease renewed now (CLUSTER_LEASE_MS; lease.c has the answer). */
void lease_renew_now(struct cluster *c);

/* Every CLUSTER_TICK_MS: the lease, the sweep, and the incarnations of
 * the nodes whose connections are mirrored here. */
void lease_on_tick(void *arg);

/* A shard of the bus came up or went down (bus_state_fn). */
void lease_on_state(void *arg, int shard, bool up);

/* ---- handover.c: the shutdown's handover ------------------------------ */

void handover_tick(void *arg); /* (its alarm, every 10 ms) */

/* Hands gid, hosted here with its writes committed, to live node `to`
 * (game_handover.lua): its commands are forwarded from now on, and once
 * the bus has answered the game leaves this node, its local connections
 * following it there, and `to` adopts it. balance: the balance's (its
 * balance_moving counts it). 0, or -1 (nothing changed). */
int handover_start(struct cluster *c, const char *gid, const char *to,
                   bool balance);

/* The handovers whose answer was lost are asked again (the bus is up). */
void handover_retry(struct cluster *c);

/* A shutdown (SIGTERM): hands every hosted game to another live node,
 * each once its last writes have committed, and stops taking commands
 * for them. True once nothing is left to hand over (or nobody to hand it
 * to) and the lease is let go. */
void cluster_begin_handover(struct cluster *c);
bool cluster_handed_over(const struct cluster *c);

/* True while gid, hosted here, is being handed to another node: its
 * commands are not run here any more (a move made in that window would
 * be written with the old epoch, refused once the new host took the
 * game, and yet its `moved` released), but forwarded to the new host. */
bool cluster_handing_over(const struct cluster *c, const char *gid);

/* ---- balance.c: the load spread over the nodes ------------------------ */

/* The live nodes and their loads of nodes.lua's answer v into out (at
 * most max; this node's too): how many. */
size_t balance_loads(const struct bus_value *v, struct node_load *out,
                     size_t max);

/* The least loaded of l[0..n) (ties: the first name), or NULL. */
struct node_load *balance_least(struct node_load *l, size_t n);

/* Every tick: when this node is the most loaded and the nodes are out of
 * balance, up to balance_per_s of its movable games go to the least
 * loaded (handover_start). */
void balance_tick(struct cluster *c);

/* ---- seeks.c: the lobby in the bus ------------------------------------ */

/* The seek book's ops (seekbook.h) over the bus: place, cancel, accept;
 * s's open seek dropped (it closes, or no longer speaks for its player). */
void cluster_seek(struct cluster *c, struct session *s,
                  const struct proto_msg *m, const struct lobby_seek *k);
void cluster_cancel_seek(struct cluster *c, struct session *s,
                         const struct proto_id *id);
void cluster_accept(struct cluster *c, struct session *s,
                    const struct proto_msg *m);
bool seeks_drop(struct cluster *c, struct session *s);
/* True when s has an open seek in Redis (a local connection's, or a
 * fan's: a session with no connection here, a Board API seek's). */
bool seeks_has(struct cluster *c, const struct session *s);
/* s no longer holds its seek, which stays in Redis until taken (a Board
 * API correspondence seek); s's record here goes. */
void seeks_disown(struct cluster *c, struct session *s);
/* A seek of pid's placed here paired on another node (CODEC_PAIRED):
 * pid's fans here no longer hold one (their streams end). */
void seeks_paired(struct cluster *c, const char *pid);
/* Every few ticks: the fans' seeks looked up in Redis, those gone (replaced
 * or cancelled through another node) no longer held. */
void seeks_fans_tick(struct cluster *c);
/* The fans' records freed (cluster_free). */
void seeks_fans_free(struct cluster *c);
/* Dead node's open seeks go (the sweep). */
void seeks_drop_node(struct cluster *c, const char *node);

/* challenges.c: the router's challenge ops (router.h), and a dead node's
 * challenges closed, their players told (hub/challenge.h's
 * challenge_lost). */
int challenges_open(void *ctx, const char *id, const char *from,
                    const char *to, const char *record, int max_out,
                    int max_in, router_answer_fn *fn, void *arg);
int challenges_close(void *ctx, const char *id, router_answer_fn *fn,
                     void *arg);
int challenges_update(void *ctx, const char *id, const char *record,
                      router_answer_fn *fn, void *arg);
int challenges_read(void *ctx, const char *id, router_answer_fn *fn,
                    void *arg);
int challenges_list(void *ctx, const char *pid, router_answer_fn *fn,
                    void *arg);
int challenges_present(void *ctx, const char *pid, router_answer_fn *fn,
                       void *arg);
void challenges_drop_node(struct cluster *c, const char *node);

/* g's card in the lobby's list of live games (all its fields, or only
 * its ply), or its end; the tick's refresh of the first ones' plies. */
void seeks_card_put(struct cluster *c, const struct game *g, bool ply_only);
void cluster_game_ended(struct cluster *c, const char *gid);
void seeks_cards_tick(struct cluster *c);

/* The lobby feed's source (lobbyfeed_set_source): a snapshot of every
 * node's seeks and the first live games, from the bus. */
void cluster_lobby_fetch(void *arg, struct lobbyfeed *f);

/* ---- relay.c: commands that crossed a handover ------------------------- */

/* m (a command for a game this node is handing over, or just handed
 * over) is published again on cmd:G until the game's new host hears it,
 * then refused busy after CLUSTER_RETRIES tries: true; false when m is
 * no command, or out of memory (the caller refuses it). */
bool relay_add(struct cluster *c, const struct codec_msg *m);
/* gid was handed over now; whether it was a moment ago. */
void relay_handed(struct cluster *c, const char *gid);
bool relay_was_handed(const struct cluster *c, const char *gid);
void relay_on_alarm(void *arg); /* (relay_alarm's) */
void relay_free(struct cluster *c);

/* ---- trace.c: the command trace (cluster_trace) ------------------------ */

/* One line `event=cmd_trace` for a step of a client command (text[0..len),
 * or NULL) about gid from connection conn of node from (NULL: this node),
 * with fmt's key=value fields after it. Call it through TRACE_CMD: off,
 * a step costs one test. Loop thread. */
void trace_cmd(const struct cluster *c, const char *step, const char *gid,
               const char *from, uint64_t conn, const char *text, size_t len,
               const char *fmt, ...) __attribute__((format(printf, 8, 9)));
#define TRACE_CMD(c, ...)                \
    do {                                 \
        if ((c)->trace)                  \
            trace_cmd((c), __VA_ARGS__); \
    } while (0)

extern const struct router_ops cluster_router;
extern const struct seekbook_ops cluster_seekbook;

#endif
