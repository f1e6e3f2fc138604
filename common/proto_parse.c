/*
 * proto_parse.c - client messages from JSON (see proto.h).
 *
 * Parsing follows the protocol's check order exactly: JSON, "t", the type,
 * authentication, the fields (unknown, missing, mistyped), the clock. The
 * checks that need game state (no_such_game onwards) belong to the server.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apitoken.h"
#include "dead.h"
#include "ending.h"
#include "movegen.h"
#include "proto.h"
#include "proto_internal.h"

/* Which optional fields each type takes, beyond "t" and "id": one bit
 * each in a field set (64 bits: room for new fields). */
typedef uint64_t field_set;
#define F_NAME ((field_set)1 << 0)
#define F_TOKEN ((field_set)1 << 1)
#define F_CLOCK ((field_set)1 << 2)
#define F_COLOR ((field_set)1 << 3)
#define F_GAME ((field_set)1 << 4)
#define F_UCI ((field_set)1 << 5)
#define F_PLY ((field_set)1 << 6)
#define F_FEN ((field_set)1 << 7)
#define F_USERNAME ((field_set)1 << 8)
#define F_PASSWORD ((field_set)1 << 9)
#define F_EVERYWHERE ((field_set)1 << 10)
#define F_RATED ((field_set)1 << 11)
#define F_RATING_RANGE ((field_set)1 << 12)
#define F_SETTINGS ((field_set)1 << 13)
#define F_SEEK ((field_set)1 << 14)
#define F_LEVEL ((field_set)1 << 15)
#define F_TO ((field_set)1 << 16)
#define F_CHALLENGE ((field_set)1 << 17)
#define F_REASON ((field_set)1 << 18)
#define F_DESCRIPTION ((field_set)1 << 19)
#define F_SCOPES ((field_set)1 << 20)
#define F_TOKEN_ID ((field_set)1 << 21)
#define F_ADVANCE ((field_set)1 << 22)
#define F_EVENT ((field_set)1 << 23)
#define F_DURATION ((field_set)1 << 24)
#define F_START_IN ((field_set)1 << 25)
#define F_ROOM ((field_set)1 << 26)
#define F_TEXT ((field_set)1 << 27)
#define F_ROUNDS ((field_set)1 << 28)
#define F_INTERVAL ((field_set)1 << 29)
#define F_ACTION ((field_set)1 << 30)
#define F_AT ((field_set)1 << 31)
#define F_RESULT ((field_set)1 << 32)
#define F_BERSERK ((field_set)1 << 34)
#define F_CONDITIONS ((field_set)1 << 35)
#define F_PAIRS ((field_set)1 << 38)
#define F_PAGE ((field_set)1 << 44)
#define F_STREAKS ((field_set)1 << 45)

