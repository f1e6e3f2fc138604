/*
 * stream.h - a byte stream to a server on a libev loop: TCP or a unix
 * socket, with TLS (OpenSSL) over TCP when asked. redis.c speaks Redis's
 * protocol over it; nothing here knows Redis.
 *
 * Why not hiredis's own sockets: Debian 12's hiredis (0.14) has no TLS,
 * and its successor is not in Debian 12. So hiredis parses and formats
 * the protocol (redis.c), and this file owns the socket.
 *
 * A stream connects without blocking (but for a host name's resolution:
 * give an address), then calls on_open; what arrives goes to on_data as
 * it comes; what stream_send is given is kept and written as the socket
 * takes it. The first failure (the connection refused, lost or closed by
 * the server, a TLS handshake or a certificate refused) goes to on_close
 * once, and nothing follows it. Only the event-loop thread uses a
 * stream. The process ignores SIGPIPE (main.c does from its start):
 * OpenSSL writes to a connection the server may have reset.
 */
#ifndef SERVER_CLUSTER_STREAM_H
#define SERVER_CLUSTER_STREAM_H

#include <stdbool.h>
#include <stddef.h>

struct ev_loop;
struct stream;
struct stream_tls;

/* What a TLS stream checks and shows. Strings are read by
 * stream_tls_new only. */
struct stream_tls_config {
    const char *ca_file;   /* PEM CAs to trust; NULL: the system's */
    const char *cert_file; /* PEM client certificate chain, or NULL */
    const char *key_file;  /* its PEM private key (with cert_file) */
    /* The name the server's certificate must carry (and SNI): a DNS
     * name, or an IP address to find among its IP addresses. */
    const char *server_name;
};

/* The TLS settings as OpenSSL's context (TLS 1.2 at least, the server's
 * certificate always verified). NULL with a sentence in err when a file
 * cannot be read or the key is not the certificate's. The caller owns
 * it (stream_tls_free), and it outlives the streams made with it. */
struct stream_tls *stream_tls_new(const struct stream_tls_config *cfg,
                                  char *err, size_t errlen);
void stream_tls_free(struct stream_tls *t);

struct stream_handlers {
    /* Connected (and the TLS handshake done). */
    void (*on_open)(void *arg);
    /* Bytes from the server (valid during the call). */
    void (*on_data)(void *arg, const char *data, size_t len);
    /* The stream failed or was closed by the server; why is a sentence
     * (valid during the call). refused: the server or its certificate
     * refused this client (a TLS error: an untrusted or misnamed
     * certificate, a client certificate refused, not TLS at all), as
     * opposed to no server or a lost connection. The caller still
     * frees the stream. */
    void (*on_close)(void *arg, const char *why, bool refused);
};

/* Starts connecting to host:port (path NULL) or to the unix socket at
 * path, over TLS when tls is not NULL (TCP only). The handlers' calls
 * come on later turns of the loop. NULL with a sentence in err when no
 * socket could be started (the host has no address, out of
 * descriptors...): treat it as a failed connection. The caller owns the
 * stream and frees it with stream_free. */
struct stream *stream_open(struct ev_loop *loop, const char *host, int port,
                           const char *path, struct stream_tls *tls,
                           const struct stream_handlers *h, void *arg,
                           char *err, size_t errlen);

/* Appends len bytes to what goes out (copied), written as the socket
 * takes them, starting once open. 0, or -1 when out of memory. */
int stream_send(struct stream *s, const char *data, size_t len);

/* True once on_open was called (and the stream has not failed). */
bool stream_is_open(const struct stream *s);

/* Closes the stream: no handler is called after it. Allowed from within
 * the stream's own handlers (the memory goes when the handler
 * returns). stream_free(NULL) is a no-op. */
void stream_free(struct stream *s);

#endif
