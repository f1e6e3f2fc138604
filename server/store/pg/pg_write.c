/*
 * pg_write.c - the PostgreSQL backend's writes (pg_internal.h): a batch
 * of ops in one transaction through libpq's pipeline mode, on the
 * writer's connection `w`. Writer thread.
 *
 * A batch is one pipeline (PQenterPipelineMode, non-blocking: sending
 * and reading interleave, so that a batch of any size cannot deadlock on
 * full socket buffers), one round trip whatever its size:
 *   BEGIN; meta[commit:NODE] = marker; the ops' statements; meta
 *   [heartbeat_ms:NODE] = now (when due); COMMIT; Sync.
 * The results are read in order, each tagged with the op it belongs to.
 * The first error decides: SQLSTATE CH001 (pgmigrate.h's FENCED) ->
 * STORE_BATCH_FENCED with that op; class 22 (a value) or 23 (a
 * constraint) -> STORE_BATCH_REFUSED with that op; anything else ->
 * STORE_BATCH_FAILED. After an error the server skips the rest of the
 * pipeline and the transaction is left aborted: a ROLLBACK follows.
 *
 * Committed exactly once. When the connection breaks after the pipeline
 * was sent, the COMMIT may or may not have happened. Every batch writes a
 * marker of its own (a random 62-bit base per open plus a counter) into
 * this node's meta row `commit:NODE`; after a loss, the next attempt at
 * the same batch reconnects and reads that row first: its marker there
 * means the batch committed (it is not sent again: no move is journaled
 * twice), another means it did not. (Two live processes with the same
 * node_id could overwrite each other's marker: node ids are unique.)
 *
 * Fencing. An op of a game the writer took an epoch of carries it
 * (op->epoch): a move goes through journal_append(gid, epoch, ...), a row
 * or an end after epoch_check(gid, epoch) in the same transaction; a take
 * is epoch_take(gid, epoch), and a result greater than the epoch marks the
 * op (op->fence) for the core. A game without an epoch is written
 * directly (a single node). The end of a game deletes its journal rows
 * (copied into `moves` by the same transaction) through the index of
 * migration pg/0002, so PostgreSQL needs no sweep.
 */
#include "store/pg/pg_internal.h"

#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/grow.h"
#include "lib/log.h"
#include "store/pg/pgmigrate.h"
#include "strcopy.h"
#include "sysclock.h"

/* The writer's connection opened again and set up (the writer thread,
 * after a loss). 0, or -1 (logged). */
static int w_reconnect(struct store *s, struct pg_be *b)
{
    char err[512];

    PQfinish(b->w);
    b->piped = false;
    if ((b->w = pg__session(b, true, err, sizeof err))) {
        atomic_fetch_add(&s->pg_reconnects, 1);
        return 0;
    }
    store__commit_failed(s, "08006", err);
    return -1;
}

static int sent_push(struct pg_be *b, size_t op, enum sent_what what)
{
    struct sent *nv = grow_array(b->sent, &b->cap_sent, b->n_sent, sizeof *nv,
                                 256);

    if (!nv)
        return -1;
    b->sent = nv;
    b->sent[b->n_sent++] = (struct sent){op, what};
    return 0;
}

/* Queues prepared statement `name` with p's parameters, for op. 0 or -1
 * (out of memory, or libpq refused: the connection is gone). */
static int send_stmt(struct pg_be *b, const char *name, const struct pgp *p,
                     size_t op, enum sent_what what)
{
    if (sent_push(b, op, what) != 0)
        return -1;
    return PQsendQueryPrepared(b->w, name, p->n, p->v, p->len, p->fmt, 0)
               ? 0
               : -1;
}

static int send_sql(struct pg_be *b, const char *sql, enum sent_what what)
{
    if (sent_push(b, SIZE_MAX, what) != 0)
        return -1;
    return PQsendQueryParams(b->w, sql, 0, NULL, NULL, NULL, NULL, 0) ? 0
                                                                      : -1;
}

/* The epoch_check of a fenced game's row or end, before it. */
static int send_check(struct pg_be *b, const char *gid, int64_t epoch,
                      size_t i)
{
    struct pgp p;

    if (!epoch)
        return 0;
    pgp_init(&p);
    pgp_text(&p, gid);
    pgp_int(&p, epoch);
    return send_stmt(b, "w_check", &p, i, SENT_PLAIN);
}

