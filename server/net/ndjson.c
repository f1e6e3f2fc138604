/*
 * ndjson.c - the HTTP API's NDJSON streams (net.h): an answer held open
 * on the loop, written a chunk at a time as lines come.
 *
 * A stream lives on its request's connection (its struct http_pss names
 * it) from net_stream_open to that connection's CLOSED_HTTP, and in the
 * list `streams` for the caps, the keep-alive and the commits. Its lines
 * wait in a queue of (msgbuf, seq) as a WebSocket's messages do: a line
 * is written once the store has committed its seq, so a client never
 * reads of a move the journal could still lose. WRITEABLE writes every
 * line ready, framed as one HTTP/1.1 chunk (at most CHUNK_MAX bytes),
 * and asks for the next WRITEABLE while more are ready. What the socket
 * did not take waits in the queue, which may hold at most
 * LIMIT_STREAM_QUEUE_BYTES: past that the reader is cut (the connection
 * killed, the owner told from its CLOSED_HTTP), as a WebSocket reader
 * that stopped reading is.
 *
 * The caps are counted over `streams` (a walk: their number is bounded
 * by the TCP caps): LIMIT_STREAMS_PER_ACCOUNT under the owner's account
 * key, LIMIT_STREAMS_PER_IP under the client's address key (tcp_key: an
 * IPv6 /64 is one address). One timer a second sends the empty line of
 * every stream silent for LIMIT_STREAM_KEEPALIVE_MS. Loop thread only.
 */
#include "net/net_internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/msgbuf.h"
#include "lib/netstats.h"
#include "lib/tunables.h"

#define CHUNK_MAX 16384
#define KEEPALIVE_TICK_S 1.0

struct net_stream {
    struct lws *wsi;
    void *owner; /* NULL once closed by it (net_stream_close) */
    struct qnode *head, *tail;
    size_t qbytes;
    bool head_written; /* the status line and headers */
    bool ending;       /* net_stream_close: end once the queue is out */
    bool killed;       /* cut: nothing more is written */
    bool opening;      /* only the opening's empty line queued, unwritten */
    int64_t last_ms;   /* the last write (monotonic) */
    ev_io hup;         /* the socket readable: the client left? */
    char account[64];
    char addr[ADDRKEY_MAX];
    struct net_stream *prev, *next; /* in streams */
};

static struct {
    struct net_stream *head;
    int n;
    ev_timer tick;
    bool ticking;
} streams;

int net_streams_open(void)
{
    return streams.n;
}

static void unlink_stream(struct net_stream *s)
{
    if (net.attached)
        net.stats->streams--;
    if (s->prev)
        s->prev->next = s->next;
    else
        streams.head = s->next;
    if (s->next)
        s->next->prev = s->prev;
    streams.n--;
}

/* Takes n bytes of s's queue off the queued bytes' gauge. */
static void unqueued(struct net_stream *s, size_t n)
{
    s->qbytes -= n;
    if (net.attached)
        net.stats->out_queue_bytes -= n;
}

static void queue_free(struct net_stream *s)
{
    while (s->head) {
        struct qnode *q = s->head;
        s->head = q->next;
        unqueued(s, q->b->len);
        msgbuf_unref(q->b);
        free(q);
    }
    s->tail = NULL;
}

/* Cuts s: nothing more is written, and its next WRITEABLE closes the
 * connection (a callback's -1: lws's asynchronous kill is not seen on an
 * HTTP answer in progress); its owner hears it from CLOSED_HTTP
 * (ndjson_closed). */
static void cut(struct net_stream *s, const char *why)
{
    if (s->killed)
        return;
    s->killed = true;
    queue_free(s);
    if (net.attached && !strcmp(why, "slow_reader"))
        net.stats->closed_overflow++;
    ev_io_stop(net.loop, &s->hup);
    if (strcmp(why, "gone"))
        log_info("event=stream_cut why=%s account=%s", why, s->account);
    lws_callback_on_writable(s->wsi);
}

/* The stream's socket is readable. lws reads nothing more of a request
 * whose answer is not complete, so a client that leaves would be seen
 * only when a write fails (the second after its FIN: up to two
 * keep-alives); a peek sees the FIN at once. A client that sends more (a
 * pipelined request, a TLS record) is not read here: the watcher stops,
 * and its leaving is seen by the writes. */
static void on_readable(struct ev_loop *l, ev_io *w, int revents)
{
    struct net_stream *s =
        (struct net_stream *)((char *)w - offsetof(struct net_stream, hup));
    char b[1];
    ssize_t n = recv(w->fd, b, sizeof b, MSG_PEEK | MSG_DONTWAIT);

    (void)revents;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    ev_io_stop(l, w);
    if (n <= 0) { /* (CLOSED_HTTP runs before this returns: s is freed) */
        cut(s, "gone");
        lws_set_timeout(s->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC);
    }
}

