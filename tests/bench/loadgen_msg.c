/*
 * loadgen_msg.c - parse server messages with jansson (see loadgen_msg.h).
 */
#include "loadgen_msg.h"

#include <jansson.h>
#include <string.h>

static const char *const error_names[LG_ERR_COUNT] = {
    "bad_json", "bad_field", "unknown_type", "unauthenticated", "bad_token",
    "no_such_game", "not_a_player", "not_started", "game_over", "stale_ply",
    "not_your_turn", "illegal_move", "bad_clock", "claim_rejected",
    "seat_taken", "own_game", "no_draw_offer", "abort_not_allowed",
    "no_seek", "rate_limited", "unknown",
};

int lg_msg_error_index(const char *code)
{
    for (int i = 0; i < LG_ERR_PROTOCOL_CODES; i++)
        if (!strcmp(code, error_names[i]))
            return i;
    return LG_ERR_UNKNOWN;
}

const char *lg_msg_error_name(int index)
{
    if (index < 0 || index >= LG_ERR_COUNT)
        return "unknown";
    return error_names[index];
}

static const struct {
    const char *name;
    enum lg_msg_type type;
} types[] = {
    {"moved", LG_MSG_MOVED},         {"state", LG_MSG_STATE},
    {"game_start", LG_MSG_GAME_START}, {"game_end", LG_MSG_GAME_END},
    {"welcome", LG_MSG_WELCOME},     {"invited", LG_MSG_INVITED},
    {"error", LG_MSG_ERROR},         {"shutdown", LG_MSG_SHUTDOWN},
};

static void get_legal(json_t *o, struct lg_msg *m)
{
    json_t *list = json_object_get(o, "legal"), *mv;
    size_t i;

    if (!json_is_array(list))
        return;
    json_array_foreach(list, i, mv) {
        const char *s = json_string_value(mv);
        if (!s || strlen(s) > 5 || m->nlegal == LG_MSG_MAX_LEGAL)
            continue;
        strcpy(m->legal[m->nlegal++], s);
    }
}

int lg_msg_parse(const char *text, size_t len, struct lg_msg *m)
{
    json_t *o, *v;
    const char *t, *s;

    m->type = LG_MSG_OTHER;
    m->game[0] = '\0';
    m->ply = -1;
    m->you_white = -1;
    m->white_to_move = -1;
    m->started = false;
    m->nlegal = 0;
    m->error = LG_ERR_UNKNOWN;
    m->has_id = false;
    o = json_loadb(text, len, 0, NULL);
    if (!json_is_object(o) || !(t = json_string_value(json_object_get(o, "t")))) {
        json_decref(o);
        return -1;
    }
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(t, types[i].name)) {
            m->type = types[i].type;
            break;
        }
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