static int send_rating(struct pg_be *b, const struct store_rating *r,
                       const char *gid, size_t i)
{
    struct pgp p;

    pgp_init(&p);
    pgp_text(&p, r->pid);
    pgp_text(&p, r->category);
    pgp_real_if(&p, true, r->rating);
    pgp_real_if(&p, true, r->rd);
    pgp_real_if(&p, true, r->vol);
    pgp_int(&p, r->games);
    pgp_int(&p, r->wins);
    pgp_int(&p, r->draws);
    pgp_int(&p, r->losses);
    pgp_int(&p, r->last_ms);
    if (send_stmt(b, "w_rating", &p, i, SENT_PLAIN) != 0)
        return -1;
    pgp_init(&p);
    pgp_text(&p, r->pid);
    pgp_text(&p, r->category);
    pgp_int(&p, r->last_ms);
    pgp_text(&p, gid);
    pgp_real_if(&p, true, r->rating);
    pgp_real_if(&p, true, r->rd);
    return send_stmt(b, "w_rating_point", &p, i, SENT_PLAIN);
}

/* An end: its check, its row, its moves, its journal rows deleted, its
 * ratings. */
static int send_finish(struct pg_be *b, const struct op *op, size_t i)
{
    const struct store_game *g = &op->u.game;
    struct pgp p;

    if (send_check(b, g->gid, op->epoch, i) != 0)
        return -1;
    pgp_init(&p);
    pgp_game(&p, g, "ended");
    pgp_text(&p, op->pgn);
    if (send_stmt(b, "w_finish", &p, i, SENT_PLAIN) != 0)
        return -1;
    for (size_t k = 0; k < op->n_moves; k++) {
        pgp_init(&p);
        pgp_move(&p, g->gid, &op->moves[k]);
        if (send_stmt(b, "w_final_move", &p, i, SENT_PLAIN) != 0)
            return -1;
    }
    pgp_init(&p);
    pgp_text(&p, g->gid);
    if (send_stmt(b, "w_end_journal", &p, i, SENT_SWEEP) != 0)
        return -1;
    for (int c = 0; op->ratings && c < 2; c++)
        if (send_rating(b, &op->ratings[c], g->gid, i) != 0)
            return -1;
    return 0;
}

static int send_register(struct pg_be *b, const struct op *op, size_t i)
{
    const struct store_account *a = &op->u.reg.a;
    struct pgp p;

    pgp_init(&p);
    pgp_text(&p, a->pid);
    pgp_text(&p, a->username);
    pgp_text(&p, a->password_hash);
    pgp_int(&p, a->created_ms);
    if (send_stmt(b, "w_account", &p, i, SENT_PLAIN) != 0)
        return -1;
    pgp_init(&p);
    pgp_text(&p, a->pid);
    pgp_text(&p, a->username);
    pgp_bytes(&p, op->u.reg.dead, 32);
    if (send_stmt(b, "w_player_account", &p, i, SENT_PLAIN) != 0)
        return -1;
    pgp_init(&p);
    pgp_bytes(&p, op->u.reg.token, 32);
    pgp_text(&p, a->pid);
    pgp_int(&p, a->created_ms);
    return send_stmt(b, "w_token_put", &p, i, SENT_PLAIN);
}

static int send_purge(struct store *s, struct pg_be *b, const struct op *op,
                      size_t i)
{
    struct pgp p;
    int rc;

    pgp_init(&p);
    pgp_int(&p, s->purge_ms);
    pgp_text(&p, s->purge_pid);
    pgp_int(&p, op->u.purge.before_ms);
    pgp_int(&p, STORE_PURGE_BATCH);
    if (pgp_keep(&p, op->keep, op->keep ? op->u.purge.n_keep : 0) != 0)
        return -1;
    rc = send_stmt(b, "w_purge", &p, i, SENT_PURGE);
    pgp_clear(&p);
    return rc;
}

