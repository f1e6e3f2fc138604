/*
 * sqlite_write.c - the SQLite backend's writes (sqlite_internal.h): a
 * batch of ops in one transaction, and the journal's sweep. Writer
 * thread.
 *
 * Journal. A move is one row appended to `journal` (migration 0007),
 * whose only key is its integer seq, so the moves of one transaction
 * share the table's last page: a commit writes about one page to the
 * WAL whatever the number of games in play, where a table keyed by
 * (gid, ply) took a page per move and the checkpoint wrote each again.
 * The end of a game copies its moves, from the end op, into `moves`
 * (finished games, keyed by game). The journal rows of ended games are
 * deleted by sweep_step, a step of a few hundred rows in key order in
 * the transactions that journal moves, so a pass over the journal costs
 * two rows examined per move written. Restore reads it in one sorted
 * pass (read_journal).
 *
 * A batch is one BEGIN IMMEDIATE ... COMMIT; an op that violates a
 * constraint is undone alone (SQLite's statement rollback, or the op's
 * savepoint) and reported to the core (store__op_refused), and the
 * transaction goes on. A take of an epoch (OP_EPOCH) writes nothing: one
 * node, nobody to fence.
 */
#include "store/sqlite/sqlite_internal.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "strcopy.h"
#include "sysclock.h"

/*
 * STORE_SWEEP_ROWS / STORE_SWEEP_MAX / STORE_SWEEP_PER_MOVE: the journal's
 * sweep (sweep_step): the fewest rows a step examines, the most, and the
 * budget each journaled move adds.
 */
#define STORE_SWEEP_ROWS 64
#define STORE_SWEEP_MAX 256
#define STORE_SWEEP_PER_MOVE 2

/* Binds text, or NULL when the text is empty (nullable columns). */
static int bind_text_or_null(sqlite3_stmt *st, int i, const char *v)
{
    if (!v || !*v)
        return sqlite3_bind_null(st, i);
    return sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
}

static int bind_ms_or_null(sqlite3_stmt *st, int i, int64_t v)
{
    return v ? sqlite3_bind_int64(st, i, v) : sqlite3_bind_null(st, i);
}

/* Binds a REAL, or NULL when `set` is false. */
static int bind_real_if(sqlite3_stmt *st, int i, bool set, double v)
{
    return set ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}

/* Binds the STORE_GAME_COLS parameters ?1..?32. Returns SQLITE_OK (0), or
 * non-zero when any bind failed (the codes are OR-ed together). */
