/*
 * test_workers.c - the worker pool (lib/workers.h): jobs run on the
 * workers, not the caller; answers come back oldest finished first (with
 * one worker, in the order submitted), each after a wake-up; the cap
 * counts the jobs being run or only those waiting, as configured, and a
 * job refused is released at once; hold stops the taking, not the job
 * being run; the hooks under the lock see the jobs still waiting;
 * a job submitted first goes ahead of the others and may take the
 * reserve; stopping with jobs waiting and answers uncollected releases
 * them all
 * (valgrind: `meson test -C build --setup valgrind workers`).
 */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "check_main.h"
#include "lib/workers.h"

#define MAXJ 64
#define MAXW 8

struct tjob {
    int id;
    bool gated; /* run waits for the gate to open */
    pthread_t ran_on;
    int n_seen;              /* jobs waiting when taken */
    int seen[MAXW];          /* their ids */
    int n_seen_at_done;      /* jobs waiting when done */
    struct workers_job link; /* not first: workers_container at work */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int wakes, running;
static bool gate_open;
static atomic_int released, queued;
static int got[MAXJ], ngot;
static pthread_t got_on[MAXJ];

/* (plain ints, for readable assertions) */
static int nreleased(void)
{
    return atomic_load(&released);
}

static int nqueued(void)
{
    return atomic_load(&queued);
}

static struct tjob *tjob_of(struct workers_job *j)
{
    return workers_container(j, struct tjob, link);
}

static void wake(void)
{
    pthread_mutex_lock(&mu);
    wakes++;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void run(void *ctx, struct workers_job *wj)
{
    struct tjob *j = tjob_of(wj);

    ck_assert_ptr_eq(ctx, &mu);
    j->ran_on = pthread_self();
    pthread_mutex_lock(&mu);
    running++;
    pthread_cond_broadcast(&cv);
    while (j->gated && !gate_open)
        pthread_cond_wait(&cv, &mu);
    running--;
    pthread_mutex_unlock(&mu);
}

static void release(void *ctx, struct workers_job *j)
{
    (void)ctx;
    atomic_fetch_add(&released, 1);
    free(tjob_of(j));
}

static void on_queued(void *ctx, struct workers_job *j)
{
    (void)ctx;
    (void)j;
    atomic_fetch_add(&queued, 1);
}

static void on_taken(void *ctx, struct workers_job *wj,
                     struct workers_job *waiting)
{
    struct tjob *j = tjob_of(wj);

    (void)ctx;
    for (; waiting && j->n_seen < MAXW; waiting = waiting->next)
        j->seen[j->n_seen++] = tjob_of(waiting)->id;
}

static void on_done(void *ctx, struct workers_job *wj,
                    struct workers_job *waiting)
{
    struct tjob *j = tjob_of(wj);

    (void)ctx;
    for (; waiting; waiting = waiting->next)
        j->n_seen_at_done++;
}

static void answer(void *arg, struct workers_job *wj)
{
    struct tjob *j = tjob_of(wj);

    (void)arg;
    ck_assert_int_lt(ngot, MAXJ);
    got_on[ngot] = j->ran_on;
    got[ngot++] = j->id;
}

static struct workers_conf conf(int threads, size_t cap, bool cap_waiting)
{
    return (struct workers_conf){.threads = threads,
                                 .cap = cap,
                                 .cap_waiting = cap_waiting,
                                 .ctx = &mu,
                                 .wake = wake,
                                 .run = run,
                                 .release = release,
                                 .queued = on_queued,
                                 .taken = on_taken,
                                 .done = on_done};
}

static void reset(void)
{
    ngot = 0;
    wakes = 0;
    running = 0;
    gate_open = false;
    atomic_store(&released, 0);
    atomic_store(&queued, 0);
}

static int submit(struct workers *w, int id, bool gated)
{
    struct tjob *j = calloc(1, sizeof *j);

    ck_assert_ptr_nonnull(j);
    j->id = id;
    j->gated = gated;
    return workers_submit(w, &j->link);
}

/* As submit, ahead of the jobs submitted plainly. */
static int submit_first(struct workers *w, int id)
{
    struct tjob *j = calloc(1, sizeof *j);

    ck_assert_ptr_nonnull(j);
    j->id = id;
    return workers_submit_first(w, &j->link);
}

/* Waits (10 s at most) until the workers run n jobs at once. */
static void await_running(int n)
{
    time_t give_up = time(NULL) + 10;

    pthread_mutex_lock(&mu);
    while (running != n && time(NULL) < give_up) {
        struct timespec ts = {time(NULL) + 1, 0};
        pthread_cond_timedwait(&cv, &mu, &ts);
    }
    ck_assert_int_eq(running, n);
    pthread_mutex_unlock(&mu);
}

static void open_gate(void)
{
    pthread_mutex_lock(&mu);
    gate_open = true;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

/* Collects until n answers came in all (10 s at most). */
static void collect(struct workers *w, int n)
{
    time_t give_up = time(NULL) + 10;

    while (ngot < n && time(NULL) < give_up) {
        pthread_mutex_lock(&mu);
        while (!wakes && time(NULL) < give_up) {
            struct timespec ts = {time(NULL) + 1, 0};
            pthread_cond_timedwait(&cv, &mu, &ts);
        }
        wakes = 0;
        pthread_mutex_unlock(&mu);
        workers_collect(w, answer, NULL);
    }
    ck_assert_int_eq(ngot, n);
}

START_TEST(one_worker_answers_in_order)
{
    struct workers_conf c = conf(1, MAXJ, false);
    struct workers *w = workers_start(&c);

    reset();
    ck_assert_ptr_nonnull(w);
    for (int i = 0; i < 20; i++)
        ck_assert_int_eq(submit(w, i, false), 0);
    collect(w, 20);
    for (int i = 0; i < 20; i++) {
        ck_assert_int_eq(got[i], i);
        ck_assert(!pthread_equal(got_on[i], pthread_self()));
    }
    /* released once each, after the callback saw it */
    ck_assert_int_eq(nreleased(), 20);
    ck_assert_int_eq(nqueued(), 20);
    ck_assert_uint_eq(workers_busy(w), 0);
    ck_assert_uint_eq(workers_ready(w), 0);
    /* nothing ready: collect calls nothing */
    workers_collect(w, answer, NULL);
    ck_assert_int_eq(ngot, 20);
    workers_stop(w);
    ck_assert_int_eq(nreleased(), 20);
}
END_TEST

/* Two workers: a job held up in its run does not hold up the answer of
 * one submitted after it. */
START_TEST(answers_in_the_order_finished)
{
    struct workers_conf c = conf(2, MAXJ, false);
    struct workers *w = workers_start(&c);

    reset();
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(submit(w, 1, true), 0);
    await_running(1);
    ck_assert_int_eq(submit(w, 2, false), 0);
    collect(w, 1);
    ck_assert_int_eq(got[0], 2);
    ck_assert_uint_eq(workers_busy(w), 1);
    open_gate();
    collect(w, 2);
    ck_assert_int_eq(got[1], 1);
    ck_assert(!pthread_equal(got_on[0], pthread_self()));
    ck_assert(!pthread_equal(got_on[1], pthread_self()));
    workers_stop(w);
    ck_assert_int_eq(nreleased(), 2);
}
END_TEST

/* The cap counts the jobs being run: one runs, cap - 1 more wait. */
START_TEST(cap_counts_busy)
{
    struct workers_conf c = conf(1, 3, false);
    struct workers *w = workers_start(&c);

    reset();
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(submit(w, 0, true), 0);
    await_running(1);
    ck_assert_int_eq(submit(w, 1, false), 0);
    ck_assert_int_eq(submit(w, 2, false), 0);
    ck_assert_uint_eq(workers_busy(w), 3);
    ck_assert_int_eq(submit(w, 9, false), -1);
    /* a refused job is released at once, and never queued */
    ck_assert_int_eq(nreleased(), 1);
    ck_assert_int_eq(nqueued(), 3);
    ck_assert_uint_eq(workers_busy(w), 3);
    open_gate();
    collect(w, 3);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(got[i], i);
    ck_assert_uint_eq(workers_busy(w), 0);
    ck_assert_int_eq(submit(w, 3, false), 0);
    collect(w, 4);
    workers_stop(w);
    ck_assert_int_eq(nreleased(), 5);
}
END_TEST

/* cap_waiting: the job being run does not count; cap jobs wait. */
START_TEST(cap_counts_waiting)
{
    struct workers_conf c = conf(1, 3, true);
    struct workers *w = workers_start(&c);

    reset();
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(submit(w, 0, true), 0);
    await_running(1);
    for (int i = 1; i <= 3; i++)
        ck_assert_int_eq(submit(w, i, false), 0);
    ck_assert_uint_eq(workers_busy(w), 4);
    ck_assert_int_eq(submit(w, 9, false), -1);
    ck_assert_int_eq(nreleased(), 1);
    open_gate();
    collect(w, 4);
    workers_stop(w);
    ck_assert_int_eq(nreleased(), 5);
}
END_TEST

/* Hold: the job being run ends, no other is taken until unhold. */
START_TEST(hold_lets_the_running_end)
{
    struct workers_conf c = conf(1, MAXJ, false);
    struct workers *w = workers_start(&c);
    struct timespec ms50 = {0, 50 * 1000000L};

    reset();
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(submit(w, 0, true), 0);
    await_running(1);
    workers_hold(w, 1);
    for (int i = 1; i <= 3; i++)
        ck_assert_int_eq(submit(w, i, false), 0);
    open_gate();
    collect(w, 1);
    ck_assert_int_eq(got[0], 0);
    nanosleep(&ms50, NULL);
    ck_assert_uint_eq(workers_ready(w), 0);
    ck_assert_uint_eq(workers_busy(w), 3);
    workers_hold(w, 0);
    collect(w, 4);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(got[i], i);
    workers_stop(w);
}
END_TEST

static struct tjob *kept[MAXJ];
static int nkept;

static void keep(void *arg, struct workers_job *wj)
{
    struct tjob *j = tjob_of(wj);
    struct tjob *copy = malloc(sizeof *copy);

    (void)arg;
    ck_assert_ptr_nonnull(copy);
    *copy = *j;
    kept[nkept++] = copy;
}

/* What taken and done saw, for jobs 1..3 taken with 2..3 behind them. */
START_TEST(hooks_see_the_waiting)
{
    struct workers_conf c = conf(1, MAXJ, false);
    struct workers *w = workers_start(&c);
    time_t give_up = time(NULL) + 10;

    reset();
    nkept = 0;
    ck_assert_ptr_nonnull(w);
    workers_hold(w, 1);
    for (int i = 1; i <= 3; i++)
        ck_assert_int_eq(submit(w, i, false), 0);
    workers_hold(w, 0);
    while (nkept < 3 && time(NULL) < give_up) {
        struct timespec ms = {0, 1000000L};
        nanosleep(&ms, NULL);
        workers_collect(w, keep, NULL);
    }
    ck_assert_int_eq(nkept, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(kept[i]->id, i + 1);
        ck_assert_int_eq(kept[i]->n_seen, 2 - i);
        for (int k = 0; k < kept[i]->n_seen; k++)
            ck_assert_int_eq(kept[i]->seen[k], i + 2 + k);
        ck_assert_int_eq(kept[i]->n_seen_at_done, 2 - i);
        free(kept[i]);
    }
    workers_stop(w);
}
END_TEST

/* Jobs still waiting, and answers never collected, are released by stop
 * (and valgrind sees any leak). */
START_TEST(stop_releases_pending)
{
    struct workers_conf c = conf(2, 8, false);
    struct workers *w = workers_start(&c);
    time_t give_up = time(NULL) + 10;

    reset();
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(submit(w, 0, false), 0);
    while (workers_ready(w) == 0 && time(NULL) < give_up) {
        struct timespec ms = {0, 1000000L};
        nanosleep(&ms, NULL);
    }
    ck_assert_uint_eq(workers_ready(w), 1);
    workers_hold(w, 1);
    for (int i = 1; i <= 5; i++)
        ck_assert_int_eq(submit(w, i, false), 0);
    ck_assert_uint_eq(workers_busy(w), 5);
    workers_stop(w);
    ck_assert_int_eq(ngot, 0);
    ck_assert_int_eq(nreleased(), 6);
}
END_TEST

/* A job submitted first runs before every plain one waiting, after the
 * firsts before it; the reserve is the firsts' alone. */
START_TEST(first_jumps_the_queue_into_the_reserve)
{
    struct workers_conf c = conf(1, 6, false);
    struct workers *w;

    c.reserve = 2;
    w = workers_start(&c);
    reset();
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(submit(w, 0, true), 0);
    await_running(1);
    for (int i = 1; i <= 3; i++)
        ck_assert_int_eq(submit(w, i, false), 0);
    /* 4 of 6 taken: the 2 left are the reserve's */
    ck_assert_int_eq(submit(w, 9, false), -1);
    ck_assert_int_eq(submit_first(w, 10), 0);
    ck_assert_int_eq(submit_first(w, 11), 0);
    ck_assert_uint_eq(workers_busy(w), 6);
    ck_assert_int_eq(submit_first(w, 12), -1); /* the whole cap */
    ck_assert_int_eq(nreleased(), 2);
    open_gate();
    collect(w, 6);
    int want[] = {0, 10, 11, 1, 2, 3};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(got[i], want[i]);
    /* an empty queue: a first is the head and the tail */
    ck_assert_int_eq(submit_first(w, 13), 0);
    ck_assert_int_eq(submit(w, 14, false), 0);
    collect(w, 8);
    ck_assert_int_eq(got[6], 13);
    ck_assert_int_eq(got[7], 14);
    workers_stop(w);
    ck_assert_int_eq(nreleased(), 10);
    c.reserve = 6; /* no room left for anything else */
    ck_assert_ptr_null(workers_start(&c));
}
END_TEST

START_TEST(start_refuses_nothing)
{
    struct workers_conf c = conf(0, 4, false);

    ck_assert_ptr_null(workers_start(&c));
    c = conf(1, 0, false);
    ck_assert_ptr_null(workers_start(&c));
    workers_stop(NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("workers");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, one_worker_answers_in_order);
    tcase_add_test(tc, answers_in_the_order_finished);
    tcase_add_test(tc, cap_counts_busy);
    tcase_add_test(tc, cap_counts_waiting);
    tcase_add_test(tc, hold_lets_the_running_end);
    tcase_add_test(tc, hooks_see_the_waiting);
    tcase_add_test(tc, stop_releases_pending);
    tcase_add_test(tc, first_jumps_the_queue_into_the_reserve);
    tcase_add_test(tc, start_refuses_nothing);
    suite_add_tcase(s, tc);
    return check_main(s);
}
