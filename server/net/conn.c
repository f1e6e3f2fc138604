/*
 * conn.c - the WebSocket connections (see net.h and net_internal.h):
 * their admission, their outbound queues and the write path, the staged
 * close and its drain, keepalive's pings and pongs, and the messages
 * they send.
 *
 * Outbound queues. Each connection has a FIFO of (message, store sequence)
 * entries. A message is written only when the store has committed its
 * sequence number; until then the connection waits on the `waiting` list
 * until a commit wakes the loop (store writer -> net_wake ->
 * lws_cancel_service -> EVENT_WAIT_CANCELLED), which writes what the
 * commit released at once (write_released). A message durable when it is
 * queued (a reply with sequence 0, or a move the writer committed before
 * the loop had finished it) puts its connection on the `ready` list,
 * written the same way before the loop next waits (conn_write_ready, an
 * ev_prepare). The WRITEABLE callback writes only what a full socket held
 * back, pings and the close frame.
 * This is how "nobody sees a move before its journal row committed" holds
 * without the game code knowing about sockets.
 */
#include "net/net_internal.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "fifo.h"
#include "lib/ids.h"
#include "lib/log.h"
#include "lib/netstats.h"
#include "lib/msgbuf.h"
#include "proto.h"
#include "sysclock.h"
#include "lib/table.h"
#include "lib/tunables.h"
#include "net/wire.h"

_Static_assert(LWS_PRE <= MSGBUF_HEADROOM, "msgbuf headroom below LWS_PRE");

/* ---- outbound queues --------------------------------------------------- */

/* Queue entries are kept for reuse once written (QNODE_SPARE of them at
 * most, 24 bytes each; conn_free_spares frees them): two per move, which
 * malloc and free cost some 240 instructions a move. */
#define QNODE_SPARE 4096

static struct qnode *qnode_new(void)
{
    struct qnode *n = net.spare_qnodes;

    if (!n)
        return malloc(sizeof *n);
    net.spare_qnodes = n->next;
    net.n_spare_qnodes--;
    return n;
}

static void qnode_free(struct qnode *n)
{
    if (net.n_spare_qnodes >= QNODE_SPARE) {
        free(n);
        return;
    }
    n->next = net.spare_qnodes;
    net.spare_qnodes = n;
    net.n_spare_qnodes++;
}

void conn_free_spares(void)
{
    while (net.spare_qnodes) {
        struct qnode *n = net.spare_qnodes;
        net.spare_qnodes = n->next;
        free(n);
    }
    net.n_spare_qnodes = 0;
}

/* What c's queue fields say of each other (not the sum of qbytes: that
 * is queue_clear's to check). */
static void queue_check(const struct conn *c)
{
    assert(!c->head == !c->tail);
    assert(!c->tail || !c->tail->next);
    assert(c->head || c->qbytes == 0);
    (void)c;
}

/* Takes c off net.waiting or net.ready, whichever holds it. */
static void unpark(struct conn *c)
{
    if (!c->parked)
        return;
    assert(c->parked == &net.waiting || c->parked == &net.ready);
    assert(c->wprev ? c->wprev->wnext == c : *c->parked == c);
    if (c->wprev)
        c->wprev->wnext = c->wnext;
    else
        *c->parked = c->wnext;
    if (c->wnext)
        c->wnext->wprev = c->wprev;
    c->parked = NULL;
    c->wprev = c->wnext = NULL;
}

/* Puts c on *list (net.waiting or net.ready), off the other one. */
static void park(struct conn *c, struct conn **list)
{
    assert(list == &net.waiting || list == &net.ready);
    assert(!c->killed);
    if (c->parked == list)
        return;
    unpark(c);
    c->parked = list;
    c->wprev = NULL;
    c->wnext = *list;
    if (*list)
        (*list)->wprev = c;
    *list = c;
}

/* Arranges for the head of the queue to be written: parks the connection
 * on `waiting` until the store commits the head's sequence number; a
 * durable head goes on `ready`, which conn_write_ready writes before the
 * loop next waits (outside any callback, as conn_on_commits does); lws
 * is asked for a WRITEABLE callback only for what needs one: a ping, the
 * close frame, and a socket that holds back part of a frame. A move
 * queues its `moved` with a sequence number the writer thread often
 * commits before the loop has finished the move: asking for WRITEABLE
 * then cost two epoll_ctl calls per connection and frame. */
