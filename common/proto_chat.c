/*
 * proto_chat.c - chat lines on the wire (see proto.h, PROTOCOL.md
 * "Chat"): the check of a line's text, the rooms' names and the server's
 * chat messages.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "proto.h"
#include "proto_internal.h"

const char *proto_room_name(enum proto_room room)
{
    static const char *const names[] = {"player", "spectator", "lobby",
                                        "event"};

    return (unsigned)room < sizeof names / sizeof *names ? names[room]
                                                         : "player";
}

/* The code point at s[*i] (valid UTF-8 already), *i past it. */
static uint32_t next_cp(const unsigned char *s, size_t *i)
{
    uint32_t c = s[(*i)++];
    int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;

    c &= more == 3 ? 0x07 : more == 2 ? 0x0F : more == 1 ? 0x1F : 0x7F;
    while (more-- > 0)
        c = (c << 6) | (s[(*i)++] & 0x3F);
    return c;
}

/* A control character a chat line may not carry: C0, DEL, C1, the line
 * and paragraph separators, and the bidirectional controls that would
 * reorder the text around the line (embeddings, overrides, isolates). */
static bool is_control(uint32_t c)
{
    return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 ||
           c == 0x2029 || (c >= 0x202A && c <= 0x202E) ||
           (c >= 0x2066 && c <= 0x2069);
}

int proto_chat_text(const char *s, size_t len, struct proto_error *e)
{
    return proto_text_check(s, len, PROTO_CHAT_CHARS, e);
}

int proto_text_check(const char *s, size_t len, size_t max_chars,
                     struct proto_error *e)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, n = 0;
    bool blank = true;

    e->code = PROTO_BAD_FIELD;
    if (proto_utf8_prefix(s, len) != len) {
        snprintf(e->msg, sizeof e->msg, "text: invalid UTF-8 at byte %zu",
                 proto_utf8_prefix(s, len));
        return -1;
    }
    while (i < len) {
        uint32_t c = next_cp(u, &i);
        if (is_control(c)) {
            snprintf(e->msg, sizeof e->msg,
                     "text: control character U+%04X at character %zu",
                     (unsigned)c, n + 1);
            return -1;
        }
        blank = blank && c == ' ';
        n++;
    }
    if (n == 0 || blank) {
        snprintf(e->msg, sizeof e->msg, "%s", "text: empty");
        return -1;
    }
    if (n > max_chars) {
        snprintf(e->msg, sizeof e->msg, "text: %zu characters, at most %zu",
                 n, max_chars);
        return -1;
    }
    e->code = PROTO_OK;
    e->msg[0] = '\0';
    return 0;
}

/* The key's field of a room's messages: "game", "event" or none. */
static const char *key_field(enum proto_room room)
{
    return room == PROTO_ROOM_LOBBY   ? NULL
           : room == PROTO_ROOM_EVENT ? "event"
                                      : "game";
}

/* {"t":t,KEY:key,"room":R} (the key's field as key_field says) with
 * rest's fields after them (rest taken); NULL when out of memory. */
static json_t *head(const char *t, const char *key, enum proto_room room,
                    json_t *rest)
{
    const char *f = key_field(room);
    json_t *o = json_pack("{s:s}", "t", t);

    if (o && f && json_object_set_new(o, f, json_string(key)) < 0)
        o = (json_decref(o), NULL);
    if (o && json_object_set_new(o, "room",
                                 json_string(proto_room_name(room))) < 0)
        o = (json_decref(o), NULL);
    if (o && (!rest || json_object_update(o, rest) < 0))
        o = (json_decref(o), NULL);
    json_decref(rest);
    return o;
}

static json_t *j_line(const struct proto_chat_line *l)
{
    return json_pack("{s:s,s:s,s:s,s:I}", "pid", l->pid, "name", l->name,
                     "text", l->text, "at", (json_int_t)l->at_ms);
}

