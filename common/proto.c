/*
 * proto.c - protocol messages to and from JSON (see proto.h).
 *
 * Parsing follows the protocol's check order exactly: JSON, "t", the type,
 * authentication, the fields (unknown, missing, mistyped), the clock. The
 * checks that need game state (no_such_game onwards) belong to the server.
 */
#include "proto.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dead.h"
#include "movegen.h"

static const char *const code_names[PROTO_CODE_COUNT] = {
    [PROTO_OK] = "ok",
    [PROTO_BAD_JSON] = "bad_json",
    [PROTO_BAD_FIELD] = "bad_field",
    [PROTO_UNKNOWN_TYPE] = "unknown_type",
    [PROTO_UNAUTHENTICATED] = "unauthenticated",
    [PROTO_BAD_TOKEN] = "bad_token",
    [PROTO_NO_SUCH_GAME] = "no_such_game",
    [PROTO_NOT_A_PLAYER] = "not_a_player",
    [PROTO_NOT_STARTED] = "not_started",
    [PROTO_GAME_OVER] = "game_over",
    [PROTO_STALE_PLY] = "stale_ply",
    [PROTO_NOT_YOUR_TURN] = "not_your_turn",
    [PROTO_ILLEGAL_MOVE] = "illegal_move",
    [PROTO_BAD_CLOCK] = "bad_clock",
    [PROTO_CLAIM_REJECTED] = "claim_rejected",
    [PROTO_SEAT_TAKEN] = "seat_taken",
    [PROTO_OWN_GAME] = "own_game",
    [PROTO_NO_DRAW_OFFER] = "no_draw_offer",
    [PROTO_ABORT_NOT_ALLOWED] = "abort_not_allowed",
    [PROTO_NO_SEEK] = "no_seek",
    [PROTO_RATE_LIMITED] = "rate_limited",
    [PROTO_TOO_MANY_GAMES] = "too_many_games",
    [PROTO_NO_REMATCH] = "no_rematch",
    [PROTO_BAD_USERNAME] = "bad_username",
    [PROTO_NAME_TAKEN] = "name_taken",
    [PROTO_WEAK_PASSWORD] = "weak_password",
    [PROTO_ALREADY_REGISTERED] = "already_registered",
    [PROTO_BAD_CREDENTIALS] = "bad_credentials",
    [PROTO_RATED_NEEDS_ACCOUNT] = "rated_needs_account",
    [PROTO_NEEDS_ACCOUNT] = "needs_account",
    [PROTO_NO_SUCH_SEEK] = "no_such_seek",
    [PROTO_RATING_OUT_OF_RANGE] = "rating_out_of_range",
};

/* Which optional fields each type takes, beyond "t" and "id". */
enum {
    F_NAME = 1 << 0,
    F_TOKEN = 1 << 1,
    F_CLOCK = 1 << 2,
    F_COLOR = 1 << 3,
    F_GAME = 1 << 4,
    F_UCI = 1 << 5,
    F_PLY = 1 << 6,
    F_FEN = 1 << 7,
    F_USERNAME = 1 << 8,
    F_PASSWORD = 1 << 9,
    F_EVERYWHERE = 1 << 10,
    F_RATED = 1 << 11,
    F_RATING_RANGE = 1 << 12,
    F_SETTINGS = 1 << 13,
    F_SEEK = 1 << 14
};

static const struct {
    const char *name;
    unsigned allowed;  /* fields it may carry */
    unsigned required; /* fields it must carry */
} types[PROTO_T_COUNT] = {
    [PROTO_T_NONE] = {"", 0, 0},
    [PROTO_T_HELLO] = {"hello", F_NAME | F_TOKEN, 0},
    [PROTO_T_PING] = {"ping", 0, 0},
    [PROTO_T_SEEK] = {"seek", F_CLOCK | F_COLOR | F_RATED | F_RATING_RANGE,
                      F_CLOCK},
    [PROTO_T_CANCEL_SEEK] = {"cancel_seek", 0, 0},
    [PROTO_T_INVITE] = {"invite", F_CLOCK | F_COLOR | F_FEN | F_RATED,
                        F_CLOCK},
    [PROTO_T_JOIN] = {"join", F_GAME, F_GAME},
    [PROTO_T_MOVE] = {"move", F_GAME | F_UCI | F_PLY, F_GAME | F_UCI | F_PLY},
    [PROTO_T_RESIGN] = {"resign", F_GAME, F_GAME},
    [PROTO_T_LEAVE] = {"leave", F_GAME, F_GAME},
    [PROTO_T_ABORT] = {"abort", F_GAME, F_GAME},
    [PROTO_T_DRAW_OFFER] = {"draw_offer", F_GAME, F_GAME},
    [PROTO_T_DRAW_ACCEPT] = {"draw_accept", F_GAME, F_GAME},
    [PROTO_T_DRAW_DECLINE] = {"draw_decline", F_GAME, F_GAME},
    [PROTO_T_DRAW_CLAIM] = {"draw_claim", F_GAME | F_UCI | F_PLY, F_GAME},
    [PROTO_T_SYNC] = {"sync", F_GAME, F_GAME},
    [PROTO_T_WATCH] = {"watch", F_GAME, F_GAME},
    [PROTO_T_UNWATCH] = {"unwatch", F_GAME, F_GAME},
    [PROTO_T_REMATCH] = {"rematch", F_GAME, F_GAME},
    [PROTO_T_REMATCH_DECLINE] = {"rematch_decline", F_GAME, F_GAME},
    [PROTO_T_REGISTER] = {"register", F_USERNAME | F_PASSWORD,
                          F_USERNAME | F_PASSWORD},
    [PROTO_T_LOGIN] = {"login", F_USERNAME | F_PASSWORD,
                       F_USERNAME | F_PASSWORD},
    [PROTO_T_LOGOUT] = {"logout", F_EVERYWHERE, 0},
    [PROTO_T_SETTINGS] = {"settings", F_SETTINGS, F_SETTINGS},
    [PROTO_T_LOBBY_WATCH] = {"lobby_watch", 0, 0},
    [PROTO_T_LOBBY_UNWATCH] = {"lobby_unwatch", 0, 0},
    [PROTO_T_ACCEPT] = {"accept", F_SEEK, F_SEEK},
};

