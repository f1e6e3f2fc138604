/*
 * net_internal.h - what the parts of the network glue share, and no one
 * else sees (only net.c, conn.c, tcp.c, web.c, ndjson.c and lwslog.c
 * include it):
 *
 *   net.c     the loop: libev and the lws context, start and stop, the
 *             wake-ups, the net timers, keepalive's tick, the loop-lag
 *             metric, the planned shutdown; owns `net`, the state below
 *   conn.c    WebSocket connections: admission, their outbound queues and
 *             write path, the staged close and its drain, keepalive pings,
 *             messages in
 *   tcp.c     TCP accounting: every accepted connection and its address's
 *             count, request timeouts, the reserve descriptor for EMFILE
 *   web.c     HTTP: static files, the API's answers, status answers, the
 *             common headers and their Date, the plain-HTTP redirect
 *   ndjson.c  the API's NDJSON streams: answers held open, their queues,
 *             caps and keep-alive
 *   lwslog.c  lws's log lines into log.h, repeats collapsed
 *
 * Everything here runs on the event-loop thread, except where a field
 * says otherwise.
 */
#ifndef SERVER_NET_INTERNAL_H
#define SERVER_NET_INTERNAL_H

#include "net/net.h"

#include <ev.h>
#include <libwebsockets.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "net/listener.h"
#include "lib/addrkey.h"
#include "lib/log.h"
#include "lib/table.h"
#include "timerq.h"
#include "lib/tunables.h"

struct qnode {
    struct qnode *next;
    struct msgbuf *b;
    uint64_t seq;
};

struct conn {
    struct lws *wsi;
    void *owner; /* the handlers' (net_handlers.open) */
    struct qnode *head, *tail;
    size_t qbytes;
    bool closing;    /* close after the queue drains */
    bool killed;     /* cut: write nothing more */
    bool close_sent; /* the close frame is written */
    bool draining;   /* half-closed: input is read and dropped */
    int close_code;
    int closed_with; /* the close code sent or received, for the
                                metrics (0: none yet) */
    const char *close_reason;
    ev_io drain_io;         /* while draining: the socket readable */
    ev_timer drain_timeout; /* while draining: LIMIT_CLOSE_DRAIN_MS */
    bool in_msg;            /* a message is being reassembled */
    bool rx_binary;
    size_t rx_len;
    char *rx;                 /* LIMIT_MSG_BYTES + 1, allocated only for a
                                message that spans several callbacks */
    struct conn *prev, *next; /* in `alive` or `pinged`, by last_pong_ms */
    struct conn_list *list;   /* which of the two */
    int64_t last_pong_ms;     /* the last pong, or the opening */
    bool want_ping;           /* the next WRITEABLE sends a ping first */
    char ping_data[12];       /* the outstanding ping's random payload */
    int64_t ping_sent_ms;     /* when that ping was written */
    int64_t srtt_ms;          /* smoothed round trip, 0: none yet */
    /* On one of net.waiting (its head waits for a commit) and net.ready
     * (its head is durable and is written before the loop next waits):
     * `parked` names which, NULL when on neither. */
    struct conn *wprev, *wnext;
    struct conn **parked;
    struct peer *peer; /* its address's connection count */
    char ip[64];       /* the client's address (tcp_client_ip), for the
                          log and the hub */
};

/* Connections in order of their last pong: the oldest at head. */
struct conn_list {
    struct conn *head, *tail;
};

/* One client address, by its key (tcp_key: every address of an IPv6
 * /64 is one): its open WebSockets (by the client's address, which
 * behind a trusted proxy is X-Forwarded-For's) and its accepted TCP
 * connections (by the socket's address). Freed when both are 0. */
struct peer {
    char ip[ADDRKEY_MAX]; /* the key */
    int conns;
    int tcp;
};

/* One accepted TCP connection, from accept to the wsi's destruction
 * (HTTP, a handshake, a WebSocket or nothing at all), in `tcps` under its
 * wsi's address (lws 4.1 overwrites a wsi's opaque user data after
 * WSI_CREATE). Until its request is complete it is in
 * `unrequested`, which is ordered by deadline (every deadline is now +
 * request_timeout_s when set). */
struct tcp {
    char key[24]; /* the wsi's address, "%p" */
    struct lws *wsi;
    int fd;
    struct peer *peer; /* the socket's address */
    int64_t deadline_ms;
    struct tcp *prev, *next; /* in unrequested */
    bool listed;
};

struct net_timer {
    struct timerq_timer t; /* due in monotonic milliseconds */
    void (*cb)(void *arg);
    void *arg;
};

/* HTTP API replies in progress. */
struct http_pss {
    char *body;
    size_t len, sent;
    /* An answer the handlers give later (net_http_answer): its id (0:
     * none), in net.later under key until it comes; its route, for the
     * count; and once it came, its status and type until WRITEABLE
     * writes its head. */
    uint64_t later;
    char key[24];
    int route;
    bool ready;
    int status;
    const char *type;
    struct net_stream *stream; /* an NDJSON answer (ndjson.c); NULL */
    /* A POST to the API: its path while its body arrives (malloc'ed),
     * and the body so far (malloc'ed, NUL-terminated; rx_len bytes). */
    char *post_uri;
    char *rx;
    size_t rx_len;
};

