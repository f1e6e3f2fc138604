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
#include "net_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <limits.h>
#include <libwebsockets.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "ids.h"
#include "listener.h"
#include "log.h"
#include "metrics.h"
#include "tls.h"
#include "tunables.h"
#include "msgbuf.h"
#include "proto.h"
#include "ratelimit.h"
#include "store.h"
#include "table.h"
#include "timerq.h"
#include "wire.h"

_Static_assert(LWS_PRE <= MSGBUF_HEADROOM, "msgbuf headroom below LWS_PRE");

struct net net = {
    .timers_ev_at = INT64_MAX,
    .accepted_fd = -1,
    .reserve_fd = -1,
    .lws_last_mu = PTHREAD_MUTEX_INITIALIZER,
};


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

int64_t net_now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- outbound queues --------------------------------------------------- */

static void wait_remove(struct conn *c)
{
    if (!c->waiting)
        return;
    if (c->wprev)
        c->wprev->wnext = c->wnext;
    else
        net.waiting = c->wnext;
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
    if (c->head && c->head->seq > store_committed(net.store)) {
        if (!c->waiting) {
            c->waiting = true;
            c->wprev = NULL;
            c->wnext = net.waiting;
            if (net.waiting)
                net.waiting->wprev = c;
            net.waiting = c;
        }
        return;
    }
    if (c->head || c->closing)
        lws_callback_on_writable(c->wsi);
}

static void queue_clear(struct conn *c)
{
    struct metrics *m = net.metrics;

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
        net.metrics->closed_overflow++;
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
    net.metrics->out_queue_bytes += b->len;
    if (c->head == n)
        schedule_write(c);
}

const char *net_conn_ip(const struct conn *c)
{
    return c->peer ? c->peer->ip : "?";
}

/* ---- closing ----------------------------------------------------------
 *
 * A close the server decides on (net_close: a flood, a message too large
 * or not UTF-8, the planned shutdown) is staged so that the client sees
 * everything that was due, then the close frame, then the end of the
 * stream:
 *
 * 1. what the client sends is no longer acted on, nor read (lws's rx
 *    flow control; over TLS lws goes on reading, see below);
 * 2. the queue is written as usual, then the close frame (a raw write of
 *    a ready frame: lws 4.1 has no public call that only writes one);
 * 3. once lws has written all of it, the socket is half-closed
 *    (shutdown SHUT_WR) and everything the client still sends is read
 *    and dropped unparsed, until it closes its side or
 *    LIMIT_CLOSE_DRAIN_MS pass;
 * 4. only then lws closes the socket.
 *
 * Closing a socket with unread input makes the kernel send a reset and
 * drop everything not yet delivered, the close frame included: that is
 * what 3 avoids. lws's own close (lws_close_reason and returning -1)
 * closes the descriptor at once after its close frame, whatever is
 * unread, so it is not used. Over TLS, lws 4.1 spins on a connection
 * whose rx flow is off while OpenSSL holds input, so there lws keeps
 * reading (and this file ignores what it delivers) and itself closes at
 * the client's end of stream; only the timeout is this file's. Cuts (a
 * slow reader, no pong) are not staged: nothing more can reach such a
 * client. */

void net_send_now(struct conn *c, struct msgbuf *b)
{
    uint64_t committed = store_committed(net.store);
    struct qnode *n, **at = &c->head;

    if (c->closing || c->killed || !c->head) {
        net_send(c, b, 0);
        return;
    }
    n = malloc(sizeof *n);
    if (!n)
        return;
    while (*at && (*at)->seq <= committed)
        at = &(*at)->next;
    n->b = msgbuf_ref(b);
    n->seq = 0;
    n->next = *at;
    *at = n;
    if (!n->next)
        c->tail = n;
    c->qbytes += b->len;
    net.metrics->out_queue_bytes += b->len;
    if (c->head == n) {
        wait_remove(c);
        schedule_write(c);
    }
}

void net_close(struct conn *c, int code, const char *reason)
{
    if (c->closing || c->killed)
        return;
    c->closing = true;
    c->close_code = code;
    c->close_reason = reason;
    if (!lws_is_ssl(c->wsi))
        lws_rx_flow_control(c->wsi, 0);
    if (!c->head)
        lws_callback_on_writable(c->wsi);
}

/* Writes the close frame: code and reason (at most 123 bytes). Returns
 * lws_write's result. */