static const struct {
    const char *key;
    unsigned flag;
} field_keys[] = {
    {"name", F_NAME},
    {"token", F_TOKEN},
    {"clock", F_CLOCK},
    {"color", F_COLOR},
    {"game", F_GAME},
    {"uci", F_UCI},
    {"ply", F_PLY},
    {"fen", F_FEN},
    {"username", F_USERNAME},
    {"password", F_PASSWORD},
    {"everywhere", F_EVERYWHERE},
    {"rated", F_RATED},
    {"rating_range", F_RATING_RANGE},
    {"settings", F_SETTINGS},
    {"seek", F_SEEK},
};

/* Largest ply a client may name: far beyond any real game. */
#define PLY_MAX 100000
/* The id's integer range: magnitude below 2^53. */
#define ID_INT_LIMIT ((json_int_t)1 << 53)

const char *proto_code_name(enum proto_code code)
{
    if (code < 0 || code >= PROTO_CODE_COUNT)
        return "?";
    return code_names[code];
}

const char *proto_type_name(enum proto_type type)
{
    if (type < 0 || type >= PROTO_T_COUNT)
        return "";
    return types[type].name;
}

const char *proto_color_name(int color)
{
    return color == 1 ? "black" : "white";
}

static bool key_chars(const char *s, size_t max)
{
    size_t n = 0;

    for (; s[n]; n++) {
        char c = s[n];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return false;
    }
    return n >= 1 && n <= max;
}

bool proto_key_valid(const char *s)
{
    return key_chars(s, PROTO_KEY_MAX);
}

bool proto_name_valid(const char *s)
{
    return key_chars(s, PROTO_NAME_MAX);
}

bool proto_username_valid(const char *s)
{
    return key_chars(s, PROTO_USERNAME_MAX) &&
           strlen(s) >= PROTO_USERNAME_MIN;
}

size_t proto_utf8_chars(const char *s, size_t len)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

size_t proto_utf8_prefix(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;

    while (i < len) {
        unsigned c;
        size_t n;
        unsigned min, cp;
        uint64_t w;

        /* ASCII, eight bytes at a time: every message of a move is */
        while (len - i >= sizeof w &&
               (memcpy(&w, p + i, sizeof w), !(w & 0x8080808080808080ull)))
            i += sizeof w;
        if (i == len)
            break;
        c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        if ((c & 0xE0) == 0xC0) {
            n = 1, min = 0x80, cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            n = 2, min = 0x800, cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            n = 3, min = 0x10000, cp = c & 0x07;
        } else {
            return i;
        }
        if (len - i <= n)
            return i;
        for (size_t k = 1; k <= n; k++) {
            if ((p[i + k] & 0xC0) != 0x80)
                return i;
            cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return i;
        i += n + 1;
    }
    return i;
}

/* Sets the error; the text quotes client bytes, cut short at a length
 * or by jansson, so it is cut back to valid UTF-8 before it can be sent. */
static int fail(struct proto_error *e, enum proto_code code, const char *fmt,
                const char *arg)
{
    e->code = code;
    snprintf(e->msg, sizeof e->msg, fmt, arg);
    e->msg[proto_utf8_prefix(e->msg, strlen(e->msg))] = '\0';
    return -1;
}

/* Keeps a valid id for echoing; returns false when id is present but
 * invalid. */
static bool take_id(json_t *v, struct proto_id *id)
{
    memset(id, 0, sizeof *id);
    if (!v)
        return true;
    if (json_is_string(v)) {
        size_t n = json_string_length(v);
        if (n > PROTO_ID_MAX || memchr(json_string_value(v), 0, n))
            return false;
        memcpy(id->str, json_string_value(v), n);
        id->len = n;
        id->kind = 1;
        return true;
    }
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x <= -ID_INT_LIMIT || x >= ID_INT_LIMIT)
            return false;
        id->num = x;
        id->kind = 2;
        return true;
    }
    return false;
}

