/*
 * proto_scan.c - proto_parse (see proto.h): a plain move message read
 * straight from its bytes, the one a game sends most, without jansson's
 * tree; anything else, and anything unusual in a move, goes to
 * proto_parse_json (proto_parse.c), which gives the same answer.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "notation.h"
#include "proto.h"
#include "proto_internal.h"

/* A cursor over the bytes of a message being read without jansson. */
struct scan {
    const char *p, *end;
};

static void scan_ws(struct scan *s)
{
    while (s->p < s->end &&
           (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

/* A string of printable ASCII without escapes: *str, *n its bytes.
 * False for anything else (left to jansson). */
static bool scan_string(struct scan *s, const char **str, size_t *n)
{
    const char *q;

    if (s->p >= s->end || *s->p != '"')
        return false;
    for (q = s->p + 1; q < s->end && *q != '"'; q++)
        if (*q < 0x20 || *q > 0x7e || *q == '\\')
            return false;
    if (q >= s->end)
        return false;
    *str = s->p + 1;
    *n = (size_t)(q - *str);
    s->p = q + 1;
    return true;
}

/* An integer of at most 15 digits (below 2^53), JSON's form, no fraction
 * or exponent. False for anything else (left to jansson). */
static bool scan_int(struct scan *s, int64_t *out)
{
    bool neg = s->p < s->end && *s->p == '-';
    const char *q = s->p + neg, *digits = q;
    int64_t v = 0;

    while (q < s->end && *q >= '0' && *q <= '9' && q - digits < 16)
        v = v * 10 + (*q++ - '0');
    if (q == digits || q - digits > 15 || (*digits == '0' && q - digits > 1))
        return false;
    if (q < s->end &&
        (*q == '.' || *q == 'e' || *q == 'E' || (*q >= '0' && *q <= '9')))
        return false;
    *out = neg ? -v : v;
    s->p = q;
    return true;
}

/* Copies a string value of n bytes into buf (cap bytes with the NUL). */
static bool take_string(const char *str, size_t n, char *buf, size_t cap)
{
    if (n >= cap)
        return false;
    memcpy(buf, str, n);
    buf[n] = '\0';
    return true;
}

/*
 * Reads the common move message, `{"t":"move","game":G,"uci":U,"ply":N}`
 * with an optional "id", in any key order, when every value is a plain
 * string or integer and every check passes. Returns 0 with *m filled
 * exactly as the jansson path fills it, or 1 when the text is anything
 * else (other types, escapes, errors of any kind): proto_parse_json then
 * reads it and finds the precise error.
 */
static int parse_move_fast(const char *text, size_t len, struct proto_msg *m)
{
    enum { K_T = 1, K_ID = 2, K_GAME = 4, K_UCI = 8, K_PLY = 16 };
    struct scan s = {text, text + len};
    unsigned seen = 0;

    scan_ws(&s);
    if (s.p >= s.end || *s.p++ != '{')
        return 1;
    for (;;) {
        const char *key, *str = NULL;
        size_t klen, n = 0;
        int64_t num = 0;
        unsigned k;
        bool is_str;

        scan_ws(&s);
        if (!scan_string(&s, &key, &klen))
            return 1;
        scan_ws(&s);
        if (s.p >= s.end || *s.p++ != ':')
            return 1;
        scan_ws(&s);
        is_str = s.p < s.end && *s.p == '"';
        if (is_str ? !scan_string(&s, &str, &n) : !scan_int(&s, &num))
            return 1;
#define KEY_IS(lit) (klen == sizeof lit - 1 && !memcmp(key, lit, klen))
        k = KEY_IS("t")      ? K_T
            : KEY_IS("id")   ? K_ID
            : KEY_IS("game") ? K_GAME
            : KEY_IS("uci")  ? K_UCI
            : KEY_IS("ply")  ? K_PLY
                             : 0;
#undef KEY_IS
        if (!k || (seen & k))
            return 1;
        seen |= k;
        if (k == K_T) {
            if (!is_str || n != 4 || memcmp(str, "move", 4))
                return 1;
        } else if (k == K_ID) {
            if (is_str ? n > PROTO_ID_MAX : num <= -ID_INT_LIMIT)
                return 1;
            if (is_str) {
                memcpy(m->id.str, str, n);
                m->id.len = n;
                m->id.kind = 1;
            } else {
                m->id.num = num;
                m->id.kind = 2;
            }
        } else if (k == K_GAME) {
            if (!is_str || !take_string(str, n, m->game, sizeof m->game) ||
                !proto_key_valid(m->game))
                return 1;
        } else if (k == K_UCI) {
            if (!is_str || !take_string(str, n, m->uci, sizeof m->uci) ||
                !notation_uci_well_formed(m->uci))
                return 1;
        } else {
            if (is_str || num < 0 || num > PLY_MAX)
                return 1;
            m->ply = (int)num;
        }
        scan_ws(&s);
        if (s.p < s.end && *s.p == ',') {
            s.p++;
            continue;
        }
        if (s.p >= s.end || *s.p++ != '}')
            return 1;
        break;
    }
    scan_ws(&s);
    if (s.p != s.end ||
        (seen | K_ID) != (K_T | K_ID | K_GAME | K_UCI | K_PLY))
        return 1;
    m->type = PROTO_T_MOVE;
    return 0;
}

int proto_parse(const char *text, size_t len, bool authed,
                struct proto_msg *m, struct proto_error *e)
{
    memset(m, 0, sizeof *m);
    memset(e, 0, sizeof *e);
    m->ply = -1;
    if (authed && parse_move_fast(text, len, m) == 0)
        return 0;
    return proto_parse_json(text, len, authed, m, e);
}
