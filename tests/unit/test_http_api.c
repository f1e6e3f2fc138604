/*
 * test_http_api.c - the HTTP API (server/hub/http.h) without a socket: the
 * routes, their answers and statuses, over a hub on the fakes of
 * hubfake.h and a real store (PROTOCOL.md section 9).
 */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/http.h"
#include "hubfake.h"
#include "store/store.h"
#include "lib/tunables.h"
#include "check_main.h"

static void setup(void)
{
    fake_setup(NULL);
}

/* GET path (with args): the reply, its body checked to be r.len long. */
static struct http_reply get(const char *path, const char *const *args,
                             size_t nargs)
{
    static uint64_t later;
    struct http_reply r;
    struct fake_http_answer a;

    const struct http_request q = {"GET", path, args, nargs,
                                   NULL,  "",   0,    "127.0.0.1"};

    http_handle(fake_hub, &q, fake_now, ++later, &r);
    if (r.status == 0) { /* a read first: the answer comes later */
        fake_settle();
        ck_assert_msg(fake_http_answered(later, &a), "%s: no answer", path);
        r = (struct http_reply){a.status, a.type, a.body, a.len};
    }
    if (r.body)
        ck_assert_uint_eq(strlen(r.body), r.len);
    return r;
}

/* The "error" of a JSON reply with status `status`; frees the body. */
static void expect_error(const char *path, const char *const *args,
                         size_t nargs, int status, const char *code)
{
    struct http_reply r = get(path, args, nargs);
    json_t *j;

    ck_assert_msg(r.status == status, "%s: %d, not %d", path, r.status,
                  status);
    ck_assert_str_eq(r.type, "application/json");
    j = json_loads(r.body, 0, NULL);
    ck_assert_ptr_nonnull(j);
    ck_assert_str_eq(json_string_value(json_object_get(j, "error")), code);
    json_decref(j);
    free(r.body);
}

/* A JSON reply 200, parsed. */
static json_t *get_json(const char *path, const char *const *args,
                        size_t nargs)
{
    struct http_reply r = get(path, args, nargs);
    json_t *j;

    ck_assert_msg(r.status == 200, "%s: %d %s", path, r.status,
                  r.body ? r.body : "");
    ck_assert_str_eq(r.type, "application/json");
    j = json_loads(r.body, 0, NULL);
    ck_assert_ptr_nonnull(j);
    free(r.body);
    return j;
}

START_TEST(routes)
{
    ck_assert(http_wants("/api/games/x"));
    ck_assert(http_wants("/healthz"));
    ck_assert(http_wants("/readyz"));
    ck_assert(http_wants("/metrics"));
    ck_assert(!http_wants("/"));
    ck_assert(!http_wants("/g/abc"));
    ck_assert(!http_wants("/metricsx"));
    ck_assert_int_eq(http_route("/api/games/abc"), NETSTATS_ROUTE_API_GAME);
    ck_assert_int_eq(http_route("/api/games/abc/pgn"), NETSTATS_ROUTE_PGN);
    ck_assert_int_eq(http_route("/api/games/abc/x"), NETSTATS_ROUTE_OTHER);
    ck_assert_int_eq(http_route("/api/players/p/games"),
                     NETSTATS_ROUTE_PLAYER_GAMES);
    ck_assert_int_eq(http_route("/api/players/p"), NETSTATS_ROUTE_PLAYER);
    ck_assert_int_eq(http_route("/api/players/p/ratings/blitz"),
                     NETSTATS_ROUTE_PLAYER);
    ck_assert_int_eq(http_route("/api/players/p/x"), NETSTATS_ROUTE_OTHER);
    ck_assert_int_eq(http_route("/api/leaderboard/blitz"),
                     NETSTATS_ROUTE_LEADERBOARD);
    ck_assert_int_eq(http_route("/api/other"), NETSTATS_ROUTE_OTHER);
    ck_assert_int_eq(http_route("/healthz"), NETSTATS_ROUTE_HEALTHZ);
    ck_assert_int_eq(http_route("/readyz"), NETSTATS_ROUTE_READYZ);
    ck_assert_int_eq(http_route("/metrics"), NETSTATS_ROUTE_METRICS);
    ck_assert_int_eq(http_route("/index.html"), NETSTATS_ROUTE_STATIC);
}
END_TEST