/* A string field copied into buf (cap bytes with the terminator). */
static int get_string(json_t *obj, const char *key, char *buf, size_t cap,
                      struct proto_error *e)
{
    json_t *v = json_object_get(obj, key);
    size_t n;

    if (!json_is_string(v))
        return fail(e, PROTO_BAD_FIELD, "%s: must be a string", key);
    n = json_string_length(v);
    if (n >= cap || memchr(json_string_value(v), 0, n))
        return fail(e, PROTO_BAD_FIELD, "%s: too long", key);
    memcpy(buf, json_string_value(v), n + 1);
    return 0;
}

static int check_fen(struct proto_msg *m, struct proto_error *e)
{
    int rc = board_from_fen(&m->start, m->fen);

    if (rc != FEN_OK)
        return fail(e, PROTO_BAD_FIELD, "fen: %s", board_fen_strerror(rc));
    if (!movegen_has_legal(&m->start))
        return fail(e, PROTO_BAD_FIELD, "fen: %s",
                    "the side to move has no legal move");
    if (dead_is_dead(&m->start))
        return fail(e, PROTO_BAD_FIELD, "fen: %s",
                    "the position is dead (no side can ever checkmate)");
    if (m->start.halfmove >= 150)
        return fail(e, PROTO_BAD_FIELD, "fen: %s",
                    "the halfmove clock is 150 or more (75-move rule)");
    board_to_fen(&m->start, m->fen); /* normalised: effective en passant */
    return 0;
}

/* Checks a settings object (see PROTO_SETTINGS_KEYS in proto.h) and
 * writes it, compact and in its key order, into out (PROTO_SETTINGS_MAX
 * bytes and a NUL). */
