/*
 * store_reader.c - the reads off the loop (store.h, "reads off the
 * loop"): one reader thread per store over the backend's read
 * connection, a bounded queue of jobs in the order submitted, the
 * answers handed back through the loop's wake-up, and the deadlines the
 * loop enforces without waiting for the thread.
 *
 * Why a thread and not libpq's asynchronous API (ARCHITECTURE.md, "the
 * life of a read"): the same code serves both backends (SQLite has no
 * asynchronous API, and its reads must leave the loop too: a page not in
 * memory is a disk read), a job may chain reads that depend on each
 * other (a token, then the account's ratings) as plain sequential calls,
 * and a frozen database blocks one thread, never the loop.
 *
 * A job is in exactly one place: the queue (head..tail), `running`, the
 * answers (ans_head..ans_tail), or the caller's hands. Its `state` says
 * which, and what the reader does when run returns:
 *
 *   QUEUED -> RUNNING -> ANSWERED -> (done, release on the loop)
 *   QUEUED -> (late: done, release on the loop)
 *   RUNNING -> ABANDONING (late: done on the loop) -> ABANDONED
 *           -> (release on the reader)
 *   RUNNING -> ABANDONING -> (run returned first: RAN_ABANDONING) ->
 *           (release on the loop, once its done returned)
 *
 * (The loop calls a late job's done without the lock: until it has
 * returned, the reader must not release the job.)
 *
 * One deadline after submission for every job, so the queue is also in
 * deadline order and the job being run is due first.
 */
#include "store/store_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/errtext.h"
#include "lib/log.h"
#include "fifo.h"
#include "sysclock.h"

enum { QUEUED = 1, RUNNING, ANSWERED, ABANDONING, RAN_ABANDONING, ABANDONED };

static int64_t mono_ms(void)
{
    return sysclock_ms(CLOCK_MONOTONIC);
}

static bool on_reader(const struct store *s)
{
    return s->rd.started && pthread_equal(pthread_self(), s->rd.thread);
}

void store__read_enter(struct store *s)
{
    /* the loop never waits for a database once it serves (the reads it
     * needs are jobs); the reader itself already holds the connection */
    assert(!(atomic_load(&s->rd.loop_known) &&
             pthread_equal(pthread_self(), s->rd.loop)));
    assert(!store__on_writer(s));
    pthread_mutex_lock(&s->rd.conn);
}

void store__read_leave(struct store *s)
{
    pthread_mutex_unlock(&s->rd.conn);
}

static void *reader_main(void *arg)
{
    struct store *s = arg;
    struct store_read *r;
    uint64_t fails;
    int rc;

    pthread_mutex_lock(&s->rd.mu);
    for (;;) {
        while ((!s->rd.q.head || s->rd.held) && !s->rd.stopping)
            pthread_cond_wait(&s->rd.cv, &s->rd.mu);
        if (s->rd.stopping)
            break;
        FIFO_POP(&s->rd.q, r, next);
        s->rd.waiting--;
        r->state = RUNNING;
        s->rd.running = r;
        s->rd.stats.busy_since = mono_ms();
        pthread_mutex_unlock(&s->rd.mu);

        fails = atomic_load(&s->failures[STORE_FAIL_READ]);
        pthread_mutex_lock(&s->rd.conn);
        rc = r->run(s, r);
        pthread_mutex_unlock(&s->rd.conn);

        pthread_mutex_lock(&s->rd.mu);
        s->rd.running = NULL;
        s->rd.stats.busy_since = 0;
        if (atomic_load(&s->failures[STORE_FAIL_READ]) == fails)
            s->rd.stats.last_ok_ms = mono_ms();
        else
            s->rd.stats.last_err_ms = mono_ms();
        if (r->state == ABANDONED) { /* answered late: nobody waits */
            pthread_mutex_unlock(&s->rd.mu);
            r->release(r);
            pthread_mutex_lock(&s->rd.mu);
            continue;
        }
        if (r->state == ABANDONING) { /* its done is running: the loop's */
            r->state = RAN_ABANDONING;
            continue;
        }
        r->rc = rc;
        r->end = STORE_READ_RAN;
        r->state = ANSWERED;
        hist_add(&s->rd.stats.latency,
                 sysclock_us(CLOCK_MONOTONIC) - r->submitted_us);
        FIFO_PUSH(&s->rd.ans, r, next);
        atomic_store(&s->rd.answered, true);
        pthread_mutex_unlock(&s->rd.mu);
        if (s->on_commit)
            s->on_commit(s->arg); /* wake the loop */
        pthread_mutex_lock(&s->rd.mu);
    }
    pthread_mutex_unlock(&s->rd.mu);
    return NULL;
}