static const struct {
    const char *name;
    field_set allowed;  /* fields it may carry */
    field_set required; /* fields it must carry */
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
    [PROTO_T_COMPUTER] = {"computer", F_LEVEL | F_CLOCK | F_COLOR | F_FEN,
                          F_LEVEL | F_CLOCK},
    [PROTO_T_TAKEBACK] = {"takeback", F_GAME, F_GAME},
    [PROTO_T_TAKEBACK_ACCEPT] = {"takeback_accept", F_GAME, F_GAME},
    [PROTO_T_TAKEBACK_DECLINE] = {"takeback_decline", F_GAME, F_GAME},
    [PROTO_T_GIVE_TIME] = {"give_time", F_GAME, F_GAME},
    [PROTO_T_CHALLENGE] = {"challenge", F_TO | F_CLOCK | F_COLOR | F_RATED,
                           F_TO | F_CLOCK},
    [PROTO_T_CHALLENGE_ACCEPT] = {"challenge_accept", F_CHALLENGE,
                                  F_CHALLENGE},
    [PROTO_T_CHALLENGE_DECLINE] = {"challenge_decline",
                                   F_CHALLENGE | F_REASON, F_CHALLENGE},
    [PROTO_T_CHALLENGE_CANCEL] = {"challenge_cancel", F_CHALLENGE,
                                  F_CHALLENGE},
    [PROTO_T_CHALLENGES] = {"challenges", 0, 0},
    [PROTO_T_ANALYSE] = {"analyse", F_GAME, F_GAME},
    [PROTO_T_ANALYSIS] = {"analysis", F_GAME, F_GAME},
    [PROTO_T_TOKEN_CREATE] = {"token_create", F_DESCRIPTION | F_SCOPES,
                              F_SCOPES},
    [PROTO_T_TOKEN_LIST] = {"token_list", 0, 0},
    [PROTO_T_TOKEN_REVOKE] = {"token_revoke", F_TOKEN_ID, F_TOKEN_ID},
    [PROTO_T_MY_GAMES] = {"my_games", 0, 0},
    [PROTO_T_TEST_CLOCK] = {"test_clock", F_ADVANCE, F_ADVANCE},
    [PROTO_T_ARENA_CREATE] = {"arena_create",
                              F_NAME | F_CLOCK | F_DURATION | F_START_IN |
                                  F_BERSERK | F_STREAKS | F_CONDITIONS,
                              F_NAME | F_CLOCK | F_DURATION},
    [PROTO_T_ARENA_JOIN] = {"arena_join", F_EVENT | F_PASSWORD, F_EVENT},
    [PROTO_T_ARENA_WITHDRAW] = {"arena_withdraw", F_EVENT, F_EVENT},
    [PROTO_T_ARENA_LIST] = {"arena_list", 0, 0},
    [PROTO_T_ARENA_WATCH] = {"arena_watch", F_EVENT | F_PAGE, F_EVENT},
    [PROTO_T_ARENA_UNWATCH] = {"arena_unwatch", 0, 0},
    [PROTO_T_BERSERK] = {"berserk", F_GAME, F_GAME},
    [PROTO_T_CHAT] = {"chat", F_GAME | F_EVENT | F_ROOM | F_TEXT,
                      F_ROOM | F_TEXT},
    [PROTO_T_BLOCK] = {"block", F_TO, F_TO},
    [PROTO_T_UNBLOCK] = {"unblock", F_TO, F_TO},
    [PROTO_T_BLOCKS] = {"blocks", 0, 0},
    [PROTO_T_REPORT] = {"report", F_TO | F_REASON | F_TEXT,
                        F_TO | F_REASON | F_TEXT},
    [PROTO_T_SWISS_CREATE] = {"swiss_create",
                              F_NAME | F_CLOCK | F_ROUNDS | F_INTERVAL |
                                  F_START_IN | F_CONDITIONS,
                              F_NAME | F_CLOCK | F_ROUNDS},
    [PROTO_T_SWISS_JOIN] = {"swiss_join", F_EVENT | F_PASSWORD, F_EVENT},
    [PROTO_T_SWISS_WITHDRAW] = {"swiss_withdraw", F_EVENT, F_EVENT},
    [PROTO_T_SWISS_LIST] = {"swiss_list", 0, 0},
    [PROTO_T_SWISS_WATCH] = {"swiss_watch", F_EVENT | F_PAGE, F_EVENT},
    [PROTO_T_SWISS_UNWATCH] = {"swiss_unwatch", 0, 0},
    [PROTO_T_SWISS_START] = {"swiss_start", F_EVENT, F_EVENT},
    [PROTO_T_SWISS_TRF] = {"swiss_trf", F_EVENT, F_EVENT},
    [PROTO_T_MOD_REPORTS] = {"mod_reports", 0, 0},
    [PROTO_T_MOD_ACTION] = {"mod_action",
                            F_TO | F_ACTION | F_TEXT | F_DURATION | F_REASON,
                            F_TO | F_ACTION | F_TEXT},
    [PROTO_T_SWISS_PAUSE] = {"swiss_pause", F_EVENT, F_EVENT},
    [PROTO_T_SWISS_RESUME] = {"swiss_resume", F_EVENT, F_EVENT},
    [PROTO_T_SWISS_TERMINATE] = {"swiss_terminate", F_EVENT, F_EVENT},
    [PROTO_T_SWISS_REMOVE] = {"swiss_remove", F_EVENT | F_TO, F_EVENT | F_TO},
    [PROTO_T_SWISS_FORBID] = {"swiss_forbid", F_EVENT | F_PAIRS,
                              F_EVENT | F_PAIRS},
    [PROTO_T_SWISS_PAIR] = {"swiss_pair", F_EVENT | F_PAIRS,
                            F_EVENT | F_PAIRS},
    [PROTO_T_ARENA_START] = {"arena_start", F_EVENT, F_EVENT},
    [PROTO_T_ARENA_TERMINATE] = {"arena_terminate", F_EVENT, F_EVENT},
    [PROTO_T_ARENA_RESULTS] = {"arena_results", F_EVENT, F_EVENT},
    [PROTO_T_SWISS_RESULTS] = {"swiss_results", F_EVENT, F_EVENT},
    [PROTO_T_MOD_MAINTENANCE] = {"mod_maintenance", F_START_IN | F_TEXT,
                                 F_TEXT},
    [PROTO_T_MOD_PLAYER] = {"mod_player", F_TO, F_TO},
    [PROTO_T_MOD_GAME] = {"mod_game", F_GAME | F_RESULT | F_TEXT,
                          F_GAME | F_RESULT | F_TEXT},
    [PROTO_T_MOD_CHAT_DELETE] = {"mod_chat_delete",
                                 F_GAME | F_EVENT | F_ROOM | F_TO | F_AT |
                                     F_TEXT,
                                 F_ROOM | F_TO | F_AT | F_TEXT},
};

