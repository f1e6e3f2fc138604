/*
 * swiss_pairing.c - a Swiss round paired off the loop and started
 * (swiss_tourney.h; swiss_director.c's head comment): the director's
 * worker thread pairs a copy of the event (tour_copy) with the Dutch
 * engine; the loop takes the answer back (the module's wake), journals
 * the round unless the event changed since, and starts its games a part
 * at a time. The worker thread runs job_run alone; the rest is the
 * event loop's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hub/swiss_tourney.h"
#include "lib/log.h"
#include "lib/workers.h"
#include "strcopy.h"
#include "sysclock.h"

/* A round to pair, on the worker: a copy of the event's state in, the
 * boards (or why none) out. */
struct pair_job {
    struct workers_job link;
    char id[PROTO_KEY_MAX + 1];
    unsigned gen; /* the event's when copied */
    int delay_ms;
    struct tour t;
    struct tour_board *b;
    int n, rc;
    int64_t us, cpu_us; /* the pairing's time on the worker, its CPU */
};

static struct tourney_director *state(struct hub *h)
{
    struct swiss_director *sd = swiss_director_of(h);

    return sd ? sd->d : NULL;
}

#define EV(t) ((struct swiss_tourney *)(t))

/* One turn of e's round start since its pairing, begun at t0: the loop's
 * longest and the turns are logged once no part is left (more false). */
static void round_turn(struct swiss_tourney *e, int64_t t0, bool more)
{
    int64_t us = sysclock_us(CLOCK_MONOTONIC) - t0;

    e->turns++;
    if (us > e->turn_max_us)
        e->turn_max_us = us;
    if (more)
        return;
    log_info("event=swiss_round_started swiss=%s round=%d turns=%d "
             "max_turn_us=%" PRId64,
             e->head.id, e->t.rounds, e->turns, e->turn_max_us);
    e->turns = 0;
    e->turn_max_us = 0;
}

/* The next turn's part of the rounds being started. */
void swiss_start_more(void *arg)
{
    struct hub *h = arg;
    struct tourney_director *d = state(h);

    for (size_t i = 0; i < d->n; i++) {
        struct swiss_tourney *e = EV(d->ev[i]);
        int64_t t0 = sysclock_us(CLOCK_MONOTONIC);
        bool more = swiss_start_boards(h, e, hub_wall_ms(h));
        if (e->turns) /* (one since a pairing: measured) */
            round_turn(e, t0, more);
    }
}

/* ---- the pairing, off the loop ------------------------------------------ */

static struct pair_job *job_of(struct workers_job *link)
{
    return workers_container(link, struct pair_job, link);
}

/* The worker's run: pairs the copy. */
static void job_run(void *ctx, struct workers_job *link)
{
    struct pair_job *j = job_of(link);
    int present = 0;
    int64_t t0;

    (void)ctx;
    if (j->delay_ms > 0)
        nanosleep(&(struct timespec){j->delay_ms / 1000,
                                     j->delay_ms % 1000 * 1000000L},
                  NULL);
    t0 = sysclock_us(CLOCK_MONOTONIC);
    j->cpu_us = sysclock_us(CLOCK_THREAD_CPUTIME_ID);
    for (int i = 0; i < j->t.np; i++)
        present += !j->t.p[i].withdrawn;
    j->rc = present < 2 ? TOUR_UNPAIRABLE : tour_pair(&j->t, &j->b, &j->n);
    j->us = sysclock_us(CLOCK_MONOTONIC) - t0;
    j->cpu_us = sysclock_us(CLOCK_THREAD_CPUTIME_ID) - j->cpu_us;
}

static void job_release(void *ctx, struct workers_job *link)
{
    struct pair_job *j = job_of(link);

    (void)ctx;
    tour_free(&j->t);
    free(j->b);
    free(j);
}

/* Sends e's next round to the worker; e->pairing while it is out. */
void swiss_pair_round(struct hub *h, struct swiss_tourney *e)
{
    struct swiss_director *sd = swiss_director_of(h);
    struct pair_job *j = calloc(1, sizeof *j);

    if (!j || tour_copy(&j->t, &e->t) != TOUR_OK) {
        free(j);
        log_error("event=swiss_pair_refused swiss=%s why=memory", e->head.id);
        return;
    }
    strcopy(j->id, sizeof j->id, e->head.id);
    j->gen = e->gen;
    j->delay_ms = sd->delay_ms;
    if (workers_submit(sd->pool, &j->link) < 0) { /* (released) */
        log_error("event=swiss_pair_refused swiss=%s why=queue", e->head.id);
        return;
    }
    e->pairing = true;
}

/* The loop takes a pairing back: journals it, or the event's end when no
 * round can be paired; a pairing of a state changed since is dropped
 * (the tick pairs again). */
static void pair_answer(void *arg, struct workers_job *link)
{
    struct hub *h = arg;
    struct pair_job *j = job_of(link);
    struct swiss_tourney *e = (struct swiss_tourney *)tourney_find(state(h),
                                                                   j->id);
    int64_t wall = hub_wall_ms(h), t0 = sysclock_us(CLOCK_MONOTONIC);
    char line[64];

    if (!e)
        return;
    e->pairing = false;
    log_info("event=swiss_paired swiss=%s round=%d players=%d ms=%" PRId64
             " cpu_ms=%" PRId64 " used=%d",
             e->head.id, e->t.rounds + 1, j->t.np, j->us / 1000,
             j->cpu_us / 1000, j->gen == e->gen && !e->head.finished);
    if (j->gen != e->gen || e->head.finished || h->shutting_down ||
        j->rc == TOUR_ENOMEM)
        return;
    if (j->rc != TOUR_OK) {
        snprintf(line, sizeof line, "finish %" PRId64, wall);
        log_info("event=swiss_finished swiss=%s rounds=%d", e->head.id,
                 e->t.rounds);
        swiss_call(h, e, line, wall);
    } else if (swiss_journal_round(h, e, j->b, j->n, wall) == 0) {
        bool more = swiss_start_boards(h, e, wall); /* (its first part) */
        swiss_push_standings(h, e, wall);
        round_turn(e, t0, more);
        return;
    }
    /* (a finished event is ticked no more) */
    swiss_push_standings(h, e, wall);
}

void swiss_wake(struct hub *h)
{
    struct swiss_director *sd = swiss_director_of(h);

    if (sd)
        workers_collect(sd->pool, pair_answer, h);
}

struct workers *swiss_pairing_start(struct hub *h)
{
    return workers_start(&(struct workers_conf){
        .threads = 1,
        .cap = (size_t)(h->cfg.max_swiss > 0 ? h->cfg.max_swiss : 1),
        .wake = h->env.wake,
        .run = job_run,
        .release = job_release});
}
