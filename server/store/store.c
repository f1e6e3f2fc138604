/*
 * store.c - the store's shared core: the queue of writes and their
 * sequence numbers, the writer thread's loop, the fencing of games, and
 * the public functions, over one of two backends (store_internal.h):
 * SQLite (store_sqlite.c) or PostgreSQL (store_pg.c). See store.h for
 * the contract.
 *
 * Queue. Enqueuers allocate an op, copy their arguments into it, and append
 * its pointer to `q` under `mu`; the writer swaps `q` with its own empty
 * `batch` array (so the lock is held for a pointer swap, never for the
 * database), then has the backend apply the whole batch in one
 * transaction, publishes the last sequence number in `committed` and
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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ending.h"
#include "lib/errtext.h"
#include "lib/log.h"
#include "strcopy.h"
#include "sysclock.h"

/* ---- small helpers ---------------------------------------------------- */

const char *store__op_gid(const struct op *op)
{
    switch (op->kind) {
    case OP_GAME:
    case OP_FINISH:
        return op->u.game.gid;
    case OP_MOVE:
        return op->u.move.gid;
    case OP_EPOCH:
        return op->u.take.gid;
    default:
        return NULL;
    }
}

const char *store__op_name(enum op_kind k)
{
    static const char *const names[] = {
        "player",       "game",          "move",          "finish",
        "purge",        "register",      "token_put",     "token_touch",
        "token_revoke", "tokens_revoke", "tokens_expire", "settings",
        "epoch"};
    _Static_assert(sizeof names / sizeof *names == OP_KINDS,
                   "a name for every op kind");
    return names[k];
}

void store__sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

bool store__stopping(struct store *s)
{
    bool stop;

    pthread_mutex_lock(&s->mu);
    stop = s->stopping;
    pthread_mutex_unlock(&s->mu);
    return stop;
}

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
    drop(s, op, STORE_FAIL_WRITE_DROPPED, why);
}

void store__commit_failed(struct store *s, const char *code, const char *why)
{
    char q[300];

    atomic_fetch_add(&s->failures[STORE_FAIL_COMMIT], 1);
    log_error("event=store_commit_failed code=%s error=%s", code,
              log_quote(q, sizeof q, why));
}

int store__read_failed(struct store *s, const char *why)
{
    char q[300];

    atomic_fetch_add(&s->failures[STORE_FAIL_READ], 1);
    log_error("event=store_read_failed error=%s",
              log_quote(q, sizeof q, why));
    return -1;
}

void store__purge_kept(struct store *s, int64_t ms)
{
    if (!s->purge_kept) {
        s->purge_kept = true;
        s->kept_ms = ms;
    }
}

