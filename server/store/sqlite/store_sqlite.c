/*
 * store_sqlite.c - the store's SQLite backend (store_internal.h): its
 * connections and statements, migrations, a batch in one transaction,
 * the WAL and its checkpointer thread, the reads, the online backup.
 *
 * Three connections to one WAL database:
 * - `w`, the writer's. The loop thread uses it only inside store_open
 *   (migrations, heartbeat read) and store_close; between the two only the
 *   writer thread touches it (handed over by pthread_create/pthread_join).
 * - `r`, read-only (SQLITE_OPEN_READONLY), used by the loop thread for every
 *   read. WAL lets it read while the writer commits.
 * - `c`, the checkpointer thread's. Only this connection checkpoints. The
 *   writer's automatic checkpoint is off (its wal hook, on_wal_commit,
 *   replaces it): it ran inside the committing transaction, copied up to
 *   1000 pages and synced the database file, tens of milliseconds during
 *   which no move could be committed.
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
#include "store/store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/errtext.h"
#include "lib/log.h"
#include "migrations.h"
#include "strcopy.h"
#include "sysclock.h"

/*
 * Tunables.
 * STORE_CHECKPOINT_MS / STORE_WAL_CAP_FRAMES: the checkpointer's period
 * (1 s: each pass ends with an fdatasync of the WAL and of the database,
 * and on a slow disk the writer's WAL appends stall while the file
 * system commits them, so fewer passes mean fewer stalled commits; at
 * 200 ms, five a second, the open-loop p99 was 9-44 ms on such a disk,
 * at 1 s 3.3-12.5 ms, docs/performance.md), and
 * the WAL size (frames of 4 KB pages, 64 MB) at which the writer waits for
 * it (see the top of the file); STORE_WAL_SOFT_FRAMES, the size from which
 * its passes follow each other without a pause; STORE_WAL_PARK_FRAMES,
 * how far below the cap the writer begins to wait. The bigger the cap, the
 * rarer the writer's wait (once per 16 MB of WAL with 1 KB pages), at
 * the cost of the WAL file's size on disk.
 * STORE_SWEEP_ROWS / STORE_SWEEP_MAX / STORE_SWEEP_PER_MOVE: the journal's
 * sweep (sweep_step): the fewest rows a step examines, the most, and the
 * budget each journaled move adds.
 */
#define STORE_CHECKPOINT_MS 1000
#define STORE_SWEEP_ROWS 64
#define STORE_SWEEP_MAX 256
#define STORE_SWEEP_PER_MOVE 2
#define STORE_WAL_SOFT_FRAMES (STORE_WAL_CAP_FRAMES / 4 * 3)
#define STORE_WAL_PARK_FRAMES (STORE_WAL_CAP_FRAMES / 16)
#define STR_(x) #x
#define STR(x) STR_(x)

/* The backend's state (s->be_state). */
struct sqlite_be {
    sqlite3 *w, *r, *c;
    char *path; /* the database file, owned */

    /* writer statements */
    sqlite3_stmt *w_begin, *w_commit, *w_rollback;
    sqlite3_stmt *w_player, *w_game, *w_finish, *w_move, *w_beat;
    sqlite3_stmt *w_final_move, *w_sweep;
    sqlite3_stmt *w_purge_scan, *w_purge_del;
    sqlite3_stmt *w_savepoint, *w_release, *w_rollback_to;
    sqlite3_stmt *w_account, *w_player_account, *w_token_put;
    sqlite3_stmt *w_token_touch, *w_token_revoke, *w_tokens_revoke;
    sqlite3_stmt *w_tokens_expire, *w_rating, *w_rating_point;
    sqlite3_stmt *w_settings;
    /* reader statements */
    sqlite3_stmt *r_begin, *r_end;
    sqlite3_stmt *r_token, *r_player, *r_game, *r_moves, *r_live;
    sqlite3_stmt *r_journal_game, *r_journal;
    sqlite3_stmt *r_ended, *r_list, *r_account, *r_account_token;
    sqlite3_stmt *r_rating, *r_ratings, *r_is_account, *r_history, *r_board;
    sqlite3_stmt *r_settings, *r_seat_live, *r_live_gids;

    pthread_t ckpt_thread;
    bool ckpt_thread_started;
    bool ckpt_cv_made;
    pthread_cond_t ckpt_cv; /* wakes the checkpointer: stop, hold, or
                                 the writer waiting for a pass */
    char op_err[128];       /* why the last op undone in a savepoint failed
                         ("": none; writer thread only) */
    int wal_frames;         /* frames in the WAL after the writer's last
                              commit (its wal hook; writer thread only) */
    int wait_at;            /* the writer waits for a checkpoint pass when
                               wal_frames reaches this (writer thread only) */
    /* The journal's sweep (writer thread only): the next step examines
     * the rows after sweep_from; journal_end is the highest seq written;
     * sweep_rows, the rows the next step may examine. */
    int64_t sweep_from, journal_end, sweep_rows;
    /* checkpointer and writer, guarded by s->mu */
    bool ckpt_held;      /* store_hold_checkpoints */
    bool ckpt_wanted;    /* the writer waits for a pass */
    bool ckpt_park;      /* the writer will wait for the next pass:
                                none of the checkpointer's own (eager)
                                until it asks */
    uint64_t ckpt_begun; /* passes begun */
    uint64_t ckpt_ended; /* passes ended */
    uint64_t commit_gen; /* transactions committed (the wal hook) */
    uint64_t gen_begun;  /* commit_gen when the last pass began */
    uint64_t gen_ended;  /* ... when the last pass that ended began */
};

/* ---- small helpers ---------------------------------------------------- */

/* Steps a statement that returns no rows and resets it: the step's code. */
static int step_once(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);

    sqlite3_reset(st);
    return rc;
}

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

/* Copies a text column into a fixed array ("" for NULL), truncating. */
static void col_str(sqlite3_stmt *st, int i, char *dst, size_t len)
{
    strcopy(dst, len, (const char *)sqlite3_column_text(st, i));
}

/* ---- statements ------------------------------------------------------- */

#define GAME_PARAMS                                                      \
    "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, " \
    "?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28"

/* A player's finished, non-aborted games as seen from one seat, strictly
 * older than (?2, ?3) in (ended_ms, gid) order; the seat's partial index
 * serves it in that order. */