static int take_settings(json_t *v, char *out, struct proto_error *e)
{
    const char *key;
    size_t klen, n;
    json_t *x;

    out[0] = '\0';
    if (!json_is_object(v))
        return fail(e, PROTO_BAD_FIELD, "%s", "settings: must be an object");
    if (json_object_size(v) > PROTO_SETTINGS_KEYS)
        return fail(e, PROTO_BAD_FIELD, "%s", "settings: at most 32 keys");
    json_object_keylen_foreach(v, key, klen, x)
    {
        if (klen != strlen(key) || !key_chars(key, PROTO_SETTINGS_KEY_MAX))
            return fail(e, PROTO_BAD_FIELD,
                        "settings: key '%.40s' is not 1-32 of A-Z a-z "
                        "0-9 _ -",
                        key);
        if (json_is_boolean(x))
            continue;
        if (json_is_integer(x) && json_integer_value(x) > -ID_INT_LIMIT &&
            json_integer_value(x) < ID_INT_LIMIT)
            continue;
        if (json_is_string(x) &&
            json_string_length(x) <= PROTO_SETTINGS_STRING_MAX &&
            !memchr(json_string_value(x), 0, json_string_length(x)))
            continue;
        return fail(e, PROTO_BAD_FIELD,
                    "settings.%.40s: true, false, an integer or a string "
                    "of at most 64 bytes",
                    key);
    }
    n = json_dumpb(v, out, PROTO_SETTINGS_MAX,
                   JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (n == 0 || n > PROTO_SETTINGS_MAX) {
        memset(out, 0, PROTO_SETTINGS_MAX + 1);
        return fail(e, PROTO_BAD_FIELD, "%s",
                    "settings: at most 2048 bytes as JSON");
    }
    out[n] = '\0';
    return 0;
}

/* True when v is exactly the string s. */
static bool str_is(json_t *v, const char *s)
{
    return json_is_string(v) && json_string_length(v) == strlen(s) &&
           !strcmp(json_string_value(v), s);
}

/* The fields after the type is known, in a fixed order. */
static int parse_fields(json_t *root, struct proto_msg *m, bool id_ok,
                        struct proto_error *e)
{
    unsigned allowed = types[m->type].allowed;
    unsigned required = types[m->type].required;
    unsigned present = 0;
    const char *key;
    json_t *v;

    if (!id_ok)
        return fail(e, PROTO_BAD_FIELD, "%s",
                    "id: must be a string of at most 64 bytes or an "
                    "integer of magnitude below 2^53");
    json_object_foreach(root, key, v)
    {
        unsigned flag = 0;
        if (!strcmp(key, "t") || !strcmp(key, "id"))
            continue;
        for (size_t i = 0; i < sizeof field_keys / sizeof *field_keys; i++)
            if (!strcmp(key, field_keys[i].key))
                flag = field_keys[i].flag;
        if (!(flag & allowed))
            return fail(e, PROTO_BAD_FIELD, "unknown field '%.60s'", key);
        present |= flag;
    }
    for (size_t i = 0; i < sizeof field_keys / sizeof *field_keys; i++)
        if ((required & field_keys[i].flag) &&
            !(present & field_keys[i].flag))
            return fail(e, PROTO_BAD_FIELD, "%s: missing", field_keys[i].key);

    if (present & F_NAME) {
        if (get_string(root, "name", m->name, sizeof m->name, e) < 0 ||
            !proto_name_valid(m->name))
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "name: 1-20 ASCII letters, digits, '_' or '-'");
    }
    if (present & F_TOKEN) {
        if (get_string(root, "token", m->token, sizeof m->token, e) < 0)
            return -1;
        if (!m->token[0])
            return fail(e, PROTO_BAD_FIELD, "%s", "token: empty");
        if (present & F_NAME)
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "hello takes a name or a token, not both");
    }
    if (present & F_COLOR) {
        v = json_object_get(root, "color");
        if (str_is(v, "white"))
            m->color = PROTO_WHITE;
        else if (str_is(v, "black"))
            m->color = PROTO_BLACK;
        else if (str_is(v, "random"))
            m->color = PROTO_RANDOM;
        else
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "color: \"random\", \"white\" or \"black\"");
    }
    if (present & F_GAME) {
        if (get_string(root, "game", m->game, sizeof m->game, e) < 0 ||
            !proto_key_valid(m->game))
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "game: 1-32 of A-Z a-z 0-9 _ -");
    }
    if (present & F_UCI) {
        if (get_string(root, "uci", m->uci, sizeof m->uci, e) < 0 ||
            !notation_uci_well_formed(m->uci))
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "uci: lowercase from-square, to-square and an "
                        "optional q, r, b or n");
    }
    if (present & F_PLY) {
        v = json_object_get(root, "ply");
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > PLY_MAX)
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "ply: an integer, 0 or more");
        m->ply = (int)json_integer_value(v);
    }
    if (present & F_FEN) {
        if (get_string(root, "fen", m->fen, sizeof m->fen, e) < 0)
            return -1;
        if (check_fen(m, e) < 0)
            return -1;
    }
    if (present & F_USERNAME) {
        v = json_object_get(root, "username");
        if (json_is_string(v) &&
            json_string_length(v) > PROTO_USERNAME_FIELD_MAX)
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "username: at most 64 bytes");
        if (get_string(root, "username", m->username, sizeof m->username, e) <
            0)
            return -1;
    }
    if (present & F_PASSWORD) {
        v = json_object_get(root, "password");
        if (json_is_string(v) && json_string_length(v) > PROTO_PASSWORD_MAX)
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "password: at most 128 bytes");
        if (get_string(root, "password", m->password, sizeof m->password, e) <
            0)
            return -1;
        m->password_len = json_string_length(v);
    }
    if (present & F_EVERYWHERE) {
        v = json_object_get(root, "everywhere");
        if (!json_is_boolean(v))
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "everywhere: true or false");
        m->everywhere = json_is_true(v);
    }
    if (present & F_RATED) {
        v = json_object_get(root, "rated");
        if (!json_is_boolean(v))
            return fail(e, PROTO_BAD_FIELD, "%s", "rated: true or false");
        m->rated = json_is_true(v);
    }
    if (present & F_RATING_RANGE) {
        json_t *lo, *hi;
        v = json_object_get(root, "rating_range");
        lo = json_array_get(v, 0);
        hi = json_array_get(v, 1);
        if (!json_is_array(v) || json_array_size(v) != 2 ||
            !json_is_integer(lo) || !json_is_integer(hi) ||
            json_integer_value(lo) < 0 ||
            json_integer_value(lo) > json_integer_value(hi) ||
            json_integer_value(hi) > PROTO_RATING_MAX)
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "rating_range: [LO,HI], integers with "
                        "0 <= LO <= HI <= 4000");
        if (!m->rated)
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "rating_range: only with \"rated\":true");
        m->has_range = true;
        m->range_lo = (int)json_integer_value(lo);
        m->range_hi = (int)json_integer_value(hi);
    }
    if ((present & F_SETTINGS) &&
        take_settings(json_object_get(root, "settings"), m->settings, e) < 0)
        return -1;
    if (present & F_SEEK) {
        if (get_string(root, "seek", m->seek, sizeof m->seek, e) < 0 ||
            !proto_key_valid(m->seek))
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "seek: 1-32 of A-Z a-z 0-9 _ -");
    }
    return 0;
}

static int clock_int(json_t *c, const char *key, int lo, int hi, int *out,
                     struct proto_error *e)
{
    json_t *v = json_object_get(c, key);

    if (!json_is_integer(v))
        return fail(e, PROTO_BAD_CLOCK,
                    "clock.%s: missing or not an "
                    "integer",
                    key);
    if (json_integer_value(v) < lo || json_integer_value(v) > hi)
        return fail(e, PROTO_BAD_CLOCK, "clock.%s: out of range", key);
    *out = (int)json_integer_value(v);
    return 0;
}