static const struct {
    const char *key;
    field_set flag;
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
    {"level", F_LEVEL},
    {"to", F_TO},
    {"challenge", F_CHALLENGE},
    {"reason", F_REASON},
    {"description", F_DESCRIPTION},
    {"scopes", F_SCOPES},
    {"token_id", F_TOKEN_ID},
    {"advance_s", F_ADVANCE},
    {"event", F_EVENT},
    {"duration_s", F_DURATION},
    {"start_in_s", F_START_IN},
    {"room", F_ROOM},
    {"text", F_TEXT},
    {"rounds", F_ROUNDS},
    {"interval_s", F_INTERVAL},
    {"action", F_ACTION},
    {"at", F_AT},
    {"result", F_RESULT},
    {"berserk", F_BERSERK},
    {"streaks", F_STREAKS},
    {"conditions", F_CONDITIONS},
    {"pairs", F_PAIRS},
    {"page", F_PAGE},
};

const char *proto_type_name(enum proto_type type)
{
    if (type < 0 || type >= PROTO_T_COUNT)
        return "";
    return types[type].name;
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
        if (klen != strlen(key) ||
            !proto_key_chars(key, PROTO_SETTINGS_KEY_MAX))
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
/* The fields present (*present: their flags): every one allowed for
 * m's type, every required one there. 0, or -1 with *e. */
static int check_keys(json_t *root, const struct proto_msg *m, bool id_ok,
                      field_set *present, struct proto_error *e)
{
    field_set allowed = types[m->type].allowed;
    field_set required = types[m->type].required;
    const char *key;
    json_t *v;

    *present = 0;
    if (!id_ok)
        return fail(e, PROTO_BAD_FIELD, "%s",
                    "id: must be a string of at most 64 bytes or an "
                    "integer of magnitude below 2^53");
    json_object_foreach(root, key, v)
    {
        field_set flag = 0;
        if (!strcmp(key, "t") || !strcmp(key, "id"))
            continue;
        for (size_t i = 0; i < sizeof field_keys / sizeof *field_keys; i++)
            if (!strcmp(key, field_keys[i].key))
                flag = field_keys[i].flag;
        if (!(flag & allowed))
            return fail(e, PROTO_BAD_FIELD, "unknown field '%.60s'", key);
        *present |= flag;
    }
    for (size_t i = 0; i < sizeof field_keys / sizeof *field_keys; i++)
        if ((required & field_keys[i].flag) &&
            !(*present & field_keys[i].flag))
            return fail(e, PROTO_BAD_FIELD, "%s: missing", field_keys[i].key);

    return 0;
}

/* name, token, color, game: in that order. */
static int parse_who_and_where(json_t *root, struct proto_msg *m,
                               field_set present, struct proto_error *e)
{
    json_t *v;

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
    return 0;
}

/* uci, ply, fen. */
static int parse_move_fields(json_t *root, struct proto_msg *m,
                             field_set present, struct proto_error *e)
{
    json_t *v;

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
    return 0;
}

/* username, password, everywhere. */
static int parse_account_fields(json_t *root, struct proto_msg *m,
                                field_set present, struct proto_error *e)
{
    json_t *v;

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
    return 0;
}

/* *out = root's integer `key`, from 1 to max; else bad_field. */
static int int_field(json_t *root, const char *key, int max, int *out,
                     struct proto_error *e)
{
    json_t *v = json_object_get(root, key);
    char msg[PROTO_MSG_MAX];

    if (!json_is_integer(v) || json_integer_value(v) < 1 ||
        json_integer_value(v) > max) {
        snprintf(msg, sizeof msg, "%s: an integer from 1 to %d", key, max);
        return fail(e, PROTO_BAD_FIELD, "%s", msg);
    }
    *out = (int)json_integer_value(v);
    return 0;
}

/* rated, rating_range, settings, seek, level, advance_s. */
static int parse_seek_fields(json_t *root, struct proto_msg *m,
                             field_set present, struct proto_error *e)
{
    json_t *v;

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
    if ((present & F_LEVEL) &&
        int_field(root, "level", PROTO_AI_LEVELS, &m->level, e) < 0)
        return -1;
    if ((present & F_ADVANCE) &&
        int_field(root, "advance_s", PROTO_TEST_ADVANCE_MAX_S, &m->advance_s,
                  e) < 0)
        return -1;
    return 0;
}

/* to, challenge, reason. */
static int parse_challenge_fields(json_t *root, struct proto_msg *m,
                                  field_set present, struct proto_error *e)
{
    char reason[16];

    if (present & F_TO) {
        if (get_string(root, "to", m->to, sizeof m->to, e) < 0 ||
            !proto_key_valid(m->to))
            return fail(
                e, PROTO_BAD_FIELD, "%s",
                "to: a player's PID or name, 1-32 of A-Z a-z 0-9 _ -");
    }
    if (present & F_CHALLENGE) {
        if (get_string(root, "challenge", m->challenge, sizeof m->challenge,
                       e) < 0 ||
            !proto_key_valid(m->challenge))
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "challenge: 1-32 of A-Z a-z 0-9 _ -");
    }
    if (m->type == PROTO_T_MOD_ACTION && !(present & F_REASON))
        m->reason = -1;
    if (m->type == PROTO_T_MOD_CHAT_DELETE)
        m->action = PROTO_MOD_CHAT_DELETE;
    if (present & F_RESULT) {
        enum ending_result r;
        if (ending_result_find(
                json_string_value(json_object_get(root, "result")), &r) < 0)
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "result: \"1-0\", \"0-1\", \"1/2-1/2\" or \"*\"");
        m->result = (int)r;
    }
    if (present & F_AT) {
        json_t *v = json_object_get(root, "at");
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "at: a chat line's time, Unix ms");
        m->at_ms = (int64_t)json_integer_value(v);
    }
    if (present & F_ACTION) {
        const char *a = json_string_value(json_object_get(root, "action"));
        /* (a chat line's delete is a command of its own) */
        for (m->action = 0; a && m->action < PROTO_MOD_CHAT_DELETE;
             m->action++)
            if (!strcmp(a, proto_mod_action_name(m->action)))
                break;
        if (m->action == PROTO_MOD_CHAT_DELETE || !a)
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "action: warn, mute, unmute, close, engine, "
                        "unengine, close_account, reopen_account or "
                        "disconnect");
    }
    if ((present & F_REASON) &&
        (m->type == PROTO_T_REPORT || m->type == PROTO_T_MOD_ACTION)) {
        const char *r = json_string_value(json_object_get(root, "reason"));
        for (m->reason = 0; r && m->reason < PROTO_REPORT_REASONS;
             m->reason++)
            if (!strcmp(r, proto_report_reason_name(m->reason)))
                return 0;
        return fail(e, PROTO_BAD_FIELD, "%s",
                    "reason: cheat, stall, boost, abuse, spam, username or "
                    "other");
    }
    if (present & F_REASON) {
        json_t *v = json_object_get(root, "reason");
        if (!json_is_string(v) || json_string_length(v) >= sizeof reason ||
            (m->reason = proto_decline_parse(json_string_value(v))) < 0)
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "reason: generic, later, tooFast, tooSlow, "
                        "timeControl, rated, casual, standard, variant, "
                        "noBot or onlyBot");
    }
    return 0;
}

