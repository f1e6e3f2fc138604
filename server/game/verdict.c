/*
 * verdict.c - the flag-verdict worker (see verdict.h).
 *
 * The worker is the worker pool's (lib/workers.h) with one thread: it
 * takes a question, searches without the lock, and hands the job, now
 * answered, back to the loop. The budgets below are kept in the pool's
 * hooks, under its lock, where the questions waiting can be walked.
 *
 * Budgets. Time is counted in search nodes, the search's steps (dead.h:
 * a position explored, more for one where the locked-pawn analysis runs
 * in full, so that they stay proportional to time; each question also
 * costs VERDICT_QUESTION_NODES).
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
 * right answer: the static tests prove most positions at once (locked
 * pawns included), and those where only the search proves "cannot mate"
 * (a forced capture into insufficient material, pieces shut in a pocket
 * with their king) have small reachable sets: the 241 such proofs in
 * tests/data/dead-positions.tsv take a median of 131 nodes and at most
 * 69,258 (bench_flag proofs), while the searches that exhaust a budget
 * are in open positions where a mate is reachable.
 */
#include "game/verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dead.h"
#include "lib/workers.h"
#include "proto.h"

/* Questions that may wait: each is one flag. Over this the static tests
 * answer (as they also would with a budget of nothing). */
#define VERDICT_QUEUE_CAP 1024

/* The cost of one question beyond its search, in nodes: copying,
 * the static tests at the root, the hand-over. */
#define VERDICT_QUESTION_NODES 64

struct job {
    struct workers_job link;
    char gid[PROTO_KEY_MAX + 1];
    struct board b;
    int color;
    long allow;       /* nodes it may still wait (see above) */
    long spent_at;    /* the worker's `spent` when it arrived */
    struct verdict a; /* the answer */
};

/* spent and current are under the pool's lock (its hooks). */
struct verdicts {
    struct workers *pool;
    void *scratch; /* dead_scratch_size() bytes, the worker's */
    long window;   /* nodes a question may wait for its answer */
    long spent;    /* nodes (and question costs) spent so far */
    long current;  /* the cost the search in progress may reach,
                               0 when idle */
};

static struct job *job_of(struct workers_job *link)
{
    return workers_container(link, struct job, link);
}

static void job_free(void *ctx, struct workers_job *link)
{
    (void)ctx;
    free(job_of(link));
}

/* A question arrives: what the search in progress may still spend comes
 * first. */
static void on_queued(void *ctx, struct workers_job *link)
{
    struct verdicts *v = ctx;
    struct job *j = job_of(link);

    j->allow = v->window - v->current;
    j->spent_at = v->spent;
}

/* The worker takes j: its budget is its share (see above). */
static void on_taken(void *ctx, struct workers_job *link,
                     struct workers_job *waiting)
{
    struct verdicts *v = ctx;
    struct job *j = job_of(link);
    long share = j->allow / 2, k = 3;

    for (struct workers_job *w = waiting; w; w = w->next, k++)
        if (job_of(w)->allow / k < share)
            share = job_of(w)->allow / k;
    /* the search may explore one node past its budget */
    j->a.budget = share - VERDICT_QUESTION_NODES - 1;
    if (j->a.budget < 0)
        j->a.budget = 0;
    v->current = j->a.budget + 1 + VERDICT_QUESTION_NODES;
}

/* On the worker, without the lock. */
static void search(void *ctx, struct workers_job *link)
{
    struct verdicts *v = ctx;
    struct job *j = job_of(link);

    enum dead_search r = dead_search_bounded(&j->b, (enum color)j->color,
                                             v->scratch, j->a.budget,
                                             &j->a.nodes, &j->a.proof);
    j->a.can_mate = r != DEAD_SEARCH_NO_MATE;
    j->a.cut_short = r == DEAD_SEARCH_UNKNOWN;
}

/* j's search spent its cost from every question waiting. */
static void on_done(void *ctx, struct workers_job *link,
                    struct workers_job *waiting)
{
    struct verdicts *v = ctx;
    struct job *j = job_of(link);
    long cost = j->a.nodes + VERDICT_QUESTION_NODES;

    v->current = 0;
    v->spent += cost;
    for (struct workers_job *w = waiting; w; w = w->next)
        job_of(w)->allow -= cost;
    j->a.waited = v->spent - j->spent_at;
}

struct verdicts *verdicts_start(void (*wake)(void), long window_nodes)
{
    struct verdicts *v = calloc(1, sizeof *v);

    if (!v)
        return NULL;
    v->window = window_nodes > 0 ? window_nodes : VERDICT_WINDOW_NODES;
    v->scratch = malloc(dead_scratch_size());
    if (!v->scratch)
        goto fail_scratch;
    dead_scratch_init(v->scratch);
    v->pool = workers_start(
        &(struct workers_conf){.threads = 1, /* one scratch */
                               .cap = VERDICT_QUEUE_CAP,
                               .cap_waiting = true,
                               .ctx = v,
                               .wake = wake,
                               .run = search,
                               .release = job_free,
                               .queued = on_queued,
                               .taken = on_taken,
                               .done = on_done});
    if (!v->pool)
        goto fail_pool;
    return v;
fail_pool:
    free(v->scratch);
fail_scratch:
    free(v);
    return NULL;
}

int verdicts_ask(struct verdicts *v, const char *gid, const struct board *b,
                 int color)
{
    struct job *j = malloc(sizeof *j);

    if (!j)
        return -1;
    memset(&j->a, 0, sizeof j->a);
    snprintf(j->gid, sizeof j->gid, "%s", gid);
    j->a.gid = j->gid;
    j->b = *b;
    j->color = color;
    return workers_submit(v->pool, &j->link);
}

/* The caller's answer function, for the pool's collect. */
struct relay {
    void (*answer)(void *arg, const struct verdict *a);
    void *arg;
};

static void relay_answer(void *arg, struct workers_job *link)
{
    struct relay *r = arg;

    r->answer(r->arg, &job_of(link)->a);
}

void verdicts_collect(struct verdicts *v,
                      void (*answer)(void *arg, const struct verdict *a),
                      void *arg)
{
    struct relay r = {answer, arg};

    workers_collect(v->pool, relay_answer, &r);
}

void verdicts_stop(struct verdicts *v)
{
    if (!v)
        return;
    workers_stop(v->pool);
    free(v->scratch);
    free(v);
}
