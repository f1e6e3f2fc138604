/*
 * test_proto.c - parsing client messages in the protocol's check order,
 * and the shape of rendered server messages.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apitoken.h"
#include "proto.h"
#include "check_main.h"

static struct proto_msg m;
static struct proto_error e;

static int parse(const char *s, bool authed)
{
    return proto_parse(s, strlen(s), authed, &m, &e);
}

/* Asserts that the last error's text contains want (if not NULL). */
static void check_msg(const char *want)
{
    if (want)
        ck_assert_msg(strstr(e.msg, want), "msg '%s' lacks '%s'", e.msg,
                      want);
}

/* Asserts that s fails with code, and msg contains want (if not NULL). */
#define FAILS(s, authed, want_code, want)             \
    do {                                              \
        ck_assert_int_eq(parse(s, authed), -1);       \
        ck_assert_str_eq(proto_code_name(e.code),     \
                         proto_code_name(want_code)); \
        check_msg(want);                              \
    } while (0)

START_TEST(bad_json_first)
{
    FAILS("", true, PROTO_BAD_JSON, NULL);
    FAILS("{", true, PROTO_BAD_JSON, NULL);
    FAILS("[1,2]", true, PROTO_BAD_JSON, NULL);
    FAILS("\"hello\"", true, PROTO_BAD_JSON, NULL);
    FAILS("{\"t\":\"ping\"} x", true, PROTO_BAD_JSON, NULL);
    FAILS("{\"t\":\"ping\",\"t\":\"ping\"}", true, PROTO_BAD_JSON, NULL);
}
END_TEST

START_TEST(t_then_type_then_auth)
{
    FAILS("{}", true, PROTO_BAD_FIELD, "t: missing");
    FAILS("{\"t\":5}", true, PROTO_BAD_FIELD, "t: must be a string");
    FAILS("{\"t\":\"fly\"}", true, PROTO_UNKNOWN_TYPE, "fly");
    /* unknown_type comes before unauthenticated */
    FAILS("{\"t\":\"fly\"}", false, PROTO_UNKNOWN_TYPE, NULL);
    FAILS("{\"t\":\"seek\"}", false, PROTO_UNAUTHENTICATED, NULL);
    /* unauthenticated comes before field checks */
    FAILS("{\"t\":\"move\",\"bogus\":1}", false, PROTO_UNAUTHENTICATED, NULL);
    ck_assert_int_eq(m.type, PROTO_T_MOVE);
    ck_assert_int_eq(parse("{\"t\":\"ping\"}", false), 0);
    ck_assert_int_eq(parse("{\"t\":\"hello\"}", false), 0);
    ck_assert_int_eq(m.type, PROTO_T_HELLO);
}
END_TEST

START_TEST(id_echo_rules)
{
    ck_assert_int_eq(parse("{\"t\":\"ping\",\"id\":\"abc\"}", true), 0);
    ck_assert_int_eq(m.id.kind, 1);
    ck_assert_str_eq(m.id.str, "abc");
    ck_assert_int_eq(parse("{\"t\":\"ping\",\"id\":-9007199254740991}", true),
                     0);
    ck_assert_int_eq(m.id.kind, 2);
    ck_assert(m.id.num == -9007199254740991LL);
    FAILS("{\"t\":\"ping\",\"id\":9007199254740992}", true, PROTO_BAD_FIELD,
          "id");
    ck_assert_int_eq(m.id.kind, 0); /* not echoed */
    FAILS("{\"t\":\"ping\",\"id\":1.5}", true, PROTO_BAD_FIELD, "id");
    FAILS("{\"t\":\"ping\",\"id\":[1]}", true, PROTO_BAD_FIELD, "id");
    char big[200];
    snprintf(big, sizeof big, "{\"t\":\"ping\",\"id\":\"%065d\"}", 0);
    FAILS(big, true, PROTO_BAD_FIELD, "id");
    snprintf(big, sizeof big, "{\"t\":\"ping\",\"id\":\"%064d\"}", 0);
    ck_assert_int_eq(parse(big, true), 0);
    /* a valid id is kept for the echo even when a later check fails */
    FAILS("{\"t\":\"nope\",\"id\":7}", true, PROTO_UNKNOWN_TYPE, NULL);
    ck_assert_int_eq(m.id.kind, 2);
    ck_assert(m.id.num == 7);
}
END_TEST

START_TEST(fields)
{
    FAILS("{\"t\":\"ping\",\"x\":1}", true, PROTO_BAD_FIELD, "'x'");
    FAILS("{\"t\":\"move\",\"game\":\"g1\",\"uci\":\"e2e4\"}", true,
          PROTO_BAD_FIELD, "ply: missing");
    FAILS("{\"t\":\"move\",\"game\":\"g1\",\"uci\":\"e2e4\",\"ply\":\"0\"}",
          true, PROTO_BAD_FIELD, "ply");
    FAILS("{\"t\":\"move\",\"game\":\"g1\",\"uci\":\"e2e4\",\"ply\":-1}",
          true, PROTO_BAD_FIELD, "ply");
    FAILS("{\"t\":\"move\",\"game\":\"g1\",\"uci\":\"E2E4\",\"ply\":0}", true,
          PROTO_BAD_FIELD, "uci");
    FAILS("{\"t\":\"move\",\"game\":\"g1\",\"uci\":\"e2e9\",\"ply\":0}", true,
          PROTO_BAD_FIELD, "uci");
    FAILS("{\"t\":\"move\",\"game\":\"g1\",\"uci\":\"e7e8k\",\"ply\":0}",
          true, PROTO_BAD_FIELD, "uci");
    FAILS("{\"t\":\"move\",\"game\":\"a b\",\"uci\":\"e2e4\",\"ply\":0}",
          true, PROTO_BAD_FIELD, "game");
    FAILS("{\"t\":\"join\",\"game\":\"\"}", true, PROTO_BAD_FIELD, "game");
    FAILS("{\"t\":\"join\",\"game\":"
          "\"123456789012345678901234567890123\"}",
          true, PROTO_BAD_FIELD, "game");
    FAILS("{\"t\":\"join\"}", true, PROTO_BAD_FIELD, "game: missing");
    ck_assert_int_eq(parse("{\"t\":\"move\",\"game\":\"A_b-9\",\"uci\":"
                           "\"e7e8q\",\"ply\":12}",
                           true),
                     0);
    ck_assert_str_eq(m.game, "A_b-9");
    ck_assert_str_eq(m.uci, "e7e8q");
    ck_assert_int_eq(m.ply, 12);
    ck_assert_int_eq(parse("{\"t\":\"draw_claim\",\"game\":\"g\"}", true), 0);
    ck_assert_int_eq(m.ply, -1);
    ck_assert_str_eq(m.uci, "");
}
END_TEST

START_TEST(hello_fields)
{
    ck_assert_int_eq(parse("{\"t\":\"hello\",\"name\":\"al_ice-1\"}", false),
                     0);
    ck_assert_str_eq(m.name, "al_ice-1");
    FAILS("{\"t\":\"hello\",\"name\":\"\"}", false, PROTO_BAD_FIELD, "name");
    FAILS("{\"t\":\"hello\",\"name\":\"a b\"}", false, PROTO_BAD_FIELD,
          "name");
    FAILS("{\"t\":\"hello\",\"name\":\"abcdefghijklmnopqrstu\"}", false,
          PROTO_BAD_FIELD, "name");
    FAILS("{\"t\":\"hello\",\"name\":\"\\u00e9\"}", false, PROTO_BAD_FIELD,
          "name");
    FAILS("{\"t\":\"hello\",\"name\":3}", false, PROTO_BAD_FIELD, "name");
    ck_assert_int_eq(parse("{\"t\":\"hello\",\"token\":\"xyz\"}", false), 0);
    ck_assert_str_eq(m.token, "xyz");
    FAILS("{\"t\":\"hello\",\"token\":\"\"}", false, PROTO_BAD_FIELD,
          "token");
    FAILS("{\"t\":\"hello\",\"token\":\"x\",\"name\":\"y\"}", false,
          PROTO_BAD_FIELD, "not both");
}
END_TEST

/* my_games takes nothing; test_clock one integer advance_s, 1 s to 31
 * days (PROTOCOL.md "Your games", "Test time"). */
START_TEST(my_games_and_test_clock)
{
    ck_assert_int_eq(parse("{\"t\":\"my_games\",\"id\":3}", true), 0);
    ck_assert_int_eq(m.type, PROTO_T_MY_GAMES);
    FAILS("{\"t\":\"my_games\",\"game\":\"g\"}", true, PROTO_BAD_FIELD,
          "game");
    FAILS("{\"t\":\"my_games\"}", false, PROTO_UNAUTHENTICATED, NULL);
    ck_assert_int_eq(
        parse("{\"t\":\"test_clock\",\"advance_s\":2678400}", true), 0);
    ck_assert_int_eq(m.type, PROTO_T_TEST_CLOCK);
    ck_assert_int_eq(m.advance_s, 31 * 86400);
    FAILS("{\"t\":\"test_clock\"}", true, PROTO_BAD_FIELD, "advance_s");
    FAILS("{\"t\":\"test_clock\",\"advance_s\":0}", true, PROTO_BAD_FIELD,
          "advance_s: an integer from 1 to 2678400");
    FAILS("{\"t\":\"test_clock\",\"advance_s\":2678401}", true,
          PROTO_BAD_FIELD, "advance_s");
    FAILS("{\"t\":\"test_clock\",\"advance_s\":1.5}", true, PROTO_BAD_FIELD,
          "advance_s");
}
END_TEST