/* token_create's scopes: an array of lichess's scope names (apitoken.h),
 * each known, into m->scopes. */
static int take_scopes(json_t *v, struct proto_msg *m, struct proto_error *e)
{
    char why[PROTO_MSG_MAX];
    size_t i;
    json_t *x;

    if (!json_is_array(v) || json_array_size(v) > 32)
        return fail(e, PROTO_BAD_FIELD, "%s",
                    "scopes: an array of at most 32 scope names");
    json_array_foreach(v, i, x)
    {
        unsigned bit;
        if (!json_is_string(x))
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "scopes: every scope is a string");
        bit = apitoken_scope_bit(json_string_value(x), json_string_length(x));
        if (!bit) {
            char known[APITOKEN_SCOPES_TEXT_MAX + 1];
            apitoken_scopes_format((1u << apitoken_scope_count()) - 1, known,
                                   sizeof known);
            snprintf(why, sizeof why,
                     "scopes: unknown scope '%.40s' (known: %.100s)",
                     json_string_value(x), known);
            return fail(e, PROTO_BAD_FIELD, "%s", why);
        }
        m->scopes |= bit;
    }
    return 0;
}

/* description, scopes, token_id. */
static int parse_token_fields(json_t *root, struct proto_msg *m,
                              field_set present, struct proto_error *e)
{
    if ((present & F_DESCRIPTION) &&
        get_string(root, "description", m->description, sizeof m->description,
                   e) < 0)
        return fail(e, PROTO_BAD_FIELD, "%s",
                    "description: a string of at most 100 bytes");
    if ((present & F_SCOPES) &&
        take_scopes(json_object_get(root, "scopes"), m, e) < 0)
        return -1;
    if ((present & F_TOKEN_ID) && (get_string(root, "token_id", m->token_id,
                                              sizeof m->token_id, e) < 0 ||
                                   !proto_key_valid(m->token_id)))
        return fail(e, PROTO_BAD_FIELD, "%s",
                    "token_id: 1-16 of A-Z a-z 0-9 _ -");
    return 0;
}