#define LIST_SEAT(seat, other)                                       \
    "SELECT " STORE_GAME_COLS " FROM games WHERE " seat " = ?1 AND " \
    "status = 'ended' AND result <> '*' AND "                        \
    "(ended_ms, gid) < (?2, ?3)" other

struct stmt_def {
    size_t offset; /* of the sqlite3_stmt * in struct store */
    const char *sql;
};

#define DEF(field, sql)                        \
    {                                          \
        offsetof(struct sqlite_be, field), sql \
    }

static const struct stmt_def writer_stmts[] = {
    DEF(w_begin, "BEGIN IMMEDIATE"),
    DEF(w_commit, "COMMIT"),
    DEF(w_rollback, "ROLLBACK"),
    DEF(w_player, "INSERT INTO players (pid, name, token_hash, created_ms) "
                  "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (pid) DO UPDATE SET "
                  "name = excluded.name, token_hash = excluded.token_hash, "
                  "created_ms = excluded.created_ms"),
    DEF(w_game, "INSERT INTO games (" STORE_GAME_COLS ") VALUES (" GAME_PARAMS
                ") ON CONFLICT (gid) DO UPDATE SET " STORE_GAME_UPDATE),
    DEF(w_finish,
        "INSERT INTO games (" STORE_GAME_COLS ", pgn) VALUES (" GAME_PARAMS
        ", ?29) ON CONFLICT (gid) DO UPDATE SET " STORE_GAME_UPDATE
        ", pgn = excluded.pgn"),
    DEF(w_move, "INSERT INTO journal (gid, " STORE_MOVE_COLS ") "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
    DEF(w_final_move,
        "INSERT OR REPLACE INTO moves (gid, " STORE_MOVE_COLS ") "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
    /* the journal rows in (?1, ?2] of games that ended (or are gone) */
    DEF(w_sweep, "DELETE FROM journal WHERE seq > ?1 AND seq <= ?2 AND "
                 "NOT EXISTS (SELECT 1 FROM games g INDEXED BY "
                 "games_in_play WHERE g.gid = journal.gid AND "
                 "g.status <> 'ended')"),
    DEF(w_beat, "INSERT INTO meta (key, value) VALUES ('heartbeat_ms', ?1) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value"),
    DEF(w_purge_scan, "SELECT pid, created_ms FROM players "
                      "WHERE (created_ms, pid) > (?1, ?2) "
                      "AND created_ms < ?3 ORDER BY created_ms, pid "
                      "LIMIT ?4"),
    DEF(w_purge_del, "DELETE FROM players WHERE pid = ?1 "
                     "AND NOT EXISTS (SELECT 1 FROM games "
                     "WHERE white_pid = ?1) "
                     "AND NOT EXISTS (SELECT 1 FROM games "
                     "WHERE black_pid = ?1) "
                     "AND NOT EXISTS (SELECT 1 FROM games "
                     "WHERE creator_pid = ?1) "
                     "AND NOT EXISTS (SELECT 1 FROM accounts "
                     "WHERE pid = ?1)"),
    /* one op of several statements is all or nothing */
    DEF(w_savepoint, "SAVEPOINT op"),
    DEF(w_release, "RELEASE op"),
    DEF(w_rollback_to, "ROLLBACK TO op"),
    DEF(w_account, "INSERT INTO accounts (pid, username, password_hash, "
                   "created_ms) VALUES (?1, ?2, ?3, ?4)"),
    DEF(w_player_account, "UPDATE players SET name = ?2, token_hash = ?3 "
                          "WHERE pid = ?1"),
    DEF(w_token_put, "INSERT INTO account_tokens (token_hash, pid, "
                     "created_ms, last_used_ms) VALUES (?1, ?2, ?3, ?3)"),
    DEF(w_token_touch, "UPDATE account_tokens SET last_used_ms = ?2 "
                       "WHERE token_hash = ?1"),
    DEF(w_token_revoke, "DELETE FROM account_tokens WHERE token_hash = ?1"),
    DEF(w_tokens_revoke, "DELETE FROM account_tokens WHERE pid = ?1"),
    DEF(w_tokens_expire, "DELETE FROM account_tokens "
                         "WHERE last_used_ms < ?1"),
    DEF(w_rating, "INSERT INTO ratings (pid, category, rating, rd, "
                  "volatility, games, wins, draws, losses, last_ms) "
                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
                  "ON CONFLICT (pid, category) DO UPDATE SET "
                  "rating = excluded.rating, rd = excluded.rd, "
                  "volatility = excluded.volatility, "
                  "games = excluded.games, wins = excluded.wins, "
                  "draws = excluded.draws, losses = excluded.losses, "
                  "last_ms = excluded.last_ms"),
    DEF(w_rating_point, "INSERT OR REPLACE INTO rating_history (pid, "
                        "category, ended_ms, gid, rating, rd) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
    DEF(w_settings, "INSERT INTO account_settings (pid, settings, "
                    "updated_ms) VALUES (?1, ?2, ?3) ON CONFLICT (pid) "
                    "DO UPDATE SET settings = excluded.settings, "
                    "updated_ms = excluded.updated_ms"),
};

static const struct stmt_def reader_stmts[] = {
    DEF(r_begin, "BEGIN"),
    DEF(r_end, "COMMIT"),
    DEF(r_token, "SELECT pid, name, token_hash, created_ms FROM players "
                 "WHERE token_hash = ?1"),
    DEF(r_player, "SELECT pid, name, token_hash, created_ms FROM players "
                  "WHERE pid = ?1"),
    DEF(r_game, "SELECT " STORE_GAME_COLS ", pgn FROM games WHERE gid = ?1"),

    DEF(r_rating, "SELECT " STORE_RATING_COLS " FROM ratings "
                  "WHERE pid = ?1 AND category = ?2"),
    DEF(r_ratings,
        "SELECT " STORE_RATING_COLS " FROM ratings WHERE pid = ?1"),
    DEF(r_is_account, "SELECT 1 FROM accounts WHERE pid = ?1"),
    DEF(r_settings, "SELECT settings FROM account_settings WHERE pid = ?1"),
    DEF(r_history, "SELECT ended_ms, rating, rd FROM rating_history "
                   "WHERE pid = ?1 AND category = ?2 "
                   "ORDER BY ended_ms DESC, gid DESC LIMIT ?3"),
    DEF(r_board, "SELECT r.pid, p.name, r.rating, r.rd, r.games "
                 "FROM ratings r JOIN players p ON p.pid = r.pid "
                 "WHERE r.category = ?1 AND r.rd <= 110.0 "
                 "AND EXISTS (SELECT 1 FROM accounts a "
                 "WHERE a.pid = r.pid) "
                 "ORDER BY r.rating DESC, r.pid LIMIT ?2"),
    DEF(r_moves, "SELECT " STORE_MOVE_COLS " FROM moves WHERE gid = ?1 "
                 "ORDER BY ply"),
    /* a live game's journal: no index by game, so a scan (only for a
     * game whose restore failed; see store_get_game) */
    DEF(r_journal_game,
        "SELECT " STORE_MOVE_COLS " FROM journal WHERE gid = ?1 "
        "ORDER BY ply, seq"),
    /* every game's, for restore: one pass and one sort */
    DEF(r_journal, "SELECT gid, " STORE_MOVE_COLS " FROM journal "
                   "ORDER BY gid, ply, seq"),
    DEF(r_live, "SELECT " STORE_GAME_COLS " FROM games "
                "WHERE status IN ('waiting', 'started') "
                "ORDER BY created_ms, gid"),
    /* a seat's live games (games_white_ended, games_black_ended: their
     * ended_ms is NULL), the oldest first */
    DEF(r_seat_live,
        "SELECT gid, created_ms FROM games WHERE white_pid = ?1 AND "
        "ended_ms IS NULL AND status <> 'ended' UNION ALL "
        "SELECT gid, created_ms FROM games WHERE black_pid = ?1 AND "
        "ended_ms IS NULL AND status <> 'ended' AND white_pid IS NOT ?1 "
        "ORDER BY 2, 1 LIMIT ?2"),
    /* every live game after a gid (games_in_play) */
    DEF(r_live_gids, "SELECT gid FROM games WHERE status <> 'ended' AND "
                     "gid > ?1 AND created_ms < ?3 ORDER BY gid LIMIT ?2"),
    DEF(r_ended, "SELECT ended_ms FROM games WHERE gid = ?1 AND "
                 "status = 'ended'"),
    DEF(r_list, LIST_SEAT("white_pid", "") " UNION ALL " LIST_SEAT(
                    "black_pid",
                    " AND white_pid IS NOT ?1") " ORDER BY ended_ms DESC, "
                                                "gid DESC LIMIT ?4"),
    DEF(r_account, "SELECT pid, username, password_hash, created_ms "
                   "FROM accounts WHERE username = ?1"),
    DEF(r_account_token, "SELECT a.pid, a.username, a.created_ms, "
                         "t.last_used_ms FROM account_tokens t "
                         "JOIN accounts a ON a.pid = t.pid "
                         "WHERE t.token_hash = ?1 AND t.last_used_ms >= ?2"),
};

static sqlite3_stmt **stmt_slot(struct sqlite_be *b, const struct stmt_def *d)
{
    return (sqlite3_stmt **)(void *)((char *)b + d->offset);
}

static int prepare_all(struct sqlite_be *b, sqlite3 *db,
                       const struct stmt_def *defs, size_t n, char *err,
                       size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        if (sqlite3_prepare_v3(db, defs[i].sql, -1, SQLITE_PREPARE_PERSISTENT,
                               stmt_slot(b, &defs[i]), NULL) != SQLITE_OK) {
            errtext_set(err, errlen, "cannot prepare a statement: %s",
                        sqlite3_errmsg(db));
            return -1;
        }
    }
    return 0;
}

static void finalize_all(struct sqlite_be *b, const struct stmt_def *defs,
                         size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sqlite3_stmt **st = stmt_slot(b, &defs[i]);
        sqlite3_finalize(*st);
        *st = NULL;
    }
}

/* ---- open: pragmas and migrations ------------------------------------- */

/* Runs a one-integer query ("PRAGMA user_version"); -1 on error. */
static int query_int(sqlite3 *db, const char *sql, int64_t *out)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, 0);
    else if (rc == SQLITE_DONE)
        *out = 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

