/*
 * frames.c - the client's byte stream, followed (see frames.h).
 */
#include "net/frames.h"

#include <string.h>

/* Where in a frame the next byte is. */
enum {
    AT_FIRST,   /* FIN, RSV, opcode */
    AT_SECOND,  /* MASK, 7-bit length */
    AT_LENGTH,  /* 16- or 64-bit length, `need` bytes left */
    AT_MASK,    /* masking key, `need` bytes left */
    AT_PAYLOAD, /* `payload` bytes left */
};

void frames_init(struct frames *f)
{
    memset(f, 0, sizeof *f);
    f->mode = FRAMES_HTTP;
}

void frames_start_websocket(struct frames *f)
{
    memset(f, 0, sizeof *f);
    f->mode = FRAMES_WEBSOCKET;
    f->state = AT_FIRST;
}

/* The "\r\n\r\n" progress after byte c, from progress k. */
static unsigned crlf_step(unsigned k, uint8_t c)
{
    if (c == (k % 2 ? '\n' : '\r'))
        return k + 1;
    return c == '\r' ? 1 : 0;
}

size_t frames_http_cut(const struct frames *f, const uint8_t *data, size_t n)
{
    unsigned k = f->crlf;

    for (size_t i = 0; i < n; i++) {
        k = crlf_step(k, data[i]);
        if (k == 4)
            return i + 1;
    }
    return n;
}

void frames_http_feed(struct frames *f, const uint8_t *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        f->crlf = crlf_step(f->crlf, data[i]);
        if (f->crlf == 4)
            f->crlf = 0;
    }
}

/* The frame's header is complete: on to its payload (or the next). */
static void header_done(struct frames *f)
{
    f->payload = f->len;
    f->state = f->payload ? AT_PAYLOAD : AT_FIRST;
}

void frames_websocket(struct frames *f, const uint8_t *data, size_t n,
                      struct frames_seen *seen)
{
    size_t i = 0, start = 0;
    bool started_here = false;

    memset(seen, 0, sizeof *seen);
    seen->ok_len = n;
    while (i < n) {
        uint8_t c = data[i];
        switch (f->state) {
        case AT_FIRST:
            start = i;
            started_here = true;
            if ((c & 0x0f) == 0x9 || (c & 0x0f) == 0xa)
                seen->control++;
            f->state = AT_SECOND;
            i++;
            break;
        case AT_SECOND:
            if (!(c & 0x80)) {
                seen->unmasked = true;
                seen->ok_len = started_here ? start : 0;
                return;
            }
            f->len = c & 0x7f;
            f->need = f->len == 126 ? 2 : f->len == 127 ? 8 : 0;
            if (f->need)
                f->len = 0;
            f->state = f->need ? AT_LENGTH : AT_MASK;
            if (!f->need)
                f->need = 4;
            i++;
            break;
        case AT_LENGTH:
            f->len = f->len << 8 | c;
            if (--f->need == 0) {
                f->state = AT_MASK;
                f->need = 4;
            }
            i++;
            break;
        case AT_MASK:
            if (--f->need == 0)
                header_done(f);
            i++;
            break;
        case AT_PAYLOAD: {
            uint64_t take = n - i < f->payload ? n - i : f->payload;
            i += (size_t)take;
            f->payload -= take;
            if (!f->payload)
                f->state = AT_FIRST;
            break;
        }
        }
    }
}