/* rounds, interval_s (swiss_create). */
/* "pairs": [[PID, PID]...], at most PROTO_SWISS_PAIRS_MAX; in swiss_pair
 * the second may be null (a bye). */
static int take_pairs(json_t *v, struct proto_msg *m, struct proto_error *e)
{
    bool bye = m->type == PROTO_T_SWISS_PAIR;
    size_t i;
    json_t *p;

    if (!json_is_array(v) || json_array_size(v) > PROTO_SWISS_PAIRS_MAX)
        return fail(e, PROTO_BAD_FIELD, "%s",
                    "pairs: an array of at most 64 pairs");
    json_array_foreach(v, i, p)
    {
        json_t *a = json_array_get(p, 0), *b = json_array_get(p, 1);
        const char *x = json_string_value(a), *y = json_string_value(b);
        if (!json_is_array(p) || json_array_size(p) != 2 || !x ||
            !proto_key_valid(x) || (y && !proto_key_valid(y)) ||
            (!y && !(bye && json_is_null(b))))
            return fail(e, PROTO_BAD_FIELD, "%s",
                        bye ? "pairs: each [PID, PID or null], a PID 1-32 "
                              "of A-Z a-z 0-9 _ -"
                            : "pairs: each [PID, PID], a PID 1-32 of A-Z "
                              "a-z 0-9 _ -");
        snprintf(m->pairs[i][0], sizeof m->pairs[i][0], "%s", x);
        snprintf(m->pairs[i][1], sizeof m->pairs[i][1], "%s", y ? y : "");
    }
    m->npairs = (int)i;
    return 0;
}

static int parse_swiss_fields(json_t *root, struct proto_msg *m,
                              field_set present, struct proto_error *e)
{
    json_t *v;

    if (present & F_ROUNDS) {
        v = json_object_get(root, "rounds");
        if (!json_is_integer(v) || json_integer_value(v) < 1 ||
            json_integer_value(v) > PROTO_SWISS_ROUNDS_MAX)
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "rounds: an integer from 1 to 30");
        m->rounds = (int)json_integer_value(v);
    }
    if (present & F_INTERVAL) {
        v = json_object_get(root, "interval_s");
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > PROTO_SWISS_INTERVAL_MAX)
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "interval_s: an integer from 0 to 3600");
        m->interval_s = (int)json_integer_value(v);
    }
    if (present & F_PAIRS)
        return take_pairs(json_object_get(root, "pairs"), m, e);
    return 0;
}