static void schedule_write(struct conn *c)
{
    if (c->killed) {
        assert(!c->parked && !c->head); /* cut: off both, queue dropped */
        return;
    }
    if (c->head && c->head->seq > net_committed()) {
        park(c, &net.waiting);
        return;
    }
    if (c->head && !c->closing && !c->want_ping &&
        !lws_partial_buffered(c->wsi)) {
        park(c, &net.ready);
        return;
    }
    unpark(c);
    if (c->head || c->closing)
        lws_callback_on_writable(c->wsi);
}

static void queue_clear(struct conn *c)
{
    struct net_stats *m = net.stats;
    size_t bytes = 0;

    queue_check(c);
    while (c->head) {
        struct qnode *n = c->head;
        c->head = n->next;
        assert(m->out_queue_bytes >= n->b->len);
        m->out_queue_bytes -= n->b->len;
        bytes += n->b->len;
        msgbuf_unref(n->b);
        qnode_free(n);
    }
    assert(bytes == c->qbytes); /* qbytes: the sum of what c holds */
    c->tail = NULL;
    c->qbytes = 0;
}

/* The most the kernel can hold for a socket whose send buffer is
 * send_buffer_bytes: Linux doubles the value for its bookkeeping, and
 * takes one more segment of up to 64 KiB (with GSO) while under it. */
#define KERNEL_SEGMENT_MAX (64 * 1024)

/* The bytes the kernel holds for c's socket, written and not yet
 * acknowledged by the client (SIOCOUTQ); 0 when it cannot tell. */
static size_t kernel_queued(const struct conn *c)
{
    int fd = lws_get_socket_fd(c->wsi), n = 0;

    if (fd < 0 || ioctl(fd, SIOCOUTQ, &n) < 0 || n < 0)
        return 0;
    return (size_t)n;
}

/* True when c, sending len bytes more, holds more than the output cap
 * counting the kernel's share of its bytes: its queue here plus what its
 * socket has not delivered. A client that stops reading fills the
 * socket first (up to send_buffer_bytes, doubled), then the queue. The
 * kernel is asked only when its share could reach the cap. */
static bool over_cap(const struct conn *c, size_t len, size_t *kernel)
{
    size_t mine = c->qbytes + len;
    size_t sndbuf = (size_t)net.cfg.send_buffer_bytes;

    *kernel = 0;
    if (mine > LIMIT_OUT_QUEUE_BYTES)
        return true;
    if (sndbuf &&
        mine + 2 * sndbuf + KERNEL_SEGMENT_MAX <= LIMIT_OUT_QUEUE_BYTES)
        return false;
    *kernel = kernel_queued(c);
    return mine + *kernel > LIMIT_OUT_QUEUE_BYTES;
}

/* The close of c's socket resets the connection (SO_LINGER 0): what the
 * kernel still holds for a client that stopped reading is dropped at
 * once, instead of staying queued on the closed socket until the
 * client's window opens or the kernel gives up (minutes). */
static void abort_on_close(const struct conn *c)
{
    struct linger l = {1, 0};
    int fd = lws_get_socket_fd(c->wsi);

    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
}

void net_send(struct conn *c, struct msgbuf *b, uint64_t seq)
{
    struct qnode *n;
    size_t kernel;

    if (c->closing || c->killed)
        return;
    if (over_cap(c, b->len, &kernel)) {
        /* the client stopped reading: cut it, its queue goes with it */
        log_warn("event=conn_cut why=slow_reader ip=%s queued_bytes=%zu "
                 "kernel_bytes=%zu",
                 net_conn_ip(c), c->qbytes, kernel);
        net.stats->closed_overflow++;
        c->killed = true;
        unpark(c);
        queue_clear(c);
        abort_on_close(c);
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        return;
    }
    n = qnode_new();
    if (!n) { /* a message lost: the client must not go on without it */
        log_error("event=conn_cut why=out_of_memory ip=%s", net_conn_ip(c));
        c->killed = true;
        unpark(c);
        queue_clear(c);
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        return;
    }
    n->b = msgbuf_ref(b);
    n->seq = seq;
    FIFO_PUSH(c, n, next);
    c->qbytes += b->len;
    net.stats->out_queue_bytes += b->len;
    queue_check(c);
    if (c->head == n)
        schedule_write(c);
}

