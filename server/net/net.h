/*
 * net.h - the network glue over libwebsockets: one context and service
 * thread serving HTTP and the WebSocket at /ws on one port, one outbound
 * queue per connection, one timer per game, and the wake-up through which
 * journal commits release queued messages. What it knows of the rest of
 * the server is struct net_handlers, which main.c fills in.
 *
 * This header does not expose libwebsockets: the rest of the server sees
 * connections and timers as opaque handles. Everything here runs on the
 * event-loop thread except net_wake and net_request_stop.
 */
#ifndef SERVER_NET_H
#define SERVER_NET_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conn;
struct ev_loop;
struct net_timer;
struct msgbuf;
struct net_stats;

struct listener_bound;

/* The most trusted proxies a net_config holds. */
#define NET_MAX_PROXIES 64

/* The settings net uses, filled in by the app from its own (each one
 * means what app/config.h's setting of that name says, and the app has
 * checked its range). The strings and the origin list are the caller's
 * and must outlive net_stop; net_start copies the rest. */
struct net_config {
    const char *listen_address;  /* IP address to bind; "": every one */
    int port;                    /* HTTP(S) and the WebSocket at /ws */
    int http_redirect_port;      /* plain HTTP redirecting to https; 0:
                                   none (needs TLS) */
    const char *tls_cert;        /* PEM certificate chain; "": plain HTTP */
    const char *tls_key;         /* PEM private key */
    const char *tls_min_version; /* "1.2" or "1.3" */
    const char *tls_ciphers;     /* OpenSSL cipher list for TLS 1.2 */
    int hsts_max_age_s;          /* Strict-Transport-Security; 0: none */
    const char *web_root;        /* the browser client's files */
    int http_rate_per_s;         /* HTTP API requests per address */
    int http_burst;
    int request_timeout_s; /* a TCP connection's request, complete */
    int send_buffer_bytes; /* SO_SNDBUF of accepted sockets; 0: none */
    int max_connections;   /* open WebSockets in all */
    int max_connections_per_ip;
    int ipv6_limit_prefix; /* an IPv6 client's bits (lib/addrkey.h) */
    int ping_interval_s;   /* ping this long after the last pong */
    int ping_timeout_s;    /* no pong this long after it: hang up */
    int drain_ms; /* a stop first drains this long (net_draining), serving
                     as before; 0: the shutdown begins at once */
    /* origins whose pages may open a WebSocket, lowercase (trust.h);
     * none: any */
    const char *const *allowed_origins;
    size_t n_allowed_origins;
    /* addresses whose X-Forwarded-For is believed, as trust_addr_parse
     * writes them */
    struct in6_addr trusted_proxies[NET_MAX_PROXIES];
    size_t n_trusted_proxies;
};

/* net_start's result when listen_address cannot be honoured as asked
 * (the socket came out bound wider, or elsewhere): a start that would
 * fail the same way if retried. */
#define NET_START_REFUSED (-2)

/* Creates the lws context (its log routed through log.h) and starts
 * listening as cfg says: plain HTTP or, with tls_cert, HTTPS and wss on
 * one port, and the optional plain-HTTP redirect listener, each on
 * listen_address only (an IPv4 address: an IPv4 socket; an IPv6
 * address: an IPv6-only socket; "": one socket for both), checked after
 * binding (listener_verify). cfg is copied (its strings are not: see
 * struct net_config). Returns 0; -1 with a sentence in err (the port in use, an
 * unusable certificate, ...); or NET_START_REFUSED with a sentence in err
 * when a socket was not bound as asked (nothing is left listening). */
int net_start(const struct net_config *cfg, char *err, size_t errlen);

/* What net_start bound, from getsockname: the main port and the redirect
 * listener (all zero without one). */
void net_bound(struct listener_bound *main_port,
               struct listener_bound *redirect_port);

/* An answer to an HTTP API request (net_handlers.http). */
struct net_reply {
    int status;       /* 200, 400, 404, 429, 500, 503 */
    const char *type; /* Content-Type */
    char *body;       /* malloc'ed (web.c frees it); NULL: status only */
    size_t len;
};