START_TEST(clocks)
{
    ck_assert_int_eq(parse("{\"t\":\"seek\",\"clock\":{\"type\":\"fischer\","
                           "\"initial_s\":300,\"increment_s\":2},\"color\":"
                           "\"white\"}",
                           true),
                     0);
    ck_assert_int_eq(m.clock.per_move, 0);
    ck_assert_int_eq(m.clock.initial_s, 300);
    ck_assert_int_eq(m.clock.increment_s, 2);
    ck_assert_int_eq(m.color, PROTO_WHITE);
    ck_assert_int_eq(parse("{\"t\":\"seek\",\"clock\":{\"type\":"
                           "\"per_move\",\"per_move_s\":86400}}",
                           true),
                     0);
    ck_assert_int_eq(m.clock.per_move, 1);
    ck_assert_int_eq(m.color, PROTO_RANDOM);
    FAILS("{\"t\":\"seek\"}", true, PROTO_BAD_FIELD, "clock: missing");
    FAILS("{\"t\":\"seek\",\"clock\":3}", true, PROTO_BAD_CLOCK, NULL);
    FAILS("{\"t\":\"seek\",\"clock\":{\"type\":\"bullet\"}}", true,
          PROTO_BAD_CLOCK, "type");
    FAILS("{\"t\":\"seek\",\"clock\":{\"type\":\"fischer\",\"initial_s\":0,"
          "\"increment_s\":0}}",
          true, PROTO_BAD_CLOCK, "initial_s");
    FAILS("{\"t\":\"seek\",\"clock\":{\"type\":\"fischer\",\"initial_s\":"
          "10801,\"increment_s\":0}}",
          true, PROTO_BAD_CLOCK, "initial_s");
    FAILS("{\"t\":\"seek\",\"clock\":{\"type\":\"fischer\",\"initial_s\":60,"
          "\"increment_s\":11}}",
          true, PROTO_BAD_CLOCK, "increment_s");
    FAILS("{\"t\":\"seek\",\"clock\":{\"type\":\"fischer\",\"initial_s\":60"
          "}}",
          true, PROTO_BAD_CLOCK, NULL);
    FAILS("{\"t\":\"seek\",\"clock\":{\"type\":\"fischer\",\"initial_s\":1.5,"
          "\"increment_s\":0}}",
          true, PROTO_BAD_CLOCK, "initial_s");
    FAILS("{\"t\":\"seek\",\"clock\":{\"type\":\"fischer\",\"initial_s\":60,"
          "\"increment_s\":0,\"extra\":1}}",
          true, PROTO_BAD_CLOCK, NULL);
    FAILS("{\"t\":\"seek\",\"clock\":{\"type\":\"per_move\",\"per_move_s\":"
          "1209601}}",
          true, PROTO_BAD_CLOCK, "per_move_s");
    /* a bad field is reported before a bad clock */
    FAILS("{\"t\":\"seek\",\"clock\":{},\"color\":\"green\"}", true,
          PROTO_BAD_FIELD, "color");
}
END_TEST

