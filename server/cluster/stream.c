/*
 * stream.c - a byte stream to a server, plain or TLS, on libev (see
 * stream.h).
 *
 * One function, pump, does whatever the stream's state allows each time
 * its socket is ready: finish the connect, step the TLS handshake, write
 * what waits, read what came. The handlers are called only from pump,
 * which counts them (depth): a stream_free from within one only marks
 * the stream, and pump frees it when the outermost call returns.
 *
 * OpenSSL's error queue is the thread's, shared with libwebsockets' TLS
 * on the same loop: it is cleared before each SSL call and read right
 * after a failure.
 */
#include "cluster/stream.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Bytes read from the socket at a time. */
#define READ_CHUNK 16384
/* TCP keepalive: a dead peer is found within IDLE + INTVL * CNT s. */
#define KEEPALIVE_IDLE_S 15
#define KEEPALIVE_INTVL_S 5
#define KEEPALIVE_CNT 3

struct stream_tls {
    SSL_CTX *ctx;
    char *name; /* the name or address to verify */
    bool ip;    /* name is an IP address */
};

enum state { CONNECTING, HANDSHAKE, OPEN, CLOSED };

struct stream {
    struct ev_loop *loop;
    ev_io rio, wio;
    int fd;
    SSL *ssl; /* NULL: plain */
    enum state state;
    char *out; /* out[off..len) waits to be written */
    size_t off, len, cap;
    bool ssl_wants_write; /* the last SSL call answered WANT_WRITE */
    bool ssl_wants_read;  /* ... and SSL_write answered WANT_READ */
    bool got_data;        /* on_data was called */
    bool tcp;             /* not a unix socket */
    int depth;            /* handlers running */
    bool freed;           /* stream_free called within one */
    struct stream_handlers h;
    void *arg;
};

/* ---- TLS settings ------------------------------------------------------- */

/* The reason of OpenSSL's last error, or what. */
static const char *ssl_reason(const char *what)
{
    unsigned long e = ERR_peek_last_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;

    return r ? r : what;
}

