/*
 * botapi_ask.c - what a request of the Bot and Board API asked (struct
 * ask, botapi_internal.h): read from its path and form body, and written
 * as text for the game's host in a cluster (botapi_remote.c) and read
 * back there. No state; any thread.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "hub/botapi_internal.h"
#include "proto.h"

bool botapi_ask_path(const char *rest, bool post, struct ask *a)
{
    size_t n;

    if (!post && !strncmp(rest, "stream/", 7)) {
        rest += 7;
        a->route = R_GAME_STREAM;
        return snprintf(a->gid, sizeof a->gid, "%s", rest) <
                   (int)sizeof a->gid &&
               proto_key_valid(a->gid);
    }
    if (!post)
        return false;
    n = strcspn(rest, "/");
    if (!n || n >= sizeof a->gid)
        return false;
    memcpy(a->gid, rest, n);
    a->gid[n] = '\0';
    rest += n;
    if (!proto_key_valid(a->gid))
        return false;
    if (!strncmp(rest, "/move/", 6) && strlen(rest + 6) < sizeof a->uci &&
        strlen(rest + 6) >= 4) {
        a->route = R_MOVE;
        snprintf(a->uci, sizeof a->uci, "%s", rest + 6);
        for (const char *c = a->uci; *c; c++)
            if (!((*c >= 'a' && *c <= 'h') || (*c >= '1' && *c <= '8') ||
                  strchr("qrbn", *c)))
                return false;
        return true;
    }
    if (!strcmp(rest, "/resign"))
        return (a->route = R_RESIGN), true;
    if (!strcmp(rest, "/abort"))
        return (a->route = R_ABORT), true;
    if (!strcmp(rest, "/draw/yes") || !strcmp(rest, "/draw/no")) {
        a->route = R_DRAW;
        a->flag = !strcmp(rest, "/draw/yes");
        return true;
    }
    if (!strcmp(rest, "/takeback/yes") || !strcmp(rest, "/takeback/no")) {
        a->route = R_TAKEBACK;
        a->flag = !strcmp(rest, "/takeback/yes");
        return true;
    }
    if (!strcmp(rest, "/claim-victory"))
        return (a->route = R_CLAIM), true;
    if (!strcmp(rest, "/chat"))
        return (a->route = R_CHAT), true;
    return false;
}

int botapi_hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The value of field name of a form body (application/x-www-form-
 * urlencoded: '+' a space, %XX a byte) into out; false when it is
 * missing, malformed or longer than out. */
static bool form_field(const char *body, const char *name, char *out,
                       size_t len)
{
    size_t n = strlen(name), at = 0;

    for (const char *p = body; p && *p; p = strchr(p, '&'), p = p ? p + 1 : p)
        if (!strncmp(p, name, n) && p[n] == '=') {
            for (p += n + 1; *p && *p != '&'; p++) {
                int c = *p == '+' ? ' ' : *p;
                if (*p == '%') {
                    int hi = botapi_hexval(p[1]),
                        lo = hi < 0 ? -1 : botapi_hexval(p[2]);
                    if (lo < 0)
                        return false;
                    c = hi * 16 + lo;
                    p += 2;
                }
                if (at + 1 >= len)
                    return false;
                out[at++] = (char)c;
            }
            out[at] = '\0';
            return true;
        }
    return false;
}

/* The most characters of a chat line (lichess's; the chat's own). */
#define CHAT_API_TEXT_MAX 140

/* True when s holds lo to hi characters (UTF-8: continuation bytes not
 * counted). */
static bool utf8_chars_in(const char *s, size_t lo, size_t hi)
{
    size_t n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n >= lo && n <= hi;
}

bool botapi_ask_chat(const char *body, struct ask *a)
{
    return form_field(body, "room", a->room, sizeof a->room) &&
           form_field(body, "text", a->text, sizeof a->text) &&
           (!strcmp(a->room, "player") || !strcmp(a->room, "spectator")) &&
           utf8_chars_in(a->text, 1, CHAT_API_TEXT_MAX);
}

char *botapi_ask_text(const struct ask *a)
{
    json_t *o = json_pack("{s:i,s:b,s:b,s:s,s:s,s:s,s:s}", "route",
                          (int)a->route, "bot", a->bot, "flag", a->flag,
                          "gid", a->gid, "uci", a->uci, "room", a->room,
                          "text", a->text);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;

    json_decref(o);
    return text;
}

bool botapi_ask_parse(const char *text, struct ask *a)
{
    json_t *o = json_loads(text, 0, NULL);
    int route = -1, bot = 0, flag = 0;
    const char *gid = NULL, *uci = NULL, *room = NULL, *line = NULL;
    bool ok = o &&
              !json_unpack(o, "{s:i,s:b,s:b,s:s,s:s,s:s,s:s}", "route",
                           &route, "bot", &bot, "flag", &flag, "gid", &gid,
                           "uci", &uci, "room", &room, "text", &line) &&
              route > R_GAME_STREAM && route <= R_CHAT &&
              strlen(gid) < sizeof a->gid && strlen(uci) < sizeof a->uci &&
              strlen(room) < sizeof a->room && strlen(line) < sizeof a->text;

    if (ok) {
        a->route = (enum route)route;
        a->bot = bot;
        a->flag = flag;
        snprintf(a->gid, sizeof a->gid, "%s", gid);
        snprintf(a->uci, sizeof a->uci, "%s", uci);
        snprintf(a->room, sizeof a->room, "%s", room);
        snprintf(a->text, sizeof a->text, "%s", line);
    }
    json_decref(o);
    return ok;
}