static int parse_clock(json_t *c, struct clock_spec *s, struct proto_error *e)
{
    json_t *type = json_object_get(c, "type");

    memset(s, 0, sizeof *s);
    if (!json_is_object(c))
        return fail(e, PROTO_BAD_CLOCK, "%s", "clock: must be an object");
    if (json_is_string(type) && !strcmp(json_string_value(type), "fischer")) {
        if (json_object_size(c) != 3)
            return fail(e, PROTO_BAD_CLOCK, "%s",
                        "clock: a fischer clock "
                        "has exactly type, initial_s and increment_s");
        if (clock_int(c, "initial_s", 1, CLOCK_INITIAL_MAX_S, &s->initial_s,
                      e) < 0 ||
            clock_int(c, "increment_s", 0, CLOCK_INCREMENT_MAX_S,
                      &s->increment_s, e) < 0)
            return -1;
        return 0;
    }
    if (json_is_string(type) &&
        !strcmp(json_string_value(type), "per_move")) {
        if (json_object_size(c) != 2)
            return fail(e, PROTO_BAD_CLOCK, "%s",
                        "clock: a per_move clock "
                        "has exactly type and per_move_s");
        s->per_move = 1;
        return clock_int(c, "per_move_s", 1, CLOCK_PER_MOVE_MAX_S,
                         &s->per_move_s, e);
    }
    return fail(e, PROTO_BAD_CLOCK, "%s",
                "clock.type: \"fischer\" or \"per_move\"");
}

/* ---- the shortcut for plain move messages ------------------------------ */

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

int proto_parse_json(const char *text, size_t len, bool authed,
                     struct proto_msg *m, struct proto_error *e)
{
    json_error_t jerr;
    json_t *root, *t;
    bool id_ok;
    int rc = -1;

    memset(m, 0, sizeof *m);
    memset(e, 0, sizeof *e);
    m->ply = -1;
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!json_is_object(root)) {
        fail(e, PROTO_BAD_JSON, "not one JSON object: %.120s",
             root ? "another JSON value" : jerr.text);
        goto done;
    }
    id_ok = take_id(json_object_get(root, "id"), &m->id);
    t = json_object_get(root, "t");
    if (!json_is_string(t)) {
        fail(e, PROTO_BAD_FIELD, "%s",
             t ? "t: must be a string" : "t: missing");
        goto done;
    }
    for (int i = 1; i < PROTO_T_COUNT; i++)
        if (!strcmp(json_string_value(t), types[i].name))
            m->type = (enum proto_type)i;
    if (m->type == PROTO_T_NONE) {
        fail(e, PROTO_UNKNOWN_TYPE, "unknown message type '%.60s'",
             json_string_value(t));
        goto done;
    }
    if (!authed && m->type != PROTO_T_HELLO && m->type != PROTO_T_PING &&
        m->type != PROTO_T_LOGIN) {
        fail(e, PROTO_UNAUTHENTICATED, "%s", "send hello first");
        goto done;
    }
    if (parse_fields(root, m, id_ok, e) < 0)
        goto done;
    if ((types[m->type].allowed & F_CLOCK) &&
        parse_clock(json_object_get(root, "clock"), &m->clock, e) < 0)
        goto done;
    rc = 0;
done:
    json_decref(root);
    return rc;
}

/* ---- rendering --------------------------------------------------------- */

static json_t *j_id(const struct proto_id *id)
{
    if (!id || id->kind == 0)
        return NULL;
    if (id->kind == 1)
        return json_stringn(id->str, id->len);
    return json_integer(id->num);
}

static json_t *j_player(const struct proto_player *p)
{
    if (!p || !p->id)
        return json_null();
    if (p->has_rating)
        return json_pack("{s:s,s:s,s:I,s:b}", "id", p->id, "name", p->name,
                         "rating", (json_int_t)p->rating, "provisional",
                         p->provisional);
    return json_pack("{s:s,s:s}", "id", p->id, "name", p->name);
}

/* {"white":{"before":R,"after":R},"black":{...}} */
static json_t *j_change(const struct proto_rating_change *c)
{
    return json_pack(
        "{s:{s:I,s:I},s:{s:I,s:I}}", "white", "before",
        (json_int_t)c->before[0], "after", (json_int_t)c->after[0], "black",
        "before", (json_int_t)c->before[1], "after", (json_int_t)c->after[1]);
}

/* One category's rating as shown: {"rating","rd","games","provisional"}
 * and, with results, "wins", "draws", "losses". */
static json_t *j_rating(const struct proto_rating *r)
{
    json_t *o = json_pack("{s:I,s:I,s:i,s:b}", "rating",
                          (json_int_t)r->rating, "rd", (json_int_t)r->rd,
                          "games", r->games, "provisional", r->provisional);

    if (o && r->results) {
        json_object_set_new(o, "wins", json_integer(r->wins));
        json_object_set_new(o, "draws", json_integer(r->draws));
        json_object_set_new(o, "losses", json_integer(r->losses));
    }
    return o;
}

static json_t *j_ratings(const struct proto_rating *r, size_t n)
{
    json_t *o = json_object();

    for (size_t i = 0; o && i < n; i++)
        json_object_set_new(o, r[i].category, j_rating(&r[i]));
    return o;
}

