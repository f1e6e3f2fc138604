/*
 * redis_internal.h - what redis.c (the connections, their handshake,
 * pub/sub, reconnection, signatures) and redis_cmd.c (the commands,
 * their queue while down, the scripts, the bus) share: struct redis and
 * its parts. Nothing else includes it.
 */
#ifndef SERVER_CLUSTER_REDIS_INTERNAL_H
#define SERVER_CLUSTER_REDIS_INTERNAL_H

#include <ev.h>
#include <hiredis/hiredis.h>
#include <stdint.h>

#include "cluster/redis.h"
#include "lib/table.h"

/* A command owed a reply: a caller's (fn set), or one of the handshake
 * (fn NULL: AUTH, PING, SCRIPT LOAD of script number `script`). */
struct cmd {
    struct cmd *next; /* in r->queue, r->failed or a conn's sent list */
    struct redis *r;
    redis_reply_fn *fn;
    void *arg;
    char *buf; /* the command in Redis's protocol (hiredis's format) */
    size_t len;
    int script;        /* -1, or the script an EVALSHA runs or loads */
    double deadline;   /* while queued: ev_now() after which it fails */
    const char *error; /* in r->failed: what fn will be told */
    bool publish;      /* a PUBLISH (its round trip measured apart) */
    int64_t sent_us;   /* when it was first sent (monotonic), for the
                          metrics */
};

/* One connection to Redis: its stream, the reader of its replies, the
 * commands it sent in order (each reply answers the oldest). */
struct conn {
    struct redis *r;
    struct stream *st;
    redisReader *reader;
    struct cmd *sent, **sent_tail;
    bool pubsub;
    int depth; /* replies being handled */
    bool dead; /* let go of: freed when depth is back to 0 */
};

struct script {
    char *source;
    char sha[41];
};

/* A channel's state on the current pub/sub connection. */
enum chan_state {
    CHAN_NONE,        /* not subscribed (or no connection) */
    CHAN_SUBSCRIBING, /* SUBSCRIBE sent, not confirmed */
    CHAN_SUBSCRIBED,
    CHAN_UNSUBSCRIBING, /* UNSUBSCRIBE sent, not confirmed */
};

struct chan {
    bool wanted; /* followed by the caller */
    enum chan_state state;
    int64_t since_ms; /* wall clock when the caller began to follow it */
    char name[];      /* its key in r->chans */
};

struct redis {
    struct ev_loop *loop;
    char *host; /* NULL for a unix socket */
    char *path; /* the socket's path, or NULL */
    int port;
    char *user, *password;
    struct stream_tls *tls; /* NULL: plain */
    struct signer *signer;  /* NULL: nothing signed */
    int connect_timeout_ms, backoff_min_ms, backoff_max_ms;
    int queue_max, queue_ms;
    redis_state_fn *on_state;
    redis_message_fn *on_message;
    void *arg;

    struct conn *cmd, *sub; /* NULL when not connected */
    bool up;
    bool closing;       /* in redis_free */
    bool refused;       /* the last failure was a refusal */
    bool probe;         /* redis_check's: logs nothing */
    int handshake;      /* replies awaited before up */
    int backoff_ms;     /* before the next attempt */
    ev_timer retry_ev;  /* the next attempt, or the attempt's timeout */
    ev_timer queue_ev;  /* the queue's oldest command's deadline */
    ev_timer failed_ev; /* reports r->failed on the next turn */
    struct cmd *queue, **queue_tail;
    size_t queued;
    struct cmd *failed, **failed_tail;
    size_t pending;

    struct script **scripts;
    int nscripts;

    struct table chans; /* name -> struct chan */
    size_t nwanted;

    struct redis_stats stats;
    char error[200];  /* the last failure, for redis_error */
    char logged[200]; /* the last refusal logged */
};

/* ---- redis_cmd.c ---- */

/* A command of buf (len bytes in Redis's protocol, taken over), or NULL
 * when len < 0 or out of memory (buf is then freed). */
struct cmd *redis__cmd_new(struct redis *r, redis_reply_fn *fn, void *arg,
                           char *buf, int len);
void redis__cmd_free(struct cmd *c);
/* Calls c's fn once with reply (or err) and frees c. */
void redis__cmd_finish(struct cmd *c, const redisReply *reply,
                       const char *err);
/* Sends c on the command connection (r is up). */
void redis__cmd_send(struct redis *r, struct cmd *c);
/* The reply to c, a caller's command sent on k. */
void redis__on_reply(struct conn *k, struct cmd *c, redisReply *rep);
/* The oldest queued command (taken off the queue), or NULL. */
struct cmd *redis__queue_pop(struct redis *r);
/* Arms queue_ev for the oldest queued command's deadline. */
void redis__queue_arm(struct redis *r);
/* queue_ev's and failed_ev's callbacks (w->data: r). */
void redis__queue_cb(struct ev_loop *loop, ev_timer *w, int revents);
void redis__failed_cb(struct ev_loop *loop, ev_timer *w, int revents);

/* ---- redis.c ---- */

/* Sends c on k and waits for its reply there. -1 when out of memory. */
int redis__conn_send(struct conn *k, struct cmd *c);

#endif