static bool ready(const struct net_stream *s)
{
    return s->head && (!s->head->seq || s->head->seq <= net_committed());
}

static void keepalive(struct ev_loop *l, ev_timer *w, int revents);
static void keepalive_line(struct net_stream *s);

/* Counts the open streams of account and of addr. */
static void count(const char *account, const char *addr, int *of_account,
                  int *of_addr)
{
    *of_account = *of_addr = 0;
    for (struct net_stream *s = streams.head; s; s = s->next) {
        if (s->killed)
            continue;
        *of_account += !strcmp(s->account, account);
        *of_addr += !strcmp(s->addr, addr);
    }
}

/* Answers the request later with status and a lichess error body. */
static void refuse(uint64_t later, int status, const char *words)
{
    char *body = malloc(96);
    struct net_reply r = {status, "application/json", body, 0};

    if (body)
        r.len = (size_t)snprintf(body, 96, "{\"error\":\"%s\"}", words);
    else
        r = (struct net_reply){500, "text/plain", NULL, 0};
    net_http_answer(later, &r);
}

struct net_stream *net_stream_open(uint64_t later, const char *account,
                                   void *owner, int *status)
{
    char key[24], ip[64];
    struct lws *wsi;
    struct http_pss *pss;
    struct net_stream *s;
    int of_account, of_addr;

    snprintf(key, sizeof key, "%llx", (unsigned long long)later);
    wsi = table_get(&net.later, key);
    pss = wsi ? lws_wsi_user(wsi) : NULL;
    *status = 0;
    if (!pss || pss->later != later)
        return NULL; /* its connection went */
    s = calloc(1, sizeof *s);
    if (!s) {
        *status = 500;
        refuse(later, 500, "out of memory");
        return NULL;
    }
    tcp_client_ip(wsi, ip, sizeof ip);
    tcp_key(ip, s->addr);
    snprintf(s->account, sizeof s->account, "%s", account);
    count(s->account, s->addr, &of_account, &of_addr);
    if (of_account >= LIMIT_STREAMS_PER_ACCOUNT ||
        of_addr >= LIMIT_STREAMS_PER_IP) {
        log_info("event=stream_refused why=%s account=%s",
                 of_account >= LIMIT_STREAMS_PER_ACCOUNT ? "account" : "addr",
                 s->account);
        free(s);
        *status = 429;
        refuse(later, 429, "too many streams");
        return NULL;
    }
    table_del(&net.later, key);
    if (net.attached)
        netstats_http(net.stats, (enum netstats_route)pss->route, 200);
    pss->later = 0;
    pss->stream = s;
    s->wsi = wsi;
    s->owner = owner;
    s->last_ms = net_now_ms();
    s->next = streams.head;
    if (s->next)
        s->next->prev = s;
    streams.head = s;
    streams.n++;
    if (net.attached)
        net.stats->streams++;
    if (!streams.ticking) {
        ev_timer_init(&streams.tick, keepalive, KEEPALIVE_TICK_S,
                      KEEPALIVE_TICK_S);
        ev_timer_start(net.loop, &streams.tick);
        streams.ticking = true;
    }
    ev_io_init(&s->hup, on_readable, lws_get_socket_fd(wsi), EV_READ);
    ev_io_start(net.loop, &s->hup);
    *status = 200;
    /* (no timeout of lws's while the stream is open: its life is its
     * client's, and a reader gone is seen above or by the writes) */
    lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0);
    keepalive_line(s); /* (lws sends the head with the first body bytes) */
    s->opening = true;
    return s;
}

void net_stream_send(struct net_stream *s, struct msgbuf *b, uint64_t seq)
{
    struct qnode *q;

    if (s->killed || s->ending)
        return;
    if (s->opening) {
        /* a line before the opening's empty one went out: it sends the
         * head instead, and is the stream's first line (lichess's game
         * stream opens with gameFull: lichess-bot parses that line) */
        struct qnode *blank = s->head;
        s->opening = false;
        s->head = s->tail = NULL;
        unqueued(s, blank->b->len);
        msgbuf_unref(blank->b);
        free(blank);
    }
    if (s->qbytes + b->len > LIMIT_STREAM_QUEUE_BYTES) {
        cut(s, "slow_reader");
        return;
    }
    if (!(q = malloc(sizeof *q))) {
        cut(s, "out_of_memory");
        return;
    }
    *q = (struct qnode){NULL, msgbuf_ref(b), seq};
    if (s->tail)
        s->tail->next = q;
    else
        s->head = q;
    s->tail = q;
    s->qbytes += b->len;
    if (net.attached)
        net.stats->out_queue_bytes += b->len;
    if (ready(s))
        lws_callback_on_writable(s->wsi);
}