static int write_close(struct conn *c)
{
    unsigned char f[LWS_PRE + 4 + 123], *p = f + LWS_PRE;
    size_t len = strlen(c->close_reason);

    if (len > 123)
        len = 123;
    p[0] = 0x88; /* FIN, close */
    p[1] = (unsigned char)(2 + len);
    p[2] = (unsigned char)(c->close_code >> 8);
    p[3] = (unsigned char)c->close_code;
    memcpy(p + 4, c->close_reason, len);
    c->close_sent = true;
    return lws_write(c->wsi, p, 4 + len, LWS_WRITE_RAW);
}

static void drain_stop(struct conn *c)
{
    if (!c->draining)
        return;
    if (!lws_is_ssl(c->wsi))
        ev_io_stop(net.loop, &c->drain_io);
    ev_timer_stop(net.loop, &c->drain_timeout);
    c->draining = false;
}

/* The end of the drain: lws closes the connection now (the CLOSED
 * callback runs before this returns; c is gone after). */
static void drain_end(struct conn *c)
{
    drain_stop(c);
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC);
}

/* Reads what the client sent and drops it; ends the drain when the
 * client has closed (end of stream or an error). A bounded number of
 * reads per turn of the loop, so that a flooding client cannot hold the
 * loop. */
static void drain_read(struct ev_loop *l, ev_io *w, int revents)
{
    static char sink[16384];
    struct conn *c = lws_container_of(w, struct conn, drain_io);

    (void)l;
    (void)revents;
    for (int i = 0; i < 4; i++) {
        ssize_t n = recv(w->fd, sink, sizeof sink, MSG_DONTWAIT);

        if (n > 0)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK
                      || errno == EINTR))
            return;
        drain_end(c);
        return;
    }
}

static void drain_expired(struct ev_loop *l, ev_timer *w, int revents)
{
    struct conn *c = lws_container_of(w, struct conn, drain_timeout);

    (void)l;
    (void)revents;
    drain_end(c);
}

/* The close frame has left lws: half-close and drain. */
static int drain_start(struct conn *c)
{
    int fd = lws_get_socket_fd(c->wsi);

    if (fd < 0)
        return -1;
    shutdown(fd, SHUT_WR);
    if (!lws_is_ssl(c->wsi)) {
        ev_io_init(&c->drain_io, drain_read, fd, EV_READ);
        ev_io_start(net.loop, &c->drain_io);
    }
    ev_timer_init(&c->drain_timeout, drain_expired,
                  LIMIT_CLOSE_DRAIN_MS / 1000.0, 0.0);
    ev_timer_start(net.loop, &c->drain_timeout);
    c->draining = true;
    return 0;
}

