/*
 * proto_mod.c - moderation on the wire (see proto.h, PROTOCOL.md
 * "Moderation"): the actions' names and the server's moderation
 * messages.
 */
#include <jansson.h>
#include <stdint.h>
#include <string.h>

#include "proto.h"
#include "proto_internal.h"

const char *proto_mod_action_name(int action)
{
    static const char *const names[PROTO_MOD_ACTIONS] = {
        "warn",       "mute",       "unmute",        "close",
        "engine",     "unengine",   "close_account", "reopen_account",
        "disconnect", "chat_delete"};

    return action >= 0 && action < PROTO_MOD_ACTIONS ? names[action] : NULL;
}

char *proto_render_mod_reports(const struct proto_mod_report *v, size_t n,
                               const struct proto_id *id)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++) {
        json_t *t = json_array();
        for (size_t k = 0; t && k < v[i].n_texts; k++)
            if (json_array_append_new(
                    t, json_pack("{s:s,s:s,s:I}", "by", v[i].texts[k].by,
                                 "text", v[i].texts[k].text, "at",
                                 (json_int_t)v[i].texts[k].at_ms)) < 0) {
                json_decref(t);
                t = NULL;
            }
        if (!t ||
            json_array_append_new(
                a, json_pack("{s:s,s:s,s:s,s:i,s:i,s:I,s:o}", "pid", v[i].pid,
                             "name", v[i].name, "reason", v[i].reason,
                             "score", v[i].score, "atoms", v[i].atoms, "last",
                             (json_int_t)v[i].last_ms, "texts", t)) < 0) {
            json_decref(a);
            return NULL;
        }
    }
    return proto_json_finish(
        a ? json_pack("{s:s,s:o}", "t", "mod_reports", "reports", a) : NULL,
        id);
}

/* until_ms as the wire has it: null for none. */
static json_t *until_json(int64_t until_ms)
{
    return until_ms > 0 ? json_integer((json_int_t)until_ms) : json_null();
}

char *proto_render_mod_done(const char *action, const char *pid,
                            const char *name, int64_t until_ms,
                            const struct proto_id *id)
{
    return proto_json_finish(json_pack("{s:s,s:s,s:s?,s:s?,s:o}", "t",
                                       "mod_done", "action", action, "pid",
                                       pid, "name", name, "until",
                                       until_json(until_ms)),
                             id);
}

char *proto_render_mod_player(const char *pid, const char *name,
                              int64_t muted_until, bool engine, bool closed,
                              const struct proto_mod_line *chat, size_t nc,
                              const struct proto_mod_past *acts, size_t na,
                              const struct proto_id *id)
{
    json_t *c = json_array(), *a = json_array();

    for (size_t i = 0; c && i < nc; i++) {
        /* a game's room by game, an event's by event, the lobby's alone */
        const char *key = !strcmp(chat[i].room, "lobby")   ? NULL
                          : !strcmp(chat[i].room, "event") ? "event"
                                                           : "game";
        json_t *e = json_pack("{s:s,s:s,s:I}", "room", chat[i].room, "text",
                              chat[i].text, "at", (json_int_t)chat[i].at_ms);
        if (e && key &&
            json_object_set_new(e, key, json_string(chat[i].game)) < 0) {
            json_decref(e);
            e = NULL;
        }
        if (json_array_append_new(c, e) < 0) {
            json_decref(c);
            c = NULL;
        }
    }
    for (size_t i = 0; a && i < na; i++) {
        json_t *e = json_pack(
            "{s:s,s:s,s:s,s:o,s:I}", "action", acts[i].action, "by",
            acts[i].by, "text", acts[i].text, "until",
            until_json(acts[i].until_ms), "at", (json_int_t)acts[i].at_ms);
        if (e && acts[i].reason[0] &&
            json_object_set_new(e, "reason", json_string(acts[i].reason))) {
            json_decref(e);
            e = NULL;
        }
        if (json_array_append_new(a, e) < 0) {
            json_decref(a);
            a = NULL;
        }
    }
    if (!c || !a) {
        json_decref(c);
        json_decref(a);
        return NULL;
    }
    return proto_json_finish(
        json_pack("{s:s,s:s,s:s,s:o,s:b,s:b,s:o,s:o}", "t", "mod_player",
                  "pid", pid, "name", name, "muted_until",
                  until_json(muted_until), "engine", engine, "closed", closed,
                  "chat", c, "actions", a),
        id);
}

char *proto_render_maintenance(int64_t at_ms, const char *text,
                               const char *by)
{
    return proto_json_finish(json_pack("{s:s,s:o,s:s,s:s}", "t",
                                       "maintenance", "at", until_json(at_ms),
                                       "text", text, "by", by),
                             NULL);
}

char *proto_render_mod_notice(const char *action, const char *text,
                              const char *by, int64_t until_ms, int64_t at_ms)
{
    return proto_json_finish(
        json_pack("{s:s,s:s,s:s,s:s,s:o,s:I}", "t", "mod_notice", "action",
                  action, "text", text, "by", by, "until",
                  until_json(until_ms), "at", (json_int_t)at_ms),
        NULL);
}