static int configure_writer(sqlite3 *db, const char *path, char *err,
                            size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int64_t page = 0;
    char sql[64];
    int wal;

    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, STORE_BUSY_MS);
    /* a new database gets STORE_PAGE_SIZE pages (store.h) */
    if (sqlite3_exec(db, "PRAGMA page_size = " STR(STORE_PAGE_SIZE), NULL,
                     NULL, NULL) != SQLITE_OK)
        goto fail;
    if (sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &st, NULL) !=
            SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW)
        goto fail;
    wal = sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "wal") ==
          0;
    sqlite3_finalize(st);
    st = NULL;
    if (!wal) {
        errtext_set(err, errlen, "%s: cannot switch the database to WAL mode",
                    path);
        return -1;
    }
    if (sqlite3_exec(db,
                     "PRAGMA synchronous = NORMAL; "
                     "PRAGMA foreign_keys = ON;",
                     NULL, NULL, NULL) != SQLITE_OK ||
        query_int(db, "PRAGMA page_size", &page) != 0)
        goto fail;
    /* the WAL file is cut back to twice the cap after a spell past it */
    snprintf(sql, sizeof sql, "PRAGMA journal_size_limit = %lld",
             (long long)(2 * STORE_WAL_CAP_FRAMES * (page + 24)));
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        goto fail;
    return 0;
fail:
    errtext_set(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return -1;
}

/* PRAGMA quick_check (every page and b-tree of the file, without the
 * index contents: O(size), a second or so per GB) before anything else
 * reads the database, so a damaged one stops the start with a clear
 * message instead of failing later, mid-game. Returns 0 when intact. */