static int write_next(struct conn *c)
{
    struct qnode *n = c->head;
    int w;

    if (c->killed)
        return -1;
    if (!n) {
        if (c->closing && !c->close_sent) {
            c->closed_with = c->close_code;
            if (write_close(c) < 0)
                return -1;
            /* the next WRITEABLE comes once lws has written it all */
            lws_callback_on_writable(c->wsi);
        } else if (c->close_sent && !c->draining) {
            return drain_start(c);
        }
        return 0;
    }
    if (n->seq > store_committed(net.store)) {
        schedule_write(c);
        return 0;
    }
    c->head = n->next;
    if (!c->head)
        c->tail = NULL;
    c->qbytes -= n->b->len;
    net.metrics->out_queue_bytes -= n->b->len;
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
void conn_on_commits(void)
{
    uint64_t committed = store_committed(net.store);
    struct conn *c = net.waiting, *next;
    int64_t now = net.pending_n ? net_now_us() : 0;

    while (net.pending_n && net.pending[net.pending_head].seq <= committed) {
        hist_add(&net.metrics->commit,
                         now - net.pending[net.pending_head].at_us);
        net.pending_head = (net.pending_head + 1) % PENDING_MOVES;
        net.pending_n--;
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
    struct lws_context *ctx = atomic_load(&net.wake_context);

    if (ctx)
        lws_cancel_service(ctx);
}

void net_request_stop(void)
{
    net.stop_requested = 1;
    net_wake();
}

void net_request_log_reopen(void)
{
    net.reopen_requested = 1;
    net_wake();
}

/* ---- timers ------------------------------------------------------------ */

/* Points timers_ev at the earliest deadline when that changed. */
static void timers_rearm(void)
{
    int64_t next = timerq_next(&net.timers), delay;

    if (next == net.timers_ev_at || !net.loop)
        return;
    net.timers_ev_at = next;
    ev_timer_stop(net.loop, &net.timers_ev);
    if (next == INT64_MAX)
        return;
    ev_now_update(net.loop); /* libev counts from the turn's start otherwise */
    delay = next - net_now_ms();
    if (delay < 0)
        delay = 0;
    /* +1 ms: the deadline has surely passed by the millisecond clock the
     * game reads when the timer fires */
    ev_timer_set(&net.timers_ev, (double)(delay + 1) / 1000.0, 0.0);
    ev_timer_start(net.loop, &net.timers_ev);
}

static void timers_fire(struct ev_loop *l, ev_timer *w, int revents)
{
    int64_t now = net_now_ms();
    struct timerq_timer *t;

    (void)l;
    (void)w;
    (void)revents;
    net.timers_ev_at = INT64_MAX;
    while ((t = timerq_pop_due(&net.timers, now)))
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
        timerq_cancel(&net.timers, &t->t);
    else if (timerq_arm(&net.timers, &t->t, at_ms) < 0)
        log_error("event=timer_lost why=out_of_memory");
    timers_rearm();
}

void net_timer_free(struct net_timer *t)
{
    if (!t)
        return;
    timerq_cancel(&net.timers, &t->t);
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
    list_append(&net.alive, c);
}

/* The keepalive tick's period, and the share of the pong allowance
 * (ping_timeout_s - ping_interval_s, or the interval when shorter) within
 * which a due ping goes out: connections that fall due together (opened
 * together, after a restart, say) are pinged in a spread-out stream, not
 * in one burst that would hold up every game's moves. */
#define KEEPALIVE_SPREAD_DIV 2

void conn_keepalive(int64_t now)
{
    int64_t interval = (int64_t)net.cfg->ping_interval_s * 1000;
    int64_t timeout = (int64_t)net.cfg->ping_timeout_s * 1000;
    int64_t spread = (timeout - interval < interval ? timeout - interval
                                                     : interval)
                     / KEEPALIVE_SPREAD_DIV;
    int64_t budget = 16 + (int64_t)net.n_conns * KEEPALIVE_TICK_MS / spread;
    struct conn *c;

    while ((c = net.pinged.head) && now - c->last_pong_ms >= timeout) {
        list_remove(c);
        log_info("event=conn_cut why=no_pong ip=%s",
                 c->peer ? c->peer->ip : "?");
        /* outside any lws callback a synchronous kill is safe, and an
         * asynchronous one would wait for lws's own timer */
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC);
    }
    while ((c = net.alive.head) && now - c->last_pong_ms >= interval
           && budget-- > 0) {
        list_remove(c);
        list_append(&net.pinged, c);
        c->want_ping = true;
        lws_callback_on_writable(c->wsi);
    }
}

/* Every KEEPALIVE_TICK_MS: the requests overdue (tcp.c), the pings due
 * and the connections that did not answer theirs (conn.c). */
static void keepalive_tick(struct ev_loop *l, ev_timer *w, int revents)
{
    int64_t now = net_now_ms();

    (void)l;
    (void)w;
    (void)revents;
    tcp_expire(now);
    conn_keepalive(now);
}

/* ---- event-loop lag ------------------------------------------------------ */

/* Every LAG_PERIOD_MS a one-shot timer records how late it fired: the
 * time the loop spent in a callback, a stall (swap, a stopped process),
 * anything that holds up every game's moves as much. */
#define LAG_PERIOD_MS 100

static void lag_arm(void)
{
    ev_now_update(net.loop);
    net.lag_due_us = net_now_us() + LAG_PERIOD_MS * 1000;
    ev_timer_set(&net.lag_ev, LAG_PERIOD_MS / 1000.0, 0.0);
    ev_timer_start(net.loop, &net.lag_ev);
}

static void lag_tick(struct ev_loop *l, ev_timer *w, int revents)
{
    int64_t late = net_now_us() - net.lag_due_us;

    (void)l;
    (void)w;
    (void)revents;
    if (net.attached)
        hist_add(&net.metrics->loop_lag, late > 0 ? late : 0);
    lag_arm();
}

/* Writes the ping keepalive_tick asked for, with a random payload that
 * only a client that read it can echo. Returns lws_write's result. */
static int write_ping(struct conn *c)
{
    unsigned char ping[LWS_PRE + sizeof c->ping_data];
    size_t n;

    c->want_ping = false;
    if (ids_random(c->ping_data, 6) < 0)
        snprintf(c->ping_data, sizeof c->ping_data, "%lld",
                 (long long)net_now_ms());
    n = strlen(c->ping_data);
    memcpy(ping + LWS_PRE, c->ping_data, n);
    return lws_write(c->wsi, ping + LWS_PRE, n, LWS_WRITE_PING);
}

/* A pong arrived: it counts as life only when it answers the ping the
 * server is waiting on (same payload). An unsolicited pong, which RFC
 * 6455 allows as a heartbeat, proves nothing: a client that never reads
 * could send them forever. */
static void on_pong(struct conn *c, const void *data, size_t len)
{
    size_t n = strlen(c->ping_data);

    if (c->list != &net.pinged || c->want_ping || !n || len != n
        || memcmp(data, c->ping_data, n))
        return;
    c->ping_data[0] = '\0';
    conn_ponged(c, net_now_ms());
}

/* ---- shutdown ---------------------------------------------------------- */

static void drain_done(void *arg)
{
    (void)arg;
    net.stopped = true;
}

/* A planned stop: every client is told, then closed with 1001. */
static void begin_shutdown(void)
{
    struct msgbuf *b = msgbuf_take(proto_render_shutdown());

    net.stopping = true;
    log_info("event=shutdown_begin connections=%d", net.n_conns);
    /* closing connections are not players leaving their games */
    if (net.attached)
        net.hd.shutdown(net.hd.ctx);
    for (int i = 0; i < 2; i++)
        for (struct conn *c = i ? net.pinged.head : net.alive.head; c;
             c = c->next) {
            if (b)
                net_send(c, b, 0);
            net_close(c, LWS_CLOSE_STATUS_GOINGAWAY, "server shutdown");
        }
    msgbuf_unref(b);
    net.drain_timer = net_timer_new(drain_done, NULL);
    if (!net.n_conns || !net.drain_timer)
        net.stopped = true;
    else
        net_timer_arm(net.drain_timer, net_now_ms() + LIMIT_SHUTDOWN_DRAIN_MS);
}

/* SIGHUP with TLS: new handshakes get the certificate and key now at
 * tls_cert and tls_key (renewed by certbot, say); open connections keep
 * theirs. A pair that does not load leaves the old one served. */
static void reload_certificate(void)
{
    char err[600], q1[700], q2[700];

    if (!net.cfg->tls_cert[0])
        return;
    if (tls_reload(net.cfg->tls_cert, net.cfg->tls_key, err, sizeof err) < 0)
        log_error("event=tls_reload_failed error=%s keeping=previous",
                  log_quote(q1, sizeof q1, err));
    else
        log_info("event=tls_reloaded cert=%s key=%s",
                 log_quote(q1, sizeof q1, net.cfg->tls_cert),
                 log_quote(q2, sizeof q2, net.cfg->tls_key));
}

/* The loop was woken (net_wake): store commits, a reopen of the log, a
 * stop. */
void net_woken(void)
{
    if (net.store)
        conn_on_commits();
    if (net.attached)
        net.hd.wake(net.hd.ctx);
    if (net.reopen_requested) {
        net.reopen_requested = 0;
        log_reopen();
        reload_certificate();
    }
    if (net.stop_requested && !net.stopping)
        begin_shutdown();
}

/* ---- WebSocket --------------------------------------------------------- */

/* The client's address of the request on wsi, as text: the socket's
 * address, or when that is a trusted proxy (trusted_proxies), the
 * rightmost address in X-Forwarded-For that is not itself a trusted
 * proxy (each proxy appends the address it got the request from, so
 * the entries left of the last untrusted one are the client's say and
 * worth nothing). An entry that is not an address ends the walk with
 * the last good one. */
static void client_ip(struct lws *wsi, char *ip, size_t len)
{
    char xff[4096];
    unsigned char buf[sizeof(struct in6_addr)];
    size_t n, b, e;
    int family;

    tcp_peer_ip(wsi, ip, len);
    if (!config_proxy_trusted(net.cfg, ip)
        || lws_hdr_copy(wsi, xff, sizeof xff, WSI_TOKEN_X_FORWARDED_FOR) <= 0)
        return;
    n = strlen(xff);
    while (n > 0) {
        /* the entry xff[b, e), then left of its comma */
        e = n;
        for (b = e; b > 0 && xff[b - 1] != ','; b--)
            ;
        n = b > 0 ? b - 1 : 0;
        while (b < e && (xff[b] == ' ' || xff[b] == '\t'))
            b++;
        while (e > b && (xff[e - 1] == ' ' || xff[e - 1] == '\t'))
            e--;
        xff[e] = '\0';
        /* canonical text, so that one address is one entry */
        if (inet_pton(AF_INET, xff + b, buf) == 1)
            family = AF_INET;
        else if (inet_pton(AF_INET6, xff + b, buf) == 1)
            family = AF_INET6;
        else
            return;
        if (!inet_ntop(family, buf, ip, (socklen_t)len))
            return;
        if (!config_proxy_trusted(net.cfg, ip))
            return;
    }
}

/* True when the request's Origin may open a WebSocket: no allow-list, no
 * Origin header, or an Origin in the list. Logs a refusal. */
static bool origin_ok(struct lws *wsi, const char *ip)
{
    char origin[300], q[320];
    int len = lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN);

    if (len <= 0 || !net.cfg->n_allowed_origins)
        return true;
    if (len >= (int)sizeof origin
        || lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) < 0)
        snprintf(origin, sizeof origin, "(too long)");
    else if (config_origin_allowed(net.cfg, origin))
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
int conn_confirm_upgrade(struct lws *wsi)
{
    char uri[256], ip[64];
    struct peer *p;

    tcp_request_done(wsi);
    if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) < 0
        || strcmp(uri, "/ws")) {
        web_status(wsi, HTTP_STATUS_NOT_FOUND);
        return 1;
    }
    if (net.stopping)
        return -1;
    client_ip(wsi, ip, sizeof ip);
    if (!origin_ok(wsi, ip)) {
        net.metrics->refused_origin++;
        web_status(wsi, HTTP_STATUS_FORBIDDEN);
        return 1;
    }
    if (net.n_conns >= net.cfg->max_connections) {
        log_warn("event=upgrade_refused why=max_connections ip=%s "
                 "connections=%d", ip, net.n_conns);
        net.metrics->refused_full++;
        web_status(wsi, HTTP_STATUS_SERVICE_UNAVAILABLE);
        return 1;
    }
    p = table_get(&net.peers, ip);
    if (p && p->conns >= net.cfg->max_connections_per_ip) {
        log_warn("event=upgrade_refused why=max_connections_per_ip ip=%s "
                 "connections=%d", ip, p->conns);
        net.metrics->refused_per_ip++;
        web_status(wsi, 429);
        return 1;
    }
    return 0;
}

