/*
 * test_loadgen.c - unit tests of the load generator's parts: the latency
 * histogram, the message parser and the /metrics reader.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadgen_hist.h"
#include "loadgen_msg.h"
#include "loadgen_prom.h"

/* ---- histogram --------------------------------------------------------- */

START_TEST(hist_buckets_tile_the_range)
{
    /* consecutive buckets cover consecutive values, none skipped */
    uint64_t next = 0;

    for (unsigned i = 0; i < LG_HIST_BUCKETS - 1; i++) {
        uint64_t high = lg_hist_bucket_high(i);
        ck_assert_uint_ge(high, next);
        ck_assert_uint_eq(lg_hist_bucket(next), i);
        ck_assert_uint_eq(lg_hist_bucket(high), i);
        next = high + 1;
    }
    ck_assert_uint_eq(lg_hist_bucket(UINT64_MAX), LG_HIST_BUCKETS - 1);
}
END_TEST

START_TEST(hist_precision)
{
    /* small values exact; above, a bucket is at most 1/128 of its value */
    for (uint64_t v = 0; v < 256; v++)
        ck_assert_uint_eq(lg_hist_bucket_high(lg_hist_bucket(v)), v);
    for (uint64_t v = 256; v < (1ull << 34); v = v * 3 / 2 + 1) {
        uint64_t high = lg_hist_bucket_high(lg_hist_bucket(v));
        ck_assert_uint_ge(high, v);
        ck_assert_uint_le(high - v, v / 128);
    }
}
END_TEST

START_TEST(hist_quantiles)
{
    struct lg_hist *h = calloc(1, sizeof *h);

    ck_assert_uint_eq(lg_hist_quantile(h, 0.5), 0);
    for (uint64_t v = 1; v <= 100000; v++)
        lg_hist_record(h, v);
    ck_assert_uint_eq(h->total, 100000);
    ck_assert_uint_eq(h->min, 1);
    ck_assert_uint_eq(h->max, 100000);
    /* the true p50 is 50000, p99 99000, p999 99900 */
    ck_assert_uint_ge(lg_hist_quantile(h, 0.5), 50000);
    ck_assert_uint_le(lg_hist_quantile(h, 0.5), 50000 + 50000 / 128);
    ck_assert_uint_ge(lg_hist_quantile(h, 0.99), 99000);
    ck_assert_uint_le(lg_hist_quantile(h, 0.99), 99000 + 99000 / 128);
    ck_assert_uint_ge(lg_hist_quantile(h, 0.999), 99900);
    ck_assert_uint_le(lg_hist_quantile(h, 0.999), 100000);
    ck_assert_uint_eq(lg_hist_quantile(h, 1.0), 100000);
    free(h);
}
END_TEST

START_TEST(hist_merge_adds)
{
    struct lg_hist *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);

    for (int i = 0; i < 99; i++)
        lg_hist_record(a, 10);
    lg_hist_record(b, 5);
    lg_hist_record(b, 70000);
    lg_hist_merge(a, b);
    ck_assert_uint_eq(a->total, 101);
    ck_assert_uint_eq(a->min, 5);
    ck_assert_uint_eq(a->max, 70000);
    ck_assert_uint_eq(lg_hist_quantile(a, 0.5), 10);
    ck_assert_uint_eq(lg_hist_quantile(a, 1.0), 70000);
    lg_hist_clear(b);
    lg_hist_merge(a, b); /* an empty one changes nothing */
    ck_assert_uint_eq(a->total, 101);
    ck_assert_uint_eq(a->min, 5);
    free(a);
    free(b);
}
END_TEST

/* ---- messages ---------------------------------------------------------- */