static int check_intact(sqlite3 *db, const char *path, char *err,
                        size_t errlen)
{
    sqlite3_stmt *st;
    char first[200] = "";
    int rc, problems = 0;

    if (sqlite3_prepare_v2(db, "PRAGMA quick_check(10)", -1, &st, NULL) !=
        SQLITE_OK) {
        errtext_set(err, errlen,
                    "%s is damaged or not a database "
                    "(PRAGMA quick_check: %s); restore a backup (README: "
                    "Backup and restore)",
                    path, sqlite3_errmsg(db));
        return -1;
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *line = (const char *)sqlite3_column_text(st, 0);
        if (line && !strcmp(line, "ok"))
            continue;
        if (!problems++)
            snprintf(first, sizeof first, "%s", line ? line : "?");
    }
    if (rc != SQLITE_DONE && !problems++)
        snprintf(first, sizeof first, "%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (!problems)
        return 0;
    errtext_set(err, errlen,
                "%s is damaged (PRAGMA quick_check found %d%s "
                "problem%s, the first: %s); refusing to start: restore a "
                "backup (README: Backup and restore)",
                path, problems, problems >= 10 ? " or more" : "",
                problems == 1 ? "" : "s", first);
    return -1;
}

/* The schema version of a database whose user_version is 0: a new file,
 * or one restored from `sqlite3 .dump`, which does not carry
 * user_version. Every migration run records the version in meta as well
 * (which a dump does carry); a dump of a database that no server of this
 * version has opened has meta (created by 0001) without that row, and
 * is at version 1, the only one servers before this record knew.
 * Returns 0 with *have set, or -1. */
static int version_from_meta(sqlite3 *db, int64_t *have)
{
    int64_t tables = 0, rows = 0;

    if (query_int(db,
                  "SELECT count(*) FROM sqlite_schema WHERE type = "
                  "'table' AND name = 'meta'",
                  &tables) != 0)
        return -1;
    if (!tables) {
        *have = 0;
        return 0;
    }
    if (query_int(db,
                  "SELECT count(*) FROM meta WHERE key = "
                  "'schema_version'",
                  &rows) != 0)
        return -1;
    if (!rows) {
        *have = 1;
        return 0;
    }
    return query_int(db,
                     "SELECT value FROM meta WHERE key = "
                     "'schema_version'",
                     have);
}

/* Applies every embedded migration newer than the database's user_version
 * in one transaction, and records the version in user_version and in
 * meta's schema_version row. A database newer than this binary is
 * refused. */
static int migrate(sqlite3 *db, const char *path, int *version, char *err,
                   size_t errlen)
{
    int newest = migrations_list[migrations_count - 1].version;
    int64_t have;
    char sql[128];

    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        errtext_set(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        return -1;
    }
    if (query_int(db, "PRAGMA user_version", &have) != 0 ||
        (have == 0 && version_from_meta(db, &have) != 0)) {
        errtext_set(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        goto fail;
    }
    if (have > newest) {
        errtext_set(err, errlen,
                    "%s: the database schema is version %lld, newer than the "
                    "newest this server knows (%d); run a newer server or "
                    "restore a backup",
                    path, (long long)have, newest);
        goto fail;
    }
    if (have < 0) {
        errtext_set(err, errlen, "%s: invalid schema version %lld", path,
                    (long long)have);
        goto fail;
    }
    for (size_t i = (size_t)have; i < migrations_count; i++) {
        const struct migration *m = &migrations_list[i];
        if (sqlite3_exec(db, m->sql, NULL, NULL, NULL) != SQLITE_OK) {
            errtext_set(err, errlen, "%s: migration %04d_%s failed: %s", path,
                        m->version, m->name, sqlite3_errmsg(db));
            goto fail;
        }
    }
    /* A pragma takes no parameters; the value is our own integer. */
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", newest);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        errtext_set(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        goto fail;
    }
    snprintf(sql, sizeof sql,
             "INSERT OR REPLACE INTO meta (key, value) "
             "VALUES ('schema_version', %d)",
             newest);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        errtext_set(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
        goto fail;
    }
    *version = newest;
    return 0;
fail:
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

/* ---- the writer thread ------------------------------------------------ */

/* Binds a REAL, or NULL when `set` is false. */
static int bind_real_if(sqlite3_stmt *st, int i, bool set, double v)
{
    return set ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}

/* Binds the STORE_GAME_COLS parameters ?1..?28. Returns SQLITE_OK (0), or
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
    }
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
        col_str(st, 0, rows[n].pid, sizeof rows[n].pid);
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
        rc = step_once(b->w_purge_del);
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
    int rc = step_once(st);

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

    if ((rc = step_once(b->w_savepoint)) != SQLITE_DONE)
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
    return step_once(b->w_release);
undo:
    if (!b->op_err[0])
        strcopy(b->op_err, sizeof b->op_err, sqlite3_errmsg(b->w));
    step_once(b->w_rollback_to);
    step_once(b->w_release);
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

    if ((rc = step_once(b->w_savepoint)) != SQLITE_DONE)
        return rc;
    if (bind_game(st, &op->u.game, "ended") != SQLITE_OK ||
        sqlite3_bind_text(st, 29, op->pgn, -1, SQLITE_STATIC) != SQLITE_OK) {
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
    return step_once(b->w_release);
undo:
    strcopy(b->op_err, sizeof b->op_err, sqlite3_errmsg(b->w));
    step_once(b->w_rollback_to);
    step_once(b->w_release);
    return rc;
}

/* Applies one op inside the open transaction: the step's result code. */
static int apply_op(struct store *s, const struct op *op)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st;
    int rc = SQLITE_OK;

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
        st = b->w_tokens_revoke;
        rc |= sqlite3_bind_text(st, 1, op->u.token.pid, -1, SQLITE_STATIC);
        break;
    case OP_TOKENS_EXPIRE:
        st = b->w_tokens_expire;
        rc |= sqlite3_bind_int64(st, 1, op->u.token.ms);
        break;
    case OP_SETTINGS:
        st = b->w_settings;
        rc |= sqlite3_bind_text(st, 1, op->u.settings.pid, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 2, op->text, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 3, op->u.settings.ms);
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
    case OP_EPOCH: /* one node: nobody to fence */
        return SQLITE_DONE;
    default:
        return SQLITE_MISUSE;
    }
    if (rc != SQLITE_OK) {
        sqlite3_clear_bindings(st);
        return SQLITE_RANGE;
    }
    rc = step_once(st);
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
    if ((rc = step_once(b->w_sweep)) != SQLITE_DONE)
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
static enum store_batch sq_commit(struct store *s, struct op *const *ops,
                                  size_t n, int64_t beat_ms,
                                  struct store_attempt *a)
{
    struct sqlite_be *b = s->be_state;
    char code[16];
    int rc;
    int64_t from = b->sweep_from, rows = b->sweep_rows, swept = 0, moves = 0;

    a->t_begin = sysclock_us(CLOCK_MONOTONIC);
    rc = step_once(b->w_begin);

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
        if ((rc = step_once(b->w_beat)) != SQLITE_DONE)
            goto fail;
    }
    if ((rc = sweep_step(b, moves, &from, &rows, &swept)) != SQLITE_DONE)
        goto fail;
    a->t_commit = sysclock_us(CLOCK_MONOTONIC);
    if ((rc = step_once(b->w_commit)) != SQLITE_DONE)
        goto fail;
    b->sweep_from = from;
    b->sweep_rows = rows;
    s->swept += (uint64_t)swept;
    return STORE_BATCH_COMMITTED;
fail:
    snprintf(code, sizeof code, "%d", rc);
    store__commit_failed(s, code, sqlite3_errmsg(b->w));
    if (!sqlite3_get_autocommit(b->w))
        step_once(b->w_rollback);
    return STORE_BATCH_FAILED;
}

