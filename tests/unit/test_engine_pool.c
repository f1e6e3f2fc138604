/*
 * test_engine_pool.c - the engine pool (server/engine/pool.h) over the
 * fake engine (fake_uci.c, FAKE_UCI): an answer with its move, score,
 * pv and the engine's name, after the UCI exchange the engine's log
 * shows; every way an engine fails (crash, hang, illegal move, no move,
 * garbage, control bytes, a line too long, no uciok) kills it, counts
 * the restart by its fault and answers from a fresh engine; an engine
 * failing every time is answered FAILED after two tries, within a bound;
 * a slow engine is stopped and answers; a request past its deadline is
 * EXPIRED; the queue's cap (and analysis's half of it); a bad request;
 * stopping with a search running.
 */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "engine/pool.h"
#include "engine/uciproc.h"
#include "tmpdir.h"
#include "wakeup.h"

#define MAXA 16
static struct engine_answer got[MAXA];
static char got_pv[MAXA][UCI_PV_MAX], got_name[MAXA][UCI_NAME_MAX];
static int ngot;

static void done(void *arg, const struct engine_answer *a)
{
    (void)arg;
    ck_assert_int_lt(ngot, MAXA);
    got[ngot] = *a;
    snprintf(got_pv[ngot], sizeof got_pv[ngot], "%s", a->info.pv);
    snprintf(got_name[ngot], sizeof got_name[ngot], "%s", a->engine);
    ngot++;
}

/* Collects until n answers came, at most ms. */
static void await_answers(struct engine_pool *p, int n, int64_t ms)
{
    int64_t until = uciproc_now_ms() + ms;

    while (ngot < n && uciproc_now_ms() < until) {
        wakeup_wait(20);
        engine_pool_collect(p);
    }
    ck_assert_int_eq(ngot, n);
}

static char fake_path[4096];

/* Each test's environment from scratch (CK_FORK=no, as under valgrind,
 * runs them all in one process). */
static void setup(void)
{
    static const char *const vars[] = {"FAKE_UCI_MODE", "FAKE_UCI_ONCE",
                                       "FAKE_UCI_DELAY_MS", "FAKE_UCI_LOG",
                                       "FAKE_UCI_START_MS"};

    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
    setenv("FAKE_UCI", fake_path, 1);
}

static struct engine_pool *pool_of(int engines, size_t queue)
{
    const char *fake = getenv("FAKE_UCI");
    struct engine_pool *p;

    signal(SIGPIPE, SIG_IGN);
    ck_assert_msg(fake && *fake, "FAKE_UCI: the fake engine's path");
    ngot = 0;
    p = engine_pool_start(&(struct engine_pool_config){
        .path = fake,
        .engines = engines,
        .queue = queue,
        .wake = wakeup_signal,
        .start_ms = 1000,
        .slack_ms = 300,
        .stop_ms = 200,
    });
    ck_assert_ptr_nonnull(p);
    return p;
}

static struct engine_ask ask_of(const char *tag, const char *moves)
{
    struct engine_ask q = {
        .tag = tag,
        .moves = moves,
        .budget = {.movetime_ms = 100, .depth = 5},
        .deadline_ms = uciproc_now_ms() + 20000,
        .prio = ENGINE_PRIO_PLAY,
        .done = done,
    };
    return q;
}

static char *slurp(const char *path)
{
    static char buf[8192];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;

    if (f)
        fclose(f);
    buf[n] = '\0';
    return buf;
}