START_TEST(msg_moved)
{
    static const char text[] =
        "{\"t\":\"moved\",\"game\":\"AP-UOcQiOeFhG8mK\",\"ply\":1,"
        "\"uci\":\"e2e4\",\"san\":\"e4\",\"fen\":\"x\",\"check\":false,"
        "\"legal\":[\"a7a5\",\"a7a6\",\"b8c6\",\"e7e8q\"],"
        "\"claimable\":false,\"claim_moves\":[]}";
    struct lg_msg *m = malloc(sizeof *m);

    ck_assert_int_eq(lg_msg_parse(text, sizeof text - 1, m), 0);
    ck_assert_int_eq(m->type, LG_MSG_MOVED);
    ck_assert_str_eq(m->game, "AP-UOcQiOeFhG8mK");
    ck_assert_int_eq(m->ply, 1);
    ck_assert_int_eq(m->nlegal, 4);
    ck_assert_str_eq(m->legal[0], "a7a5");
    ck_assert_str_eq(m->legal[3], "e7e8q");
    free(m);
}
END_TEST

/* A list longer than the loadgen keeps (no server sends one) is cut at
 * LG_MSG_MAX_LEGAL by both parsers, never written past. */
START_TEST(msg_long_legal_list_is_cut)
{
    enum { N = LG_MSG_MAX_LEGAL + 44 };
    char *text = malloc(64 + (size_t)N * 8);
    struct lg_msg *m = malloc(sizeof *m);
    int (*parse[2])(const char *, size_t, struct lg_msg *) = {
        lg_msg_parse_jansson, lg_msg_parse_fast};
    size_t len;

    len = (size_t)sprintf(text, "{\"t\":\"moved\",\"ply\":1,\"legal\":[");
    for (int i = 0; i < N; i++)
        len += (size_t)sprintf(text + len, "%s\"%c%c%c%c\"", i ? "," : "",
                               'a' + i % 8, '1' + i / 8 % 8, 'a' + i / 64 % 8,
                               '1' + i / 512 % 8);
    len += (size_t)sprintf(text + len, "]}");
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(parse[k](text, len, m), 0);
        ck_assert_int_eq(m->nlegal, LG_MSG_MAX_LEGAL);
        ck_assert_str_eq(m->legal[LG_MSG_MAX_LEGAL - 1], "h8d1");
    }
    free(m);
    free(text);
}
END_TEST

START_TEST(msg_state_start_error)
{
    static const char state[] =
        "{\"t\":\"state\",\"game\":\"g1\",\"ply\":0,\"to_move\":\"black\","
        "\"status\":\"started\",\"legal\":[\"e7e5\"]}";
    static const char start[] =
        "{\"t\":\"game_start\",\"game\":\"g1\",\"you\":\"white\"}";
    static const char err[] =
        "{\"t\":\"error\",\"code\":\"rate_limited\",\"msg\":\"slow\","
        "\"id\":41}";
    static const char odd[] = "{\"t\":\"error\",\"code\":\"nope\"}";
    struct lg_msg *m = malloc(sizeof *m);

    ck_assert_int_eq(lg_msg_parse(state, sizeof state - 1, m), 0);
    ck_assert_int_eq(m->type, LG_MSG_STATE);
    ck_assert_int_eq(m->white_to_move, 0);
    ck_assert(m->started);
    ck_assert_int_eq(m->nlegal, 1);
    ck_assert_int_eq(lg_msg_parse(start, sizeof start - 1, m), 0);
    ck_assert_int_eq(m->type, LG_MSG_GAME_START);
    ck_assert_int_eq(m->you_white, 1);
    ck_assert_int_eq(m->ply, -1);
    ck_assert_int_eq(lg_msg_parse(err, sizeof err - 1, m), 0);
    ck_assert_int_eq(m->type, LG_MSG_ERROR);
    ck_assert_str_eq(lg_msg_error_name(m->error), "rate_limited");
    ck_assert(m->has_id);
    ck_assert_int_eq(m->id, 41);
    ck_assert_int_eq(lg_msg_parse(odd, sizeof odd - 1, m), 0);
    ck_assert_int_eq(m->error, LG_ERR_UNKNOWN);
    ck_assert(!m->has_id);
    ck_assert_int_eq(lg_msg_parse("[1]", 3, m), -1);
    ck_assert_int_eq(lg_msg_parse("{\"t\":1}", 7, m), -1);
    ck_assert_int_eq(lg_msg_parse("{\"t\":\"pong\"}", 12, m), 0);
    ck_assert_int_eq(m->type, LG_MSG_OTHER);
    free(m);
}
END_TEST