/* An HTTP API request (net_handlers.http): a GET's or a POST's. */
struct net_request {
    const char *method; /* "GET" (HEAD too) or "POST" */
    const char *path;
    const char *const *args; /* the query's "name=value", decoded */
    size_t nargs;
    const char *bearer; /* Authorization: Bearer's token; NULL */
    const char *body;   /* a POST's (NUL-terminated; "" none) */
    size_t body_len;
    const char *addr; /* the client's address key (addrkey.h) */
};

/* What net.c hands to the server above it (main.c fills them in): the
 * WebSocket connections' events, the loop's wake-ups and the HTTP API.
 * `owner` is what open returned for the connection. All are called on
 * the event-loop thread. */
struct net_handlers {
    void *ctx;
    /* A WebSocket opened from address ip: its owner, NULL to refuse. */
    void *(*open)(void *ctx, struct conn *c, const char *ip);
    /* A whole text message, valid UTF-8, NUL-terminated at len. */
    void (*text)(void *ctx, void *owner, const char *text, size_t len,
                 int64_t now);
    /* The journal's committed sequence number (any thread may advance it,
     * then net_wake): a message queued with a higher one waits. */
    uint64_t (*committed)(void *ctx);
    /* A whole binary message. */
    void (*binary)(void *ctx, void *owner, int64_t now);
    /* A ping or pong frame from the client. */
    void (*control)(void *ctx, void *owner, int64_t now);
    /* The connection is gone: the owner may be freed. */
    void (*closed)(void *ctx, void *owner, int64_t now);
    /* The loop was woken (net_wake). The queues are released after it,
     * so what it sends for the new commits goes out in the same pass. */
    void (*wake)(void *ctx);
    /* A planned shutdown begins: connections close from now on. */
    void (*shutdown)(void *ctx);
    /* Whether the loop may end once the connections are closed (a
     * cluster node has handed its games over); asked after every turn of
     * a shutdown for at most LIMIT_SHUTDOWN_HANDOVER_MS. NULL: always. */
    bool (*stoppable)(void *ctx);
    /* Whether path is the API's (else a file is served), and its route
     * label (enum netstats_route). */
    bool (*http_wants)(const char *path);
    int (*http_route)(const char *path);
    /* Answers the request q; or, with r->status 0 (NET_REPLY_LATER),
     * later: net_http_answer(later, ...) then answers the request (a
     * store read first: the loop never waits for it). */
    void (*http)(void *ctx, const struct net_request *q, int64_t now,
                 uint64_t later, struct net_reply *r);
    /* The answer to an address over its API request rate (429). */
    void (*http_too_many)(struct net_reply *r);
    /* The NDJSON stream whose owner this is (net_stream_open) is gone:
     * its client left, or it was cut. The handle is no longer valid. */
    void (*stream_closed)(void *ctx, void *owner);
};

/* net_handlers.http's status for an answer to come (net_http_answer). */
#define NET_REPLY_LATER 0

/* Answers the HTTP request whose handler said NET_REPLY_LATER with id
 * later: r's body is taken (freed here when the request's connection
 * went meanwhile: the answer is dropped). Loop thread. */
void net_http_answer(uint64_t later, struct net_reply *r);

/* ---- NDJSON streams (ndjson.c) ----
 *
 * An answer that stays open: `200`, `Content-Type: application/x-ndjson`,
 * chunked, one JSON value a line, held on the loop (no thread per
 * client) until either side ends it. An empty line goes out whenever a
 * stream was silent for LIMIT_STREAM_KEEPALIVE_MS. A stream whose
 * reader lets more than LIMIT_STREAM_QUEUE_BYTES pile up is cut. */
struct net_stream;

/* Answers the request `later` (whose handler said NET_REPLY_LATER) with
 * a stream for owner, counted under account (at most
 * LIMIT_STREAMS_PER_ACCOUNT) and the request's address key (at most
 * LIMIT_STREAMS_PER_IP). Returns the stream; or NULL with *status 0
 * when the request's connection went meanwhile, 429 when a cap refused
 * it (the request is then answered 429 with a JSON error) or 500. */
struct net_stream *net_stream_open(uint64_t later, const char *account,
                                   void *owner, int *status);

/* Queues the line b (a JSON value and its newline; a reference taken)
 * on s, to be written once the store has committed seq (0: at once). */
