/*
 * loadgen_msg.c - parse server messages with jansson (see loadgen_msg.h).
 */
#include "loadgen_msg.h"

#include <jansson.h>
#include <string.h>

int lg_msg_error_index(const char *code)
{
    for (int i = 0; i < LG_ERR_PROTOCOL_CODES; i++)
        if (!strcmp(code, proto_code_name((enum proto_code)i)))
            return i;
    return LG_ERR_UNKNOWN;
}

const char *lg_msg_error_name(int index)
{
    if (index < 0 || index >= LG_ERR_PROTOCOL_CODES)
        return "unknown";
    return proto_code_name((enum proto_code)index);
}

static const struct {
    const char *name;
    enum lg_msg_type type;
} types[] = {
    {"moved", LG_MSG_MOVED},           {"state", LG_MSG_STATE},
    {"game_start", LG_MSG_GAME_START}, {"game_end", LG_MSG_GAME_END},
    {"welcome", LG_MSG_WELCOME},       {"invited", LG_MSG_INVITED},
    {"error", LG_MSG_ERROR},           {"shutdown", LG_MSG_SHUTDOWN},
};

static void get_legal(json_t *o, struct lg_msg *m)
{
    json_t *list = json_object_get(o, "legal"), *mv;
    size_t i;

    if (!json_is_array(list))
        return;
    json_array_foreach(list, i, mv)
    {
        const char *s = json_string_value(mv);
        if (!s || strlen(s) > 5 || m->nlegal == LG_MSG_MAX_LEGAL)
            continue;
        strcpy(m->legal[m->nlegal++], s);
    }
}

static void msg_reset(struct lg_msg *m)
{
    m->type = LG_MSG_OTHER;
    m->game[0] = '\0';
    m->ply = -1;
    m->you_white = -1;
    m->white_to_move = -1;
    m->started = false;
    m->nlegal = 0;
    m->error = LG_ERR_UNKNOWN;
    m->has_id = false;
    m->id = 0;
}

static enum lg_msg_type type_of(const char *t, size_t len)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strlen(types[i].name) == len && !memcmp(t, types[i].name, len))
            return types[i].type;
    return LG_MSG_OTHER;
}

int lg_msg_parse_jansson(const char *text, size_t len, struct lg_msg *m)
{
    json_t *o, *v;
    const char *t, *s;

    msg_reset(m);
    o = json_loadb(text, len, 0, NULL);
    if (!json_is_object(o) ||
        !(t = json_string_value(json_object_get(o, "t")))) {
        json_decref(o);
        return -1;
    }
    m->type = type_of(t, strlen(t));
    s = json_string_value(json_object_get(o, "game"));
    if (s && strlen(s) <= LG_MSG_GID_MAX)
        strcpy(m->game, s);
    v = json_object_get(o, "ply");
    if (json_is_integer(v))
        m->ply = (long)json_integer_value(v);
    switch (m->type) {
    case LG_MSG_GAME_START:
        s = json_string_value(json_object_get(o, "you"));
        if (s)
            m->you_white = !strcmp(s, "white");
        break;
    case LG_MSG_STATE:
        s = json_string_value(json_object_get(o, "to_move"));
        if (s)
            m->white_to_move = !strcmp(s, "white");
        s = json_string_value(json_object_get(o, "status"));
        m->started = s && !strcmp(s, "started");
        get_legal(o, m);
        break;
    case LG_MSG_MOVED:
        get_legal(o, m);
        break;
    case LG_MSG_ERROR:
        s = json_string_value(json_object_get(o, "code"));
        m->error = lg_msg_error_index(s ? s : "");
        v = json_object_get(o, "id");
        if (json_is_integer(v)) {
            m->has_id = true;
            m->id = (long long)json_integer_value(v);
        }
        break;
    default:
        break;
    }
    json_decref(o);
    return 0;
}

/* ---- the single-pass parser -------------------------------------------- */

struct scan {
    const char *p, *end;
};

static void skip_ws(struct scan *s)
{
    while (s->p < s->end &&
           (*s->p == ' ' || *s->p == '\n' || *s->p == '\t' || *s->p == '\r'))
        s->p++;
}

/* A string at s->p: sets [*b, *e) to its raw contents and *esc when it
 * holds a backslash; leaves s->p after the closing quote. */