void store__purge_advance(struct store *s, size_t n, int64_t last_ms,
                          const char *last_pid)
{
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

int store__moves_add(struct store__moves *l, const struct store_move *m)
{
    if (l->n > 0 && l->v[l->n - 1].ply == m->ply) {
        l->v[l->n - 1] = *m;
        return 0;
    }
    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 64;
        struct store_move *nv = realloc(l->v, ncap * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = ncap;
    }
    l->v[l->n++] = *m;
    return 0;
}

struct store__live_game *store__live_add(struct store__live *ll)
{
    if (ll->n == ll->cap) {
        size_t ncap = ll->cap ? ll->cap * 2 : 16;
        struct store__live_game *nv = realloc(ll->v, ncap * sizeof *nv);
        if (!nv)
            return NULL;
        ll->v = nv;
        ll->cap = ncap;
    }
    memset(&ll->v[ll->n], 0, sizeof ll->v[ll->n]);
    return &ll->v[ll->n++];
}

static int cmp_live_gid(const void *a, const void *b)
{
    const struct store__live_game *x = *(
        const struct store__live_game *const *)a;
    const struct store__live_game *y = *(
        const struct store__live_game *const *)b;

    return strcmp(x->g.gid, y->g.gid);
}

int store__live_index(struct store__live *ll)
{
    free(ll->by_gid);
    ll->by_gid = malloc((ll->n ? ll->n : 1) * sizeof *ll->by_gid);
    if (!ll->by_gid)
        return -1;
    for (size_t i = 0; i < ll->n; i++)
        ll->by_gid[i] = &ll->v[i];
    qsort(ll->by_gid, ll->n, sizeof *ll->by_gid, cmp_live_gid);
    return 0;
}

struct store__live_game *store__live_find(const struct store__live *ll,
                                          const char *gid)
{
    size_t lo = 0, hi = ll->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ll->by_gid[mid]->g.gid, gid);
        if (c == 0)
            return ll->by_gid[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int store__live_move(const struct store__live *ll,
                     struct store__live_game **cur, const char *gid,
                     const struct store_move *m)
{
    if (!*cur || strcmp((*cur)->g.gid, gid))
        *cur = store__live_find(ll, gid);
    return *cur ? store__moves_add(&(*cur)->l, m) : 0;
}

static void live_free(struct store__live *ll)
{
    for (size_t i = 0; i < ll->n; i++)
        free(ll->v[i].l.v);
    free(ll->v);
    free(ll->by_gid);
}

struct store_game *store__game_list_add(struct store_game_list *l,
                                        size_t *cap, int limit)
{
    if (l->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        struct store_game *nv;
        if (ncap > (size_t)limit)
            ncap = (size_t)limit;
        nv = realloc(l->games, ncap * sizeof *nv);
        if (!nv)
            return NULL;
        l->games = nv;
        *cap = ncap;
    }
    return &l->games[l->n++];
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
        if (s->n_fenced == s->cap_fenced) {
            size_t ncap = s->cap_fenced ? s->cap_fenced * 2 : 8;
            char(*nv)[33] = realloc(s->fenced, ncap * sizeof *nv);
            if (nv) {
                s->fenced = nv;
                s->cap_fenced = ncap;
            }
        }
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
    if (!s->frozen && seq > atomic_load(&s->committed))
        atomic_store(&s->committed, seq);
}

/* After a committed batch with fenced ops: `committed` up to the first of
 * them, the loop woken, and a wait until it has collected the fenced
 * games (or store_close: then frozen). */
static void hold_for_the_loop(struct store *s, uint64_t first_fenced)
{
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

static void op_free(struct op *op)
{
    if (op) {
        free(op->pgn);
        free(op->moves);
        free(op->ratings);
        free(op->keep);
        free(op->text);
        free(op);
    }
}

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

/*
 * The writer: waits for ops (or the next heartbeat), takes everything
 * queued, has it committed, publishes the sequence number and wakes the
 * loop. On stop it drains the queue, records a last heartbeat and returns.
 */
static void *writer_main(void *arg)
{
    struct store *s = arg;
    struct op *back = NULL; /* the batch's move ops, for `spare` */
    int64_t next_beat = 0;  /* CLOCK_MONOTONIC ms; 0: beat at once */
    int64_t waited_us = 0;  /* before this transaction (after_batch) */

    pthread_mutex_lock(&s->mu);
    for (;;) {
        struct op **ops;
        struct store_attempt a;
        size_t n;
        bool stopping, beat, lost;
        int fails = 0;
        int64_t t_begin, t_end, queue_us = 0;
        uint64_t held;

        /* A heartbeat (a write of its own, with nothing queued) waits
         * while the backend says so (SQLite: a checkpoint pass runs;
         * begun during the pass it would leave the log end uncopied, and
         * one that fell into every pass, both about once a second, would
         * keep an idle WAL from ever starting over); the pass's end
         * signals cv. */
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
        ops = s->q;
        n = s->q_n;
        s->q = s->batch;
        s->q_n = 0;
        s->batch = ops;
        stopping = s->stopping;
        pthread_mutex_unlock(&s->mu);

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
        if (n > 0 && !lost) {
            /* sequence numbers commit in the order they were handed out */
            assert(ops[n - 1]->seq >= atomic_load(&s->committed));
            if ((held = settle_batch(s, ops, n)))
                hold_for_the_loop(s, held);
            publish(s, ops[n - 1]->seq);
            if (s->on_commit)
                s->on_commit(s->arg);
        }
        if (n > 0 && t_end - ops[0]->queued_us > STORE_SLOW_COMMIT_US)
            log_debug("event=store_slow_commit ops=%zu queue_us=%lld "
                      "wait_us=%lld statements_us=%lld commit_us=%lld "
                      "retries=%d",
                      n, (long long)queue_us, (long long)waited_us,
                      (long long)(lost ? 0 : a.t_commit - a.t_begin),
                      (long long)(lost ? 0 : t_end - a.t_commit), fails);
        for (size_t i = 0; i < n; i++) {
            if (ops[i]->kind == OP_MOVE) { /* owns nothing: reusable */
                ops[i]->next_spare = back;
                back = ops[i];
            } else {
                op_free(ops[i]);
            }
        }
        waited_us = 0;
        if (s->be->after_batch && !stopping)
            waited_us = s->be->after_batch(s);

        if (back)
            back = spare_return(s, back);
        while (back) { /* more moves were in flight than are kept */
            struct op *o = back;
            back = o->next_spare;
            op_free(o);
        }

        pthread_mutex_lock(&s->mu);
        if (!lost) {
            if (n > 0)
                hist_add(&s->timing.queue, queue_us);
            hist_add(&s->timing.statements, a.t_commit - a.t_begin);
            hist_add(&s->timing.commit, t_end - a.t_commit);
        }
        s->timing.retries += (uint64_t)fails;
        s->stats.journal_swept = s->swept;
        if (stopping && s->q_n == 0)
            break;
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

void store_wal_stats(struct store *s, struct store_wal_stats *out)
{
    pthread_mutex_lock(&s->mu);
    *out = s->stats;
    pthread_mutex_unlock(&s->mu);
}

void store_timing(struct store *s, struct store_timing *out)
{
    pthread_mutex_lock(&s->mu);
    *out = s->timing;
    pthread_mutex_unlock(&s->mu);
}

/* ---- open / close ----------------------------------------------------- */

struct store *store__new(const struct store_backend *be,
                         void (*on_commit)(void *arg), void *arg, char *err,
                         size_t errlen)
{
    struct store *s = calloc(1, sizeof *s);
    pthread_condattr_t ca;

    if (!s) {
        errtext_set(err, errlen, "out of memory");
        return NULL;
    }
    s->be = be;
    s->on_commit = on_commit;
    s->arg = arg;
    s->next_seq = 1;
    table_init(&s->epochs);
    if (pthread_condattr_init(&ca) != 0) {
        errtext_set(err, errlen, "cannot create a condition variable");
        free(s);
        return NULL;
    }
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_mutex_init(&s->mu, NULL) != 0) {
        pthread_condattr_destroy(&ca);
        errtext_set(err, errlen, "cannot create a mutex");
        free(s);
        return NULL;
    }
    if (pthread_cond_init(&s->cv, &ca) != 0) {
        pthread_condattr_destroy(&ca);
        pthread_mutex_destroy(&s->mu);
        errtext_set(err, errlen, "cannot create a condition variable");
        free(s);
        return NULL;
    }
    pthread_condattr_destroy(&ca);
    s->q = malloc(STORE_QUEUE_CAP * sizeof *s->q);
    s->batch = malloc(STORE_QUEUE_CAP * sizeof *s->batch);
    if (!s->q || !s->batch) {
        errtext_set(err, errlen, "out of memory");
        store_close(s);
        return NULL;
    }
    return s;
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

int store_open(struct store **out, const char *path,
               void (*on_commit)(void *arg), void *arg, char *err,
               size_t errlen)
{
    struct store *s;

    *out = NULL;
    if (!path || !*path) {
        errtext_set(err, errlen, "no database path given");
        return -1;
    }
    if (!(s = store__new(&store__sqlite, on_commit, arg, err, errlen)))
        return -1;
    if (store__sqlite_open(s, path, err, errlen) != 0 ||
        store__start(s, err, errlen) != 0) {
        store_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

int store_open_pg(struct store **out, const char *conninfo,
                  const char *node_id, void (*on_commit)(void *arg),
                  void *arg, char *err, size_t errlen)
{
    struct store *s;

    *out = NULL;
    if (!conninfo || !*conninfo) {
        errtext_set(err, errlen, "no PostgreSQL connection string given");
        return -1;
    }
    if (!node_id || !*node_id || strlen(node_id) > STORE_NODE_ID_MAX) {
        errtext_set(err, errlen, "a node id of 1 to %d characters is needed",
                    STORE_NODE_ID_MAX);
        return -1;
    }
    if (!(s = store__new(&store__pg, on_commit, arg, err, errlen)))
        return -1;
    if (store__pg_open(s, conninfo, node_id, err, errlen) != 0 ||
        store__start(s, err, errlen) != 0) {
        store_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

void store_close(struct store *s)
{
    struct table_slot *slot;

    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->stopping = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (s->thread_started)
        pthread_join(s->thread, NULL);
    if (s->q)
        for (size_t i = 0; i < s->q_n; i++) /* only if the writer never ran */
            op_free(s->q[i]);
    if (s->be_state)
        s->be->close(s);
    for (size_t i = 0; i < s->epochs.cap; i++) {
        slot = &s->epochs.slots[i];
        if (slot->key && slot->value)
            free(slot->value);
    }
    table_clear(&s->epochs);
    free(s->fenced);
    while (s->spare) {
        struct op *o = s->spare;
        s->spare = o->next_spare;
        op_free(o);
    }
    free(s->q);
    free(s->batch);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

int store_schema_version(const struct store *s)
{
    return s->schema_version;
}

const char *store_backend_name(const struct store *s)
{
    return s->be->name;
}

void store_location(const struct store *s, char *buf, size_t len)
{
    s->be->location(s, buf, len);
}

/* ---- enqueue ---------------------------------------------------------- */

/* enqueue under s->mu: the op's sequence number, or 0 when the queue is
 * full or closing (op is then still the caller's). */
static uint64_t enqueue_locked(struct store *s, struct op *op)
{
    uint64_t seq;

    if (s->q_n >= STORE_QUEUE_CAP || s->stopping)
        return 0;
    seq = op->seq = s->next_seq++;
    op->queued_us = sysclock_us(CLOCK_MONOTONIC);
    s->q[s->q_n++] = op;
    atomic_store(&s->queued, seq);
    if (s->q_n == 1)
        pthread_cond_signal(&s->cv);
    return seq;
}

static uint64_t enqueue(struct store *s, struct op *op)
{
    uint64_t seq;

    if (!op)
        return 0;
    pthread_mutex_lock(&s->mu);
    seq = enqueue_locked(s, op);
    pthread_mutex_unlock(&s->mu);
    if (!seq)
        op_free(op);
    return seq;
}

static struct op *op_new(enum op_kind kind)
{
    struct op *op = calloc(1, sizeof *op);

    if (op)
        op->kind = kind;
    return op;
}

static bool valid_status(const char *st)
{
    return !strcmp(st, "waiting") || !strcmp(st, "started") ||
           !strcmp(st, "ended");
}

/* Copies g into op with every string terminated; false when g is not a
 * game row the schema would accept. */
static bool copy_game(struct op *op, const struct store_game *g)
{
    struct store_game *c = &op->u.game;

    *c = *g;
    STORE_TERMINATE(c->gid);
    STORE_TERMINATE(c->white_pid);
    STORE_TERMINATE(c->white_name);
    STORE_TERMINATE(c->black_pid);
    STORE_TERMINATE(c->black_name);
    STORE_TERMINATE(c->creator_pid);
    STORE_TERMINATE(c->initial_fen);
    STORE_TERMINATE(c->status);
    STORE_TERMINATE(c->result);
    STORE_TERMINATE(c->reason);
    STORE_TERMINATE(c->final_fen);
    STORE_TERMINATE(c->draw_offer);
    return c->gid[0] && c->initial_fen[0] &&
           (c->clock.per_move == 0 || c->clock.per_move == 1) &&
           (!c->result[0] || ending_result_find(c->result, NULL) == 0) &&
           (!c->reason[0] || ending_find(c->reason)) &&
           (!c->draw_offer[0] || !strcmp(c->draw_offer, "white") ||
            !strcmp(c->draw_offer, "black"));
}

uint64_t store_put_player(struct store *s, const struct store_player *p)
{
    struct op *op;

    if (!s || !p)
        return 0;
    if (!(op = op_new(OP_PLAYER)))
        return 0;
    op->u.player = *p;
    STORE_TERMINATE(op->u.player.pid);
    STORE_TERMINATE(op->u.player.name);
    if (!op->u.player.pid[0]) {
        op_free(op);
        return 0;
    }
    return enqueue(s, op);
}

uint64_t store_put_game(struct store *s, const struct store_game *g)
{
    struct op *op;

    if (!s || !g)
        return 0;
    if (!(op = op_new(OP_GAME)))
        return 0;
    if (!copy_game(op, g) || !valid_status(op->u.game.status)) {
        op_free(op);
        return 0;
    }
    return enqueue(s, op);
}

/* A move op's contents: every field the writer or a backend reads (a
 * spare op keeps the last move's bytes elsewhere, and its flags). */
static void fill_move(struct op *op, const char *gid,
                      const struct store_move *m)
{
    strcopy(op->u.move.gid, sizeof op->u.move.gid, gid);
    op->u.move.m = *m;
    STORE_TERMINATE(op->u.move.m.uci);
    STORE_TERMINATE(op->u.move.m.san);
    op->epoch = 0;
    op->dropped = false;
    op->fence = false;
}

uint64_t store_put_move(struct store *s, const char *gid,
                        const struct store_move *m)
{
    struct op *op;
    uint64_t seq;

    if (!s || !gid || !*gid || !m || m->ply < 1 || !m->uci[0])
        return 0;
    pthread_mutex_lock(&s->mu);
    if ((op = s->spare)) { /* a committed move's, all of it rewritten */
        s->spare = op->next_spare;
        s->n_spare--;
        fill_move(op, gid, m);
        if ((seq = enqueue_locked(s, op)) == 0) {
            op->next_spare = s->spare;
            s->spare = op;
            s->n_spare++;
        }
        pthread_mutex_unlock(&s->mu);
        return seq;
    }
    pthread_mutex_unlock(&s->mu);
    if (!(op = op_new(OP_MOVE)))
        return 0;
    fill_move(op, gid, m);
    return enqueue(s, op);
}

/* True for a category's name as the ratings table's CHECK has it. */
static bool valid_category(const char *c)
{
    static const char *const names[] = {"bullet", "blitz", "rapid",
                                        "classical", "per_move"};

    for (size_t i = 0; i < STORE_N_OF(names); i++)
        if (!strcmp(c, names[i]))
            return true;
    return false;
}

/* Copies the two ratings of a rated end into op; false when one is not
 * usable (an empty pid, an unknown category, a pid not in its seat). */
static bool copy_ratings(struct op *op, const struct store_rating *r)
{
    const char *seat[2] = {op->u.game.white_pid, op->u.game.black_pid};

    op->ratings = malloc(2 * sizeof *op->ratings);
    if (!op->ratings)
        return false;
    memcpy(op->ratings, r, 2 * sizeof *op->ratings);
    for (int c = 0; c < 2; c++) {
        struct store_rating *x = &op->ratings[c];
        STORE_TERMINATE(x->pid);
        STORE_TERMINATE(x->category);
        if (!x->pid[0] || strcmp(x->pid, seat[c]) ||
            !valid_category(x->category))
            return false;
    }
    return true;
}

uint64_t store_finish_game(struct store *s, const struct store_game *g,
                           const struct store_move *moves, size_t n_moves,
                           const char *pgn,
                           const struct store_rating *ratings)
{
    struct op *op;

    if (!s || !g || !pgn || (n_moves && !moves))
        return 0;
    if (!(op = op_new(OP_FINISH)))
        return 0;
    if (n_moves) {
        op->moves = malloc(n_moves * sizeof *op->moves);
        if (!op->moves) {
            op_free(op);
            return 0;
        }
        op->n_moves = n_moves;
        for (size_t i = 0; i < n_moves; i++) {
            op->moves[i] = moves[i];
            STORE_TERMINATE(op->moves[i].uci);
            STORE_TERMINATE(op->moves[i].san);
            if (!op->moves[i].uci[0] || op->moves[i].ply < 1) {
                op_free(op);
                return 0;
            }
        }
    }
    if (!copy_game(op, g) || !op->u.game.result[0] ||
        !(op->pgn = strdup(pgn)) ||
        (ratings && (!op->u.game.rated || !copy_ratings(op, ratings)))) {
        op_free(op);
        return 0;
    }
    strcopy(op->u.game.status, sizeof op->u.game.status, "ended");
    return enqueue(s, op);
}

static int cmp_pid(const void *a, const void *b)
{
    return strcmp(a, b);
}

uint64_t store_purge_guests(struct store *s, int64_t before_ms,
                            const char *const *keep, size_t n_keep)
{
    struct op *op;

    if (!s || (n_keep && !keep))
        return 0;
    if (!(op = op_new(OP_PURGE)))
        return 0;
    op->u.purge.before_ms = before_ms;
    op->u.purge.n_keep = n_keep;
    if (n_keep) {
        op->keep = malloc(n_keep * sizeof *op->keep);
        if (!op->keep) {
            op_free(op);
            return 0;
        }
        for (size_t i = 0; i < n_keep; i++)
            strcopy(op->keep[i], sizeof op->keep[i], keep[i]);
        qsort(op->keep, n_keep, sizeof *op->keep, cmp_pid);
    }
    return enqueue(s, op);
}

uint64_t store_register(struct store *s, const struct store_account *a,
                        const uint8_t dead_hash[32],
                        const uint8_t token_hash[32])
{
    struct op *op;

    if (!s || !a || !dead_hash || !token_hash)
        return 0;
    if (!(op = op_new(OP_REGISTER)))
        return 0;
    op->u.reg.a = *a;
    STORE_TERMINATE(op->u.reg.a.pid);
    STORE_TERMINATE(op->u.reg.a.username);
    STORE_TERMINATE(op->u.reg.a.password_hash);
    memcpy(op->u.reg.dead, dead_hash, 32);
    memcpy(op->u.reg.token, token_hash, 32);
    if (!op->u.reg.a.pid[0] || !op->u.reg.a.username[0] ||
        !op->u.reg.a.password_hash[0]) {
        op_free(op);
        return 0;
    }
    return enqueue(s, op);
}

/* A token op with what its kind needs (pid, hash, ms; NULL: unused). */
static uint64_t token_op(struct store *s, enum op_kind kind, const char *pid,
                         const uint8_t *hash, int64_t ms)
{
    struct op *op;

    if (!s || (pid && !*pid))
        return 0;
    if (!(op = op_new(kind)))
        return 0;
    if (pid)
        strcopy(op->u.token.pid, sizeof op->u.token.pid, pid);
    if (hash)
        memcpy(op->u.token.hash, hash, 32);
    op->u.token.ms = ms;
    return enqueue(s, op);
}

uint64_t store_put_token(struct store *s, const char *pid,
                         const uint8_t hash[32], int64_t now_ms)
{
    return pid && hash ? token_op(s, OP_TOKEN_PUT, pid, hash, now_ms) : 0;
}

uint64_t store_touch_token(struct store *s, const uint8_t hash[32],
                           int64_t now_ms)
{
    return hash ? token_op(s, OP_TOKEN_TOUCH, NULL, hash, now_ms) : 0;
}

uint64_t store_revoke_token(struct store *s, const uint8_t hash[32])
{
    return hash ? token_op(s, OP_TOKEN_REVOKE, NULL, hash, 0) : 0;
}

uint64_t store_revoke_tokens(struct store *s, const char *pid)
{
    return pid ? token_op(s, OP_TOKENS_REVOKE, pid, NULL, 0) : 0;
}

uint64_t store_expire_tokens(struct store *s, int64_t before_ms)
{
    return token_op(s, OP_TOKENS_EXPIRE, NULL, NULL, before_ms);
}

uint64_t store_put_settings(struct store *s, const char *pid,
                            const char *json, int64_t now_ms)
{
    struct op *op;
    size_t n = json ? strlen(json) : 0;

    if (!s || !pid || !*pid || n < 2 || n > STORE_SETTINGS_MAX)
        return 0;
    if (!(op = op_new(OP_SETTINGS)))
        return 0;
    strcopy(op->u.settings.pid, sizeof op->u.settings.pid, pid);
    op->u.settings.ms = now_ms;
    if (!(op->text = strdup(json))) {
        op_free(op);
        return 0;
    }
    return enqueue(s, op);
}

uint64_t store_take_epoch(struct store *s, const char *gid, int64_t epoch)
{
    struct op *op;

    if (!s || !gid || !*gid || strlen(gid) > 32 || epoch < 1)
        return 0;
    if (!(op = op_new(OP_EPOCH)))
        return 0;
    strcopy(op->u.take.gid, sizeof op->u.take.gid, gid);
    op->epoch = epoch;
    return enqueue(s, op);
}

uint64_t store_committed(const struct store *s)
{
    return atomic_load(&s->committed);
}

uint64_t store_queued(const struct store *s)
{
    return atomic_load(&s->queued);
}

size_t store_queue_depth(const struct store *s)
{
    /* committed first: it only grows and never passes queued */
    uint64_t c = atomic_load(&s->committed);
    return (size_t)(atomic_load(&s->queued) - c);
}

int64_t store_last_commit_ms(const struct store *s)
{
    return atomic_load(&s->last_commit_ms);
}

uint64_t store_failures(const struct store *s, enum store_failure kind)
{
    return atomic_load(&s->failures[kind]);
}

const char *store_failure_name(enum store_failure kind)
{
    static const char *const names[STORE_FAIL_KINDS] = {
        "commit", "write_dropped", "writes_lost",
        "read",   "checkpoint",    "fenced"};
    return names[kind];
}

int64_t store_last_heartbeat_ms(const struct store *s)
{
    return s->last_heartbeat_ms;
}

/* ---- reads: the arguments checked, then the backend's ----------------- */

int store_find_player_by_token(struct store *s, const uint8_t hash[32],
                               struct store_player *out)
{
    return hash ? s->be->find_player_by_token(s, hash, out) : 0;
}

int store_find_player(struct store *s, const char *pid,
                      struct store_player *out)
{
    return pid ? s->be->find_player(s, pid, out) : 0;
}

int store_find_account(struct store *s, const char *username,
                       struct store_account *out)
{
    return username ? s->be->find_account(s, username, out) : 0;
}

int store_find_account_token(struct store *s, const uint8_t hash[32],
                             int64_t since_ms, struct store_player *out,
                             int64_t *last_used_ms)
{
    return hash ? s->be->find_account_token(s, hash, since_ms, out,
                                            last_used_ms)
                : 0;
}

int store_get_rating(struct store *s, const char *pid, const char *category,
                     struct store_rating *out)
{
    return pid && category ? s->be->get_rating(s, pid, category, out) : 0;
}

int store_player_ratings(struct store *s, const char *pid,
                         struct store_rating *out, size_t max, size_t *n)
{
    *n = 0;
    if (!pid)
        return 0;
    if (s->be->player_ratings(s, pid, out, max, n) < 0) {
        *n = 0;
        return -1;
    }
    return 0;
}

int store_is_account(struct store *s, const char *pid)
{
    return pid ? s->be->is_account(s, pid) : 0;
}

int store_get_settings(struct store *s, const char *pid, char **out)
{
    int rc;

    *out = NULL;
    if (!pid)
        return 0;
    rc = s->be->get_settings(s, pid, out);
    if (rc != 1) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

int store_rating_history(struct store *s, const char *pid,
                         const char *category, int limit,
                         struct store_rating_point **out, size_t *n)
{
    struct store_rating_point *v;
    size_t k = 0;

    *out = NULL;
    *n = 0;
    if (!pid || !category || limit < 1)
        return -1;
    if (!(v = malloc((size_t)limit * sizeof *v)))
        return -1;
    if (s->be->rating_history(s, pid, category, limit, v, &k) < 0) {
        free(v);
        return -1;
    }
    /* read newest first (the limit keeps the newest): oldest first out */
    for (size_t i = 0; i < k / 2; i++) {
        struct store_rating_point t = v[i];
        v[i] = v[k - 1 - i];
        v[k - 1 - i] = t;
    }
    if (!k) {
        free(v);
        v = NULL;
    }
    *out = v;
    *n = k;
    return 0;
}

int store_leaderboard(struct store *s, const char *category, int limit,
                      struct store_leader **out, size_t *n)
{
    struct store_leader *v;
    size_t k = 0;

    *out = NULL;
    *n = 0;
    if (!category || limit < 1)
        return -1;
    if (!(v = malloc((size_t)limit * sizeof *v)))
        return -1;
    if (s->be->leaderboard(s, category, limit, v, &k) < 0) {
        free(v);
        return -1;
    }
    if (!k) {
        free(v);
        v = NULL;
    }
    *out = v;
    *n = k;
    return 0;
}

int store_get_game(struct store *s, const char *gid, struct store_game *g,
                   struct store_move **moves, size_t *n_moves, char **pgn)
{
    struct store__moves l = {NULL, 0, 0};
    int found;

    if (moves)
        *moves = NULL;
    if (n_moves)
        *n_moves = 0;
    if (pgn)
        *pgn = NULL;
    if (!gid)
        return 0;
    found = s->be->get_game(s, gid, g, moves ? &l : NULL, pgn);
    if (found != 1) {
        free(l.v);
        if (pgn) {
            free(*pgn);
            *pgn = NULL;
        }
        return found;
    }
    if (moves) {
        *moves = l.v;
        if (n_moves)
            *n_moves = l.n;
    }
    return 1;
}

int store_load_game(struct store *s, const char *gid, struct store_game *g,
                    struct store_move **moves, size_t *n_moves)
{
    int found = store_get_game(s, gid, g, moves, n_moves, NULL);

    if (found == 1 && !strcmp(g->status, "ended")) {
        free(*moves);
        *moves = NULL;
        *n_moves = 0;
        return 0;
    }
    return found;
}

int store_load_live(struct store *s,
                    int (*cb)(void *arg, const struct store_game *g,
                              const struct store_move *moves, size_t n),
                    void *arg)
{
    struct store__live ll = {NULL, 0, 0, NULL};
    int ret = -1;

    /* Everything is read first, in one snapshot, so that cb may call
     * other store functions. */
    if (s->be->load_live(s, &ll) == 0) {
        ret = 0;
        for (size_t i = 0; i < ll.n; i++)
            if (cb(arg, &ll.v[i].g, ll.v[i].l.v, ll.v[i].l.n) != 0)
                break;
    }
    live_free(&ll);
    return ret;
}

int store_list_player_games(struct store *s, const char *pid,
                            const char *before_gid, int limit,
                            struct store_game_list *out)
{
    out->games = NULL;
    out->n = 0;
    out->has_more = 0;
    if (!pid || !*pid || limit < 1)
        return -1;
    if (s->be->list_player_games(s, pid, before_gid, limit, out) != 0) {
        store_game_list_clear(out);
        return -1;
    }
    return 0;
}

void store_game_list_clear(struct store_game_list *l)
{
    if (!l)
        return;
    free(l->games);
    l->games = NULL;
    l->n = 0;
    l->has_more = 0;
}

int store_get_epoch(struct store *s, const char *gid, int64_t *epoch)
{
    *epoch = 0;
    if (!gid || !*gid)
        return 0;
    return s->be->get_epoch(s, gid, epoch);
}

int store_player_live_games(struct store *s, const char *pid,
                            char (*gids)[33], size_t max, size_t *n)
{
    *n = 0;
    if (!pid || !*pid)
        return -1;
    return max ? s->be->player_live_games(s, pid, gids, max, n) : 0;
}

int store_live_gids(struct store *s, const char *after, int64_t before_ms,
                    char (*gids)[33], size_t max, size_t *n)
{
    *n = 0;
    return max ? s->be->live_gids(s, after ? after : "", before_ms, gids, max,
                                  n)
               : 0;
}