struct stream_tls *stream_tls_new(const struct stream_tls_config *cfg,
                                  char *err, size_t errlen)
{
    struct stream_tls *t = calloc(1, sizeof *t);
    unsigned char addr[sizeof(struct in6_addr)];

    snprintf(err, errlen, "out of memory");
    if (!t)
        return NULL;
    ERR_clear_error();
    t->ctx = SSL_CTX_new(TLS_client_method());
    if (!t->ctx || !cfg->server_name || !cfg->server_name[0] ||
        !(t->name = strdup(cfg->server_name))) {
        if (t->ctx && (!cfg->server_name || !cfg->server_name[0]))
            snprintf(err, errlen, "no server name to verify");
        goto fail;
    }
    t->ip = inet_pton(AF_INET, t->name, addr) == 1 ||
            inet_pton(AF_INET6, t->name, addr) == 1;
    SSL_CTX_set_min_proto_version(t->ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(t->ctx, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_mode(t->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
                                 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (cfg->ca_file
            ? SSL_CTX_load_verify_locations(t->ctx, cfg->ca_file, NULL) != 1
            : SSL_CTX_set_default_verify_paths(t->ctx) != 1) {
        snprintf(err, errlen, "cannot load the CAs of %s: %s",
                 cfg->ca_file ? cfg->ca_file : "the system",
                 ssl_reason("unreadable"));
        goto fail;
    }
    if (!cfg->cert_file != !cfg->key_file) {
        snprintf(err, errlen,
                 "a client certificate needs its key, and a "
                 "key its certificate");
        goto fail;
    }
    if (cfg->cert_file &&
        SSL_CTX_use_certificate_chain_file(t->ctx, cfg->cert_file) != 1) {
        snprintf(err, errlen, "cannot load the certificate %s: %s",
                 cfg->cert_file, ssl_reason("unreadable"));
        goto fail;
    }
    if (cfg->key_file && (SSL_CTX_use_PrivateKey_file(
                              t->ctx, cfg->key_file, SSL_FILETYPE_PEM) != 1 ||
                          SSL_CTX_check_private_key(t->ctx) != 1)) {
        snprintf(err, errlen, "cannot use the key %s: %s", cfg->key_file,
                 ssl_reason("unreadable"));
        goto fail;
    }
    ERR_clear_error();
    return t;
fail:
    ERR_clear_error();
    stream_tls_free(t);
    return NULL;
}

void stream_tls_free(struct stream_tls *t)
{
    if (!t)
        return;
    SSL_CTX_free(t->ctx);
    free(t->name);
    free(t);
}

/* ---- the stream --------------------------------------------------------- */

static void destroy(struct stream *s)
{
    ev_io_stop(s->loop, &s->rio);
    ev_io_stop(s->loop, &s->wio);
    SSL_free(s->ssl);
    if (s->fd >= 0)
        close(s->fd);
    free(s->out);
    free(s);
}

/* The first failure: reported once, and the stream does nothing more.
 * A server that hangs up once connected without a word has refused this
 * client. Over TLS: with TLS 1.3 a server checks the client's
 * certificate after the client's side of the handshake is done, and its
 * alert may be lost to the reset of the connection. In plain TCP: a TLS
 * port, which resets what is not TLS. (A server that dies at that very
 * moment looks the same: redis.c's probe believes two in a row.) */
static void fail(struct stream *s, const char *why, bool refused)
{
    if (s->state == CLOSED)
        return;
    if (s->state == OPEN && !s->got_data && !refused && (s->ssl || s->tcp)) {
        why = s->ssl ? "TLS: the server hung up after the handshake "
                       "without a word (does it want a client "
                       "certificate?)"
                     : "the server hung up without a word (is it a TLS "
                       "port?)";
        refused = true;
    }
    s->state = CLOSED;
    ev_io_stop(s->loop, &s->rio);
    ev_io_stop(s->loop, &s->wio);
    s->h.on_close(s->arg, why, refused);
}

/* A failed SSL call (its SSL_get_error e) as a failure of s. */
static void fail_ssl(struct stream *s, int e, const char *doing)
{
    char why[256];
    long v = SSL_get_verify_result(s->ssl);

    if (e == SSL_ERROR_ZERO_RETURN) {
        fail(s, "the server closed the connection", false);
        return;
    }
    if (e == SSL_ERROR_SYSCALL && !ERR_peek_last_error()) {
        snprintf(why, sizeof why, "TLS %s: %s", doing,
                 errno ? strerror(errno)
                       : "the server closed the connection");
        fail(s, why, false);
        return;
    }
    if (v != X509_V_OK)
        snprintf(why, sizeof why,
                 "TLS %s: the server's certificate is refused: %s", doing,
                 X509_verify_cert_error_string(v));
    else
        snprintf(why, sizeof why, "TLS %s: %s", doing, ssl_reason("failed"));
    ERR_clear_error();
    fail(s, why, true);
}

static void opened(struct stream *s)
{
    s->state = OPEN;
    s->h.on_open(s->arg);
}

/* The connect's outcome, once the socket is writable. */
static void finish_connect(struct stream *s)
{
    int e = 0;
    socklen_t len = sizeof e;
    char why[160];

    if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
        e = errno;
    if (e == EINPROGRESS || e == EALREADY)
        return;
    if (e) {
        snprintf(why, sizeof why, "connect: %s", strerror(e));
        fail(s, why, false);
        return;
    }
    if (!s->ssl) {
        opened(s);
        return;
    }
    s->state = HANDSHAKE;
}

static void handshake(struct stream *s)
{
    int rc, e;

    ERR_clear_error();
    rc = SSL_do_handshake(s->ssl);
    if (rc == 1) {
        s->ssl_wants_write = false;
        opened(s);
        return;
    }
    e = SSL_get_error(s->ssl, rc);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        s->ssl_wants_write = e == SSL_ERROR_WANT_WRITE;
        return;
    }
    fail_ssl(s, e, "handshake");
}

/* Writes what waits, as far as the socket takes it. */
static void write_some(struct stream *s)
{
    while (s->state == OPEN && s->off < s->len) {
        size_t n = s->len - s->off;
        ssize_t w;
        if (s->ssl) {
            int e;
            ERR_clear_error();
            w = SSL_write(s->ssl, s->out + s->off,
                          (int)(n > INT_MAX ? INT_MAX : n));
            if (w <= 0) {
                e = SSL_get_error(s->ssl, (int)w);
                s->ssl_wants_read = e == SSL_ERROR_WANT_READ;
                s->ssl_wants_write = e == SSL_ERROR_WANT_WRITE;
                if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
                    fail_ssl(s, e, "write");
                return;
            }
            s->ssl_wants_read = s->ssl_wants_write = false;
        } else {
            w = send(s->fd, s->out + s->off, n, MSG_NOSIGNAL);
            if (w < 0) {
                char why[160];
                if (errno == EINTR)
                    continue;
                if (errno == EAGAIN || errno == EWOULDBLOCK)
                    return;
                snprintf(why, sizeof why, "write: %s", strerror(errno));
                fail(s, why, false);
                return;
            }
        }
        s->off += (size_t)w;
    }
    if (s->off == s->len)
        s->off = s->len = 0;
}

/* Reads until the socket (and OpenSSL's buffer) is empty, handing each
 * chunk to on_data. */
static void read_some(struct stream *s)
{
    char buf[READ_CHUNK];

    while (s->state == OPEN && !s->freed) {
        ssize_t n;
        if (s->ssl) {
            int e;
            ERR_clear_error();
            n = SSL_read(s->ssl, buf, sizeof buf);
            if (n <= 0) {
                e = SSL_get_error(s->ssl, (int)n);
                if (e == SSL_ERROR_WANT_WRITE)
                    s->ssl_wants_write = true;
                else if (e != SSL_ERROR_WANT_READ)
                    fail_ssl(s, e, "read");
                return;
            }
        } else {
            n = read(s->fd, buf, sizeof buf);
            if (n == 0) {
                fail(s, "the server closed the connection", false);
                return;
            }
            if (n < 0) {
                char why[160];
                if (errno == EINTR)
                    continue;
                if (errno == EAGAIN || errno == EWOULDBLOCK)
                    return;
                snprintf(why, sizeof why, "read: %s", strerror(errno));
                fail(s, why, false);
                return;
            }
        }
        s->got_data = true;
        s->h.on_data(s->arg, buf, (size_t)n);
    }
}

/* Which of the socket's readiness the stream waits for now. */
static void watch(struct stream *s)
{
    bool r = s->state == HANDSHAKE || s->state == OPEN;
    bool w = s->state == CONNECTING || s->ssl_wants_write ||
             (s->state == OPEN && s->off < s->len && !s->ssl_wants_read);

    if (r && !ev_is_active(&s->rio))
        ev_io_start(s->loop, &s->rio);
    else if (!r && ev_is_active(&s->rio))
        ev_io_stop(s->loop, &s->rio);
    if (w && !ev_is_active(&s->wio))
        ev_io_start(s->loop, &s->wio);
    else if (!w && ev_is_active(&s->wio))
        ev_io_stop(s->loop, &s->wio);
}

static void pump(struct stream *s)
{
    s->depth++;
    if (s->state == CONNECTING)
        finish_connect(s);
    if (s->state == HANDSHAKE && !s->freed)
        handshake(s);
    if (s->state == OPEN && !s->freed) {
        /* (what OpenSSL waited for may have come: each call says again) */
        s->ssl_wants_read = s->ssl_wants_write = false;
        write_some(s);
        read_some(s);
    }
    s->depth--;
    if (s->freed) {
        if (!s->depth)
            destroy(s);
        return;
    }
    if (s->state != CLOSED)
        watch(s);
}

static void io_cb(struct ev_loop *loop, ev_io *w, int revents)
{
    (void)loop;
    (void)revents;
    pump(w->data);
}

/* A non-blocking socket connecting to ai (or to the unix socket path):
 * its descriptor, or -1 with errno. */
static int start_connect(int family, const struct sockaddr *sa,
                         socklen_t salen)
{
    int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1, e;

    if (fd < 0)
        return -1;
    if (family != AF_UNIX) {
        int idle = KEEPALIVE_IDLE_S, intvl = KEEPALIVE_INTVL_S,
            cnt = KEEPALIVE_CNT;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
    }
    if (connect(fd, sa, salen) == 0 || errno == EINPROGRESS ||
        errno == EAGAIN)
        return fd;
    e = errno;
    close(fd);
    errno = e;
    return -1;
}

/* The socket of s, connecting; -1 with a sentence in err. */
static int connect_to(const char *host, int port, const char *path, char *err,
                      size_t errlen)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM},
                    *res, *ai;
    char service[16];
    int fd = -1, rc;

    if (path) {
        struct sockaddr_un un = {.sun_family = AF_UNIX};
        if (strlen(path) >= sizeof un.sun_path) {
            snprintf(err, errlen, "the socket path %s is too long", path);
            return -1;
        }
        memcpy(un.sun_path, path, strlen(path) + 1);
        fd = start_connect(AF_UNIX, (struct sockaddr *)&un, sizeof un);
        if (fd < 0)
            snprintf(err, errlen, "connect: %s", strerror(errno));
        return fd;
    }
    snprintf(service, sizeof service, "%d", port);
    rc = getaddrinfo(host, service, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "cannot resolve %s: %s", host,
                 gai_strerror(rc));
        return -1;
    }
    for (ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = start_connect(ai->ai_family, ai->ai_addr, ai->ai_addrlen);
        if (fd < 0)
            snprintf(err, errlen, "connect: %s", strerror(errno));
    }
    if (!res)
        snprintf(err, errlen, "%s has no address", host);
    freeaddrinfo(res);
    return fd;
}

