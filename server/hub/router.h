/*
 * router.h - the hub's port to other nodes: what the hub asks about
 * what is not in its memory, and what a router may ask of the hub.
 *
 * The hub hosts the games in its memory and serves the connections it
 * was given. Whatever concerns another node goes through one struct
 * router: a connection opened or closed here, a player's first or last
 * connection, a command about a game hosted elsewhere, a new game, a
 * player to tell elsewhere, the shutdown's handover. hub_new installs
 * the local router (router_local.c: no other node, every lease held);
 * the cluster installs its own (cluster/cluster.h) before the first
 * connection, and with it the other port, the seek book (seekbook.h).
 *
 * The second half of this header is the hub's side: the few functions
 * a router calls to reach the games, players and sessions of this node
 * (a command from another node's connection, an adoption, a handover).
 * Only the event-loop thread calls any of these functions.
 */
#ifndef SERVER_HUB_ROUTER_H
#define SERVER_HUB_ROUTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct cluster_metrics;
struct hub;
struct game;
struct msgbuf;
struct player;
struct session;
struct session_ops;
struct store;
struct store_game;
struct store_move;

/* A reply of the cluster's analysis queue: its words (n of them, valid
 * during the call; a number as its digits), or n -1 when it failed. */
typedef void router_words_fn(void *arg, const char *const *words, int n);
/* A router's answer to a question asked of other nodes (rc: the op's;
 * text, len bytes: challenge_read's record, else NULL). */
typedef void router_answer_fn(void *arg, long rc, const char *text,
                              size_t len);

/* The tag (module.h) of what the nodes tell a player's other nodes of
 * its games (botapi.c's): "S GID" (a new game of the player's on
 * another node: the router gives hub_told it when its NEW_GAME comes)
 * and "F GID" (the game ended, told by its host); and the relay of a
 * game's API stream and POSTs between an edge and the host
 * (botapi_remote.c: its header lists the words, to a player's nodes
 * and, with tell_all, to every node). */
#define ROUTER_TELL_GAME 'G'

