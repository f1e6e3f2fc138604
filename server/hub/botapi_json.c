/*
 * botapi_json.c - lichess's JSON for the Bot and Board API (see
 * botapi_json.h): a game's gameFull and gameState, the event stream's
 * gameStart and gameFinish, and a challenge of our protocol as lichess's
 * ChallengeJson. Event-loop thread only (it reads live games).
 */
#include "hub/botapi_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ending.h"
#include "game/game.h"
#include "proto.h"

/* lichess's status name of g (gameState's `status`). */
static const char *status_name(struct game *g)
{
    if (game_status(g) != GAME_ENDED)
        return "started";
    switch (game_ending(g)) {
    case ENDING_CHECKMATE:
        return "mate";
    case ENDING_RESIGNATION:
    case ENDING_ABANDONED:
        return "resign";
    case ENDING_TIMEOUT:
        return "outoftime";
    case ENDING_STALEMATE:
        return "stalemate";
    case ENDING_ABORTED:
    case ENDING_CANCELLED:
        return "aborted";
    case ENDING_NO_START:
        return "noStart";
    case ENDING_ADJUDICATED: /* (a moderator's: lichess's word for an end
                                of no rule's) */
        return "unknownFinish";
    default:
        return "draw"; /* agreement, repetition, 50/75 moves, dead, ... */
    }
}

/* lichess's status id of a status name (its GameStatus). */
static int status_id(const char *name)
{
    static const struct {
        const char *name;
        int id;
    } ids[] = {{"started", 20},   {"aborted", 25},   {"mate", 30},
               {"resign", 31},    {"stalemate", 32}, {"draw", 34},
               {"outoftime", 35}, {"noStart", 37}};

    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        if (!strcmp(ids[i].name, name))
            return ids[i].id;
    return 38; /* unknownFinish */
}

static json_t *winner(struct game *g)
{
    if (game_status(g) != GAME_ENDED)
        return NULL;
    if (game_result(g) == ENDING_WHITE_WINS)
        return json_string("white");
    if (game_result(g) == ENDING_BLACK_WINS)
        return json_string("black");
    return NULL;
}

/* gameState of g at now: wdraw, bdraw, wtakeback and btakeback true
 * while that side's offer or request is pending (lichess's). */
json_t *botapi_game_state(struct game *g, int64_t now)
{
    const struct clock_spec *c = game_clock_spec(g);
    int64_t inc = c->per_move ? 0 : (int64_t)c->increment_s * 1000;
    size_t cap = (size_t)game_ply(g) * 6 + 1, at = 0;
    char *moves = malloc(cap);
    json_t *o, *w;

    if (!moves)
        return NULL;
    moves[0] = '\0';
    for (int i = 0; i < game_ply(g); i++)
        at += (size_t)snprintf(moves + at, cap - at, "%s%s", i ? " " : "",
                               game_move_uci(g, i));
    o = json_pack("{s:s,s:s,s:I,s:I,s:I,s:I,s:s,s:b,s:b,s:b,s:b}", "type",
                  "gameState", "moves", moves, "wtime",
                  (json_int_t)game_time_left(g, 0, now), "btime",
                  (json_int_t)game_time_left(g, 1, now), "winc",
                  (json_int_t)inc, "binc", (json_int_t)inc, "status",
                  status_name(g), "wdraw", game_draw_offered_by(g) == 0,
                  "bdraw", game_draw_offered_by(g) == 1, "wtakeback",
                  game_takeback_asked_by(g) == 0, "btakeback",
                  game_takeback_asked_by(g) == 1);
    free(moves);
    if (o && (w = winner(g)))
        json_object_set_new(o, "winner", w);
    return o;
}

static json_t *lichess_player(struct game *g, int color)
{
    char id[PROTO_NAME_MAX + 1];
    const char *name = game_seat_name(g, color);
    struct proto_player p = game_seat_player(g, color);
    size_t i = 0;

    for (; name[i] && i + 1 < sizeof id; i++)
        id[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32
                                                        : name[i]);
    id[i] = '\0';
    return json_pack("{s:s,s:s,s:o,s:I,s:b}", "id", id, "name", name, "title",
                     p.bot ? json_string("BOT") : json_null(), "rating",
                     (json_int_t)(p.has_rating ? p.rating : 1500),
                     "provisional", p.has_rating ? p.provisional : 1);
}

/* lichess's speed of a clock (its estimate: initial + 40 increments). */
const char *botapi_speed(const struct clock_spec *c)
{
    int est = c->initial_s + 40 * c->increment_s;

    if (c->per_move)
        return "correspondence";
    return est < 30     ? "ultraBullet"
           : est < 180  ? "bullet"
           : est < 480  ? "blitz"
           : est < 1500 ? "rapid"
                        : "classical";
}

static json_t *clock_json(const struct clock_spec *c)
{
    if (c->per_move)
        return json_null();
    return json_pack("{s:I,s:I}", "initial", (json_int_t)c->initial_s * 1000,
                     "increment", (json_int_t)c->increment_s * 1000);
}