struct stream *stream_open(struct ev_loop *loop, const char *host, int port,
                           const char *path, struct stream_tls *tls,
                           const struct stream_handlers *h, void *arg,
                           char *err, size_t errlen)
{
    struct stream *s = calloc(1, sizeof *s);

    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->loop = loop;
    s->h = *h;
    s->arg = arg;
    s->tcp = !path;
    s->fd = connect_to(host, port, path, err, errlen);
    if (s->fd < 0) {
        free(s);
        return NULL;
    }
    if (tls && !path) {
        ERR_clear_error();
        s->ssl = SSL_new(tls->ctx);
        if (!s->ssl || SSL_set_fd(s->ssl, s->fd) != 1 ||
            (tls->ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(s->ssl),
                                                     tls->name) != 1
                     : SSL_set_tlsext_host_name(s->ssl, tls->name) != 1 ||
                           SSL_set1_host(s->ssl, tls->name) != 1)) {
            snprintf(err, errlen, "TLS: %s", ssl_reason("cannot start"));
            ERR_clear_error();
            close(s->fd);
            SSL_free(s->ssl);
            free(s);
            return NULL;
        }
        SSL_set_connect_state(s->ssl);
    }
    s->state = CONNECTING;
    ev_io_init(&s->rio, io_cb, s->fd, EV_READ);
    ev_io_init(&s->wio, io_cb, s->fd, EV_WRITE);
    s->rio.data = s->wio.data = s;
    ev_io_start(loop, &s->wio); /* the connect's outcome */
    return s;
}

int stream_send(struct stream *s, const char *data, size_t len)
{
    if (s->state == CLOSED)
        return 0; /* (its on_close came or comes: the bytes go nowhere) */
    if (s->len + len > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        char *grown;
        if (s->off) { /* what was written goes first */
            memmove(s->out, s->out + s->off, s->len - s->off);
            s->len -= s->off;
            s->off = 0;
        }
        while (cap < s->len + len)
            cap *= 2;
        if (cap > s->cap) {
            grown = realloc(s->out, cap);
            if (!grown)
                return -1;
            s->out = grown;
            s->cap = cap;
        }
    }
    memcpy(s->out + s->len, data, len);
    s->len += len;
    if (s->state == OPEN && !s->depth)
        watch(s);
    return 0;
}

bool stream_is_open(const struct stream *s)
{
    return s->state == OPEN;
}

void stream_free(struct stream *s)
{
    if (!s)
        return;
    if (s->depth) {
        s->freed = true;
        s->state = CLOSED;
        ev_io_stop(s->loop, &s->rio);
        ev_io_stop(s->loop, &s->wio);
        return;
    }
    destroy(s);
}