/* A whole message: text NUL-terminated at len. */
static void on_message(struct conn *c, char *text, size_t len)
{
    int64_t t0 = net_now_us();
    uint64_t queued = store_queued(net.store);

    if (c->rx_binary) {
        net.hd.binary(net.hd.ctx, c->owner, t0 / 1000);
        return;
    }
    if (proto_utf8_prefix(text, len) != len) {
        net_close(c, LWS_CLOSE_STATUS_INVALID_PAYLOAD, "invalid UTF-8");
        return;
    }
    if (!net.hd.text(net.hd.ctx, c->owner, text, len, t0 / 1000))
        return;
    hist_add(&net.metrics->move, net_now_us() - t0);
    if (store_queued(net.store) != queued && net.pending_n < PENDING_MOVES) {
        size_t i = (net.pending_head + net.pending_n++) % PENDING_MOVES;
        net.pending[i].seq = store_queued(net.store); /* the move's row */
        net.pending[i].at_us = t0;
    }
}

/* A WebSocket's count: its client's address entry (NULL when out of
 * memory). */
static struct peer *peer_get(struct lws *wsi)
{
    char ip[64];

    client_ip(wsi, ip, sizeof ip);
    return tcp_peer_find(ip);
}

/* Descriptors wire.c watches at most (a table of ~50 bytes each). */
#define WIRE_MAX_FDS (1 << 18)

