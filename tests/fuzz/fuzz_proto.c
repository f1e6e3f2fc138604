/*
 * fuzz_proto.c - fuzz target for proto_parse, the client message parser.
 *
 * Input: the first byte's low bit says whether the connection has sent
 * hello; the rest is the message text (any bytes, NULs included). The
 * parser must return 0 with a typed message or -1 with one of the error
 * codes that belong to parsing and a message that renders as an `error`
 * reply (so the client always gets its precise error). A message it
 * accepts is checked against the input read independently with jansson:
 * the type name is exact, every key is one the type takes, every required
 * field is there, and every field holds exactly what the input said and
 * is within the protocol's ranges. An `id` must echo back as it came.
 * proto_parse must agree with proto_parse_json (jansson alone) exactly.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "dead.h"
#include "fuzz.h"
#include "movegen.h"
#include "proto.h"

/* Keys each type takes besides "t" and "id", and which it requires. */
static const struct {
    const char *allowed[5];
    const char *required[3];
} type_keys[PROTO_T_COUNT] = {
    [PROTO_T_HELLO] = {{"name", "token"}, {NULL}},
    [PROTO_T_PING] = {{NULL}, {NULL}},
    [PROTO_T_SEEK] = {{"clock", "color", "rated", "rating_range"}, {"clock"}},
    [PROTO_T_CANCEL_SEEK] = {{NULL}, {NULL}},
    [PROTO_T_INVITE] = {{"clock", "color", "fen", "rated"}, {"clock"}},
    [PROTO_T_JOIN] = {{"game"}, {"game"}},
    [PROTO_T_MOVE] = {{"game", "uci", "ply"}, {"game", "uci", "ply"}},
    [PROTO_T_RESIGN] = {{"game"}, {"game"}},
    [PROTO_T_LEAVE] = {{"game"}, {"game"}},
    [PROTO_T_ABORT] = {{"game"}, {"game"}},
    [PROTO_T_DRAW_OFFER] = {{"game"}, {"game"}},
    [PROTO_T_DRAW_ACCEPT] = {{"game"}, {"game"}},
    [PROTO_T_DRAW_DECLINE] = {{"game"}, {"game"}},
    [PROTO_T_DRAW_CLAIM] = {{"game", "uci", "ply"}, {"game"}},
    [PROTO_T_SYNC] = {{"game"}, {"game"}},
    [PROTO_T_WATCH] = {{"game"}, {"game"}},
    [PROTO_T_UNWATCH] = {{"game"}, {"game"}},
    [PROTO_T_REMATCH] = {{"game"}, {"game"}},
    [PROTO_T_REMATCH_DECLINE] = {{"game"}, {"game"}},
    [PROTO_T_REGISTER] = {{"username", "password"}, {"username", "password"}},
    [PROTO_T_LOGIN] = {{"username", "password"}, {"username", "password"}},
    [PROTO_T_LOGOUT] = {{"everywhere"}, {NULL}},
    [PROTO_T_SETTINGS] = {{"settings"}, {"settings"}},
    [PROTO_T_LOBBY_WATCH] = {{NULL}, {NULL}},
    [PROTO_T_LOBBY_UNWATCH] = {{NULL}, {NULL}},
    [PROTO_T_ACCEPT] = {{"seek"}, {"seek"}},
    [PROTO_T_COMPUTER] = {{"level", "clock", "color", "fen"},
                          {"level", "clock"}},
    [PROTO_T_TAKEBACK] = {{"game"}, {"game"}},
    [PROTO_T_TAKEBACK_ACCEPT] = {{"game"}, {"game"}},
    [PROTO_T_TAKEBACK_DECLINE] = {{"game"}, {"game"}},
    [PROTO_T_GIVE_TIME] = {{"game"}, {"game"}},
    [PROTO_T_MY_GAMES] = {{NULL}, {NULL}},
    [PROTO_T_TEST_CLOCK] = {{"advance_s"}, {"advance_s"}},
    [PROTO_T_ARENA_CREATE] = {{"name", "clock", "duration_s", "start_in_s"},
                              {"name", "clock", "duration_s"}},
    [PROTO_T_ARENA_JOIN] = {{"event"}, {"event"}},
    [PROTO_T_ARENA_WITHDRAW] = {{"event"}, {"event"}},
    [PROTO_T_ARENA_LIST] = {{NULL}, {NULL}},
    [PROTO_T_ARENA_WATCH] = {{"event"}, {"event"}},
    [PROTO_T_ARENA_UNWATCH] = {{NULL}, {NULL}},
    [PROTO_T_CHAT] = {{"game", "room", "text"}, {"game", "room", "text"}},
};