/* The hub's questions. Each op gets the router's ctx. */
struct router_ops {
    /* A local connection opened (0; -1 refuses it: out of memory) or
     * closes (after its seek, before its detach). */
    int (*session_opened)(void *ctx, struct session *s);
    void (*session_closed)(void *ctx, struct session *s);
    /* Local s no longer speaks for its player (a logout, a login as
     * another, its close): it follows no game elsewhere any more. */
    void (*session_detached)(void *ctx, struct session *s);
    /* p's first local connection came (p->nconns is 1), or its last
     * went (0). */
    void (*player_joined)(void *ctx, struct player *p);
    void (*player_left)(void *ctx, struct player *p);
    /* Sends local s its welcome b (a new reference taken) once s
     * follows its player's games elsewhere (gids[0..n)). */
    void (*welcome)(void *ctx, struct session *s, const char *const *gids,
                    size_t n, struct msgbuf *b, uint64_t seq);
    /* Local s sent m (text: its len bytes) about game m->game: true
     * when the router took it (the game is another node's, or nobody's
     * in memory), false to run it here. */
    bool (*forward)(void *ctx, struct session *s, const struct proto_msg *m,
                    const char *text, size_t len, int64_t now);
    /* True while this node may act on the games it hosts (its lease
     * surely lasts). */
    bool (*leased)(void *ctx);
    /* Game gid is about to be hosted here (before its row is written).
     * 0, or -1 to refuse it (busy). */
    int (*game_new)(void *ctx, const char *gid);
    /* g's seats changed (it was created or joined). */
    void (*game_seated)(void *ctx, struct game *g);
    /* g ended; gid leaves this node's memory. */
    void (*game_ended)(void *ctx, struct game *g);
    void (*game_gone)(void *ctx, const char *gid);
    /* True when a live game of the store that is not in memory may be
     * hosted by another node (its state is rebuilt from the store), and
     * the store's list of a player's live games counts every node's
     * (facts.c reads it). */
    bool (*shared_store)(void *ctx);
    /* Tells pid's connections on other nodes, once seq has committed:
     * the payload (len bytes, may be NULL) of the module whose tag is
     * tag (module.h); hub_told on each node that has them. */
    void (*tell)(void *ctx, const char *pid, char tag, const char *payload,
                 size_t len, uint64_t seq);
    /* The loop woke (the store committed, a worker answered). */
    void (*wake)(void *ctx);
    /* A shutdown began (the games go to other nodes); true once the
     * process may exit. */
    void (*shutdown)(void *ctx);
    bool (*stoppable)(void *ctx);
    /* A cluster node's figures for /metrics (hub_cluster_metrics); NULL
     * for a node alone, which has none. */
    void (*metrics)(void *ctx, struct cluster_metrics *out);
    /* A token of the shared limit `name` was taken here for key (both
     * valid for the call): the other nodes take one too, through
     * hub_limit_charge (sharedlimits.c). NULL on a node alone. */
    void (*limit_taken)(void *ctx, const char *name, const char *key);
    /* The payload (len bytes) of the module whose tag is tag (module.h)
     * to every other node, now (hub_told_all there): at most once, in
     * the order told. NULL on a node alone. */
    void (*tell_all)(void *ctx, char tag, const char *payload, size_t len);
    /* Runs an operation of the cluster's queue of analyses
     * (cluster/lua/analysis_queue.lua: args[0] the operation, then its
     * arguments, at most 8 in all; take's and renew's NODE, args[1], is
     * this node, filled in here); fn gets the answer once, later. 0, or -1 when it was
     * not sent (fn not called). NULL on a node alone. */
    int (*analysis_queue)(void *ctx, const char *const *args, int nargs,
                          router_words_fn *fn, void *arg);
    /* A line of the lobby's chat room (text: len bytes, its chat
     * message): every node, this one too, gets it through
     * hub_room_heard once seq has committed, all in one order. False:
     * not taken (Redis is down): the hub delivers it here. NULL on a
     * node alone. */
    bool (*room_line)(void *ctx, const char *text, size_t len, uint64_t seq);
    /* Challenges across nodes (challenge.c); NULL on a node alone, whose
     * memory counts and ends them. Each answers fn(arg, rc) later, never
     * within the call, or returns -1 (fn never called: not asked).
     * challenge_open: rc 0 (opened, with its record: challenge.c's
     * text), 1 (from has max_out pending on any node), 2 (to has max_in),
     * -1 (failed). challenge_close: 1 (closed by this call: its caller
     * ends it), 0 (ended already), -1. challenge_read: 1 with the
     * record, 0 (none pending), -1. challenge_update: 1 (its record is
     * record from now on: its lapse re-armed), 0 (none pending), -1.
     * challenge_list: how many of pid's
     * pending challenges (sent and received) there are, with their
     * records in text, each ended by a NUL; -1. present: how many nodes
     * hold a
     * connection of pid (this one included), -1 (failed). */
    int (*challenge_open)(void *ctx, const char *id, const char *from,
                          const char *to, const char *record, int max_out,
                          int max_in, router_answer_fn *fn, void *arg);
    int (*challenge_close)(void *ctx, const char *id, router_answer_fn *fn,
                           void *arg);
    int (*challenge_read)(void *ctx, const char *id, router_answer_fn *fn,
                          void *arg);
    int (*challenge_list)(void *ctx, const char *pid, router_answer_fn *fn,
                          void *arg);
    int (*challenge_update)(void *ctx, const char *id, const char *record,
                            router_answer_fn *fn, void *arg);
    int (*present)(void *ctx, const char *pid, router_answer_fn *fn,
                   void *arg);
    /* Tournaments across nodes (arena_director.c); NULL on a node alone,
     * which directs every event it has. event_lease: take (or renew)
     * the lease of directing event eid for lease_ms, or (lease_ms 0)
     * let it go; fn(arg, rc) later: 1 held by this node (its commands'
     * channel followed from then on; ours: this node directs eid
     * already, or creates it: followed from the ask on), 0 another
     * node's, -1 failed; or
     * -1 returned (fn never called). event_forward: s's command (text:
     * len bytes) to the director of event eid, whose answers reach s;
     * with no director s is answered busy (known: the event is, its
     * director changes) or no_such_event; false when it was not sent
     * (s is answered busy). */
    int (*event_lease)(void *ctx, const char *eid, int64_t lease_ms,
                       bool ours, router_answer_fn *fn, void *arg);
    bool (*event_forward)(void *ctx, struct session *s, const char *eid,
                          const char *text, size_t len, bool known);
    /* The cluster's count of open events of kind (event_count.lua): op
     * "take" (event eid of creator pid counted for life_ms unless
     * max_all are, or max_creator of pid's), "renew" or "drop";
     * fn(arg, rc) later: 1 counted (dropped: 1, or 0 when it was not),
     * -1 max_all counted, -2 max_creator, -3 failed; or -1 returned (fn
     * never called). */
    int (*event_count)(void *ctx, const char *kind, const char *op,
                       const char *eid, const char *pid, int64_t life_ms,
                       int max_all, int max_creator, router_answer_fn *fn,
                       void *arg);
};

struct router {
    const struct router_ops *ops;
    void *ctx;
};

/* Routes what is not on this node through r (copied; its ctx outlives
 * the hub or a later call), or through the local router (r NULL). */
void hub_set_router(struct hub *h, const struct router *r);

/* ---- the hub's side ---------------------------------------------------- */

/* True when this node directs the tournament eid (its lease taken): a
 * command about it from another node is run here (hub_run). */
bool hub_event_here(struct hub *h, const char *eid);

/* The game gid in this node's memory, or NULL. */
struct game *hub_game(struct hub *h, const char *gid);

/* True when the store had no game gid lately (LIMIT_UNKNOWN_GAME_MS): a
 * command about it is answered no_such_game without a read (counted);
 * hub_unknown_game_note remembers one a read did not find. */
bool hub_unknown_game(struct hub *h, const char *gid);
void hub_unknown_game_note(struct hub *h, const char *gid);