/* The state of the network glue: one instance, `net`, defined in net.c.
 * Grouped by the part that owns each field; the others read it. */
struct net {
    /* the loop (net.c) */
    struct lws_context *context;
    _Atomic(struct lws_context *) wake_context;
    int64_t stop_deadline; /* a shutdown waits for the hub until then */
    struct ev_loop *loop;
    struct net_handlers hd; /* main.c's (net_attach) */
    bool attached;
    struct net_stats *stats; /* main.c's (net_attach) */
    /* stop_requested: a first request; stop_now: a second (no drain) */
    volatile sig_atomic_t stop_requested, stop_now, reopen_requested;
    struct net_config cfg; /* net_start's copy of the app's */
    bool draining, stopping, stopped;
    struct net_timer *drain_timer;
    struct net_timer *drain_phase; /* the drain before the shutdown */
    struct timerq timers;          /* every net_timer */
    ev_timer timers_ev;            /* armed at timerq_next(&timers) */
    int64_t timers_ev_at;          /* INT64_MAX: not armed */
    ev_timer keepalive_ev;
    ev_timer lag_ev;
    int64_t lag_due_us; /* when lag_ev should fire */
    ev_check stop_check;
    /* Before the callbacks of every turn of the loop (the highest
     * priority), so that an answer written in them is dated when it is
     * written. */
    ev_check date_check;
    struct lws_vhost *vhost_main; /* TLS when tls_cert is set */
    struct listener_bound bound_main, bound_redirect; /* port 0: none */

    /* WebSocket connections (conn.c) */
    struct conn_list alive;     /* no ping outstanding */
    struct conn_list pinged;    /* pinged, no pong yet */
    int64_t test_offset_ms;     /* the test time keepalive last saw
                                   (sysclock.h; 0 but in tests) */
    struct conn *waiting;       /* their queue's head waits for a commit */
    struct conn *ready;         /* their queue's head may be written now */
    struct qnode *spare_qnodes; /* written queue entries, for reuse */
    size_t n_spare_qnodes;
    ev_prepare ready_prepare; /* writes them: conn_write_ready */
    int n_conns;              /* open WebSocket connections */
    /* A message that arrived in one callback, NUL-terminated (the loop's
     * one buffer: lws's own is not ours to terminate). */
    char rx_one[LIMIT_MSG_BYTES + 1];

    /* TCP accounting (tcp.c) */
    struct table peers; /* ip -> struct peer */
    struct table tcps;  /* "%p" of a wsi -> struct tcp */
    struct {
        struct tcp *head, *tail;
    } unrequested;
    int n_tcp;     /* accepted TCP connections */
    long fd_limit; /* RLIMIT_NOFILE's soft limit */
    /* The connection FILTER_NETWORK_CONNECTION let through, for the
     * WSI_CREATE of its wsi that follows at once. */
    int accepted_fd;               /* -1: none */
    char accepted_ip[ADDRKEY_MAX]; /* its key */
    int reserve_fd;                /* see tcp.c's descriptors used up */
    bool accept_starved;           /* lws said accept() failed so */
    ev_prepare starved_prepare;

    /* HTTP (web.c) */
    char web_dir[4096];
    struct ratelimit *api_limits; /* HTTP API requests per address */
    struct gzcache *gz;           /* gzip copies of the static files */
    char date_value[80];          /* 29 used; room for any int fields */
    struct table later;           /* "%llx" of an answer's id -> the
                                     request's struct lws (web.c) */
    uint64_t later_next;
    char hsts_value[32];

    /* lws's log (lwslog.c) */
    /* The last line lws logged, for collapsing repeats (under lws_last_mu:
     * lws logs from the loop, but lws_cancel_service runs on the
     * writer). */
    pthread_mutex_t lws_last_mu;
    struct {
        char msg[600];
        enum log_level level;
        unsigned long repeats; /* equal lines since it was written */
        int64_t written_ms;    /* when it (or its repeat count) was
                                    written */
    } lws_last;
};

extern struct net net;

/* The keepalive tick's period (net.c's timer, conn.c's ping budget). */
#define KEEPALIVE_TICK_MS 50

struct wire_hooks;

/* ---- the loop (net.c) ---- */

/* The journal's committed sequence number (after net_attach). */
static inline uint64_t net_committed(void)
{
    return net.hd.committed(net.hd.ctx);
}
/* The loop was woken (net_wake): releases what store commits allow, runs
 * the handlers' wake, a requested log reopen and a requested stop. */
void net_woken(void);

/* ---- WebSocket connections (conn.c) ---- */

/* The "chess.v1" protocol's lws callback; user is the struct conn. */
int conn_callback(struct lws *wsi, enum lws_callback_reasons reason,
                  void *user, void *in, size_t len);
/* upgrade.c. HTTP_CONFIRM_UPGRADE: 0 lets the WebSocket open; otherwise answered
 * (404, 403, 503, 429) or refused, the callback's result. */