static int scan_string(struct scan *s, const char **b, const char **e,
                       bool *esc)
{
    if (s->p >= s->end || *s->p != '"')
        return -1;
    *b = ++s->p;
    *esc = false;
    while (s->p < s->end && *s->p != '"') {
        if ((unsigned char)*s->p < 0x20)
            return -1;
        if (*s->p == '\\') {
            *esc = true;
            if (++s->p == s->end)
                return -1;
        }
        s->p++;
    }
    if (s->p == s->end)
        return -1;
    *e = s->p++;
    return 0;
}

/* Skips any value (nested ones by depth). */
static int skip_value(struct scan *s)
{
    const char *b, *e;
    bool esc;
    int depth = 0;

    skip_ws(s);
    do {
        if (s->p >= s->end)
            return -1;
        switch (*s->p) {
        case '"':
            if (scan_string(s, &b, &e, &esc))
                return -1;
            break;
        case '{':
        case '[':
            depth++;
            s->p++;
            break;
        case '}':
        case ']':
            if (--depth < 0)
                return -1;
            s->p++;
            break;
        case ',':
        case ':':
            if (!depth)
                return -1;
            s->p++;
            break;
        default:
            if (*s->p == ' ' || *s->p == '\n' || *s->p == '\t' ||
                *s->p == '\r') {
                s->p++;
                break;
            }
            /* a number or a literal: up to the next delimiter */
            if (!((*s->p >= '0' && *s->p <= '9') || *s->p == '-' ||
                  *s->p == 't' || *s->p == 'f' || *s->p == 'n'))
                return -1;
            while (s->p < s->end && *s->p != ',' && *s->p != '}' &&
                   *s->p != ']' && *s->p != ' ' && *s->p != '\n')
                s->p++;
            break;
        }
    } while (depth);
    return 0;
}

/* A string value copied into out (cap bytes with the terminator); -1 when
 * it is no string, has an escape or does not fit: the caller falls back. */
static int get_string(struct scan *s, char *out, size_t cap)
{
    const char *b, *e;
    bool esc;

    if (scan_string(s, &b, &e, &esc) || esc || (size_t)(e - b) >= cap)
        return -1;
    memcpy(out, b, (size_t)(e - b));
    out[e - b] = '\0';
    return 0;
}

/* An integer value; *is_int is false (and the value skipped) for any
 * other JSON value. */
static int get_integer(struct scan *s, long long *v, bool *is_int)
{
    const char *q = s->p;
    bool neg = false;
    long long n = 0;
    int digits = 0;

    *is_int = false;
    if (q < s->end && *q == '-') {
        neg = true;
        q++;
    }
    while (q < s->end && *q >= '0' && *q <= '9' && digits < 18) {
        n = n * 10 + (*q++ - '0');
        digits++;
    }
    if (digits == 18)
        return -1; /* near jansson's overflow rules: let it decide */
    if (!digits || (q < s->end && (*q == '.' || *q == 'e' || *q == 'E')))
        return skip_value(s); /* a real, not an integer */
    s->p = q;
    *v = neg ? -n : n;
    *is_int = true;
    return 0;
}

static int scan_legal(struct scan *s, struct lg_msg *m)
{
    if (s->p >= s->end || *s->p != '[')
        return skip_value(s);
    s->p++;
    skip_ws(s);
    if (s->p < s->end && *s->p == ']') {
        s->p++;
        return 0;
    }
    for (;;) {
        const char *b, *e;
        bool esc;
        skip_ws(s);
        if (s->p < s->end && *s->p == '"') {
            if (scan_string(s, &b, &e, &esc) || esc)
                return -1;
            if (e - b <= 5 && m->nlegal < LG_MSG_MAX_LEGAL) {
                memcpy(m->legal[m->nlegal], b, (size_t)(e - b));
                m->legal[m->nlegal++][e - b] = '\0';
            }
        } else if (skip_value(s)) {
            return -1;
        }
        skip_ws(s);
        if (s->p >= s->end)
            return -1;
        if (*s->p == ']') {
            s->p++;
            return 0;
        }
        if (*s->p++ != ',')
            return -1;
    }
}

