/*
 * net.c - libwebsockets glue (see net.h).
 *
 * Outbound queues. Each connection has a FIFO of (message, store sequence)
 * entries. The WRITEABLE callback writes the head, one frame per callback,
 * only when the store has committed the head's sequence number; otherwise
 * the connection waits on the `waiting` list until a commit wakes the loop
 * (store writer -> net_wake -> lws_cancel_service -> EVENT_WAIT_CANCELLED).
 * This is how "nobody sees a move before its journal row committed" holds
 * without the game code knowing about sockets.
 *
 * The loop is libev's (epoll), which lws drives as a foreign loop: lws's
 * own poll() loop walks every descriptor on every turn. lws 4.1 keeps its
 * timers (lws_sul) in one sorted list, O(connections) per insertion, so
 * this file keeps its own: the game timers in a heap behind one ev_timer,
 * and keepalive as two lists ordered by the last pong (see keepalive_tick).
 */
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ev.h>
#include <limits.h>
#include <libwebsockets.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "http.h"
#include "log.h"
#include "tunables.h"
#include "msgbuf.h"
#include "proto.h"
#include "session.h"
#include "store.h"
#include "table.h"
#include "timerq.h"

_Static_assert(LWS_PRE <= MSGBUF_HEADROOM, "msgbuf headroom below LWS_PRE");

struct qnode {
    struct qnode *next;
    struct msgbuf *b;
    uint64_t seq;
};

struct conn {
    struct lws *wsi;
    struct session *sess;
    struct qnode *head, *tail;
    size_t qbytes;
    bool closing;            /* close after the queue drains */
    bool killed;             /* cut: write nothing more */
    int close_code;
    const char *close_reason;
    bool in_msg;             /* a message is being reassembled */
    bool rx_binary;
    size_t rx_len;
    char *rx;                /* LIMIT_MSG_BYTES + 1, allocated only for a
                                message that spans several callbacks */
    struct conn *prev, *next; /* in `alive` or `pinged`, by last_pong_ms */
    struct conn_list *list;   /* which of the two */
    int64_t last_pong_ms;     /* the last pong, or the opening */
    bool want_ping;           /* the next WRITEABLE sends a ping first */
    struct conn *wprev, *wnext;         /* waiting for a commit */
    bool waiting;
    struct peer *peer;       /* its address's connection count */
};

/* Connections in order of their last pong: the oldest at head. */
struct conn_list {
    struct conn *head, *tail;
};

/* Open WebSocket connections per IP address. */
struct peer {
    char ip[64];
    int conns;
};

struct net_timer {
    struct timerq_timer t;   /* due in monotonic milliseconds */
    void (*cb)(void *arg);
    void *arg;
};

/* HTTP API replies in progress. */
struct http_pss {
    char *body;
    size_t len, sent;
};

static struct lws_context *context;
static _Atomic(struct lws_context *) wake_context;
static struct ev_loop *loop;
static struct hub *hub;
static struct store *store;
static struct conn_list alive;      /* no ping outstanding */
static struct conn_list pinged;     /* pinged, no pong yet */
static struct conn *waiting;        /* waiting for a commit */
static volatile sig_atomic_t stop_requested, reopen_requested;
static const struct config *cfg;    /* main.c's, for the process lifetime */
static int n_conns;                 /* open WebSocket connections */
static bool stopping, stopped;
static struct net_timer *drain_timer;
static struct timerq timers;        /* every net_timer */
static ev_timer timers_ev;          /* armed at timerq_next(&timers) */
static int64_t timers_ev_at = INT64_MAX;
static ev_timer keepalive_ev;
static ev_check stop_check;
static char web_dir[4096];
static const struct lws_http_mount mount_root; /* defined below */
static struct table peers; /* ip -> struct peer */

int64_t net_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t net_wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Moves played and not yet committed, oldest first: the store sequence
 * number of each one's journal row and when the move arrived, for the
 * commit-latency histogram. When it is full, moves go unmeasured. */
#define PENDING_MOVES 4096
static struct {
    uint64_t seq;
    int64_t at_us;
} pending[PENDING_MOVES];
static size_t pending_head, pending_n;

/* ---- outbound queues --------------------------------------------------- */

static void wait_remove(struct conn *c)
{
    if (!c->waiting)
        return;
    if (c->wprev)
        c->wprev->wnext = c->wnext;
    else
        waiting = c->wnext;
    if (c->wnext)
        c->wnext->wprev = c->wprev;
    c->waiting = false;
    c->wprev = c->wnext = NULL;
}

/* Asks for a WRITEABLE callback when the head may be written now, or parks
 * the connection until the store commits the head's sequence number. */
static void schedule_write(struct conn *c)
{
    if (c->killed)
        return;
    if (c->head && c->head->seq > store_committed(store)) {
        if (!c->waiting) {
            c->waiting = true;
            c->wprev = NULL;
            c->wnext = waiting;
            if (waiting)
                waiting->wprev = c;
            waiting = c;
        }
        return;
    }
    if (c->head || c->closing)
        lws_callback_on_writable(c->wsi);
}