void net_stream_send(struct net_stream *s, struct msgbuf *b, uint64_t seq);

/* Ends s once what it queued is written; its owner is not called back
 * (the handle is invalid from now on). */
void net_stream_close(struct net_stream *s);

/* Open streams (for /metrics and the tests' figures). */
int net_streams_open(void);

/* The loop, after net_start (for a Redis connection on it: redis.h). */
struct ev_loop *net_ev_loop(void);

/* Connects the handlers (copied) and the counters it writes (netstats.h,
 * not owned), after net_start, before net_run. */
void net_attach(const struct net_handlers *hd, struct net_stats *stats);

/* Runs the event loop until a stop was requested and the shutdown is
 * complete. */
void net_run(void);

/* Destroys the context (closing every connection). */
void net_stop(void);

/* From any thread (the store's writer): wakes the loop to look at the
 * committed sequence number (net_handlers.committed). */
void net_wake(void);

/* From a signal handler: begin a planned shutdown (async-signal-safe):
 * the drain first (net_config.drain_ms), then the shutdown. A second call
 * cuts the drain short. */
void net_request_stop(void);

/* True from the first net_request_stop on: the node drains or shuts
 * down, and is no longer ready for new clients (/readyz). */
bool net_draining(void);

/* From a signal handler (SIGHUP): the loop reopens the log file
 * (async-signal-safe). */
void net_request_log_reopen(void);

/* Monotonic time in milliseconds. */
int64_t net_now_ms(void);
/* The same in microseconds. */
int64_t net_now_us(void);

/* Unix epoch time in milliseconds. */
int64_t net_wall_ms(void);

/* Queues b on c (taking a reference), to be written once the store has
 * committed seq (0: as soon as the socket allows). A connection whose
 * queue exceeds LIMIT_OUT_QUEUE_BYTES is cut. */
void net_send(struct conn *c, struct msgbuf *b, uint64_t seq);

/* The peer's IP address as text ("?" when it could not be read); valid
 * while c is open. */
const char *net_conn_ip(const struct conn *c);

/* c's smoothed round trip in ms (RFC 6298's SRTT, alpha 1/8) over the
 * keepalive pings whose pong echoed the payload of the ping the server
 * was waiting on (the time from writing the ping to reading its pong);
 * 0 until one was answered, and then c is pinged at once (not only after
 * ping_interval_s), so that a player's first moves ask for the sample
 * its later ones are credited with. */
int64_t net_conn_rtt_ms(struct conn *c);

/* The kernel's smoothed round trip of c's TCP connection in us (TCP_INFO's
 * tcpi_rtt, from the ACKs of what the server sent: nothing a client's
 * program can hold back, unlike a pong), -1 when the socket tells none
 * (not TCP, or no sample yet). Behind a proxy it is the proxy's. */
int64_t net_conn_tcp_rtt_us(struct conn *c);

/* Queues b on c (taking a reference) ahead of the messages waiting for a
 * store commit, behind those ready to go: a notice about the server
 * itself (a stalled database) that must not wait for what it reports. */
void net_send_now(struct conn *c, struct msgbuf *b);

/* Closes c with a WebSocket close code: what c sends from now on is not
 * acted on; what is queued before is written, then the close frame; then
 * c is half-closed and its input read and dropped until the peer closes
 * or LIMIT_CLOSE_DRAIN_MS pass (so the peer never gets a reset that would
 * lose the close frame). The session is freed later, from the close
 * callback. */
void net_close(struct conn *c, int code, const char *reason);

/* net_close after dropping every message c's queue still holds, written
 * or waiting for the store (a game that moved: what was queued about it
 * may never be stored, and the client resyncs when it reconnects). */
void net_drop(struct conn *c, int code, const char *reason);

/* A timer calling cb(arg) on the loop thread. */
struct net_timer *net_timer_new(void (*cb)(void *arg), void *arg);
/* Arms t at monotonic `at_ms` (INT64_MAX: disarm). */
void net_timer_arm(struct net_timer *t, int64_t at_ms);
/* Disarms and frees t. NULL is a no-op. Safe inside t's own callback. */
void net_timer_free(struct net_timer *t);

#endif
