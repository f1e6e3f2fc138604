/*
 * hubfake.h - a hub over a fake environment, for test_hub and
 * test_http_api: fake connections that keep every message sent to them
 * (with the store sequence it waits for) and their close code, fake
 * alarms fired when the test moves time on, a fake clock. The store is
 * real, in a mkdtemp directory removed afterwards: what the hub reads back
 * (tokens, finished games) goes through SQLite as in the server.
 */
#ifndef TESTS_UNIT_HUBFAKE_H
#define TESTS_UNIT_HUBFAKE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "hub/hub.h"

#define FAKE_MAXMSG 256
#define FAKE_MAXNODES 4

struct cluster;
struct busfake_client;

/* A node: its hub and, in a cluster's test, what the test joins it to
 * (fake_node_joined). A paused node's process is stopped: its alarms do
 * not fire and it is not woken. */
struct fnode {
    struct hub *hub;
    struct cluster *cluster; /* the test's; NULL: a node alone */
    struct busfake_client *busc;
    bool paused;
    char id[16]; /* "n1", "n2", ... */
};

/* A connection: the hub sees it as a struct conn *. */
struct fconn {
    char *msg[FAKE_MAXMSG]; /* owned copies */
    uint64_t seq[FAKE_MAXMSG];
    const struct msgbuf *buf[FAKE_MAXMSG]; /* which buffer it was (never
                                              dereferenced: to compare) */
    int n;
    int now_n;          /* of which sent with send_now */
    int closed;         /* the close code; 0 while open */
    struct session *s;  /* NULL once hub_close'd */
    int64_t rtt_ms;     /* what the fake env says its ping round trip is */
    char ip[64];        /* its address: the session keeps a pointer to it,
                          as to a real connection's */
    struct fnode *node; /* the node it is connected to */
};

/* The hub under test (node 0's), its store and the fake clock
 * (monotonic ms). */
/* The hub's settings at config.c's defaults (a field a test leaves 0
 * gets its default). */
extern const struct hub_config fake_hub_defaults;
extern struct hub *fake_hub;
extern struct fnode fake_nodes[FAKE_MAXNODES];
extern int fake_nnodes;
/* A cluster's test sets these before fake_nodes_setup: joined is called
 * for each node once its hub is made, stopping before the teardown
 * shuts the hubs down and closes the connections (the node leaves the
 * bus), freeing just before its hub is freed; fake_settle pumps with
 * fake_pump (how many events it delivered). */
extern void (*fake_node_joined)(struct fnode *n);
extern void (*fake_node_stopping)(struct fnode *n);
extern void (*fake_node_freeing)(struct fnode *n);
extern size_t (*fake_pump)(void);
extern struct store *fake_store;
extern int64_t fake_now;
/* Added to the real wall clock the hub reads (ms): a test moves days on. */
extern int64_t fake_wall_shift;
/* Not 0: the wall clock the hub reads stands still there (Unix ms). */
extern int64_t fake_wall_at;

/* Opens a store in a fresh directory and a hub over the fakes with cfg
 * (NULL: the defaults). */
void fake_setup(const struct hub_config *cfg);
/* The same with n nodes (ids n1, n2, ...) over one store, settled once
 * made (a cluster's: every node has joined). */
void fake_nodes_setup(int n, const struct hub_config *cfg);

/* Closes every fake connection still open, frees the hubs and the store,
 * removes the directory. */
void fake_teardown(void);

/* Closes every fake connection still open and frees the hub, then
 * creates a new one over the same store with cfg (NULL: the defaults), as
 * a restart does. */
void fake_restart(const struct hub_config *cfg);

/* The path of the store's database (to hold its write lock from a raw
 * connection, or look behind the store's back). */
const char *fake_db_path(void);

/* A new connection from ip (copied), opened in node 0's hub, or node's. */
struct fconn *fake_connect(const char *ip);
struct fconn *fake_connect_to(struct fnode *node, const char *ip);
/* The connection closes (the hub's hub_close). */
void fake_disconnect(struct fconn *c);

/* Waits (bounded: 10 s) until the store has committed everything queued
 * and answered every read (unless fake_hold_reads holds them),
 * (unless fake_hold_passwords holds them) the password workers have
 * answered every job and the bus has nothing left to deliver, waking
 * every hub that is not paused (hub_wake) as the loop does after a
 * commit or an answer. */
void fake_settle(void);

/* Holds the password workers (hold != 0: jobs wait, fake_settle does not
 * wait for them) or lets them go on. */
void fake_hold_passwords(int hold);

/* Waits (bounded: 10 s) until every read is answered, waking the hubs:
 * fake_settle without waiting for the store's commits (a test holds the
 * database's write lock). */
void fake_settle_reads(void);

/* A test looks at the store behind the hub's back (peek true: its
 * synchronous reads on the loop's thread are allowed), or no more. */
void fake_peek(bool peek);

/* Holds the store's reader (hold != 0: reads wait, fake_settle does not
 * wait for them) or lets it go on. */
void fake_hold_reads(int hold);

/* Moves the clock to now + ms and fires the alarms due, in order. */
void fake_advance(int64_t ms);
/* fake_advance without waiting for the store between the alarms (while a
 * test holds the database's write lock). */
void fake_advance_unsettled(int64_t ms);

/* Sends a text message (printf format) on c at fake_now, then settles.
 * Returns what hub_on_text returned. */
enum proto_type fake_say(struct fconn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* fake_say of a move: gid's uci at ply. */
enum proto_type fake_move(struct fconn *c, const char *gid, const char *uci,
                          int ply);

/* An HTTP answer that waited for a read (hub_env.http_answer). */
struct fake_http_answer {
    int status;
    const char *type;
    char *body; /* malloc'ed: the caller's once taken */
    size_t len;
};
/* Takes the answer to the request `later` into *out: false when none
 * came (yet). */
bool fake_http_answered(uint64_t later, struct fake_http_answer *out);

/* Message i of c parsed (a new reference), -1: the last. */
json_t *fake_msg(const struct fconn *c, int i);
/* The "t" of c's last message ("" when none). */
const char *fake_last_t(const struct fconn *c);
/* The last message of c with "t" == t, parsed, or NULL. */
json_t *fake_find(const struct fconn *c, const char *t);
/* How many of c's messages have "t" == t. */
int fake_count(const struct fconn *c, const char *t);
/* The "code" of c's last message, which must be an error. */
const char *fake_error(const struct fconn *c);
/* Forgets c's messages. */
void fake_clear(struct fconn *c);

/* hello as a new guest named name on c: copies its pid and token. */
void fake_hello(struct fconn *c, const char *name, char pid[64],
                char token[64]);
/* An invitation by c (white, 5+0) and its GID. */
void fake_invite(struct fconn *c, char gid[64]);

#endif