/* gameFull of g. */
json_t *botapi_game_full(struct game *g, int64_t now)
{
    const struct clock_spec *c = game_clock_spec(g);
    const char *fen = game_initial_fen(g);
    static const char start[] =
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    const char *sp = botapi_speed(c);
    char perf[16];

    snprintf(perf, sizeof perf, "%c%s", sp[0] - 32, sp + 1);
    return json_pack(
        "{s:s,s:s,s:b,s:{s:s,s:s,s:s},s:o,s:s,s:{s:s},s:I,s:o,s:o,s:s,s:o}",
        "type", "gameFull", "id", game_gid(g), "rated", game_rated(g),
        "variant", "key", "standard", "name", "Standard", "short", "Std",
        "clock", clock_json(c), "speed", sp, "perf", "name", perf,
        "createdAt", (json_int_t)game_created_ms(g), "white",
        lichess_player(g, 0), "black", lichess_player(g, 1), "initialFen",
        fen && fen[0] && strcmp(fen, start) ? fen : "startpos", "state",
        botapi_game_state(g, now));
}

/* gameStart or gameFinish of g for pid (the event stream's). */
json_t *botapi_game_event(struct game *g, const char *type, const char *pid,
                          int64_t now)
{
    int me = game_color_of(g, pid);
    const struct clock_spec *c = game_clock_spec(g);
    json_t *opp = lichess_player(g, !me);
    bool mine = game_status(g) == GAME_STARTED && game_side_to_move(g) == me;

    if (!opp)
        return NULL;
    json_object_set(opp, "username", json_object_get(opp, "name"));
    return json_pack(
        "{s:s,s:{s:s,s:s,s:s,s:s,s:b,s:b,s:o,s:s,s:b,s:I,s:s,s:{s:I,s:s},"
        "s:s,s:{s:s,s:s},s:{s:b,s:b},s:s}}",
        "type", type, "game", "gameId", game_gid(g), "fullId", game_gid(g),
        "id", game_gid(g), "color", me == 0 ? "white" : "black", "hasMoved",
        game_ply(g) > me, "isMyTurn", mine, "opponent", opp, "perf",
        botapi_speed(c), "rated", game_rated(g), "secondsLeft",
        (json_int_t)(game_time_left(g, me, now) / 1000), "source", "friend",
        "status", "id", (json_int_t)status_id(status_name(g)), "name",
        status_name(g), "speed", botapi_speed(c), "variant", "key",
        "standard", "name", "Standard", "compat", "bot", 1, "board", 1, "fen",
        game_initial_fen(g) && game_initial_fen(g)[0]
            ? game_initial_fen(g)
            : "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - "
              "0 1");
}

/* A player of our protocol's JSON as struct proto_player (pointers into
 * o). */
static void player_of(json_t *o, struct proto_player *p)
{
    json_t *r = json_object_get(o, "rating");

    p->id = json_string_value(json_object_get(o, "id"));
    p->name = json_string_value(json_object_get(o, "name"));
    p->bot = json_is_true(json_object_get(o, "bot"));
    if (json_is_integer(r)) {
        p->has_rating = true;
        p->rating = (long)json_integer_value(r);
        p->provisional = json_is_true(json_object_get(o, "provisional"));
    }
}

/* Our protocol's challenge object c as lichess's ChallengeJson for pid
 * (common/proto_challenge.c), or NULL. */
json_t *botapi_challenge_json(json_t *c, const char *pid)
{
    struct proto_challenge x = {.decline = -1, .color = PROTO_RANDOM};
    json_t *k = json_object_get(c, "clock");
    const char *color = json_string_value(json_object_get(c, "color"));
    const char *why = json_string_value(json_object_get(c, "decline_reason"));
    const char *ktype = json_string_value(json_object_get(k, "type"));
    char *text;
    json_t *o;

    x.id = json_string_value(json_object_get(c, "id"));
    x.status = json_string_value(json_object_get(c, "status"));
    if (!x.id || !x.status)
        return NULL;
    player_of(json_object_get(c, "challenger"), &x.challenger);
    player_of(json_object_get(c, "dest"), &x.dest);
    if (!x.challenger.id || !x.dest.id)
        return NULL;
    x.clock.per_move = ktype && !strcmp(ktype, "per_move");
    x.clock.initial_s = (int)json_integer_value(
        json_object_get(k, "initial_s"));
    x.clock.increment_s = (int)json_integer_value(
        json_object_get(k, "increment_s"));
    x.clock.per_move_s = (int)json_integer_value(
        json_object_get(k, "per_move_s"));
    if (color && !strcmp(color, "white"))
        x.color = PROTO_WHITE;
    else if (color && !strcmp(color, "black"))
        x.color = PROTO_BLACK;
    x.rated = json_is_true(json_object_get(c, "rated"));
    x.decline = why ? proto_decline_parse(why) : -1;
    x.game = json_string_value(json_object_get(c, "game"));
    text = proto_render_challenge_lichess(&x, "", !strcmp(x.dest.id, pid),
                                          -1);
    o = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    return o;
}