int upgrade_confirm(struct lws *wsi);
/* Store commits arrived: releases the connections whose head is durable
 * and times the moves they made durable. */
void conn_on_commits(void);
/* Before the loop waits (net.c's ready_prepare): writes the durable
 * messages queued during this turn of the loop (net.ready). */
void conn_write_ready(void);
/* Frees the queue entries kept for reuse (net_stop). */
void conn_free_spares(void);
/* Keepalive at now: hangs up the connections whose ping went unanswered
 * for ping_timeout_s, pings those silent for ping_interval_s. */
void conn_keepalive(int64_t now);
/* wire.c's reports about a WebSocket's frames. */
extern const struct wire_hooks conn_wire_hooks;

/* ---- TCP accounting (tcp.c) ---- */

/* The peer's address of the socket fd as text into ip, or "?". */
void tcp_fd_ip(int fd, char *ip, size_t len);
/* The peer's address of wsi as text into ip, or "?" when it is gone. */
void tcp_peer_ip(struct lws *wsi, char *ip, size_t len);
/* The client's address of the request on wsi as text into ip: the
 * socket's, or behind a trusted proxy X-Forwarded-For's (trust_client). */
void tcp_client_ip(struct lws *wsi, char *ip, size_t len);
/* The key ip (a client's address) counts under in every per-address
 * limit of net's: lib/addrkey.h's at ipv6_limit_prefix, except that a
 * trusted proxy is its own address (the /64 it sits in is not it). */
void tcp_key(const char *ip, char key[ADDRKEY_MAX]);
/* The entry of key (tcp_key), created when missing (NULL when out of
 * memory); owned by net.peers until tcp_peer_release frees it. */
struct peer *tcp_peer_find(const char *key);
/* Forgets p when nothing counts on it any more. */
void tcp_peer_release(struct peer *p);
/* The connection wsi must complete a request within request_timeout_s. */
void tcp_await_request(struct lws *wsi);
/* wsi's request arrived whole: no deadline while it is answered. */
void tcp_request_done(struct lws *wsi);
/* Closes the connections whose request is overdue (outside any lws
 * callback). */
void tcp_expire(int64_t now);
/* The TCP-level events every vhost's first protocol gets. Returns true
 * when reason was one of them, with the callback's result in *rc. */
bool tcp_event(struct lws *wsi, enum lws_callback_reasons reason, void *in,
               int *rc);
/* Forgets every connection and address, at the stop. */
void tcp_forget_all(void);
/* Opens the reserve descriptor when it is not open. */
void tcp_reserve_open(void);
/* Notes lws's error line when it says accept() ran out of descriptors. */
void tcp_starved_note(const char *line);
/* The loop's prepare watcher: after a starved accept, sheds the
 * connections queued on the listening sockets. */
void tcp_starved_prepare(struct ev_loop *l, ev_prepare *w, int revents);

/* ---- HTTP (web.c) ---- */

/* The "http" protocol's lws callback; user is the struct http_pss. */
int web_callback(struct lws *wsi, enum lws_callback_reasons reason,
                 void *user, void *in, size_t len);
/* Answers the request on wsi with status code and its reason as a line
 * of text (none to a HEAD). Returns nonzero when it could not be
 * written. */
int web_status(struct lws *wsi, unsigned code);
/* wire.c's refusal of a request head that broke HTTP's framing rules on
 * fd (wire.h's hooks.refusal): logs and counts it, writes the answer
 * (status, as web_status would, with `connection: close`) into buf and
 * returns its length (0: it does not fit in cap). */
size_t web_refusal(int fd, bool tls, int status, const char *why, char *buf,
                   size_t cap);
/* Writes the time into net.date_value when its second changed. */
void web_date_refresh(void);
/* The one mount of the main vhost, the headers of every answer (with
 * Strict-Transport-Security first: web_headers_hsts, which reads
 * net.hsts_value) and the redirect vhost's protocols. */
extern const struct lws_http_mount web_mount;
extern const struct lws_protocol_vhost_options web_headers;
extern const struct lws_protocol_vhost_options web_headers_hsts;
extern const struct lws_protocols web_redirect_protocols[];

/* ---- NDJSON streams (ndjson.c) ---- */

/* The request on wsi (its pss) is a stream's: WRITEABLE writes what it
 * may; returns the callback's result. */
int ndjson_writeable(struct lws *wsi, struct http_pss *pss);
/* The stream's connection is gone (CLOSED_HTTP): its owner is told. */
void ndjson_closed(struct http_pss *pss);
/* Store commits arrived: streams whose head waited may write. */
void ndjson_on_commits(void);

/* ---- lws's log (lwslog.c) ---- */

/* Routes lws's log lines, at the levels log.h's level lets through, into
 * log.h. */
void lwslog_start(void);
/* The counts of repeated lines (lws's and the logger's, log_flush) that
 * stopped a second or more before now: written now, not with the next
 * line (the keepalive tick, every second). */
void lwslog_flush(int64_t now);

#endif
