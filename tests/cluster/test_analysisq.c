/*
 * test_analysisq.c - the cluster's queue of computer analyses
 * (server/cluster/lua/analysis_queue.lua; docs/cluster.md, "Computer
 * analysis") through server/cluster/redis.c against a real redis-server
 * under the shipped ACL: put's refusals (one job per player and per
 * address, the bound, a game queued once), take's order (a player's own
 * game first, then the oldest), a job whose lease lapsed taken again,
 * renew refused to a node that lost its job and a job Redis forgot
 * registered again, done's marks. Run again on a Redis Cluster of one
 * (analysisq_cluster): the script keeps to one hash slot.
 */
#include <check.h>
#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "cluster/redis.h"
#include "redis_scripts.h"
#include "redisproc.h"
#include "redisfix.h"
#include "redissync.h"

static const char *const keys[4] = {
    "analysis:{analysis}:jobs", "analysis:{analysis}:queue",
    "analysis:{analysis}:who", "analysis:{analysis}:running"};

/* Runs the script with args (n of them) and checks its answer's text. */
static void expect(const char *want, int n, const char *const *args)
{
    char *got = redissync_eval(loop, rd, REDIS_LUA_ANALYSIS_QUEUE, 4, keys, n,
                               args);

    ck_assert_msg(!strcmp(got, want), "%s %s: %s, not %s", args[0],
                  n > 1 ? args[1] : "", got, want);
    free(got);
}

#define Q(want, ...)                                     \
    do {                                                 \
        const char *a_[] = {__VA_ARGS__};                \
        expect(want, (int)(sizeof a_ / sizeof *a_), a_); \
    } while (0)

START_TEST(test_put_refusals_and_order)
{
    Q("[queued]", "put", "g1", "alice", "1.1.1.1", "10000000000100", "2");
    Q("[exists]", "put", "g1", "bob", "2.2.2.2", "100", "2");
    Q("[player]", "put", "g2", "alice", "3.3.3.3", "100", "2");
    Q("[address]", "put", "g2", "bob", "1.1.1.1", "100", "2");
    Q("[queued]", "put", "g2", "bob", "-", "200", "2"); /* own, later */
    Q("[full]", "put", "g3", "carol", "4.4.4.4", "50", "2");
    /* bob's own game first, though asked later */
    Q("[taken,g2,bob,-,new]", "take", "n1", "60000");
    Q("[taken,g1,alice,1.1.1.1,new]", "take", "n2", "60000");
    Q("[]", "take", "n3", "60000");
    /* done frees the player's and the address's mark */
    Q("1", "done", "g1");
    Q("[queued]", "put", "g4", "alice", "1.1.1.1", "300", "2");
    Q("[address]", "put", "g5", "dave", "1.1.1.1", "300", "2");
}
END_TEST

START_TEST(test_a_lapsed_job_is_taken_again)
{
    Q("[queued]", "put", "g1", "alice", "1.1.1.1", "100", "8");
    Q("[queued]", "put", "g2", "bob", "2.2.2.2", "200", "8");
    Q("[taken,g1,alice,1.1.1.1,new]", "take", "n1", "100");
    usleep(200 * 1000); /* n1 died: its lease of 100 ms lapsed */
    Q("[taken,g1,alice,1.1.1.1,again]", "take", "n2", "60000");
    /* n1 wakes: the job is n2's */
    Q("0", "renew", "n1", "60000", "g1", "alice", "1.1.1.1");
    Q("1", "renew", "n2", "60000", "g1", "alice", "1.1.1.1");
    Q("[taken,g2,bob,2.2.2.2,new]", "take", "n1", "60000");
}
END_TEST

START_TEST(test_renew_after_redis_forgot)
{
    char *got;

    Q("[queued]", "put", "g1", "alice", "1.1.1.1", "100", "8");
    Q("[taken,g1,alice,1.1.1.1,new]", "take", "n1", "60000");
    got = redissync_command(loop, admin, "FLUSHALL"); /* (a restart) */
    free(got);
    Q("1", "renew", "n1", "60000", "g1", "alice", "1.1.1.1");
    /* registered again, marks and all */
    Q("[player]", "put", "g2", "alice", "9.9.9.9", "100", "8");
    Q("[address]", "put", "g2", "bob", "1.1.1.1", "100", "8");
    Q("[exists]", "put", "g1", "carol", "8.8.8.8", "100", "8");
    Q("[]", "take", "n2", "60000");
}
END_TEST

START_TEST(test_bad_calls)
{
    char *got;
    const char *bad[] = {"put", "g1", "alice"};
    const char *unknown[] = {"pop"};

    got = redissync_eval(loop, rd, REDIS_LUA_ANALYSIS_QUEUE, 4, keys, 3, bad);
    ck_assert_msg(strstr(got, "bad put"), "%s", got);
    free(got);
    got = redissync_eval(loop, rd, REDIS_LUA_ANALYSIS_QUEUE, 4, keys, 1,
                         unknown);
    ck_assert_msg(strstr(got, "unknown operation"), "%s", got);
    free(got);
}
END_TEST

static Suite *analysisq_suite(void)
{
    Suite *s = suite_create("analysisq");
    TCase *tc = tcase_create("queue");

    tcase_add_unchecked_fixture(tc, setup_server, teardown_server);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_put_refusals_and_order);
    tcase_add_test(tc, test_a_lapsed_job_is_taken_again);
    tcase_add_test(tc, test_renew_after_redis_forgot);
    tcase_add_test(tc, test_bad_calls);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(analysisq_suite());
}