int lg_msg_parse_fast(const char *text, size_t len, struct lg_msg *m)
{
    struct scan s = {text, text + len};
    char t[16] = "", str[16];
    bool have_t = false, have_legal = false, is_int;
    const char *lb = NULL, *kb, *ke;
    bool esc;
    long long v;

    msg_reset(m);
    skip_ws(&s);
    if (s.p >= s.end || *s.p++ != '{')
        return -1;
    skip_ws(&s);
    if (s.p < s.end && *s.p == '}')
        return -1; /* no "t" */
    for (;;) {
        size_t kl;
        skip_ws(&s);
        if (scan_string(&s, &kb, &ke, &esc) || esc)
            return -1;
        kl = (size_t)(ke - kb);
        skip_ws(&s);
        if (s.p >= s.end || *s.p++ != ':')
            return -1;
        skip_ws(&s);
#define KEY(name) (kl == sizeof name - 1 && !memcmp(kb, name, kl))
        if (KEY("t")) {
            if (have_t || get_string(&s, t, sizeof t))
                return -1; /* a duplicate or an odd "t": let jansson say */
            have_t = true;
        } else if (KEY("game")) {
            if (s.p < s.end && *s.p == '"') {
                const char *b, *e;
                const char *save = s.p;
                if (scan_string(&s, &b, &e, &esc) || esc)
                    return -1;
                if ((size_t)(e - b) <= LG_MSG_GID_MAX) {
                    s.p = save;
                    if (get_string(&s, m->game, sizeof m->game))
                        return -1;
                }
            } else if (skip_value(&s)) {
                return -1;
            }
        } else if (KEY("ply")) {
            if (get_integer(&s, &v, &is_int))
                return -1;
            if (is_int)
                m->ply = (long)v;
        } else if (KEY("id")) {
            if (get_integer(&s, &v, &is_int))
                return -1;
            if (is_int) {
                m->has_id = true;
                m->id = v;
            }
        } else if (KEY("legal")) {
            if (have_legal)
                return -1;
            have_legal = true;
            lb = s.p; /* kept: only state and moved use it */
            if (skip_value(&s))
                return -1;
        } else if (KEY("you") || KEY("to_move") || KEY("status") ||
                   KEY("code")) {
            if (s.p < s.end && *s.p == '"') {
                const char *b, *e;
                if (scan_string(&s, &b, &e, &esc))
                    return -1;
                if (esc)
                    return -1; /* jansson would decode it */
                if ((size_t)(e - b) >= sizeof str) {
                    str[0] = '\0'; /* too long to be a name we know */
                } else {
                    memcpy(str, b, (size_t)(e - b));
                    str[e - b] = '\0';
                }
                if (KEY("you"))
                    m->you_white = !strcmp(str, "white");
                else if (KEY("to_move"))
                    m->white_to_move = !strcmp(str, "white");
                else if (KEY("status"))
                    m->started = !strcmp(str, "started");
                else
                    m->error = lg_msg_error_index(str);
            } else if (skip_value(&s)) {
                return -1;
            }
        } else if (skip_value(&s)) {
            return -1;
        }
#undef KEY
        skip_ws(&s);
        if (s.p >= s.end)
            return -1;
        if (*s.p == '}')
            break;
        if (*s.p++ != ',')
            return -1;
    }
    s.p++;
    skip_ws(&s);
    if (s.p != s.end || !have_t)
        return -1;
    m->type = type_of(t, strlen(t));
    /* fields jansson reads only for some types */
    if (m->type != LG_MSG_GAME_START)
        m->you_white = -1;
    if (m->type != LG_MSG_STATE) {
        m->white_to_move = -1;
        m->started = false;
    }
    if (m->type != LG_MSG_ERROR) {
        m->error = LG_ERR_UNKNOWN;
        m->has_id = false;
        m->id = 0;
    }
    if (lb && (m->type == LG_MSG_STATE || m->type == LG_MSG_MOVED)) {
        struct scan l = {lb, s.end};
        if (scan_legal(&l, m))
            return -1;
    }
    return 0;
}

int lg_msg_parse(const char *text, size_t len, struct lg_msg *m)
{
    if (lg_msg_parse_fast(text, len, m) == 0)
        return 0;
    return lg_msg_parse_jansson(text, len, m);
}