static int bind_game(sqlite3_stmt *st, const struct store_game *g,
                     const char *status)
{
    int rc = SQLITE_OK;

    rc |= sqlite3_bind_text(st, 1, g->gid, -1, SQLITE_STATIC);
    rc |= bind_text_or_null(st, 2, g->white_pid);
    rc |= sqlite3_bind_text(st, 3, g->white_name, -1, SQLITE_STATIC);
    rc |= bind_text_or_null(st, 4, g->black_pid);
    rc |= sqlite3_bind_text(st, 5, g->black_name, -1, SQLITE_STATIC);
    rc |= bind_text_or_null(st, 6, g->creator_pid);
    rc |= sqlite3_bind_int(st, 7, g->clock.per_move);
    rc |= sqlite3_bind_int(st, 8, g->clock.initial_s);
    rc |= sqlite3_bind_int(st, 9, g->clock.increment_s);
    rc |= sqlite3_bind_int(st, 10, g->clock.per_move_s);
    rc |= sqlite3_bind_text(st, 11, g->initial_fen, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_text(st, 12, status, -1, SQLITE_STATIC);
    rc |= bind_text_or_null(st, 13, g->result);
    rc |= bind_text_or_null(st, 14, g->reason);
    rc |= bind_text_or_null(st, 15, g->final_fen);
    rc |= bind_text_or_null(st, 16, g->draw_offer);
    rc |= sqlite3_bind_int64(st, 17, g->created_ms);
    rc |= bind_ms_or_null(st, 18, g->started_ms);
    rc |= bind_ms_or_null(st, 19, g->ended_ms);
    rc |= sqlite3_bind_int64(st, 20, g->white_ms);
    rc |= sqlite3_bind_int64(st, 21, g->black_ms);
    rc |= sqlite3_bind_int(st, 22, g->rated ? 1 : 0);
    /* the rating changes: a rated game that ended */
    bool rated_end = g->rated && g->result[0];
    for (int c = 0; c < 2; c++) {
        rc |= bind_real_if(st, 23 + 2 * c, rated_end, g->rating_before[c]);
        rc |= bind_real_if(st, 24 + 2 * c, rated_end, g->rating_after[c]);
        rc |= bind_real_if(st, 27 + c, rated_end, g->rd_before[c]);
        rc |= sqlite3_bind_int64(st, 29 + c, g->lag_ms[c]);
    }
    rc |= bind_text_or_null(st, 31, g->eco);
    rc |= bind_text_or_null(st, 32, g->opening);
    return rc;
}

static int cmp_pid(const void *x, const void *y)
{
    return strcmp(x, y);
}

/*
 * One pass of the guest purge, inside the open transaction: examines up
 * to STORE_PURGE_BATCH players created before op's before_ms, after the
 * last pass's key, and deletes each that no game names (as a seat or as
 * creator) and that is not in op's keep list. SQLITE_DONE, or the failing
 * step's code.
 */
static int apply_purge(struct store *s, const struct op *op)
{
    struct sqlite_be *b = s->be_state;
    struct row {
        char pid[33];
        int64_t ms;
    } *rows = malloc(STORE_PURGE_BATCH * sizeof *rows);
    sqlite3_stmt *st = b->w_purge_scan;
    size_t n = 0;
    int rc;

    if (!rows)
        return SQLITE_NOMEM;
    sqlite3_bind_int64(st, 1, s->purge_ms);
    sqlite3_bind_text(st, 2, s->purge_pid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, op->u.purge.before_ms);
    sqlite3_bind_int(st, 4, STORE_PURGE_BATCH);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < STORE_PURGE_BATCH) {
        sq_col_str(st, 0, rows[n].pid, sizeof rows[n].pid);
        rows[n++].ms = sqlite3_column_int64(st, 1);
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        free(rows);
        return rc;
    }
    for (size_t i = 0; i < n; i++) {
        if (op->keep && bsearch(rows[i].pid, op->keep, op->u.purge.n_keep,
                                sizeof *op->keep, cmp_pid)) {
            store__purge_kept(s, rows[i].ms);
            continue;
        }
        sqlite3_bind_text(b->w_purge_del, 1, rows[i].pid, -1, SQLITE_STATIC);
        rc = sq_step_once(b->w_purge_del);
        sqlite3_clear_bindings(b->w_purge_del);
        if (rc != SQLITE_DONE) {
            free(rows);
            return rc;
        }
    }
    store__purge_advance(s, n, n ? rows[n - 1].ms : 0,
                         n ? rows[n - 1].pid : "");
    free(rows);
    return SQLITE_DONE;
}

/* Steps st (its parameters bound) and clears it: the step's code. */
static int step_clear(sqlite3_stmt *st)
{
    int rc = sq_step_once(st);

    sqlite3_clear_bindings(st);
    return rc;
}

/* Registers an account (store_register) inside the open transaction, in
 * a savepoint: all of it or none. SQLITE_DONE, or the failing code (the
 * player row missing is SQLITE_CONSTRAINT, as a foreign key would be). */
