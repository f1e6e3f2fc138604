/*
 * tcp.c - TCP accounting (see net_internal.h): every accepted connection
 * and its address's count, the caps that refuse one at accept, the
 * deadline of its request, and the reserve descriptor that keeps accept
 * failing for want of descriptors from spinning the loop.
 */
#include "net/net_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/table.h"
#include "lib/tunables.h"
#include "net/trust.h"
#include "net/wire.h"

/* ---- addresses --------------------------------------------------------- */

/* The peer's address as text, or "?" when it is gone (lws 4.1 then
 * writes getpeername's error sentence into ip, which would key the
 * per-address count and break the log's key=value fields). */
void tcp_peer_ip(struct lws *wsi, char *ip, size_t len)
{
    if (!lws_get_peer_simple(wsi, ip, len) || !ip[0] ||
        ip[strspn(ip, "0123456789abcdefABCDEF.:")] != '\0')
        snprintf(ip, len, "?");
}

void tcp_fd_ip(int fd, char *ip, size_t len)
{
    if (!lws_get_peer_simple_fd(fd, ip, len) || !ip[0] ||
        ip[strspn(ip, "0123456789abcdefABCDEF.:")] != '\0')
        snprintf(ip, len, "?");
}

void tcp_client_ip(struct lws *wsi, char *ip, size_t len)
{
    char peer[64], xff[4096];

    tcp_peer_ip(wsi, peer, sizeof peer);
    if (!trust_proxy(net.cfg.trusted_proxies, net.cfg.n_trusted_proxies,
                     peer) ||
        lws_hdr_copy(wsi, xff, sizeof xff, WSI_TOKEN_X_FORWARDED_FOR) <= 0)
        xff[0] = '\0';
    trust_client(net.cfg.trusted_proxies, net.cfg.n_trusted_proxies, peer,
                 xff, ip, len);
}

void tcp_key(const char *ip, char key[ADDRKEY_MAX])
{
    if (trust_proxy(net.cfg.trusted_proxies, net.cfg.n_trusted_proxies, ip))
        snprintf(key, ADDRKEY_MAX, "%s", ip);
    else
        addrkey_of(ip, net.cfg.ipv6_limit_prefix, key);
}

/* The entry of key, created when missing (NULL when out of memory). */
struct peer *tcp_peer_find(const char *key)
{
    struct peer *p = table_get(&net.peers, key);

    if (p)
        return p;
    p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    snprintf(p->ip, sizeof p->ip, "%s", key);
    if (table_put(&net.peers, p->ip, p) < 0) {
        free(p);
        return NULL;
    }
    return p;
}

/* Forgets p when nothing counts on it any more. */
void tcp_peer_release(struct peer *p)
{
    if (p && !p->conns && !p->tcp)
        free(table_del(&net.peers, p->ip));
}

/* ---- TCP connections --------------------------------------------------- */

/* Every accepted TCP connection counts, from accept on, against its
 * socket address's cap (max_connections_per_ip + LIMIT_HTTP_CONNS_PER_IP,
 * not for a trusted proxy) and the total (max_connections +
 * LIMIT_TCP_EXTRA); one over either is closed at once, before it costs
 * more than the accept. The total stays below the descriptor limit, so
 * accept() does not fail with EMFILE (which lws 4.1 would retry on every
 * turn of the loop, a core at 100%). A connection must complete its
 * request within request_timeout_s of its accept (or of its previous
 * request's end on a kept-alive connection), else it is closed. */

static struct tcp *tcp_of(struct lws *wsi)
{
    char key[24];

    snprintf(key, sizeof key, "%p", (void *)wsi);
    return table_get(&net.tcps, key);
}

static void unrequested_remove(struct tcp *t)
{
    if (!t->listed)
        return;
    if (t->prev)
        t->prev->next = t->next;
    else
        net.unrequested.head = t->next;
    if (t->next)
        t->next->prev = t->prev;
    else
        net.unrequested.tail = t->prev;
    t->prev = t->next = NULL;
    t->listed = false;
}