START_TEST(not_found)
{
    expect_error("/api/nothing", NULL, 0, 404, "not_found");
    expect_error("/api/games/", NULL, 0, 404, "no_such_game");
    expect_error("/api/games/no!valid", NULL, 0, 404, "no_such_game");
    expect_error("/api/games/unknowngame", NULL, 0, 404, "no_such_game");
    expect_error("/api/games/unknowngame/pgn", NULL, 0, 404, "no_such_game");
    expect_error("/api/games/unknowngame/moves", NULL, 0, 404, "not_found");
    expect_error("/api/players/p1", NULL, 0, 404, "no_such_player");
    expect_error("/api/players/p1/x", NULL, 0, 404, "not_found");
    expect_error("/api/players/p1/ratings/blitz", NULL, 0, 404,
                 "no_such_player");
    expect_error("/api/players/p1/ratings/Blitz", NULL, 0, 404,
                 "no_such_category");
    expect_error("/api/players/p1/ratings/blitz/x", NULL, 0, 404,
                 "not_found");
    expect_error("/api/leaderboard/chess960", NULL, 0, 404,
                 "no_such_category");
    expect_error("/api/leaderboard/", NULL, 0, 404, "no_such_category");
    expect_error("/api/players/bad!pid/games", NULL, 0, 404,
                 "no_such_player");
}
END_TEST

START_TEST(too_many)
{
    struct http_reply r;
    json_t *j;

    http_too_many(&r);
    ck_assert_int_eq(r.status, 429);
    j = json_loads(r.body, 0, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(j, "error")),
                     "rate_limited");
    json_decref(j);
    free(r.body);
}
END_TEST

/* A game as JSON and PGN, live from memory and finished from the store;
 * the player's list of finished games with its paging arguments. */
START_TEST(games_live_and_finished)
{
    struct fconn *a = fake_connect("10.0.0.1");
    struct fconn *b = fake_connect("10.0.0.2");
    char apid[64], gid[64], path[128], path_pgn[160];
    struct http_reply r;
    json_t *j;

    fake_hello(a, "alice", apid, NULL);
    fake_hello(b, "bob", NULL, NULL);
    fake_invite(a, gid);
    fake_say(b, "{\"t\":\"join\",\"game\":\"%s\"}", gid);
    fake_say(a,
             "{\"t\":\"move\",\"game\":\"%s\",\"uci\":\"e2e4\","
             "\"ply\":0}",
             gid);
    snprintf(path, sizeof path, "/api/games/%s", gid);
    snprintf(path_pgn, sizeof path_pgn, "/api/games/%s/pgn", gid);

    j = get_json(path, NULL, 0);
    ck_assert_str_eq(json_string_value(json_object_get(j, "game")), gid);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "ply")), 1);
    ck_assert_str_eq(json_string_value(json_object_get(j, "status")),
                     "started");
    ck_assert_ptr_null(json_object_get(j, "t"));
    json_decref(j);
    r = get(path_pgn, NULL, 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.type, "application/x-chess-pgn");
    ck_assert_ptr_nonnull(strstr(r.body, "1. e4"));
    ck_assert_ptr_nonnull(strstr(r.body, "[Result \"*\"]"));
    free(r.body);

    fake_say(b, "{\"t\":\"resign\",\"game\":\"%s\"}", gid);
    fake_advance(LIMIT_ENDED_LINGER_MS + 1000); /* out of memory */
    ck_assert_ptr_null(hub_game_pgn(fake_hub, gid));
    j = get_json(path, NULL, 0);
    ck_assert_str_eq(json_string_value(json_object_get(j, "status")),
                     "ended");
    ck_assert_str_eq(json_string_value(json_object_get(j, "reason")),
                     "resignation");
    json_decref(j);
    r = get(path_pgn, NULL, 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "[Result \"1-0\"]"));
    free(r.body);

    snprintf(path, sizeof path, "/api/players/%s/games", apid);
    j = get_json(path, NULL, 0);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "games")), 1);
    ck_assert_str_eq(
        json_string_value(json_object_get(
            json_array_get(json_object_get(j, "games"), 0), "game")),
        gid);
    ck_assert(json_is_null(json_object_get(j, "next")));
    json_decref(j);
    const char *lim0[] = {"limit=0"}, *lim101[] = {"limit=101"},
               *limx[] = {"limit=2x"}, *bad_before[] = {"before=a!b"},
               *lim1[] = {"limit=1"};
    expect_error(path, lim0, 1, 400, "bad_limit");
    expect_error(path, lim101, 1, 400, "bad_limit");
    expect_error(path, limx, 1, 400, "bad_limit");
    expect_error(path, bad_before, 1, 400, "bad_before");
    j = get_json(path, lim1, 1);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "games")), 1);
    json_decref(j);
    /* an unknown player: an empty list */
    j = get_json("/api/players/nobody/games", NULL, 0);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "games")), 0);
    json_decref(j);
}
END_TEST

