/*
 * wire.c - clients' bytes before libwebsockets (see wire.h).
 */
#include "net/wire.h"

#include <dlfcn.h>
#include <errno.h>
#include <openssl/ssl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "net/frames.h"

struct watch {
    bool on;      /* watching this descriptor */
    bool tls;     /* read through SSL_read */
    bool broken;  /* an unmasked frame came: drop all that follows */
    bool refused; /* a request head was refused: drop all that follows */
    void *owner;  /* the WebSocket's, once upgraded */
    struct frames f;
};

static struct watch *watches; /* by descriptor */
static int n_watches;
static struct wire_hooks hooks;

int wire_init(int fd_limit, const struct wire_hooks *h)
{
    watches = calloc(fd_limit > 0 ? (size_t)fd_limit : 1, sizeof *watches);
    if (!watches)
        return -1;
    n_watches = fd_limit;
    hooks = *h;
    return 0;
}

void wire_free(void)
{
    free(watches);
    watches = NULL;
    n_watches = 0;
}

static struct watch *watch_of(int fd)
{
    if (!watches || fd < 0 || fd >= n_watches || !watches[fd].on)
        return NULL;
    return &watches[fd];
}

void wire_watch(int fd, bool tls)
{
    if (!watches || fd < 0 || fd >= n_watches)
        return;
    memset(&watches[fd], 0, sizeof watches[fd]);
    watches[fd].on = true;
    watches[fd].tls = tls;
    frames_init(&watches[fd].f);
}

void wire_websocket(int fd, void *owner)
{
    struct watch *w = watch_of(fd);

    if (!w)
        return;
    w->owner = owner;
    frames_start_websocket(&w->f);
}

void wire_forget(int fd)
{
    if (watch_of(fd))
        memset(&watches[fd], 0, sizeof watches[fd]);
}

/* One transport: the plain socket or its TLS session. */
struct transport {
    int fd;
    SSL *ssl;
    int (*ssl_read)(SSL *, void *, int);
};

static ssize_t t_read(const struct transport *t, void *buf, size_t len,
                      bool peek)
{
    if (t->ssl) {
        int n = len > INT32_MAX ? INT32_MAX : (int)len;
        return peek ? SSL_peek(t->ssl, buf, n) : t->ssl_read(t->ssl, buf, n);
    }
    return recvfrom(t->fd, buf, len, peek ? MSG_PEEK : 0, NULL, NULL);
}

/* Reads and drops what the client sent (a few buffers' worth a call:
 * a flood cannot hold the loop). Returns the last read's result when it
 * was the end, an error or "nothing more now" (lws then waits or closes
 * as the real read tells it); else, over TLS 0 (lws hangs up), over a
 * plain socket -1 with EAGAIN (lws is called again while more waits). */
static ssize_t drop_input(const struct transport *t)
{
    static uint8_t sink[16384];

    for (int i = 0; i < 4; i++) {
        ssize_t n = t_read(t, sink, sizeof sink, false);
        if (n <= 0)
            return n;
    }
    if (t->ssl)
        return 0;
    errno = EAGAIN;
    return -1;
}

/* The head just read broke the framing rules: answers it, half-closes
 * and drops the rest (see wire.h). */
static ssize_t refuse_head(struct watch *w, const struct transport *t)
{
    char answer[2048];
    size_t n = 0;

    w->refused = true;
    if (hooks.refusal)
        n = hooks.refusal(t->fd, w->tls, w->f.refused, w->f.why, answer,
                          sizeof answer);
    if (n && t->ssl) {
        SSL_write(t->ssl, answer, (int)n);
    } else if (n) {
        /* an empty send buffer takes it whole; else the client did not
         * read its earlier answers and gets none */
        if (send(t->fd, answer, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
            return 0;
        shutdown(t->fd, SHUT_WR);
    }
    return drop_input(t);
}

/* A read for lws from a watched connection (see wire.h). */
static ssize_t watched_read(struct watch *w, const struct transport *t,
                            uint8_t *buf, size_t len)
{
    struct frames_seen seen;
    ssize_t n;

    if (w->broken) {
        /* the owner is closing: what the client sends is dropped */
        n = t_read(t, buf, len, false);
        if (n <= 0)
            return n;
        if (t->ssl)
            return 0; /* lws reads a TLS 0 as an error: it hangs up */
        errno = EAGAIN;
        return -1;
    }
    if (w->refused)
        return drop_input(t);
    if (w->f.mode == FRAMES_HTTP) {
        n = t_read(t, buf, len, true);
        if (n <= 0)
            return n;
        n = t_read(t, buf, frames_http_cut(&w->f, buf, (size_t)n), false);
        if (n > 0 && frames_http_feed(&w->f, buf, (size_t)n))
            return refuse_head(w, t);
        return n;
    }
    n = t_read(t, buf, len, false);
    if (n <= 0)
        return n;
    frames_websocket(&w->f, buf, (size_t)n, &seen);
    for (unsigned i = 0; i < seen.control && hooks.control; i++)
        hooks.control(w->owner);
    if (!seen.unmasked)
        return n;
    w->broken = true;
    if (hooks.unmasked)
        hooks.unmasked(w->owner);
    if (seen.ok_len)
        return (ssize_t)seen.ok_len;
    if (t->ssl)
        return 0;
    errno = EAGAIN;
    return -1;
}

/* libwebsockets' read of a plain connection. */
ssize_t recv(int fd, void *buf, size_t len, int flags)
{
    struct watch *w = flags ? NULL : watch_of(fd);
    struct transport t = {fd, NULL, NULL};

    if (!w || w->tls)
        return recvfrom(fd, buf, len, flags, NULL, NULL);
    return watched_read(w, &t, buf, len);
}

/* libwebsockets' read of a TLS connection. */
int SSL_read(SSL *ssl, void *buf, int num)
{
    static int (*real)(SSL *, void *, int);
    struct transport t = {-1, ssl, NULL};
    struct watch *w;

    if (!real) {
        *(void **)&real = dlsym(RTLD_NEXT, "SSL_read");
        if (!real)
            return -1;
    }
    w = watch_of(SSL_get_fd(ssl));
    if (!w || !w->tls || num <= 0)
        return real(ssl, buf, num);
    t.fd = SSL_get_fd(ssl);
    t.ssl_read = real;
    return (int)watched_read(w, &t, buf, (size_t)num);
}