static void queue_clear(struct conn *c)
{
    struct metrics *m = hub_metrics(hub);

    while (c->head) {
        struct qnode *n = c->head;
        c->head = n->next;
        m->out_queue_bytes -= n->b->len;
        msgbuf_unref(n->b);
        free(n);
    }
    c->tail = NULL;
    c->qbytes = 0;
}

void net_send(struct conn *c, struct msgbuf *b, uint64_t seq)
{
    struct qnode *n;

    if (c->closing || c->killed)
        return;
    if (c->qbytes + b->len > LIMIT_OUT_QUEUE_BYTES) {
        /* the client stopped reading: cut it, its queue goes with it */
        log_warn("event=conn_cut why=slow_reader ip=%s queued_bytes=%zu",
                 c->peer ? c->peer->ip : "?", c->qbytes);
        hub_metrics(hub)->closed_overflow++;
        c->killed = true;
        wait_remove(c);
        queue_clear(c);
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        return;
    }
    n = malloc(sizeof *n);
    if (!n)
        return;
    n->next = NULL;
    n->b = msgbuf_ref(b);
    n->seq = seq;
    if (c->tail)
        c->tail->next = n;
    else
        c->head = n;
    c->tail = n;
    c->qbytes += b->len;
    hub_metrics(hub)->out_queue_bytes += b->len;
    if (c->head == n)
        schedule_write(c);
}

void net_close(struct conn *c, int code, const char *reason)
{
    if (c->closing || c->killed)
        return;
    c->closing = true;
    c->close_code = code;
    c->close_reason = reason;
    if (!c->head)
        lws_callback_on_writable(c->wsi);
}

static int write_next(struct conn *c)
{
    struct qnode *n = c->head;
    int w;

    if (c->killed)
        return -1;
    if (!n) {
        if (c->closing) {
            lws_close_reason(c->wsi, (enum lws_close_status)c->close_code,
                             (unsigned char *)c->close_reason,
                             strlen(c->close_reason));
            return -1;
        }
        return 0;
    }
    if (n->seq > store_committed(store)) {
        schedule_write(c);
        return 0;
    }
    c->head = n->next;
    if (!c->head)
        c->tail = NULL;
    c->qbytes -= n->b->len;
    hub_metrics(hub)->out_queue_bytes -= n->b->len;
    w = lws_write(c->wsi, (unsigned char *)n->b->data, n->b->len,
                  LWS_WRITE_TEXT);
    msgbuf_unref(n->b);
    free(n);
    if (w < 0)
        return -1;
    schedule_write(c);
    return 0;
}

/* Store commits arrived: release the connections whose head is durable. */
static void on_commits(void)
{
    uint64_t committed = store_committed(store);
    struct conn *c = waiting, *next;
    int64_t now = pending_n ? now_us() : 0;

    while (pending_n && pending[pending_head].seq <= committed) {
        metrics_hist_add(&hub_metrics(hub)->commit,
                         now - pending[pending_head].at_us);
        pending_head = (pending_head + 1) % PENDING_MOVES;
        pending_n--;
    }
    for (; c; c = next) {
        next = c->wnext;
        if (!c->head || c->head->seq <= committed) {
            wait_remove(c);
            lws_callback_on_writable(c->wsi);
        }
    }
}

void net_wake(void)
{
    struct lws_context *ctx = atomic_load(&wake_context);

    if (ctx)
        lws_cancel_service(ctx);
}

void net_request_stop(void)
{
    stop_requested = 1;
    net_wake();
}

void net_request_log_reopen(void)
{
    reopen_requested = 1;
    net_wake();
}

/* ---- timers ------------------------------------------------------------ */

/* Points timers_ev at the earliest deadline when that changed. */
static void timers_rearm(void)
{
    int64_t next = timerq_next(&timers), delay;

    if (next == timers_ev_at || !loop)
        return;
    timers_ev_at = next;
    ev_timer_stop(loop, &timers_ev);
    if (next == INT64_MAX)
        return;
    ev_now_update(loop); /* libev counts from the turn's start otherwise */
    delay = next - net_now_ms();
    if (delay < 0)
        delay = 0;
    /* +1 ms: the deadline has surely passed by the millisecond clock the
     * game reads when the timer fires */
    ev_timer_set(&timers_ev, (double)(delay + 1) / 1000.0, 0.0);
    ev_timer_start(loop, &timers_ev);
}

static void timers_fire(struct ev_loop *l, ev_timer *w, int revents)
{
    int64_t now = net_now_ms();
    struct timerq_timer *t;

    (void)l;
    (void)w;
    (void)revents;
    timers_ev_at = INT64_MAX;
    while ((t = timerq_pop_due(&timers, now)))
        t->cb(t);
    timers_rearm();
}

static void net_timer_fire(struct timerq_timer *t)
{
    struct net_timer *nt = lws_container_of(t, struct net_timer, t);

    nt->cb(nt->arg);
}

