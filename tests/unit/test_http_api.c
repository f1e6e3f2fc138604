/*
 * test_http_api.c - the HTTP API (server/http.h) without a socket: the
 * routes, their answers and statuses, over a hub on the fakes of
 * hubfake.h and a real store (PROTOCOL.md section 9).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "hubfake.h"
#include "store.h"
#include "tunables.h"
#include "check_main.h"

static void setup(void)
{
    fake_setup(NULL);
}

/* GET path (with args): the reply, its body checked to be r.len long. */
static struct http_reply get(const char *path, const char *const *args,
                             size_t nargs)
{
    struct http_reply r;

    http_handle(fake_hub, path, args, nargs, fake_now, &r);
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
    ck_assert(http_wants("/metrics"));
    ck_assert(!http_wants("/"));
    ck_assert(!http_wants("/g/abc"));
    ck_assert(!http_wants("/metricsx"));
    ck_assert_int_eq(http_route("/api/games/abc"), NETSTATS_ROUTE_API_GAME);
    ck_assert_int_eq(http_route("/api/games/abc/pgn"), NETSTATS_ROUTE_PGN);
    ck_assert_int_eq(http_route("/api/games/abc/x"), NETSTATS_ROUTE_OTHER);
    ck_assert_int_eq(http_route("/api/players/p/games"),
                     NETSTATS_ROUTE_PLAYER_GAMES);
    ck_assert_int_eq(http_route("/api/other"), NETSTATS_ROUTE_OTHER);
    ck_assert_int_eq(http_route("/healthz"), NETSTATS_ROUTE_HEALTHZ);
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
    expect_error("/api/players/p1", NULL, 0, 404, "not_found");
    expect_error("/api/players/p1/x", NULL, 0, 404, "not_found");
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

START_TEST(healthz)
{
    struct fconn *c = fake_connect("10.0.0.1");
    json_t *j;
    struct http_reply r;

    (void)c;
    j = get_json("/healthz", NULL, 0);
    ck_assert_str_eq(json_string_value(json_object_get(j, "status")), "ok");
    ck_assert_int_eq(json_integer_value(json_object_get(j, "connections")),
                     1);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "live_games")), 0);
    json_decref(j);
    /* the database file gone: 503 */
    hub_metrics(fake_hub)->db_file_lost = 1;
    r = get("/healthz", NULL, 0);
    ck_assert_int_eq(r.status, 503);
    j = json_loads(r.body, 0, NULL);
    ck_assert_str_eq(json_string_value(json_object_get(j, "status")), "fail");
    json_decref(j);
    free(r.body);
    hub_metrics(fake_hub)->db_file_lost = 0;
    /* the writer silent too long: 503 */
    fake_now = store_last_commit_ms(fake_store) +
               LIMIT_HEALTH_WRITER_STALL_MS + 1;
    r = get("/healthz", NULL, 0);
    ck_assert_int_eq(r.status, 503);
    free(r.body);
}
END_TEST

START_TEST(metrics)
{
    struct fconn *c = fake_connect("10.0.0.1");
    struct http_reply r;

    fake_say(c, "{\"t\":\"ping\"}");
    fake_say(c, "{\"t\":\"nonsense\"}");
    r = get("/metrics", NULL, 0);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.type, "text/plain"));
    ck_assert_ptr_nonnull(strstr(r.body, "\nchess_connections 1\n"));
    ck_assert_ptr_nonnull(strstr(r.body, "\nchess_messages_total 2\n"));
    ck_assert_ptr_nonnull(strstr(r.body, "chess_messages_rejected_total{"
                                         "code=\"unknown_type\"} 1\n"));
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

static Suite *http_suite(void)
{
    Suite *s = suite_create("http_api");
    TCase *t = tcase_create("http_api");

    tcase_add_checked_fixture(t, setup, fake_teardown);
    tcase_add_test(t, routes);
    tcase_add_test(t, not_found);
    tcase_add_test(t, too_many);
    tcase_add_test(t, healthz);
    tcase_add_test(t, metrics);
    tcase_add_test(t, games_live_and_finished);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return check_main(http_suite());
}
