/*
 * proto_challenge.c - challenges on the wire (see proto.h): the decline
 * reasons, the protocol's challenge object and lichess's ChallengeJson
 * of the same challenge.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "proto.h"
#include "proto_internal.h"

/* lichess's keys and sentences (lila's i18n "challenge" strings). */
static const struct {
    const char *key, *text;
} declines[PROTO_DECLINE_COUNT] = {
    [PROTO_DECLINE_GENERIC] = {"generic",
                               "I'm not accepting challenges at the moment."},
    [PROTO_DECLINE_LATER] = {"later", "This is not the right time for me, "
                                      "please ask again later."},
    [PROTO_DECLINE_TOO_FAST] = {"tooFast",
                                "This time control is too fast for me, "
                                "please challenge again with a slower game."},
    [PROTO_DECLINE_TOO_SLOW] = {"tooSlow",
                                "This time control is too slow for me, "
                                "please challenge again with a faster game."},
    [PROTO_DECLINE_TIME_CONTROL] = {"timeControl",
                                    "I'm not accepting challenges with this "
                                    "time control."},
    [PROTO_DECLINE_RATED] = {"rated",
                             "Please send me a rated challenge instead."},
    [PROTO_DECLINE_CASUAL] = {"casual",
                              "Please send me a casual challenge instead."},
    [PROTO_DECLINE_STANDARD] = {"standard", "I'm not accepting variant "
                                            "challenges right now."},
    [PROTO_DECLINE_VARIANT] = {"variant", "I'm not willing to play this "
                                          "variant right now."},
    [PROTO_DECLINE_NO_BOT] = {"noBot",
                              "I'm not accepting challenges from bots."},
    [PROTO_DECLINE_ONLY_BOT] = {"onlyBot",
                                "I'm only accepting challenges from bots."},
};

static const char *const colors[] = {[PROTO_RANDOM] = "random",
                                     [PROTO_WHITE] = "white",
                                     [PROTO_BLACK] = "black"};

const char *proto_decline_name(int r)
{
    return r >= 0 && r < PROTO_DECLINE_COUNT ? declines[r].key : NULL;
}

const char *proto_decline_text(int r)
{
    return r >= 0 && r < PROTO_DECLINE_COUNT ? declines[r].text : NULL;
}

int proto_decline_parse(const char *s)
{
    for (int r = 0; r < PROTO_DECLINE_COUNT; r++)
        if (!strcmp(s, declines[r].key))
            return r;
    return -1;
}

static const char *color_name(int c)
{
    return c >= PROTO_RANDOM && c <= PROTO_BLACK ? colors[c] : "random";
}

/* The protocol's object (PROTOCOL.md, "Challenges"). */
static json_t *j_challenge(const struct proto_challenge *c)
{
    const char *why = proto_decline_name(c->decline);

    return json_pack(
        "{s:s,s:s,s:o,s:o,s:o,s:s,s:b,s:o,s:o,s:o}", "id", c->id, "status",
        c->status, "challenger", proto_json_player(&c->challenger), "dest",
        proto_json_player(&c->dest), "clock", proto_json_clock(&c->clock),
        "color", color_name(c->color), "rated", c->rated, "decline_reason",
        why ? json_string(why) : json_null(), "game",
        c->game ? json_string(c->game) : json_null(), "expires_ms",
        c->expires_ms ? json_integer(c->expires_ms) : json_null());
}

char *proto_render_challenge(const struct proto_challenge *c,
                             const struct proto_id *id)
{
    return proto_json_finish(
        json_pack("{s:s,s:o}", "t", "challenge", "challenge", j_challenge(c)),
        id);
}