char *proto_render_chat(const char *key, enum proto_room room,
                        const struct proto_chat_line *l)
{
    return proto_json_finish(head("chat", key, room, j_line(l)), NULL);
}

char *proto_render_chat_history(const char *key, enum proto_room room,
                                const struct proto_chat_line *l, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, j_line(&l[i])) < 0) {
            json_decref(a);
            return NULL;
        }
    if (!a)
        return NULL;
    return proto_json_finish(
        head("chat_history", key, room, json_pack("{s:o}", "lines", a)),
        NULL);
}

char *proto_render_chat_muted(int64_t until_ms)
{
    return proto_json_finish(json_pack("{s:s,s:I}", "t", "chat_muted",
                                       "until", (json_int_t)until_ms),
                             NULL);
}

/* ---- blocks and reports ------------------------------------------------- */

const char *proto_report_reason_name(int reason)
{
    static const char *const names[PROTO_REPORT_REASONS] = {
        "cheat", "stall", "boost", "abuse", "spam", "username", "other"};

    return reason >= 0 && reason < PROTO_REPORT_REASONS ? names[reason]
                                                        : NULL;
}

char *proto_render_blocks(const struct proto_block *v, size_t n,
                          const struct proto_id *id)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(
                a, json_pack("{s:s,s:s,s:I}", "pid", v[i].pid, "name",
                             v[i].name, "at", (json_int_t)v[i].at_ms))) {
            json_decref(a);
            a = NULL;
        }
    return proto_json_finish(
        a ? json_pack("{s:s,s:o}", "t", "blocks", "blocks", a) : NULL, id);
}

char *proto_render_reported(const char *pid, const char *name,
                            const char *reason, const struct proto_id *id)
{
    return proto_json_finish(json_pack("{s:s,s:s,s:s,s:s}", "t", "reported",
                                       "pid", pid, "name", name, "reason",
                                       reason),
                             id);
}

int proto_chat_filter(const char *text, size_t len,
                      bool (*hide)(void *ctx, const char *pid), void *ctx,
                      char **out)
{
    static const char prefix[] = "{\"t\":\"chat";
    json_t *o, *lines;
    const char *t;
    int rc = 0;
    size_t i = 0;

    *out = NULL;
    if (len < sizeof prefix || memcmp(text, prefix, sizeof prefix - 1) ||
        !(o = json_loadb(text, len, 0, NULL)))
        return 0;
    t = json_string_value(json_object_get(o, "t"));
    lines = json_object_get(o, "lines");
    if (t && !strcmp(t, "chat")) {
        t = json_string_value(json_object_get(o, "pid"));
        rc = t && hide(ctx, t);
    } else if (t && !strcmp(t, "chat_history") && json_is_array(lines)) {
        while (i < json_array_size(lines)) {
            json_t *l = json_array_get(lines, i);
            t = json_string_value(json_object_get(l, "pid"));
            if (t && hide(ctx, t) && !json_array_remove(lines, i))
                rc = 2;
            else
                i++;
        }
        if (rc == 2 && !json_array_size(lines))
            rc = 1;
        else if (rc == 2 && !(*out = json_dumps(o, JSON_COMPACT)))
            rc = 0; /* (out of memory: as it is) */
    }
    json_decref(o);
    return rc;
}

char *proto_lobby_filter(const char *text, size_t len,
                         bool (*hide)(void *ctx, const char *pid), void *ctx)
{
    json_t *o = json_loadb(text, len, 0, NULL);
    json_t *seeks = o ? json_object_get(o, "seeks") : NULL;
    bool cut = false;
    size_t i = 0;
    char *out = NULL;

    while (json_is_array(seeks) && i < json_array_size(seeks)) {
        json_t *player = json_object_get(json_array_get(seeks, i), "player");
        const char *id = json_string_value(json_object_get(player, "id"));
        if (id && hide(ctx, id) && !json_array_remove(seeks, i))
            cut = true;
        else
            i++;
    }
    if (cut)
        out = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return out;
}