START_TEST(invite_fen)
{
    const char *clk = "\"clock\":{\"type\":\"per_move\",\"per_move_s\":5}";
    char buf[512];
    snprintf(buf, sizeof buf, "{\"t\":\"invite\",%s,\"fen\":\"%s\"}", clk,
             "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    ck_assert_int_eq(parse(buf, true), 0);
    ck_assert_str_eq(m.fen, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    /* the en-passant square is normalised away when no capture exists */
    snprintf(buf, sizeof buf, "{\"t\":\"invite\",%s,\"fen\":\"%s\"}", clk,
             "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1");
    ck_assert_int_eq(parse(buf, true), 0);
    ck_assert_str_eq(m.fen, "4k3/8/8/8/4P3/8/8/4K3 b - - 0 1");
    snprintf(buf, sizeof buf, "{\"t\":\"invite\",%s,\"fen\":\"%s\"}", clk,
             "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    FAILS(buf, true, PROTO_BAD_FIELD, "dead");
    snprintf(buf, sizeof buf, "{\"t\":\"invite\",%s,\"fen\":\"%s\"}", clk,
             "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    FAILS(buf, true, PROTO_BAD_FIELD, "no legal move");
    snprintf(buf, sizeof buf, "{\"t\":\"invite\",%s,\"fen\":\"%s\"}", clk,
             "4k3/8/8/8/8/8/4P3/4K3 w - - 150 80");
    FAILS(buf, true, PROTO_BAD_FIELD, "150");
    snprintf(buf, sizeof buf, "{\"t\":\"invite\",%s,\"fen\":\"%s\"}", clk,
             "4k3/8/8/8/8/8/4P3/4K3 w - -");
    FAILS(buf, true, PROTO_BAD_FIELD, board_fen_strerror(FEN_ERR_FIELDS));
    snprintf(buf, sizeof buf, "{\"t\":\"invite\",%s,\"fen\":\"%s\"}", clk,
             "4k3/8/8/8/8/8/4P3/4KK2 w - - 0 1");
    FAILS(buf, true, PROTO_BAD_FIELD, board_fen_strerror(FEN_ERR_KINGS));
    /* bad fen beats bad clock */
    FAILS("{\"t\":\"invite\",\"clock\":{},\"fen\":\"x\"}", true,
          PROTO_BAD_FIELD, "fen");
}
END_TEST

/* Parses rendered text back and returns the object (caller decrefs). */
static json_t *load(char *s)
{
    json_error_t err;
    ck_assert_ptr_nonnull(s);
    json_t *o = json_loads(s, 0, &err);
    ck_assert_ptr_nonnull(o);
    free(s);
    return o;
}

START_TEST(render_error_echoes_id)
{
    struct proto_id id = {1, 2, "ab", 0};
    json_t *o = load(proto_render_error(PROTO_STALE_PLY, "late", &id));
    ck_assert_str_eq(json_string_value(json_object_get(o, "t")), "error");
    ck_assert_str_eq(json_string_value(json_object_get(o, "code")),
                     "stale_ply");
    ck_assert_str_eq(json_string_value(json_object_get(o, "id")), "ab");
    json_decref(o);
    o = load(proto_render_error(PROTO_BAD_JSON, "x", NULL));
    ck_assert_ptr_null(json_object_get(o, "id"));
    json_decref(o);
    struct proto_id n = {2, 0, "", 42};
    o = load(proto_render_pong(&n));
    ck_assert_int_eq(json_integer_value(json_object_get(o, "id")), 42);
    json_decref(o);
}
END_TEST

START_TEST(render_store_stall)
{
    char *s = proto_render_store_stall(false, 1234);
    ck_assert_str_eq(s, "{\"t\":\"store_stall\",\"stalled_ms\":1234}");
    free(s);
    s = proto_render_store_stall(true, 9000);
    ck_assert_str_eq(s, "{\"t\":\"store_resumed\",\"stalled_ms\":9000}");
    free(s);
}
END_TEST

START_TEST(rematch_messages)
{
    ck_assert_int_eq(parse("{\"t\":\"rematch\",\"game\":\"g1\"}", true), 0);
    ck_assert_int_eq(m.type, PROTO_T_REMATCH);
    ck_assert_str_eq(m.game, "g1");
    ck_assert_int_eq(
        parse("{\"t\":\"rematch_decline\",\"game\":\"g1\",\"id\":3}", true),
        0);
    ck_assert_int_eq(m.type, PROTO_T_REMATCH_DECLINE);
    FAILS("{\"t\":\"rematch\"}", true, PROTO_BAD_FIELD, "game: missing");
    FAILS("{\"t\":\"rematch_decline\",\"game\":\"a b\"}", true,
          PROTO_BAD_FIELD, "game");
    FAILS("{\"t\":\"rematch\",\"game\":\"g1\",\"color\":\"white\"}", true,
          PROTO_BAD_FIELD, "'color'");
    FAILS("{\"t\":\"rematch\",\"game\":\"g1\"}", false, PROTO_UNAUTHENTICATED,
          NULL);
    ck_assert_str_eq(proto_code_name(PROTO_NO_REMATCH), "no_rematch");
    ck_assert_str_eq(proto_type_name(PROTO_T_REMATCH_DECLINE),
                     "rematch_decline");

    char *s = proto_render_draw("rematch_offered", "g1", 1);
    ck_assert_str_eq(
        s, "{\"t\":\"rematch_offered\",\"game\":\"g1\",\"color\":\"black\"}");
    free(s);
    s = proto_render_rematch_declined("g1", 0, "left");
    ck_assert_str_eq(s,
                     "{\"t\":\"rematch_declined\",\"game\":\"g1\",\"color\":"
                     "\"white\",\"reason\":\"left\"}");
    free(s);
    s = proto_render_rematch_declined("g1", -1, "expired");
    ck_assert_str_eq(s,
                     "{\"t\":\"rematch_declined\",\"game\":\"g1\",\"color\":"
                     "null,\"reason\":\"expired\"}");
    free(s);
}
END_TEST

START_TEST(challenge_messages)
{
    ck_assert_int_eq(
        parse("{\"t\":\"challenge\",\"to\":\"Bob\",\"clock\":{\"type\":"
              "\"fischer\",\"initial_s\":180,\"increment_s\":2},\"color\":"
              "\"black\",\"rated\":true}",
              true),
        0);
    ck_assert_int_eq(m.type, PROTO_T_CHALLENGE);
    ck_assert_str_eq(m.to, "Bob");
    ck_assert_int_eq(m.color, PROTO_BLACK);
    ck_assert(m.rated);
    FAILS("{\"t\":\"challenge\",\"to\":\"Bob\"}", true, PROTO_BAD_FIELD,
          "clock: missing");
    FAILS("{\"t\":\"challenge\",\"to\":\"a b\",\"clock\":{}}", true,
          PROTO_BAD_FIELD, "to:");
    ck_assert_int_eq(
        parse("{\"t\":\"challenge_decline\",\"challenge\":\"c1\"}", true), 0);
    ck_assert_int_eq(m.reason, PROTO_DECLINE_GENERIC);
    ck_assert_int_eq(parse("{\"t\":\"challenge_decline\",\"challenge\":"
                           "\"c1\",\"reason\":\"tooFast\"}",
                           true),
                     0);
    ck_assert_int_eq(m.reason, PROTO_DECLINE_TOO_FAST);
    FAILS("{\"t\":\"challenge_decline\",\"challenge\":\"c1\",\"reason\":"
          "\"toofast\"}",
          true, PROTO_BAD_FIELD, "reason:");
    FAILS("{\"t\":\"challenge_cancel\",\"challenge\":\"c1\",\"reason\":"
          "\"later\"}",
          true, PROTO_BAD_FIELD, "'reason'");
    FAILS("{\"t\":\"challenge_accept\"}", true, PROTO_BAD_FIELD,
          "challenge: missing");
    ck_assert_int_eq(parse("{\"t\":\"challenges\"}", true), 0);
    ck_assert_int_eq(m.type, PROTO_T_CHALLENGES);
    for (int r = 0; r < PROTO_DECLINE_COUNT; r++)
        ck_assert_int_eq(proto_decline_parse(proto_decline_name(r)), r);

    struct proto_challenge c = {
        .id = "c1",
        .status = "declined",
        .challenger = {.id = "pa", .name = "Al", .has_account = true},
        .dest = {.id = "pb",
                 .name = "Bo",
                 .has_account = true,
                 .account = true},
        .clock = {.initial_s = 180, .increment_s = 2},
        .color = PROTO_WHITE,
        .decline = PROTO_DECLINE_LATER,
    };
    char *s = proto_render_challenge(&c, NULL);
    ck_assert_str_eq(
        s, "{\"t\":\"challenge\",\"challenge\":{\"id\":\"c1\",\"status\":"
           "\"declined\",\"challenger\":{\"id\":\"pa\",\"name\":\"Al\","
           "\"account\":false},\"dest\":{\"id\":\"pb\",\"name\":\"Bo\","
           "\"account\":true},\"clock\":{\"type\":\"fischer\","
           "\"initial_s\":180,\"increment_s\":2},\"color\":\"white\","
           "\"rated\":false,\"decline_reason\":\"later\",\"game\":null,"
           "\"expires_ms\":null}}");
    free(s);
    /* lichess's ChallengeJson of the same challenge */
    json_t *o = load(
        proto_render_challenge_lichess(&c, "https://x.org", true, -1));
    ck_assert_str_eq(json_string_value(json_object_get(o, "url")),
                     "https://x.org/c1");
    ck_assert_str_eq(json_string_value(json_object_get(o, "speed")), "blitz");
    ck_assert_str_eq(json_string_value(json_object_get(o, "direction")),
                     "in");
    ck_assert_str_eq(
        json_string_value(json_object_get(o, "declineReasonKey")), "later");
    ck_assert_str_eq(
        json_string_value(json_object_get(o, "declineReason")),
        "This is not the right time for me, please ask again later.");
    json_t *tc = json_object_get(o, "timeControl");
    ck_assert_str_eq(json_string_value(json_object_get(tc, "show")), "3+2");
    ck_assert_int_eq(json_integer_value(json_object_get(tc, "limit")), 180);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(o, "destUser"), "name")),
                     "Bo");
    /* finalColor: the challenger's wish, or the coin of a random one's
     * id (its first character's lowest bit), decided from the start */
    ck_assert_str_eq(json_string_value(json_object_get(o, "finalColor")),
                     "white");
    json_decref(o);
    c.color = PROTO_RANDOM;
    for (int i = 0; i < 2; i++) {
        c.id = i ? "Bxyz" : "Axyz";
        ck_assert_int_eq(proto_challenge_side(&c), i);
        o = load(proto_render_challenge_lichess(&c, "", false, -1));
        ck_assert_str_eq(json_string_value(json_object_get(o, "color")),
                         "random");
        ck_assert_str_eq(json_string_value(json_object_get(o, "finalColor")),
                         i ? "black" : "white");
        json_decref(o);
    }
}
END_TEST

/* proto_write_moved's text, malloc'ed: in a buffer of exactly
 * proto_moved_size bytes (ASan and valgrind see a write past it), which
 * the text and its terminator must fit. */
static char *moved_text(const struct proto_moved *m)
{
    size_t size = proto_moved_size(m);
    char *out = malloc(size);
    size_t len;

    ck_assert_ptr_nonnull(out);
    len = proto_write_moved(m, out);
    ck_assert_uint_lt(len, size);
    ck_assert_uint_eq(strlen(out), len);
    return out;
}

START_TEST(render_state_and_moved)
{
    static const char moves[][UCI_MAX] = {"e2e4"};
    static const char san[][SAN_MAX] = {"e4"};
    static const char legal[][UCI_MAX] = {"a7a5", "a7a6"};
    static const int64_t lags[] = {87};
    struct proto_state s = {
        .game = "G1",
        .white = {"p1", "al"},
        .black = {NULL, NULL},
        .clock = {0, 60, 1, 0},
        .initial_fen = FEN_START,
        .moves = moves,
        .san = san,
        .lags = lags,
        .n = 1,
        .fen = "x",
        .ply = 1,
        .to_move = 1,
        .clocks = {60000, 59000, 1},
        .first_move_ms = -1,
        .status = "started",
        .draw_offer = -1,
        .takeback = -1,
        .gone_ms = {-1, 1234},
        .rtt_ms = {0, 87},
        .legal = legal,
        .n_legal = 2,
    };
    json_t *o = load(proto_render_state(&s, NULL));
    ck_assert_str_eq(json_string_value(json_object_get(o, "t")), "state");
    ck_assert(json_is_null(json_object_get(o, "black")));
    ck_assert(json_is_null(json_object_get(o, "first_move_ms")));
    ck_assert(json_is_null(json_object_get(o, "draw_offer")));
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(o, "clocks"), "running")),
                     "black");
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_object_get(o, "gone"), "black")),
                     1234);
    /* a seat's round trip: null until measured */
    ck_assert(
        json_is_null(json_object_get(json_object_get(o, "rtt"), "white")));
    ck_assert_int_eq(json_integer_value(
                         json_object_get(json_object_get(o, "rtt"), "black")),
                     87);
    ck_assert_int_eq(json_array_size(json_object_get(o, "legal")), 2);
    ck_assert_int_eq(json_array_size(json_object_get(o, "lags")), 1);
    ck_assert_int_eq(
        json_integer_value(json_array_get(json_object_get(o, "lags"), 0)),
        87);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(o, "clock"), "type")),
                     "fischer");
    ck_assert_ptr_null(json_object_get(o, "result"));
    /* no opening named: null */
    ck_assert(json_is_null(json_object_get(o, "opening")));
    /* no tournament: no "event" */
    ck_assert_ptr_null(json_object_get(o, "event"));
    json_decref(o);
    struct proto_event_link ev = {
        .kind = "arena", .id = "E1", .name = "Night", .berserk = true};
    s.event = &ev;
    o = load(proto_render_state(&s, NULL));
    json_t *x = json_object_get(o, "event");
    ck_assert_str_eq(json_string_value(json_object_get(x, "id")), "E1");
    ck_assert_str_eq(json_string_value(json_object_get(x, "kind")), "arena");
    ck_assert_str_eq(json_string_value(json_object_get(x, "name")), "Night");
    ck_assert(json_is_true(json_object_get(x, "berserk")));
    ck_assert_int_eq(json_object_size(x), 4);
    json_decref(o);
    s.event = NULL;
    s.opening_eco = "B00";
    s.opening_name = "King's Pawn Game";
    o = load(proto_render_state(&s, NULL));
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(o, "opening"), "eco")),
                     "B00");
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(o, "opening"), "name")),
                     "King's Pawn Game");
    json_decref(o);
    s.result = "1-0";
    s.reason = "checkmate";
    s.api = true;
    s.created_ms = 5;
    o = load(proto_render_state(&s, NULL));
    ck_assert_ptr_null(json_object_get(o, "t"));
    ck_assert_str_eq(json_string_value(json_object_get(o, "reason")),
                     "checkmate");
    ck_assert_int_eq(json_integer_value(json_object_get(o, "created_ms")), 5);
    ck_assert(json_is_null(json_object_get(o, "ended_ms")));
    json_decref(o);

    static const move_t legal_moves[] = {MOVE_MAKE(SQ(0, 6), SQ(0, 4)),
                                         MOVE_MAKE(SQ(0, 6), SQ(0, 5))};
    struct board start;
    ck_assert_int_eq(board_from_fen(&start, FEN_START), FEN_OK);
    struct proto_moved mv = {
        .game = "G1",
        .ply = 1,
        .uci = "e2e4",
        .san = "e4",
        .board = &start,
        .clocks = {1, 2, -1},
        .first_move_ms = 30000,
        .rtt_ms = 142,
        .draw_offer = 0,
        .legal = legal_moves,
        .n_legal = 2,
        .claimable = true,
    };
    o = load(moved_text(&mv));
    ck_assert_int_eq(json_integer_value(json_object_get(o, "rtt_ms")), 142);
    ck_assert_str_eq(
        json_string_value(json_array_get(json_object_get(o, "legal"), 1)),
        "a7a6");
    ck_assert_str_eq(json_string_value(json_object_get(o, "fen")), FEN_START);
    ck_assert_str_eq(json_string_value(json_object_get(o, "t")), "moved");
    ck_assert_int_eq(json_integer_value(json_object_get(o, "first_move_ms")),
                     30000);
    ck_assert_str_eq(json_string_value(json_object_get(o, "draw_offer")),
                     "white");
    ck_assert(json_is_true(json_object_get(o, "claimable")));
    ck_assert(json_is_null(
        json_object_get(json_object_get(o, "clocks"), "running")));
    ck_assert_ptr_null(json_object_get(o, "id"));
    /* no opening field unless the move changed the game's opening */
    ck_assert_ptr_null(json_object_get(o, "opening"));
    json_decref(o);
    mv.opening_eco = "B00";
    mv.opening_name = "King's Pawn Game";
    o = load(moved_text(&mv));
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(o, "opening"), "name")),
                     "King's Pawn Game");
    json_decref(o);
}
END_TEST

