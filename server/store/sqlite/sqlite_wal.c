/*
 * sqlite_wal.c - the SQLite backend's WAL (sqlite_internal.h): the
 * writer connection's wal hook, the writer's wait for a checkpoint pass
 * at the WAL's cap, and the checkpointer thread on its own connection.
 *
 * WAL. SQLite starts the WAL over (walRestartLog, at the first frame a
 * write transaction writes) only when that transaction began while every
 * frame was already copied into the database (nBackfill == mxFrame) and
 * no other connection reads from the WAL. A PASSIVE checkpoint copies the
 * frames that existed when it began (pnLog, of which pnCkpt were copied)
 * and syncs the WAL before and the database after, so it takes a few
 * milliseconds; a commit made meanwhile is not covered. Under back-to-back
 * commits no checkpoint ever covers the log end and the WAL only grows
 * (measured: 14,000 frames, 58 MB, from 12,000 commits, zero restarts).
 * Therefore:
 * - Every STORE_CHECKPOINT_MS the checkpointer copies what the WAL holds.
 *   When the writer happens to be idle through such a pass (the usual case
 *   below a few hundred commits a second), its next commit starts the WAL
 *   over and nobody waited.
 * - When a commit leaves STORE_WAL_CAP_FRAMES or more in the WAL, the
 *   writer, before its next transaction, asks the checkpointer for a pass
 *   and waits until a pass that began after its last commit has ended
 *   (wait_for_checkpoint, the backend's after_batch): with nothing
 *   committing, that pass covers the log end, and the next transaction
 *   starts the WAL over. The writer never copies a page itself, and this
 *   is the only time a write waits for a checkpoint: once per
 *   STORE_WAL_CAP_FRAMES frames, for what is left of a pass in progress
 *   plus one pass over the pages written since that one began, with its
 *   two syncs. To keep that last pass short, the checkpointer runs its
 *   passes back to back (not every STORE_CHECKPOINT_MS) once the WAL
 *   holds STORE_WAL_SOFT_FRAMES (3/4 of the cap) and commits go on; one
 *   of them that happens to begin after a commit and end before the next
 *   lets that next commit start the WAL over with no wait at all
 *   (measured: most WAL generations under an open-loop stream of 4,500
 *   moves a second). Within STORE_WAL_PARK_FRAMES of the cap, the writer
 *   waits as at the cap, except that when a pass that began before its
 *   last commit is running it does not wait for that pass and then one
 *   more: it commits on and parks the checkpointer, and waits at its
 *   next commit for exactly one pass. Both syncs are needed whatever the
 *   copy's size: the WAL's, so that no page reaches the database file
 *   before the commit that wrote it is durable (commits do not sync at
 *   synchronous=NORMAL), and the database file's, before the frames may
 *   be overwritten. So the WAL never holds more than
 *   STORE_WAL_CAP_FRAMES plus one transaction's frames, unless a reader
 *   keeps an old snapshot (an operator's open transaction, a long
 *   backup): then the pass cannot copy everything, the writer goes on at
 *   once and asks again only after another STORE_WAL_CAP_FRAMES frames.
 *   journal_size_limit cuts the file back after such a spell, at the
 *   first commit of the restarted WAL.
 * - The commit that starts the WAL over syncs the new WAL header (SQLite
 *   does so at synchronous=NORMAL so that the restart survives a power
 *   cut): one sync per WAL generation that no design here can avoid.
 */
#include "store/sqlite/sqlite_internal.h"

#include <assert.h>
#include <time.h>

#include "lib/log.h"
#include "sysclock.h"

/*
 * STORE_CHECKPOINT_MS / STORE_WAL_CAP_FRAMES: the checkpointer's period
 * (1 s: each pass ends with an fdatasync of the WAL and of the database,
 * and on a slow disk the writer's WAL appends stall while the file
 * system commits them, so fewer passes mean fewer stalled commits; at
 * 200 ms, five a second, the open-loop p99 was 9-44 ms on such a disk,
 * at 1 s 3.3-12.5 ms, docs/performance.md), and
 * the WAL size (frames of 4 KB pages, 64 MB) at which the writer waits for
 * it (see the top of this file); STORE_WAL_SOFT_FRAMES, the size from which
 * its passes follow each other without a pause; STORE_WAL_PARK_FRAMES,
 * how far below the cap the writer begins to wait. The bigger the cap, the
 * rarer the writer's wait (once per 16 MB of WAL with 1 KB pages), at
 * the cost of the WAL file's size on disk.
 */