/* wire.c's reports: a ping or pong frame, an unmasked frame. */
static void wire_control(void *owner)
{
    struct conn *c = owner;

    if (c && c->owner && !c->closing && !c->killed)
        net.hd.control(net.hd.ctx, c->owner, net_now_ms());
}

static void wire_unmasked(void *owner)
{
    struct conn *c = owner;

    if (!c || !c->owner)
        return;
    log_info("event=conn_cut why=unmasked_frame ip=%s", net_conn_ip(c));
    net_close(c, LWS_CLOSE_STATUS_PROTOCOL_ERR, "unmasked frame");
}

const struct wire_hooks conn_wire_hooks = {wire_control, wire_unmasked};

int conn_callback(struct lws *wsi, enum lws_callback_reasons reason,
                  void *user, void *in, size_t len)
{
    struct conn *c = user;

    switch (reason) {
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        return conn_confirm_upgrade(wsi);

    case LWS_CALLBACK_ESTABLISHED:
        memset(c, 0, sizeof *c);
        c->wsi = wsi;
        c->peer = peer_get(wsi);
        c->owner = net.hd.open(net.hd.ctx, c, net_conn_ip(c));
        if (!c->owner) {
            if (c->peer)
                tcp_peer_release(c->peer);
            return -1;
        }
        if (c->peer)
            c->peer->conns++;
        net.n_conns++;
        wire_websocket(lws_get_socket_fd(wsi), c);
        log_debug("event=ws_open ip=%s connections=%d",
                  c->peer ? c->peer->ip : "?", net.n_conns);
        conn_ponged(c, net_now_ms());
        break;

    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        /* in: the close frame's payload, a big-endian code first */
        if (c->owner && !c->closed_with)
            c->closed_with = len >= 2 ? ((const unsigned char *)in)[0] << 8
                                            | ((const unsigned char *)in)[1]
                                      : LWS_CLOSE_STATUS_NO_STATUS;
        break;

    case LWS_CALLBACK_CLOSED:
        if (!c->owner)
            break;
        drain_stop(c);
        metrics_ws_close(net.metrics, c->closed_with
                             ? c->closed_with
                             : LWS_CLOSE_STATUS_ABNORMAL_CLOSE);
        wait_remove(c);
        queue_clear(c);
        list_remove(c);
        free(c->rx);
        c->rx = NULL;
        net.hd.closed(net.hd.ctx, c->owner, net_now_ms());
        c->owner = NULL;
        net.n_conns--;
        log_debug("event=ws_close ip=%s connections=%d",
                  c->peer ? c->peer->ip : "?", net.n_conns);
        if (c->peer) {
            c->peer->conns--;
            tcp_peer_release(c->peer);
        }
        if (net.stopping && !net.n_conns)
            net.stopped = true;
        break;

    case LWS_CALLBACK_RECEIVE:
        if (!c->owner || c->closing || c->killed)
            break;
        if (!c->in_msg && lws_is_final_fragment(wsi)
            && !lws_remaining_packet_payload(wsi) && len <= LIMIT_MSG_BYTES) {
            /* the common case: a whole message in one callback, handled
             * from the loop's one buffer */
            c->rx_binary = lws_frame_is_binary(wsi);
            memcpy(net.rx_one, in, len);
            net.rx_one[len] = '\0';
            on_message(c, net.rx_one, len);
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
            net_close(c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE,
                      "message too large");
            break;
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
        if (!c->owner)
            break;
        if (c->want_ping && !c->killed && !c->closing) {
            if (write_ping(c) < 0)
                return -1;
            schedule_write(c);
            return 0;
        }
        return write_next(c);

    case LWS_CALLBACK_RECEIVE_PONG:
        if (c->owner)
            on_pong(c, in, len);
        break;

    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        net_woken();
        break;

    default:
        break;
    }
    return 0;
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
    if (!v4 && iface) /* as the listener will be (listen_options) */
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (v4 ? bind(fd, (struct sockaddr *)&a4, sizeof a4)
           : bind(fd, (struct sockaddr *)&a6, sizeof a6))
        e = errno;
    close(fd);
    return e;
}

static const struct lws_protocols protocols[] = {
    {"http", web_callback, sizeof(struct http_pss), 0, 0, NULL, 0},
    /* lws allocates rx_buffer_size per connection: 512 bytes hold any
     * ordinary message, longer ones arrive in pieces (see RECEIVE) */
    {"chess.v1", conn_callback, sizeof(struct conn), 512, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}
};

/* A client naming no subprotocol binds to chess.v1. */
static const struct lws_protocol_vhost_options pvo_default = {
    NULL, NULL, "default", "1"};
static const struct lws_protocol_vhost_options pvo = {
    NULL, &pvo_default, "chess.v1", ""};

/* Keepalive is keepalive_tick's. A policy without ping or hang-up keeps
 * lws from arming its own validity timers (with no policy at all it
 * applies a default of 300 s). */
static const lws_retry_bo_t retry;

/* ---- context ----------------------------------------------------------- */

/* The vhost options that make lws open the socket listen_address asks
 * for: an IPv4 socket for an IPv4 address (else lws binds an IPv6 socket
 * and the IPv4 address lands outside its address field: [::]), an
 * IPv6-only socket for an IPv6 address, and a dual-stack [::] for ""
 * whatever net.ipv6.bindv6only says. */
static uint64_t listen_options(const struct listener_want *w)
{
    switch (w->scope) {
    case LISTENER_IPV4:
        return LWS_SERVER_OPTION_DISABLE_IPV6;
    case LISTENER_IPV6:
        return LWS_SERVER_OPTION_IPV6_V6ONLY_MODIFY
            | LWS_SERVER_OPTION_IPV6_V6ONLY_VALUE;
    case LISTENER_EVERY:
        break;
    }
    return LWS_SERVER_OPTION_IPV6_V6ONLY_MODIFY;
}

static void date_check_cb(struct ev_loop *l, ev_check *w, int revents)
{
    (void)l;
    (void)w;
    (void)revents;
    web_date_refresh();
}

/* After lws_create_vhost: the one listening socket on w->port is bound
 * exactly as asked, else the start is refused (never wider than asked). */
static int check_bound(const struct listener_want *w, const char *what,
                       struct listener_bound *out, char *err, size_t errlen)
{
    char why[400];

    if (listener_verify(w, out, why, sizeof why) == 0)
        return 0;
    snprintf(err, errlen, "listen_address cannot be honoured for the %s: "
             "%s; refusing to start (libwebsockets finds the address "
             "through the interface list: under systemd, "
             "RestrictAddressFamilies= must include AF_NETLINK)", what, why);
    return -1;
}

int net_start(const struct config *config, char *err, size_t errlen)
{
    struct lws_context_creation_info info;
    struct listener_want want, want_redirect;
    bool tls = config->tls_cert[0] != '\0';
    const char *iface = config->listen_address[0] ? config->listen_address
                                                  : NULL;
    int e, rc = -1;
    struct rlimit rl;

    net.cfg = config;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        net.fd_limit = (long)rl.rlim_cur;
    if (listener_parse(net.cfg->listen_address, net.cfg->port, &want) < 0
        || listener_parse(net.cfg->listen_address, net.cfg->http_redirect_port,
                          &want_redirect) < 0) {
        snprintf(err, errlen, "listen_address '%s' is not an IPv4 or IPv6 "
                 "address", net.cfg->listen_address);
        return NET_START_REFUSED;
    }
    snprintf(net.web_dir, sizeof net.web_dir, "%s", net.cfg->web_root);
    net.api_limits = ratelimit_new(net.cfg->http_rate_per_s,
                                   net.cfg->http_burst, LIMIT_HTTP_ADDRS);
    if (!net.api_limits) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    lwslog_start();
    /* connections on descriptors past the table are not watched */
    if (wire_init(net.fd_limit > 0 && net.fd_limit < WIRE_MAX_FDS
                      ? (int)net.fd_limit
                      : WIRE_MAX_FDS,
                  &conn_wire_hooks) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    net.loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
    if (!net.loop) {
        snprintf(err, errlen, "cannot create the event loop (libev)");
        wire_free();
        return -1;
    }
    ev_timer_init(&net.timers_ev, timers_fire, 0.0, 0.0);
    web_date_refresh();
    ev_check_init(&net.date_check, date_check_cb);
    ev_set_priority(&net.date_check, EV_MAXPRI);
    ev_check_start(net.loop, &net.date_check);
    tcp_reserve_open();
    ev_prepare_init(&net.starved_prepare, tcp_starved_prepare);
    ev_prepare_start(net.loop, &net.starved_prepare);
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    /* no LWS_SERVER_OPTION_VALIDATE_UTF8: messages are checked in
     * on_message (proto_utf8_prefix), so 1007 takes the staged close */
    info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS
        | LWS_SERVER_OPTION_LIBEV
        | (tls ? LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT : 0);
    info.foreign_loops = (void **)&net.loop;
    net.context = lws_create_context(&info);
    if (!net.context) {
        snprintf(err, errlen, "cannot create the libwebsockets context "
                 "(is its libev plugin, libwebsockets-evlib-ev, installed?)");
        ev_loop_destroy(net.loop);
        net.loop = NULL;
        wire_free();
        return -1;
    }

    /* lws 4.1 initialises the protocols (and picks each vhost's default
     * protocol) only when its system state reaches POLICY_VALID, which a
     * foreign loop's first turn steps it to; a vhost created before that
     * listens at once, and a connection accepted in that first turn is
     * bound to protocols[0] (HTTP) and never reaches conn_callback: a
     * client that connects right after a (re)start would hang. Step the
     * state now, before any vhost exists: a vhost created afterwards is
     * initialised as it is created. */
    lws_state_transition_steps(lws_system_get_state_manager(net.context),
                               LWS_SYSTATE_OPERATIONAL);

    /* A port in use is said plainly here; lws would only log a bind
     * error, and a failed vhost can hold its socket until the context
     * goes, so the cause cannot be probed afterwards. */
    e = bind_errno(iface, net.cfg->port);
    if (e) {
        snprintf(err, errlen, "cannot listen on %s port %d (%s)",
                 iface ? iface : "every address", net.cfg->port,
                 e == EADDRINUSE ? "in use?" : strerror(e));
        goto fail;
    }
    memset(&info, 0, sizeof info);
    info.vhost_name = "chess";
    info.iface = iface;
    info.port = net.cfg->port;
    info.protocols = protocols;
    info.pvo = &pvo;
    info.mounts = &web_mount;
    info.retry_and_idle_policy = &retry;
    info.options = listen_options(&want);
    info.headers = &web_headers;
    if (tls) {
        /* without this flag on the vhost too, lws serves it in clear */
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = net.cfg->tls_cert;
        info.ssl_private_key_filepath = net.cfg->tls_key;
        /* Debian's lws speaks HTTP/2: with it a browser would multiplex
         * its WebSockets over one connection, which this server's per-
         * connection queues and limits do not expect. */
        info.alpn = "http/1.1";
        /* ciphers and the lowest version again in tls_setup_ctx, with
         * the certificate callback (LOAD_EXTRA_SERVER_VERIFY_CERTS) */
        info.ssl_cipher_list = net.cfg->tls_ciphers;
        if (net.cfg->hsts_max_age_s) {
            snprintf(net.hsts_value, sizeof net.hsts_value, "max-age=%d",
                     net.cfg->hsts_max_age_s);
            info.headers = &web_headers_hsts;
        }
    }
    if (!(net.vhost_main = lws_create_vhost(net.context, &info))) {
        if (tls)
            snprintf(err, errlen, "cannot use the TLS certificate %s and "
                     "key %s, or listen on port %d (see the lws lines "
                     "above)", net.cfg->tls_cert, net.cfg->tls_key,
                     net.cfg->port);
        else
            snprintf(err, errlen, "cannot listen on %s port %d (see the "
                     "lws lines above)", iface ? iface : "every address",
                     net.cfg->port);
        goto fail;
    }
    if (check_bound(&want, "main port", &net.bound_main, err, errlen) < 0) {
        rc = NET_START_REFUSED;
        goto fail;
    }
    memset(&net.bound_redirect, 0, sizeof net.bound_redirect);
    if (net.cfg->http_redirect_port) {
        memset(&info, 0, sizeof info);
        info.vhost_name = "redirect";
        info.iface = iface;
        info.port = net.cfg->http_redirect_port;
        info.protocols = web_redirect_protocols;
        info.options = listen_options(&want_redirect);
        info.headers = &web_headers;
        if (!lws_create_vhost(net.context, &info)) {
            snprintf(err, errlen, "cannot listen on %s port %d for the "
                     "HTTPS redirect (in use?)",
                     iface ? iface : "every address",
                     net.cfg->http_redirect_port);
            goto fail;
        }
        if (check_bound(&want_redirect, "redirect port", &net.bound_redirect,
                        err, errlen) < 0) {
            rc = NET_START_REFUSED;
            goto fail;
        }
    }
    atomic_store(&net.wake_context, net.context);
    return 0;
fail:
    lws_context_destroy(net.context);
    net.context = NULL;
    ev_loop_destroy(net.loop);
    net.loop = NULL;
    wire_free();
    close(net.reserve_fd);
    net.reserve_fd = -1;
    return rc;
}

void net_bound(struct listener_bound *main_port,
               struct listener_bound *redirect_port)
{
    *main_port = net.bound_main;
    *redirect_port = net.bound_redirect;
}

void net_attach(const struct net_handlers *h, struct metrics *m,
                struct store *st)
{
    net.hd = *h;
    net.metrics = m;
    net.store = st;
    net.attached = true;
}

/* Ends the loop once the shutdown is complete (after every turn). */
static void stop_check_cb(struct ev_loop *l, ev_check *w, int revents)
{
    (void)w;
    (void)revents;
    if (net.stopped)
        ev_break(l, EVBREAK_ALL);
}

void net_run(void)
{
    ev_check_init(&net.stop_check, stop_check_cb);
    ev_check_start(net.loop, &net.stop_check);
    ev_timer_init(&net.keepalive_ev, keepalive_tick,
                  KEEPALIVE_TICK_MS / 1000.0, KEEPALIVE_TICK_MS / 1000.0);
    ev_timer_start(net.loop, &net.keepalive_ev);
    ev_timer_init(&net.lag_ev, lag_tick, 0.0, 0.0);
    lag_arm();
    if (!net.stopped)
        ev_run(net.loop, 0);
}

void net_stop(void)
{
    atomic_store(&net.wake_context, NULL);
    net_timer_free(net.drain_timer);
    net.drain_timer = NULL;
    lws_context_destroy(net.context);
    net.context = NULL;
    if (net.loop) {
        ev_timer_stop(net.loop, &net.timers_ev);
        ev_timer_stop(net.loop, &net.keepalive_ev);
        ev_timer_stop(net.loop, &net.lag_ev);
        ev_check_stop(net.loop, &net.stop_check);
        ev_check_stop(net.loop, &net.date_check);
        ev_prepare_stop(net.loop, &net.starved_prepare);
        ev_loop_destroy(net.loop);
        net.loop = NULL;
    }
    net.timers_ev_at = INT64_MAX;
    timerq_free(&net.timers);
    if (net.reserve_fd >= 0)
        close(net.reserve_fd);
    net.reserve_fd = -1;
    wire_free();
    tcp_forget_all();
    ratelimit_free(net.api_limits);
    net.api_limits = NULL;
}