/* The old jansson rendering of `moved`, kept as the reference. */
static char *moved_by_jansson(const struct proto_moved *m)
{
    json_t *legal = json_array(), *claim = json_array(), *o;
    char *text;

    char uci[UCI_MAX], fen[FEN_MAX];

    board_to_fen(m->board, fen);
    for (size_t i = 0; i < m->n_legal; i++) {
        notation_uci(m->legal[i], uci);
        json_array_append_new(legal, json_string(uci));
    }
    for (size_t i = 0; i < m->n_claim; i++) {
        notation_uci(m->claim_moves[i], uci);
        json_array_append_new(claim, json_string(uci));
    }
    o = json_pack(
        "{s:s,s:s,s:i,s:s,s:s,s:s,s:b,s:{s:I,s:I,s:o},s:o,s:I,s:o,s:o,s:o,"
        "s:b,s:o}",
        "t", "moved", "game", m->game, "ply", m->ply, "uci", m->uci, "san",
        m->san, "fen", fen, "check", m->check, "clocks", "white_ms",
        (json_int_t)m->clocks.white_ms, "black_ms",
        (json_int_t)m->clocks.black_ms, "running",
        m->clocks.running < 0
            ? json_null()
            : json_string(proto_color_name(m->clocks.running)),
        "first_move_ms",
        m->first_move_ms < 0 ? json_null() : json_integer(m->first_move_ms),
        "lag_ms", (json_int_t)m->lag_ms, "rtt_ms",
        m->rtt_ms > 0 ? json_integer(m->rtt_ms) : json_null(), "draw_offer",
        m->draw_offer < 0 ? json_null()
                          : json_string(proto_color_name(m->draw_offer)),
        "legal", legal, "claimable", m->claimable, "claim_moves", claim);
    ck_assert_ptr_nonnull(o);
    if (m->opening_eco)
        json_object_set_new(o, "opening",
                            json_pack("{s:s,s:s}", "eco", m->opening_eco,
                                      "name", m->opening_name));
    text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return text;
}

/* proto_write_moved writes its text by hand: byte for byte what jansson
 * writes, over every combination of nulls and flags, empty to 218-entry
 * lists, the extreme integers, FENs with castling rights, an en-passant
 * square and long counters, strings with every byte, including the
 * longest escapes, and with or without an opening, in a buffer of exactly
 * proto_moved_size bytes. */
START_TEST(moved_matches_jansson)
{
    static move_t legal[218];
    static char every[256], worst[300];
    static const char *const games[] = {"G1", "a\"b\\c\n\x01\x1f/\t\r\b\f",
                                        every, worst};
    static const char *const fens[] = {
        FEN_START,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w Kq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 149 9999",
    };
    static const size_t sizes[] = {0, 1, 2, 37, 218};
    struct board boards[3];
    int cases = 0;

    /* every ASCII byte but NUL (controls, '"', '\\', '/', DEL) and UTF-8
     * of two, three and four bytes (jansson takes only valid UTF-8, as
     * the protocol does), and the longest escape over and over */
    for (int c = 1; c < 128; c++)
        every[c - 1] = (char)c;
    strcpy(every + 127, "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e");
    memset(worst, 0x1f, sizeof worst - 1);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(board_from_fen(&boards[i], fens[i]), FEN_OK);
    /* every square, every kind of move, each promotion piece */
    for (int i = 0; i < 218; i++) {
        int from = i % 64, to = (i * 7 + 3) % 64;
        legal[i] = i % 11 == 0   ? MOVE_MAKE_PROMO(from, to, KNIGHT + i % 4)
                   : i % 13 == 0 ? MOVE_MAKE_KIND(from, to, MOVE_CASTLING)
                   : i % 17 == 0 ? MOVE_MAKE_KIND(from, to, MOVE_EN_PASSANT)
                                 : MOVE_MAKE(from, to);
    }
    for (int bits = 0; bits < 256; bits++)
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            struct proto_moved m = {
                .game = games[(bits & 1) | (bits >> 6 & 2)],
                .ply = bits * 37,
                .uci = bits & 64 ? "e7e8q" : "\"\\",
                .san = bits & 64 ? "e8=Q+" : "\x7f\xc3\xa9",
                .board = &boards[bits % 3],
                .check = bits & 2,
                .clocks = {bits & 4    ? INT64_MAX
                           : bits & 64 ? INT64_MIN
                                       : 0,
                           59999, (bits >> 3) % 3 - 1},
                .first_move_ms = bits & 16 ? -1 : 30000,
                .lag_ms = bits & 4 ? 0 : 37 * bits,
                .rtt_ms = bits & 8   ? 0
                          : bits & 4 ? INT64_MAX
                                     : 3 * bits,
                .draw_offer = bits & 32 ? -1 : bits & 1,
                .legal = legal,
                .n_legal = sizes[k],
                .claimable = bits & 8,
                .claim_moves = legal + 5,
                .n_claim = sizes[k] / 3,
                /* an opening in odd sizes' cases, with the worst names */
                .opening_eco = k % 2 ? "C20" : NULL,
                .opening_name = k % 2 ? games[bits % 4] : NULL,
            };
            char *want = moved_by_jansson(&m);
            char *got = moved_text(&m);
            ck_assert_str_eq(got, want);
            free(got);
            free(want);
            cases++;
        }
    ck_assert_int_eq(cases, 1280);
}
END_TEST

/* proto_parse and proto_parse_json (jansson alone) give the same message,
 * or the same error, for every input. */
static void same_as_jansson(const char *text, size_t len, bool authed)
{
    struct proto_msg m2;
    struct proto_error e2;
    int rc = proto_parse(text, len, authed, &m, &e);

    ck_assert_int_eq(proto_parse_json(text, len, authed, &m2, &e2), rc);
    ck_assert_msg(!memcmp(&m, &m2, sizeof m) && !memcmp(&e, &e2, sizeof e),
                  "'%.*s' parses differently without jansson", (int)len,
                  text);
}

START_TEST(move_shortcut_matches_jansson)
{
    static const char *const good[] = {
        "{\"t\":\"move\",\"game\":\"g1\",\"uci\":\"e2e4\",\"ply\":0}",
        " {\"ply\":12 , "
        "\"uci\":\"e7e8q\",\"t\":\"move\",\"game\":\"a-_Z9\"}\n",
        "{\"t\":\"move\",\"id\":\"x y\",\"game\":\"g\",\"uci\":\"a1h8\","
        "\"ply\":100000}",
        "{\"id\":-0,\"t\":\"move\",\"game\":\"g\",\"uci\":\"a1a2\",\"ply\":"
        "7}",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"a1a2\",\"ply\":7,"
        "\"id\":999999999999999}",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"a1a2\",\"ply\":7,"
        "\"id\":-999999999999999}",
        /* an escape: jansson reads it */
        "{\"t\":\"move\",\"game\":\"g\\u0031\",\"uci\":\"e2e4\",\"ply\":1}",
    };
    static const char *const near[] = {
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"e2e4\",\"ply\":01}",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"e2e4\",\"ply\":1.0}",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"e2e4\",\"ply\":1e2}",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"e2e4\",\"ply\":-1}",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"e2e4\",\"ply\":100001}",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"e2e4\",\"ply\":\"1\"}",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"e2e9\",\"ply\":1}",
        "{\"t\":\"move\",\"game\":\"g!\",\"uci\":\"e2e4\",\"ply\":1}",
        "{\"t\":\"move\",\"game\":\"\",\"uci\":\"e2e4\",\"ply\":1}",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"e2e4\"}",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"e2e4\",\"ply\":1,}",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"e2e4\",\"ply\":1} x",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"e2e4\",\"ply\":1,\"x\":1}",
        "{\"t\":\"move\",\"game\":\"g\",\"game\":\"h\",\"uci\":\"e2e4\","
        "\"ply\":1}",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"e2e4\",\"ply\":1,"
        "\"id\":9999999999999999}",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"e2e4\",\"ply\":1,"
        "\"id\":\"" /* 65 bytes */
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\""
        "}",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"e2e4\",\"ply\":1,\"id\":"
        "true}",
        "{\"t\":\"movE\",\"game\":\"g\",\"uci\":\"e2e4\",\"ply\":1}",
        "{\"t\":\"move\",\"game\":\"g\",\"uci\":\"e2e4\",\"ply\":1",
        "{\"t\":\"move\",\"game\":\"g\xc3\xa9\",\"uci\":\"e2e4\",\"ply\":1}",
    };
    /* a NUL inside, as a client may send one */
    static const char nul[] =
        "{\"t\":\"move\",\"game\":\"g\0\",\"uci\":\"e2e4\",\"ply\":1}";
    const char *base = good[0];
    char buf[128];
    uint32_t seed = 12345;

    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        same_as_jansson(good[i], strlen(good[i]), true);
        ck_assert_msg(m.type == PROTO_T_MOVE && e.code == PROTO_OK, "%s",
                      good[i]);
        same_as_jansson(good[i], strlen(good[i]), false);
        ck_assert_int_eq(e.code, PROTO_UNAUTHENTICATED);
    }
    for (size_t i = 0; i < sizeof near / sizeof *near; i++) {
        same_as_jansson(near[i], strlen(near[i]), true);
        ck_assert_msg(e.code != PROTO_OK, "%s", near[i]);
    }
    same_as_jansson(nul, sizeof nul - 1, true);
    ck_assert_int_ne(e.code, PROTO_OK);
    /* one to three bytes of a good message changed, inserted or dropped */
    for (int i = 0; i < 200000; i++) {
        size_t n = strlen(base);
        memcpy(buf, base, n);
        for (int k = 0, edits = 1 + i % 3; k < edits; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % n;
            char c = " \"{}:,-.01e9\\gmtx"[(seed >> 20) % 17];
            switch ((seed >> 28) % 3) {
            case 0:
                buf[at] = c;
                break;
            case 1:
                memmove(buf + at + 1, buf + at, n - at);
                buf[at] = c, n++;
                break;
            default:
                memmove(buf + at, buf + at + 1, n - at - 1);
                n--;
            }
        }
        same_as_jansson(buf, n, true);
    }
}
END_TEST