#define STORE_CHECKPOINT_MS 1000
#define STORE_WAL_SOFT_FRAMES (STORE_WAL_CAP_FRAMES / 4 * 3)
#define STORE_WAL_PARK_FRAMES (STORE_WAL_CAP_FRAMES / 16)

/* The writer connection's wal hook, after each commit: how big the WAL
 * is. A commit adds at least one frame, so fewer frames than before mean
 * that it started the WAL over. */
int sq__on_wal_commit(void *arg, sqlite3 *db, const char *name, int frames)
{
    struct store *s = arg;
    struct sqlite_be *b = s->be_state;

    assert(store__on_writer(s)); /* only the writer commits on w */
    (void)db;
    (void)name;
    if (frames <= b->wal_frames) /* started over */
        b->wait_at = STORE_WAL_CAP_FRAMES;
    pthread_mutex_lock(&s->mu);
    b->commit_gen++;
    if (frames <= b->wal_frames)
        s->stats.wal_restarts++;
    s->stats.wal_frames = frames;
    if (frames > s->stats.wal_frames_max)
        s->stats.wal_frames_max = frames;
    if (frames >= STORE_WAL_SOFT_FRAMES)
        pthread_cond_signal(&b->ckpt_cv); /* passes back to back */
    else
        b->ckpt_park = false;
    pthread_mutex_unlock(&s->mu);
    b->wal_frames = frames;
    return SQLITE_OK;
}

/*
 * Between two transactions, with the WAL at wait_at (the cap; must) or
 * within STORE_WAL_PARK_FRAMES of it: asks the checkpointer for a pass
 * and waits until one that began after the writer's last commit has
 * ended (at once on stop). Nothing commits meanwhile, so that pass covers
 * the log end unless a reader holds it back; then the writer asks again
 * only after another STORE_WAL_CAP_FRAMES frames. Below the cap, when a
 * pass that began before the last commit is copying, the writer does not
 * wait for it to end and then for one more: it goes on committing and
 * parks the checkpointer (no pass of its own after this one), so that at
 * its next commit it finds none running and waits for exactly one, which
 * copies what was committed during the last. Returns how long it waited,
 * in microseconds.
 */
static int64_t wait_for_checkpoint(struct store *s, bool must)
{
    struct sqlite_be *b = s->be_state;
    int64_t t0 = sysclock_us(CLOCK_MONOTONIC), waited;
    uint64_t gen;
    bool caught_up;

    assert(store__on_writer(s));
    pthread_mutex_lock(&s->mu);
    gen = b->commit_gen;
    if (!must && (b->ckpt_held ||
                  (b->ckpt_begun != b->ckpt_ended && b->gen_begun != gen))) {
        b->ckpt_park = true;
        pthread_mutex_unlock(&s->mu);
        return 0;
    }
    b->ckpt_wanted = true;
    s->stats.writer_waits++;
    pthread_cond_signal(&b->ckpt_cv);
    while (!s->stopping && b->gen_ended != gen)
        pthread_cond_wait(&s->cv, &s->mu);
    caught_up = b->gen_ended == gen && s->stats.ckpt_copied == b->wal_frames;
    b->ckpt_park = false;
    waited = sysclock_us(CLOCK_MONOTONIC) - t0;
    s->stats.writer_wait_us += waited;
    hist_add(&s->timing.ckpt_wait, waited);
    pthread_mutex_unlock(&s->mu);
    b->wait_at = caught_up ? STORE_WAL_CAP_FRAMES
                           : b->wal_frames + STORE_WAL_CAP_FRAMES;
    return waited;
}

/* The backend's after_batch: the writer waits for a checkpoint pass at
 * the WAL's cap (or parks the checkpointer just below it). */
int64_t sq__after_batch(struct store *s)
{
    struct sqlite_be *b = s->be_state;

    assert(store__on_writer(s));
    if (b->wal_frames < b->wait_at - STORE_WAL_PARK_FRAMES)
        return 0;
    return wait_for_checkpoint(s, b->wal_frames >= b->wait_at);
}

