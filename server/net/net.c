/*
 * net.c - the loop of the libwebsockets glue (see net.h; its parts are
 * listed in net_internal.h): libev and the lws context, start and stop,
 * the wake-ups, the net timers, keepalive's tick, the loop-lag metric and
 * the planned shutdown. It owns `net`, the state of every part.
 *
 * The loop is libev's (epoll), which lws drives as a foreign loop: lws's
 * own poll() loop walks every descriptor on every turn. lws 4.1 keeps its
 * timers (lws_sul) in one sorted list, O(connections) per insertion, so
 * this file keeps its own: the game timers in a heap behind one ev_timer,
 * and keepalive as two lists ordered by the last pong (see conn.c's
 * conn_keepalive).
 */
#include "net/net_internal.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <ev.h>
#include <libwebsockets.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/frames.h"
#include "net/gzcache.h"
#include "net/listener.h"
#include "lib/log.h"
#include "lib/netstats.h"
#include "net/tls.h"
#include "lib/tunables.h"
#include "lib/msgbuf.h"
#include "proto.h"
#include "lib/ratelimit.h"
#include "sysclock.h"
#include "timerq.h"
#include "net/wire.h"

struct net net = {
    .timers_ev_at = INT64_MAX,
    .accepted_fd = -1,
    .reserve_fd = -1,
    .lws_last_mu = PTHREAD_MUTEX_INITIALIZER,
};

int64_t net_now_ms(void)
{
    return sysclock_ms(CLOCK_MONOTONIC);
}

int64_t net_wall_ms(void)
{
    return sysclock_ms(CLOCK_REALTIME);
}

int64_t net_now_us(void)
{
    return sysclock_us(CLOCK_MONOTONIC);
}

void net_wake(void)
{
    struct lws_context *ctx = atomic_load(&net.wake_context);

    if (ctx)
        lws_cancel_service(ctx);
}

void net_request_stop(void)
{
    if (net.stop_requested)
        net.stop_now = 1;
    net.stop_requested = 1;
    net_wake();
}

