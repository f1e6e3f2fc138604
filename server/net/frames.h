/*
 * frames.h - follows the bytes a client sends on one connection, as they
 * arrive, to see what libwebsockets 4.1 does not show: where each HTTP
 * request's header block ends (so that the upgrade request's last byte
 * can be the last byte of a read, and every later byte is a WebSocket
 * frame), and in the frames, each frame's opcode and mask bit. lws
 * answers WebSocket pings itself with no callback, and accepts unmasked
 * frames, which RFC 6455 (5.1) forbids a client to send.
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

struct frames {
    enum frames_mode mode;
    unsigned crlf;    /* HTTP: bytes of "\r\n\r\n" just seen (0-3) */
    int state;        /* WebSocket: where in a frame (frames.c) */
    unsigned need;    /* bytes left of the length or mask fields */
    uint64_t len;     /* the frame's payload length, being read */
    uint64_t payload; /* payload bytes left of the current frame */
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

/* HTTP: data[0, n) was read (passed on). */
void frames_http_feed(struct frames *f, const uint8_t *data, size_t n);

/* WebSocket: follows data[0, n); stops at the second byte of an
 * unmasked frame (the stream is then broken: feed nothing more). */
void frames_websocket(struct frames *f, const uint8_t *data, size_t n,
                      struct frames_seen *seen);

#endif