const char *net_conn_ip(const struct conn *c)
{
    return c->ip[0] ? c->ip : "?";
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
    uint64_t committed = net_committed();
    struct qnode *n, **at = &c->head;

    if (c->closing || c->killed || !c->head) {
        net_send(c, b, 0);
        return;
    }
    n = qnode_new();
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
    net.stats->out_queue_bytes += b->len;
    queue_check(c);
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
    if (!lws_is_ssl(c->wsi))
        lws_rx_flow_control(c->wsi, 0);
    if (!c->head)
        lws_callback_on_writable(c->wsi);
}

void net_drop(struct conn *c, int code, const char *reason)
{
    if (c->closing || c->killed)
        return;
    unpark(c);
    queue_clear(c);
    net_close(c, code, reason);
}

/* Writes the close frame: code and reason (at most 123 bytes). Returns
 * lws_write's result. */
static int write_close(struct conn *c)
{
    unsigned char f[LWS_PRE + 4 + 123], *p = f + LWS_PRE;
    size_t len = strlen(c->close_reason);

    assert(c->closing && !c->close_sent && !c->head);

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
        if (n < 0 &&
            (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
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

    assert(c->close_sent && !c->draining);
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

/* Takes the head off the queue and writes it. Returns lws_write's
 * result. */
static int write_head(struct conn *c)
{
    struct qnode *n;
    int w;

    assert(c->head && c->head->seq <= net_committed());
    FIFO_POP(c, n, next);
    assert(c->qbytes >= n->b->len && net.stats->out_queue_bytes >= n->b->len);
    c->qbytes -= n->b->len;
    net.stats->out_queue_bytes -= n->b->len;
    queue_check(c);
    w = lws_write(c->wsi, (unsigned char *)n->b->data, n->b->len,
                  LWS_WRITE_TEXT);
    msgbuf_unref(n->b);
    qnode_free(n);
    return w;
}

static int write_next(struct conn *c)
{
    struct qnode *n = c->head;

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
    if (n->seq > net_committed()) {
        schedule_write(c);
        return 0;
    }
    if (write_head(c) < 0)
        return -1;
    schedule_write(c);
    return 0;
}

/* Writes the messages a commit released at once, outside a WRITEABLE
 * callback: a commit releases a batch of moves, and asking lws for
 * WRITEABLE would cost each connection two epoll_ctl calls and a turn of
 * the loop. Stops where lws had to keep part of a frame (the socket is
 * full): the rest then waits for WRITEABLE as before, so a slow reader
 * holds at most one frame in lws besides its own queue. */
static void write_released(struct conn *c)
{
    uint64_t committed = net_committed();

    if (c->killed || c->want_ping) {
        schedule_write(c);
        return;
    }
    while (c->head && c->head->seq <= committed &&
           !lws_partial_buffered(c->wsi)) {
        if (write_head(c) < 0) {
            /* lws marked the socket unusable: close it from the loop */
            c->killed = true;
            queue_clear(c);
            lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK,
                            LWS_TO_KILL_ASYNC);
            return;
        }
    }
    schedule_write(c);
}

/* Store commits arrived: release the connections whose head is durable. */
void conn_on_commits(void)
{
    uint64_t committed = net_committed();
    struct conn *c = net.waiting, *next;

    for (; c; c = next) {
        next = c->wnext;
        if (!c->head || c->head->seq <= committed) {
            unpark(c);
            write_released(c);
        }
    }
}

void conn_write_ready(void)
{
    struct conn *c;

    while ((c = net.ready)) {
        unpark(c);
        write_released(c);
    }
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
    assert(l == &net.alive || l == &net.pinged);
    assert(c->prev ? c->prev->next == c : l->head == c);
    assert(c->next ? c->next->prev == c : l->tail == c);
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
    assert(!c->list);
    /* `alive` is ordered by last_pong_ms, the tail the most recent
     * (`pinged` is not quite: net_conn_rtt_ms moves a young one there) */
    assert(l != &net.alive || !l->tail ||
           l->tail->last_pong_ms <= c->last_pong_ms);
    c->prev = l->tail;
    c->next = NULL;
    if (l->tail)
        l->tail->next = c;
    else
        l->head = c;
    l->tail = c;
    c->list = l;
}

/* Test time moved on (sysclock.h) since the last look: the connections
 * lived through it as they would have, answering their pings, instead of
 * being days overdue at once. Shifting all keeps the lists' order; it is
 * done before any time of the new reading is stored (a pong, an opening,
 * the keepalive's judgement). */
static void follow_test_time(void)
{
    int64_t off = sysclock_test_offset_ms(), d = off - net.test_offset_ms;

    if (!d)
        return;
    net.test_offset_ms = off;
    for (struct conn *c = net.alive.head; c; c = c->next)
        c->last_pong_ms += d;
    for (struct conn *c = net.pinged.head; c; c = c->next) {
        c->last_pong_ms += d;
        c->ping_sent_ms += d;
    }
}

/* Alive again at now: to the tail of `alive`. */
static void conn_ponged(struct conn *c, int64_t now)
{
    follow_test_time();
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
    int64_t interval = (int64_t)net.cfg.ping_interval_s * 1000;
    int64_t timeout = (int64_t)net.cfg.ping_timeout_s * 1000;
    int64_t spread = (timeout - interval < interval ? timeout - interval
                                                    : interval) /
                     KEEPALIVE_SPREAD_DIV;
    int64_t budget = 16 + (int64_t)net.n_conns * KEEPALIVE_TICK_MS / spread;
    struct conn *c;

    follow_test_time();
    while ((c = net.pinged.head) && now - c->last_pong_ms >= timeout) {
        list_remove(c);
        log_info("event=conn_cut why=no_pong ip=%s", net_conn_ip(c));
        /* outside any lws callback a synchronous kill is safe, and an
         * asynchronous one would wait for lws's own timer */
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC);
    }
    while ((c = net.alive.head) && now - c->last_pong_ms >= interval &&
           budget-- > 0) {
        list_remove(c);
        list_append(&net.pinged, c);
        c->want_ping = true;
        lws_callback_on_writable(c->wsi);
    }
}

/* Writes the ping conn_keepalive asked for, with a random payload that
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
    c->ping_sent_ms = net_now_ms();
    return lws_write(c->wsi, ping + LWS_PRE, n, LWS_WRITE_PING);
}

/* A pong arrived: it counts as life only when it answers the ping the
 * server is waiting on (same payload). An unsolicited pong, which RFC
 * 6455 allows as a heartbeat, proves nothing: a client that never reads
 * could send them forever. */
static void on_pong(struct conn *c, const void *data, size_t len)
{
    size_t n = strlen(c->ping_data);
    int64_t now, rtt;

    if (c->list != &net.pinged || c->want_ping || !n || len != n ||
        memcmp(data, c->ping_data, n))
        return;
    c->ping_data[0] = '\0';
    follow_test_time();
    now = net_now_ms();
    rtt = now - c->ping_sent_ms;
    if (rtt < 0)
        rtt = 0;
    /* RFC 6298: SRTT <- 7/8 SRTT + 1/8 R; the first sample as it is
     * (1 ms at least, so that 0 keeps meaning "none yet") */
    c->srtt_ms = c->srtt_ms ? c->srtt_ms + (rtt - c->srtt_ms) / 8
                            : (rtt > 0 ? rtt : 1);
    conn_ponged(c, now);
}

int64_t net_conn_rtt_ms(struct conn *c)
{
    /* None yet (the connection is younger than ping_interval_s): ping it
     * now, so that the answer is in before its player's next move. Moving
     * it from `alive` to the tail of `pinged` keeps `pinged` ordered:
     * everything there fell due before anything still in `alive`. */
    if (!c->srtt_ms && c->list == &net.alive && !c->killed && !c->closing) {
        list_remove(c);
        list_append(&net.pinged, c);
        c->want_ping = true;
        lws_callback_on_writable(c->wsi);
    }
    return c->srtt_ms;
}

int64_t net_conn_tcp_rtt_us(struct conn *c)
{
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    int fd = c->wsi ? lws_get_socket_fd(c->wsi) : -1;

    memset(&ti, 0, sizeof ti);
    if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
        len < offsetof(struct tcp_info, tcpi_rttvar) || !ti.tcpi_rtt)
        return -1;
    return (int64_t)ti.tcpi_rtt;
}