/* The writer connection's wal hook, after each commit: how big the WAL
 * is. A commit adds at least one frame, so fewer frames than before mean
 * that it started the WAL over. */
static int on_wal_commit(void *arg, sqlite3 *db, const char *name, int frames)
{
    struct store *s = arg;
    struct sqlite_be *b = s->be_state;

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
static int64_t sq_after_batch(struct store *s)
{
    struct sqlite_be *b = s->be_state;

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
static void *checkpointer_main(void *arg)
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
static bool sq_beat_waits(struct store *s)
{
    const struct sqlite_be *b = s->be_state;

    return b->ckpt_begun != b->ckpt_ended;
}

void store_hold_checkpoints(struct store *s, int hold)
{
    struct sqlite_be *b = s->be_state;

    if (s->be != &store__sqlite)
        return;
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

/* ---- open / close ----------------------------------------------------- */

/* The database holds token hashes: it is its owner's alone, whatever the
 * umask. It is created 0600 here when missing (SQLite gives its -wal and
 * -shm the database file's mode), and a database, -wal or -shm that
 * others may read (written by an older version) is narrowed to its
 * owner's bits, with a warning. */
static int own_files(const char *path, char *err, size_t errlen)
{
    static const char *const suffix[] = {"", "-wal", "-shm"};
    char p[PATH_MAX];

    for (size_t i = 0; i < STORE_N_OF(suffix); i++) {
        struct stat st;
        int fd;

        if (snprintf(p, sizeof p, "%s%s", path, suffix[i]) >= (int)sizeof p) {
            errtext_set(err, errlen, "%s: path too long", path);
            return -1;
        }
        fd = open(p, O_RDWR | O_CLOEXEC | (i == 0 ? O_CREAT : 0), 0600);
        if (fd < 0 && i > 0 && errno == ENOENT)
            continue;
        if (fd < 0) {
            errtext_set(err, errlen, "%s: %s", p, strerror(errno));
            return -1;
        }
        if (fstat(fd, &st) == 0 && (st.st_mode & 077)) {
            char q[PATH_MAX + 8];
            if (fchmod(fd, st.st_mode & 0700) < 0) {
                errtext_set(err, errlen,
                            "%s is readable by others and cannot "
                            "be made private (chmod 600 it): %s",
                            p, strerror(errno));
                close(fd);
                return -1;
            }
            log_warn("event=store_mode_narrowed file=%s was=%04o now=%04o",
                     log_quote(q, sizeof q, p), (unsigned)(st.st_mode & 0777),
                     (unsigned)(st.st_mode & 0700));
        }
        close(fd);
    }
    return 0;
}

/* Opens the backend of s on the database at path (store.c's store_open):
 * migrations, statements, the heartbeat, and the checkpointer thread. 0,
 * or -1 with a sentence in err (store_close then cleans up). */
int store__sqlite_open(struct store *s, const char *path, char *err,
                       size_t errlen)
{
    struct sqlite_be *b = calloc(1, sizeof *b);
    pthread_condattr_t ca;
    int64_t beat = 0;

    if (!b || !(b->path = strdup(path))) {
        free(b);
        errtext_set(err, errlen, "out of memory");
        return -1;
    }
    s->be_state = b;
    b->wait_at = STORE_WAL_CAP_FRAMES;
    if (pthread_condattr_init(&ca) != 0) {
        errtext_set(err, errlen, "cannot create a condition variable");
        return -1;
    }
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    b->ckpt_cv_made = pthread_cond_init(&b->ckpt_cv, &ca) == 0;
    pthread_condattr_destroy(&ca);
    if (!b->ckpt_cv_made) {
        errtext_set(err, errlen, "cannot create a condition variable");
        return -1;
    }

    if (own_files(path, err, errlen) != 0)
        return -1;
    if (sqlite3_open_v2(path, &b->w,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        NULL) != SQLITE_OK) {
        errtext_set(err, errlen, "%s: %s", path,
                    b->w ? sqlite3_errmsg(b->w) : "out of memory");
        return -1;
    }
    if (configure_writer(b->w, path, err, errlen) != 0 ||
        check_intact(b->w, path, err, errlen) != 0 ||
        migrate(b->w, path, &s->schema_version, err, errlen) != 0 ||
        prepare_all(b, b->w, writer_stmts, STORE_N_OF(writer_stmts), err,
                    errlen) != 0)
        return -1;
    /* from here on, no automatic checkpoints (see the top of the file) */
    sqlite3_wal_hook(b->w, on_wal_commit, s);
    if (query_int(b->w, "SELECT value FROM meta WHERE key = 'heartbeat_ms'",
                  &beat) != 0) {
        errtext_set(err, errlen, "%s: %s", path, sqlite3_errmsg(b->w));
        return -1;
    }
    s->last_heartbeat_ms = beat;
    if (query_int(b->w, "SELECT coalesce(max(seq), 0) FROM journal",
                  &b->journal_end) != 0) {
        errtext_set(err, errlen, "%s: %s", path, sqlite3_errmsg(b->w));
        return -1;
    }

    if (sqlite3_open_v2(path, &b->r, SQLITE_OPEN_READONLY, NULL) !=
        SQLITE_OK) {
        errtext_set(err, errlen, "%s (read-only): %s", path,
                    b->r ? sqlite3_errmsg(b->r) : "out of memory");
        return -1;
    }
    sqlite3_extended_result_codes(b->r, 1);
    sqlite3_busy_timeout(b->r, STORE_BUSY_MS);
    if (prepare_all(b, b->r, reader_stmts, STORE_N_OF(reader_stmts), err,
                    errlen) != 0)
        return -1;

    if (sqlite3_open_v2(path, &b->c, SQLITE_OPEN_READWRITE, NULL) !=
        SQLITE_OK) {
        errtext_set(err, errlen, "%s (checkpointer): %s", path,
                    b->c ? sqlite3_errmsg(b->c) : "out of memory");
        return -1;
    }
    sqlite3_extended_result_codes(b->c, 1);
    sqlite3_exec(b->c, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
    if (pthread_create(&b->ckpt_thread, NULL, checkpointer_main, s) != 0) {
        errtext_set(err, errlen, "cannot start the checkpointer thread");
        return -1;
    }
    b->ckpt_thread_started = true;
    return 0;
}

/* The backend's close (the writer has stopped, s->stopping is set). */
static void sq_close(struct store *s)
{
    struct sqlite_be *b = s->be_state;

    if (b->ckpt_thread_started) {
        pthread_mutex_lock(&s->mu);
        pthread_cond_signal(&b->ckpt_cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(b->ckpt_thread, NULL);
    }
    finalize_all(b, reader_stmts, STORE_N_OF(reader_stmts));
    finalize_all(b, writer_stmts, STORE_N_OF(writer_stmts));
    /* The writer last: closing the last connection checkpoints the WAL
     * into the database file and removes it. */
    sqlite3_close(b->c);
    sqlite3_close(b->r);
    sqlite3_close(b->w);
    if (b->ckpt_cv_made)
        pthread_cond_destroy(&b->ckpt_cv);
    free(b->path);
    free(b);
    s->be_state = NULL;
}

static void sq_location(const struct store *s, char *buf, size_t len)
{
    const struct sqlite_be *b = s->be_state;

    snprintf(buf, len, "%s", b->path);
}

/* ---- reads ------------------------------------------------------------ */

static void row_player(sqlite3_stmt *st, struct store_player *p)
{
    const void *hash = sqlite3_column_blob(st, 2);

    memset(p, 0, sizeof *p);
    col_str(st, 0, p->pid, sizeof p->pid);
    col_str(st, 1, p->name, sizeof p->name);
    if (hash && sqlite3_column_bytes(st, 2) == 32)
        memcpy(p->token_hash, hash, 32);
    p->created_ms = sqlite3_column_int64(st, 3);
}

/* Fills g from columns 0..27 (STORE_GAME_COLS order). */
static void row_game(sqlite3_stmt *st, struct store_game *g)
{
    int i = 0;

    memset(g, 0, sizeof *g);
    col_str(st, i++, g->gid, sizeof g->gid);
    col_str(st, i++, g->white_pid, sizeof g->white_pid);
    col_str(st, i++, g->white_name, sizeof g->white_name);
    col_str(st, i++, g->black_pid, sizeof g->black_pid);
    col_str(st, i++, g->black_name, sizeof g->black_name);
    col_str(st, i++, g->creator_pid, sizeof g->creator_pid);
    g->clock.per_move = sqlite3_column_int(st, i++);
    g->clock.initial_s = sqlite3_column_int(st, i++);
    g->clock.increment_s = sqlite3_column_int(st, i++);
    g->clock.per_move_s = sqlite3_column_int(st, i++);
    col_str(st, i++, g->initial_fen, sizeof g->initial_fen);
    col_str(st, i++, g->status, sizeof g->status);
    col_str(st, i++, g->result, sizeof g->result);
    col_str(st, i++, g->reason, sizeof g->reason);
    col_str(st, i++, g->final_fen, sizeof g->final_fen);
    col_str(st, i++, g->draw_offer, sizeof g->draw_offer);
    g->created_ms = sqlite3_column_int64(st, i++);
    g->started_ms = sqlite3_column_int64(st, i++);
    g->ended_ms = sqlite3_column_int64(st, i++);
    g->white_ms = sqlite3_column_int64(st, i++);
    g->black_ms = sqlite3_column_int64(st, i++);
    g->rated = sqlite3_column_int(st, i++);
    for (int c = 0; c < 2; c++) {
        g->rating_before[c] = sqlite3_column_double(st, i++);
        g->rating_after[c] = sqlite3_column_double(st, i++);
    }
    for (int c = 0; c < 2; c++)
        g->rd_before[c] = sqlite3_column_double(st, i++);
}

/* Fills m from columns col.. of st's row (STORE_MOVE_COLS). */
static void row_move(sqlite3_stmt *st, int col, struct store_move *m)
{
    memset(m, 0, sizeof *m);
    m->ply = sqlite3_column_int(st, col);
    col_str(st, col + 1, m->uci, sizeof m->uci);
    col_str(st, col + 2, m->san, sizeof m->san);
    m->white_ms = sqlite3_column_int64(st, col + 3);
    m->black_ms = sqlite3_column_int64(st, col + 4);
    m->wall_ms = sqlite3_column_int64(st, col + 5);
    m->lag_ms = sqlite3_column_int64(st, col + 6);
}

/* Fills r from STORE_RATING_COLS. */
static void row_rating(sqlite3_stmt *st, struct store_rating *r)
{
    memset(r, 0, sizeof *r);
    col_str(st, 0, r->pid, sizeof r->pid);
    col_str(st, 1, r->category, sizeof r->category);
    r->rating = sqlite3_column_double(st, 2);
    r->rd = sqlite3_column_double(st, 3);
    r->vol = sqlite3_column_double(st, 4);
    r->games = sqlite3_column_int(st, 5);
    r->wins = sqlite3_column_int(st, 6);
    r->draws = sqlite3_column_int(st, 7);
    r->losses = sqlite3_column_int(st, 8);
    r->last_ms = sqlite3_column_int64(st, 9);
}

/* A failed read of st (logged and counted): -1, st reset. */
static int read_failed(struct store *s, sqlite3_stmt *st)
{
    struct sqlite_be *b = s->be_state;

    store__read_failed(s, sqlite3_errmsg(b->r));
    sqlite3_reset(st);
    return -1;
}

/* Ends a read of rows by st whose last step returned rc (SQLITE_ROW
 * where the caller stopped at its limit): resets st and clears its
 * bindings. Returns 0, or -1 (logged and counted) when rc is an error. */
static int rows_end(struct store *s, sqlite3_stmt *st, int rc)
{
    int ok = rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : read_failed(s, st);

    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return ok;
}

/* Ends a read of at most one row by st whose step returned rc: 1 when
 * it found the row (rc SQLITE_ROW), 0 when there was none, -1 on an
 * error (logged and counted); resets st either way. */
static int row_end(struct store *s, sqlite3_stmt *st, int rc)
{
    return rows_end(s, st, rc) < 0 ? -1 : rc == SQLITE_ROW;
}

static int find_player(struct store *s, sqlite3_stmt *st,
                       struct store_player *out)
{
    int rc = sqlite3_step(st);

    if (rc == SQLITE_ROW)
        row_player(st, out);
    return row_end(s, st, rc);
}

static int sq_find_player_by_token(struct store *s, const uint8_t hash[32],
                                   struct store_player *out)
{
    struct sqlite_be *b = s->be_state;

    sqlite3_bind_blob(b->r_token, 1, hash, 32, SQLITE_STATIC);
    return find_player(s, b->r_token, out);
}

static int sq_find_player(struct store *s, const char *pid,
                          struct store_player *out)
{
    struct sqlite_be *b = s->be_state;

    sqlite3_bind_text(b->r_player, 1, pid, -1, SQLITE_STATIC);
    return find_player(s, b->r_player, out);
}

static int sq_find_account(struct store *s, const char *username,
                           struct store_account *out)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_account;
    int rc;

    sqlite3_bind_text(st, 1, username, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        col_str(st, 0, out->pid, sizeof out->pid);
        col_str(st, 1, out->username, sizeof out->username);
        col_str(st, 2, out->password_hash, sizeof out->password_hash);
        out->created_ms = sqlite3_column_int64(st, 3);
    }
    return row_end(s, st, rc);
}

static int sq_find_account_token(struct store *s, const uint8_t hash[32],
                                 int64_t since_ms, struct store_player *out,
                                 int64_t *last_used_ms)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_account_token;
    int rc;

    sqlite3_bind_blob(st, 1, hash, 32, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, since_ms);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        col_str(st, 0, out->pid, sizeof out->pid);
        col_str(st, 1, out->name, sizeof out->name);
        out->created_ms = sqlite3_column_int64(st, 2);
        if (last_used_ms)
            *last_used_ms = sqlite3_column_int64(st, 3);
    }
    return row_end(s, st, rc);
}

static int sq_get_rating(struct store *s, const char *pid,
                         const char *category, struct store_rating *out)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_rating;
    int rc;

    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, category, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        row_rating(st, out);
    return row_end(s, st, rc);
}

static int sq_player_ratings(struct store *s, const char *pid,
                             struct store_rating *out, size_t max, size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_ratings;
    int rc;

    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (*n < max)
            row_rating(st, &out[(*n)++]);
    return rows_end(s, st, rc);
}

static int sq_is_account(struct store *s, const char *pid)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_is_account;

    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    return row_end(s, st, sqlite3_step(st));
}