START_TEST(msg_error_names_round_trip)
{
    for (int i = 0; i < LG_ERR_COUNT; i++)
        ck_assert_int_eq(lg_msg_error_index(lg_msg_error_name(i)), i);
    ck_assert_str_eq(lg_msg_error_name(PROTO_BAD_JSON), "bad_json");
    /* every code of the protocol, the newer ones too (a count of
     * "unknown" hid 9,315 address_full refusals in the benchmark) */
    ck_assert_str_eq(lg_msg_error_name(PROTO_ADDRESS_FULL), "address_full");
    ck_assert_int_eq(lg_msg_error_index("server_full"), PROTO_SERVER_FULL);
    ck_assert_str_eq(lg_msg_error_name(LG_ERR_UNKNOWN), "unknown");
}
END_TEST

/* Both parsers on one text: when the fast one answers it agrees with
 * jansson field by field, and lg_msg_parse always agrees. */
static void same_fields(const struct lg_msg *a, const struct lg_msg *b)
{
    ck_assert_int_eq(a->type, b->type);
    ck_assert_str_eq(a->game, b->game);
    ck_assert_int_eq(a->ply, b->ply);
    ck_assert_int_eq(a->you_white, b->you_white);
    ck_assert_int_eq(a->white_to_move, b->white_to_move);
    ck_assert_int_eq(a->started, b->started);
    ck_assert_int_eq(a->nlegal, b->nlegal);
    for (int i = 0; i < a->nlegal; i++)
        ck_assert_str_eq(a->legal[i], b->legal[i]);
    ck_assert_int_eq(a->error, b->error);
    ck_assert_int_eq(a->has_id, b->has_id);
    if (a->has_id)
        ck_assert_int_eq(a->id, b->id);
}

static int check_both(const char *text)
{
    struct lg_msg *j = malloc(sizeof *j), *f = malloc(sizeof *f);
    size_t len = strlen(text);
    int rj = lg_msg_parse_jansson(text, len, j);
    int rf = lg_msg_parse_fast(text, len, f);

    if (rf == 0) {
        ck_assert_int_eq(rj, 0);
        same_fields(f, j);
    }
    ck_assert_int_eq(lg_msg_parse(text, len, f), rj);
    if (rj == 0)
        same_fields(f, j);
    free(j);
    free(f);
    return rf;
}

