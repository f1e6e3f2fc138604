/*
 * store_writer.c - the store core's writer thread (store_internal.h):
 * its loop over batches, heartbeats and retries, and the fencing of
 * games. See store.h for the contract.
 *
 * Queue. Enqueuers allocate an op, copy their arguments into it, and append
 * its pointer to `q` under `mu` (store_queue.c); the writer swaps `q` with
 * its own empty `batch` array (so the lock is held for a pointer swap,
 * never for the database), then has the backend apply the whole batch in
 * one transaction, publishes the last sequence number in `committed` and
 * calls on_commit. A failed transaction (busy, disk full, I/O, a lost
 * connection) is retried with the same ops, so order is kept and nothing
 * is reported committed that is not; a single op that violates a
 * constraint is logged and left out, because retrying it could never
 * succeed (SQLite skips it inside the transaction; PostgreSQL, whose
 * transaction an error aborts, rolls back and tries again without it).
 *
 * Fencing (store.h, store_take_epoch). The writer keeps, in `epochs`,
 * the epoch it took for each game it hosts under a lease, and hands it
 * with every write of that game to the backend. A batch that PostgreSQL
 * refuses because one game's epoch is stale (SQLSTATE CH001), or whose
 * take of a game finds a newer epoch, makes the writer drop every op of
 * that game from the batch (and every later one, until a new take),
 * record the game in `fenced`, and commit the rest. It then publishes
 * `committed` only up to the first dropped op, wakes the loop and waits
 * until the loop has collected the fenced games (store_take_fenced):
 * only then does `committed` pass the dropped ops, so that no message
 * queued with a refused write's sequence number can be released before
 * the loop has dropped the game and cut the connections that had
 * messages about it. store_close ends the wait; `committed` then stays
 * where it was (`frozen`).
 */
#include "store/store_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/grow.h"
#include "lib/errtext.h"
#include "lib/log.h"
#include "strcopy.h"
#include "sysclock.h"

/* The store whose writer this thread is (writer_main sets it). */
static _Thread_local const struct store *writer_of;

bool store__on_writer(const struct store *s)
{
    return s && writer_of == s;
}

/* ---- failures and the purge's position (writer thread) ---------------- */

/* Marks op dropped, counts it in `kind` and logs why. */
static void drop(struct store *s, struct op *op, enum store_failure kind,
                 const char *why)
{
    const char *gid = store__op_gid(op);
    char q[300], g[48];

    op->dropped = true;
    atomic_fetch_add(&s->failures[kind], 1);
    log_error("event=store_write_dropped what=%s seq=%llu game=%s error=%s",
              store__op_name(op->kind), (unsigned long long)op->seq,
              log_quote(g, sizeof g, gid ? gid : ""),
              log_quote(q, sizeof q, why));
}

void store__op_refused(struct store *s, struct op *op, const char *why)
{
    assert(store__on_writer(s) && op && why);
    drop(s, op, STORE_FAIL_WRITE_DROPPED, why);
}

void store__commit_failed(struct store *s, const char *code, const char *why)
{
    char q[300];

    assert(store__on_writer(s) && code && why);
    atomic_fetch_add(&s->failures[STORE_FAIL_COMMIT], 1);
    log_error("event=store_commit_failed code=%s error=%s", code,
              log_quote(q, sizeof q, why));
}

void store__purge_kept(struct store *s, int64_t ms)
{
    assert(store__on_writer(s));
    if (!s->purge_kept) {
        s->purge_kept = true;
        s->kept_ms = ms;
    }
}

void store__purge_advance(struct store *s, size_t n, int64_t last_ms,
                          const char *last_pid)
{
    assert(store__on_writer(s));
    assert(n <= STORE_PURGE_BATCH && (n == 0 || last_pid));
    if (n == STORE_PURGE_BATCH) {
        s->purge_ms = last_ms;
        strcopy(s->purge_pid, sizeof s->purge_pid, last_pid);
    } else if (s->purge_kept) {
        /* the end: start again (just) before the first player kept */
        s->purge_ms = s->kept_ms - 1;
        s->purge_pid[0] = '\0';
        s->purge_kept = false;
    } else if (n > 0) {
        s->purge_ms = last_ms;
        strcopy(s->purge_pid, sizeof s->purge_pid, last_pid);
    }
}

/* ---- fencing (writer thread) ------------------------------------------ */

/* The writer's entry of gid, created when missing (NULL when out of
 * memory). */
static struct store__epoch *epoch_entry(struct store *s, const char *gid)
{
    struct store__epoch *e = table_get(&s->epochs, gid);

    if (e)
        return e;
    if (!(e = calloc(1, sizeof *e)))
        return NULL;
    strcopy(e->gid, sizeof e->gid, gid);
    if (table_put(&s->epochs, e->gid, e) != 0) {
        free(e);
        return NULL;
    }
    return e;
}

