/*
 * verdict.c - the flag-verdict worker (see verdict.h).
 *
 * Questions and answers are two FIFO lists of jobs under one mutex; the
 * worker takes a question, searches without the lock, and appends the
 * job, now answered, to the answers. A job belongs to whichever list
 * holds it, or to the worker while it searches.
 *
 * Budgets. Time is counted in search nodes (the search's cost is
 * proportional to them; each question also costs VERDICT_QUESTION_NODES).
 * A question may wait at most `window` nodes from its arrival to its
 * answer: it arrives with that allowance (less what the search in
 * progress may still spend), and every search, of any question, spends
 * from the allowance of every question waiting. The question at the head
 * gets min over the k-th waiting question w (itself k = 1) of
 * allowance(w) / (k + 1): however many wait, each leaves every later one
 * its share, and one more for a question that may arrive during the
 * search, so no allowance is ever overdrawn. A lone flag gets half the
 * window (125,000 nodes, more than nearly every proof needs); a burst of
 * flags shares it, and what a search does not use (most find a mate in a
 * few thousand nodes) goes to those behind it. A search cut short
 * answers "can mate" (FIDE: a draw needs proof), which in practice is the
 * right answer: the positions where only the search proves "cannot mate"
 * (locked pawns, few mobile pieces) have small reachable sets, proven
 * within a few hundred to a few thousand nodes (the median of the 602
 * such proofs in tests/data/dead-positions.tsv is 549 nodes), while the
 * searches that exhaust a budget are in open positions where a mate is
 * reachable.
 */
#include "game/verdict.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dead.h"
#include "fifo.h"
#include "proto.h"

/* Questions that may wait: each is one flag. Over this the static tests
 * answer (as they also would with a budget of nothing). */
#define VERDICT_QUEUE_CAP 1024

/* The cost of one question beyond its search, in nodes: copying,
 * the static tests at the root, the hand-over. */
#define VERDICT_QUESTION_NODES 64

struct job {
    struct job *next;
    char gid[PROTO_KEY_MAX + 1];
    struct board b;
    int color;
    long allow;       /* nodes it may still wait (see above) */
    long spent_at;    /* the worker's `spent` when it arrived */
    struct verdict a; /* the answer */
};

struct list {
    struct job *head, *tail;
};

struct verdicts {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a question arrived, or stop */
    struct list questions, answers;
    size_t n_questions;
    atomic_bool answered; /* answers wait: the loop's collect looks
                               without the lock on every wake-up */
    bool stopping;
    void (*wake)(void);
    void *scratch; /* dead_scratch_size() bytes, the worker's */
    long window;   /* nodes a question may wait for its answer */
    long spent;    /* nodes (and question costs) spent so far */
    long current;  /* the cost the search in progress may reach,
                               0 when idle */
};

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
        FIFO_POP(&v->questions, j, next);
        v->n_questions--;
        long share = j->allow / 2, k = 3, nodes, cost;
        for (struct job *w = j->next; w; w = w->next, k++)
            if (w->allow / k < share)
                share = w->allow / k;
        /* the search may explore one node past its budget */
        j->a.budget = share - VERDICT_QUESTION_NODES - 1;
        if (j->a.budget < 0)
            j->a.budget = 0;
        v->current = j->a.budget + 1 + VERDICT_QUESTION_NODES;
        pthread_mutex_unlock(&v->mu);
        enum dead_search r = dead_search_bounded(
            &j->b, (enum color)j->color, v->scratch, j->a.budget, &nodes);
        pthread_mutex_lock(&v->mu);
        cost = nodes + VERDICT_QUESTION_NODES;
        v->current = 0;
        v->spent += cost;
        for (struct job *w = v->questions.head; w; w = w->next)
            w->allow -= cost;
        j->a.can_mate = r != DEAD_SEARCH_NO_MATE;
        j->a.cut_short = r == DEAD_SEARCH_UNKNOWN;
        j->a.nodes = nodes;
        j->a.waited = v->spent - j->spent_at;
        FIFO_PUSH(&v->answers, j, next);
        atomic_store(&v->answered, true);
        pthread_mutex_unlock(&v->mu);
        v->wake();
        pthread_mutex_lock(&v->mu);
    }
    pthread_mutex_unlock(&v->mu);
    return NULL;
}

struct verdicts *verdicts_start(void (*wake)(void), long window_nodes)
{
    struct verdicts *v = calloc(1, sizeof *v);

    if (!v)
        return NULL;
    v->wake = wake;
    v->window = window_nodes > 0 ? window_nodes : VERDICT_WINDOW_NODES;
    v->scratch = malloc(dead_scratch_size());
    if (!v->scratch)
        goto fail_scratch;
    dead_scratch_init(v->scratch);
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
    memset(&j->a, 0, sizeof j->a);
    snprintf(j->gid, sizeof j->gid, "%s", gid);
    j->a.gid = j->gid;
    j->b = *b;
    j->color = color;
    pthread_mutex_lock(&v->mu);
    /* what the search in progress may still spend comes first */
    j->allow = v->window - v->current;
    j->spent_at = v->spent;
    if (v->n_questions < VERDICT_QUEUE_CAP && !v->stopping) {
        FIFO_PUSH(&v->questions, j, next);
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
                      void (*answer)(void *arg, const struct verdict *a),
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
        answer(arg, &j->a);
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