static json_t *j_clock(const struct clock_spec *c)
{
    if (c->per_move)
        return json_pack("{s:s,s:i}", "type", "per_move", "per_move_s",
                         c->per_move_s);
    return json_pack("{s:s,s:i,s:i}", "type", "fischer", "initial_s",
                     c->initial_s, "increment_s", c->increment_s);
}

static json_t *j_color_or_null(int color)
{
    return color < 0 ? json_null() : json_string(proto_color_name(color));
}

static json_t *j_ms_or_null(int64_t ms)
{
    return ms < 0 ? json_null() : json_integer(ms);
}

static json_t *j_clocks(const struct proto_clocks *c)
{
    return json_pack("{s:I,s:I,s:o}", "white_ms", (json_int_t)c->white_ms,
                     "black_ms", (json_int_t)c->black_ms, "running",
                     j_color_or_null(c->running));
}

static json_t *j_uci_list(const char (*l)[UCI_MAX], size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_string(l[i]));
    return a;
}

static json_t *j_san_list(const char (*l)[SAN_MAX], size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_string(l[i]));
    return a;
}

/* Serialises and releases o; adds the id when given. */
static char *finish(json_t *o, const struct proto_id *id)
{
    char *s;
    json_t *jid = j_id(id);

    if (!o) {
        json_decref(jid);
        return NULL;
    }
    if (jid)
        json_object_set_new(o, "id", jid);
    s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s;
}

char *proto_render_error(enum proto_code code, const char *msg,
                         const struct proto_id *id)
{
    return finish(json_pack("{s:s,s:s,s:s}", "t", "error", "code",
                            proto_code_name(code), "msg", msg),
                  id);
}

/* {"id","name","account"} and, for an account, its "ratings". */
static json_t *j_me(const struct proto_me *p)
{
    json_t *o = json_pack("{s:s,s:s,s:b}", "id", p->id, "name", p->name,
                          "account", p->account);

    if (o && p->account)
        json_object_set_new(o, "ratings",
                            j_ratings(p->ratings, p->n_ratings));
    return o;
}

/* An account's stored settings (struct proto_me), or null. */
static json_t *j_settings(const char *text)
{
    json_t *o = text ? json_loads(text, JSON_REJECT_DUPLICATES, NULL) : NULL;

    if (json_is_object(o))
        return o;
    json_decref(o);
    return json_null();
}

/* Adds an account's "settings" to a welcome or registered. */
static json_t *with_settings(json_t *o, const struct proto_me *p)
{
    if (o && p->account)
        json_object_set_new(o, "settings", j_settings(p->settings));
    return o;
}

char *proto_render_welcome(const struct proto_me *p, const char *token,
                           const char *const *games, size_t n,
                           const struct proto_id *id)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_string(games[i]));
    return finish(
        with_settings(json_pack("{s:s,s:o,s:s,s:o}", "t", "welcome", "player",
                                j_me(p), "token", token, "games", a),
                      p),
        id);
}

char *proto_render_registered(const struct proto_me *p, const char *token,
                              const struct proto_id *id)
{
    return finish(with_settings(json_pack("{s:s,s:o,s:s}", "t", "registered",
                                          "player", j_me(p), "token", token),
                                p),
                  id);
}

char *proto_render_settings_saved(const struct proto_id *id)
{
    return finish(json_pack("{s:s}", "t", "settings_saved"), id);
}

char *proto_render_settings_changed(const char *settings)
{
    json_t *o = settings ? json_loads(settings, 0, NULL) : NULL;

    if (!json_is_object(o)) {
        json_decref(o);
        return NULL;
    }
    return finish(
        json_pack("{s:s,s:o}", "t", "settings_changed", "settings", o), NULL);
}

char *proto_render_logged_out(const struct proto_id *id)
{
    return finish(json_pack("{s:s}", "t", "logged_out"), id);
}

char *proto_render_pong(const struct proto_id *id)
{
    return finish(json_pack("{s:s}", "t", "pong"), id);
}

char *proto_render_seeking(const char *sid, const struct proto_id *id)
{
    return finish(json_pack("{s:s,s:s}", "t", "seeking", "seek", sid), id);
}

char *proto_render_seek_cancelled(const struct proto_id *id)
{
    return finish(json_pack("{s:s}", "t", "seek_cancelled"), id);
}

char *proto_render_invited(const char *gid, const struct proto_id *id)
{
    return finish(json_pack("{s:s,s:s}", "t", "invited", "game", gid), id);
}

char *proto_render_shutdown(void)
{
    return finish(json_pack("{s:s}", "t", "shutdown"), NULL);
}

char *proto_render_store_stall(bool resumed, int64_t stalled_ms)
{
    return finish(json_pack("{s:s,s:I}", "t",
                            resumed ? "store_resumed" : "store_stall",
                            "stalled_ms", (json_int_t)stalled_ms),
                  NULL);
}

