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

    /* (a body's bytes end no head) */
    for (size_t i = f->body < n ? f->body : n; i < n; i++) {
        k = crlf_step(k, data[i]);
        if (k == 4)
            return i + 1;
    }
    return n;
}

/* Where in a request's head the next byte is. */
enum {
    H_START,      /* before the request line (empty lines are skipped) */
    H_START_CR,   /* an empty line's CR */
    H_LINE,       /* the request line */
    H_LINE_CR,    /* its CR */
    H_NAME_START, /* a header line's first byte, or the empty line */
    H_NAME,       /* a header's name */
    H_VALUE,      /* its value */
    H_VALUE_CR,   /* its CR */
    H_END_CR,     /* the empty line's CR */
};

/* The headers the framing rules name. */
enum { F_OTHER, F_LENGTH, F_TE, F_HOST };

static int refuse(struct frames *f, int status, const char *why)
{
    f->refused = status;
    f->why = why;
    return status;
}

/* The header whose name ends at the colon. */
static int field_of(const struct frames_head *h)
{
    static const struct {
        const char *name;
        int field;
    } named[] = {{"content-length", F_LENGTH},
                 {"transfer-encoding", F_TE},
                 {"host", F_HOST}};

    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (h->name_len == strlen(named[i].name) &&
            !memcmp(h->name, named[i].name, h->name_len))
            return named[i].field;
    return F_OTHER;
}

/* A byte of the request line. Returns 0 or the refusal's status. */
static int line_byte(struct frames *f, uint8_t c)
{
    struct frames_head *h = &f->head;

    if (c == '\r') {
        h->at = H_LINE_CR;
        return 0;
    }
    if (c == '\n')
        return refuse(f, 400, "bare_lf");
    if (c == '\0')
        return refuse(f, 400, "nul");
    if (h->line_len < sizeof h->method)
        h->method[h->line_len] = (char)c;
    if (++h->line_len > FRAMES_LINE_MAX)
        return refuse(f, 414, "line_too_long");
    if (c == ' ')
        h->spaces++;
    if (h->spaces != 1 || c == ' ')
        return 0;
    /* the target: "%00" would decode to a NUL */
    if (c == '%')
        h->pct = 1;
    else if (c == '0' && h->pct)
        h->pct++;
    else
        h->pct = 0;
    return h->pct > 2 ? refuse(f, 400, "nul") : 0;
}

/* The colon after a header's name. Returns 0 or the refusal's status. */
static int name_end(struct frames *f)
{
    struct frames_head *h = &f->head;

    h->field = field_of(h);
    h->at = H_VALUE;
    switch (h->field) {
    case F_TE:
        return refuse(f, 400, "transfer_encoding");
    case F_LENGTH:
        h->digits = h->nonzero = h->value_end = false;
        return ++h->n_length > 1 ? refuse(f, 400, "two_lengths") : 0;
    case F_HOST:
        return ++h->n_host > 1 ? refuse(f, 400, "two_hosts") : 0;
    default:
        return 0;
    }
}

/* A byte of a header's name. Returns 0 or the refusal's status. */
static int name_byte(struct frames *f, uint8_t c)
{
    struct frames_head *h = &f->head;

    if (c == ':')
        return name_end(f);
    if (c == ' ' || c == '\t')
        return refuse(f, 400, "space_before_colon");
    if (c == '\r' || c == '\n')
        return refuse(f, 400, "no_colon");
    if (c == '\0')
        return refuse(f, 400, "nul");
    if (h->name_len < sizeof h->name)
        h->name[h->name_len] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    h->name_len++;
    return 0;
}

/* A byte of a header's value. Returns 0 or the refusal's status. */
static int value_byte(struct frames *f, uint8_t c)
{
    struct frames_head *h = &f->head;

    if (c == '\r') {
        h->at = H_VALUE_CR;
        return 0;
    }
    if (c == '\n')
        return refuse(f, 400, "bare_lf");
    if (c == '\0')
        return refuse(f, 400, "nul");
    if (h->field != F_LENGTH)
        return 0;
    if (c >= '0' && c <= '9') {
        if (h->value_end)
            return refuse(f, 400, "bad_length");
        h->digits = true;
        h->nonzero |= c != '0';
        if (h->length <= FRAMES_BODY_MAX)
            h->length = h->length * 10 + (uint32_t)(c - '0');
    } else if (c == ' ' || c == '\t') {
        h->value_end = h->digits;
    } else {
        return refuse(f, 400, "bad_length");
    }
    return 0;
}

/* The end of a header line. Returns 0 or the refusal's status. */
static int value_end(struct frames *f)
{
    struct frames_head *h = &f->head;

    h->at = H_NAME_START;
    if (h->field != F_LENGTH)
        return 0;
    if (!h->digits)
        return refuse(f, 400, "bad_length");
    if (!h->nonzero)
        return 0;
    if (memcmp(h->method, "POST ", sizeof h->method))
        return refuse(f, 400, "body");
    return h->length > FRAMES_BODY_MAX ? refuse(f, 413, "body_too_large") : 0;
}

/* One byte of a head. Returns 0 or the refusal's status. */
static int head_byte(struct frames *f, uint8_t c)
{
    struct frames_head *h = &f->head;

    if (++h->len > FRAMES_HEAD_MAX)
        return refuse(f, 431, "head_too_large");
    switch (h->at) {
    case H_START:
        if (c == '\r') {
            h->at = H_START_CR;
            return 0;
        }
        h->at = H_LINE;
        return line_byte(f, c);
    case H_START_CR:
        h->at = H_START;
        return c == '\n' ? 0 : refuse(f, 400, "bare_cr");
    case H_LINE:
        return line_byte(f, c);
    case H_LINE_CR:
        h->at = H_NAME_START;
        return c == '\n' ? 0 : refuse(f, 400, "bare_cr");
    case H_NAME_START:
        if (c == '\r') {
            h->at = H_END_CR;
            return 0;
        }
        if (c == ' ' || c == '\t')
            return refuse(f, 400, "obs_fold");
        if (c == ':')
            return refuse(f, 400, "no_name");
        h->name_len = 0;
        h->at = H_NAME;
        return name_byte(f, c);
    case H_NAME:
        return name_byte(f, c);
    case H_VALUE:
        return value_byte(f, c);
    case H_VALUE_CR:
        return c == '\n' ? value_end(f) : refuse(f, 400, "bare_cr");
    default: /* H_END_CR */
        if (c != '\n')
            return refuse(f, 400, "bare_cr");
        f->body = h->length;     /* (0 but a POST's, checked by value_end) */
        memset(h, 0, sizeof *h); /* the next request's */
        return 0;
    }
}

int frames_http_feed(struct frames *f, const uint8_t *data, size_t n)
{
    for (size_t i = 0; i < n && !f->refused; i++) {
        if (f->body) { /* a POST's body: skipped whole */
            size_t skip = n - i < f->body ? n - i : f->body;
            f->body -= (uint32_t)skip;
            i += skip - 1;
            continue;
        }
        f->crlf = crlf_step(f->crlf, data[i]);
        if (f->crlf == 4)
            f->crlf = 0;
        head_byte(f, data[i]);
    }
    return f->refused;
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