/* event, duration_s, start_in_s (the arena's and the Swiss's). */
static int parse_arena_fields(json_t *root, struct proto_msg *m,
                              field_set present, struct proto_error *e)
{
    json_t *v;

    if (present & F_EVENT) {
        if (get_string(root, "event", m->event, sizeof m->event, e) < 0 ||
            !proto_key_valid(m->event))
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "event: 1-32 of A-Z a-z 0-9 _ -");
    }
    if (present & F_DURATION) {
        v = json_object_get(root, "duration_s");
        if (!json_is_integer(v) || json_integer_value(v) < 10 ||
            json_integer_value(v) > PROTO_ARENA_DURATION_MAX)
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "duration_s: an integer from 10 to 86400");
        m->duration_s = (int)json_integer_value(v);
    }
    if (present & F_START_IN) {
        v = json_object_get(root, "start_in_s");
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            json_integer_value(v) > PROTO_ARENA_START_IN_MAX)
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "start_in_s: an integer from 0 to 604800");
        m->start_in_s = (int)json_integer_value(v);
    } else if (m->type == PROTO_T_SWISS_CREATE ||
               m->type == PROTO_T_MOD_MAINTENANCE) {
        m->start_in_s = -1; /* the creator starts it; a cancel */
    }
    if ((present & F_PAGE) &&
        int_field(root, "page", PROTO_STANDINGS_PAGES, &m->page, e) < 0)
        return -1;
    return parse_swiss_fields(root, m, present, e);
}

/* A condition's integer: 0 (absent) or lo..hi. */
static int entry_int(json_t *c, const char *key, int lo, int hi, int *out,
                     struct proto_error *e)
{
    json_t *v = json_object_get(c, key);
    char msg[80];

    if (!v)
        return 0;
    snprintf(msg, sizeof msg, "conditions.%s: an integer from %d to %d", key,
             lo, hi);
    if (!json_is_integer(v) || json_integer_value(v) < lo ||
        json_integer_value(v) > hi)
        return fail(e, PROTO_BAD_FIELD, "%s", msg);
    *out = (int)json_integer_value(v);
    return 0;
}

/* berserk (arena_create's), conditions (arena_create's, swiss_create's). */
static int parse_entry_fields(json_t *root, struct proto_msg *m,
                              field_set present, struct proto_error *e)
{
    static const char *const keys[] = {"rating_min",      "rating_max",
                                       "rated_games_min", "accounts_only",
                                       "password",        "bots"};
    struct proto_entry *x = &m->entry;
    const char *key;
    json_t *c, *v;

    if (present & F_BERSERK) {
        v = json_object_get(root, "berserk");
        if (!json_is_boolean(v))
            return fail(e, PROTO_BAD_FIELD, "%s", "berserk: true or false");
        m->no_berserk = json_is_false(v);
    }
    if (present & F_STREAKS) {
        v = json_object_get(root, "streaks");
        if (!json_is_boolean(v))
            return fail(e, PROTO_BAD_FIELD, "%s", "streaks: true or false");
        m->no_streaks = json_is_false(v);
    }
    if (!(present & F_CONDITIONS))
        return 0;
    c = json_object_get(root, "conditions");
    if (!json_is_object(c))
        return fail(e, PROTO_BAD_FIELD, "%s", "conditions: an object");
    json_object_foreach(c, key, v)
    {
        size_t k = 0;
        while (k < sizeof keys / sizeof *keys && strcmp(keys[k], key))
            k++;
        if (k == sizeof keys / sizeof *keys)
            return fail(e, PROTO_BAD_FIELD, "conditions: unknown key %.40s",
                        key);
    }
    if (entry_int(c, "rating_min", 1, PROTO_RATING_MAX, &x->rating_min, e) ||
        entry_int(c, "rating_max", 1, PROTO_RATING_MAX, &x->rating_max, e))
        return -1;
    if (x->rating_min && x->rating_max && x->rating_min > x->rating_max)
        return fail(e, PROTO_BAD_FIELD, "%s",
                    "conditions: rating_min and rating_max are integers "
                    "from 1 to 4000, min <= max");
    if (entry_int(c, "rated_games_min", 1, PROTO_ENTRY_GAMES_MAX,
                  &x->rated_games_min, e))
        return -1;
    if ((v = json_object_get(c, "accounts_only"))) {
        if (!json_is_boolean(v))
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "conditions.accounts_only: true or false");
        x->accounts_only = json_is_true(v);
    }
    if ((v = json_object_get(c, "bots"))) {
        if (!json_is_boolean(v))
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "conditions.bots: true or false");
        x->bots = json_is_true(v);
    }
    if (json_object_get(c, "password") &&
        (get_string(c, "password", x->password, sizeof x->password, e) < 0 ||
         !proto_key_valid(x->password)))
        return fail(e, PROTO_BAD_FIELD, "%s",
                    "conditions.password: 1-32 of A-Z a-z 0-9 _ -");
    return 0;
}

