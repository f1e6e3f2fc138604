/*
 * proto_moved.c - the `moved` message, written straight into a buffer
 * without jansson (see proto_write_moved in proto.h).
 */
#include <string.h>

#include "proto.h"

/* A literal at o (its size known when compiling: no strlen, no call). */
#define PUT_LIT(o, lit) \
    (memcpy((o), (lit), sizeof(lit) - 1), (o) + sizeof(lit) - 1)

/* The longest a JSON integer of int64_t is: "-9223372036854775808". */
#define JSON_INT_MAX 20

static char *put_json_int(char *o, int64_t v)
{
    char b[JSON_INT_MAX], *p = b + sizeof b;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    memcpy(o, p, (size_t)(b + sizeof b - p));
    return o + (b + sizeof b - p);
}

/* The bytes a JSON string holds as they are: not '"', '\\' or a control
 * character (jansson leaves '/', DEL and UTF-8 as they are, too). */
static const unsigned char json_plain[256] = {
#define ROW16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v
    ROW16(0), ROW16(0), /* 0x00-0x1f */
    1,        1,        0,        1,        1,        1,
    1,        1,        1,        1,        1,        1,
    1,        1,        1,        1, /* 0x22 '"' */
    ROW16(1), ROW16(1), 1,        1,        1,        1,
    1,        1,        1,        1,        1,        1,
    1,        1,        0,        1,        1,        1, /* 0x5c '\\' */
    ROW16(1), ROW16(1), ROW16(1), ROW16(1), ROW16(1), ROW16(1),
    ROW16(1), ROW16(1), ROW16(1), ROW16(1),
#undef ROW16
};

/* s as a JSON string at o, escaped as jansson escapes it: at most 2 + 6
 * bytes a byte of s. */
static char *put_json_string(char *o, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";

    *o++ = '"';
    for (;;) {
        const char *run = s;
        unsigned char c;
        while (json_plain[(unsigned char)*s])
            s++;
        memcpy(o, run, (size_t)(s - run));
        o += s - run;
        if (!(c = (unsigned char)*s++))
            break;
        *o++ = '\\';
        switch (c) {
        case '"':
        case '\\':
            *o++ = (char)c;
            break;
        case '\b':
            *o++ = 'b';
            break;
        case '\f':
            *o++ = 'f';
            break;
        case '\n':
            *o++ = 'n';
            break;
        case '\r':
            *o++ = 'r';
            break;
        case '\t':
            *o++ = 't';
            break;
        default:
            o = PUT_LIT(o, "u00");
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    *o++ = '"';
    return o;
}

static char *put_color_or_null(char *o, int color)
{
    if (color < 0)
        return PUT_LIT(o, "null");
    return put_json_string(o, proto_color_name(color));
}

/* A list of moves as UCI text, which needs no escaping: at most 8 bytes a
 * move ("e7e8q",) and 2 more. */
static char *put_uci_list(char *o, const move_t *moves, size_t n)
{
    *o++ = '[';
    for (size_t i = 0; i < n; i++) {
        *o++ = '"';
        o = notation_uci_put(moves[i], o);
        *o++ = '"';
        *o++ = ',';
    }
    if (n)
        o--; /* the last comma */
    *o++ = ']';
    return o;
}

size_t proto_moved_size(const struct proto_moved *m)
{
    /* the literals, six integers and two colours come to under 390, and
     * the opening's literals to 30 */
    size_t opening = m->opening_eco ? 30 + 6 * (strlen(m->opening_eco) +
                                                strlen(m->opening_name))
                                    : 0;
    return 420 + 6 * (strlen(m->game) + strlen(m->uci) + strlen(m->san)) +
           FEN_MAX + 8 * (m->n_legal + m->n_claim) + opening;
}

/* The message sent on every move, to every player and spectator: written
 * straight into the buffer the recipients share, the same bytes jansson's
 * compact, ordered output would be (test_proto compares the two); through
 * jansson it cost one allocation per legal move, the top of the server's
 * profile, and through a growing string a length check and a strlen per
 * piece. */
size_t proto_write_moved(const struct proto_moved *m, char *out)
{
    char *o = out;

    o = PUT_LIT(o, "{\"t\":\"moved\",\"game\":");
    o = put_json_string(o, m->game);
    o = PUT_LIT(o, ",\"ply\":");
    o = put_json_int(o, m->ply);
    o = PUT_LIT(o, ",\"uci\":");
    o = put_json_string(o, m->uci);
    o = PUT_LIT(o, ",\"san\":");
    o = put_json_string(o, m->san);
    o = PUT_LIT(o, ",\"fen\":\"");
    o += board_to_fen(m->board, o); /* needs no escaping (board.h) */
    o = m->check ? PUT_LIT(o, "\",\"check\":true")
                 : PUT_LIT(o, "\",\"check\":false");
    o = PUT_LIT(o, ",\"clocks\":{\"white_ms\":");
    o = put_json_int(o, m->clocks.white_ms);
    o = PUT_LIT(o, ",\"black_ms\":");
    o = put_json_int(o, m->clocks.black_ms);
    o = PUT_LIT(o, ",\"running\":");
    o = put_color_or_null(o, m->clocks.running);
    o = PUT_LIT(o, "},\"first_move_ms\":");
    o = m->first_move_ms < 0 ? PUT_LIT(o, "null")
                             : put_json_int(o, m->first_move_ms);
    o = PUT_LIT(o, ",\"lag_ms\":");
    o = put_json_int(o, m->lag_ms);
    o = PUT_LIT(o, ",\"rtt_ms\":");
    o = m->rtt_ms > 0 ? put_json_int(o, m->rtt_ms) : PUT_LIT(o, "null");
    o = PUT_LIT(o, ",\"draw_offer\":");
    o = put_color_or_null(o, m->draw_offer);
    o = PUT_LIT(o, ",\"legal\":");
    o = put_uci_list(o, m->legal, m->n_legal);
    o = m->claimable ? PUT_LIT(o, ",\"claimable\":true")
                     : PUT_LIT(o, ",\"claimable\":false");
    o = PUT_LIT(o, ",\"claim_moves\":");
    o = put_uci_list(o, m->claim_moves, m->n_claim);
    if (m->opening_eco) { /* only in the move that changed it */
        o = PUT_LIT(o, ",\"opening\":{\"eco\":");
        o = put_json_string(o, m->opening_eco);
        o = PUT_LIT(o, ",\"name\":");
        o = put_json_string(o, m->opening_name);
        *o++ = '}';
    }
    *o++ = '}';
    *o = '\0';
    return (size_t)(o - out);
}