/* register, login and logout: which come before hello, their fields'
 * types and limits, in the check order. */
START_TEST(account_fields)
{
    char big[300];

    /* login before hello, register and logout not */
    ck_assert_int_eq(parse("{\"t\":\"login\",\"username\":\"al\","
                           "\"password\":\"secret12\"}",
                           false),
                     0);
    ck_assert_int_eq(m.type, PROTO_T_LOGIN);
    ck_assert_str_eq(m.username, "al");
    ck_assert_str_eq(m.password, "secret12");
    ck_assert_uint_eq(m.password_len, 8);
    FAILS("{\"t\":\"register\",\"username\":\"al\",\"password\":\"x\"}",
          false, PROTO_UNAUTHENTICATED, NULL);
    FAILS("{\"t\":\"logout\"}", false, PROTO_UNAUTHENTICATED, NULL);
    ck_assert_int_eq(parse("{\"t\":\"logout\"}", true), 0);
    ck_assert(!m.everywhere);
    ck_assert_int_eq(parse("{\"t\":\"logout\",\"everywhere\":true}", true),
                     0);
    ck_assert(m.everywhere);
    ck_assert_int_eq(parse("{\"t\":\"logout\",\"everywhere\":false}", true),
                     0);
    ck_assert(!m.everywhere);
    FAILS("{\"t\":\"logout\",\"everywhere\":1}", true, PROTO_BAD_FIELD,
          "everywhere");
    FAILS("{\"t\":\"logout\",\"username\":\"al\"}", true, PROTO_BAD_FIELD,
          "unknown field 'username'");
    /* both fields required; strings; within their limits */
    FAILS("{\"t\":\"register\",\"username\":\"al\"}", true, PROTO_BAD_FIELD,
          "password: missing");
    FAILS("{\"t\":\"login\",\"password\":\"secret12\"}", false,
          PROTO_BAD_FIELD, "username: missing");
    FAILS("{\"t\":\"login\",\"username\":5,\"password\":\"secret12\"}", false,
          PROTO_BAD_FIELD, "username: must be a string");
    FAILS("{\"t\":\"login\",\"username\":\"al\",\"password\":null}", false,
          PROTO_BAD_FIELD, "password: must be a string");
    /* (a NUL in a string is not JSON the server reads) */
    FAILS("{\"t\":\"login\",\"username\":\"al\",\"password\":\"a\\u0000b\"}",
          false, PROTO_BAD_JSON, NULL);
    memset(big, 0, sizeof big);
    snprintf(big, sizeof big,
             "{\"t\":\"login\",\"username\":\"al\",\"password\":\"%0128d\"}",
             0);
    ck_assert_int_eq(parse(big, false), 0);
    ck_assert_uint_eq(m.password_len, 128);
    snprintf(big, sizeof big,
             "{\"t\":\"login\",\"username\":\"al\",\"password\":\"%0129d\"}",
             0);
    FAILS(big, false, PROTO_BAD_FIELD, "password: at most 128 bytes");
    snprintf(big, sizeof big,
             "{\"t\":\"login\",\"username\":\"%065d\",\"password\":\"x\"}",
             0);
    FAILS(big, false, PROTO_BAD_FIELD, "username: at most 64 bytes");
    /* the username's shape is the server's to judge (bad_username or
     * bad_credentials), not the parser's */
    ck_assert_int_eq(parse("{\"t\":\"register\",\"username\":\"a b\","
                           "\"password\":\"\"}",
                           true),
                     0);
    ck_assert(proto_username_valid("ab"));
    ck_assert(proto_username_valid("A-b_9"));
    ck_assert(proto_username_valid("abcdefghijklmnopqrst"));
    ck_assert(!proto_username_valid("a"));
    ck_assert(!proto_username_valid("abcdefghijklmnopqrstu"));
    ck_assert(!proto_username_valid("a b"));
    ck_assert(!proto_username_valid("\xc3\xa9t\xc3\xa9"));
    ck_assert_uint_eq(proto_utf8_chars("\xc3\xa9t\xc3\xa9", 5), 3);
    ck_assert_uint_eq(proto_utf8_chars("\xf0\x9f\x98\x80", 4), 1);
}
END_TEST

/* RFC 3629 byte by byte, as proto_utf8_prefix was before it took ASCII
 * eight bytes at a time: the reference. */