/* ---- WebSocket --------------------------------------------------------- */

/* A whole message: text NUL-terminated at len. */
static void on_message(struct conn *c, char *text, size_t len)
{
    int64_t now = net_now_ms();

    if (c->rx_binary) {
        net.hd.binary(net.hd.ctx, c->owner, now);
        return;
    }
    if (proto_utf8_prefix(text, len) != len) {
        net_close(c, LWS_CLOSE_STATUS_INVALID_PAYLOAD, "invalid UTF-8");
        return;
    }
    net.hd.text(net.hd.ctx, c->owner, text, len, now);
}

/* A WebSocket's count: its client's address entry (NULL when out of
 * memory); c->ip is the address. */
static struct peer *peer_get(struct conn *c, struct lws *wsi)
{
    char key[ADDRKEY_MAX];

    tcp_client_ip(wsi, c->ip, sizeof c->ip);
    tcp_key(c->ip, key);
    return tcp_peer_find(key);
}

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

const struct wire_hooks conn_wire_hooks = {wire_control, wire_unmasked,
                                           web_refusal};

/* LWS_CALLBACK_ESTABLISHED: a WebSocket opened; its owner is the
 * handlers' (-1 refuses it). */
static int on_established(struct conn *c, struct lws *wsi)
{
    memset(c, 0, sizeof *c);
    c->wsi = wsi;
    c->peer = peer_get(c, wsi);
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
    log_debug("event=ws_open ip=%s connections=%d", net_conn_ip(c),
              net.n_conns);
    conn_ponged(c, net_now_ms());
    return 0;
}