START_TEST(answers_with_score_and_exchange)
{
    char dir[256], logp[300];
    struct engine_pool *p;
    struct engine_ask q;
    struct engine_pool_stats st;

    tmpdir_make(dir, sizeof dir, "engine_pool");
    snprintf(logp, sizeof logp, "%s/uci.log", dir);
    setenv("FAKE_UCI_LOG", logp, 1);
    p = pool_of(1, 8);
    q = ask_of("G1", "e2e4");
    q.cookie = 77;
    q.n_options = 1;
    snprintf(q.options[0].name, sizeof q.options[0].name, "Skill Level");
    snprintf(q.options[0].value, sizeof q.options[0].value, "3");
    q.budget = (struct uci_budget){.clock = true,
                                   .wtime_ms = 1000,
                                   .btime_ms = 2000,
                                   .movetime_ms = 100,
                                   .depth = 5};
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    await_answers(p, 1, 5000);
    ck_assert_int_eq(got[0].status, ENGINE_OK);
    ck_assert_int_eq(got[0].tries, 1);
    ck_assert_int_eq((int)got[0].cookie, 77);
    ck_assert_str_eq(got[0].bestmove, "a7a5"); /* the first, by UCI text */
    ck_assert(got[0].info.has_score && got[0].info.score == 17);
    ck_assert_str_eq(got_pv[0], "a7a5");
    ck_assert_str_eq(got_name[0], "FakeUCI 1.0");
    /* the same game and options: only position and go; another game:
     * ucinewgame first */
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    q = ask_of("G2", "");
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    await_answers(p, 3, 5000);
    ck_assert_str_eq(got[2].bestmove, "a2a3");
    engine_pool_stats(p, &st);
    ck_assert_int_eq(st.engines, 1);
    ck_assert_int_eq(st.running, 1);
    ck_assert_uint_eq(st.answers[ENGINE_OK], 3);
    ck_assert_uint_eq(st.think.count, 3);
    for (int f = 0; f < ENGINE_FAULTS; f++)
        ck_assert_uint_eq(st.restarts[f], 0);
    engine_pool_stop(p);
    ck_assert_str_eq(
        slurp(logp),
        "uci\nisready\n"
        "setoption name Skill Level value 3\nucinewgame\nisready\n"
        "position startpos moves e2e4\n"
        "go wtime 1000 btime 2000 winc 0 binc 0 movetime 100 depth 5\n"
        "position startpos moves e2e4\n"
        "go wtime 1000 btime 2000 winc 0 binc 0 movetime 100 depth 5\n"
        "ucinewgame\nisready\n"
        "position startpos\ngo movetime 100 depth 5\n");
    tmpdir_remove(dir);
}
END_TEST

/* Mode misbehaves once: the answer is a fresh engine's, the restart
 * counted under fault, and a second request needs no restart. */
static void recovers(const char *mode, enum engine_fault fault)
{
    char dir[256], once[300];
    struct engine_pool *p;
    struct engine_ask q = ask_of("G", "e2e4 e7e5");
    struct engine_pool_stats st;

    tmpdir_make(dir, sizeof dir, "engine_pool");
    snprintf(once, sizeof once, "%s/once", dir);
    setenv("FAKE_UCI_MODE", mode, 1);
    setenv("FAKE_UCI_ONCE", once, 1);
    p = pool_of(1, 8);
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    await_answers(p, 1, 5000);
    ck_assert_msg(got[0].status == ENGINE_OK, "%s: status %d", mode,
                  got[0].status);
    ck_assert_int_eq(got[0].tries, 2);
    ck_assert_str_eq(got[0].bestmove, "a2a3");
    engine_pool_stats(p, &st);
    for (int f = 0; f < ENGINE_FAULTS; f++)
        ck_assert_msg(st.restarts[f] == (f == (int)fault),
                      "%s: %s restarts %llu", mode, engine_fault_name(f),
                      (unsigned long long)st.restarts[f]);
    ck_assert_int_eq(st.running, 1);
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    await_answers(p, 2, 5000);
    ck_assert_int_eq(got[1].tries, 1);
    engine_pool_stop(p);
    tmpdir_remove(dir);
}

START_TEST(crash_recovers)
{
    recovers("crash", ENGINE_FAULT_CRASH);
}
END_TEST

START_TEST(hang_recovers)
{
    recovers("hang", ENGINE_FAULT_HANG);
}
END_TEST

START_TEST(illegal_recovers)
{
    recovers("illegal", ENGINE_FAULT_ILLEGAL);
}
END_TEST

START_TEST(no_move_recovers)
{
    recovers("none", ENGINE_FAULT_ILLEGAL);
}
END_TEST

START_TEST(garbage_recovers)
{
    recovers("garbage", ENGINE_FAULT_GARBAGE);
}
END_TEST