struct net_timer *net_timer_new(void (*cb)(void *arg), void *arg)
{
    struct net_timer *t = calloc(1, sizeof *t);

    if (t) {
        timerq_timer_init(&t->t, net_timer_fire);
        t->cb = cb;
        t->arg = arg;
    }
    return t;
}

void net_timer_arm(struct net_timer *t, int64_t at_ms)
{
    if (at_ms == INT64_MAX)
        timerq_cancel(&timers, &t->t);
    else if (timerq_arm(&timers, &t->t, at_ms) < 0)
        log_error("event=timer_lost why=out_of_memory");
    timers_rearm();
}

void net_timer_free(struct net_timer *t)
{
    if (!t)
        return;
    timerq_cancel(&timers, &t->t);
    free(t);
}

/* ---- keepalive ---------------------------------------------------------- */

/* Keepalive without lws's validity timers (one sorted-list insertion on
 * every ping and pong): a connection sits in `alive` until it has been
 * silent for ping_interval_s since its last pong (or its opening), then
 * is pinged and moves to `pinged`; a pong moves it back to the tail of
 * `alive`, and one still in `pinged` at ping_timeout_s is hung up. Both
 * lists stay ordered by last_pong_ms, so a tick only looks at the
 * connections that are due. Only a pong counts, not messages (as with
 * lws's policy). The hang-up is an ordinary disconnection, so the
 * player's grace period starts. */
static void list_remove(struct conn *c)
{
    struct conn_list *l = c->list;

    if (!l)
        return;
    if (c->prev)
        c->prev->next = c->next;
    else
        l->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    else
        l->tail = c->prev;
    c->prev = c->next = NULL;
    c->list = NULL;
}

static void list_append(struct conn_list *l, struct conn *c)
{
    c->prev = l->tail;
    c->next = NULL;
    if (l->tail)
        l->tail->next = c;
    else
        l->head = c;
    l->tail = c;
    c->list = l;
}

/* Alive again at now: to the tail of `alive`. */
static void conn_ponged(struct conn *c, int64_t now)
{
    list_remove(c);
    c->last_pong_ms = now;
    list_append(&alive, c);
}

/* The keepalive tick's period, and the share of the pong allowance
 * (ping_timeout_s - ping_interval_s, or the interval when shorter) within
 * which a due ping goes out: connections that fall due together (opened
 * together, after a restart, say) are pinged in a spread-out stream, not
 * in one burst that would hold up every game's moves. */
#define KEEPALIVE_TICK_MS 50
#define KEEPALIVE_SPREAD_DIV 2

static void keepalive_tick(struct ev_loop *l, ev_timer *w, int revents)
{
    int64_t now = net_now_ms();
    int64_t interval = (int64_t)cfg->ping_interval_s * 1000;
    int64_t timeout = (int64_t)cfg->ping_timeout_s * 1000;
    int64_t spread = (timeout - interval < interval ? timeout - interval
                                                     : interval)
                     / KEEPALIVE_SPREAD_DIV;
    int64_t budget = 16 + (int64_t)n_conns * KEEPALIVE_TICK_MS / spread;
    struct conn *c;

    (void)l;
    (void)w;
    (void)revents;
    while ((c = pinged.head) && now - c->last_pong_ms >= timeout) {
        list_remove(c);
        log_info("event=conn_cut why=no_pong ip=%s",
                 c->peer ? c->peer->ip : "?");
        /* outside any lws callback a synchronous kill is safe, and an
         * asynchronous one would wait for lws's own timer */
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC);
    }
    while ((c = alive.head) && now - c->last_pong_ms >= interval
           && budget-- > 0) {
        list_remove(c);
        list_append(&pinged, c);
        c->want_ping = true;
        lws_callback_on_writable(c->wsi);
    }
}

/* Writes the ping keepalive_tick asked for. Returns lws_write's result. */
static int write_ping(struct conn *c)
{
    /* one byte: lws 4.1 reports no pong with an empty payload */
    unsigned char ping[LWS_PRE + 1];

    c->want_ping = false;
    ping[LWS_PRE] = 'k';
    return lws_write(c->wsi, ping + LWS_PRE, 1, LWS_WRITE_PING);
}

/* ---- shutdown ---------------------------------------------------------- */

static void drain_done(void *arg)
{
    (void)arg;
    stopped = true;
}

/* A planned stop: every client is told, then closed with 1001. */
static void begin_shutdown(void)
{
    struct msgbuf *b = msgbuf_take(proto_render_shutdown());

    stopping = true;
    log_info("event=shutdown_begin connections=%d", n_conns);
    /* closing connections are not players leaving their games */
    if (hub)
        hub_shutdown(hub);
    for (int i = 0; i < 2; i++)
        for (struct conn *c = i ? pinged.head : alive.head; c; c = c->next) {
            if (b)
                net_send(c, b, 0);
            net_close(c, LWS_CLOSE_STATUS_GOINGAWAY, "server shutdown");
        }
    msgbuf_unref(b);
    drain_timer = net_timer_new(drain_done, NULL);
    if (!n_conns || !drain_timer)
        stopped = true;
    else
        net_timer_arm(drain_timer, net_now_ms() + LIMIT_SHUTDOWN_DRAIN_MS);
}

