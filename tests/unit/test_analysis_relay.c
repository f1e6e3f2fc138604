/*
 * test_analysis_relay.c - analyse's count of the jobs finished here that
 * its read may have missed (analysis_relay_uncounted): a job is counted
 * once whether or not the read found its game's row, only in the window
 * it was asked in, and only the requester's (hub/analysis_relay.h).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hub/analysis_relay.h"
#include "store/store.h"
#include "check_main.h"

#define DAY (24LL * 3600 * 1000)
#define NOW (1800000000000LL)

/* A relay without a hub: the results of this node's jobs and their
 * count need none (nothing here prunes them). */
static struct analysis_relay *relay(void)
{
    struct analysis_relay *r = analysis_relay_new(NULL);

    ck_assert_ptr_nonnull(r);
    return r;
}

static void done(struct analysis_relay *r, const char *gid, const char *pid,
                 int64_t requested_ms, uint64_t seq)
{
    analysis_relay_done(r, gid, pid, requested_ms, seq, strdup("{}"));
}

/* A row a read found. */
static struct store_analysis row(const char *gid, const char *pid,
                                 const char *status, int64_t requested_ms)
{
    struct store_analysis a = {.requested_ms = requested_ms};

    strcpy(a.gid, gid);
    strcpy(a.pid, pid);
    strcpy(a.status, status);
    return a;
}

/* The race: job g1's "queued" row committed after the read's `seen`
 * but before its query, which found it (still "queued": its "done" row
 * is not committed), while g1's result waits in the relay. Counted by
 * the read, not again. */
START_TEST(a_job_the_read_found_is_not_counted_again)
{
    struct analysis_relay *r = relay();
    struct store_analysis seen[2] = {
        row("g1", "alice", "queued", NOW - 1000),
        row("g0", "alice", "done", NOW - 2 * DAY),
    };

    done(r, "g1", "alice", NOW - 1000, 7);
    ck_assert_int_eq(analysis_relay_uncounted(r, "alice", seen, 2, NOW - DAY),
                     0);
    ck_assert_int_eq(
        analysis_relay_uncounted(r, "alice", seen, 2, NOW - 7 * DAY), 0);
    /* found "done" as well (committed before the query, not yet before
     * every read in flight began): the same */
    seen[0] = row("g1", "alice", "done", NOW - 1000);
    ck_assert_int_eq(analysis_relay_uncounted(r, "alice", seen, 2, NOW - DAY),
                     0);
    analysis_relay_free(r);
}
END_TEST

/* Job g2's rows were not committed when the read ran (whichever node
 * wrote its "queued" row, before or after the read's `seen`): counted
 * once, in each window it was asked in. */
START_TEST(a_job_the_read_missed_is_counted_once)
{
    struct analysis_relay *r = relay();
    struct store_analysis seen[1] = {row("g0", "alice", "done", NOW - DAY)};

    done(r, "g2", "alice", NOW - 1000, 9);
    ck_assert_int_eq(analysis_relay_uncounted(r, "alice", seen, 1, NOW - DAY),
                     1);
    ck_assert_int_eq(
        analysis_relay_uncounted(r, "alice", seen, 1, NOW - 7 * DAY), 1);
    ck_assert_int_eq(
        analysis_relay_uncounted(r, "alice", NULL, 0, NOW - 7 * DAY), 1);
    analysis_relay_free(r);
}
END_TEST

/* Of several results: the requester's, asked in the window, not found
 * by the read; another player's never. */
START_TEST(only_the_requester_s_missed_jobs_in_the_window)
{
    struct analysis_relay *r = relay();
    struct store_analysis seen[2] = {
        row("g1", "alice", "queued", NOW - 1000),
        row("g3", "alice", "queued", NOW - 3 * DAY),
    };

    done(r, "g1", "alice", NOW - 1000, 5);    /* found */
    done(r, "g2", "alice", NOW - 2000, 6);    /* missed */
    done(r, "g3", "alice", NOW - 3 * DAY, 7); /* found (the week's) */
    done(r, "g4", "alice", NOW - 6 * DAY, 8); /* missed, 6 days ago */
    done(r, "g5", "alice", NOW - 8 * DAY, 9); /* missed, out of both */
    done(r, "g6", "bob", NOW - 1000, 10);     /* another's */
    ck_assert_int_eq(analysis_relay_uncounted(r, "alice", seen, 2, NOW - DAY),
                     1);
    ck_assert_int_eq(
        analysis_relay_uncounted(r, "alice", seen, 2, NOW - 7 * DAY), 2);
    ck_assert_int_eq(analysis_relay_uncounted(r, "bob", seen, 2, NOW - DAY),
                     1);
    ck_assert_int_eq(analysis_relay_uncounted(r, "carol", NULL, 0, 0), 0);
    analysis_relay_free(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("analysis_relay");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, a_job_the_read_found_is_not_counted_again);
    tcase_add_test(tc, a_job_the_read_missed_is_counted_once);
    tcase_add_test(tc, only_the_requester_s_missed_jobs_in_the_window);
    suite_add_tcase(s, tc);
    return check_main(s);
}