START_TEST(binary_recovers)
{
    recovers("binary", ENGINE_FAULT_GARBAGE);
}
END_TEST

START_TEST(long_line_recovers)
{
    recovers("longline", ENGINE_FAULT_GARBAGE);
}
END_TEST

START_TEST(no_uciok_recovers)
{
    recovers("nostart", ENGINE_FAULT_START);
}
END_TEST

START_TEST(always_failing_is_answered)
{
    struct engine_pool *p;
    struct engine_ask q = ask_of("G", "");
    struct engine_pool_stats st;
    int64_t t0;

    setenv("FAKE_UCI_MODE", "hang", 1);
    p = pool_of(1, 8);
    t0 = uciproc_now_ms();
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    /* two tries of movetime, slack, stop and quit each */
    await_answers(p, 1, 5000);
    ck_assert_int_lt(uciproc_now_ms() - t0,
                     2 * (100 + 300 + 200 + 300) + 500);
    ck_assert_int_eq(got[0].status, ENGINE_FAILED);
    ck_assert_int_eq(got[0].fault, ENGINE_FAULT_HANG);
    ck_assert_int_eq(got[0].tries, 2);
    engine_pool_stats(p, &st);
    ck_assert_uint_eq(st.restarts[ENGINE_FAULT_HANG], 2);
    ck_assert_uint_eq(st.answers[ENGINE_FAILED], 1);
    ck_assert_int_eq(st.running, 0);
    engine_pool_stop(p);
}
END_TEST

START_TEST(slow_is_stopped_and_answers)
{
    struct engine_pool *p;
    struct engine_ask q = ask_of("G", "");
    struct engine_pool_stats st;
    int64_t t0;

    setenv("FAKE_UCI_MODE", "slow", 1);
    setenv("FAKE_UCI_DELAY_MS", "60000", 1);
    p = pool_of(1, 8);
    t0 = uciproc_now_ms();
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    await_answers(p, 1, 5000);
    /* stopped at movetime + slack, answered at once: no fault */
    ck_assert_int_ge(uciproc_now_ms() - t0, 100 + 300);
    ck_assert_int_eq(got[0].status, ENGINE_OK);
    ck_assert_int_eq(got[0].tries, 1);
    engine_pool_stats(p, &st);
    ck_assert_uint_eq(st.restarts[ENGINE_FAULT_HANG], 0);
    engine_pool_stop(p);
}
END_TEST

START_TEST(slow_start_is_no_hang)
{
    struct engine_pool *p;
    struct engine_ask q = ask_of("G", "");
    struct engine_pool_stats st;

    /* longer than the slack, shorter than the start's wait */
    setenv("FAKE_UCI_START_MS", "500", 1);
    p = pool_of(1, 8);
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    await_answers(p, 1, 5000);
    ck_assert_int_eq(got[0].status, ENGINE_OK);
    ck_assert_int_eq(got[0].tries, 1);
    engine_pool_stats(p, &st);
    ck_assert_uint_eq(st.restarts[ENGINE_FAULT_HANG], 0);
    engine_pool_stop(p);
}
END_TEST

START_TEST(expired_before_it_ran)
{
    struct engine_pool *p = pool_of(1, 8);
    struct engine_ask q = ask_of("G", "");

    q.deadline_ms = uciproc_now_ms() - 1;
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    await_answers(p, 1, 5000);
    ck_assert_int_eq(got[0].status, ENGINE_EXPIRED);
    ck_assert_int_eq(got[0].tries, 0);
    engine_pool_stop(p);
}
END_TEST