bool net_draining(void)
{
    return net.draining || net.stopping || net.stop_requested;
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
    ev_now_update(
        net.loop); /* libev counts from the turn's start otherwise */
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
    assert(t);
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

/* Every KEEPALIVE_TICK_MS: the requests overdue (tcp.c), the pings due
 * and the connections that did not answer theirs (conn.c); every second,
 * the counts of log lines whose repeats stopped. */
static void keepalive_tick(struct ev_loop *l, ev_timer *w, int revents)
{
    static int64_t flushed;
    int64_t now = net_now_ms();

    (void)l;
    (void)w;
    (void)revents;
    tcp_expire(now);
    conn_keepalive(now);
    if (now - flushed >= 1000) {
        lwslog_flush(now);
        flushed = now;
    }
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
        hist_add(&net.stats->loop_lag, late > 0 ? late : 0);
    lag_arm();
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
    net.stop_deadline = net_now_ms() + LIMIT_SHUTDOWN_HANDOVER_MS;
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
        net_timer_arm(net.drain_timer,
                      net_now_ms() + LIMIT_SHUTDOWN_DRAIN_MS);
}

static void drain_over(void *arg)
{
    (void)arg;
    if (!net.stopping)
        begin_shutdown();
}

/* A stop asked for: with a drain, the node serves as before for
 * drain_ms while /readyz says it is not ready (load balancers stop
 * sending new clients), then shuts down; a second request, or none, at
 * once. */
static void stop_asked(void)
{
    if (net.stopping)
        return;
    if (net.draining && !net.stop_now)
        return; /* (drain_over ends it) */
    if (!net.draining && !net.stop_now && net.cfg.drain_ms > 0 &&
        (net.drain_phase = net_timer_new(drain_over, NULL)) != NULL) {
        net.draining = true;
        log_info("event=drain_begin drain_ms=%d connections=%d",
                 net.cfg.drain_ms, net.n_conns);
        net_timer_arm(net.drain_phase, net_now_ms() + net.cfg.drain_ms);
        return;
    }
    begin_shutdown();
}

/* SIGHUP with TLS: new handshakes get the certificate and key now at
 * tls_cert and tls_key (renewed by certbot, say); open connections keep
 * theirs. A pair that does not load leaves the old one served. */
static void reload_certificate(void)
{
    char err[600], q1[700], q2[700];

    if (!net.cfg.tls_cert[0])
        return;
    if (tls_reload(net.cfg.tls_cert, net.cfg.tls_key, err, sizeof err) < 0)
        log_error("event=tls_reload_failed error=%s keeping=previous",
                  log_quote(q1, sizeof q1, err));
    else
        log_info("event=tls_reloaded cert=%s key=%s",
                 log_quote(q1, sizeof q1, net.cfg.tls_cert),
                 log_quote(q2, sizeof q2, net.cfg.tls_key));
}

/* The loop was woken (net_wake): store commits, a reopen of the log, a
 * stop. */
void net_woken(void)
{
    if (net.attached) {
        net.hd.wake(net.hd.ctx);
        conn_on_commits();
        ndjson_on_commits();
    }
    if (net.reopen_requested) {
        net.reopen_requested = 0;
        log_reopen();
        reload_certificate();
    }
    if (net.stop_requested && !net.stopping)
        stop_asked();
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
     * ordinary message, longer ones arrive in pieces (see RECEIVE).
     * tx_packet_size is what one send() may take: left 0, lws would
     * limit it to rx_buffer_size, and every frame over 532 bytes (most
     * `moved` with their legal moves) would go out in two send() calls,
     * the rest copied into lws's own buffer and sent on a second turn of
     * the loop with POLLOUT switched on and off around it. No message
     * is larger than a connection's whole queue. */
    {"chess.v1", conn_callback, sizeof(struct conn), 512, 0, NULL,
     LIMIT_OUT_QUEUE_BYTES},
    {NULL, NULL, 0, 0, 0, NULL, 0}};

/* A client naming no subprotocol binds to chess.v1. */
static const struct lws_protocol_vhost_options pvo_default = {NULL, NULL,
                                                              "default", "1"};
static const struct lws_protocol_vhost_options pvo = {NULL, &pvo_default,
                                                      "chess.v1", ""};

/* Keepalive is conn_keepalive's. A policy without ping or hang-up keeps
 * lws from arming its own validity timers (with no policy at all it
 * applies a default of 300 s). */
static const lws_retry_bo_t retry;

/* Descriptors wire.c watches at most (a table of ~50 bytes each). */
#define WIRE_MAX_FDS (1 << 18)

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
        return LWS_SERVER_OPTION_IPV6_V6ONLY_MODIFY |
               LWS_SERVER_OPTION_IPV6_V6ONLY_VALUE;
    case LISTENER_EVERY:
        break;
    }
    return LWS_SERVER_OPTION_IPV6_V6ONLY_MODIFY;
}

/* Before the loop waits: the durable messages queued in this turn. */
static void ready_prepare_cb(struct ev_loop *l, ev_prepare *w, int revents)
{
    (void)l;
    (void)w;
    (void)revents;
    if (net.attached)
        conn_write_ready();
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
    snprintf(err, errlen,
             "listen_address cannot be honoured for the %s: "
             "%s; refusing to start (libwebsockets finds the address "
             "through the interface list: under systemd, "
             "RestrictAddressFamilies= must include AF_NETLINK)",
             what, why);
    return -1;
}

/* The libev loop and its watchers (timers, the date, the reserve
 * descriptor, the ready list). 0, or -1 with err. */
