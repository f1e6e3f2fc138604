/*
 * wire.h - what clients send, seen before libwebsockets parses it.
 *
 * libwebsockets 4.1 answers WebSocket pings by itself (no callback: a
 * client's pings cannot be metered) and takes unmasked client frames
 * (RFC 6455 5.1: the server must close the connection). So this module
 * defines recv() and SSL_read(), the two calls through which lws reads
 * from a client: the executable's definitions take the place of libc's
 * and OpenSSL's for lws (ELF symbol interposition); they call the real
 * ones and follow each watched connection's bytes with frames.h:
 *
 * - while a connection speaks HTTP, a read ends with the end of a
 *   request's header block at the latest (peeked first), so when lws
 *   upgrades a connection to a WebSocket, every byte it has not read yet
 *   is a frame;
 * - then each ping or pong frame is reported (the owner charges it to
 *   the connection's message budget) and an unmasked frame is reported
 *   as a protocol error and never reaches lws (the read ends before it;
 *   what follows is read and dropped until the owner closes).
 *
 * A request head that breaks HTTP's framing rules (frames.h: a request
 * line or head too long, a body announced, two lengths, "%00" in the
 * target...) never reaches lws: the read that completes the proof is
 * answered here, with the status hooks.refusal formats (400, 414, 431:
 * lws 4.1 would hang up on some without a word and read the others
 * leniently), the socket is half-closed (plain) and everything the
 * client sends afterwards is read and dropped, so lws sees only the end
 * of the stream and closes (or request_timeout_s does): closing with
 * unread input would reset the connection and lose the answer.
 *
 * A connection is watched from wire_watch (at accept) to wire_forget;
 * descriptors not watched read as usual. Only the event-loop thread reads
 * through lws, so there is no locking.
 */
#ifndef SERVER_WIRE_H
#define SERVER_WIRE_H

#include <stdbool.h>
#include <stddef.h>

struct wire_hooks {
    /* a ping or pong frame from owner's client */
    void (*control)(void *owner);
    /* an unmasked frame from owner's client: close it (1002) */
    void (*unmasked)(void *owner);
    /* a request head on fd broke HTTP's framing rules (frames.h): writes
     * the answer, status for the reason why, into buf (cap bytes; over
     * TLS when tls); returns its length, 0 for none */
    size_t (*refusal)(int fd, bool tls, int status, const char *why,
                      char *buf, size_t cap);
};

/* Watches descriptors below fd_limit, reporting to hooks (copied).
 * Returns 0, or -1 when out of memory. */
int wire_init(int fd_limit, const struct wire_hooks *hooks);

/* Stops watching; frees the table. */
void wire_free(void);

/* A connection accepted on fd: HTTP requests first, read through
 * SSL_read when tls, else recv. */
void wire_watch(int fd, bool tls);

/* fd's connection is now a WebSocket of owner. */
void wire_websocket(int fd, void *owner);

/* fd's connection is gone. */
void wire_forget(int fd);

#endif
