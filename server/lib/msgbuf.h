/*
 * msgbuf.h - a rendered server message, shared by reference: a message to
 * many recipients is rendered once and each connection's queue holds a
 * reference to the same bytes.
 *
 * The bytes are preceded by MSGBUF_HEADROOM writable bytes, which the
 * network layer needs in front of a frame (libwebsockets' LWS_PRE).
 * Single-threaded: only the event-loop thread touches reference counts.
 */
#ifndef SERVER_MSGBUF_H
#define SERVER_MSGBUF_H

#include <stddef.h>

#define MSGBUF_HEADROOM 32

struct msgbuf {
    unsigned refs;
    size_t len;
    char *data; /* len bytes, MSGBUF_HEADROOM writable bytes before them */
};

/* Takes ownership of the malloc'ed text (a rendered message) and returns a
 * buffer with one reference, or NULL when text is NULL or out of memory
 * (text is freed either way). */
struct msgbuf *msgbuf_take(char *text);

/* A buffer with one reference and room for cap bytes at data (a text and
 * its terminator), for a message written in place: the caller writes it
 * and sets len before handing the buffer on. NULL when out of memory. */
struct msgbuf *msgbuf_new(size_t cap);

/* Adds a reference; returns b. */
struct msgbuf *msgbuf_ref(struct msgbuf *b);

/* Drops a reference and frees the buffer with the last one. NULL is a
 * no-op. */
void msgbuf_unref(struct msgbuf *b);

#endif