/* The connection wsi must complete a request within request_timeout_s. */
void tcp_await_request(struct lws *wsi)
{
    struct tcp *t = tcp_of(wsi);

    if (!t)
        return;
    unrequested_remove(t);
    t->deadline_ms = net_now_ms() + (int64_t)net.cfg.request_timeout_s * 1000;
    t->prev = net.unrequested.tail;
    t->next = NULL;
    if (net.unrequested.tail)
        net.unrequested.tail->next = t;
    else
        net.unrequested.head = t;
    net.unrequested.tail = t;
    t->listed = true;
}

/* wsi's request arrived whole: no deadline while it is answered. */
void tcp_request_done(struct lws *wsi)
{
    struct tcp *t = tcp_of(wsi);

    if (t)
        unrequested_remove(t);
}

/* Writes how many connections were refused since the last such line, at
 * most once a second (a flood of them must not flood the log). */
static void tcp_refused(const char *why, const char *ip)
{
    static int64_t last_ms;
    static unsigned long count;
    int64_t now = net_now_ms();

    count++;
    if (now - last_ms < 1000)
        return;
    log_warn("event=tcp_refused why=%s ip=%s refused=%lu connections=%d", why,
             ip, count, net.n_tcp);
    last_ms = now;
    count = 0;
}

/* FILTER_NETWORK_CONNECTION: a connection was just accepted. Returns
 * nonzero to close it at once. */
static int tcp_filter(struct lws *listener, int fd)
{
    char ip[64], key[ADDRKEY_MAX];
    struct peer *p;

    tcp_fd_ip(fd, ip, sizeof ip);
    tcp_key(ip, key);
    if (net.n_tcp >= net.cfg.max_connections + LIMIT_TCP_EXTRA ||
        (net.fd_limit > 0 && fd >= net.fd_limit - LIMIT_TCP_EXTRA / 2)) {
        tcp_refused("max_connections", ip);
        return 1;
    }
    p = table_get(&net.peers, key);
    if (p &&
        p->tcp >= net.cfg.max_connections_per_ip + LIMIT_HTTP_CONNS_PER_IP &&
        !trust_proxy(net.cfg.trusted_proxies, net.cfg.n_trusted_proxies,
                     ip)) {
        tcp_refused("max_connections_per_ip", ip);
        return 1;
    }
    /* the kernel's share of what a client leaves unread (see conn.c's
     * over_cap): a failure leaves the kernel's autotuning, logged */
    if (net.cfg.send_buffer_bytes &&
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &net.cfg.send_buffer_bytes,
                   sizeof net.cfg.send_buffer_bytes) < 0)
        log_warn("event=sndbuf_failed errno=%d ip=%s", errno, ip);
    net.accepted_fd = fd;
    snprintf(net.accepted_ip, sizeof net.accepted_ip, "%s", key);
    wire_watch(fd, net.cfg.tls_cert[0] &&
                       lws_get_vhost(listener) == net.vhost_main);
    return 0;
}

/* WSI_CREATE: the wsi of the connection tcp_filter let through, which
 * lws creates right after the filter (before it gives the wsi its
 * descriptor); any other wsi, a listener or lws's pipe, is not counted. */
static void tcp_created(struct lws *wsi)
{
    struct tcp *t;

    if (net.accepted_fd < 0)
        return;
    t = calloc(1, sizeof *t);
    if (!t) {
        wire_forget(net.accepted_fd);
        net.accepted_fd = -1;
        return;
    }
    t->wsi = wsi;
    t->fd = net.accepted_fd;
    net.accepted_fd = -1;
    snprintf(t->key, sizeof t->key, "%p", (void *)wsi);
    if (table_put(&net.tcps, t->key, t) < 0) {
        wire_forget(t->fd);
        free(t);
        return;
    }
    t->peer = tcp_peer_find(net.accepted_ip);
    if (t->peer)
        t->peer->tcp++;
    net.n_tcp++;
    tcp_await_request(wsi);
}

/* WSI_DESTROY: the connection is gone. */
static void tcp_destroyed(struct lws *wsi)
{
    struct tcp *t = tcp_of(wsi);

    if (!t)
        return;
    table_del(&net.tcps, t->key);
    unrequested_remove(t);
    wire_forget(t->fd);
    if (t->peer) {
        t->peer->tcp--;
        tcp_peer_release(t->peer);
    }
    net.n_tcp--;
    free(t);
}