static bool in_list(const char *const *list, size_t n, const char *key,
                    size_t len)
{
    for (size_t i = 0; i < n && list[i]; i++)
        if (strlen(list[i]) == len && !memcmp(list[i], key, len))
            return true;
    return false;
}

/* True when string value v is exactly the C string s (no hidden NUL). */
static bool str_equals(json_t *v, const char *s)
{
    return json_is_string(v) && json_string_length(v) == strlen(s) &&
           !memcmp(json_string_value(v), s, strlen(s));
}

/* The id as the parser kept it equals the input's valid id. */
static void check_id(json_t *root, const struct proto_id *id)
{
    json_t *v = json_object_get(root, "id");

    FUZZ_CHECK(id->kind >= 0 && id->kind <= 2, "id kind %d", id->kind);
    if (id->kind == 1)
        FUZZ_CHECK(json_is_string(v) && json_string_length(v) == id->len &&
                       id->len <= PROTO_ID_MAX &&
                       !memcmp(json_string_value(v), id->str, id->len),
                   "string id differs from the input");
    if (id->kind == 2)
        FUZZ_CHECK(json_is_integer(v) &&
                       json_integer_value(v) == (json_int_t)id->num,
                   "integer id differs from the input");
}

/* The rendered reply parses as JSON and echoes the id exactly. */
static json_t *check_render(char *text, const struct proto_id *id)
{
    json_error_t jerr;
    json_t *o, *v;

    FUZZ_CHECK(text != NULL, "rendering returned NULL");
    o = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    FUZZ_CHECK(json_is_object(o), "rendered '%s' is not an object", text);
    v = json_object_get(o, "id");
    if (id->kind == 0)
        FUZZ_CHECK(v == NULL, "an id that was not valid was echoed");
    else
        check_id(o, id);
    free(text);
    return o;
}

static void check_error(const struct proto_msg *m,
                        const struct proto_error *e)
{
    json_t *o;

    FUZZ_CHECK(e->code == PROTO_BAD_JSON || e->code == PROTO_BAD_FIELD ||
                   e->code == PROTO_UNKNOWN_TYPE ||
                   e->code == PROTO_UNAUTHENTICATED ||
                   e->code == PROTO_BAD_CLOCK,
               "code %d (%s) is not a parse error", e->code,
               proto_code_name(e->code));
    FUZZ_CHECK(memchr(e->msg, 0, sizeof e->msg) && e->msg[0],
               "error text empty or unterminated");
    o = check_render(proto_render_error(e->code, e->msg, &m->id), &m->id);
    FUZZ_CHECK(str_equals(json_object_get(o, "t"), "error") &&
                   str_equals(json_object_get(o, "code"),
                              proto_code_name(e->code)) &&
                   str_equals(json_object_get(o, "msg"), e->msg),
               "rendered error differs for '%s'", e->msg);
    json_decref(o);
}

static void check_clock(json_t *c, const struct clock_spec *s)
{
    FUZZ_CHECK(clock_spec_valid(s), "clock out of range");
    if (s->per_move) {
        FUZZ_CHECK(json_object_size(c) == 2 &&
                       str_equals(json_object_get(c, "type"), "per_move") &&
                       json_integer_value(json_object_get(c, "per_move_s")) ==
                           s->per_move_s,
                   "per_move clock differs from the input");
    } else {
        FUZZ_CHECK(json_object_size(c) == 3 &&
                       str_equals(json_object_get(c, "type"), "fischer") &&
                       json_integer_value(json_object_get(c, "initial_s")) ==
                           s->initial_s &&
                       json_integer_value(json_object_get(
                           c, "increment_s")) == s->increment_s,
                   "fischer clock differs from the input");
    }
}

static void check_fen(json_t *v, const struct proto_msg *m)
{
    struct board b;

    FUZZ_CHECK(json_is_string(v), "fen not a string");
    FUZZ_CHECK(board_from_fen(&b, json_string_value(v)) == FEN_OK,
               "accepted fen that the rules core rejects");
    FUZZ_CHECK(board_from_fen(&b, m->fen) == FEN_OK &&
                   !memcmp(&b, &m->start, sizeof b),
               "normalised fen '%s' differs from the position", m->fen);
    FUZZ_CHECK(movegen_has_legal(&b) && !dead_is_dead(&b) && b.halfmove < 150,
               "accepted fen '%s' that cannot start a game", m->fen);
}