/* Queues op i's statements. 0 or -1. */
static int send_op(struct store *s, struct pg_be *b, const struct op *op,
                   size_t i)
{
    struct pgp p;
    const char *name;

    pgp_init(&p);
    switch (op->kind) {
    case OP_PLAYER:
        name = "w_player";
        pgp_text(&p, op->u.player.pid);
        pgp_text(&p, op->u.player.name);
        pgp_bytes(&p, op->u.player.token_hash, 32);
        pgp_int(&p, op->u.player.created_ms);
        break;
    case OP_GAME:
        if (send_check(b, op->u.game.gid, op->epoch, i) != 0)
            return -1;
        name = "w_game";
        pgp_game(&p, &op->u.game, op->u.game.status);
        break;
    case OP_MOVE:
        name = op->epoch ? "w_append" : "w_move";
        pgp_move(&p, op->u.move.gid, &op->u.move.m);
        if (op->epoch)
            pgp_int(&p, op->epoch);
        break;
    case OP_FINISH:
        return send_finish(b, op, i);
    case OP_PURGE:
        return send_purge(s, b, op, i);
    case OP_REGISTER:
        return send_register(b, op, i);
    case OP_TOKEN_PUT:
        name = "w_token_put";
        pgp_bytes(&p, op->u.token.hash, 32);
        pgp_text(&p, op->u.token.pid);
        pgp_int(&p, op->u.token.ms);
        break;
    case OP_TOKEN_TOUCH:
        name = "w_token_touch";
        pgp_bytes(&p, op->u.token.hash, 32);
        pgp_int(&p, op->u.token.ms);
        break;
    case OP_TOKEN_REVOKE:
        name = "w_token_revoke";
        pgp_bytes(&p, op->u.token.hash, 32);
        break;
    case OP_TOKENS_REVOKE:
    case OP_BOT:
        name = op->kind == OP_BOT ? "w_bot" : "w_tokens_revoke";
        pgp_text(&p, op->u.token.pid);
        break;
    case OP_TOKENS_EXPIRE:
        name = "w_tokens_expire";
        pgp_int(&p, op->u.token.ms);
        break;
    case OP_SETTINGS:
    case OP_PLAYBAN:
        name = op->kind == OP_SETTINGS ? "w_settings" : "w_playban";
        pgp_text(&p, op->u.settings.pid);
        pgp_text(&p, op->text);
        pgp_int(&p, op->u.settings.ms);
        break;
    case OP_ANALYSIS:
        name = "w_analysis";
        pgp_text(&p, op->u.analysis.gid);
        pgp_text(&p, op->u.analysis.pid);
        pgp_int(&p, op->u.analysis.requested_ms);
        pgp_text(&p, op->u.analysis.status);
        pgp_text(&p, op->text);
        break;
    case OP_API_TOKEN_PUT:
        name = "w_api_token";
        pgp_text(&p, op->u.api.id);
        pgp_bytes(&p, op->u.api.hash, 32);
        pgp_text(&p, op->u.api.pid);
        pgp_text(&p, op->u.api.description);
        pgp_text(&p, op->u.api.scopes);
        pgp_int(&p, op->u.api.created_ms);
        break;
    case OP_API_TOKEN_REVOKE:
        name = "w_api_revoke";
        pgp_text(&p, op->u.api.id);
        pgp_text(&p, op->u.api.pid);
        break;
    case OP_ARENA:
        name = op->u.arena.swiss ? "w_swiss" : "w_arena";
        pgp_text(&p, op->u.arena.event);
        pgp_int(&p, op->u.arena.seq);
        pgp_text(&p, op->text);
        pgp_int(&p, op->u.arena.ms);
        break;
    case OP_CHAT:
        name = store_keyed_room(op->u.chat.room) ? "w_room" : "w_chat";
        pgp_text(&p, op->u.chat.gid);
        pgp_text(&p, op->u.chat.room);
        pgp_text(&p, op->u.chat.pid);
        pgp_text(&p, op->u.chat.name);
        pgp_text(&p, op->text);
        pgp_int(&p, op->u.chat.at_ms);
        break;
    case OP_BLOCK:
        name = op->u.block.on ? "w_block" : "w_unblock";
        pgp_text(&p, op->u.block.pid);
        pgp_text(&p, op->u.block.blocked);
        if (op->u.block.on)
            pgp_int(&p, op->u.block.at_ms);
        break;
    case OP_REPORT:
        name = "w_report";
        pgp_text(&p, op->u.report.reporter);
        pgp_text(&p, op->u.report.suspect);
        pgp_text(&p, op->u.report.reason);
        pgp_text(&p, op->u.report.text);
        pgp_int(&p, op->u.report.score);
        pgp_int(&p, op->u.report.at_ms);
        break;
    case OP_MODERATOR:
        name = "w_moderator";
        pgp_text(&p, op->u.role.pid);
        pgp_int(&p, op->u.role.on);
        break;
    case OP_MOD_ACTION:
        name = "w_mod_action";
        pgp_text(&p, op->u.mod.moderator);
        pgp_text(&p, op->u.mod.target);
        pgp_text(&p, op->u.mod.action);
        pgp_text(&p, op->u.mod.reason);
        pgp_text(&p, op->u.mod.text);
        pgp_int(&p, op->u.mod.until_ms);
        pgp_int(&p, op->u.mod.at_ms);
        pgp_text(&p, op->u.mod.game);
        pgp_text(&p, op->u.mod.room);
        pgp_int(&p, op->u.mod.line_ms);
        break;
    case OP_EPOCH:
        pgp_text(&p, op->u.take.gid);
        pgp_int(&p, op->epoch);
        return send_stmt(b, "w_take", &p, i, SENT_TAKE);
    default:
        return -1;
    }
    return send_stmt(b, name, &p, i, SENT_PLAIN);
}