static void epoch_forget(struct store *s, const char *gid)
{
    free(table_del(&s->epochs, gid));
}

/* Before a batch's first attempt: records the epochs it takes, gives each
 * write of a game the game's epoch, and drops the writes of games already
 * fenced (collected by the loop before this batch was taken; nothing of
 * them may reach the database). */
static void assign_epochs(struct store *s, struct op *const *ops, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct op *op = ops[i];
        const char *gid = store__op_gid(op);
        struct store__epoch *e;

        if (!gid)
            continue;
        if (op->kind == OP_EPOCH) {
            if (!(e = epoch_entry(s, gid))) {
                store__op_refused(s, op, "out of memory");
                continue;
            }
            e->epoch = op->epoch;
            e->fenced = false;
            continue;
        }
        e = table_get(&s->epochs, gid);
        if (e && e->fenced)
            drop(s, op, STORE_FAIL_FENCED, "the game is fenced");
        else
            op->epoch = e ? e->epoch : 0;
    }
}

/* Game gid is another node's (why: the database's words): every op of it
 * in the batch is dropped and holds `committed` back (op->fence), later
 * ones are dropped by assign_epochs, and the game waits in `fenced` for
 * the loop. */
static void fence_game(struct store *s, struct op *const *ops, size_t n,
                       const char *gid_in, const char *why)
{
    struct store__epoch *e;
    char gid[33], q[300], g[48];
    size_t dropped = 0, i;

    assert(store__on_writer(s) && gid_in && why);
    strcopy(gid, sizeof gid, gid_in);
    for (i = 0; i < n; i++) {
        const char *og = store__op_gid(ops[i]);
        if (og && !strcmp(og, gid)) {
            if (!ops[i]->dropped) {
                ops[i]->dropped = true;
                dropped++;
                atomic_fetch_add(&s->failures[STORE_FAIL_FENCED], 1);
            }
            ops[i]->fence = true;
        }
    }
    if ((e = epoch_entry(s, gid)))
        e->fenced = true;
    log_warn("event=store_game_fenced game=%s dropped=%zu error=%s",
             log_quote(g, sizeof g, gid), dropped,
             log_quote(q, sizeof q, why));
    pthread_mutex_lock(&s->mu);
    for (i = 0; i < s->n_fenced && strcmp(s->fenced[i], gid); i++)
        ;
    if (i == s->n_fenced) {
        char(*nv)[33] = grow_array(s->fenced, &s->cap_fenced, s->n_fenced,
                                   sizeof *nv, 8);
        if (nv)
            s->fenced = nv;
        /* (out of memory: the ops are dropped all the same, and
         * committed is held until the loop collects what it can) */
        if (s->n_fenced < s->cap_fenced)
            memcpy(s->fenced[s->n_fenced++], gid, sizeof gid);
    }
    pthread_mutex_unlock(&s->mu);
}

size_t store_take_fenced(struct store *s, char (*gids)[33], size_t max)
{
    size_t k;

    assert(!store__on_writer(s) && (gids || max == 0)); /* loop thread */
    pthread_mutex_lock(&s->mu);
    k = s->n_fenced < max ? s->n_fenced : max;
    if (k) {
        memcpy(gids, s->fenced, k * sizeof *gids);
        memmove(s->fenced, s->fenced + k, (s->n_fenced - k) * sizeof *gids);
        s->n_fenced -= k;
    }
    if (s->n_fenced == 0)
        pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return k;
}

/* Publishes seq as committed, unless frozen or not greater. */
static void publish(struct store *s, uint64_t seq)
{
    /* nothing is committed that was not queued */
    assert(seq <= atomic_load(&s->queued));
    if (!s->frozen && seq > atomic_load(&s->committed))
        atomic_store(&s->committed, seq);
}

/* After a committed batch with fenced ops: `committed` up to the first of
 * them, the loop woken, and a wait until it has collected the fenced
 * games (or store_close: then frozen). */
static void hold_for_the_loop(struct store *s, uint64_t first_fenced)
{
    assert(first_fenced > 0);
    publish(s, first_fenced - 1);
    if (s->on_commit)
        s->on_commit(s->arg);
    pthread_mutex_lock(&s->mu);
    while (s->n_fenced > 0 && !s->stopping)
        pthread_cond_wait(&s->cv, &s->mu);
    if (s->n_fenced > 0)
        s->frozen = true;
    pthread_mutex_unlock(&s->mu);
}

/* ---- the writer thread ------------------------------------------------ */

/*
 * Commits ops (less those dropped on the way: refused, fenced) and the
 * heartbeat when beat_ms is not 0, trying again until it commits; once
 * store_close waits, gives up after STORE_CLOSE_RETRIES failures. Returns
 * true when committed; *fails counts the attempts rolled back.
 */