static int apply_register(struct store *s, const struct op *op)
{
    struct sqlite_be *b = s->be_state;
    const struct store_account *a = &op->u.reg.a;
    int rc;

    if ((rc = sq_step_once(b->w_savepoint)) != SQLITE_DONE)
        return rc;
    sqlite3_bind_text(b->w_account, 1, a->pid, -1, SQLITE_STATIC);
    sqlite3_bind_text(b->w_account, 2, a->username, -1, SQLITE_STATIC);
    sqlite3_bind_text(b->w_account, 3, a->password_hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(b->w_account, 4, a->created_ms);
    if ((rc = step_clear(b->w_account)) != SQLITE_DONE)
        goto undo;
    sqlite3_bind_text(b->w_player_account, 1, a->pid, -1, SQLITE_STATIC);
    sqlite3_bind_text(b->w_player_account, 2, a->username, -1, SQLITE_STATIC);
    sqlite3_bind_blob(b->w_player_account, 3, op->u.reg.dead, 32,
                      SQLITE_STATIC);
    if ((rc = step_clear(b->w_player_account)) != SQLITE_DONE)
        goto undo;
    if (sqlite3_changes(b->w) != 1) {
        strcopy(b->op_err, sizeof b->op_err, "no such player");
        rc = SQLITE_CONSTRAINT;
        goto undo;
    }
    sqlite3_bind_blob(b->w_token_put, 1, op->u.reg.token, 32, SQLITE_STATIC);
    sqlite3_bind_text(b->w_token_put, 2, a->pid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(b->w_token_put, 3, a->created_ms);
    if ((rc = step_clear(b->w_token_put)) != SQLITE_DONE)
        goto undo;
    return sq_step_once(b->w_release);
undo:
    if (!b->op_err[0])
        strcopy(b->op_err, sizeof b->op_err, sqlite3_errmsg(b->w));
    sq_step_once(b->w_rollback_to);
    sq_step_once(b->w_release);
    return rc;
}

/* A rating row and its history point (the game gid ended at the row's
 * last_ms) inside the open transaction: SQLITE_DONE or the failing code. */
static int apply_rating(struct sqlite_be *b, const struct store_rating *r,
                        const char *gid)
{
    sqlite3_stmt *st = b->w_rating;
    int rc;

    sqlite3_bind_text(st, 1, r->pid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, r->category, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 3, r->rating);
    sqlite3_bind_double(st, 4, r->rd);
    sqlite3_bind_double(st, 5, r->vol);
    sqlite3_bind_int(st, 6, r->games);
    sqlite3_bind_int(st, 7, r->wins);
    sqlite3_bind_int(st, 8, r->draws);
    sqlite3_bind_int(st, 9, r->losses);
    sqlite3_bind_int64(st, 10, r->last_ms);
    if ((rc = step_clear(st)) != SQLITE_DONE)
        return rc;
    st = b->w_rating_point;
    sqlite3_bind_text(st, 1, r->pid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, r->category, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, r->last_ms);
    sqlite3_bind_text(st, 4, gid, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 5, r->rating);
    sqlite3_bind_double(st, 6, r->rd);
    return step_clear(st);
}

/* Binds gid and m to a journal or moves insert (same columns). */
static int bind_move(sqlite3_stmt *st, const char *gid,
                     const struct store_move *m)
{
    int rc = SQLITE_OK;

    rc |= sqlite3_bind_text(st, 1, gid, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_int(st, 2, m->ply);
    rc |= sqlite3_bind_text(st, 3, m->uci, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_text(st, 4, m->san, -1, SQLITE_STATIC);
    rc |= sqlite3_bind_int64(st, 5, m->white_ms);
    rc |= sqlite3_bind_int64(st, 6, m->black_ms);
    rc |= sqlite3_bind_int64(st, 7, m->wall_ms);
    rc |= sqlite3_bind_int64(st, 8, m->lag_ms);
    return rc;
}

/* The end of a game (store_finish_game) inside the open transaction, in
 * a savepoint: its row, its moves and, for a rated game, both ratings
 * and both history points, or none of them. SQLITE_DONE, or the failing
 * code. */
static int apply_finish(struct store *s, const struct op *op)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->w_finish;
    int rc;

    if ((rc = sq_step_once(b->w_savepoint)) != SQLITE_DONE)
        return rc;
    if (bind_game(st, &op->u.game, "ended") != SQLITE_OK ||
        sqlite3_bind_text(st, 33, op->pgn, -1, SQLITE_STATIC) != SQLITE_OK) {
        sqlite3_clear_bindings(st);
        rc = SQLITE_RANGE;
        goto undo;
    }
    if ((rc = step_clear(st)) != SQLITE_DONE)
        goto undo;
    for (size_t i = 0; i < op->n_moves; i++) {
        if (bind_move(b->w_final_move, op->u.game.gid, &op->moves[i]) !=
            SQLITE_OK) {
            sqlite3_clear_bindings(b->w_final_move);
            rc = SQLITE_RANGE;
            goto undo;
        }
        if ((rc = step_clear(b->w_final_move)) != SQLITE_DONE)
            goto undo;
    }
    for (int c = 0; op->ratings && c < 2; c++)
        if ((rc = apply_rating(b, &op->ratings[c], op->u.game.gid)) !=
            SQLITE_DONE)
            goto undo;
    return sq_step_once(b->w_release);
undo:
    strcopy(b->op_err, sizeof b->op_err, sqlite3_errmsg(b->w));
    sq_step_once(b->w_rollback_to);
    sq_step_once(b->w_release);
    return rc;
}

/* Applies one op inside the open transaction: the step's result code. */
static int apply_op(struct store *s, const struct op *op)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st;
    int rc = SQLITE_OK;

    assert(!op->dropped && (unsigned)op->kind < OP_KINDS);
    switch (op->kind) {
    case OP_PURGE:
        return apply_purge(s, op);
    case OP_REGISTER:
        return apply_register(s, op);
    case OP_TOKEN_PUT:
        st = b->w_token_put;
        rc |= sqlite3_bind_blob(st, 1, op->u.token.hash, 32, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 2, op->u.token.pid, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 3, op->u.token.ms);
        break;
    case OP_TOKEN_TOUCH:
        st = b->w_token_touch;
        rc |= sqlite3_bind_blob(st, 1, op->u.token.hash, 32, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 2, op->u.token.ms);
        break;
    case OP_TOKEN_REVOKE:
        st = b->w_token_revoke;
        rc |= sqlite3_bind_blob(st, 1, op->u.token.hash, 32, SQLITE_STATIC);
        break;
    case OP_TOKENS_REVOKE:
    case OP_BOT:
        st = op->kind == OP_BOT ? b->w_bot : b->w_tokens_revoke;
        rc |= sqlite3_bind_text(st, 1, op->u.token.pid, -1, SQLITE_STATIC);
        break;
    case OP_TOKENS_EXPIRE:
        st = b->w_tokens_expire;
        rc |= sqlite3_bind_int64(st, 1, op->u.token.ms);
        break;
    case OP_SETTINGS:
    case OP_PLAYBAN:
        st = op->kind == OP_SETTINGS ? b->w_settings : b->w_playban;
        rc |= sqlite3_bind_text(st, 1, op->u.settings.pid, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 2, op->text, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 3, op->u.settings.ms);
        break;
    case OP_ANALYSIS:
        st = b->w_analysis;
        rc |= sqlite3_bind_text(st, 1, op->u.analysis.gid, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 2, op->u.analysis.pid, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 3, op->u.analysis.requested_ms);
        rc |= sqlite3_bind_text(st, 4, op->u.analysis.status, -1,
                                SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 5, op->text, -1, SQLITE_STATIC);
        break;
    case OP_ARENA:
        st = op->u.arena.swiss ? b->w_swiss : b->w_arena;
        rc |= sqlite3_bind_text(st, 1, op->u.arena.event, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 2, op->u.arena.seq);
        rc |= sqlite3_bind_text(st, 3, op->text, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 4, op->u.arena.ms);
        break;
    case OP_CHAT:
        st = store_keyed_room(op->u.chat.room) ? b->w_room : b->w_chat;
        rc |= sqlite3_bind_text(st, 1, op->u.chat.gid, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 2, op->u.chat.room, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 3, op->u.chat.pid, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 4, op->u.chat.name, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 5, op->text, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 6, op->u.chat.at_ms);
        break;
    case OP_PLAYER:
        st = b->w_player;
        rc |= sqlite3_bind_text(st, 1, op->u.player.pid, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 2, op->u.player.name, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_blob(st, 3, op->u.player.token_hash, 32,
                                SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 4, op->u.player.created_ms);
        break;
    case OP_GAME:
        st = b->w_game;
        rc |= bind_game(st, &op->u.game, op->u.game.status);
        break;
    case OP_FINISH:
        return apply_finish(s, op);
    case OP_MOVE:
        st = b->w_move;
        rc |= bind_move(st, op->u.move.gid, &op->u.move.m);
        break;
    case OP_API_TOKEN_PUT:
        st = b->w_api_token;
        rc |= sqlite3_bind_text(st, 1, op->u.api.id, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_blob(st, 2, op->u.api.hash, 32, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 3, op->u.api.pid, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 4, op->u.api.description, -1,
                                SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 5, op->u.api.scopes, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 6, op->u.api.created_ms);
        break;
    case OP_API_TOKEN_REVOKE:
        st = b->w_api_revoke;
        rc |= sqlite3_bind_text(st, 1, op->u.api.id, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 2, op->u.api.pid, -1, SQLITE_STATIC);
        break;
    case OP_BLOCK:
        st = op->u.block.on ? b->w_block : b->w_unblock;
        rc |= sqlite3_bind_text(st, 1, op->u.block.pid, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 2, op->u.block.blocked, -1,
                                SQLITE_STATIC);
        if (op->u.block.on)
            rc |= sqlite3_bind_int64(st, 3, op->u.block.at_ms);
        break;
    case OP_REPORT:
        st = b->w_report;
        rc |= sqlite3_bind_text(st, 1, op->u.report.reporter, -1,
                                SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 2, op->u.report.suspect, -1,
                                SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 3, op->u.report.reason, -1,
                                SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 4, op->u.report.text, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int(st, 5, op->u.report.score);
        rc |= sqlite3_bind_int64(st, 6, op->u.report.at_ms);
        break;
    case OP_MODERATOR:
        st = b->w_moderator;
        rc |= sqlite3_bind_text(st, 1, op->u.role.pid, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int(st, 2, op->u.role.on);
        break;
    case OP_MOD_ACTION:
        st = b->w_mod_action;
        rc |= sqlite3_bind_text(st, 1, op->u.mod.moderator, -1,
                                SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 2, op->u.mod.target, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 3, op->u.mod.action, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 4, op->u.mod.reason, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 5, op->u.mod.text, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 6, op->u.mod.until_ms);
        rc |= sqlite3_bind_int64(st, 7, op->u.mod.at_ms);
        rc |= sqlite3_bind_text(st, 8, op->u.mod.game, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 9, op->u.mod.room, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 10, op->u.mod.line_ms);
        break;
    case OP_EPOCH: /* one node: nobody to fence */
        return SQLITE_DONE;
    default:
        return SQLITE_MISUSE;
    }
    if (rc != SQLITE_OK) {
        sqlite3_clear_bindings(st);
        return SQLITE_RANGE;
    }
    rc = sq_step_once(st);
    sqlite3_clear_bindings(st); /* drop the pointers into op */
    return rc;
}

/* True for an error that belongs to the op itself, not the transaction:
 * retrying the same op could never succeed. */
static bool op_error(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_TOOBIG:
    case SQLITE_RANGE:
        return true;
    default:
        return false;
    }
}

/*
 * One step of the journal's sweep in the open transaction, when the
 * budget allows: deletes the rows of ended games among the next rows
 * after sweep_from, starting over at the first row once it passes the
 * last. The budget grows by STORE_SWEEP_PER_MOVE rows a journaled move
 * and STORE_SWEEP_ROWS a heartbeat, so a pass over the journal takes at
 * most half as long as writing it did. A step examines at most
 * STORE_SWEEP_MAX rows plus the budget of the `moves` moves the
 * transaction journals: a small transaction's step holds the writer for
 * well under a millisecond, and when the disk is slow and transactions
 * carry hundreds of moves each the sweep still keeps pace with them.
 * *from and *rows are what the sweep's state becomes if the transaction
 * commits; *swept counts the rows deleted. SQLITE_DONE, or the failing
 * code.
 */
static int sweep_step(struct sqlite_be *b, int64_t moves, int64_t *from,
                      int64_t *rows, int64_t *swept)
{
    int64_t k, to, max = STORE_SWEEP_MAX + STORE_SWEEP_PER_MOVE * moves;
    int rc;

    if (*rows < STORE_SWEEP_ROWS)
        return SQLITE_DONE;
    k = *rows < max ? *rows : max;
    to = *from + k;
    sqlite3_bind_int64(b->w_sweep, 1, *from);
    sqlite3_bind_int64(b->w_sweep, 2, to);
    if ((rc = sq_step_once(b->w_sweep)) != SQLITE_DONE)
        return rc;
    *swept += sqlite3_changes(b->w);
    *from = to >= b->journal_end ? 0 : to;
    *rows -= k;
    return SQLITE_DONE;
}

/* The backend's commit: one transaction of every op of the batch not
 * dropped plus, when beat_ms is not 0, the heartbeat, and a step of the
 * journal's sweep when it is due. An op the schema refuses is undone
 * alone and reported (store__op_refused); anything else rolls it all
 * back. */
enum store_batch sq__commit(struct store *s, struct op *const *ops, size_t n,
                            int64_t beat_ms, struct store_attempt *a)
{
    struct sqlite_be *b = s->be_state;
    char code[16];
    int rc;
    int64_t from = b->sweep_from, rows = b->sweep_rows, swept = 0, moves = 0;

    assert(store__on_writer(s) && (ops || n == 0) && a);
    a->t_begin = sysclock_us(CLOCK_MONOTONIC);
    rc = sq_step_once(b->w_begin);

    if (rc != SQLITE_DONE)
        goto fail;
    if (beat_ms)
        rows += STORE_SWEEP_ROWS;
    for (size_t i = 0; i < n; i++) {
        if (ops[i]->dropped)
            continue;
        rc = apply_op(s, ops[i]);
        if (rc == SQLITE_DONE && ops[i]->kind == OP_MOVE) {
            b->journal_end = sqlite3_last_insert_rowid(b->w);
            rows += STORE_SWEEP_PER_MOVE;
            moves++;
        }
        if (rc == SQLITE_DONE)
            continue;
        if (!op_error(rc))
            goto fail;
        store__op_refused(s, ops[i],
                          b->op_err[0] ? b->op_err : sqlite3_errmsg(b->w));
        b->op_err[0] = '\0';
    }
    if (beat_ms) {
        sqlite3_bind_int64(b->w_beat, 1, beat_ms);
        if ((rc = sq_step_once(b->w_beat)) != SQLITE_DONE)
            goto fail;
    }
    if ((rc = sweep_step(b, moves, &from, &rows, &swept)) != SQLITE_DONE)
        goto fail;
    a->t_commit = sysclock_us(CLOCK_MONOTONIC);
    if ((rc = sq_step_once(b->w_commit)) != SQLITE_DONE)
        goto fail;
    assert(sqlite3_get_autocommit(b->w)); /* the transaction is over */
    b->sweep_from = from;
    b->sweep_rows = rows;
    s->swept += (uint64_t)swept;
    return STORE_BATCH_COMMITTED;
fail:
    snprintf(code, sizeof code, "%d", rc);
    store__commit_failed(s, code, sqlite3_errmsg(b->w));
    if (!sqlite3_get_autocommit(b->w))
        sq_step_once(b->w_rollback);
    return STORE_BATCH_FAILED;
}