/* room, text (chat). */
static int parse_chat_fields(json_t *root, struct proto_msg *m,
                             field_set present, struct proto_error *e)
{
    json_t *v;
    const char *room;

    if (present & F_ROOM) {
        room = json_string_value(json_object_get(root, "room"));
        if (room && !strcmp(room, "player"))
            m->room = PROTO_ROOM_PLAYER;
        else if (room && !strcmp(room, "spectator"))
            m->room = PROTO_ROOM_SPECTATOR;
        else if (room && !strcmp(room, "lobby"))
            m->room = PROTO_ROOM_LOBBY;
        else if (room && !strcmp(room, "event"))
            m->room = PROTO_ROOM_EVENT;
        else
            return fail(e, PROTO_BAD_FIELD, "%s",
                        "room: \"player\", \"spectator\", \"lobby\" or "
                        "\"event\"");
        /* a game's room is keyed by game, an event's by event, the
         * lobby's by neither */
        field_set key = m->room == PROTO_ROOM_LOBBY   ? 0
                        : m->room == PROTO_ROOM_EVENT ? F_EVENT
                                                      : F_GAME;
        if ((key & F_GAME) && !(present & F_GAME))
            return fail(e, PROTO_BAD_FIELD, "%s", "game: missing");
        if ((key & F_EVENT) && !(present & F_EVENT))
            return fail(e, PROTO_BAD_FIELD, "%s", "event: missing");
        if ((present & (F_GAME | F_EVENT)) & ~key)
            return fail(e, PROTO_BAD_FIELD, "%s",
                        present & F_GAME & ~key ? "game: not in this room"
                                                : "event: not in this room");
    }
    if (present & F_TEXT) {
        v = json_object_get(root, "text");
        if (!json_is_string(v))
            return fail(e, PROTO_BAD_FIELD, "%s", "text: must be a string");
        bool long_text = m->type == PROTO_T_REPORT ||
                         m->type == PROTO_T_MOD_ACTION ||
                         m->type == PROTO_T_MOD_CHAT_DELETE ||
                         m->type == PROTO_T_MOD_GAME;
        size_t chars = long_text ? PROTO_REPORT_CHARS : PROTO_CHAT_CHARS;
        if (json_string_length(v) > 4 * chars)
            return fail(e, PROTO_BAD_FIELD,
                        long_text ? "text: at most 500 characters%s"
                                  : "text: at most 140 characters%s",
                        "");
        if (proto_text_check(json_string_value(v), json_string_length(v),
                             chars, e) < 0)
            return -1;
        memcpy(m->text, json_string_value(v), json_string_length(v) + 1);
    }
    return 0;
}

/* Every field of m's type, checked in the protocol's order. */
static int parse_fields(json_t *root, struct proto_msg *m, bool id_ok,
                        struct proto_error *e)
{
    field_set present;

    if (check_keys(root, m, id_ok, &present, e) < 0 ||
        parse_who_and_where(root, m, present, e) < 0 ||
        parse_move_fields(root, m, present, e) < 0 ||
        parse_account_fields(root, m, present, e) < 0 ||
        parse_seek_fields(root, m, present, e) < 0 ||
        parse_challenge_fields(root, m, present, e) < 0 ||
        parse_token_fields(root, m, present, e) < 0 ||
        parse_arena_fields(root, m, present, e) < 0 ||
        parse_entry_fields(root, m, present, e) < 0 ||
        parse_chat_fields(root, m, present, e) < 0)
        return -1;
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