static size_t utf8_prefix_slow(const unsigned char *p, size_t len)
{
    size_t i = 0;

    while (i < len) {
        unsigned c = p[i], min, cp;
        size_t n;
        if (c < 0x80) {
            i++;
            continue;
        }
        if ((c & 0xE0) == 0xC0)
            n = 1, min = 0x80, cp = c & 0x1F;
        else if ((c & 0xF0) == 0xE0)
            n = 2, min = 0x800, cp = c & 0x0F;
        else if ((c & 0xF8) == 0xF0)
            n = 3, min = 0x10000, cp = c & 0x07;
        else
            return i;
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

/* proto_utf8_prefix agrees with the byte-by-byte reference on ASCII runs
 * of every length and alignment followed by every kind of sequence
 * (valid, overlong, surrogate, past U+10FFFF, cut short, a stray
 * continuation byte), and on random bytes. */
START_TEST(utf8_prefix_matches_the_byte_by_byte_reading)
{
    static const char *const tails[] = {
        "",         "\xc3\xa9",     "\xe2\x82\xac", "\xf0\x9f\x98\x80",
        "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
        "\xc3",     "\xe2\x82",     "\x80",         "\xff",
    };
    unsigned char buf[64];
    unsigned long long seed = 99;

    for (size_t run = 0; run < 40; run++)
        for (size_t t = 0; t < sizeof tails / sizeof *tails; t++)
            for (size_t after = 0; after < 10; after++) {
                size_t len = 0, k = strlen(tails[t]);
                memset(buf, 'a', run);
                len = run;
                memcpy(buf + len, tails[t], k);
                len += k;
                memset(buf + len, 'b', after);
                len += after;
                ck_assert_uint_eq(proto_utf8_prefix((char *)buf, len),
                                  utf8_prefix_slow(buf, len));
            }
    for (int i = 0; i < 20000; i++) {
        size_t len = (size_t)(i % 48);
        for (size_t j = 0; j < len; j++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            /* mostly ASCII, so that runs of eight occur */
            buf[j] = (unsigned char)(seed >> 60 ? (seed >> 33) & 0x7f
                                                : (seed >> 33) | 0x80);
        }
        ck_assert_uint_eq(proto_utf8_prefix((char *)buf, len),
                          utf8_prefix_slow(buf, len));
    }
}
END_TEST

START_TEST(render_account_messages)
{
    struct proto_me me = {"PID", "alice", true, NULL, 0, NULL, false};
    struct proto_id id = {1, 2, "r1", 0};
    const char *games[] = {"G1"};
    char *t;

    t = proto_render_registered(&me, "TOK", &id);
    ck_assert_str_eq(t, "{\"t\":\"registered\",\"player\":{\"id\":\"PID\","
                        "\"name\":\"alice\",\"account\":true,"
                        "\"ratings\":{}},\"token\":\"TOK\","
                        "\"settings\":null,\"id\":\"r1\"}");
    free(t);
    me.settings = "{\"sound\":false,\"premoves\":3}";
    t = proto_render_registered(&me, "TOK", NULL);
    ck_assert_str_eq(t, "{\"t\":\"registered\",\"player\":{\"id\":\"PID\","
                        "\"name\":\"alice\",\"account\":true,"
                        "\"ratings\":{}},\"token\":\"TOK\",\"settings\":"
                        "{\"sound\":false,\"premoves\":3}}");
    free(t);
    /* a guest's welcome has no settings, whatever it is given */
    me.account = false;
    t = proto_render_welcome(&me, "TOK", games, 1, NULL);
    ck_assert_str_eq(t, "{\"t\":\"welcome\",\"player\":{\"id\":\"PID\","
                        "\"name\":\"alice\",\"account\":false},\"token\":"
                        "\"TOK\",\"games\":[\"G1\"]}");
    free(t);
    t = proto_render_logged_out(&id);
    ck_assert_str_eq(t, "{\"t\":\"logged_out\",\"id\":\"r1\"}");
    free(t);
    t = proto_render_logged_out(NULL);
    ck_assert_str_eq(t, "{\"t\":\"logged_out\"}");
    free(t);
    ck_assert_str_eq(proto_code_name(PROTO_BAD_CREDENTIALS),
                     "bad_credentials");
    ck_assert_str_eq(proto_code_name(PROTO_ALREADY_REGISTERED),
                     "already_registered");
}
END_TEST

#define C5 \
    "\"clock\":{\"type\":\"fischer\",\"initial_s\":300,\"increment_s\":0}"

START_TEST(rated_fields)
{
    ck_assert_int_eq(parse("{\"t\":\"seek\"," C5 "}", true), 0);
    ck_assert(!m.rated);
    ck_assert(!m.has_range);
    ck_assert_int_eq(parse("{\"t\":\"seek\"," C5 ",\"rated\":true}", true),
                     0);
    ck_assert(m.rated);
    ck_assert(!m.has_range);
    ck_assert_int_eq(parse("{\"t\":\"seek\"," C5 ",\"rated\":true,"
                           "\"rating_range\":[1400,1600]}",
                           true),
                     0);
    ck_assert(m.has_range);
    ck_assert_int_eq(m.range_lo, 1400);
    ck_assert_int_eq(m.range_hi, 1600);
    ck_assert_int_eq(parse("{\"t\":\"seek\"," C5 ",\"rated\":true,"
                           "\"rating_range\":[0,4000]}",
                           true),
                     0);
    ck_assert_int_eq(parse("{\"t\":\"invite\"," C5 ",\"rated\":true}", true),
                     0);
    ck_assert(m.rated);
    FAILS("{\"t\":\"seek\"," C5 ",\"rated\":1}", true, PROTO_BAD_FIELD,
          "rated:");
    FAILS("{\"t\":\"seek\"," C5 ",\"rated\":\"yes\"}", true, PROTO_BAD_FIELD,
          "rated:");
    FAILS("{\"t\":\"seek\"," C5 ",\"rating_range\":[1,2]}", true,
          PROTO_BAD_FIELD, "only with");
    FAILS("{\"t\":\"seek\"," C5 ",\"rated\":false,\"rating_range\":[1,2]}",
          true, PROTO_BAD_FIELD, "only with");
    static const char *const bad[] = {
        "[1600,1400]", "[-1,100]",  "[0,4001]", "[1,2,3]", "[1]", "[]",
        "[1.5,2]",     "[\"1\",2]", "{}",       "1500",    "null"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "{\"t\":\"seek\"," C5 ",\"rated\":true,"
                 "\"rating_range\":%s}",
                 bad[i]);
        FAILS(msg, true, PROTO_BAD_FIELD, "rating_range: [LO,HI]");
    }
    /* invite takes rated, not a range */
    FAILS("{\"t\":\"invite\"," C5 ",\"rated\":true,"
          "\"rating_range\":[1,2]}",
          true, PROTO_BAD_FIELD, "unknown field 'rating_range'");
    /* a bad clock is still bad_clock, after the fields */
    FAILS("{\"t\":\"seek\",\"clock\":{},\"rated\":true}", true,
          PROTO_BAD_CLOCK, NULL);
    ck_assert_str_eq(proto_code_name(PROTO_RATED_NEEDS_ACCOUNT),
                     "rated_needs_account");
}
END_TEST

/* The settings object: its shape in the protocol's order, after the
 * other field checks; what passes is kept as compact JSON in the
 * sender's key order. */
/* arena_create, arena_join ...: event, duration_s, start_in_s. */
static bool hide_x(void *ctx, const char *pid)
{
    (void)ctx;
    return !strcmp(pid, "X");
}

/* block, unblock, blocks, report: their fields; a report's text up to
 * 500 characters, checked as a chat line; a blocked speaker's chat line
 * and history lines, and seeks in a lobby snapshot, filtered out. */
START_TEST(relation_fields_and_filters)
{
    char buf[4096], text[2100], *out = NULL;

    ck_assert_int_eq(parse("{\"t\":\"block\",\"to\":\"Bob\"}", true), 0);
    ck_assert_int_eq(m.type, PROTO_T_BLOCK);
    ck_assert_str_eq(m.to, "Bob");
    ck_assert_int_eq(parse("{\"t\":\"blocks\"}", true), 0);
    FAILS("{\"t\":\"unblock\"}", true, PROTO_BAD_FIELD, "to");
    ck_assert_int_eq(parse("{\"t\":\"report\",\"to\":\"b\",\"reason\":"
                           "\"username\",\"text\":\"rude\"}",
                           true),
                     0);
    ck_assert_int_eq(m.reason, PROTO_REPORT_USERNAME);
    ck_assert_str_eq(m.text, "rude");
    FAILS("{\"t\":\"report\",\"to\":\"b\",\"reason\":\"later\",\"text\":"
          "\"x\"}",
          true, PROTO_BAD_FIELD, "reason: cheat, stall");
    memset(text, 'a', 500);
    text[500] = '\0';
    snprintf(buf, sizeof buf,
             "{\"t\":\"report\",\"to\":\"b\",\"reason\":\"spam\","
             "\"text\":\"%s\"}",
             text);
    ck_assert_int_eq(parse(buf, true), 0);
    ck_assert_uint_eq(strlen(m.text), 500);
    snprintf(buf, sizeof buf,
             "{\"t\":\"report\",\"to\":\"b\",\"reason\":\"spam\","
             "\"text\":\"%sa\"}",
             text);
    FAILS(buf, true, PROTO_BAD_FIELD, "501 characters, at most 500");
    FAILS("{\"t\":\"chat\",\"game\":\"g\",\"room\":\"player\",\"text\":"
          "\""
          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
          "aaaaaaaaaaaaaaaaaaaaaaaaa\"}",
          true, PROTO_BAD_FIELD, "141 characters, at most 140");

    const char *line =
        "{\"t\":\"chat\",\"game\":\"g\",\"room\":\"player\","
        "\"pid\":\"X\",\"name\":\"x\",\"text\":\"hi\",\"at\":1}";
    ck_assert_int_eq(
        proto_chat_filter(line, strlen(line), hide_x, NULL, &out), 1);
    const char *hist = "{\"t\":\"chat_history\",\"game\":\"g\",\"room\":"
                       "\"player\",\"lines\":[{\"pid\":\"X\",\"name\":\"x\","
                       "\"text\":\"a\",\"at\":1},{\"pid\":\"Y\",\"name\":"
                       "\"y\",\"text\":\"b\",\"at\":2}]}";
    ck_assert_int_eq(
        proto_chat_filter(hist, strlen(hist), hide_x, NULL, &out), 2);
    ck_assert_ptr_nonnull(strstr(out, "\"text\":\"b\""));
    ck_assert_ptr_null(strstr(out, "\"text\":\"a\""));
    free(out);
    const char *other = "{\"t\":\"moved\",\"pid\":\"X\"}";
    ck_assert_int_eq(
        proto_chat_filter(other, strlen(other), hide_x, NULL, &out), 0);
    const char *lobby = "{\"t\":\"lobby\",\"seeks\":[{\"seek\":\"s1\","
                        "\"player\":{\"id\":\"X\"}},{\"seek\":\"s2\","
                        "\"player\":{\"id\":\"Y\"}}],\"games\":[]}";
    out = proto_lobby_filter(lobby, strlen(lobby), hide_x, NULL);
    ck_assert_ptr_nonnull(out);
    ck_assert_ptr_null(strstr(out, "s1"));
    ck_assert_ptr_nonnull(strstr(out, "s2"));
    free(out);
}
END_TEST

START_TEST(arena_fields)
{
    ck_assert_int_eq(
        parse("{\"t\":\"arena_create\",\"name\":\"Club\",\"clock\":"
              "{\"type\":\"fischer\",\"initial_s\":180,\"increment_s\":2},"
              "\"duration_s\":3600,\"start_in_s\":300}",
              true),
        0);
    ck_assert_int_eq(m.type, PROTO_T_ARENA_CREATE);
    ck_assert_str_eq(m.name, "Club");
    ck_assert_int_eq(m.duration_s, 3600);
    ck_assert_int_eq(m.start_in_s, 300);
    ck_assert_int_eq(m.clock.initial_s, 180);
    ck_assert_int_eq(
        parse("{\"t\":\"arena_join\",\"event\":\"a_B-9\"}", true), 0);
    ck_assert_str_eq(m.event, "a_B-9");
    ck_assert_int_eq(parse("{\"t\":\"arena_list\"}", true), 0);
    ck_assert_int_eq(m.type, PROTO_T_ARENA_LIST);
    FAILS("{\"t\":\"arena_join\"}", true, PROTO_BAD_FIELD, "event: missing");
    FAILS("{\"t\":\"arena_join\",\"event\":\"a b\"}", true, PROTO_BAD_FIELD,
          "event: 1-32 of A-Z a-z 0-9 _ -");
    FAILS("{\"t\":\"arena_watch\",\"event\":\"e\",\"game\":\"g\"}", true,
          PROTO_BAD_FIELD, "unknown field 'game'");
    FAILS("{\"t\":\"arena_create\",\"name\":\"C\",\"clock\":{\"type\":"
          "\"fischer\",\"initial_s\":60,\"increment_s\":0},\"duration_s\":9}",
          true, PROTO_BAD_FIELD, "duration_s: an integer from 10 to 86400");
    FAILS("{\"t\":\"arena_create\",\"name\":\"C\",\"clock\":{\"type\":"
          "\"fischer\",\"initial_s\":60,\"increment_s\":0},\"duration_s\":60,"
          "\"start_in_s\":604801}",
          true, PROTO_BAD_FIELD, "start_in_s: an integer from 0 to 604800");
    FAILS("{\"t\":\"arena_list\"}", false, PROTO_UNAUTHENTICATED, NULL);
}
END_TEST

START_TEST(settings_field)
{
    char text[4200], big[4096];
    size_t n;

    ck_assert_int_eq(parse("{\"t\":\"settings\",\"id\":7,\"settings\":"
                           " {\"theme\": \"dark\", \"sound\": false, "
                           "\"premoves\": -3,\"a-b_C9\":true}}",
                           true),
                     0);
    ck_assert_int_eq(m.type, PROTO_T_SETTINGS);
    ck_assert_str_eq(m.settings, "{\"theme\":\"dark\",\"sound\":false,"
                                 "\"premoves\":-3,\"a-b_C9\":true}");
    ck_assert_int_eq(parse("{\"t\":\"settings\",\"settings\":{}}", true), 0);
    ck_assert_str_eq(m.settings, "{}");
    /* before hello: unauthenticated, before any field check */
    FAILS("{\"t\":\"settings\",\"settings\":5}", false, PROTO_UNAUTHENTICATED,
          NULL);
    FAILS("{\"t\":\"settings\"}", true, PROTO_BAD_FIELD, "settings: missing");
    FAILS("{\"t\":\"settings\",\"settings\":{},\"x\":1}", true,
          PROTO_BAD_FIELD, "unknown field 'x'");
    static const char *const not_object[] = {"[]", "null", "\"a\"", "1",
                                             "true"};
    for (size_t i = 0; i < sizeof not_object / sizeof *not_object; i++) {
        snprintf(text, sizeof text, "{\"t\":\"settings\",\"settings\":%s}",
                 not_object[i]);
        FAILS(text, true, PROTO_BAD_FIELD, "settings: must be an object");
    }
    static const char *const bad_value[] = {
        "null", "1.5", "[]", "{}", "{\"a\":1}", "9007199254740992",
        "-9007199254740992",
        /* 65 bytes */
        "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "\""};
    for (size_t i = 0; i < sizeof bad_value / sizeof *bad_value; i++) {
        snprintf(text, sizeof text,
                 "{\"t\":\"settings\",\"settings\":{\"ok\":1,\"k\":%s}}",
                 bad_value[i]);
        FAILS(text, true, PROTO_BAD_FIELD, "settings.k: true, false");
    }
    /* the limits themselves pass: 2^53 - 1, 64 bytes (UTF-8 counted in
     * bytes: 32 two-byte characters) */
    ck_assert_int_eq(
        parse(
            "{\"t\":\"settings\",\"settings\":{\"a\":9007199254740991,"
            "\"b\":-9007199254740991,\"c\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\",\"d\":\""
            "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
            "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
            "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
            "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
            "\"}}",
            true),
        0);
    FAILS("{\"t\":\"settings\",\"settings\":{\"d\":\""
          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
          "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
          "x\"}}",
          true, PROTO_BAD_FIELD, "settings.d:");
    static const char *const bad_key[] = {
        "", "a b", "\\u00e9t\\u00e9", "a.b",
        /* 33 characters */
        "abcdefghijklmnopqrstuvwxyzabcdefg"};
    for (size_t i = 0; i < sizeof bad_key / sizeof *bad_key; i++) {
        snprintf(text, sizeof text,
                 "{\"t\":\"settings\",\"settings\":{\"%s\":true}}",
                 bad_key[i]);
        FAILS(text, true, PROTO_BAD_FIELD, "settings: key");
    }
    ck_assert_int_eq(parse("{\"t\":\"settings\",\"settings\":"
                           "{\"abcdefghijklmnopqrstuvwxyzabcdef\":1}}",
                           true),
                     0);
    /* 32 keys pass, 33 do not */
    n = (size_t)snprintf(big, sizeof big, "{");
    for (int i = 0; i < 33; i++) {
        n += (size_t)snprintf(big + n, sizeof big - n, "%s\"k%d\":%d",
                              i ? "," : "", i, i);
        if (i == 31) {
            snprintf(text, sizeof text,
                     "{\"t\":\"settings\",\"settings\":%s}}", big);
            ck_assert_int_eq(parse(text, true), 0);
        }
    }
    snprintf(text, sizeof text, "{\"t\":\"settings\",\"settings\":%s}}", big);
    FAILS(text, true, PROTO_BAD_FIELD, "settings: at most 32 keys");
    /* 2048 bytes as the server writes it pass, 2049 do not: 28 strings
     * of 64 bytes under 2-character keys (2,016 bytes), then one whose
     * length lands the whole on the limit, or one byte over */
    for (int extra = 0; extra <= 1; extra++) {
        char v[65];
        n = 0;
        big[n++] = '{';
        for (int i = 0; i < 28; i++) {
            memset(v, 'a' + i % 26, 64);
            v[64] = '\0';
            n += (size_t)snprintf(big + n, sizeof big - n,
                                  "%s\"%c%c\":\"%s\"", i ? "," : "",
                                  'a' + i / 26, 'a' + i % 26, v);
        }
        /* ,"zz":"..." and the brace add 9 bytes and the string's */
        memset(v, 'z', 2048 - n - 9 + (size_t)extra);
        v[2048 - n - 9 + (size_t)extra] = '\0';
        n += (size_t)snprintf(big + n, sizeof big - n, ",\"zz\":\"%s\"}", v);
        ck_assert_uint_eq(n, 2048 + (size_t)extra);
        snprintf(text, sizeof text, "{\"t\":\"settings\",\"settings\": %s }",
                 big);
        if (!extra) {
            ck_assert_int_eq(parse(text, true), 0);
            ck_assert_str_eq(m.settings, big);
        } else {
            FAILS(text, true, PROTO_BAD_FIELD, "settings: at most 2048");
            ck_assert_str_eq(m.settings, "");
        }
    }
    /* jansson refuses a NUL in any string (bad_json), so none reaches
     * the checks */
    FAILS("{\"t\":\"settings\",\"settings\":{\"a\\u0000b\":true}}", true,
          PROTO_BAD_JSON, NULL);
    FAILS("{\"t\":\"settings\",\"settings\":{\"a\":\"\\u0000\"}}", true,
          PROTO_BAD_JSON, NULL);
    ck_assert_str_eq(proto_code_name(PROTO_NEEDS_ACCOUNT), "needs_account");
}
END_TEST

START_TEST(render_settings)
{
    struct proto_id id = {2, 0, "", 9};
    char *t = proto_render_settings_saved(&id);

    ck_assert_str_eq(t, "{\"t\":\"settings_saved\",\"id\":9}");
    free(t);
    t = proto_render_settings_changed("{\"b\":1,\"a\":\"x\"}");
    ck_assert_str_eq(t, "{\"t\":\"settings_changed\",\"settings\":"
                        "{\"b\":1,\"a\":\"x\"}}");
    free(t);
    ck_assert_ptr_null(proto_render_settings_changed("[1]"));
    ck_assert_ptr_null(proto_render_settings_changed(NULL));
}
END_TEST

/* game_end's proof (PROTOCOL.md section 7): each side's kind, the squares
 * of a locked proof, the positions of a search. */
START_TEST(render_proof)
{
    struct dead_proof p[2] = {{.kind = DEAD_MATERIAL},
                              {.kind = DEAD_LOCKED,
                               .locked = 1ull << 24 | 1ull << 32, /* a4 a5 */
                               .reach = {0x3, 1ull << 63}}}; /* a1 b1; h8 */
    char *t = proto_render_game_end("G", ENDING_DRAWN, ENDING_DEAD_POSITION,
                                    NULL, p);
    ck_assert_str_eq(t, "{\"t\":\"game_end\",\"game\":\"G\",\"result\":"
                        "\"1/2-1/2\",\"reason\":\"dead_position\",\"proof\":"
                        "{\"white\":\"material\",\"black\":\"locked\","
                        "\"locked\":[\"a4\",\"a5\"],\"reach\":{\"white\":"
                        "[\"a1\",\"b1\"],\"black\":[\"h8\"]}}}");
    free(t);
    p[0] = (struct dead_proof){.kind = DEAD_UNPROVEN};
    p[1] = (struct dead_proof){.kind = DEAD_SEARCH, .positions = 1234};
    t = proto_render_game_end("G", ENDING_DRAWN,
                              ENDING_TIMEOUT_VS_INSUFFICIENT, NULL, p);
    ck_assert_str_eq(t, "{\"t\":\"game_end\",\"game\":\"G\",\"result\":"
                        "\"1/2-1/2\",\"reason\":\"timeout_vs_insufficient\","
                        "\"proof\":{\"white\":null,\"black\":\"search\","
                        "\"positions\":1234}}");
    free(t);
    /* a search whose count is not known (a game rebuilt from its row) */
    p[1].positions = 0;
    t = proto_render_game_end("G", ENDING_DRAWN,
                              ENDING_TIMEOUT_VS_INSUFFICIENT, NULL, p);
    ck_assert_ptr_nonnull(strstr(t, "\"proof\":{\"white\":null,\"black\":"
                                    "\"search\"}}"));
    free(t);
}
END_TEST

START_TEST(render_ratings)
{
    struct proto_rating r[2] = {
        {"blitz", 1500, 350, 1, true, false, 1, 0, 0},
        {"rapid", 1662, 80, 30, false, true, 20, 4, 6}};
    struct proto_me me = {"PID", "alice", true, r, 1, NULL, false};
    struct proto_rating_change c = {{1500, 1662}, {1480, 1600}};
    struct proto_player w = {"W",  "white", true,  1500,
                             true, false,   false, false};
    struct proto_player b = {"B",   "black", true,  1662,
                             false, false,   false, false};
    struct clock_spec blitz = {0, 180, 2, 0};
    char *t;

    t = proto_render_welcome(&me, "TOK", NULL, 0, NULL);
    ck_assert_str_eq(t, "{\"t\":\"welcome\",\"player\":{\"id\":\"PID\","
                        "\"name\":\"alice\",\"account\":true,\"ratings\":"
                        "{\"blitz\":{\"rating\":1500,\"rd\":350,\"games\":1,"
                        "\"provisional\":true}}},\"token\":\"TOK\","
                        "\"games\":[],\"settings\":null}");
    free(t);
    me.n_ratings = 2;
    me.settings = "{\"theme\":\"dark\"}"; /* never in the profile */
    t = proto_render_profile(&me);
    ck_assert_str_eq(t, "{\"id\":\"PID\",\"name\":\"alice\",\"account\":"
                        "true,\"ratings\":{\"blitz\":{\"rating\":1500,"
                        "\"rd\":350,\"games\":1,\"provisional\":true},"
                        "\"rapid\":{\"rating\":1662,\"rd\":80,\"games\":30,"
                        "\"provisional\":false,\"wins\":20,\"draws\":4,"
                        "\"losses\":6}},\"wins\":21,\"draws\":4,"
                        "\"losses\":6}");
    free(t);
    t = proto_render_game_end("G", ENDING_WHITE_WINS, ENDING_RESIGNATION, &c,
                              NULL);
    ck_assert_str_eq(t, "{\"t\":\"game_end\",\"game\":\"G\",\"result\":"
                        "\"1-0\",\"reason\":\"resignation\",\"ratings\":"
                        "{\"white\":{\"before\":1500,\"after\":1480},"
                        "\"black\":{\"before\":1662,\"after\":1600}}}");
    free(t);
    t = proto_render_game_end("G", ENDING_DRAWN, ENDING_AGREEMENT, NULL,
                              NULL);
    ck_assert_ptr_null(strstr(t, "ratings"));
    ck_assert_ptr_null(strstr(t, "proof"));
    free(t);
    t = proto_render_game_start("G", &w, &b, &blitz, true, 1);
    ck_assert_str_eq(t, "{\"t\":\"game_start\",\"game\":\"G\",\"white\":"
                        "{\"id\":\"W\",\"name\":\"white\",\"rating\":1500,"
                        "\"provisional\":true},\"black\":{\"id\":\"B\","
                        "\"name\":\"black\",\"rating\":1662,\"provisional\":"
                        "false},\"clock\":{\"type\":\"fischer\","
                        "\"initial_s\":180,\"increment_s\":2},\"rated\":true,"
                        "\"you\":\"black\"}");
    free(t);
    w.has_rating = b.has_rating = false;
    t = proto_render_game_start("G", &w, &b, &blitz, false, 0);
    ck_assert_ptr_null(strstr(t, "rating\""));
    ck_assert_ptr_nonnull(strstr(t, "\"rated\":false"));
    free(t);
}
END_TEST

/* API tokens' scopes (common/apitoken.h): lichess's names, parsed from
 * a comma-separated list (the CLI) and written back in the table's
 * order; a token's shape; token_create's, token_revoke's fields. */
START_TEST(api_token_scopes)
{
    char out[APITOKEN_SCOPES_TEXT_MAX + 1], err[200];
    unsigned mask = 99;

    ck_assert_int_eq(apitoken_scopes_parse("", &mask, err, sizeof err), 0);
    ck_assert_uint_eq(mask, 0);
    ck_assert_int_eq(apitoken_scopes_parse(" board:play , bot:play,bot:play",
                                           &mask, err, sizeof err),
                     0);
    apitoken_scopes_format(mask, out, sizeof out);
    ck_assert_str_eq(out, "bot:play,board:play");
    ck_assert_int_eq(apitoken_scopes_parse("challenge:read,challenge:write,"
                                           "preference:read,preference:write",
                                           &mask, err, sizeof err),
                     0);
    apitoken_scopes_format(mask, out, sizeof out);
    ck_assert_str_eq(out, "challenge:read,challenge:write,preference:read,"
                          "preference:write");
    ck_assert_int_eq(
        apitoken_scopes_parse("bot:play,web:mod", &mask, err, sizeof err),
        -1);
    ck_assert_uint_eq(mask, 0);
    ck_assert_str_eq(err, "unknown scope 'web:mod' (known: bot:play,"
                          "board:play,challenge:read,challenge:write,"
                          "preference:read,preference:write,"
                          "tournament:write)");
    ck_assert_int_eq(
        apitoken_scopes_parse("bot:play,,x", &mask, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "unknown scope ''"), "%s", err);
    ck_assert_int_eq(
        apitoken_scopes_parse("BOT:PLAY", &mask, err, sizeof err), -1);
    apitoken_scopes_format(0, out, sizeof out);
    ck_assert_str_eq(out, "");
    /* a token's text */
    ck_assert(apitoken_text_valid("lip_abcdefghijABCDEFGH-_"));
    ck_assert(apitoken_text_valid("lip_0123456789abcdefghij"));
    ck_assert(!apitoken_text_valid("lip_0123456789abcdefghi"));
    ck_assert(!apitoken_text_valid("lip_0123456789abcdefghijk"));
    ck_assert(!apitoken_text_valid("lip_0123456789abcdefghi!"));
    ck_assert(!apitoken_text_valid("lio_0123456789abcdefghij"));
    ck_assert(!apitoken_text_valid(""));
    ck_assert_uint_eq(APITOKEN_TEXT_LEN, 24);
    /* the messages */
    ck_assert_int_eq(parse("{\"t\":\"token_create\",\"scopes\":"
                           "[\"board:play\",\"challenge:read\"],"
                           "\"description\":\"my bot\"}",
                           true),
                     0);
    ck_assert_int_eq(m.type, PROTO_T_TOKEN_CREATE);
    ck_assert_str_eq(m.description, "my bot");
    apitoken_scopes_format(m.scopes, out, sizeof out);
    ck_assert_str_eq(out, "board:play,challenge:read");
    ck_assert_int_eq(parse("{\"t\":\"token_create\",\"scopes\":[]}", true),
                     0);
    ck_assert_uint_eq(m.scopes, 0);
    ck_assert_str_eq(m.description, "");
    FAILS("{\"t\":\"token_create\",\"scopes\":[\"bot:play\",\"x:y\"]}", true,
          PROTO_BAD_FIELD, "scopes: unknown scope 'x:y' (known: bot:play,");
    FAILS("{\"t\":\"token_create\",\"scopes\":[1]}", true, PROTO_BAD_FIELD,
          "scopes: every scope is a string");
    FAILS("{\"t\":\"token_create\",\"scopes\":\"bot:play\"}", true,
          PROTO_BAD_FIELD, "scopes: an array");
    FAILS("{\"t\":\"token_create\"}", true, PROTO_BAD_FIELD, "scopes");
    FAILS("{\"t\":\"token_create\",\"scopes\":[]}", false,
          PROTO_UNAUTHENTICATED, NULL);
    char desc[200];
    snprintf(
        desc, sizeof desc,
        "{\"t\":\"token_create\",\"scopes\":[],\"description\":\"%0101d\"}",
        0);
    FAILS(desc, true, PROTO_BAD_FIELD,
          "description: a string of at most 100");
    ck_assert_int_eq(
        parse("{\"t\":\"token_revoke\",\"token_id\":\"Ab_-9\"}", true), 0);
    ck_assert_str_eq(m.token_id, "Ab_-9");
    FAILS("{\"t\":\"token_revoke\",\"token_id\":\"a b\"}", true,
          PROTO_BAD_FIELD, "token_id");
    FAILS("{\"t\":\"token_revoke\",\"token_id\":\"0123456789abcdefg\"}", true,
          PROTO_BAD_FIELD, "token_id");
    FAILS("{\"t\":\"token_list\",\"token_id\":\"a\"}", true, PROTO_BAD_FIELD,
          "unknown field");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("proto");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, bad_json_first);
    tcase_add_test(tc, utf8_prefix_matches_the_byte_by_byte_reading);
    tcase_add_test(tc, t_then_type_then_auth);
    tcase_add_test(tc, id_echo_rules);
    tcase_add_test(tc, fields);
    tcase_add_test(tc, my_games_and_test_clock);
    tcase_add_test(tc, hello_fields);
    tcase_add_test(tc, clocks);
    tcase_add_test(tc, invite_fen);
    tcase_add_test(tc, render_error_echoes_id);
    tcase_add_test(tc, render_store_stall);
    tcase_add_test(tc, rematch_messages);
    tcase_add_test(tc, challenge_messages);
    tcase_add_test(tc, render_state_and_moved);
    tcase_add_test(tc, moved_matches_jansson);
    tcase_add_test(tc, move_shortcut_matches_jansson);
    tcase_add_test(tc, account_fields);
    tcase_add_test(tc, render_account_messages);
    tcase_add_test(tc, rated_fields);
    tcase_add_test(tc, render_ratings);
    tcase_add_test(tc, render_proof);
    tcase_add_test(tc, settings_field);
    tcase_add_test(tc, arena_fields);
    tcase_add_test(tc, render_settings);
    tcase_add_test(tc, api_token_scopes);
    tcase_add_test(tc, relation_fields_and_filters);
    suite_add_tcase(s, tc);
    return check_main(s);
}