START_TEST(queue_cap)
{
    struct engine_pool *p;
    struct engine_ask q = ask_of("G", "");
    struct engine_pool_stats st;
    int64_t until = uciproc_now_ms() + 5000;

    setenv("FAKE_UCI_MODE", "slow", 1);
    setenv("FAKE_UCI_DELAY_MS", "60000", 1);
    q.budget.movetime_ms = 60000;
    p = pool_of(1, 4);
    ck_assert_int_eq(engine_pool_ask(p, &q), 0); /* taken by the engine */
    do {
        engine_pool_stats(p, &st);
    } while (st.queued && uciproc_now_ms() < until);
    ck_assert(!engine_pool_saturated(p));
    q.prio = ENGINE_PRIO_ANALYSIS;
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    /* analysis may fill half the queue; a game's move all of it */
    ck_assert_int_eq(engine_pool_ask(p, &q), -1);
    ck_assert(engine_pool_saturated(p));
    q.prio = ENGINE_PRIO_PLAY;
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    ck_assert_int_eq(engine_pool_ask(p, &q), -1);
    engine_pool_stats(p, &st);
    ck_assert_uint_eq(st.queued, 4);
    /* stopping drops them, the running search cut short at once */
    until = uciproc_now_ms();
    engine_pool_stop(p);
    ck_assert_int_lt(uciproc_now_ms() - until, 1000);
    ck_assert_int_eq(ngot, 0);
}
END_TEST

START_TEST(bad_requests)
{
    struct engine_pool *p = pool_of(1, 8);
    struct engine_ask q = ask_of("G", "e2e5");
    struct engine_pool_stats st;

    ck_assert_int_eq(engine_pool_ask(p, &q), 0); /* an illegal move */
    q = ask_of("G", "");
    q.fen = "8/8/8/8/8/8/8/8 w - - 0 1"; /* no kings */
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    q = ask_of("G", "f2f3 e7e5 g2g4 d8h4"); /* mate: no move to ask */
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    await_answers(p, 3, 5000);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(got[i].status, ENGINE_FAILED);
        ck_assert_int_eq(got[i].tries, 0);
    }
    engine_pool_stats(p, &st);
    for (int f = 0; f < ENGINE_FAULTS; f++)
        ck_assert_uint_eq(st.restarts[f], 0);
    /* refused at once: no limit, no callback, a tag too long */
    q = ask_of("G", "");
    q.budget = (struct uci_budget){0};
    ck_assert_int_eq(engine_pool_ask(p, &q), -1);
    q = ask_of("0123456789012345678901234567890123", "");
    ck_assert_int_eq(engine_pool_ask(p, &q), -1);
    q = ask_of("G", "");
    q.done = NULL;
    ck_assert_int_eq(engine_pool_ask(p, &q), -1);
    engine_pool_stop(p);
}
END_TEST

START_TEST(missing_program_is_a_start_fault)
{
    struct engine_pool *p;
    struct engine_ask q = ask_of("G", "");
    struct engine_pool_stats st;

    setenv("FAKE_UCI", "/nonexistent/engine", 1);
    p = pool_of(1, 8);
    ck_assert_int_eq(engine_pool_ask(p, &q), 0);
    await_answers(p, 1, 5000);
    ck_assert_int_eq(got[0].status, ENGINE_FAILED);
    ck_assert_int_eq(got[0].fault, ENGINE_FAULT_START);
    engine_pool_stats(p, &st);
    ck_assert_uint_eq(st.restarts[ENGINE_FAULT_START], 2);
    engine_pool_stop(p);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("engine_pool");
    TCase *tc = tcase_create("pool");

    tcase_set_timeout(tc, 30);
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, answers_with_score_and_exchange);
    tcase_add_test(tc, crash_recovers);
    tcase_add_test(tc, hang_recovers);
    tcase_add_test(tc, illegal_recovers);
    tcase_add_test(tc, no_move_recovers);
    tcase_add_test(tc, garbage_recovers);
    tcase_add_test(tc, binary_recovers);
    tcase_add_test(tc, long_line_recovers);
    tcase_add_test(tc, no_uciok_recovers);
    tcase_add_test(tc, always_failing_is_answered);
    tcase_add_test(tc, slow_is_stopped_and_answers);
    tcase_add_test(tc, slow_start_is_no_hang);
    tcase_add_test(tc, expired_before_it_ran);
    tcase_add_test(tc, queue_cap);
    tcase_add_test(tc, bad_requests);
    tcase_add_test(tc, missing_program_is_a_start_fault);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char *fake = getenv("FAKE_UCI");

    snprintf(fake_path, sizeof fake_path, "%s", fake ? fake : "");
    return check_main(suite());
}