int store__reader_start(struct store *s, char *err, size_t errlen)
{
    pthread_mutexattr_t ma;

    if (!s->rd.timeout_ms)
        s->rd.timeout_ms = STORE_READ_TIMEOUT_MS;
    if (!s->rd.queue)
        s->rd.queue = STORE_READ_QUEUE;
    if (pthread_mutexattr_init(&ma) != 0 ||
        pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE) != 0 ||
        pthread_mutex_init(&s->rd.conn, &ma) != 0) {
        errtext_set(err, errlen, "cannot create the reader's mutex");
        return -1;
    }
    pthread_mutexattr_destroy(&ma);
    if (pthread_mutex_init(&s->rd.mu, NULL) != 0 ||
        pthread_cond_init(&s->rd.cv, NULL) != 0) {
        errtext_set(err, errlen, "cannot create the reader's lock");
        return -1;
    }
    if (pthread_create(&s->rd.thread, NULL, reader_main, s) != 0) {
        errtext_set(err, errlen, "cannot start the reader thread");
        return -1;
    }
    s->rd.started = true;
    return 0;
}

/* done, then release, for every job of the list at head (end set). */
static void answer_all(struct store *s, struct store_read *head)
{
    while (head) {
        struct store_read *next = head->next;
        assert(s->rd.pending > 0);
        s->rd.pending--;
        head->done(head);
        head->release(head);
        head = next;
    }
}

void store__reader_stop(struct store *s)
{
    struct store_read *left, *answers;

    if (!s->rd.started)
        return;
    pthread_mutex_lock(&s->rd.mu);
    s->rd.stopping = true;
    pthread_cond_broadcast(&s->rd.cv);
    pthread_mutex_unlock(&s->rd.mu);
    /* (a job being run ends first: a frozen database holds the close up
     * as it holds the writer's) */
    pthread_join(s->rd.thread, NULL);
    s->rd.started = false;
    left = s->rd.q.head;
    answers = s->rd.ans.head;
    s->rd.q.head = s->rd.q.tail = NULL;
    s->rd.ans.head = s->rd.ans.tail = NULL;
    s->rd.waiting = 0;
    for (struct store_read *r = left; r; r = r->next)
        r->end = STORE_READ_CLOSED;
    for (struct store_read *r = answers; r; r = r->next)
        r->end = STORE_READ_CLOSED; /* (the caller is going too) */
    answer_all(s, answers);
    answer_all(s, left);
    pthread_cond_destroy(&s->rd.cv);
    pthread_mutex_destroy(&s->rd.mu);
    pthread_mutex_destroy(&s->rd.conn);
}

void store_read_serving(struct store *s, bool serving)
{
    if (serving)
        s->rd.loop = pthread_self(); /* (before the flag: atomic) */
    atomic_store(&s->rd.loop_known, serving);
}

void store_read_configure(struct store *s, int timeout_ms, size_t queue)
{
    assert(timeout_ms >= 1 && queue >= 1);
    pthread_mutex_lock(&s->rd.mu);
    s->rd.timeout_ms = timeout_ms;
    s->rd.queue = queue;
    pthread_mutex_unlock(&s->rd.mu);
}

