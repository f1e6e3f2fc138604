/*
 * verdict.c - the flag-verdict worker (see verdict.h).
 *
 * Questions and answers are two FIFO lists of jobs under one mutex; the
 * worker takes a question, searches without the lock, and appends the
 * job, now answered, to the answers. A job belongs to whichever list
 * holds it, or to the worker while it searches.
 */
#include "verdict.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dead.h"
#include "proto.h"

/* Questions that may wait: each is one flag, so this many flags within
 * one search's time means something is wrong; the static tests answer. */
#define VERDICT_QUEUE_CAP 1024

struct job {
    struct job *next;
    char gid[PROTO_KEY_MAX + 1];
    struct board b;
    int color;
    bool can_mate;
};

struct list {
    struct job *head, *tail;
};

struct verdicts {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;      /* a question arrived, or stop */
    struct list questions, answers;
    size_t n_questions;
    atomic_bool answered;   /* answers wait: the loop's collect looks
                               without the lock on every wake-up */
    bool stopping;
    void (*wake)(void);
    void *scratch;          /* dead_scratch_size() bytes, the worker's */
};

static void list_push(struct list *l, struct job *j)
{
    j->next = NULL;
    if (l->tail)
        l->tail->next = j;
    else
        l->head = j;
    l->tail = j;
}

static struct job *list_take_all(struct list *l)
{
    struct job *j = l->head;

    l->head = l->tail = NULL;
    return j;
}

static void free_jobs(struct job *j)
{
    while (j) {
        struct job *next = j->next;
        free(j);
        j = next;
    }
}

static void *worker_main(void *arg)
{
    struct verdicts *v = arg;

    pthread_mutex_lock(&v->mu);
    for (;;) {
        struct job *j;

        while (!v->questions.head && !v->stopping)
            pthread_cond_wait(&v->cv, &v->mu);
        if (v->stopping)
            break;
        j = v->questions.head;
        v->questions.head = j->next;
        if (!v->questions.head)
            v->questions.tail = NULL;
        v->n_questions--;
        pthread_mutex_unlock(&v->mu);
        j->can_mate = dead_search_can_mate(&j->b, (enum color)j->color,
                                           v->scratch);
        pthread_mutex_lock(&v->mu);
        list_push(&v->answers, j);
        atomic_store(&v->answered, true);
        pthread_mutex_unlock(&v->mu);
        v->wake();
        pthread_mutex_lock(&v->mu);
    }
    pthread_mutex_unlock(&v->mu);
    return NULL;
}

struct verdicts *verdicts_start(void (*wake)(void))
{
    struct verdicts *v = calloc(1, sizeof *v);

    if (!v)
        return NULL;
    v->wake = wake;
    v->scratch = malloc(dead_scratch_size());
    if (!v->scratch)
        goto fail_scratch;
    if (pthread_mutex_init(&v->mu, NULL) != 0)
        goto fail_mutex;
    if (pthread_cond_init(&v->cv, NULL) != 0)
        goto fail_cond;
    if (pthread_create(&v->thread, NULL, worker_main, v) != 0)
        goto fail_thread;
    return v;
fail_thread:
    pthread_cond_destroy(&v->cv);
fail_cond:
    pthread_mutex_destroy(&v->mu);
fail_mutex:
    free(v->scratch);
fail_scratch:
    free(v);
    return NULL;
}

int verdicts_ask(struct verdicts *v, const char *gid, const struct board *b,
                 int color)
{
    struct job *j = malloc(sizeof *j);
    int rc = -1;

    if (!j)
        return -1;
    snprintf(j->gid, sizeof j->gid, "%s", gid);
    j->b = *b;
    j->color = color;
    pthread_mutex_lock(&v->mu);
    if (v->n_questions < VERDICT_QUEUE_CAP && !v->stopping) {
        list_push(&v->questions, j);
        v->n_questions++;
        pthread_cond_signal(&v->cv);
        rc = 0;
    }
    pthread_mutex_unlock(&v->mu);
    if (rc < 0)
        free(j);
    return rc;
}

void verdicts_collect(struct verdicts *v,
                      void (*answer)(void *arg, const char *gid,
                                     bool can_mate),
                      void *arg)
{
    struct job *j, *all;

    if (!atomic_load(&v->answered))
        return; /* the wake-up was the store's */
    pthread_mutex_lock(&v->mu);
    atomic_store(&v->answered, false);
    all = list_take_all(&v->answers);
    pthread_mutex_unlock(&v->mu);
    for (j = all; j; j = j->next)
        answer(arg, j->gid, j->can_mate);
    free_jobs(all);
}

void verdicts_stop(struct verdicts *v)
{
    if (!v)
        return;
    pthread_mutex_lock(&v->mu);
    v->stopping = true;
    pthread_cond_signal(&v->cv);
    pthread_mutex_unlock(&v->mu);
    pthread_join(v->thread, NULL);
    free_jobs(list_take_all(&v->questions));
    free_jobs(list_take_all(&v->answers));
    pthread_cond_destroy(&v->cv);
    pthread_mutex_destroy(&v->mu);
    free(v->scratch);
    free(v);
}