static int sq_get_settings(struct store *s, const char *pid, char **out)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_settings;
    const char *text;
    int rc;

    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        text = (const char *)sqlite3_column_text(st, 0);
        if (!(*out = strdup(text ? text : "{}")))
            rc = SQLITE_NOMEM;
    }
    return row_end(s, st, rc);
}

static int sq_rating_history(struct store *s, const char *pid,
                             const char *category, int limit,
                             struct store_rating_point *v, size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_history;
    int rc;

    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, category, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, limit);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < (size_t)limit) {
        v[*n].ms = sqlite3_column_int64(st, 0);
        v[*n].rating = sqlite3_column_double(st, 1);
        v[*n].rd = sqlite3_column_double(st, 2);
        (*n)++;
    }
    return rows_end(s, st, rc);
}

static int sq_leaderboard(struct store *s, const char *category, int limit,
                          struct store_leader *v, size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_board;
    int rc;

    sqlite3_bind_text(st, 1, category, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, limit);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < (size_t)limit) {
        struct store_leader *e = &v[(*n)++];
        memset(e, 0, sizeof *e);
        col_str(st, 0, e->pid, sizeof e->pid);
        col_str(st, 1, e->name, sizeof e->name);
        e->rating = sqlite3_column_double(st, 2);
        e->rd = sqlite3_column_double(st, 3);
        e->games = sqlite3_column_int(st, 4);
    }
    return rows_end(s, st, rc);
}