/* Runs sql on the store's database behind its back (the writer idle). */
static void raw(const char *sql)
{
    sqlite3 *db;
    char *msg = NULL;

    ck_assert_int_eq(sqlite3_open(fake_db_path(), &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK,
                  "%s: %s", sql, msg ? msg : "?");
    sqlite3_close(db);
}

/* A player (an account when account) with pid and name. */
static void raw_player(const char *pid, const char *name, bool account)
{
    char sql[512];
    static int n;

    snprintf(sql, sizeof sql,
             "INSERT INTO players VALUES ('%s', '%s', "
             "randomblob(32), %d)",
             pid, name, ++n);
    raw(sql);
    if (account) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO accounts (pid, username, password_hash, "
                 "created_ms) VALUES ('%s', '%s', 'h', 1)",
                 pid, name);
        raw(sql);
    }
}

static void raw_rating(const char *pid, const char *cat, double rating,
                       double rd, int w, int d, int l)
{
    char sql[512];

    snprintf(sql, sizeof sql,
             "INSERT INTO ratings VALUES ('%s', '%s', %.6f, %.6f, 0.06, "
             "%d, %d, %d, %d, 1700000000000)",
             pid, cat, rating, rd, w + d + l, w, d, l);
    raw(sql);
}

static long jint(json_t *o, const char *key)
{
    ck_assert_msg(json_is_integer(json_object_get(o, key)), "%s", key);
    return (long)json_integer_value(json_object_get(o, key));
}

/* A rated game's end through the store: the profile, the history and
 * the games list show it; a guest is no account; the history is capped
 * at its newest LIMIT_RATING_HISTORY points, oldest first. */
START_TEST(player_profile_and_rating_history)
{
    struct store_game g;
    struct store_rating r[2];
    json_t *j, *x;

    raw_player("pidA", "alice", true);
    raw_player("pidB", "bob", true);
    raw_player("pidG", "guest", false);
    memset(&g, 0, sizeof g);
    snprintf(g.gid, sizeof g.gid, "G1");
    snprintf(g.white_pid, sizeof g.white_pid, "pidA");
    snprintf(g.white_name, sizeof g.white_name, "alice");
    snprintf(g.black_pid, sizeof g.black_pid, "pidB");
    snprintf(g.black_name, sizeof g.black_name, "bob");
    g.clock.initial_s = 180;
    g.clock.increment_s = 2;
    snprintf(g.initial_fen, sizeof g.initial_fen,
             "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    snprintf(g.final_fen, sizeof g.final_fen, "%s", g.initial_fen);
    snprintf(g.status, sizeof g.status, "ended");
    snprintf(g.result, sizeof g.result, "1-0");
    snprintf(g.reason, sizeof g.reason, "resignation");
    g.created_ms = g.started_ms = 1700000000000;
    g.ended_ms = 1700000060000;
    g.rated = 1;
    g.rating_before[0] = g.rating_before[1] = 1500;
    g.rating_after[0] = 1662.31;
    g.rating_after[1] = 1337.69;
    g.rd_before[0] = g.rd_before[1] = 350;
    memset(r, 0, sizeof r);
    for (int c = 0; c < 2; c++) {
        snprintf(r[c].pid, sizeof r[c].pid, "%s", c ? "pidB" : "pidA");
        snprintf(r[c].category, sizeof r[c].category, "blitz");
        r[c].rating = g.rating_after[c];
        r[c].rd = 290.5;
        r[c].vol = 0.06;
        r[c].games = 1;
        r[c].last_ms = g.ended_ms;
    }
    r[0].wins = r[1].losses = 1;
    ck_assert_uint_gt(store_finish_game(fake_store, &g, NULL, 0, "pgn", r),
                      0);
    fake_settle();

    j = get_json("/api/players/pidA", NULL, 0);
    ck_assert_str_eq(json_string_value(json_object_get(j, "name")), "alice");
    ck_assert(json_is_true(json_object_get(j, "account")));
    x = json_object_get(json_object_get(j, "ratings"), "blitz");
    ck_assert_int_eq(jint(x, "rating"), 1662);
    ck_assert_int_eq(jint(x, "rd"), 291); /* half up */
    ck_assert_int_eq(jint(x, "games"), 1);
    ck_assert_int_eq(jint(x, "wins"), 1);
    ck_assert_int_eq(jint(x, "losses"), 0);
    ck_assert(json_is_true(json_object_get(x, "provisional")));
    ck_assert_int_eq(json_object_size(json_object_get(j, "ratings")), 1);
    ck_assert_int_eq(jint(j, "wins"), 1);
    ck_assert_int_eq(jint(j, "draws") + jint(j, "losses"), 0);
    json_decref(j);
    j = get_json("/api/players/pidG", NULL, 0);
    ck_assert(json_is_false(json_object_get(j, "account")));
    ck_assert_int_eq(json_object_size(json_object_get(j, "ratings")), 0);
    json_decref(j);

    j = get_json("/api/players/pidB/ratings/blitz", NULL, 0);
    ck_assert_str_eq(json_string_value(json_object_get(j, "category")),
                     "blitz");
    x = json_object_get(j, "points");
    ck_assert_uint_eq(json_array_size(x), 1);
    ck_assert_int_eq(jint(json_array_get(x, 0), "rating"), 1338);
    ck_assert_int_eq(jint(json_array_get(x, 0), "ms"), 1700000060000);
    json_decref(j);
    j = get_json("/api/players/pidB/ratings/rapid", NULL, 0);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "points")), 0);
    json_decref(j);

    j = get_json("/api/players/pidB/games", NULL, 0);
    x = json_array_get(json_object_get(j, "games"), 0);
    ck_assert(json_is_true(json_object_get(x, "rated")));
    x = json_object_get(x, "ratings");
    ck_assert_int_eq(jint(json_object_get(x, "black"), "before"), 1500);
    ck_assert_int_eq(jint(json_object_get(x, "black"), "after"), 1338);
    ck_assert_int_eq(jint(json_object_get(x, "white"), "after"), 1662);
    json_decref(j);

    /* 520 more points: the newest 500, oldest first */
    raw("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
        "WHERE i < 520) INSERT INTO rating_history SELECT 'pidB', 'blitz', "
        "1700000060000 + i, 'G1', 1000 + i, 100 FROM n");
    j = get_json("/api/players/pidB/ratings/blitz", NULL, 0);
    x = json_object_get(j, "points");
    ck_assert_uint_eq(json_array_size(x), LIMIT_RATING_HISTORY);
    ck_assert_int_eq(jint(json_array_get(x, 0), "rating"), 1021);
    ck_assert_int_eq(
        jint(json_array_get(x, LIMIT_RATING_HISTORY - 1), "rating"), 1520);
    json_decref(j);
}
END_TEST