static int start_loop(char *err, size_t errlen)
{
    net.loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
    if (!net.loop) {
        snprintf(err, errlen, "cannot create the event loop (libev)");
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
    ev_prepare_init(&net.ready_prepare, ready_prepare_cb);
    ev_prepare_start(net.loop, &net.ready_prepare);
    return 0;
}

/* The lws context on the loop, no vhost yet. 0, or -1 with err. */
static int start_context(bool tls, char *err, size_t errlen)
{
    struct lws_context_creation_info info;

    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    /* no LWS_SERVER_OPTION_VALIDATE_UTF8: messages are checked in
     * on_message (proto_utf8_prefix), so 1007 takes the staged close */
    info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS |
                   LWS_SERVER_OPTION_LIBEV |
                   (tls ? LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT : 0);
    info.foreign_loops = (void **)&net.loop;
    /* lws keeps a head's names and values with a few bytes each in this
     * table and hangs up on a head that does not fit: twice the longest
     * head frames.c lets through (431 beyond) fits every one, many small
     * headers included (at 4096 itself, 80 of 100 bytes did not). */
    info.max_http_header_data = 2 * FRAMES_HEAD_MAX;
    net.context = lws_create_context(&info);
    if (!net.context) {
        snprintf(err, errlen,
                 "cannot create the libwebsockets context "
                 "(is its libev plugin, libwebsockets-evlib-ev, installed?)");
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
    return 0;
}

/* The main vhost: the game's port, TLS when set. 0, -1, or
 * NET_START_REFUSED with err. */
static int listen_main(const struct listener_want *want, const char *iface,
                       bool tls, char *err, size_t errlen)
{
    struct lws_context_creation_info info;
    /* A port in use is said plainly here; lws would only log a bind
     * error, and a failed vhost can hold its socket until the context
     * goes, so the cause cannot be probed afterwards. */
    int e = bind_errno(iface, net.cfg.port);

    if (e) {
        snprintf(err, errlen, "cannot listen on %s port %d (%s)",
                 iface ? iface : "every address", net.cfg.port,
                 e == EADDRINUSE ? "in use?" : strerror(e));
        return -1;
    }
    memset(&info, 0, sizeof info);
    info.vhost_name = "chess";
    info.iface = iface;
    info.port = net.cfg.port;
    info.protocols = protocols;
    info.pvo = &pvo;
    info.mounts = &web_mount;
    info.retry_and_idle_policy = &retry;
    info.options = listen_options(want);
    info.headers = &web_headers;
    if (tls) {
        /* without this flag on the vhost too, lws serves it in clear */
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = net.cfg.tls_cert;
        info.ssl_private_key_filepath = net.cfg.tls_key;
        /* Debian's lws speaks HTTP/2: with it a browser would multiplex
         * its WebSockets over one connection, which this server's per-
         * connection queues and limits do not expect. */
        info.alpn = "http/1.1";
        /* ciphers and the lowest version again in tls_setup_ctx, with
         * the certificate callback (LOAD_EXTRA_SERVER_VERIFY_CERTS) */
        info.ssl_cipher_list = net.cfg.tls_ciphers;
        if (net.cfg.hsts_max_age_s) {
            snprintf(net.hsts_value, sizeof net.hsts_value, "max-age=%d",
                     net.cfg.hsts_max_age_s);
            info.headers = &web_headers_hsts;
        }
    }
    if (!(net.vhost_main = lws_create_vhost(net.context, &info))) {
        if (tls)
            snprintf(err, errlen,
                     "cannot use the TLS certificate %s and "
                     "key %s, or listen on port %d (see the lws lines "
                     "above)",
                     net.cfg.tls_cert, net.cfg.tls_key, net.cfg.port);
        else
            snprintf(err, errlen,
                     "cannot listen on %s port %d (see the "
                     "lws lines above)",
                     iface ? iface : "every address", net.cfg.port);
        return -1;
    }
    if (check_bound(want, "main port", &net.bound_main, err, errlen) < 0)
        return NET_START_REFUSED;
    return 0;
}

/* The HTTP port that redirects to HTTPS, when set. 0, -1, or
 * NET_START_REFUSED with err. */
static int listen_redirect(const struct listener_want *want,
                           const char *iface, char *err, size_t errlen)
{
    struct lws_context_creation_info info;

    memset(&net.bound_redirect, 0, sizeof net.bound_redirect);
    if (!net.cfg.http_redirect_port)
        return 0;
    memset(&info, 0, sizeof info);
    info.vhost_name = "redirect";
    info.iface = iface;
    info.port = net.cfg.http_redirect_port;
    info.protocols = web_redirect_protocols;
    info.options = listen_options(want);
    info.headers = &web_headers;
    if (!lws_create_vhost(net.context, &info)) {
        snprintf(err, errlen,
                 "cannot listen on %s port %d for the "
                 "HTTPS redirect (in use?)",
                 iface ? iface : "every address", net.cfg.http_redirect_port);
        return -1;
    }
    if (check_bound(want, "redirect port", &net.bound_redirect, err, errlen) <
        0)
        return NET_START_REFUSED;
    return 0;
}

int net_start(const struct net_config *config, char *err, size_t errlen)
{
    struct listener_want want, want_redirect;
    bool tls = config->tls_cert[0] != '\0';
    const char *iface = config->listen_address[0] ? config->listen_address
                                                  : NULL;
    int rc;
    struct rlimit rl;

    assert(!net.context && !net.loop); /* once, or again after net_stop */
    assert(config->n_trusted_proxies <= NET_MAX_PROXIES);
    assert(config->allowed_origins || !config->n_allowed_origins);
    net.cfg = *config;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        net.fd_limit = (long)rl.rlim_cur;
    if (listener_parse(net.cfg.listen_address, net.cfg.port, &want) < 0 ||
        listener_parse(net.cfg.listen_address, net.cfg.http_redirect_port,
                       &want_redirect) < 0) {
        snprintf(err, errlen,
                 "listen_address '%s' is not an IPv4 or IPv6 "
                 "address",
                 net.cfg.listen_address);
        return NET_START_REFUSED;
    }
    snprintf(net.web_dir, sizeof net.web_dir, "%s", net.cfg.web_root);
    net.api_limits = ratelimit_new(net.cfg.http_rate_per_s,
                                   net.cfg.http_burst, LIMIT_HTTP_ADDRS);
    net.gz = gzcache_new(WEB_GZIP_BYTES, WEB_GZIP_FILES);
    table_init(&net.later);
    if (!net.api_limits || !net.gz) {
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
    if (start_loop(err, errlen) < 0) {
        wire_free();
        return -1;
    }
    if (start_context(tls, err, errlen) < 0) {
        ev_loop_destroy(net.loop);
        net.loop = NULL;
        wire_free();
        return -1;
    }
    if ((rc = listen_main(&want, iface, tls, err, errlen)) < 0 ||
        (rc = listen_redirect(&want_redirect, iface, err, errlen)) < 0)
        goto fail;
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

void net_attach(const struct net_handlers *h, struct net_stats *stats)
{
    assert(net.context && !net.attached); /* after net_start, once */
    /* every handler but stoppable is called unchecked */
    assert(h->open && h->text && h->committed && h->binary && h->control &&
           h->closed && h->wake && h->shutdown && h->http_wants &&
           h->http_route && h->http && h->http_too_many && stats);
    net.hd = *h;
    net.stats = stats;
    net.attached = true;
}

/* Ends the loop once the shutdown is complete (after every turn): the
 * connections closed and, for at most LIMIT_SHUTDOWN_HANDOVER_MS, the
 * hub done (a cluster node's handover). */
static void stop_check_cb(struct ev_loop *l, ev_check *w, int revents)
{
    (void)w;
    (void)revents;
    if (!net.stopped)
        return;
    if (net.attached && net.hd.stoppable && !net.hd.stoppable(net.hd.ctx) &&
        net_now_ms() < net.stop_deadline)
        return;
    ev_break(l, EVBREAK_ALL);
}

struct ev_loop *net_ev_loop(void)
{
    return net.loop;
}

void net_run(void)
{
    assert(net.loop && net.attached);
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
    net_timer_free(net.drain_phase);
    net.drain_phase = NULL;
    lws_context_destroy(net.context);
    net.context = NULL;
    /* destroying the context closed every WebSocket (conn.c's CLOSED) */
    assert(!net.n_conns && !net.waiting && !net.ready && !net.alive.head &&
           !net.pinged.head);
    if (net.loop) {
        ev_timer_stop(net.loop, &net.timers_ev);
        ev_timer_stop(net.loop, &net.keepalive_ev);
        ev_timer_stop(net.loop, &net.lag_ev);
        ev_check_stop(net.loop, &net.stop_check);
        ev_check_stop(net.loop, &net.date_check);
        ev_prepare_stop(net.loop, &net.starved_prepare);
        ev_prepare_stop(net.loop, &net.ready_prepare);
        ev_loop_destroy(net.loop);
        net.loop = NULL;
    }
    net.timers_ev_at = INT64_MAX;
    timerq_free(&net.timers);
    conn_free_spares(); /* after lws_context_destroy closed every queue */
    if (net.reserve_fd >= 0)
        close(net.reserve_fd);
    net.reserve_fd = -1;
    wire_free();
    tcp_forget_all();
    ratelimit_free(net.api_limits);
    gzcache_free(net.gz);
    table_clear(&net.later);
    net.api_limits = NULL;
}