static json_t *j_list(const struct proto_challenge *c, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < n; i++)
        if (json_array_append_new(a, j_challenge(&c[i])) < 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

char *proto_render_challenges(const struct proto_challenge *in, size_t nin,
                              const struct proto_challenge *out, size_t nout,
                              const struct proto_id *id)
{
    return proto_json_finish(json_pack("{s:s,s:o,s:o}", "t", "challenges",
                                       "in", j_list(in, nin), "out",
                                       j_list(out, nout)),
                             id);
}

/* ---- lichess's ChallengeJson -------------------------------------------- */

/* lichess's speeds: the key and the perf's name. */
static const char *const speeds[][2] = {
    {"ultraBullet", "UltraBullet"},
    {"bullet", "Bullet"},
    {"blitz", "Blitz"},
    {"rapid", "Rapid"},
    {"classical", "Classical"},
    {"correspondence", "Correspondence"},
};

/* lichess's speed of a clock (an index of speeds): its estimated
 * duration, limit + 40 times the increment (scalachess's Speed); a
 * per-move clock is correspondence. */
static int speed_of(const struct clock_spec *k)
{
    int est = k->initial_s + 40 * k->increment_s;

    if (k->per_move)
        return 5;
    return est < 30 ? 0 : est < 180 ? 1 : est < 480 ? 2 : est < 1500 ? 3 : 4;
}

/* ChallengeUser: id, name, title (a bot's "BOT"), rating, provisional,
 * online. */
static json_t *j_user(const struct proto_player *p)
{
    json_t *o = json_pack("{s:s,s:s,s:b}", "id", p->id, "name", p->name,
                          "online", true);

    if (o && p->bot)
        json_object_set_new(o, "title", json_string("BOT"));
    if (o && p->has_rating) {
        json_object_set_new(o, "rating", json_integer(p->rating));
        if (p->provisional)
            json_object_set_new(o, "provisional", json_true());
    }
    return o;
}

/* TimeControl: {"type":"clock","limit","increment","show"}; a per-move
 * clock (seconds per move, no bank) has no lichess equivalent but
 * correspondence's days, rounded up. */
static json_t *j_time_control(const struct clock_spec *k)
{
    char show[32];

    if (k->per_move)
        return json_pack("{s:s,s:i}", "type", "correspondence", "daysPerTurn",
                         (k->per_move_s + 86399) / 86400);
    if (k->initial_s % 60 == 0)
        snprintf(show, sizeof show, "%d+%d", k->initial_s / 60,
                 k->increment_s);
    else if (k->initial_s == 15 || k->initial_s == 30 || k->initial_s == 45)
        snprintf(show, sizeof show, "%s+%d",
                 k->initial_s == 15   ? "¼"
                 : k->initial_s == 30 ? "½"
                                      : "¾",
                 k->increment_s);
    else
        snprintf(show, sizeof show, "%d:%02d+%d", k->initial_s / 60,
                 k->initial_s % 60, k->increment_s);
    return json_pack("{s:s,s:i,s:i,s:s}", "type", "clock", "limit",
                     k->initial_s, "increment", k->increment_s, "show", show);
}

/* The base64url alphabet of ids (server/lib/ids.c). */
static const char id_chars[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int proto_challenge_side(const struct proto_challenge *c)
{
    const char *at = c->id && c->id[0] ? strchr(id_chars, c->id[0]) : NULL;

    if (c->color == PROTO_WHITE || c->color == PROTO_BLACK)
        return c->color == PROTO_BLACK;
    /* the id's first character holds 6 random bits: the lowest is the
     * coin (any other character: white) */
    return at ? (int)((at - id_chars) & 1) : 0;
}

char *proto_render_challenge_lichess(const struct proto_challenge *c,
                                     const char *base_url, bool incoming,
                                     int final_color)
{
    char url[256];
    int speed = speed_of(&c->clock);
    json_t *o;

    snprintf(url, sizeof url, "%s/%s", base_url, c->id);
    o = json_pack(
        "{s:s,s:s,s:s,s:o,s:o,s:{s:s,s:s,s:s},s:b,s:s,s:o,s:s,s:{s:s},s:s}",
        "id", c->id, "url", url, "status", c->status, "challenger",
        j_user(&c->challenger), "destUser", j_user(&c->dest), "variant",
        "key", "standard", "name", "Standard", "short", "Std", "rated",
        c->rated, "speed", speeds[speed][0], "timeControl",
        j_time_control(&c->clock), "color", color_name(c->color), "perf",
        "name", speeds[speed][1], "direction", incoming ? "in" : "out");
    if (o)
        json_object_set_new(
            o, "finalColor",
            json_string(proto_color_name(
                final_color >= 0 ? final_color : proto_challenge_side(c))));
    if (o && c->decline >= 0 && proto_decline_name(c->decline)) {
        json_object_set_new(o, "declineReason",
                            json_string(proto_decline_text(c->decline)));
        json_object_set_new(o, "declineReasonKey",
                            json_string(proto_decline_name(c->decline)));
    }
    return proto_json_finish(o, NULL);
}