/* ---- WebSocket --------------------------------------------------------- */

/* The peer's address as text, or "?" when it is gone (lws 4.1 then
 * writes getpeername's error sentence into ip, which would key the
 * per-address count and break the log's key=value fields). */
static void peer_ip(struct lws *wsi, char *ip, size_t len)
{
    if (!lws_get_peer_simple(wsi, ip, len) || !ip[0]
        || ip[strspn(ip, "0123456789abcdefABCDEF.:")] != '\0')
        snprintf(ip, len, "?");
}

/* True when the request's Origin may open a WebSocket: no allow-list, no
 * Origin header, or an Origin in the list. Logs a refusal. */
static bool origin_ok(struct lws *wsi, const char *ip)
{
    char origin[300], q[320];
    int len = lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN);

    if (len <= 0 || !cfg->n_allowed_origins)
        return true;
    if (len >= (int)sizeof origin
        || lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) < 0)
        snprintf(origin, sizeof origin, "(too long)");
    else if (config_origin_allowed(cfg, origin))
        return true;
    log_warn("event=upgrade_refused why=origin ip=%s origin=%s", ip,
             log_quote(q, sizeof q, origin));
    return false;
}

/* Refuses an upgrade on any path but /ws with 404; from an Origin outside
 * allowed_origins (when that list is set) with 403, against cross-site
 * WebSocket hijacking (browsers always send Origin; other clients may
 * leave it out); over max_connections with 503; from an address that
 * holds max_connections_per_ip already with 429. */
static int confirm_upgrade(struct lws *wsi)
{
    char uri[256], ip[64];
    struct peer *p;

    if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) < 0
        || strcmp(uri, "/ws")) {
        lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL);
        return 1;
    }
    if (stopping)
        return -1;
    peer_ip(wsi, ip, sizeof ip);
    if (!origin_ok(wsi, ip)) {
        hub_metrics(hub)->refused_origin++;
        lws_return_http_status(wsi, HTTP_STATUS_FORBIDDEN, NULL);
        return 1;
    }
    if (n_conns >= cfg->max_connections) {
        log_warn("event=upgrade_refused why=max_connections ip=%s "
                 "connections=%d", ip, n_conns);
        hub_metrics(hub)->refused_full++;
        lws_return_http_status(wsi, HTTP_STATUS_SERVICE_UNAVAILABLE, NULL);
        return 1;
    }
    p = table_get(&peers, ip);
    if (p && p->conns >= cfg->max_connections_per_ip) {
        log_warn("event=upgrade_refused why=max_connections_per_ip ip=%s "
                 "connections=%d", ip, p->conns);
        hub_metrics(hub)->refused_per_ip++;
        lws_return_http_status(wsi, 429, NULL);
        return 1;
    }
    return 0;
}

/* A message that arrived in one callback, NUL-terminated (the loop's one
 * buffer: lws's own is not ours to terminate). */
static char rx_one[LIMIT_MSG_BYTES + 1];

/* A whole message: text NUL-terminated at len. */
static void on_message(struct conn *c, char *text, size_t len)
{
    int64_t t0 = now_us();
    uint64_t queued = store_queued(store);
    enum proto_type type;

    if (c->rx_binary) {
        session_on_binary(c->sess, t0 / 1000);
        return;
    }
    type = session_on_text(c->sess, text, len, t0 / 1000);
    if (type != PROTO_T_MOVE)
        return;
    metrics_hist_add(&hub_metrics(hub)->move, now_us() - t0);
    if (store_queued(store) != queued && pending_n < PENDING_MOVES) {
        size_t i = (pending_head + pending_n++) % PENDING_MOVES;
        pending[i].seq = store_queued(store); /* the move's row */
        pending[i].at_us = t0;
    }
}

static struct peer *peer_get(struct lws *wsi)
{
    char ip[64];
    struct peer *p;

    peer_ip(wsi, ip, sizeof ip);
    p = table_get(&peers, ip);
    if (p)
        return p;
    p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    snprintf(p->ip, sizeof p->ip, "%s", ip);
    if (table_put(&peers, p->ip, p) < 0) {
        free(p);
        return NULL;
    }
    return p;
}

