/*
 * session.h - one WebSocket connection's state: the connection (an opaque
 * handle of the hub's environment), its peer's address, the player it
 * speaks for after hello, its message budgets and the games it watches as
 * a spectator.
 *
 * The hub (hub.h) creates, routes and frees sessions and owns the player
 * a session points to; a player's fan is a session without a connection.
 * A session remembers the games it watches by GID, not by pointer, so a
 * game freed (or one living elsewhere) leaves nothing dangling here.
 * Only the event-loop thread calls these functions.
 */
#ifndef SERVER_SESSION_H
#define SERVER_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/bucket.h"
#include "lib/table.h"

struct hub;
struct conn;
struct player;
struct session_auth;

/* A message that came while the session's hello was being read, kept to
 * run after it (hub.c's hub_session_replay). */
struct held_in {
    struct held_in *next;
    size_t len;
    char text[];
};
struct msgbuf;
struct session;

/* The store reads in flight of one owner (a session, the cluster): a
 * list of struct hub_read (reads.h), whose answers are dropped once the
 * owner lets them go (hub_reads_orphan). Zeroed is empty. */
struct hub_read;
struct hub_reads {
    struct hub_read *head;
    size_t n;
};

/* A message sent to a session while its output is held, kept behind its
 * first (hub_session_hold). */
struct held_msg {
    struct held_msg *next;
    struct msgbuf *b; /* a reference of its own */
    uint64_t seq;
};

/* How a session's messages reach its connection. */
struct session_ops {
    /* Queues b (adding a reference) to be written once the store has
     * committed seq. */
    void (*send)(struct session *s, struct msgbuf *b, uint64_t seq);
    /* The round trip of the connection the lag credit believes, ms (0:
     * unknown): its smoothed pings', capped by the kernel's own (hub.c,
     * local_rtt_ms; another node's: as its node capped it). */
    int64_t (*rtt_ms)(const struct session *s);
    /* Closes the connection (code, reason), dropping what it queued. */
    void (*close)(struct session *s, int code, const char *reason);
};

/* The token buckets of every connection: each move message takes a token
 * from the first, every other message (and ping or pong frame) from the
 * second. Rates and bursts >= 1. */
struct session_limits {
    int move_rate_per_s, move_burst;
    int msg_rate_per_s, msg_burst;
    int strikes; /* limited replies in a row before a flood closes it */
};

/* What one message may do with the budget (session_admit). */
enum session_admit {
    SESSION_ADMIT,   /* go on */
    SESSION_LIMITED, /* over the budget: answer rate_limited */
    SESSION_FLOOD,   /* over it too many times in a row: close (1008) */
};

struct session {
    struct hub *hub;                     /* the owner */
    struct conn *conn;                   /* NULL: a player's fan */
    struct player *player;               /* the hub's; NULL before hello */
    const char *ip;                      /* the peer's address, not owned: the
                              connection's, which outlives s ("" for a
                              fan) */
    const struct session_limits *limits; /* the hub's, outlives s */
    struct bucket moves, msgs;
    int strikes;  /* consecutive messages over the budget */
    bool waiting; /* a command of its waits for a read (its hello, a
                     game not in memory, its players' facts) ... */
    struct held_in *held_in; /* ... and the messages since wait behind
                                it, in order (hub.c; owned) */
    struct held_in **held_in_tail;
    int n_held_in;
    size_t held_in_bytes;
    struct table subs;         /* games watched: gid -> its own copy (the
                               key), freed with the entry */
    struct session_auth *auth; /* the hub's: an account token in use, a
                                  password job in flight; NULL: none */
    int64_t active_ms;         /* its opening or its last message but `ping`
                          (monotonic ms): a seek of an idle one goes
                          (seeks.c) */
    size_t lobby_slot;         /* watching the lobby: its place in the
                                  lobby feed's list + 1 (lobbyfeed.h);
                                  0: not watching */
    /* How to reach the connection: the hub's own for a local one, a
     * router's for another node's (router.h); NULL for a fan. */
    const struct session_ops *ops;
    void *ext; /* the router's record of the session; NULL: none */
    struct hub_reads reads; /* its store reads in flight (reads.h) */
    /* Output held behind its first message (hub_session_hold), in order;
     * owned. */
    struct msgbuf *hold;
    uint64_t hold_seq;
    struct held_msg *held, **held_tail;
};

/* Sets up *s for conn (NULL: a fan, or another node's) from address ip
 * (NULL: ""; kept, not copied: it must outlive s), reached through ops
 * (NULL: a fan), with full buckets. */
void session_init(struct session *s, struct hub *h, struct conn *conn,
                  const char *ip, const struct session_limits *limits,
                  const struct session_ops *ops);

/* Frees what s holds (its watch lists, its held output), not s itself;
 * its store reads in flight are let go (their answers dropped). */
void session_clear(struct session *s);

/* Charges one message (a move or not) to s's budget at now. */
enum session_admit session_admit(struct session *s, bool move, int64_t now);

/* True when s watches gid. */
bool session_watches(const struct session *s, const char *gid);

/* Adds gid to what s watches. Returns 1 when added, 0 when it was
 * already there, -1 when out of memory. */
int session_watch(struct session *s, const char *gid);

/* Removes gid; true when s watched it. */
bool session_unwatch(struct session *s, const char *gid);

/* Calls each(arg, gid) for every game s watches, then forgets them all. */
void session_unwatch_all(struct session *s,
                         void (*each)(void *arg, const char *gid), void *arg);

#endif