/* Messages as the server writes them: the fast parser takes them all. */
static const char *const server_texts[] = {
    "{\"t\":\"welcome\",\"player\":{\"id\":\"7J0J1xh4NJopJHU4\",\"name\":"
    "\"a\"},\"token\":\"Wa4ZUyOhJQn0KxR-Tyy4Av3rupMF34HB74bVGZC-GKg\","
    "\"games\":[]}",
    "{\"t\":\"invited\",\"game\":\"AP-UOcQiOeFhG8mK\"}",
    "{\"t\":\"game_start\",\"game\":\"AP-UOcQiOeFhG8mK\",\"white\":{\"id\":"
    "\"x\",\"name\":\"a\"},\"black\":{\"id\":\"y\",\"name\":\"G\"},"
    "\"clock\":{\"type\":\"fischer\",\"initial_s\":600,\"increment_s\":0},"
    "\"you\":\"black\"}",
    "{\"t\":\"state\",\"game\":\"AP-UOcQiOeFhG8mK\",\"white\":{\"id\":\"x\","
    "\"name\":\"a\"},\"black\":null,\"clock\":{\"type\":\"per_move\","
    "\"per_move_s\":5},\"initial_fen\":\"8/8/8/8/8/8/8/8 w - - 0 1\","
    "\"moves\":[\"e2e4\"],\"san\":[\"e4\"],\"fen\":\"f\",\"ply\":1,"
    "\"to_move\":\"white\",\"check\":false,\"clocks\":{\"white_ms\":1,"
    "\"black_ms\":2,\"running\":null},\"first_move_ms\":null,"
    "\"status\":\"started\",\"draw_offer\":null,\"gone\":{\"white\":null,"
    "\"black\":3},\"legal\":[\"a2a3\",\"h7h8q\"],\"claimable\":true,"
    "\"claim_moves\":[\"a2a3\"],\"result\":\"1-0\",\"reason\":\"x\"}",
    "{\"t\":\"moved\",\"game\":\"g\",\"ply\":7,\"uci\":\"e2e4\","
    "\"san\":\"e4\",\"fen\":\"f\",\"check\":true,\"clocks\":{\"white_ms\":"
    "-5,\"black_ms\":2,\"running\":\"black\"},\"first_move_ms\":30000,"
    "\"draw_offer\":\"white\",\"legal\":[],\"claimable\":false,"
    "\"claim_moves\":[]}",
    "{\"t\":\"game_end\",\"game\":\"g\",\"result\":\"1/2-1/2\","
    "\"reason\":\"stalemate\"}",
    "{\"t\":\"error\",\"code\":\"stale_ply\",\"msg\":\"ply 3, not 2\","
    "\"id\":-12}",
    "{\"t\":\"error\",\"code\":\"bad_field\",\"msg\":\"m\",\"id\":\"s\"}",
    "{\"t\":\"pong\"}",
    " { \"legal\" : [ \"e2e4\" , \"d2d4\" ] , \"t\" : \"moved\" ,"
    " \"ply\" : 0 , \"game\" : \"g\" } ",
};

START_TEST(msg_fast_agrees_with_jansson)
{
    for (size_t i = 0; i < sizeof server_texts / sizeof server_texts[0]; i++)
        ck_assert_int_eq(check_both(server_texts[i]), 0);
}
END_TEST

START_TEST(msg_fast_falls_back)
{
    /* escapes in extracted strings, reals, odd shapes: the fast parser
     * either agrees or declines, and lg_msg_parse still gets it right */
    static const char *const odd[] = {
        "{\"t\":\"mo\\u0076ed\",\"game\":\"g\",\"ply\":1,\"legal\":[]}",
        "{\"t\":\"moved\",\"game\":\"g\\/h\",\"ply\":1}",
        "{\"t\":\"moved\",\"game\":\"g\",\"ply\":1.0}",
        "{\"t\":\"moved\",\"game\":\"g\",\"ply\":1e3}",
        "{\"t\":\"moved\",\"game\":7,\"ply\":\"1\",\"legal\":\"x\"}",
        "{\"t\":\"moved\",\"legal\":[\"e2e4\",7,\"toolong\",[\"a\"],"
        "\"a\\u0031b2\"]}",
        "{\"t\":\"moved\",\"game\":\"0123456789012345678901234567890123\"}",
        "{\"t\":\"error\",\"code\":\"rate_\\u006cimited\",\"id\":5}",
        "{\"t\":\"error\",\"msg\":\"a \\\"quoted\\\" }{ text\",\"code\":"
        "\"illegal_move\",\"id\":123456789012345678901}",
        "{\"t\":\"state\",\"status\":\"started\",\"to_move\":\"blackish\"}",
        "{\"t\":\"moved\",\"t\":\"state\"}",
        "{\"game\":\"g\"}",
        "{}",
        "[\"t\"]",
        "{\"t\":\"moved\"",
        "{\"t\":\"moved\"} x",
        "",
    };

    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        check_both(odd[i]);
    ck_assert_int_eq(check_both(odd[0]), -1); /* escape in "t" */
    ck_assert_int_eq(check_both(odd[4]), 0);  /* wrong types: skipped */
}
END_TEST

/* ---- /metrics ---------------------------------------------------------- */

static const char prom_before[] =
    "# HELP x_seconds X.\n# TYPE x_seconds histogram\n"
    "x_seconds_bucket{le=\"0.001\"} 10\n"
    "x_seconds_bucket{le=\"0.005\"} 10\n"
    "x_seconds_bucket{le=\"0.01\"} 10\n"
    "x_seconds_bucket{le=\"+Inf\"} 10\n"
    "x_seconds_sum 0.002\nx_seconds_count 10\n"
    "# HELP y_total Y.\n# TYPE y_total counter\n"
    "y_total{code=\"a\"} 3\ny_total{code=\"b\"} 4\nxy 7\n";