static int callback_chess(struct lws *wsi, enum lws_callback_reasons reason,
                          void *user, void *in, size_t len)
{
    struct conn *c = user;

    switch (reason) {
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        return confirm_upgrade(wsi);

    case LWS_CALLBACK_ESTABLISHED:
        memset(c, 0, sizeof *c);
        c->wsi = wsi;
        c->sess = session_new(hub, c);
        if (!c->sess)
            return -1;
        c->peer = peer_get(wsi);
        if (c->peer)
            c->peer->conns++;
        n_conns++;
        log_debug("event=ws_open ip=%s connections=%d",
                  c->peer ? c->peer->ip : "?", n_conns);
        conn_ponged(c, net_now_ms());
        break;

    case LWS_CALLBACK_CLOSED:
        if (!c->sess)
            break;
        wait_remove(c);
        queue_clear(c);
        list_remove(c);
        free(c->rx);
        c->rx = NULL;
        session_free(c->sess, net_now_ms());
        c->sess = NULL;
        n_conns--;
        log_debug("event=ws_close ip=%s connections=%d",
                  c->peer ? c->peer->ip : "?", n_conns);
        if (c->peer && --c->peer->conns == 0)
            free(table_del(&peers, c->peer->ip));
        if (stopping && !n_conns)
            stopped = true;
        break;

    case LWS_CALLBACK_RECEIVE:
        if (!c->sess || c->closing || c->killed)
            break;
        if (!c->in_msg && lws_is_final_fragment(wsi)
            && !lws_remaining_packet_payload(wsi) && len <= LIMIT_MSG_BYTES) {
            /* the common case: a whole message in one callback, handled
             * from the loop's one buffer */
            c->rx_binary = lws_frame_is_binary(wsi);
            memcpy(rx_one, in, len);
            rx_one[len] = '\0';
            on_message(c, rx_one, len);
            break;
        }
        if (!c->in_msg) {
            c->in_msg = true;
            c->rx_len = 0;
            c->rx_binary = lws_frame_is_binary(wsi);
        }
        if (!c->rx && !(c->rx = malloc(LIMIT_MSG_BYTES + 1)))
            return -1;
        if (c->rx_len + len > LIMIT_MSG_BYTES) {
            static const char why[] = "message too large";
            lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE,
                             (unsigned char *)why, sizeof why - 1);
            return -1;
        }
        memcpy(c->rx + c->rx_len, in, len);
        c->rx_len += len;
        if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi))
            break;
        c->in_msg = false;
        c->rx[c->rx_len] = '\0';
        on_message(c, c->rx, c->rx_len);
        break;

    case LWS_CALLBACK_SERVER_WRITEABLE:
        if (!c->sess)
            break;
        if (c->want_ping && !c->killed && !c->closing) {
            if (write_ping(c) < 0)
                return -1;
            schedule_write(c);
            return 0;
        }
        return write_next(c);

    case LWS_CALLBACK_RECEIVE_PONG:
        if (c->sess && c->list)
            conn_ponged(c, net_now_ms());
        break;

    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        if (store)
            on_commits();
        if (hub)
            hub_wake(hub);
        if (reopen_requested) {
            reopen_requested = 0;
            log_reopen();
        }
        if (stop_requested && !stopping)
            begin_shutdown();
        break;

    default:
        break;
    }
    return 0;
}

/* ---- HTTP -------------------------------------------------------------- */

#define MAX_ARGS 8

/* A URL path that names a file under the web folder: no "..", no hidden
 * files, only ordinary characters. */
static bool safe_path(const char *uri)
{
    if (uri[0] != '/' || strstr(uri, "/.") || strstr(uri, ".."))
        return false;
    for (const char *p = uri; *p; p++)
        if (!(*p == '/' || *p == '.' || *p == '_' || *p == '-'
              || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
              || (*p >= '0' && *p <= '9')))
            return false;
    return true;
}

static int not_found(struct lws *wsi)
{
    lws_return_http_status(wsi, HTTP_STATUS_NOT_FOUND, NULL);
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* Static files of the client; /g/GID is the client's page for a game.
 * (lws 4.1's file mounts never answer a missing file, so this callback
 * serves the folder itself and says 404.) */
static int serve_file(struct lws *wsi, const char *uri)
{
    char path[sizeof web_dir + 600];
    const char *type;
    struct stat st;

    if (!strncmp(uri, "/g/", 3))
        uri = "/index.html";
    if (!safe_path(uri))
        return not_found(wsi);
    if (snprintf(path, sizeof path, "%s%s%s", web_dir, uri,
                 uri[strlen(uri) - 1] == '/' ? "index.html" : "")
        >= (int)sizeof path)
        return not_found(wsi);
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
        return not_found(wsi);
    type = lws_get_mimetype(path, &mount_root);
    if (lws_serve_http_file(wsi, path, type ? type
                                            : "application/octet-stream",
                            NULL, 0) < 0)
        return -1;
    return 0;
}

static int http_begin(struct lws *wsi, struct http_pss *pss)
{
    uint8_t buf[LWS_PRE + 1024], *start = &buf[LWS_PRE], *p = start,
            *end = &buf[sizeof buf - 1];
    char uri[512], argbuf[MAX_ARGS][128];
    const char *args[MAX_ARGS];
    struct http_reply r;
    size_t nargs = 0;

    if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) < 0)
        return -1;
    if (!http_wants(uri))
        return serve_file(wsi, uri);
    while (nargs < MAX_ARGS
           && lws_hdr_copy_fragment(wsi, argbuf[nargs], sizeof argbuf[0],
                                    WSI_TOKEN_HTTP_URI_ARGS, (int)nargs) > 0) {
        args[nargs] = argbuf[nargs];
        nargs++;
    }
    http_handle(hub, uri, args, nargs, net_now_ms(), &r);
    if (!r.body) {
        lws_return_http_status(wsi, (unsigned)r.status, NULL);
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    pss->body = r.body;
    pss->len = r.len;
    pss->sent = 0;
    if (lws_add_http_common_headers(wsi, (unsigned)r.status, r.type,
                                    (lws_filepos_t)r.len, &p, end)
        || lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL,
                                        (unsigned char *)"no-store", 8, &p,
                                        end)
        || lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    lws_callback_on_writable(wsi);
    return 0;
}

