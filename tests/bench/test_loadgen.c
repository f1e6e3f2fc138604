/*
 * test_loadgen.c - unit tests of the load generator's parts: the latency
 * histogram, the timer heap and the message parser.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loadgen_hist.h"
#include "loadgen_msg.h"
#include "loadgen_timerq.h"

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

/* ---- timer heap -------------------------------------------------------- */

static int fired[64], nfired;

static void on_fire(struct lg_timer *t)
{
    fired[nfired++] = (int)t->due_us;
}

START_TEST(timerq_orders_rearms_cancels)
{
    struct lg_timerq q = {0};
    struct lg_timer t[40];
    struct lg_timer *x;
    uint64_t s = 12345;
    int64_t last = -1;
    int armed = 0;

    nfired = 0;
    for (int i = 0; i < 40; i++) {
        lg_timer_init(&t[i], on_fire);
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        ck_assert_int_eq(lg_timerq_arm(&q, &t[i], (int64_t)(s >> 54)), 0);
    }
    ck_assert_int_eq(lg_timerq_next(&q) >= 0, 1);
    for (int i = 0; i < 40; i += 4)   /* re-arm every 4th later */
        lg_timerq_arm(&q, &t[i], 5000 + i);
    for (int i = 1; i < 40; i += 4)   /* cancel others */
        lg_timerq_cancel(&q, &t[i]);
    lg_timerq_cancel(&q, &t[1]);      /* twice: a no-op */
    for (int i = 0; i < 40; i++)
        armed += t[i].slot >= 0;
    ck_assert_int_eq(armed, 30);
    ck_assert_ptr_null(lg_timerq_pop_due(&q, -1));
    while ((x = lg_timerq_pop_due(&q, 4999))) {
        ck_assert_int_ge(x->due_us, last);
        last = x->due_us;
        ck_assert_int_eq(x->slot, -1);
        x->cb(x);
    }
    ck_assert_int_eq(nfired, 20);
    ck_assert_int_eq(lg_timerq_next(&q), 5000);
    while ((x = lg_timerq_pop_due(&q, INT64_MAX)))
        x->cb(x);
    ck_assert_int_eq(nfired, 30);
    for (int i = 21; i < 30; i++)
        ck_assert_int_gt(fired[i], fired[i - 1]);
    ck_assert_int_eq(lg_timerq_next(&q), INT64_MAX);
    lg_timerq_free(&q);
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
    ck_assert_str_eq(lg_msg_error_name(0), "bad_json");
    ck_assert_str_eq(lg_msg_error_name(LG_ERR_PROTOCOL_CODES - 1),
                     "rate_limited");
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
    tcase_add_test(tc, timerq_orders_rearms_cancels);
    tcase_add_test(tc, msg_moved);
    tcase_add_test(tc, msg_state_start_error);
    tcase_add_test(tc, msg_error_names_round_trip);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