char *proto_render_cluster(bool up)
{
    return finish(
        json_pack("{s:s}", "t", up ? "cluster_back" : "cluster_lost"), NULL);
}

char *proto_render_game_start(const char *gid, const struct proto_player *w,
                              const struct proto_player *b,
                              const struct clock_spec *clock, bool rated,
                              int you)
{
    return finish(json_pack("{s:s,s:s,s:o,s:o,s:o,s:b,s:s}", "t",
                            "game_start", "game", gid, "white", j_player(w),
                            "black", j_player(b), "clock", j_clock(clock),
                            "rated", rated, "you", proto_color_name(you)),
                  NULL);
}

char *proto_render_state(const struct proto_state *s,
                         const struct proto_id *id)
{
    json_t *o = json_pack(
        "{s:s,s:s,s:o,s:o,s:o,s:s,s:o,s:o,s:s,s:i,s:s,s:b,s:o,s:o,s:s,s:o,"
        "s:{s:o,s:o},s:o,s:b,s:o}",
        "t", "state", "game", s->game, "white", j_player(&s->white), "black",
        j_player(&s->black), "clock", j_clock(&s->clock), "initial_fen",
        s->initial_fen, "moves", j_uci_list(s->moves, s->n), "san",
        j_san_list(s->san, s->n), "fen", s->fen, "ply", s->ply, "to_move",
        proto_color_name(s->to_move), "check", s->check, "clocks",
        j_clocks(&s->clocks), "first_move_ms", j_ms_or_null(s->first_move_ms),
        "status", s->status, "draw_offer", j_color_or_null(s->draw_offer),
        "gone", "white", j_ms_or_null(s->gone_ms[0]), "black",
        j_ms_or_null(s->gone_ms[1]), "legal",
        j_uci_list(s->legal, s->n_legal), "claimable", s->claimable,
        "claim_moves", j_uci_list(s->claim_moves, s->n_claim));

    if (!o)
        return NULL;
    if (s->lags) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < s->n; i++)
            json_array_append_new(a, json_integer(s->lags[i]));
        json_object_set_new(o, "lags", a);
    }
    if (s->result)
        json_object_set_new(o, "result", json_string(s->result));
    if (s->reason)
        json_object_set_new(o, "reason", json_string(s->reason));
    json_object_set_new(o, "rated", json_boolean(s->rated));
    if (s->change)
        json_object_set_new(o, "ratings", j_change(s->change));
    if (s->api) {
        json_object_del(o, "t");
        json_object_set_new(o, "created_ms",
                            j_ms_or_null(s->created_ms ? s->created_ms : -1));
        json_object_set_new(o, "started_ms",
                            j_ms_or_null(s->started_ms ? s->started_ms : -1));
        json_object_set_new(o, "ended_ms",
                            j_ms_or_null(s->ended_ms ? s->ended_ms : -1));
    }
    return finish(o, id);
}

/* ---- `moved`, written directly ----------------------------------------- */

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
    /* the literals, five integers and two colours come to under 350 */
    return 400 + 6 * (strlen(m->game) + strlen(m->uci) + strlen(m->san)) +
           FEN_MAX + 8 * (m->n_legal + m->n_claim);
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
    o = PUT_LIT(o, ",\"draw_offer\":");
    o = put_color_or_null(o, m->draw_offer);
    o = PUT_LIT(o, ",\"legal\":");
    o = put_uci_list(o, m->legal, m->n_legal);
    o = m->claimable ? PUT_LIT(o, ",\"claimable\":true")
                     : PUT_LIT(o, ",\"claimable\":false");
    o = PUT_LIT(o, ",\"claim_moves\":");
    o = put_uci_list(o, m->claim_moves, m->n_claim);
    *o++ = '}';
    *o = '\0';
    return (size_t)(o - out);
}

char *proto_render_game_end(const char *gid, enum ending_result result,
                            enum ending_reason reason,
                            const struct proto_rating_change *change)
{
    const struct ending *e = ending_get(reason);
    const char *r = ending_result_name(result);
    json_t *o;

    if (!e || !r)
        return NULL;
    o = json_pack("{s:s,s:s,s:s,s:s}", "t", "game_end", "game", gid, "result",
                  r, "reason", e->name);
    if (o && change)
        json_object_set_new(o, "ratings", j_change(change));
    return finish(o, NULL);
}

char *proto_render_draw(const char *type, const char *gid, int color)
{
    return finish(json_pack("{s:s,s:s,s:s}", "t", type, "game", gid, "color",
                            proto_color_name(color)),
                  NULL);
}

char *proto_render_rematch_declined(const char *gid, int color,
                                    const char *reason)
{
    return finish(json_pack("{s:s,s:s,s:o,s:s}", "t", "rematch_declined",
                            "game", gid, "color",
                            color < 0 ? json_null()
                                      : json_string(proto_color_name(color)),
                            "reason", reason),
                  NULL);
}

char *proto_render_opponent_gone(const char *gid, int color, int64_t grace_ms)
{
    return finish(json_pack("{s:s,s:s,s:s,s:I}", "t", "opponent_gone", "game",
                            gid, "color", proto_color_name(color), "grace_ms",
                            (json_int_t)grace_ms),
                  NULL);
}