static int http_write(struct lws *wsi, struct http_pss *pss)
{
    uint8_t buf[LWS_PRE + 16384];
    size_t chunk = pss->len - pss->sent;
    enum lws_write_protocol kind = LWS_WRITE_HTTP_FINAL;

    if (!pss->body)
        return 0;
    if (chunk > sizeof buf - LWS_PRE) {
        chunk = sizeof buf - LWS_PRE;
        kind = LWS_WRITE_HTTP;
    }
    memcpy(buf + LWS_PRE, pss->body + pss->sent, chunk);
    if (lws_write(wsi, buf + LWS_PRE, chunk, kind) != (int)chunk)
        return -1;
    pss->sent += chunk;
    if (kind == LWS_WRITE_HTTP) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    free(pss->body);
    pss->body = NULL;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int callback_http(struct lws *wsi, enum lws_callback_reasons reason,
                         void *user, void *in, size_t len)
{
    struct http_pss *pss = user;

    switch (reason) {
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        return confirm_upgrade(wsi);
    case LWS_CALLBACK_HTTP:
        return http_begin(wsi, pss);
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return http_write(wsi, pss);
    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        if (pss) {
            free(pss->body);
            pss->body = NULL;
        }
        break;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        return 0; /* handled by the chess protocol */
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/* ---- context ----------------------------------------------------------- */

/* Why lws could not create a listener: the errno of binding the same
 * address and port now, as lws does (0: binding works, so the cause was
 * something else, such as the TLS certificate). */
static int bind_errno(const char *iface, int port)
{
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6,
                              .sin6_port = htons((uint16_t)port),
                              .sin6_addr = IN6ADDR_ANY_INIT};
    struct sockaddr_in a4 = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)port)};
    bool v4 = iface && inet_pton(AF_INET, iface, &a4.sin_addr) == 1;
    int fd, one = 1, e = 0;

    if (iface && !v4 && inet_pton(AF_INET6, iface, &a6.sin6_addr) != 1)
        return EINVAL;
    fd = socket(v4 ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (v4 ? bind(fd, (struct sockaddr *)&a4, sizeof a4)
           : bind(fd, (struct sockaddr *)&a6, sizeof a6))
        e = errno;
    close(fd);
    return e;
}

static const struct lws_protocols protocols[] = {
    {"http", callback_http, sizeof(struct http_pss), 0, 0, NULL, 0},
    /* lws allocates rx_buffer_size per connection: 512 bytes hold any
     * ordinary message, longer ones arrive in pieces (see RECEIVE) */
    {"chess.v1", callback_chess, sizeof(struct conn), 512, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}
};

/* A client naming no subprotocol binds to chess.v1. */
static const struct lws_protocol_vhost_options pvo_default = {
    NULL, NULL, "default", "1"};
static const struct lws_protocol_vhost_options pvo = {
    NULL, &pvo_default, "chess.v1", ""};

static const struct lws_protocol_vhost_options mime_mjs = {
    NULL, NULL, ".mjs", "text/javascript"};
static const struct lws_protocol_vhost_options mime_svg = {
    &mime_mjs, NULL, ".svg", "image/svg+xml"};
static const struct lws_protocol_vhost_options mime_types = {
    &mime_svg, NULL, ".json", "application/json"};

/* Keepalive is keepalive_tick's. A policy without ping or hang-up keeps
 * lws from arming its own validity timers (with no policy at all it
 * applies a default of 300 s). */
static const lws_retry_bo_t retry;

/* One callback mount for the whole URL space (see serve_file); its
 * extra_mimetypes also feed lws_get_mimetype. */
static const struct lws_http_mount mount_root = {
    .mountpoint = "/",
    .mountpoint_len = 1,
    .protocol = "http",
    .origin_protocol = LWSMPRO_CALLBACK,
    .extra_mimetypes = &mime_types,
};

/* ---- HTTP to HTTPS redirect ------------------------------------------- */

/* The Host header's host without its port, when it is a plain name or
 * address (anything else could smuggle text into the Location header). */