static int send_meta(struct pg_be *b, const char *key, int64_t value)
{
    struct pgp p;

    pgp_init(&p);
    pgp_text(&p, key);
    pgp_int(&p, value);
    return send_stmt(b, "w_meta", &p, SIZE_MAX, SENT_PLAIN);
}

/* Waits until PQgetResult will not block: flushes what is left to send
 * and reads what comes, so that neither side waits on a full socket.
 * Once store_close waits and nothing came for STORE_PG_STOP_MS, gives
 * up. 0, or -1 when the connection is lost (or given up). */
static int wait_result(struct store *s, struct pg_be *b)
{
    int64_t quiet_since = sysclock_ms(CLOCK_MONOTONIC);

    for (;;) {
        int f = PQflush(b->w), rc;
        struct pollfd pfd;

        if (f < 0)
            return -1;
        if (!PQisBusy(b->w))
            return 0;
        pfd.fd = PQsocket(b->w);
        pfd.events = (short)(POLLIN | (f ? POLLOUT : 0));
        pfd.revents = 0;
        rc = poll(&pfd, 1, 100);
        if (rc < 0 && errno != EINTR)
            return -1;
        if (rc > 0 && (pfd.revents & (POLLIN | POLLERR | POLLHUP))) {
            if (!PQconsumeInput(b->w))
                return -1;
            quiet_since = sysclock_ms(CLOCK_MONOTONIC);
        } else if (rc == 0 && store__stopping(s) &&
                   sysclock_ms(CLOCK_MONOTONIC) - quiet_since >
                       STORE_PG_STOP_MS) {
            return -1;
        }
    }
}

/* The next result of the pipeline (NULL between two statements' results),
 * in *r. 0, or -1 when the connection is lost. */
static int next_result(struct store *s, struct pg_be *b, PGresult **r)
{
    if (wait_result(s, b) != 0)
        return -1;
    *r = PQgetResult(b->w);
    return (PQstatus(b->w) == CONNECTION_OK || *r) ? 0 : -1;
}

/* What reading an attempt's results found. */
struct outcome {
    bool lost;       /* the connection broke: the result is unknown */
    bool failed;     /* a statement failed: the transaction is aborted */
    size_t bad_sent; /* ... the first one's index in b->sent */
    char state[6];   /* its SQLSTATE ("" when libpq's own) */
    char why[256];
};

/* Reads one statement's result (and the NULL after it) for sent entry k. */
static void read_one(struct store *s, struct pg_be *b, struct op *const *ops,
                     size_t k, struct outcome *o, int64_t *t_commit)
{
    const struct sent *e = &b->sent[k];
    PGresult *r = NULL;
    ExecStatusType st;

    assert(k < b->n_sent);
    assert(e->what != SENT_TAKE || (ops && e->op != SIZE_MAX));
    if (e->what == SENT_COMMIT)
        *t_commit = sysclock_us(CLOCK_MONOTONIC);
    if (next_result(s, b, &r) != 0 || !r) {
        o->lost = true;
        PQclear(r);
        return;
    }
    st = PQresultStatus(r);
    if (st == PGRES_FATAL_ERROR && !o->failed) {
        const char *code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        o->failed = true;
        o->bad_sent = k;
        strcopy(o->state, sizeof o->state, code ? code : "");
        pgmigrate_message(b->w, r, o->why, sizeof o->why);
    } else if (st == PGRES_TUPLES_OK && e->what == SENT_TAKE &&
               PQntuples(r) == 1) {
        struct op *op = ops[e->op];
        op->fence = pg__col_int(r, 0, 0) > op->epoch;
    } else if (st == PGRES_COMMAND_OK && e->what == SENT_SWEEP) {
        b->swept += strtoll(PQcmdTuples(r), NULL, 10);
    } else if (st == PGRES_TUPLES_OK && e->what == SENT_PURGE &&
               PQntuples(r) == 1) {
        b->purged = true;
        b->purge_n = (size_t)pg__col_int(r, 0, 0);
        b->purge_last_ms = pg__col_int(r, 0, 1);
        pg__col_str(r, 0, 2, b->purge_last_pid, sizeof b->purge_last_pid);
        b->purge_kept = !PQgetisnull(r, 0, 3);
        b->purge_kept_ms = pg__col_int(r, 0, 3);
    } else if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK &&
               st != PGRES_PIPELINE_ABORTED && st != PGRES_FATAL_ERROR) {
        o->lost = true;
    }
    PQclear(r);
    if (o->lost)
        return;
    /* the NULL that ends this statement's results */
    if (next_result(s, b, &r) != 0) {
        o->lost = true;
        return;
    }
    if (r) { /* a second result: not what was sent */
        PQclear(r);
        o->lost = true;
    }
}