static bool commit_ops(struct store *s, struct op *const *ops, size_t n,
                       int64_t beat_ms, struct store_attempt *a, int *fails)
{
    int tries = 0;

    for (int attempt = 0;; attempt++) {
        size_t live = 0;

        for (size_t i = 0; i < n; i++)
            live += !ops[i]->dropped;
        memset(a, 0, sizeof *a);
        a->attempt = attempt;
        if (!live && !beat_ms) { /* every op dropped */
            a->t_begin = a->t_commit = sysclock_us(CLOCK_MONOTONIC);
            return true;
        }
        switch (s->be->commit(s, ops, n, beat_ms, a)) {
        case STORE_BATCH_COMMITTED:
            assert(a->t_begin > 0 && a->t_commit >= a->t_begin);
            return true;
        case STORE_BATCH_REFUSED:
            assert(a->bad < n && !ops[a->bad]->dropped);
            store__op_refused(s, ops[a->bad], a->why);
            (*fails)++;
            continue;
        case STORE_BATCH_FENCED:
            assert(a->bad < n && store__op_gid(ops[a->bad]));
            fence_game(s, ops, n, store__op_gid(ops[a->bad]), a->why);
            (*fails)++;
            continue;
        case STORE_BATCH_FAILED:
            break;
        }
        (*fails)++;
        if (store__stopping(s) && ++tries >= STORE_CLOSE_RETRIES)
            return false;
        store__sleep_ms(STORE_RETRY_MS);
    }
}

/* After a committed batch: the games whose take found a newer epoch are
 * fenced, the ended games leave the epoch map. Returns the sequence
 * number of the first op held for the loop (0: none). */
static uint64_t settle_batch(struct store *s, struct op *const *ops, size_t n)
{
    uint64_t first = 0;

    for (size_t i = 0; i < n; i++)
        if (ops[i]->kind == OP_EPOCH && ops[i]->fence && !ops[i]->dropped)
            fence_game(s, ops, n, ops[i]->u.take.gid,
                       "the take found a newer epoch: another node hosts "
                       "the game");
    for (size_t i = 0; i < n; i++) {
        if (ops[i]->fence && !first)
            first = ops[i]->seq;
        if (ops[i]->kind == OP_FINISH && !ops[i]->dropped)
            epoch_forget(s, ops[i]->u.game.gid);
    }
    return first;
}

/* Hands the chain of committed move ops at `back` to s->spare, as many
 * as it has room for (STORE_SPARE_MOVES); returns the rest, for the
 * caller to free outside the lock. */
static struct op *spare_return(struct store *s, struct op *back)
{
    struct op *rest;

    pthread_mutex_lock(&s->mu);
    while (back && s->n_spare < STORE_SPARE_MOVES) {
        rest = back->next_spare;
        back->next_spare = s->spare;
        s->spare = back;
        s->n_spare++;
        back = rest;
    }
    pthread_mutex_unlock(&s->mu);
    return back;
}

/* Under mu: waits until ops are queued, stop is requested or the
 * heartbeat is due (next_beat, CLOCK_MONOTONIC ms). A heartbeat (a write
 * of its own, with nothing queued) waits while the backend says so
 * (SQLite: a checkpoint pass runs; begun during the pass it would leave
 * the log end uncopied, and one that fell into every pass, both about
 * once a second, would keep an idle WAL from ever starting over); the
 * pass's end signals cv. */
static void wait_for_work(struct store *s, int64_t next_beat)
{
    while (s->q_n == 0 && !s->stopping &&
           (sysclock_ms(CLOCK_MONOTONIC) < next_beat ||
            (s->be->beat_waits && s->be->beat_waits(s)))) {
        struct timespec ts = {(time_t)(next_beat / 1000),
                              (long)(next_beat % 1000) * 1000000L};
        if (sysclock_ms(CLOCK_MONOTONIC) >= next_beat)
            pthread_cond_wait(&s->cv, &s->mu);
        else
            pthread_cond_timedwait(&s->cv, &s->mu, &ts);
    }
}

/* A batch of n > 0 ops committed: its fenced games settled (held for the
 * loop), `committed` published up to its last op, the loop woken. */
static void batch_committed(struct store *s, struct op *const *ops, size_t n)
{
    uint64_t held;

    assert(n > 0);
    /* sequence numbers commit in the order they were handed out */
    assert(ops[n - 1]->seq >= atomic_load(&s->committed));
    if ((held = settle_batch(s, ops, n)))
        hold_for_the_loop(s, held);
    publish(s, ops[n - 1]->seq);
    if (s->on_commit)
        s->on_commit(s->arg);
}

/* After a batch: frees its ops but the moves, which own nothing and go
 * back to s->spare (as many as it keeps) once the backend's after_batch
 * has run (not while stopping). Returns how long after_batch waited, in
 * us. */
