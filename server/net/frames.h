/*
 * frames.h - follows the bytes a client sends on one connection, as they
 * arrive, to see what libwebsockets 4.1 does not show: where each HTTP
 * request's header block ends (so that the upgrade request's last byte
 * can be the last byte of a read, and every later byte is a WebSocket
 * frame), and in the frames, each frame's opcode and mask bit. lws
 * answers WebSocket pings itself with no callback, and accepts unmasked
 * frames, which RFC 6455 (5.1) forbids a client to send.
 *
 * It also checks each request's head (request line and headers) against
 * RFC 9112's framing rules, which lws 4.1 applies leniently or not at
 * all: lws takes the first of two Content-Length headers, prefers
 * Content-Length to Transfer-Encoding, parses a chunked GET body as the
 * next request, and hangs up without an answer on a request line or a
 * head too long for its header table or on "%00" in a path. Only a POST
 * (the HTTP API's) may have a body, of one Content-Length of at most
 * FRAMES_BODY_MAX bytes, which is followed and never read as a head; any
 * other body is refused, as is every ambiguity a proxy in front could
 * read otherwise:
 *
 *   414  a request line over FRAMES_LINE_MAX bytes
 *   431  a head (line and headers) over FRAMES_HEAD_MAX bytes
 *   413  a POST's Content-Length over FRAMES_BODY_MAX
 *   400  Transfer-Encoding; a Content-Length other than one 0 on any
 *        request but a POST; two Host
 *        headers; a NUL byte, or "%00" in the request target; a CR or LF
 *        that is not part of a CRLF; whitespace before a header's colon
 *        or at the start of a header line (obs-fold); a line without a
 *        colon
 *
 * Pure: no I/O, nothing allocated. wire.c feeds it.
 */
#ifndef SERVER_FRAMES_H
#define SERVER_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum frames_mode {
    FRAMES_HTTP,      /* HTTP requests (header blocks, no bodies) */
    FRAMES_WEBSOCKET, /* client-to-server WebSocket frames */
};

/* The longest request line answered (PROTOCOL.md: longer is 414). */
#define FRAMES_LINE_MAX 511
/* The longest head (request line, headers, the empty line): lws 4.1
 * keeps a head's values in a 4096-byte table and hangs up when they do
 * not fit; every head within this bound fits (names and separators are
 * not stored). Longer is 431. */
#define FRAMES_HEAD_MAX 4096
/* The longest request body (a POST's) answered: 413 beyond. */
#define FRAMES_BODY_MAX 4096

/* A request head being checked (frames.c). */
struct frames_head {
    int at;            /* where in the head */
    unsigned spaces;   /* in the request line: spaces seen */
    unsigned pct;      /* in the target: 1 after '%', 2 after "%0" */
    size_t line_len;   /* the request line's bytes so far */
    size_t len;        /* the head's bytes so far */
    char name[20];     /* the header's name, lower case, cut */
    unsigned name_len; /* its length (more than fits: no match) */
    int field;         /* which header that is (frames.c) */
    bool digits;       /* Content-Length: a digit seen */
    bool nonzero;      /* Content-Length: a digit other than 0 seen */
    bool value_end;    /* Content-Length: whitespace after the digits */
    unsigned n_length; /* Content-Length headers */
    unsigned n_host;   /* Host headers */
    char method[5];    /* the request line's first bytes */
    uint32_t length;   /* Content-Length's value (past the cap: cap + 1) */
};

struct frames {
    enum frames_mode mode;
    unsigned crlf;           /* HTTP: bytes of "\r\n\r\n" just seen (0-3) */
    struct frames_head head; /* HTTP: the request being read */
    uint32_t body;           /* HTTP: bytes left of a POST's body */
    int refused;             /* HTTP: the status a head got (0: none) */
    const char *why;         /* HTTP: why, a static word */
    int state;               /* WebSocket: where in a frame (frames.c) */
    unsigned need;           /* bytes left of the length or mask fields */
    uint64_t len;            /* the frame's payload length, being read */
    uint64_t payload;        /* payload bytes left of the current frame */
};

/* What frames_websocket found in a piece of data. */
struct frames_seen {
    size_t ok_len;    /* bytes before the first unmasked frame (all of
                          them when there is none; 0 when that frame
                          began in an earlier piece) */
    unsigned control; /* ping and pong frames begun, up to ok_len */
    bool unmasked;    /* an unmasked frame: a protocol error (1002) */
};

/* A new connection: HTTP requests first. */
void frames_init(struct frames *f);

/* From now on (the upgrade request's header block was the last byte
 * fed), WebSocket frames. */
void frames_start_websocket(struct frames *f);

/* HTTP: the length of the prefix of data[0, n) that ends with the end
 * of a header block ("\r\n\r\n", counting what was fed before), or n
 * when no block ends in it. Changes nothing. */
size_t frames_http_cut(const struct frames *f, const uint8_t *data, size_t n);

/* HTTP: data[0, n) was read (to be passed on). Returns 0 while every
 * head is well formed, else the status it must be answered with (400,
 * 414 or 431; f->why says why) and from then on the same: feed nothing
 * more, the connection's input is refused. */
int frames_http_feed(struct frames *f, const uint8_t *data, size_t n);

/* WebSocket: follows data[0, n); stops at the second byte of an
 * unmasked frame (the stream is then broken: feed nothing more). */
void frames_websocket(struct frames *f, const uint8_t *data, size_t n,
                      struct frames_seen *seen);

#endif