/* Reads gid's moves in ply order with st (r_moves for a finished game,
 * r_journal_game for one in play) into l. Returns 0 or -1. */
static int read_moves(struct store *s, sqlite3_stmt *st, const char *gid,
                      struct store__moves *l)
{
    struct store_move m;
    int rc;

    sqlite3_bind_text(st, 1, gid, -1, SQLITE_TRANSIENT);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        row_move(st, 0, &m);
        if (store__moves_add(l, &m) != 0)
            return read_failed(s, st);
    }
    if (rc != SQLITE_DONE)
        return read_failed(s, st);
    sqlite3_reset(st);
    return 0;
}

/* Read transactions give a multi-statement read one snapshot. */
static int read_begin(struct sqlite_be *b)
{
    return step_once(b->r_begin) == SQLITE_DONE ? 0 : -1;
}

static void read_end(struct sqlite_be *b)
{
    step_once(b->r_end);
}

static int sq_get_game(struct store *s, const char *gid, struct store_game *g,
                       struct store__moves *moves, char **pgn)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_game;
    int rc, found = 0;

    if (read_begin(b) != 0)
        return read_failed(s, st);
    sqlite3_bind_text(st, 1, gid, -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(
            st, STORE_GAME_N_COLS);
        row_game(st, g);
        found = 1;
        if (pgn && text && !(*pgn = strdup(text)))
            found = -1;
    } else if (rc != SQLITE_DONE) {
        found = -1;
    }
    if (found == -1)
        read_failed(s, st);
    sqlite3_reset(st);
    if (found == 1 && moves &&
        read_moves(
            s, strcmp(g->status, "ended") ? b->r_journal_game : b->r_moves,
            gid, moves) != 0)
        found = -1;
    read_end(b);
    return found;
}

/* Reads the whole journal, sorted by game, into the moves of ll's games
 * (rows of other games, ended ones not yet swept, are skipped). 0 or -1. */