static int64_t recycle_batch(struct store *s, struct op *const *ops, size_t n,
                             bool stopping)
{
    struct op *back = NULL; /* the batch's move ops, for `spare` */
    int64_t waited_us = 0;

    for (size_t i = 0; i < n; i++) {
        if (ops[i]->kind == OP_MOVE) { /* owns nothing: reusable */
            ops[i]->next_spare = back;
            back = ops[i];
        } else {
            store__op_free(ops[i]);
        }
    }
    if (s->be->after_batch && !stopping)
        waited_us = s->be->after_batch(s);

    if (back)
        back = spare_return(s, back);
    while (back) { /* more moves were in flight than are kept */
        struct op *o = back;
        back = o->next_spare;
        store__op_free(o);
    }
    return waited_us;
}

/* Under mu: one transaction's times into s->timing (a lost one: only
 * its retries). */
static void record_timing(struct store *s, const struct store_attempt *a,
                          size_t n, bool lost, int64_t queue_us,
                          int64_t t_end, int fails)
{
    if (!lost) {
        if (n > 0)
            hist_add(&s->timing.queue, queue_us);
        hist_add(&s->timing.statements, a->t_commit - a->t_begin);
        hist_add(&s->timing.commit, t_end - a->t_commit);
    }
    s->timing.retries += (uint64_t)fails;
}

/*
 * The writer: waits for ops (or the next heartbeat), takes everything
 * queued, has it committed, publishes the sequence number and wakes the
 * loop. On stop it drains the queue, records a last heartbeat and returns.
 */
static void *writer_main(void *arg)
{
    struct store *s = arg;
    int64_t next_beat = 0; /* CLOCK_MONOTONIC ms; 0: beat at once */
    int64_t waited_us = 0; /* before this transaction (after_batch) */

    writer_of = s;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        struct op **ops;
        struct store_attempt a;
        size_t n;
        bool stopping, beat, lost;
        int fails = 0;
        int64_t t_begin, t_end, queue_us = 0;

        wait_for_work(s, next_beat);
        ops = s->q;
        n = s->q_n;
        s->q = s->batch;
        s->q_n = 0;
        s->batch = ops;
        stopping = s->stopping;
        pthread_mutex_unlock(&s->mu);
        /* a batch is the queue in the order its sequence numbers were
         * handed out, all of them after what was committed */
        assert(n == 0 || ops[0]->seq > atomic_load(&s->committed));
        for (size_t i = 1; i < n; i++)
            assert(ops[i - 1]->seq < ops[i]->seq);

        beat = stopping || sysclock_ms(CLOCK_MONOTONIC) >= next_beat;
        t_begin = sysclock_us(CLOCK_MONOTONIC);
        if (n > 0)
            queue_us = t_begin - ops[0]->queued_us;
        assign_epochs(s, ops, n);
        lost = !commit_ops(s, ops, n, beat ? sysclock_ms(CLOCK_REALTIME) : 0,
                           &a, &fails);
        t_end = sysclock_us(CLOCK_MONOTONIC);
        if (lost) {
            atomic_fetch_add(&s->failures[STORE_FAIL_WRITES_LOST], 1);
            log_error("event=store_writes_lost count=%zu", n);
        }
        if (beat)
            next_beat = sysclock_ms(CLOCK_MONOTONIC) + STORE_HEARTBEAT_MS;
        if (!lost)
            atomic_store(&s->last_commit_ms, sysclock_ms(CLOCK_MONOTONIC));
        if (n > 0 && !lost)
            batch_committed(s, ops, n);
        if (n > 0 && t_end - ops[0]->queued_us > STORE_SLOW_COMMIT_US)
            log_debug("event=store_slow_commit ops=%zu queue_us=%lld "
                      "wait_us=%lld statements_us=%lld commit_us=%lld "
                      "retries=%d",
                      n, (long long)queue_us, (long long)waited_us,
                      (long long)(lost ? 0 : a.t_commit - a.t_begin),
                      (long long)(lost ? 0 : t_end - a.t_commit), fails);
        waited_us = recycle_batch(s, ops, n, stopping);

        pthread_mutex_lock(&s->mu);
        record_timing(s, &a, n, lost, queue_us, t_end, fails);
        s->stats.journal_swept = s->swept;
        if (stopping && s->q_n == 0)
            break;
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int store__start(struct store *s, char *err, size_t errlen)
{
    atomic_store(&s->last_commit_ms, sysclock_ms(CLOCK_MONOTONIC));
    if (pthread_create(&s->thread, NULL, writer_main, s) != 0) {
        errtext_set(err, errlen, "cannot start the writer thread");
        return -1;
    }
    s->thread_started = true;
    return 0;
}