/* Reads the Sync's result. 0, or -1 when lost. */
static int read_sync(struct store *s, struct pg_be *b)
{
    PGresult *r = NULL;
    int ok = next_result(s, b, &r) == 0 && r &&
             PQresultStatus(r) == PGRES_PIPELINE_SYNC;

    PQclear(r);
    return ok ? 0 : -1;
}

/* Rolls back the aborted transaction the failed pipeline left. 0 or -1. */
static int roll_back(struct store *s, struct pg_be *b)
{
    struct outcome o;
    int64_t t;

    assert(b->w && b->piped); /* after a pipeline's failed statement */
    if (PQtransactionStatus(b->w) == PQTRANS_IDLE) /* COMMIT failed: over */
        return 0;
    memset(&o, 0, sizeof o);
    b->n_sent = 0;
    if (send_sql(b, "ROLLBACK", SENT_PLAIN) != 0 || !PQpipelineSync(b->w))
        return -1;
    read_one(s, b, NULL, 0, &o, &t);
    return o.lost || o.failed || read_sync(s, b) != 0 ? -1 : 0;
}

/* The connection's outcome unknown: dropped, to be opened again. */
static void w_lost(struct pg_be *b)
{
    PQfinish(b->w);
    b->w = NULL;
    b->piped = false;
}

/* After a lost connection, on a new one (not yet in pipeline mode): did
 * the attempt with marker b->unknown commit? 1 yes (and the takes of ops
 * are settled from game_epochs), 0 no, -1 cannot tell (a read failed). */
static int resolve(struct store *s, struct pg_be *b, struct op *const *ops,
                   size_t n)
{
    const char *key = b->mark_key;
    PGresult *r;
    char msg[256];
    int committed;

    /* on a new connection, before its pipeline: an outcome to find */
    assert(b->w && !b->piped && b->unknown);
    r = PQexecPrepared(b->w, "w_meta_get", 1, &key, NULL, NULL, 0);

    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        store__commit_failed(s, "08006",
                             pgmigrate_message(b->w, r, msg, sizeof msg));
        PQclear(r);
        return -1;
    }
    committed = PQntuples(r) == 1 && pg__col_int(r, 0, 0) == b->unknown;
    PQclear(r);
    for (size_t i = 0; committed && i < n; i++) {
        const char *gid = ops[i]->u.take.gid;
        if (ops[i]->kind != OP_EPOCH || ops[i]->dropped)
            continue;
        r = PQexecPrepared(b->w, "w_epoch", 1, &gid, NULL, NULL, 0);
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            PQclear(r);
            return -1;
        }
        ops[i]->fence = PQntuples(r) == 1 &&
                        pg__col_int(r, 0, 0) > ops[i]->epoch;
        PQclear(r);
    }
    log_warn("event=store_commit_resolved committed=%s",
             committed ? "yes" : "no");
    atomic_fetch_add(&s->pg_resolved[committed], 1);
    return committed;
}

/* The connection ready for a batch: opened, the outcome of a lost attempt
 * of this batch resolved, in pipeline mode. 1 ready, 0 the batch had
 * committed after all (*a filled), -1 failed. */