static bool redirect_host(struct lws *wsi, char *host, size_t len)
{
    char *colon;

    if (lws_hdr_copy(wsi, host, (int)len, WSI_TOKEN_HOST) <= 0)
        return false;
    if (host[0] == '[') {
        colon = strchr(host, ']');
        if (!colon)
            return false;
        colon[1] = '\0';
    } else if ((colon = strchr(host, ':'))) {
        *colon = '\0';
    }
    for (const char *p = host; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
              || (*p >= '0' && *p <= '9') || *p == '.' || *p == '-'
              || *p == ':' || *p == '[' || *p == ']'))
            return false;
    return host[0] != '\0';
}

/* Answers every request on the plain-HTTP listener with 301 to the same
 * host and path over https on the main port. */
static int callback_redirect(struct lws *wsi, enum lws_callback_reasons reason,
                             void *user, void *in, size_t len)
{
    uint8_t buf[LWS_PRE + 1024], *start = &buf[LWS_PRE], *p = start,
            *end = &buf[sizeof buf - 1];
    char host[256], uri[512], loc[900], port[8] = "";
    int n;

    switch (reason) {
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        lws_return_http_status(wsi, HTTP_STATUS_FORBIDDEN, NULL);
        return 1;
    case LWS_CALLBACK_HTTP:
        if (!redirect_host(wsi, host, sizeof host)
            || lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) < 0
            || !safe_path(uri[0] ? uri : "/")) {
            lws_return_http_status(wsi, HTTP_STATUS_BAD_REQUEST, NULL);
            return lws_http_transaction_completed(wsi) ? -1 : 0;
        }
        if (cfg->port != 443)
            snprintf(port, sizeof port, ":%d", cfg->port);
        n = snprintf(loc, sizeof loc, "https://%s%s%s", host, port, uri);
        if (lws_http_redirect(wsi, HTTP_STATUS_MOVED_PERMANENTLY,
                              (unsigned char *)loc, n, &p, end) < 0)
            return -1;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        return 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols redirect_protocols[] = {
    {"http-redirect", callback_redirect, 0, 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}
};

/* ---- lws's log --------------------------------------------------------- */

/* The last line lws logged, for collapsing repeats (under lws_last_mu:
 * lws logs from the loop, but lws_cancel_service runs on the writer). */
static pthread_mutex_t lws_last_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char msg[600];
    enum log_level level;
    unsigned long repeats;   /* equal lines since it was written */
    int64_t written_ms;      /* when it (or its repeat count) was written */
} lws_last;

/* Writes how often the last lws line repeated, if it did. */
static void lws_flush_repeats(void)
{
    char q[700];

    if (!lws_last.repeats)
        return;
    log_write(lws_last.level, "event=lws_repeated count=%lu msg=%s",
              lws_last.repeats, log_quote(q, sizeof q, lws_last.msg));
    lws_last.repeats = 0;
}

/* lws's lines go through the logger: errors and warnings as such, the
 * rest as debug (its libev glue writes a notice on every change of a
 * socket's events: several lines per message). Some lws errors repeat on every turn of the
 * loop (accept() failing with EMFILE while the descriptors are used up:
 * thousands a second, gigabytes of log in minutes), so a line equal to
 * the previous one is counted, and the count written at most once a
 * second and before the next different line. */
static void lws_emit(int level, const char *line)
{
    enum log_level l = LOG_DEBUG;
    char msg[600], q[700];
    int64_t now = net_now_ms();
    size_t n;

    if (level & LLL_ERR)
        l = LOG_ERROR;
    else if (level & LLL_WARN)
        l = LOG_WARN;
    else if (level & LLL_USER)
        l = LOG_INFO;
    snprintf(msg, sizeof msg, "%s", line);
    n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    pthread_mutex_lock(&lws_last_mu);
    if (l == lws_last.level && !strcmp(msg, lws_last.msg)) {
        lws_last.repeats++;
        if (now - lws_last.written_ms >= 1000) {
            lws_flush_repeats();
            lws_last.written_ms = now;
        }
    } else {
        lws_flush_repeats();
        memcpy(lws_last.msg, msg, n + 1);
        lws_last.level = l;
        lws_last.written_ms = now;
        log_write(l, "event=lws msg=%s", log_quote(q, sizeof q, msg));
    }
    pthread_mutex_unlock(&lws_last_mu);
}

static int lws_levels(void)
{
    switch (log_get_level()) {
    case LOG_ERROR: return LLL_ERR;
    case LOG_WARN: return LLL_ERR | LLL_WARN;
    case LOG_INFO: return LLL_ERR | LLL_WARN | LLL_USER;
    default:
        return LLL_ERR | LLL_WARN | LLL_NOTICE | LLL_USER | LLL_INFO
            | LLL_DEBUG;
    }
}

/* ---- context ----------------------------------------------------------- */