static int read_journal(struct store *s, struct store__live *ll)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_journal;
    struct store__live_game *cur = NULL;
    struct store_move m;
    int rc;

    if (store__live_index(ll) != 0)
        return read_failed(s, st);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *gid = (const char *)sqlite3_column_text(st, 0);
        if (!gid)
            continue;
        row_move(st, 1, &m);
        if (store__live_move(ll, &cur, gid, &m) != 0)
            return read_failed(s, st);
    }
    if (rc != SQLITE_DONE)
        return read_failed(s, st);
    sqlite3_reset(st);
    return 0;
}

static int sq_load_live(struct store *s, struct store__live *ll)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_live;
    struct store__live_game *e;
    int rc, ret = -1;

    if (read_begin(b) != 0)
        return read_failed(s, st);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (!(e = store__live_add(ll))) {
            rc = SQLITE_NOMEM;
            break;
        }
        row_game(st, &e->g);
    }
    if (rc != SQLITE_DONE)
        read_failed(s, st);
    else if (sqlite3_reset(st), read_journal(s, ll) == 0)
        ret = 0;
    read_end(b);
    return ret;
}

static int sq_list_player_games(struct store *s, const char *pid,
                                const char *before_gid, int limit,
                                struct store_game_list *out)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_list;
    struct store_game *g;
    size_t cap = 0;
    int rc;

    if (read_begin(b) != 0)
        return read_failed(s, st);
    if (before_gid) {
        sqlite3_bind_text(b->r_ended, 1, before_gid, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(b->r_ended);
        if (rc == SQLITE_ROW)
            sqlite3_bind_int64(st, 2, sqlite3_column_int64(b->r_ended, 0));
        sqlite3_reset(b->r_ended);
        if (rc == SQLITE_DONE) { /* unknown or live game: an empty page */
            read_end(b);
            return 0;
        }
        if (rc != SQLITE_ROW) {
            read_end(b);
            return read_failed(s, b->r_ended);
        }
        sqlite3_bind_text(st, 3, before_gid, -1, SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_int64(st, 2, INT64_MAX);
        sqlite3_bind_text(st, 3, "", -1, SQLITE_STATIC);
    }
    sqlite3_bind_text(st, 1, pid, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 4, (int64_t)limit + 1);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (out->n == (size_t)limit) {
            out->has_more = 1;
            continue;
        }
        if (!(g = store__game_list_add(out, &cap, limit))) {
            rc = SQLITE_NOMEM;
            break;
        }
        row_game(st, g);
    }
    if (rc != SQLITE_DONE) {
        read_failed(s, st);
        read_end(b);
        return -1;
    }
    sqlite3_reset(st);
    read_end(b);
    return 0;
}

/* One node, no epochs stored. */
static int sq_get_epoch(struct store *s, const char *gid, int64_t *epoch)
{
    (void)s;
    (void)gid;
    *epoch = 0;
    return 0;
}

/* gid in column 0 of each row of st (bound), at most max. */
static int gid_rows(struct store *s, sqlite3_stmt *st, char (*gids)[33],
                    size_t max, size_t *n)
{
    int rc;

    while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n < max)
        col_str(st, 0, gids[(*n)++], 33);
    return rows_end(s, st, rc);
}

static int sq_player_live_games(struct store *s, const char *pid,
                                char (*gids)[33], size_t max, size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_seat_live;

    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
    return gid_rows(s, st, gids, max, n);
}

static int sq_live_gids(struct store *s, const char *after, int64_t before_ms,
                        char (*gids)[33], size_t max, size_t *n)
{
    struct sqlite_be *b = s->be_state;
    sqlite3_stmt *st = b->r_live_gids;

    sqlite3_bind_text(st, 1, after, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)before_ms);
    return gid_rows(s, st, gids, max, n);
}

const struct store_backend store__sqlite = {
    .name = "sqlite",
    .commit = sq_commit,
    .after_batch = sq_after_batch,
    .beat_waits = sq_beat_waits,
    .close = sq_close,
    .location = sq_location,
    .find_player_by_token = sq_find_player_by_token,
    .find_player = sq_find_player,
    .find_account = sq_find_account,
    .find_account_token = sq_find_account_token,
    .get_rating = sq_get_rating,
    .player_ratings = sq_player_ratings,
    .get_settings = sq_get_settings,
    .is_account = sq_is_account,
    .rating_history = sq_rating_history,
    .leaderboard = sq_leaderboard,
    .get_game = sq_get_game,
    .load_live = sq_load_live,
    .list_player_games = sq_list_player_games,
    .get_epoch = sq_get_epoch,
    .player_live_games = sq_player_live_games,
    .live_gids = sq_live_gids,
};

/* ---- backup ----------------------------------------------------------- */

int store_backup(const char *db_path, const char *dest_path, char *err,
                 size_t errlen)
{
    sqlite3 *src = NULL, *dst = NULL;
    sqlite3_backup *b;
    int rc, ret = -1;

    if (!db_path || !dest_path) {
        errtext_set(err, errlen, "backup needs a source and a destination");
        return -1;
    }
    if (sqlite3_open_v2(db_path, &src, SQLITE_OPEN_READONLY, NULL) !=
        SQLITE_OK) {
        errtext_set(err, errlen, "%s: %s", db_path,
                    src ? sqlite3_errmsg(src) : "out of memory");
        goto out;
    }
    sqlite3_busy_timeout(src, STORE_BUSY_MS);
    if (sqlite3_open_v2(dest_path, &dst,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        NULL) != SQLITE_OK) {
        errtext_set(err, errlen, "%s: %s", dest_path,
                    dst ? sqlite3_errmsg(dst) : "out of memory");
        goto out;
    }
    sqlite3_busy_timeout(dst, STORE_BUSY_MS);
    b = sqlite3_backup_init(dst, "main", src, "main");
    if (!b) {
        errtext_set(err, errlen, "%s: %s", dest_path, sqlite3_errmsg(dst));
        goto out;
    }
    /* One step copies every page inside one read transaction of the
     * source, so writes by a running server cannot restart it; a busy
     * source (a checkpoint in progress) only delays it. */
    do {
        rc = sqlite3_backup_step(b, -1);
        if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
            store__sleep_ms(10);
    } while (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED);
    sqlite3_backup_finish(b);
    if (rc != SQLITE_DONE) {
        errtext_set(err, errlen, "backup of %s to %s failed: %s", db_path,
                    dest_path, sqlite3_errstr(rc));
        goto out;
    }
    ret = 0;
out:
    sqlite3_close(dst);
    sqlite3_close(src);
    return ret;
}