/* The best LIMIT_LEADERBOARD non-provisional accounts, best first: no
 * guest, no provisional rating, no other category. */
START_TEST(leaderboard_best_first)
{
    char pid[32], name[32];
    json_t *j, *x;

    for (int i = 0; i < 110; i++) {
        snprintf(pid, sizeof pid, "p%03d", i);
        snprintf(name, sizeof name, "n%03d", i);
        raw_player(pid, name, true);
        raw_rating(pid, "rapid", 1000 + 7 * ((i * 37) % 110), 60, 5, 1, 2);
    }
    raw_player("guest", "guest", false);
    raw_rating("guest", "rapid", 3000, 50, 1, 0, 0);
    raw_player("prov", "prov", true);
    raw_rating("prov", "rapid", 2999, 110.5, 1, 0, 0);
    raw_player("edge", "edge", true);
    raw_rating("edge", "rapid", 2998, 110, 1, 0, 0);
    raw_player("fast", "fast", true);
    raw_rating("fast", "bullet", 2997, 50, 1, 0, 0);

    j = get_json("/api/leaderboard/rapid", NULL, 0);
    ck_assert_str_eq(json_string_value(json_object_get(j, "category")),
                     "rapid");
    x = json_object_get(j, "players");
    ck_assert_uint_eq(json_array_size(x), LIMIT_LEADERBOARD);
    ck_assert_str_eq(
        json_string_value(json_object_get(json_array_get(x, 0), "id")),
        "edge");
    ck_assert_int_eq(jint(json_array_get(x, 0), "games"), 1);
    ck_assert_int_eq(jint(json_array_get(x, 1), "rating"), 1000 + 7 * 109);
    ck_assert_int_eq(jint(json_array_get(x, 1), "games"), 8);
    for (size_t i = 2; i < json_array_size(x); i++)
        ck_assert_int_le(jint(json_array_get(x, i), "rating"),
                         jint(json_array_get(x, i - 1), "rating"));
    /* the 100 best: the last is 1000 + 7 * 11 */
    ck_assert_int_eq(jint(json_array_get(x, LIMIT_LEADERBOARD - 1), "rating"),
                     1000 + 7 * 11);
    json_decref(j);
    j = get_json("/api/leaderboard/classical", NULL, 0);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "players")), 0);
    json_decref(j);
    j = get_json("/api/leaderboard/bullet", NULL, 0);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "players")), 1);
    json_decref(j);
}
END_TEST

static Suite *http_suite(void)
{
    Suite *s = suite_create("http_api");
    TCase *t = tcase_create("http_api");

    tcase_add_checked_fixture(t, setup, fake_teardown);
    tcase_add_test(t, routes);
    tcase_add_test(t, not_found);
    tcase_add_test(t, too_many);
    tcase_add_test(t, games_live_and_finished);
    tcase_add_test(t, player_profile_and_rating_history);
    tcase_add_test(t, leaderboard_best_first);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return check_main(http_suite());
}