void net_stream_close(struct net_stream *s)
{
    s->owner = NULL;
    s->ending = true;
    if (!s->killed)
        lws_callback_on_writable(s->wsi);
}

/* The status line and headers: 200, NDJSON, chunked, never cached. */
static int write_head(struct lws *wsi)
{
    uint8_t buf[LWS_PRE + 1024], *start = &buf[LWS_PRE], *p = start,
                                 *end = &buf[sizeof buf - 1];
    static const char type[] = "application/x-ndjson";

    if (lws_add_http_header_status(wsi, HTTP_STATUS_OK, &p, end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE,
                                     (unsigned char *)type,
                                     (int)sizeof type - 1, &p, end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING,
                                     (unsigned char *)"chunked", 7, &p,
                                     end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL,
                                     (unsigned char *)"no-store", 8, &p,
                                     end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    return 0;
}

/* Writes one chunk of the lines ready (or, ending and empty, the last
 * chunk). Returns the callback's result. */
int ndjson_writeable(struct lws *wsi, struct http_pss *pss)
{
    struct net_stream *s = pss->stream;
    uint8_t buf[LWS_PRE + 16 + CHUNK_MAX + 2];
    uint8_t *data = buf + LWS_PRE + 16;
    size_t n = 0;
    int hl;
    char hex[16];

    if (s->killed)
        return -1;
    if (!s->head_written) {
        s->head_written = true;
        if (write_head(wsi) < 0)
            return -1;
        lws_callback_on_writable(wsi);
        return 0;
    }
    s->opening = false;
    while (ready(s) && n + s->head->b->len <= CHUNK_MAX) {
        struct qnode *q = s->head;
        memcpy(data + n, q->b->data, q->b->len);
        n += q->b->len;
        unqueued(s, q->b->len);
        s->head = q->next;
        if (!s->head)
            s->tail = NULL;
        msgbuf_unref(q->b);
        free(q);
    }
    if (!n && ready(s)) { /* a line longer than a chunk: never made */
        cut(s, "line_too_long");
        return -1;
    }
    if (!n && s->ending && !s->head) {
        static const char last[] = "0\r\n\r\n";
        memcpy(data, last, sizeof last - 1);
        lws_write(wsi, data, sizeof last - 1, LWS_WRITE_HTTP_FINAL);
        return -1; /* (the connection closes: no length to keep it) */
    }
    if (!n)
        return 0;
    hl = snprintf(hex, sizeof hex, "%zx\r\n", n);
    memcpy(data - hl, hex, (size_t)hl);
    memcpy(data + n, "\r\n", 2);
    if (lws_write(wsi, data - hl, (size_t)hl + n + 2, LWS_WRITE_HTTP) !=
        hl + (int)n + 2)
        return -1;
    s->last_ms = net_now_ms();
    if (ready(s) || (s->ending && !s->head))
        lws_callback_on_writable(wsi);
    return 0;
}

void ndjson_closed(struct http_pss *pss)
{
    struct net_stream *s = pss->stream;
    void *owner = s->owner;

    pss->stream = NULL;
    ev_io_stop(net.loop, &s->hup);
    unlink_stream(s);
    queue_free(s);
    free(s);
    if (owner && net.attached && net.hd.stream_closed)
        net.hd.stream_closed(net.hd.ctx, owner);
    if (!streams.n && streams.ticking) {
        ev_timer_stop(net.loop, &streams.tick);
        streams.ticking = false;
    }
}

void ndjson_on_commits(void)
{
    for (struct net_stream *s = streams.head; s; s = s->next)
        if (!s->killed && ready(s))
            lws_callback_on_writable(s->wsi);
}

/* Queues an empty line on s. */
static void keepalive_line(struct net_stream *s)
{
    char *text = strdup("\n");
    struct msgbuf *nl = msgbuf_take(text);

    if (!nl) {
        cut(s, "out_of_memory");
        return;
    }
    s->last_ms = net_now_ms(); /* (again in 7 s if this one waits) */
    net_stream_send(s, nl, 0);
    msgbuf_unref(nl);
}

/* Every second: an empty line to each stream silent for
 * LIMIT_STREAM_KEEPALIVE_MS (lichess's keep-alive), which also finds a
 * reader gone without a FIN. */
static void keepalive(struct ev_loop *l, ev_timer *w, int revents)
{
    int64_t now = net_now_ms();

    (void)l;
    (void)w;
    (void)revents;
    for (struct net_stream *s = streams.head; s; s = s->next)
        if (!s->killed && !s->ending && !s->head &&
            now - s->last_ms >= LIMIT_STREAM_KEEPALIVE_MS)
            keepalive_line(s);
}