/* The settings kept are the input's object, within the protocol's
 * limits (proto.h), as compact JSON. */
static void check_settings(json_t *v, const struct proto_msg *m)
{
    size_t n = strnlen(m->settings, sizeof m->settings);
    json_t *kept = json_loads(m->settings, JSON_REJECT_DUPLICATES, NULL);
    const char *key;
    json_t *x;

    FUZZ_CHECK(n <= PROTO_SETTINGS_MAX && json_is_object(kept) &&
                   json_equal(kept, v),
               "settings '%s' differ from the input", m->settings);
    FUZZ_CHECK(json_object_size(v) <= PROTO_SETTINGS_KEYS, "%zu keys",
               json_object_size(v));
    json_object_foreach(v, key, x)
    {
        FUZZ_CHECK(strlen(key) >= 1 && strlen(key) <= PROTO_SETTINGS_KEY_MAX,
                   "settings key '%s'", key);
        FUZZ_CHECK(json_is_boolean(x) || json_is_integer(x) ||
                       (json_is_string(x) &&
                        json_string_length(x) <= PROTO_SETTINGS_STRING_MAX),
                   "settings value of '%s'", key);
    }
    json_decref(kept);
}

static void check_message(json_t *root, const struct proto_msg *m,
                          bool authed)
{
    const char *key;
    size_t len;
    json_t *v;

    FUZZ_CHECK(m->type > PROTO_T_NONE && m->type < PROTO_T_COUNT, "type %d",
               m->type);
    FUZZ_CHECK(authed || m->type == PROTO_T_HELLO ||
                   m->type == PROTO_T_PING || m->type == PROTO_T_LOGIN,
               "%s accepted before hello", proto_type_name(m->type));
    FUZZ_CHECK(
        str_equals(json_object_get(root, "t"), proto_type_name(m->type)),
        "\"t\" is not exactly '%s'", proto_type_name(m->type));
    check_id(root, &m->id);
    FUZZ_CHECK(!json_object_get(root, "id") || m->id.kind != 0,
               "accepted with an invalid id");
    json_object_keylen_foreach(root, key, len, v)
    {
        FUZZ_CHECK((len == 1 && key[0] == 't') ||
                       (len == 2 && !memcmp(key, "id", 2)) ||
                       in_list(type_keys[m->type].allowed, 4, key, len),
                   "%s accepted key '%.*s'", proto_type_name(m->type),
                   (int)len, key);
    }
    for (size_t i = 0; i < 3 && type_keys[m->type].required[i]; i++)
        FUZZ_CHECK(json_object_get(root, type_keys[m->type].required[i]),
                   "%s accepted without %s", proto_type_name(m->type),
                   type_keys[m->type].required[i]);

    if ((v = json_object_get(root, "name")))
        FUZZ_CHECK(str_equals(v, m->name) && proto_name_valid(m->name),
                   "name '%s'", m->name);
    else
        FUZZ_CHECK(!m->name[0], "name without input");
    if ((v = json_object_get(root, "token")))
        FUZZ_CHECK(str_equals(v, m->token) && m->token[0], "token");
    else
        FUZZ_CHECK(!m->token[0], "token without input");
    if ((v = json_object_get(root, "game")))
        FUZZ_CHECK(str_equals(v, m->game) && proto_key_valid(m->game),
                   "game '%s'", m->game);
    else
        FUZZ_CHECK(!m->game[0], "game without input");
    if ((v = json_object_get(root, "uci")))
        FUZZ_CHECK(str_equals(v, m->uci) && notation_uci_well_formed(m->uci),
                   "uci '%s'", m->uci);
    else
        FUZZ_CHECK(!m->uci[0], "uci without input");
    if ((v = json_object_get(root, "ply")))
        FUZZ_CHECK(json_is_integer(v) && json_integer_value(v) == m->ply &&
                       m->ply >= 0,
                   "ply %d", m->ply);
    else
        FUZZ_CHECK(m->ply == -1, "ply %d without input", m->ply);
    if ((v = json_object_get(root, "color")))
        FUZZ_CHECK((m->color == PROTO_WHITE && str_equals(v, "white")) ||
                       (m->color == PROTO_BLACK && str_equals(v, "black")) ||
                       (m->color == PROTO_RANDOM && str_equals(v, "random")),
                   "color %d", m->color);
    else
        FUZZ_CHECK(m->color == PROTO_RANDOM, "color without input");
    if ((v = json_object_get(root, "clock")))
        check_clock(v, &m->clock);
    if ((v = json_object_get(root, "fen")))
        check_fen(v, m);
    else
        FUZZ_CHECK(!m->fen[0], "fen without input");
    if ((v = json_object_get(root, "username")))
        FUZZ_CHECK(str_equals(v, m->username) &&
                       strlen(m->username) <= PROTO_USERNAME_FIELD_MAX,
                   "username '%s'", m->username);
    else
        FUZZ_CHECK(!m->username[0], "username without input");
    if ((v = json_object_get(root, "password")))
        FUZZ_CHECK(str_equals(v, m->password) &&
                       m->password_len == strlen(m->password) &&
                       m->password_len <= PROTO_PASSWORD_MAX,
                   "password of %zu bytes", m->password_len);
    else
        FUZZ_CHECK(!m->password[0] && !m->password_len,
                   "password without input");
    if ((v = json_object_get(root, "everywhere")))
        FUZZ_CHECK(json_is_boolean(v) && m->everywhere == json_is_true(v),
                   "everywhere");
    else
        FUZZ_CHECK(!m->everywhere, "everywhere without input");
    if ((v = json_object_get(root, "rated")))
        FUZZ_CHECK(json_is_boolean(v) && m->rated == json_is_true(v),
                   "rated");
    else
        FUZZ_CHECK(!m->rated, "rated without input");
    if ((v = json_object_get(root, "rating_range")))
        FUZZ_CHECK(
            m->rated && m->has_range && json_array_size(v) == 2 &&
                json_integer_value(json_array_get(v, 0)) == m->range_lo &&
                json_integer_value(json_array_get(v, 1)) == m->range_hi &&
                0 <= m->range_lo && m->range_lo <= m->range_hi &&
                m->range_hi <= PROTO_RATING_MAX,
            "rating_range");
    else
        FUZZ_CHECK(!m->has_range, "rating_range without input");
    if ((v = json_object_get(root, "settings")))
        check_settings(v, m);
    else
        FUZZ_CHECK(!m->settings[0], "settings without input");
    if ((v = json_object_get(root, "level")))
        FUZZ_CHECK(json_is_integer(v) && json_integer_value(v) == m->level &&
                       m->level >= 1 && m->level <= PROTO_AI_LEVELS,
                   "level %d", m->level);
    else
        FUZZ_CHECK(!m->level, "level without input");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct proto_msg m, m2;
    struct proto_error e, e2;
    json_error_t jerr;
    json_t *root;
    char *text;
    bool authed;
    int rc;

    if (size == 0)
        return 0;
    authed = data[0] & 1;
    /* An exact-size copy with no terminator: the parser takes a length. */
    text = malloc(size - 1 ? size - 1 : 1);
    if (!text)
        abort();
    memcpy(text, data + 1, size - 1);
    rc = proto_parse(text, size - 1, authed, &m, &e);
    FUZZ_CHECK(rc == 0 || rc == -1, "returned %d", rc);
    if (rc < 0) {
        check_error(&m, &e);
    } else {
        FUZZ_CHECK(e.code == PROTO_OK, "success with code %d", e.code);
        root = json_loadb(text, size - 1, JSON_REJECT_DUPLICATES, &jerr);
        FUZZ_CHECK(json_is_object(root), "accepted what is not an object");
        check_message(root, &m, authed);
        json_decref(check_render(proto_render_pong(&m.id), &m.id));
        json_decref(root);
    }
    /* The shortcut for move messages changes nothing: jansson alone gives
     * the same message or the same error. */
    FUZZ_CHECK(proto_parse_json(text, size - 1, authed, &m2, &e2) == rc &&
                   !memcmp(&m, &m2, sizeof m) && !memcmp(&e, &e2, sizeof e),
               "proto_parse and proto_parse_json differ");
    /* What parses before hello parses the same after it. */
    if (rc == 0 && !authed) {
        FUZZ_CHECK(proto_parse(text, size - 1, true, &m2, &e2) == 0 &&
                       !memcmp(&m, &m2, sizeof m),
                   "parses differently once authenticated");
    }
    free(text);
    return 0;
}