int store_read_submit(struct store *s, struct store_read *r, int64_t now)
{
    int rc = -1;

    assert(r && r->run && r->done && r->release);
    assert(!store__on_writer(s) && !on_reader(s));
    pthread_mutex_lock(&s->rd.mu);
    if (s->rd.started && !s->rd.stopping && s->rd.waiting < s->rd.queue) {
        r->state = QUEUED;
        r->end = STORE_READ_RAN;
        r->rc = 0;
        r->deadline = now + s->rd.timeout_ms;
        r->submitted_us = sysclock_us(CLOCK_MONOTONIC);
        FIFO_PUSH(&s->rd.q, r, next);
        s->rd.waiting++;
        s->rd.pending++;
        pthread_cond_signal(&s->rd.cv);
        rc = 0;
    } else {
        s->rd.stats.refused++;
    }
    pthread_mutex_unlock(&s->rd.mu);
    return rc;
}

void store_read_collect(struct store *s, int64_t now)
{
    struct store_read *answers = NULL, *late = NULL, **late_tail = &late;
    struct store_read *abandoned = NULL;

    if (!s->rd.started || !s->rd.pending)
        return;
    pthread_mutex_lock(&s->rd.mu);
    if (atomic_load(&s->rd.answered)) {
        atomic_store(&s->rd.answered, false);
        answers = s->rd.ans.head;
        s->rd.ans.head = s->rd.ans.tail = NULL;
    }
    for (struct store_read *r = answers; r; r = r->next)
        s->rd.stats.answered++;
    while (s->rd.q.head && s->rd.q.head->deadline <= now) {
        struct store_read *r;
        FIFO_POP(&s->rd.q, r, next);
        s->rd.waiting--;
        r->end = STORE_READ_LATE;
        r->next = NULL;
        *late_tail = r;
        late_tail = &r->next;
        s->rd.stats.late++;
    }
    if (s->rd.running && s->rd.running->state == RUNNING &&
        s->rd.running->deadline <= now) {
        abandoned = s->rd.running;
        abandoned->state = ABANDONING; /* (done first, then released) */
        abandoned->end = STORE_READ_LATE;
        s->rd.stats.late++;
    }
    pthread_mutex_unlock(&s->rd.mu);
    answer_all(s, answers);
    if (abandoned) {
        assert(s->rd.pending > 0);
        s->rd.pending--;
        abandoned->done(abandoned);
        /* the reader releases it once run returns; if it has already,
         * it left it here (it was released under the done running) */
        pthread_mutex_lock(&s->rd.mu);
        if (abandoned->state == RAN_ABANDONING) {
            pthread_mutex_unlock(&s->rd.mu);
            abandoned->release(abandoned);
        } else {
            abandoned->state = ABANDONED;
            pthread_mutex_unlock(&s->rd.mu);
        }
    }
    answer_all(s, late);
}

int64_t store_read_next_deadline(struct store *s)
{
    int64_t at = INT64_MAX;

    if (!s->rd.started || !s->rd.pending)
        return at;
    pthread_mutex_lock(&s->rd.mu);
    if (s->rd.running && s->rd.running->state == RUNNING)
        at = s->rd.running->deadline;
    else if (s->rd.q.head)
        at = s->rd.q.head->deadline;
    pthread_mutex_unlock(&s->rd.mu);
    return at;
}

size_t store_read_pending(struct store *s)
{
    return s->rd.pending;
}

void store_read_stats(struct store *s, struct store_read_stats *out)
{
    if (!s->rd.started) {
        memset(out, 0, sizeof *out);
        return;
    }
    pthread_mutex_lock(&s->rd.mu);
    *out = s->rd.stats;
    out->waiting = s->rd.waiting;
    pthread_mutex_unlock(&s->rd.mu);
}

void store_read_hold(struct store *s, int hold)
{
    pthread_mutex_lock(&s->rd.mu);
    s->rd.held = hold != 0;
    pthread_cond_broadcast(&s->rd.cv);
    pthread_mutex_unlock(&s->rd.mu);
}
