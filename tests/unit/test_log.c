/*
 * test_log.c - the logger's rate limit: an error or warning repeated
 * within a second is written once and counted, the count is written with
 * the next one after the second or in a summary line once the repeats
 * stop; different lines and info lines are never held back. The clock is
 * the test's (log_set_clock).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"

static char path[] = "/tmp/test_log_XXXXXX";
/* Only moves forward: with CK_FORK=no (valgrind) the logger's state
 * carries over from one test to the next. */
static int64_t now_ms = 1000000;

static int64_t fake_clock(void)
{
    return now_ms;
}

static void setup(void)
{
    char err[200];
    FILE *f = fopen(path, "w"); /* empty it */

    ck_assert_ptr_nonnull(f);
    fclose(f);
    log_set_clock(fake_clock);
    ck_assert_msg(log_open(path, LOG_INFO, err, sizeof err) == 0, "%s", err);
}

static void teardown(void)
{
    now_ms += 10000; /* every window over: log_close writes every count */
    log_close();
    log_set_clock(NULL);
}

/* How many lines of the log contain `what` (all of `also` too, if set). */
static int lines_with(const char *what, const char *also)
{
    char line[2200];
    int n = 0;
    FILE *f = fopen(path, "r");

    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof line, f))
        if (strstr(line, what) && (!also || strstr(line, also)))
            n++;
    fclose(f);
    return n;
}

START_TEST(repeats_within_a_second_are_counted)
{
    /* a full disk: the writer's commit fails on every retry */
    for (int i = 0; i < 25; i++) {
        log_error("event=store_commit_failed code=13 error=\"disk full\"");
        now_ms += 40;
    }
    /* 25 within 960 ms: the first written, 24 counted */
    ck_assert_int_eq(lines_with("event=store_commit_failed", NULL), 1);
    now_ms += 1; /* 1,001 ms after the first */
    log_error("event=store_commit_failed code=13 error=\"disk full\"");
    ck_assert_int_eq(lines_with("event=store_commit_failed", NULL), 2);
    ck_assert_int_eq(lines_with("event=store_commit_failed", "suppressed=24"),
                     1);
}
END_TEST

START_TEST(different_lines_and_info_pass)
{
    for (int i = 0; i < 10; i++) {
        log_error("event=store_write_dropped what=move seq=%d", i);
        log_warn("event=store_checkpoint_failed code=10");
        log_info("event=game_end game=G%d reason=checkmate", i % 2);
        log_info("event=restored games=0");
    }
    ck_assert_int_eq(lines_with("event=store_write_dropped", NULL), 10);
    ck_assert_int_eq(lines_with("event=store_checkpoint_failed", NULL), 1);
    ck_assert_int_eq(lines_with("event=game_end", NULL), 10);
    ck_assert_int_eq(lines_with("event=restored", NULL), 10);
}
END_TEST

START_TEST(the_count_is_written_when_the_repeats_stop)
{
    for (int i = 0; i < 7; i++)
        log_warn("event=store_checkpoint_failed code=10");
    ck_assert_int_eq(lines_with("event=log_suppressed", NULL), 0);
    now_ms += 500;
    log_info("event=player_new player=P1");
    ck_assert_int_eq(lines_with("event=log_suppressed", NULL), 0);
    now_ms += 600;
    log_info("event=player_new player=P2"); /* any line flushes it */
    ck_assert_int_eq(lines_with("warn event=log_suppressed",
                                "of=store_checkpoint_failed count=6 "),
                     1);
    /* counted once: the next repeat starts afresh */
    log_warn("event=store_checkpoint_failed code=10");
    ck_assert_int_eq(lines_with("event=store_checkpoint_failed", NULL), 2);
    ck_assert_int_eq(lines_with("suppressed=", NULL), 0);
    /* and at close */
    log_warn("event=store_checkpoint_failed code=10");
    now_ms += 1000;
    log_close();
    ck_assert_int_eq(lines_with("event=log_suppressed",
                                "of=store_checkpoint_failed count=1 "),
                     1);
}
END_TEST

/* The summary does not wait for the next line: the loop's second's
 * log_flush writes it (a storm that stopped, then a quiet server, left
 * its count unwritten for 23 s). */
START_TEST(the_count_is_written_by_the_timer)
{
    for (int i = 0; i < 5; i++)
        log_error("event=store_commit_failed code=13 error=\"disk full\"");
    now_ms += 500;
    log_flush(); /* inside the window: the repeats may go on */
    ck_assert_int_eq(lines_with("event=log_suppressed", NULL), 0);
    now_ms += 600;
    log_flush();
    ck_assert_int_eq(lines_with("error event=log_suppressed",
                                "of=store_commit_failed count=4 "),
                     1);
    log_flush(); /* once */
    ck_assert_int_eq(lines_with("event=log_suppressed", NULL), 1);
}
END_TEST

START_TEST(many_different_repeating_lines)
{
    /* more kinds than slots: none is lost for good, every kind written */
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 40; i++)
            log_error("event=e%d x=1", i);
    for (int i = 0; i < 40; i++) {
        char ev[16];
        snprintf(ev, sizeof ev, "event=e%d ", i);
        ck_assert_int_ge(lines_with(ev, NULL), 1);
    }
}
END_TEST

int main(void)
{
    int fd = mkstemp(path), failed;

    if (fd < 0)
        return EXIT_FAILURE;
    close(fd);
    Suite *s = suite_create("log");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, repeats_within_a_second_are_counted);
    tcase_add_test(tc, different_lines_and_info_pass);
    tcase_add_test(tc, the_count_is_written_when_the_repeats_stop);
    tcase_add_test(tc, the_count_is_written_by_the_timer);
    tcase_add_test(tc, many_different_repeating_lines);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    unlink(path);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