/* The player pid in memory, or NULL; hub_player_get creates it (named
 * name) when missing (NULL when out of memory). The hub owns players:
 * one is freed once nothing refers to it (hub_player_release). */
struct player *hub_player(struct hub *h, const char *pid);
struct player *hub_player_get(struct hub *h, const char *pid,
                              const char *name);
void hub_player_release(struct hub *h, struct player *p);

/* A session for a connection of another node (conn NULL), reached
 * through ops (not copied), with the router's record ext, speaking for
 * p from now on (p's first connection anywhere brings it back to its
 * games). NULL when out of memory. hub_remote_close detaches it (its
 * watches end; p's last one leaves its games) and frees it. */
struct session *hub_remote_open(struct hub *h, const struct session_ops *ops,
                                void *ext, struct player *p);
void hub_remote_close(struct hub *h, struct session *s, int64_t now);
/* A stream of the HTTP API (botapi.c: a remote session of p's) opens
 * (on) or closes (before its hub_remote_close): while p has one here or
 * a local connection, its player channel is followed (player_joined,
 * player_left): what other nodes tell p reaches it. */
void hub_stream_follow(struct hub *h, struct player *p, bool on);

/* Runs message m (text: its len bytes) from s here: a remote session's
 * command, or a local one's whose game was adopted meanwhile or has no
 * host (answered from the store). Never forwarded again. */
void hub_run(struct session *s, const struct proto_msg *m, const char *text,
             size_t len, int64_t now);

/* Queues b for s, to be written once the store has committed seq (0:
 * as soon as possible); hub_send_text takes text (malloc'ed); errors
 * are counted. */
void hub_session_send(struct session *s, struct msgbuf *b, uint64_t seq);
void hub_send_text(struct session *s, char *text, uint64_t seq);
void hub_send_error(struct session *s, enum proto_code code, const char *msg,
                    const struct proto_id *id);
/* Answers s rate_limited "the server is busy" (a queue is full, a
 * database read failed, out of memory). */
void hub_busy(struct session *s, const struct proto_id *id);

/* s's output is held behind b (a new reference taken; with seq) until
 * hub_session_release: what is sent to s meanwhile waits, in order. A
 * second hold releases the first. */
void hub_session_hold(struct session *s, struct msgbuf *b, uint64_t seq);
void hub_session_release(struct session *s);

/* Closes s's connection (a local one) with a WebSocket close code,
 * dropping what its queue holds. */
void hub_session_close(struct session *s, int code, const char *reason);

/* s watches g as a spectator (its state sent to s), or no longer. */
void hub_watch(struct session *s, struct game *g, int64_t now);
void hub_unwatch(struct session *s, struct game *g);

/* A live game from the store (row, moves[0..n)) hosted here from now
 * on, as hub_restore restores one (the side to move charged up to
 * seen_ms, Unix ms; 0: not charged). NULL when it cannot be rebuilt or
 * out of memory. */
struct game *hub_adopt_game(struct hub *h, const struct store_game *row,
                            const struct store_move *moves, size_t n,
                            int64_t seen_ms, int64_t now);

/* g leaves memory without a write (handed over, or fenced by the
 * store: cut closes the local connections that follow it, 1012). */
void hub_drop_game(struct hub *h, struct game *g, bool cut);

/* Another node took a token of the shared limit `name` for key
 * (router_ops.limit_taken): this node's bucket of it loses one too. An
 * unknown name is ignored. */
void hub_limit_charge(struct hub *h, const char *name, const char *key,
                      int64_t now);

/* b goes to every local connection after hello, ahead of what waits for
 * the store (a notice about the server itself). */
void hub_notice_all(struct hub *h, struct msgbuf *b);

/* Another node told player pid (router_ops.tell): the module tagged
 * tag gets the payload. */
void hub_told(struct hub *h, const char *pid, char tag, const char *payload,
              size_t len, int64_t now);

/* Another node told every node (router_ops.tell_all): the module tagged
 * tag gets the payload. */
void hub_told_all(struct hub *h, char tag, const char *payload, size_t len,
                  int64_t now);
/* A line of the lobby's chat room from router_ops.room_line (text: len
 * bytes, its chat message): this node's lobby watchers get it (rooms.c);
 * another node's (own false) takes a token of this node's bucket of the
 * room too, so the room's rate is the cluster's. */
void hub_room_heard(struct hub *h, const char *text, size_t len, bool own);

/* The store, the clocks (monotonic and Unix ms) and the timers of the
 * hub's environment (hub.h). */
struct store *hub_store(struct hub *h);
int64_t hub_now_ms(struct hub *h);
int64_t hub_wall_ms(struct hub *h);
struct hub_alarm;
struct hub_alarm *hub_alarm_new(struct hub *h, void (*cb)(void *arg),
                                void *arg);
void hub_alarm_arm(struct hub *h, struct hub_alarm *a, int64_t at);
void hub_alarm_free(struct hub *h, struct hub_alarm *a);

#endif