/* Under mu: the WAL is past the soft mark and something was committed
 * since the last pass began, so the next pass should begin at once. */
static bool eager(const struct store *s, const struct sqlite_be *b)
{
    return s->stats.wal_frames >= STORE_WAL_SOFT_FRAMES &&
           b->commit_gen != b->gen_begun;
}

/*
 * The checkpointer: a PASSIVE checkpoint on its own connection every
 * STORE_CHECKPOINT_MS; passes back to back while the WAL is past
 * STORE_WAL_SOFT_FRAMES and commits go on (so that the pass the writer
 * waits for at the cap copies only what was committed during the one
 * before); and at once when the writer waits for one. PASSIVE
 * takes no lock the writer or the readers need, so they never wait for
 * it (except the writer in wait_for_checkpoint). It records what each
 * pass copied (pnLog, pnCkpt). Failures are logged and tried again next
 * time.
 */
void *sq__checkpointer_main(void *arg)
{
    struct store *s = arg;
    struct sqlite_be *b = s->be_state;
    int64_t next = sysclock_ms(CLOCK_MONOTONIC) + STORE_CHECKPOINT_MS;

    pthread_mutex_lock(&s->mu);
    for (;;) {
        int rc, log = -1, copied = -1;
        uint64_t gen;

        while (!s->stopping &&
               (b->ckpt_held ||
                (!b->ckpt_wanted && (b->ckpt_park || !eager(s, b)) &&
                 sysclock_ms(CLOCK_MONOTONIC) < next))) {
            struct timespec ts = {(time_t)(next / 1000),
                                  (long)(next % 1000) * 1000000L};
            if (b->ckpt_held)
                pthread_cond_wait(&b->ckpt_cv, &s->mu);
            else
                pthread_cond_timedwait(&b->ckpt_cv, &s->mu, &ts);
        }
        if (s->stopping)
            break;
        assert(b->ckpt_begun == b->ckpt_ended); /* one pass at a time */
        b->ckpt_begun++;
        gen = b->gen_begun = b->commit_gen;
        /* this pass serves a waiting writer (it commits nothing while it
         * waits): without this, passes with nothing to copy would follow
         * each other until the writer runs again */
        b->ckpt_wanted = false;
        pthread_mutex_unlock(&s->mu);
        rc = sqlite3_wal_checkpoint_v2(b->c, NULL, SQLITE_CHECKPOINT_PASSIVE,
                                       &log, &copied);
        if (rc != SQLITE_OK && rc != SQLITE_BUSY) {
            char q[300];
            atomic_fetch_add(&s->failures[STORE_FAIL_CHECKPOINT], 1);
            log_warn("event=store_checkpoint_failed code=%d error=%s", rc,
                     log_quote(q, sizeof q, sqlite3_errmsg(b->c)));
        }
        pthread_mutex_lock(&s->mu);
        b->ckpt_ended = b->ckpt_begun;
        b->gen_ended = gen;
        s->stats.checkpoints++;
        s->stats.ckpt_log = rc == SQLITE_OK ? log : -1;
        s->stats.ckpt_copied = rc == SQLITE_OK ? copied : -1;
        pthread_cond_signal(&s->cv); /* a writer waiting for this pass */
        next = sysclock_ms(CLOCK_MONOTONIC) + STORE_CHECKPOINT_MS;
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* The backend's beat_waits: a checkpoint pass runs (its end signals
 * s->cv). */
bool sq__beat_waits(struct store *s)
{
    const struct sqlite_be *b = s->be_state;

    assert(store__on_writer(s));
    return b->ckpt_begun != b->ckpt_ended;
}

/* The backend's hold_checkpoints (store_hold_checkpoints). */
void sq__hold_checkpoints(struct store *s, int hold)
{
    struct sqlite_be *b = s->be_state;

    assert(!store__on_writer(s)); /* the loop's (a test's) */
    pthread_mutex_lock(&s->mu);
    b->ckpt_held = hold != 0;
    pthread_cond_signal(&b->ckpt_cv);
    while (hold && b->ckpt_begun != b->ckpt_ended) { /* a pass runs */
        pthread_mutex_unlock(&s->mu);
        store__sleep_ms(1);
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
}