static int w_ready(struct store *s, struct pg_be *b, struct op *const *ops,
                   size_t n, struct store_attempt *a)
{
    if (!b->w || PQstatus(b->w) != CONNECTION_OK) {
        if (w_reconnect(s, b) != 0)
            return -1;
    }
    if (b->unknown && !b->piped) {
        int done = resolve(s, b, ops, n);
        if (done < 0) {
            w_lost(b);
            return -1;
        }
        b->unknown = 0;
        if (done == 1) {
            a->t_begin = a->t_commit = sysclock_us(CLOCK_MONOTONIC);
            return 0;
        }
    }
    if (!b->piped) {
        if (PQsetnonblocking(b->w, 1) != 0 || !PQenterPipelineMode(b->w)) {
            store__commit_failed(s, "08006", PQerrorMessage(b->w));
            w_lost(b);
            return -1;
        }
        b->piped = true;
    }
    return 1;
}

/* What an attempt read and the transaction made durable. */
static void settle(struct store *s, struct pg_be *b)
{
    s->swept += (uint64_t)b->swept;
    if (b->purged) {
        if (b->purge_kept)
            store__purge_kept(s, b->purge_kept_ms);
        store__purge_advance(s, b->purge_n, b->purge_last_ms,
                             b->purge_last_pid);
    }
}

/* The backend's commit (the top of this file). */
enum store_batch pg__commit(struct store *s, struct op *const *ops, size_t n,
                            int64_t beat_ms, struct store_attempt *a)
{
    struct pg_be *b = s->be_state;
    struct outcome o;
    int64_t marker;
    int ready;

    assert(store__on_writer(s) && (ops || n == 0) && a);
    if (a->attempt == 0)
        b->unknown = 0; /* a lost batch given up at close: no longer ours */
    ready = w_ready(s, b, ops, n, a);
    if (ready <= 0)
        return ready == 0 ? STORE_BATCH_COMMITTED : STORE_BATCH_FAILED;
    assert(b->w && b->piped && !b->unknown); /* ready for a new attempt */
    b->n_sent = 0;
    b->swept = 0;
    b->purged = false;
    marker = (int64_t)(b->mark_base + ++b->mark_n);
    /* From the first byte sent, a loss leaves the outcome unknown (libpq
     * may flush any part, the COMMIT's among them, before the Sync). */
    b->unknown = marker;
    a->t_begin = sysclock_us(CLOCK_MONOTONIC);
    if (send_sql(b, "BEGIN ISOLATION LEVEL READ COMMITTED", SENT_PLAIN) !=
            0 ||
        send_meta(b, b->mark_key, marker) != 0)
        goto lost;
    for (size_t i = 0; i < n; i++)
        if (!ops[i]->dropped && send_op(s, b, ops[i], i) != 0)
            goto lost;
    if ((beat_ms && send_meta(b, b->beat_key, beat_ms) != 0) ||
        send_sql(b, "COMMIT", SENT_COMMIT) != 0 || !PQpipelineSync(b->w))
        goto lost;
    memset(&o, 0, sizeof o);
    a->t_commit = a->t_begin;
    for (size_t k = 0; k < b->n_sent && !o.lost; k++)
        read_one(s, b, ops, k, &o, &a->t_commit);
    if (!o.lost && read_sync(s, b) != 0)
        o.lost = true;
    if (o.failed && o.state[0]) {
        /* the server refused a statement: nothing of it committed */
        const struct sent *e = &b->sent[o.bad_sent];
        b->unknown = 0;
        if (o.lost || roll_back(s, b) != 0)
            w_lost(b);
        if (e->op != SIZE_MAX &&
            !strcmp(o.state, PGMIGRATE_SQLSTATE_FENCED)) {
            a->bad = e->op;
            strcopy(a->why, sizeof a->why, o.why);
            return STORE_BATCH_FENCED;
        }
        if (e->op != SIZE_MAX &&
            (!strncmp(o.state, "22", 2) || !strncmp(o.state, "23", 2))) {
            a->bad = e->op;
            strcopy(a->why, sizeof a->why, o.why);
            return STORE_BATCH_REFUSED;
        }
        store__commit_failed(s, o.state, o.why);
        return STORE_BATCH_FAILED;
    }
    if (o.lost || o.failed) {
        store__commit_failed(s, "08006",
                             o.failed ? o.why : PQerrorMessage(b->w));
        w_lost(b); /* b->unknown stays: the next attempt resolves it */
        return STORE_BATCH_FAILED;
    }
    b->unknown = 0;
    settle(s, b);
    return STORE_BATCH_COMMITTED;
lost:
    store__commit_failed(s, "08006", PQerrorMessage(b->w));
    w_lost(b); /* b->unknown stays: the next attempt resolves it */
    return STORE_BATCH_FAILED;
}