/* LWS_CALLBACK_CLOSED: its queue, its owner, its address's count go. */
static void on_closed(struct conn *c)
{
    if (!c->owner)
        return;
    drain_stop(c);
    netstats_ws_close(net.stats, c->closed_with
                                     ? c->closed_with
                                     : LWS_CLOSE_STATUS_ABNORMAL_CLOSE);
    unpark(c);
    queue_clear(c);
    list_remove(c);
    free(c->rx);
    c->rx = NULL;
    net.hd.closed(net.hd.ctx, c->owner, net_now_ms());
    c->owner = NULL;
    assert(net.n_conns > 0 && (!c->peer || c->peer->conns > 0));
    net.n_conns--;
    log_debug("event=ws_close ip=%s connections=%d", net_conn_ip(c),
              net.n_conns);
    if (c->peer) {
        c->peer->conns--;
        tcp_peer_release(c->peer);
    }
    if (net.stopping && !net.n_conns)
        net.stopped = true;
}

/* LWS_CALLBACK_RECEIVE: a frame's bytes; a whole message goes to
 * on_message (-1: out of memory, close). */
static int on_receive(struct conn *c, struct lws *wsi, void *in, size_t len)
{
    if (!c->owner || c->closing || c->killed)
        return 0;
    if (!c->in_msg && lws_is_final_fragment(wsi) &&
        !lws_remaining_packet_payload(wsi) && len <= LIMIT_MSG_BYTES) {
        /* the common case: a whole message in one callback, handled
         * from the loop's one buffer */
        c->rx_binary = lws_frame_is_binary(wsi);
        memcpy(net.rx_one, in, len);
        net.rx_one[len] = '\0';
        on_message(c, net.rx_one, len);
        return 0;
    }
    if (!c->in_msg) {
        c->in_msg = true;
        c->rx_len = 0;
        c->rx_binary = lws_frame_is_binary(wsi);
    }
    if (!c->rx && !(c->rx = malloc(LIMIT_MSG_BYTES + 1)))
        return -1;
    if (c->rx_len + len > LIMIT_MSG_BYTES) {
        net_close(c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "message too large");
        return 0;
    }
    memcpy(c->rx + c->rx_len, in, len);
    c->rx_len += len;
    if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi))
        return 0;
    c->in_msg = false;
    c->rx[c->rx_len] = '\0';
    on_message(c, c->rx, c->rx_len);
    return 0;
}

int conn_callback(struct lws *wsi, enum lws_callback_reasons reason,
                  void *user, void *in, size_t len)
{
    struct conn *c = user;

    switch (reason) {
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        return upgrade_confirm(wsi);
    case LWS_CALLBACK_ESTABLISHED:
        return on_established(c, wsi);
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        /* in: the close frame's payload, a big-endian code first */
        if (c->owner && !c->closed_with)
            c->closed_with = len >= 2 ? ((const unsigned char *)in)[0] << 8 |
                                            ((const unsigned char *)in)[1]
                                      : LWS_CLOSE_STATUS_NO_STATUS;
        break;
    case LWS_CALLBACK_CLOSED:
        on_closed(c);
        break;
    case LWS_CALLBACK_RECEIVE:
        return on_receive(c, wsi, in, len);
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
