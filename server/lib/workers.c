/*
 * workers.c - the worker pool (see workers.h).
 *
 * Jobs go through two FIFO lists under one mutex: the questions, which
 * the workers take in order, and the answers, which the owner takes all
 * at once. A job belongs to whichever list holds it, or to the worker
 * that runs it. `waiting` counts the questions, `busy` the questions and
 * the jobs being run: what the cap bounds.
 */
#include "lib/workers.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "fifo.h"

struct list {
    struct workers_job *head, *tail;
};

struct workers {
    struct workers_conf conf;
    pthread_t *threads;
    int n_threads;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a question arrived, hold lifted, or stop */
    struct list questions, answers;
    struct workers_job *last_first; /* the last question submitted first
                                       still waiting (NULL: none) */
    size_t waiting;                 /* questions */
    size_t busy;                    /* questions + jobs being run */
    size_t ready;                   /* answers */
    atomic_bool answered; /* answers wait: collect looks without the lock */
    bool stopping, held;
};

static void release_all(struct workers *w, struct workers_job *j)
{
    while (j) {
        struct workers_job *next = j->next;
        w->conf.release(w->conf.ctx, j);
        j = next;
    }
}

static void *worker_main(void *arg)
{
    struct workers *w = arg;

    pthread_mutex_lock(&w->mu);
    for (;;) {
        struct workers_job *j;

        while ((!w->questions.head || w->held) && !w->stopping)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->stopping)
            break;
        FIFO_POP(&w->questions, j, next);
        w->waiting--;
        if (j == w->last_first)
            w->last_first = NULL; /* (those first are at the head) */
        if (w->conf.taken)
            w->conf.taken(w->conf.ctx, j, w->questions.head);
        pthread_mutex_unlock(&w->mu);
        w->conf.run(w->conf.ctx, j);
        pthread_mutex_lock(&w->mu);
        if (w->conf.done)
            w->conf.done(w->conf.ctx, j, w->questions.head);
        assert(w->busy > 0);
        w->busy--;
        w->ready++;
        FIFO_PUSH(&w->answers, j, next);
        atomic_store(&w->answered, true);
        pthread_mutex_unlock(&w->mu);
        w->conf.wake();
        pthread_mutex_lock(&w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

struct workers *workers_start(const struct workers_conf *conf)
{
    struct workers *w;

    assert(conf->wake && conf->run && conf->release);
    if (conf->threads < 1 || conf->cap < 1 || conf->reserve >= conf->cap)
        return NULL;
    w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->conf = *conf;
    w->threads = calloc((size_t)conf->threads, sizeof *w->threads);
    if (!w->threads)
        goto fail_threads;
    if (pthread_mutex_init(&w->mu, NULL) != 0)
        goto fail_mutex;
    if (pthread_cond_init(&w->cv, NULL) != 0)
        goto fail_cond;
    for (int i = 0; i < conf->threads; i++) {
        if (pthread_create(&w->threads[i], NULL, worker_main, w) != 0) {
            w->n_threads = i;
            workers_stop(w);
            return NULL;
        }
    }
    w->n_threads = conf->threads;
    return w;
fail_cond:
    pthread_mutex_destroy(&w->mu);
fail_mutex:
    free(w->threads);
fail_threads:
    free(w);
    return NULL;
}

/* Queues j, last or (first) behind the other firsts, when the cap (less
 * the reserve unless first) has room. */
static int submit(struct workers *w, struct workers_job *j, bool first)
{
    size_t cap = w->conf.cap - (first ? 0 : w->conf.reserve);
    int rc = -1;

    pthread_mutex_lock(&w->mu);
    size_t n = w->conf.cap_waiting ? w->waiting : w->busy;
    if (n < cap && !w->stopping) {
        if (w->conf.queued)
            w->conf.queued(w->conf.ctx, j);
        if (!first) {
            FIFO_PUSH(&w->questions, j, next);
        } else {
            struct workers_job **at = w->last_first ? &w->last_first->next
                                                    : &w->questions.head;
            j->next = *at;
            *at = j;
            if (!j->next)
                w->questions.tail = j;
            w->last_first = j;
        }
        w->waiting++;
        w->busy++;
        pthread_cond_signal(&w->cv);
        rc = 0;
    }
    pthread_mutex_unlock(&w->mu);
    if (rc < 0)
        w->conf.release(w->conf.ctx, j);
    return rc;
}

int workers_submit(struct workers *w, struct workers_job *j)
{
    return submit(w, j, false);
}

int workers_submit_first(struct workers *w, struct workers_job *j)
{
    return submit(w, j, true);
}

void workers_collect(struct workers *w,
                     void (*answer)(void *arg, struct workers_job *j),
                     void *arg)
{
    struct workers_job *all;

    if (!atomic_load(&w->answered))
        return; /* the wake-up was someone else's */
    pthread_mutex_lock(&w->mu);
    atomic_store(&w->answered, false);
    all = w->answers.head;
    w->answers.head = w->answers.tail = NULL;
    w->ready = 0;
    pthread_mutex_unlock(&w->mu);
    for (struct workers_job *j = all; j; j = j->next)
        answer(arg, j);
    release_all(w, all);
}

size_t workers_busy(struct workers *w)
{
    size_t n;

    pthread_mutex_lock(&w->mu);
    n = w->busy;
    pthread_mutex_unlock(&w->mu);
    return n;
}

size_t workers_ready(struct workers *w)
{
    size_t n;

    pthread_mutex_lock(&w->mu);
    n = w->ready;
    pthread_mutex_unlock(&w->mu);
    return n;
}

void workers_hold(struct workers *w, int hold)
{
    pthread_mutex_lock(&w->mu);
    w->held = hold != 0;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void workers_stop(struct workers *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stopping = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    for (int i = 0; i < w->n_threads; i++)
        pthread_join(w->threads[i], NULL);
    release_all(w, w->questions.head);
    release_all(w, w->answers.head);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w->threads);
    free(w);
}
