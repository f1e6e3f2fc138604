/*
 * workers.h - a pool of worker threads for work too long for the event
 * loop (a password's hash, a flag's verdict). The owner submits jobs to a
 * bounded first-in first-out queue; `threads` workers take them in order
 * and run conf.run on each without the pool's lock; a finished job joins
 * the answers, and its worker calls conf.wake. The owner's thread (the
 * loop) takes the answers with workers_collect, in the order they were
 * finished: with one worker, the order they were submitted.
 *
 * A job is the owner's struct with a struct workers_job in it, which the
 * pool links; workers_container gets the owner's struct back.
 *
 * Ownership: a job submitted belongs to the pool until the pool hands it
 * to conf.release, which frees it: at once when refused, after the
 * collect callback has seen it, and at stop for jobs not yet taken or
 * answers not collected. While a worker runs it, the job is that
 * worker's; the owner touches a job only in its own callbacks.
 *
 * Threads: workers_submit, workers_collect, workers_hold and workers_stop
 * on the owner's thread; workers_busy and workers_ready on any.
 */
#ifndef SERVER_WORKERS_H
#define SERVER_WORKERS_H

#include <stdbool.h>
#include <stddef.h>

/* The pool's link in a job: next is the next job in the same list (read
 * it only in the taken and done callbacks, to walk the jobs waiting). */
struct workers_job {
    struct workers_job *next;
};

/* The owner's struct of type `type` whose member `member` is ptr. */
#define workers_container(ptr, type, member) \
    ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

struct workers_conf {
    int threads;      /* >= 1 */
    size_t cap;       /* >= 1: jobs that may wait (and run, see below) */
    bool cap_waiting; /* cap counts only the jobs not yet taken (else also
                         those being run) */
    size_t reserve;   /* < cap: of the cap, the places only
                         workers_submit_first may fill (0: none) */
    void *ctx;        /* the first argument of every function below */
    /* From a worker, without the lock, after each answer. */
    void (*wake)(void);
    /* On a worker, without the lock: the job's work. */
    void (*run)(void *ctx, struct workers_job *j);
    /* Frees j (on whichever thread gives it back; see above). */
    void (*release)(void *ctx, struct workers_job *j);
    /* Optional (NULL: none), each under the pool's lock, for the owner's
     * accounts of what waits; they may not call the pool. queued: j was
     * accepted (on the owner's thread). taken: a worker took j, waiting
     * is the first of the jobs still waiting (NULL: none). done: j was
     * run and is about to join the answers, waiting as for taken. */
    void (*queued)(void *ctx, struct workers_job *j);
    void (*taken)(void *ctx, struct workers_job *j,
                  struct workers_job *waiting);
    void (*done)(void *ctx, struct workers_job *j,
                 struct workers_job *waiting);
};

struct workers;

/* Starts conf->threads workers (conf is copied). NULL when threads or
 * cap is under 1, out of memory, or a thread could not start; the caller
 * frees the result with workers_stop. */
struct workers *workers_start(const struct workers_conf *conf);

/* Queues j last: 0, or -1 when the cap less its reserve is reached or
 * the pool is stopping (j is then released at once). */
int workers_submit(struct workers *w, struct workers_job *j);

/* Queues j ahead of every job submitted with workers_submit (behind
 * those submitted with workers_submit_first before it: they keep their
 * order), and may take the cap's reserved places: 0, or -1 when the
 * whole cap is reached or the pool is stopping (j is then released at
 * once). For the few jobs that must not wait behind a flood. */
int workers_submit_first(struct workers *w, struct workers_job *j);

/* Calls answer(arg, j) for every answer ready, oldest first, then
 * releases each. Returns at once when none waits (a wake-up that was
 * someone else's costs no lock). */
void workers_collect(struct workers *w,
                     void (*answer)(void *arg, struct workers_job *j),
                     void *arg);

/* Jobs waiting or being run. */
size_t workers_busy(struct workers *w);

/* Answers waiting for workers_collect. */
size_t workers_ready(struct workers *w);

/* hold != 0: the workers take no more jobs (those being run end); 0: they
 * go on. For tests that fill the queue. */
void workers_hold(struct workers *w, int hold);

/* Stops the workers after the jobs being run, joins them, releases the
 * jobs waiting and the answers not collected, and frees w. NULL is a
 * no-op. */
void workers_stop(struct workers *w);

#endif