/* Closes the connections whose request is overdue (outside any lws
 * callback). */
void tcp_expire(int64_t now)
{
    struct tcp *t;

    while ((t = net.unrequested.head) && t->deadline_ms <= now) {
        unrequested_remove(t);
        log_debug("event=conn_cut why=request_timeout ip=%s",
                  t->peer ? t->peer->ip : "?");
        lws_set_timeout(t->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_SYNC);
    }
}

/* The TCP-level events every vhost's first protocol gets. Returns true
 * when reason was one of them, with the callback's result in *rc. */
bool tcp_event(struct lws *wsi, enum lws_callback_reasons reason, void *in,
               int *rc)
{
    *rc = 0;
    switch (reason) {
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
        *rc = tcp_filter(wsi, (int)(intptr_t)in);
        return true;
    case LWS_CALLBACK_WSI_CREATE:
        tcp_created(wsi);
        return true;
    case LWS_CALLBACK_WSI_DESTROY:
        tcp_destroyed(wsi);
        return true;
    default:
        return false;
    }
}

/* Forgets every connection and address, at the stop (what lws did not
 * report destroyed). */
void tcp_forget_all(void)
{
    for (size_t i = 0; i < net.tcps.cap; i++)
        free(net.tcps.slots[i].value); /* NULL in empty and deleted slots */
    table_clear(&net.tcps);
    net.unrequested.head = net.unrequested.tail = NULL;
    net.n_tcp = 0;
    for (size_t i = 0; i < net.peers.cap; i++)
        free(net.peers.slots[i].value);
    table_clear(&net.peers);
}

/* ---- descriptors used up ----------------------------------------------- */

/* When accept() fails for want of a descriptor (EMFILE, ENFILE), lws 4.1
 * logs "accept: errno 24" and leaves the connection queued: the listening
 * socket stays readable and the loop would retry on every turn, a core
 * at 100%. The TCP cap keeps connections from using the descriptors up,
 * but files, the database or a limit lowered under the running process
 * can. So the server keeps a reserve descriptor (/dev/null): after such
 * a failure, before the loop waits again, it closes the reserve, accepts
 * and closes what is queued on its listening sockets (those clients see
 * their connection closed instead of hanging), and opens the reserve
 * again. The loop then sleeps until the next connection. */

/* Connections shed from one listening socket per turn of the loop. */
#define SHED_MAX 256

/* Notes lws's line (an error) when it says that accept() failed for want
 * of a descriptor. */
void tcp_starved_note(const char *line)
{
    int e;

    if (sscanf(line, "accept: errno %d", &e) == 1 &&
        (e == EMFILE || e == ENFILE))
        net.accept_starved = true;
}

void tcp_reserve_open(void)
{
    if (net.reserve_fd < 0)
        net.reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* Accepts and closes the connections queued on the listening socket fd
 * (poll first, as lws does: the socket may block). Returns how many. */
static unsigned long shed_queue(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    unsigned long n = 0;
    int c;

    while (n < SHED_MAX && poll(&p, 1, 0) == 1 &&
           (c = accept4(fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
        close(c);
        n++;
    }
    return n;
}

/* Before the loop waits: sheds the queued connections after a starved
 * accept (see above); says so at most once a second. */
void tcp_starved_prepare(struct ev_loop *l, ev_prepare *w, int revents)
{
    static int64_t last_ms;
    static unsigned long shed;
    int64_t now;

    (void)l;
    (void)w;
    (void)revents;
    if (!net.accept_starved)
        return;
    net.accept_starved = false;
    if (net.reserve_fd >= 0) {
        close(net.reserve_fd);
        net.reserve_fd = -1;
    }
    shed += shed_queue(net.bound_main.fd);
    if (net.bound_redirect.port)
        shed += shed_queue(net.bound_redirect.fd);
    tcp_reserve_open();
    now = net_now_ms();
    if (now - last_ms < 1000)
        return;
    log_warn("event=descriptors_exhausted shed=%lu reserve=%s connections=%d",
             shed, net.reserve_fd >= 0 ? "kept" : "lost", net.n_tcp);
    last_ms = now;
    shed = 0;
}