/* after: 100 more, 90 of them up to 1 ms, 8 up to 5 ms, 1 up to 10 ms,
 * 1 above */
static const char prom_after[] =
    "# HELP x_seconds X.\n# TYPE x_seconds histogram\n"
    "x_seconds_bucket{le=\"0.001\"} 100\n"
    "x_seconds_bucket{le=\"0.005\"} 108\n"
    "x_seconds_bucket{le=\"0.01\"} 109\n"
    "x_seconds_bucket{le=\"+Inf\"} 110\n"
    "x_seconds_sum 0.5\nx_seconds_count 110\n";

START_TEST(prom_reads_and_subtracts)
{
    struct lg_prom_hist a, b;
    double v;

    ck_assert_int_eq(lg_prom_hist(prom_before, "x_seconds", &b), 0);
    ck_assert_int_eq(b.n, 4);
    ck_assert(isinf(b.le[3]));
    ck_assert_int_eq(lg_prom_hist(prom_after, "x_seconds", &a), 0);
    ck_assert_int_eq(lg_prom_hist_sub(&a, &b), 0);
    ck_assert_double_eq(a.count, 100);
    ck_assert_double_eq_tol(a.sum, 0.498, 1e-9);
    ck_assert_double_eq(a.cum[0], 90);
    ck_assert_double_eq(a.cum[3], 100);
    /* p50: the 50th of 90 in (0, 1 ms]; p95: the 5th of 8 in (1, 5] ms;
     * p99: the only one in (5, 10] ms; p100: above every bound */
    ck_assert_double_eq_tol(lg_prom_quantile(&a, 0.5), 0.001 * 50 / 90,
                            1e-12);
    ck_assert_double_eq_tol(lg_prom_quantile(&a, 0.95), 0.001 + 0.004 * 5 / 8,
                            1e-12);
    ck_assert_double_eq_tol(lg_prom_quantile(&a, 0.99), 0.01, 1e-12);
    ck_assert_double_eq_tol(lg_prom_quantile(&a, 1.0), 0.01, 1e-12);
    ck_assert_double_eq(lg_prom_quantile(&b, 0.5) > 0, 1);
    ck_assert_int_eq(lg_prom_value(prom_before, "y_total{code=\"b\"}", &v),
                     0);
    ck_assert_double_eq(v, 4);
    ck_assert_int_eq(lg_prom_value(prom_before, "xy", &v), 0);
    ck_assert_double_eq(v, 7);
    ck_assert_int_eq(lg_prom_value(prom_before, "x", &v), -1);
    ck_assert_int_eq(lg_prom_hist(prom_before, "y", &a), -1);
    /* an empty window */
    ck_assert_int_eq(lg_prom_hist(prom_before, "x_seconds", &a), 0);
    ck_assert_int_eq(lg_prom_hist_sub(&a, &b), 0);
    ck_assert_double_eq(lg_prom_quantile(&a, 0.99), 0);
    /* other bounds: not comparable */
    b.le[1] = 0.002;
    ck_assert_int_eq(lg_prom_hist_sub(&a, &b), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("loadgen");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, hist_buckets_tile_the_range);
    tcase_add_test(tc, hist_precision);
    tcase_add_test(tc, hist_quantiles);
    tcase_add_test(tc, hist_merge_adds);
    tcase_add_test(tc, msg_moved);
    tcase_add_test(tc, msg_long_legal_list_is_cut);
    tcase_add_test(tc, msg_state_start_error);
    tcase_add_test(tc, msg_error_names_round_trip);
    tcase_add_test(tc, msg_fast_agrees_with_jansson);
    tcase_add_test(tc, msg_fast_falls_back);
    tcase_add_test(tc, prom_reads_and_subtracts);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