int net_start(const struct config *config, char *err, size_t errlen)
{
    struct lws_context_creation_info info;
    bool tls = config->tls_cert[0] != '\0';
    const char *iface = config->listen_address[0] ? config->listen_address
                                                  : NULL;
    int e;

    cfg = config;
    snprintf(web_dir, sizeof web_dir, "%s", cfg->web_root);
    lws_set_log_level(lws_levels(), lws_emit);
    loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
    if (!loop) {
        snprintf(err, errlen, "cannot create the event loop (libev)");
        return -1;
    }
    ev_timer_init(&timers_ev, timers_fire, 0.0, 0.0);
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    /* UTF-8 validation is a context option: it must be given here */
    info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS
        | LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_LIBEV
        | (tls ? LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT : 0);
    info.foreign_loops = (void **)&loop;
    context = lws_create_context(&info);
    if (!context) {
        snprintf(err, errlen, "cannot create the libwebsockets context "
                 "(is its libev plugin, libwebsockets-evlib-ev, installed?)");
        ev_loop_destroy(loop);
        loop = NULL;
        return -1;
    }

    /* A port in use is said plainly here; lws would only log a bind
     * error, and a failed vhost can hold its socket until the context
     * goes, so the cause cannot be probed afterwards. */
    e = bind_errno(iface, cfg->port);
    if (e) {
        snprintf(err, errlen, "cannot listen on %s port %d (%s)",
                 iface ? iface : "every address", cfg->port,
                 e == EADDRINUSE ? "in use?" : strerror(e));
        goto fail;
    }
    memset(&info, 0, sizeof info);
    info.vhost_name = "chess";
    info.iface = iface;
    info.port = cfg->port;
    info.protocols = protocols;
    info.pvo = &pvo;
    info.mounts = &mount_root;
    info.retry_and_idle_policy = &retry;
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8
        | LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE;
    if (tls) {
        /* without this flag on the vhost too, lws serves it in clear */
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = cfg->tls_cert;
        info.ssl_private_key_filepath = cfg->tls_key;
        /* Debian's lws speaks HTTP/2: with it a browser would multiplex
         * its WebSockets over one connection, which this server's per-
         * connection queues and limits do not expect. */
        info.alpn = "http/1.1";
    }
    if (!lws_create_vhost(context, &info)) {
        if (tls)
            snprintf(err, errlen, "cannot use the TLS certificate %s and "
                     "key %s, or listen on port %d (see the lws lines "
                     "above)", cfg->tls_cert, cfg->tls_key, cfg->port);
        else
            snprintf(err, errlen, "cannot listen on %s port %d (see the "
                     "lws lines above)", iface ? iface : "every address",
                     cfg->port);
        goto fail;
    }
    if (cfg->http_redirect_port) {
        memset(&info, 0, sizeof info);
        info.vhost_name = "redirect";
        info.iface = iface;
        info.port = cfg->http_redirect_port;
        info.protocols = redirect_protocols;
        info.options = LWS_SERVER_OPTION_VALIDATE_UTF8
            | LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE;
        if (!lws_create_vhost(context, &info)) {
            snprintf(err, errlen, "cannot listen on %s port %d for the "
                     "HTTPS redirect (in use?)",
                     iface ? iface : "every address",
                     cfg->http_redirect_port);
            goto fail;
        }
    }
    /* Now, not lazily on some later turn of the loop as lws would: until
     * then a WebSocket naming no subprotocol binds to protocols[0] (http,
     * which ignores it) instead of the pvo default chess.v1, and a client
     * connecting at once (every player, after a restart) hears nothing. */
    if (lws_protocol_init(context)) {
        snprintf(err, errlen, "cannot initialise the WebSocket protocols");
        goto fail;
    }
    atomic_store(&wake_context, context);
    return 0;
fail:
    lws_context_destroy(context);
    context = NULL;
    ev_loop_destroy(loop);
    loop = NULL;
    return -1;
}

void net_attach(struct hub *h, struct store *st)
{
    hub = h;
    store = st;
}

/* Ends the loop once the shutdown is complete (after every turn). */
static void stop_check_cb(struct ev_loop *l, ev_check *w, int revents)
{
    (void)w;
    (void)revents;
    if (stopped)
        ev_break(l, EVBREAK_ALL);
}

void net_run(void)
{
    ev_check_init(&stop_check, stop_check_cb);
    ev_check_start(loop, &stop_check);
    ev_timer_init(&keepalive_ev, keepalive_tick, KEEPALIVE_TICK_MS / 1000.0,
                  KEEPALIVE_TICK_MS / 1000.0);
    ev_timer_start(loop, &keepalive_ev);
    if (!stopped)
        ev_run(loop, 0);
}

void net_stop(void)
{
    atomic_store(&wake_context, NULL);
    net_timer_free(drain_timer);
    drain_timer = NULL;
    lws_context_destroy(context);
    context = NULL;
    if (loop) {
        ev_timer_stop(loop, &timers_ev);
        ev_timer_stop(loop, &keepalive_ev);
        ev_check_stop(loop, &stop_check);
        ev_loop_destroy(loop);
        loop = NULL;
    }
    timers_ev_at = INT64_MAX;
    timerq_free(&timers);
    for (size_t i = 0; i < peers.cap; i++)
        free(peers.slots[i].value);
    table_clear(&peers);
}