char *proto_render_opponent_back(const char *gid, int color)
{
    return finish(json_pack("{s:s,s:s,s:s}", "t", "opponent_back", "game",
                            gid, "color", proto_color_name(color)),
                  NULL);
}

char *proto_render_api_error(const char *code)
{
    return finish(json_pack("{s:s}", "error", code), NULL);
}

char *proto_render_game_list(const struct proto_game_summary *games, size_t n,
                             const char *next)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++) {
        const struct proto_game_summary *g = &games[i];
        json_t *o = json_pack(
            "{s:s,s:o,s:o,s:o,s:s,s:s,s:I,s:b}", "game", g->game, "white",
            j_player(&g->white), "black", j_player(&g->black), "clock",
            j_clock(&g->clock), "result", g->result, "reason", g->reason,
            "ended_ms", (json_int_t)g->ended_ms, "rated", g->rated);
        if (o && g->rated && g->changed)
            json_object_set_new(o, "ratings", j_change(&g->change));
        json_array_append_new(a, o);
    }
    return finish(json_pack("{s:o,s:o}", "games", a, "next",
                            next ? json_string(next) : json_null()),
                  NULL);
}

char *proto_render_profile(const struct proto_me *p)
{
    json_t *o = json_pack("{s:s,s:s,s:b}", "id", p->id, "name", p->name,
                          "account", p->account);
    int w = 0, d = 0, l = 0;

    for (size_t i = 0; i < p->n_ratings; i++) {
        w += p->ratings[i].wins;
        d += p->ratings[i].draws;
        l += p->ratings[i].losses;
    }
    if (o) {
        json_object_set_new(o, "ratings",
                            j_ratings(p->ratings, p->n_ratings));
        json_object_set_new(o, "wins", json_integer(w));
        json_object_set_new(o, "draws", json_integer(d));
        json_object_set_new(o, "losses", json_integer(l));
    }
    return finish(o, NULL);
}

char *proto_render_rating_history(const char *pid, const char *category,
                                  const struct proto_rating_point *points,
                                  size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_pack("{s:I,s:I,s:I}", "ms",
                                           (json_int_t)points[i].ms, "rating",
                                           (json_int_t)points[i].rating, "rd",
                                           (json_int_t)points[i].rd));
    return finish(json_pack("{s:s,s:s,s:o}", "player", pid, "category",
                            category, "points", a),
                  NULL);
}

char *proto_render_leaderboard(const char *category,
                               const struct proto_leader *players, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_pack("{s:s,s:s,s:I,s:I,s:i}", "id",
                                           players[i].id, "name",
                                           players[i].name, "rating",
                                           (json_int_t)players[i].rating,
                                           "rd", (json_int_t)players[i].rd,
                                           "games", players[i].games));
    return finish(json_pack("{s:s,s:o}", "category", category, "players", a),
                  NULL);
}

static const char *color_wish(int c)
{
    return c == PROTO_WHITE ? "white" : c == PROTO_BLACK ? "black" : "random";
}

char *proto_render_lobby(const struct proto_lobby_seek *seeks, size_t ns,
                         const struct proto_lobby_game *games, size_t ng)
{
    json_t *js = json_array(), *jg = json_array();

    for (size_t i = 0; js && i < ns; i++) {
        const struct proto_lobby_seek *k = &seeks[i];
        json_t *o = json_pack("{s:s,s:o,s:o,s:s,s:b}", "seek", k->sid,
                              "player", j_player(&k->player), "clock",
                              j_clock(&k->clock), "color",
                              color_wish(k->color), "rated", k->rated);
        if (o && k->has_range)
            json_object_set_new(o, "rating_range",
                                json_pack("[i,i]", k->lo, k->hi));
        if (!o || json_array_append_new(js, o) < 0) {
            json_decref(js);
            js = NULL;
        }
    }
    for (size_t i = 0; jg && i < ng; i++) {
        const struct proto_lobby_game *g = &games[i];
        if (json_array_append_new(
                jg,
                json_pack("{s:s,s:o,s:o,s:o,s:b,s:i}", "game", g->game,
                          "white", j_player(&g->white), "black",
                          j_player(&g->black), "clock", j_clock(&g->clock),
                          "rated", g->rated, "ply", g->ply)) < 0) {
            json_decref(jg);
            jg = NULL;
        }
    }
    if (!js || !jg) {
        json_decref(js);
        json_decref(jg);
        return NULL;
    }
    return finish(
        json_pack("{s:s,s:o,s:o}", "t", "lobby", "seeks", js, "games", jg),
        NULL);
}

char *proto_render_health(bool ok, int64_t live_games, int64_t connections)
{
    return finish(json_pack("{s:s,s:I,s:I}", "status", ok ? "ok" : "fail",
                            "live_games", (json_int_t)live_games,
                            "connections", (json_int_t)connections),
                  NULL);
}
