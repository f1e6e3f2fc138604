/*
 * store.c - SQLite storage: migrations, prepared statements, the writer
 * thread and the read-only connection. See store.h for the contract.
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
 *   (wait_for_checkpoint): with nothing committing, that pass covers the
 *   log end, and the next transaction starts the WAL over. The writer
 *   never copies a page itself, and this is the only time a write waits
 *   for a checkpoint: once per STORE_WAL_CAP_FRAMES frames, for what is
 *   left of a pass in progress plus one pass over the pages written since
 *   that one began, with its two syncs. To keep that last pass short,
 *   the checkpointer runs its passes back to back (not every
 *   STORE_CHECKPOINT_MS) once the WAL holds STORE_WAL_SOFT_FRAMES (3/4 of
 *   the cap) and commits go on; one of them that happens to begin after
 *   a commit and end before the next lets that next commit start the WAL
 *   over with no wait at all (measured: most WAL generations under an
 *   open-loop stream of 4,500 moves a second). Within
 *   STORE_WAL_PARK_FRAMES of the cap, the writer waits as at the cap,
 *   except that when a pass that began before its last commit is
 *   running it does not wait for that pass and then one more: it commits
 *   on and parks the checkpointer, and waits at its next commit for
 *   exactly one pass. Both syncs are needed whatever the copy's
 *   size: the WAL's, so that no page reaches the database file before the
 *   commit that wrote it is durable (commits do not sync at
 *   synchronous=NORMAL), and the database file's, before the frames may
 *   be overwritten. So the WAL never holds more than
 *   STORE_WAL_CAP_FRAMES plus one transaction's frames, unless a reader
 *   keeps an old snapshot (an operator's open transaction, a long
 *   backup): then the pass cannot copy everything, the writer goes on at
 *   once and asks again only after
 *   another STORE_WAL_CAP_FRAMES frames. journal_size_limit cuts the file
 *   back after such a spell, at the first commit of the restarted WAL.
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
 * Queue. Enqueuers allocate an op, copy their arguments into it, and append
 * its pointer to `q` under `mu`; the writer swaps `q` with its own empty
 * `batch` array (so the lock is held for a pointer swap, never for disk),
 * then applies the whole batch in one BEGIN IMMEDIATE ... COMMIT, publishes
 * the last sequence number in `committed` and calls on_commit. A failed
 * transaction (busy, disk full, I/O) is rolled back and retried with the
 * same ops, so order is kept and nothing is reported committed that is not;
 * a single op that violates a constraint is logged and skipped, because
 * retrying it could never succeed.
 */
#include "store.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ending.h"
#include "errtext.h"
#include "log.h"
#include "migrations.h"
#include "sysclock.h"

/*
 * Tunables.
 * STORE_QUEUE_CAP: writes that may wait for the writer. A move is about
 * 0.5 KB queued, so a full queue is ~30 MB; at the writer's measured batch
 * rate it drains in well under a second, and filling it means the disk has
 * stalled, at which point refusing new writes is the honest answer.
 * STORE_BUSY_MS: how long a statement waits on a lock held by another
 * connection (an online backup, the sqlite3 shell) before failing.
 * STORE_HEARTBEAT_MS: how often the writer records the wall clock; restored
 * games are charged up to the last heartbeat, so this bounds the time the
 * side to move can lose to a crash.
 * STORE_RETRY_MS / STORE_CLOSE_RETRIES: back-off after a failed transaction,
 * and how many attempts store_close makes before dropping what is left.
 * STORE_CHECKPOINT_MS / STORE_WAL_CAP_FRAMES: the checkpointer's period
 * (1 s: each pass ends with an fdatasync of the WAL and of the database,
 * and on a slow disk the writer's WAL appends stall while the file
 * system commits them, so fewer passes mean fewer stalled commits; at
 * 200 ms, five a second, the open-loop p99 was 9-44 ms on such a disk,
 * at 1 s 3.3-12.5 ms, README "Performance"), and
 * the WAL size (frames of 4 KB pages, 64 MB) at which the writer waits for
 * it (see the top of the file); STORE_WAL_SOFT_FRAMES, the size from which
 * its passes follow each other without a pause; STORE_WAL_PARK_FRAMES,
 * how far below the cap the writer begins to wait. The bigger the cap, the
 * rarer the writer's wait (once per 16 MB of WAL with 1 KB pages), at
 * the cost of the WAL file's size on disk.
 * STORE_SLOW_COMMIT_US: a transaction whose queue wait, statements and
 * COMMIT take longer than this is logged at debug level with its parts.
 */
#define STORE_QUEUE_CAP 65536
#define STORE_BUSY_MS 5000
#define STORE_HEARTBEAT_MS 1000
#define STORE_RETRY_MS 50
#define STORE_CLOSE_RETRIES 20
#define STORE_CHECKPOINT_MS 1000
/* STORE_PURGE_BATCH: players one purge op examines (store_purge_guests),
 * so that one op holds the writer for a few milliseconds at most. */
#define STORE_PURGE_BATCH 1000
#define STORE_SLOW_COMMIT_US 10000
/* STORE_SWEEP_ROWS / STORE_SWEEP_MAX / STORE_SWEEP_PER_MOVE: the journal's
 * sweep (sweep_step): the fewest rows a step examines, the most, and the
 * budget each journaled move adds. */
#define STORE_SWEEP_ROWS 64
#define STORE_SWEEP_MAX 256
#define STORE_SWEEP_PER_MOVE 2
#define STORE_WAL_SOFT_FRAMES (STORE_WAL_CAP_FRAMES / 4 * 3)
#define STORE_WAL_PARK_FRAMES (STORE_WAL_CAP_FRAMES / 16)
#define STR_(x) #x
#define STR(x) STR_(x)

enum op_kind {
    OP_PLAYER,
    OP_GAME,
    OP_MOVE,
    OP_FINISH,
    OP_PURGE,
    OP_REGISTER,
    OP_TOKEN_PUT,
    OP_TOKEN_TOUCH,
    OP_TOKEN_REVOKE,
    OP_TOKENS_REVOKE,
    OP_TOKENS_EXPIRE,
    OP_SETTINGS,
    OP_KINDS
};

/* One queued write, owned by the queue until the writer frees it. */
struct op {
    enum op_kind kind;
    uint64_t seq;
    int64_t queued_us; /* CLOCK_MONOTONIC when enqueued */
    union {
        struct store_player player;
        struct store_game game; /* OP_GAME, OP_FINISH */
        struct {
            char gid[33];
            struct store_move m;
        } move;
        struct {
            int64_t before_ms;
            size_t n_keep;
        } purge;
        struct {
            struct store_account a;
            uint8_t dead[32], token[32];
        } reg;
        struct { /* OP_TOKEN_*, OP_TOKENS_*: what each needs */
            char pid[33];
            uint8_t hash[32];
            int64_t ms;
        } token;
        struct { /* OP_SETTINGS */
            char pid[33];
            int64_t ms;
        } settings;
    } u;
    char *pgn;                /* OP_FINISH only, owned */
    struct store_move *moves; /* OP_FINISH only: the game's, owned */
    size_t n_moves;
    struct store_rating *ratings; /* OP_FINISH of a rated game: white's
                                     and black's, owned; else NULL */
    char (*keep)[33];             /* OP_PURGE only, owned, sorted by strcmp */
    char *text;                   /* OP_SETTINGS only: the JSON, owned */
};

struct store {
    sqlite3 *w, *r, *c;
    int schema_version;
    int64_t last_heartbeat_ms;
    void (*on_commit)(void *arg);
    void *arg;

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
    sqlite3_stmt *r_settings;

    pthread_t thread, ckpt_thread;
    bool thread_started, ckpt_thread_started;
    pthread_cond_t ckpt_cv; /* wakes the checkpointer: stop, hold, or
                                 the writer waiting for a pass */
    pthread_mutex_t mu;
    pthread_cond_t cv; /* wakes the writer: q gains an op, stop, or
                              a checkpoint pass ended */
    struct op **q;     /* pending ops, q[0..q_n-1], guarded by mu */
    size_t q_n;
    struct op **batch;              /* the writer's array; swapped with q */
    bool stopping;                  /* guarded by mu */
    uint64_t next_seq;              /* guarded by mu */
    _Atomic uint64_t queued;        /* highest sequence number handed out */
    _Atomic uint64_t committed;     /* highest sequence number committed */
    _Atomic int64_t last_commit_ms; /* CLOCK_MONOTONIC of the writer's
                                       last committed transaction */
    char op_err[128]; /* why the last op undone in a savepoint failed
                         ("": none; writer thread only) */
    int wal_frames;   /* frames in the WAL after the writer's last
                              commit (its wal hook; writer thread only) */
    /* Where the next purge op goes on (writer thread only): players are
     * examined in (created_ms, pid) order after this key; a pass that
     * reaches the end starts the next one at the first player it kept. */
    int64_t purge_ms;
    char purge_pid[33];
    bool purge_kept; /* a player was kept since the last restart */
    int64_t kept_ms; /* ... the first of them */
    int wait_at;     /* the writer waits for a checkpoint pass when
                              wal_frames reaches this (writer thread only) */
    /* The journal's sweep (writer thread only): the next step examines
     * the rows after sweep_from; journal_end is the highest seq written;
     * sweep_rows, the rows the next step may examine. */
    int64_t sweep_from, journal_end, sweep_rows;
    uint64_t swept; /* journal rows it deleted */
    /* checkpointer and writer, guarded by mu */
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
    struct store_wal_stats stats;
    _Atomic uint64_t failures[STORE_FAIL_KINDS];
    struct store_timing timing;
};

/* ---- small helpers ---------------------------------------------------- */

/* Copies a string into a fixed array, truncating, always terminated. */
static void copy_str(char *dst, size_t len, const char *src)
{
    size_t n = src ? strnlen(src, len - 1) : 0;

    memcpy(dst, src ? src : "", n);
    dst[n] = '\0';
}

#define TERMINATE(a) ((a)[sizeof(a) - 1] = '\0')

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
    copy_str(dst, len, (const char *)sqlite3_column_text(st, i));
}

/* ---- statements ------------------------------------------------------- */

/* The game columns in the order both the upserts bind them (?1..?28) and
 * the reads return them (0..27). */
#define GAME_COLS                                                         \
    "gid, white_pid, white_name, black_pid, black_name, creator_pid, "    \
    "per_move, initial_s, increment_s, per_move_s, initial_fen, status, " \
    "result, reason, final_fen, draw_offer, created_ms, started_ms, "     \
    "ended_ms, white_ms, black_ms, rated, white_before, white_after, "    \
    "black_before, black_after, white_rd, black_rd"
#define GAME_N_COLS 28
#define GAME_PARAMS                                                      \
    "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, " \
    "?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28"
#define GAME_UPDATE                                                        \
    "white_pid = excluded.white_pid, white_name = excluded.white_name, "   \
    "black_pid = excluded.black_pid, black_name = excluded.black_name, "   \
    "creator_pid = excluded.creator_pid, per_move = excluded.per_move, "   \
    "initial_s = excluded.initial_s, increment_s = excluded.increment_s, " \
    "per_move_s = excluded.per_move_s, "                                   \
    "initial_fen = excluded.initial_fen, status = excluded.status, "       \
    "result = excluded.result, reason = excluded.reason, "                 \
    "final_fen = excluded.final_fen, draw_offer = excluded.draw_offer, "   \
    "created_ms = excluded.created_ms, started_ms = excluded.started_ms, " \
    "ended_ms = excluded.ended_ms, white_ms = excluded.white_ms, "         \
    "black_ms = excluded.black_ms, rated = excluded.rated, "               \
    "white_before = excluded.white_before, "                               \
    "white_after = excluded.white_after, "                                 \
    "black_before = excluded.black_before, "                               \
    "black_after = excluded.black_after, white_rd = excluded.white_rd, "   \
    "black_rd = excluded.black_rd"
#define MOVE_COLS "ply, uci, san, white_ms, black_ms, wall_ms, lag_ms"

/* A player's finished, non-aborted games as seen from one seat, strictly
 * older than (?2, ?3) in (ended_ms, gid) order; the seat's partial index
 * serves it in that order. */
#define LIST_SEAT(seat, other)                                 \
    "SELECT " GAME_COLS " FROM games WHERE " seat " = ?1 AND " \
    "status = 'ended' AND result <> '*' AND "                  \
    "(ended_ms, gid) < (?2, ?3)" other

struct stmt_def {
    size_t offset; /* of the sqlite3_stmt * in struct store */
    const char *sql;
};

#define DEF(field, sql)                    \
    {                                      \
        offsetof(struct store, field), sql \
    }

static const struct stmt_def writer_stmts[] = {
    DEF(w_begin, "BEGIN IMMEDIATE"),
    DEF(w_commit, "COMMIT"),
    DEF(w_rollback, "ROLLBACK"),
    DEF(w_player, "INSERT INTO players (pid, name, token_hash, created_ms) "
                  "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (pid) DO UPDATE SET "
                  "name = excluded.name, token_hash = excluded.token_hash, "
                  "created_ms = excluded.created_ms"),
    DEF(w_game, "INSERT INTO games (" GAME_COLS ") VALUES (" GAME_PARAMS
                ") ON CONFLICT (gid) DO UPDATE SET " GAME_UPDATE),
    DEF(w_finish,
        "INSERT INTO games (" GAME_COLS ", pgn) VALUES (" GAME_PARAMS
        ", ?29) ON CONFLICT (gid) DO UPDATE SET " GAME_UPDATE
        ", pgn = excluded.pgn"),
    DEF(w_move, "INSERT INTO journal (gid, " MOVE_COLS ") "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
    DEF(w_final_move, "INSERT OR REPLACE INTO moves (gid, " MOVE_COLS ") "
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
    DEF(r_game, "SELECT " GAME_COLS ", pgn FROM games WHERE gid = ?1"),
#define RATING_COLS                                                       \
    "pid, category, rating, rd, volatility, games, wins, draws, losses, " \
    "last_ms"
    DEF(r_rating, "SELECT " RATING_COLS " FROM ratings "
                  "WHERE pid = ?1 AND category = ?2"),
    DEF(r_ratings, "SELECT " RATING_COLS " FROM ratings WHERE pid = ?1"),
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
    DEF(r_moves, "SELECT " MOVE_COLS " FROM moves WHERE gid = ?1 "
                 "ORDER BY ply"),
    /* a live game's journal: no index by game, so a scan (only for a
     * game whose restore failed; see store_get_game) */
    DEF(r_journal_game, "SELECT " MOVE_COLS " FROM journal WHERE gid = ?1 "
                        "ORDER BY ply, seq"),
    /* every game's, for restore: one pass and one sort */
    DEF(r_journal, "SELECT gid, " MOVE_COLS " FROM journal "
                   "ORDER BY gid, ply, seq"),
    DEF(r_live, "SELECT " GAME_COLS " FROM games "
                "WHERE status IN ('waiting', 'started') "
                "ORDER BY created_ms, gid"),
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

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static sqlite3_stmt **stmt_slot(struct store *s, const struct stmt_def *d)
{
    return (sqlite3_stmt **)(void *)((char *)s + d->offset);
}

static int prepare_all(struct store *s, sqlite3 *db,
                       const struct stmt_def *defs, size_t n, char *err,
                       size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        if (sqlite3_prepare_v3(db, defs[i].sql, -1, SQLITE_PREPARE_PERSISTENT,
                               stmt_slot(s, &defs[i]), NULL) != SQLITE_OK) {
            errtext_set(err, errlen, "cannot prepare a statement: %s",
                        sqlite3_errmsg(db));
            return -1;
        }
    }
    return 0;
}

static void finalize_all(struct store *s, const struct stmt_def *defs,
                         size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sqlite3_stmt **st = stmt_slot(s, &defs[i]);
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

/* Binds the GAME_COLS parameters ?1..?28. Returns SQLITE_OK (0), or
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

static int cmp_pid(const void *a, const void *b)
{
    return strcmp(a, b);
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
    struct row {
        char pid[33];
        int64_t ms;
    } *rows = malloc(STORE_PURGE_BATCH * sizeof *rows);
    sqlite3_stmt *st = s->w_purge_scan;
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
            if (!s->purge_kept) {
                s->purge_kept = true;
                s->kept_ms = rows[i].ms;
            }
            continue;
        }
        sqlite3_bind_text(s->w_purge_del, 1, rows[i].pid, -1, SQLITE_STATIC);
        rc = step_once(s->w_purge_del);
        sqlite3_clear_bindings(s->w_purge_del);
        if (rc != SQLITE_DONE) {
            free(rows);
            return rc;
        }
    }
    if (n == STORE_PURGE_BATCH) {
        s->purge_ms = rows[n - 1].ms;
        copy_str(s->purge_pid, sizeof s->purge_pid, rows[n - 1].pid);
    } else if (s->purge_kept) {
        /* the end: start again (just) before the first player kept */
        s->purge_ms = s->kept_ms - 1;
        s->purge_pid[0] = '\0';
        s->purge_kept = false;
    } else if (n > 0) {
        s->purge_ms = rows[n - 1].ms;
        copy_str(s->purge_pid, sizeof s->purge_pid, rows[n - 1].pid);
    }
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
    const struct store_account *a = &op->u.reg.a;
    int rc;

    if ((rc = step_once(s->w_savepoint)) != SQLITE_DONE)
        return rc;
    sqlite3_bind_text(s->w_account, 1, a->pid, -1, SQLITE_STATIC);
    sqlite3_bind_text(s->w_account, 2, a->username, -1, SQLITE_STATIC);
    sqlite3_bind_text(s->w_account, 3, a->password_hash, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s->w_account, 4, a->created_ms);
    if ((rc = step_clear(s->w_account)) != SQLITE_DONE)
        goto undo;
    sqlite3_bind_text(s->w_player_account, 1, a->pid, -1, SQLITE_STATIC);
    sqlite3_bind_text(s->w_player_account, 2, a->username, -1, SQLITE_STATIC);
    sqlite3_bind_blob(s->w_player_account, 3, op->u.reg.dead, 32,
                      SQLITE_STATIC);
    if ((rc = step_clear(s->w_player_account)) != SQLITE_DONE)
        goto undo;
    if (sqlite3_changes(s->w) != 1) {
        copy_str(s->op_err, sizeof s->op_err, "no such player");
        rc = SQLITE_CONSTRAINT;
        goto undo;
    }
    sqlite3_bind_blob(s->w_token_put, 1, op->u.reg.token, 32, SQLITE_STATIC);
    sqlite3_bind_text(s->w_token_put, 2, a->pid, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s->w_token_put, 3, a->created_ms);
    if ((rc = step_clear(s->w_token_put)) != SQLITE_DONE)
        goto undo;
    return step_once(s->w_release);
undo:
    if (!s->op_err[0])
        copy_str(s->op_err, sizeof s->op_err, sqlite3_errmsg(s->w));
    step_once(s->w_rollback_to);
    step_once(s->w_release);
    return rc;
}

/* A rating row and its history point (the game gid ended at the row's
 * last_ms) inside the open transaction: SQLITE_DONE or the failing code. */
static int apply_rating(struct store *s, const struct store_rating *r,
                        const char *gid)
{
    sqlite3_stmt *st = s->w_rating;
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
    st = s->w_rating_point;
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
    sqlite3_stmt *st = s->w_finish;
    int rc;

    if ((rc = step_once(s->w_savepoint)) != SQLITE_DONE)
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
        if (bind_move(s->w_final_move, op->u.game.gid, &op->moves[i]) !=
            SQLITE_OK) {
            sqlite3_clear_bindings(s->w_final_move);
            rc = SQLITE_RANGE;
            goto undo;
        }
        if ((rc = step_clear(s->w_final_move)) != SQLITE_DONE)
            goto undo;
    }
    for (int c = 0; op->ratings && c < 2; c++)
        if ((rc = apply_rating(s, &op->ratings[c], op->u.game.gid)) !=
            SQLITE_DONE)
            goto undo;
    return step_once(s->w_release);
undo:
    copy_str(s->op_err, sizeof s->op_err, sqlite3_errmsg(s->w));
    step_once(s->w_rollback_to);
    step_once(s->w_release);
    return rc;
}

/* Applies one op inside the open transaction: the step's result code. */
static int apply_op(struct store *s, const struct op *op)
{
    sqlite3_stmt *st;
    int rc = SQLITE_OK;

    switch (op->kind) {
    case OP_PURGE:
        return apply_purge(s, op);
    case OP_REGISTER:
        return apply_register(s, op);
    case OP_TOKEN_PUT:
        st = s->w_token_put;
        rc |= sqlite3_bind_blob(st, 1, op->u.token.hash, 32, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 2, op->u.token.pid, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 3, op->u.token.ms);
        break;
    case OP_TOKEN_TOUCH:
        st = s->w_token_touch;
        rc |= sqlite3_bind_blob(st, 1, op->u.token.hash, 32, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 2, op->u.token.ms);
        break;
    case OP_TOKEN_REVOKE:
        st = s->w_token_revoke;
        rc |= sqlite3_bind_blob(st, 1, op->u.token.hash, 32, SQLITE_STATIC);
        break;
    case OP_TOKENS_REVOKE:
        st = s->w_tokens_revoke;
        rc |= sqlite3_bind_text(st, 1, op->u.token.pid, -1, SQLITE_STATIC);
        break;
    case OP_TOKENS_EXPIRE:
        st = s->w_tokens_expire;
        rc |= sqlite3_bind_int64(st, 1, op->u.token.ms);
        break;
    case OP_SETTINGS:
        st = s->w_settings;
        rc |= sqlite3_bind_text(st, 1, op->u.settings.pid, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 2, op->text, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 3, op->u.settings.ms);
        break;
    case OP_PLAYER:
        st = s->w_player;
        rc |= sqlite3_bind_text(st, 1, op->u.player.pid, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_text(st, 2, op->u.player.name, -1, SQLITE_STATIC);
        rc |= sqlite3_bind_blob(st, 3, op->u.player.token_hash, 32,
                                SQLITE_STATIC);
        rc |= sqlite3_bind_int64(st, 4, op->u.player.created_ms);
        break;
    case OP_GAME:
        st = s->w_game;
        rc |= bind_game(st, &op->u.game, op->u.game.status);
        break;
    case OP_FINISH:
        return apply_finish(s, op);
    case OP_MOVE:
        st = s->w_move;
        rc |= bind_move(st, op->u.move.gid, &op->u.move.m);
        break;
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

static const char *op_name(enum op_kind k)
{
    static const char *const names[] = {
        "player",       "game",          "move",          "finish",
        "purge",        "register",      "token_put",     "token_touch",
        "token_revoke", "tokens_revoke", "tokens_expire", "settings"};
    _Static_assert(sizeof names / sizeof *names == OP_KINDS,
                   "a name for every op kind");
    return names[k];
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
static int sweep_step(struct store *s, int64_t moves, int64_t *from,
                      int64_t *rows, int64_t *swept)
{
    int64_t k, to, max = STORE_SWEEP_MAX + STORE_SWEEP_PER_MOVE * moves;
    int rc;

    if (*rows < STORE_SWEEP_ROWS)
        return SQLITE_DONE;
    k = *rows < max ? *rows : max;
    to = *from + k;
    sqlite3_bind_int64(s->w_sweep, 1, *from);
    sqlite3_bind_int64(s->w_sweep, 2, to);
    if ((rc = step_once(s->w_sweep)) != SQLITE_DONE)
        return rc;
    *swept += sqlite3_changes(s->w);
    *from = to >= s->journal_end ? 0 : to;
    *rows -= k;
    return SQLITE_DONE;
}

/* One transaction: every op of the batch plus, when beat_ms is not 0, the
 * heartbeat, and a step of the journal's sweep when it is due. Returns 0
 * when committed, -1 when rolled back; *t_begin and *t_commit are when
 * BEGIN and COMMIT were stepped (sysclock_us). */
static int commit_batch(struct store *s, struct op **ops, size_t n,
                        int64_t beat_ms, int64_t *t_begin, int64_t *t_commit)
{
    int rc;
    char q[256];
    int64_t from = s->sweep_from, rows = s->sweep_rows, swept = 0, moves = 0;

    *t_begin = sysclock_us(CLOCK_MONOTONIC);
    rc = step_once(s->w_begin);

    if (rc != SQLITE_DONE)
        goto fail;
    if (beat_ms)
        rows += STORE_SWEEP_ROWS;
    for (size_t i = 0; i < n; i++) {
        rc = apply_op(s, ops[i]);
        if (rc == SQLITE_DONE && ops[i]->kind == OP_MOVE) {
            s->journal_end = sqlite3_last_insert_rowid(s->w);
            rows += STORE_SWEEP_PER_MOVE;
            moves++;
        }
        if (rc == SQLITE_DONE)
            continue;
        if (!op_error(rc))
            goto fail;
        atomic_fetch_add(&s->failures[STORE_FAIL_WRITE_DROPPED], 1);
        log_error("event=store_write_dropped what=%s seq=%llu error=%s",
                  op_name(ops[i]->kind), (unsigned long long)ops[i]->seq,
                  log_quote(q, sizeof q,
                            s->op_err[0] ? s->op_err : sqlite3_errmsg(s->w)));
        s->op_err[0] = '\0';
    }
    if (beat_ms) {
        sqlite3_bind_int64(s->w_beat, 1, beat_ms);
        if ((rc = step_once(s->w_beat)) != SQLITE_DONE)
            goto fail;
    }
    if ((rc = sweep_step(s, moves, &from, &rows, &swept)) != SQLITE_DONE)
        goto fail;
    *t_commit = sysclock_us(CLOCK_MONOTONIC);
    if ((rc = step_once(s->w_commit)) != SQLITE_DONE)
        goto fail;
    s->sweep_from = from;
    s->sweep_rows = rows;
    s->swept += (uint64_t)swept;
    return 0;
fail:
    atomic_fetch_add(&s->failures[STORE_FAIL_COMMIT], 1);
    log_error("event=store_commit_failed code=%d error=%s", rc,
              log_quote(q, sizeof q, sqlite3_errmsg(s->w)));
    if (!sqlite3_get_autocommit(s->w))
        step_once(s->w_rollback);
    return -1;
}

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

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static bool stop_requested(struct store *s)
{
    bool stop;

    pthread_mutex_lock(&s->mu);
    stop = s->stopping;
    pthread_mutex_unlock(&s->mu);
    return stop;
}

/* The writer connection's wal hook, after each commit: how big the WAL
 * is. A commit adds at least one frame, so fewer frames than before mean
 * that it started the WAL over. */
static int on_wal_commit(void *arg, sqlite3 *db, const char *name, int frames)
{
    struct store *s = arg;

    (void)db;
    (void)name;
    if (frames <= s->wal_frames) /* started over */
        s->wait_at = STORE_WAL_CAP_FRAMES;
    pthread_mutex_lock(&s->mu);
    s->commit_gen++;
    if (frames <= s->wal_frames)
        s->stats.wal_restarts++;
    s->stats.wal_frames = frames;
    if (frames > s->stats.wal_frames_max)
        s->stats.wal_frames_max = frames;
    if (frames >= STORE_WAL_SOFT_FRAMES)
        pthread_cond_signal(&s->ckpt_cv); /* passes back to back */
    else
        s->ckpt_park = false;
    pthread_mutex_unlock(&s->mu);
    s->wal_frames = frames;
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
    int64_t t0 = sysclock_us(CLOCK_MONOTONIC), waited;
    uint64_t gen;
    bool caught_up;

    pthread_mutex_lock(&s->mu);
    gen = s->commit_gen;
    if (!must && (s->ckpt_held ||
                  (s->ckpt_begun != s->ckpt_ended && s->gen_begun != gen))) {
        s->ckpt_park = true;
        pthread_mutex_unlock(&s->mu);
        return 0;
    }
    s->ckpt_wanted = true;
    s->stats.writer_waits++;
    pthread_cond_signal(&s->ckpt_cv);
    while (!s->stopping && s->gen_ended != gen)
        pthread_cond_wait(&s->cv, &s->mu);
    caught_up = s->gen_ended == gen && s->stats.ckpt_copied == s->wal_frames;
    s->ckpt_park = false;
    waited = sysclock_us(CLOCK_MONOTONIC) - t0;
    s->stats.writer_wait_us += waited;
    hist_add(&s->timing.ckpt_wait, waited);
    pthread_mutex_unlock(&s->mu);
    s->wait_at = caught_up ? STORE_WAL_CAP_FRAMES
                           : s->wal_frames + STORE_WAL_CAP_FRAMES;
    return waited;
}

/*
 * The writer: waits for ops (or the next heartbeat), takes everything
 * queued, commits it, publishes the sequence number and wakes the loop.
 * On stop it drains the queue, records a last heartbeat and returns.
 */
static void *writer_main(void *arg)
{
    struct store *s = arg;
    int64_t next_beat = 0; /* CLOCK_MONOTONIC ms; 0: beat at once */
    int64_t waited_us = 0; /* for a checkpoint before this transaction */

    pthread_mutex_lock(&s->mu);
    for (;;) {
        struct op **ops;
        size_t n;
        bool stopping, beat, lost = false;
        int tries = 0, fails = 0;
        int64_t t_begin, t_try = 0, t_commit = 0, t_end, queue_us = 0;

        while (s->q_n == 0 && !s->stopping &&
               sysclock_ms(CLOCK_MONOTONIC) < next_beat) {
            struct timespec ts = {(time_t)(next_beat / 1000),
                                  (long)(next_beat % 1000) * 1000000L};
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
        while (commit_batch(s, ops, n, beat ? sysclock_ms(CLOCK_REALTIME) : 0,
                            &t_try, &t_commit) != 0) {
            /* Keep the batch (order matters) until it commits; once
             * store_close waits, give up after a bounded number of tries. */
            fails++;
            if (stop_requested(s) && ++tries >= STORE_CLOSE_RETRIES) {
                atomic_fetch_add(&s->failures[STORE_FAIL_WRITES_LOST], 1);
                log_error("event=store_writes_lost count=%zu", n);
                lost = true;
                break;
            }
            sleep_ms(STORE_RETRY_MS);
        }
        t_end = sysclock_us(CLOCK_MONOTONIC);
        if (beat)
            next_beat = sysclock_ms(CLOCK_MONOTONIC) + STORE_HEARTBEAT_MS;
        if (!lost)
            atomic_store(&s->last_commit_ms, sysclock_ms(CLOCK_MONOTONIC));
        if (n > 0 && !lost) {
            /* sequence numbers commit in the order they were handed out */
            assert(ops[n - 1]->seq >= atomic_load(&s->committed));
            atomic_store(&s->committed, ops[n - 1]->seq);
            if (s->on_commit)
                s->on_commit(s->arg);
        }
        if (n > 0 && t_end - ops[0]->queued_us > STORE_SLOW_COMMIT_US)
            log_debug("event=store_slow_commit ops=%zu queue_us=%lld "
                      "ckpt_wait_us=%lld statements_us=%lld commit_us=%lld "
                      "retries=%d wal_frames=%d",
                      n, (long long)queue_us, (long long)waited_us,
                      (long long)(lost ? 0 : t_commit - t_try),
                      (long long)(lost ? 0 : t_end - t_commit), fails,
                      s->wal_frames);
        for (size_t i = 0; i < n; i++)
            op_free(ops[i]);
        waited_us = 0;
        if (s->wal_frames >= s->wait_at - STORE_WAL_PARK_FRAMES && !stopping)
            waited_us = wait_for_checkpoint(s, s->wal_frames >= s->wait_at);

        pthread_mutex_lock(&s->mu);
        if (!lost) {
            if (n > 0)
                hist_add(&s->timing.queue, queue_us);
            hist_add(&s->timing.statements, t_commit - t_try);
            hist_add(&s->timing.commit, t_end - t_commit);
        }
        s->timing.retries += (uint64_t)fails;
        s->stats.journal_swept = s->swept;
        if (stopping && s->q_n == 0)
            break;
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Under mu: the WAL is past the soft mark and something was committed
 * since the last pass began, so the next pass should begin at once. */
static bool eager(const struct store *s)
{
    return s->stats.wal_frames >= STORE_WAL_SOFT_FRAMES &&
           s->commit_gen != s->gen_begun;
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
    int64_t next = sysclock_ms(CLOCK_MONOTONIC) + STORE_CHECKPOINT_MS;

    pthread_mutex_lock(&s->mu);
    for (;;) {
        int rc, log = -1, copied = -1;
        uint64_t gen;

        while (!s->stopping &&
               (s->ckpt_held ||
                (!s->ckpt_wanted && (s->ckpt_park || !eager(s)) &&
                 sysclock_ms(CLOCK_MONOTONIC) < next))) {
            struct timespec ts = {(time_t)(next / 1000),
                                  (long)(next % 1000) * 1000000L};
            if (s->ckpt_held)
                pthread_cond_wait(&s->ckpt_cv, &s->mu);
            else
                pthread_cond_timedwait(&s->ckpt_cv, &s->mu, &ts);
        }
        if (s->stopping)
            break;
        s->ckpt_begun++;
        gen = s->gen_begun = s->commit_gen;
        /* this pass serves a waiting writer (it commits nothing while it
         * waits): without this, passes with nothing to copy would follow
         * each other until the writer runs again */
        s->ckpt_wanted = false;
        pthread_mutex_unlock(&s->mu);
        rc = sqlite3_wal_checkpoint_v2(s->c, NULL, SQLITE_CHECKPOINT_PASSIVE,
                                       &log, &copied);
        if (rc != SQLITE_OK && rc != SQLITE_BUSY) {
            char q[300];
            atomic_fetch_add(&s->failures[STORE_FAIL_CHECKPOINT], 1);
            log_warn("event=store_checkpoint_failed code=%d error=%s", rc,
                     log_quote(q, sizeof q, sqlite3_errmsg(s->c)));
        }
        pthread_mutex_lock(&s->mu);
        s->ckpt_ended = s->ckpt_begun;
        s->gen_ended = gen;
        s->stats.checkpoints++;
        s->stats.ckpt_log = rc == SQLITE_OK ? log : -1;
        s->stats.ckpt_copied = rc == SQLITE_OK ? copied : -1;
        pthread_cond_signal(&s->cv); /* a writer waiting for this pass */
        next = sysclock_ms(CLOCK_MONOTONIC) + STORE_CHECKPOINT_MS;
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

void store_hold_checkpoints(struct store *s, int hold)
{
    pthread_mutex_lock(&s->mu);
    s->ckpt_held = hold != 0;
    pthread_cond_signal(&s->ckpt_cv);
    while (hold && s->ckpt_begun != s->ckpt_ended) { /* a pass runs */
        pthread_mutex_unlock(&s->mu);
        sleep_ms(1);
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
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

/* The database holds token hashes: it is its owner's alone, whatever the
 * umask. It is created 0600 here when missing (SQLite gives its -wal and
 * -shm the database file's mode), and a database, -wal or -shm that
 * others may read (written by an older version) is narrowed to its
 * owner's bits, with a warning. */
static int own_files(const char *path, char *err, size_t errlen)
{
    static const char *const suffix[] = {"", "-wal", "-shm"};
    char p[PATH_MAX];

    for (size_t i = 0; i < N_OF(suffix); i++) {
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

int store_open(struct store **out, const char *path,
               void (*on_commit)(void *arg), void *arg, char *err,
               size_t errlen)
{
    struct store *s;
    pthread_condattr_t ca;
    int64_t beat = 0;

    *out = NULL;
    if (!path || !*path) {
        errtext_set(err, errlen, "no database path given");
        return -1;
    }
    s = calloc(1, sizeof *s);
    if (!s) {
        errtext_set(err, errlen, "out of memory");
        return -1;
    }
    s->on_commit = on_commit;
    s->arg = arg;
    s->next_seq = 1;
    s->wait_at = STORE_WAL_CAP_FRAMES;

    if (pthread_condattr_init(&ca) != 0) {
        errtext_set(err, errlen, "cannot create a condition variable");
        free(s);
        return -1;
    }
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_mutex_init(&s->mu, NULL) != 0) {
        pthread_condattr_destroy(&ca);
        errtext_set(err, errlen, "cannot create a mutex");
        free(s);
        return -1;
    }
    if (pthread_cond_init(&s->cv, &ca) != 0) {
        pthread_condattr_destroy(&ca);
        pthread_mutex_destroy(&s->mu);
        errtext_set(err, errlen, "cannot create a condition variable");
        free(s);
        return -1;
    }
    if (pthread_cond_init(&s->ckpt_cv, &ca) != 0) {
        pthread_condattr_destroy(&ca);
        pthread_cond_destroy(&s->cv);
        pthread_mutex_destroy(&s->mu);
        errtext_set(err, errlen, "cannot create a condition variable");
        free(s);
        return -1;
    }
    pthread_condattr_destroy(&ca);

    if (own_files(path, err, errlen) != 0)
        goto fail;
    if (sqlite3_open_v2(path, &s->w,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        NULL) != SQLITE_OK) {
        errtext_set(err, errlen, "%s: %s", path,
                    s->w ? sqlite3_errmsg(s->w) : "out of memory");
        goto fail;
    }
    if (configure_writer(s->w, path, err, errlen) != 0 ||
        check_intact(s->w, path, err, errlen) != 0 ||
        migrate(s->w, path, &s->schema_version, err, errlen) != 0 ||
        prepare_all(s, s->w, writer_stmts, N_OF(writer_stmts), err, errlen) !=
            0)
        goto fail;
    /* from here on, no automatic checkpoints (see the top of the file) */
    sqlite3_wal_hook(s->w, on_wal_commit, s);
    if (query_int(s->w, "SELECT value FROM meta WHERE key = 'heartbeat_ms'",
                  &beat) != 0) {
        errtext_set(err, errlen, "%s: %s", path, sqlite3_errmsg(s->w));
        goto fail;
    }
    s->last_heartbeat_ms = beat;
    if (query_int(s->w, "SELECT coalesce(max(seq), 0) FROM journal",
                  &s->journal_end) != 0) {
        errtext_set(err, errlen, "%s: %s", path, sqlite3_errmsg(s->w));
        goto fail;
    }

    if (sqlite3_open_v2(path, &s->r, SQLITE_OPEN_READONLY, NULL) !=
        SQLITE_OK) {
        errtext_set(err, errlen, "%s (read-only): %s", path,
                    s->r ? sqlite3_errmsg(s->r) : "out of memory");
        goto fail;
    }
    sqlite3_extended_result_codes(s->r, 1);
    sqlite3_busy_timeout(s->r, STORE_BUSY_MS);
    if (prepare_all(s, s->r, reader_stmts, N_OF(reader_stmts), err, errlen) !=
        0)
        goto fail;

    if (sqlite3_open_v2(path, &s->c, SQLITE_OPEN_READWRITE, NULL) !=
        SQLITE_OK) {
        errtext_set(err, errlen, "%s (checkpointer): %s", path,
                    s->c ? sqlite3_errmsg(s->c) : "out of memory");
        goto fail;
    }
    sqlite3_extended_result_codes(s->c, 1);
    sqlite3_exec(s->c, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);

    s->q = malloc(STORE_QUEUE_CAP * sizeof *s->q);
    s->batch = malloc(STORE_QUEUE_CAP * sizeof *s->batch);
    if (!s->q || !s->batch) {
        errtext_set(err, errlen, "out of memory");
        goto fail;
    }
    atomic_store(&s->last_commit_ms, sysclock_ms(CLOCK_MONOTONIC));
    if (pthread_create(&s->thread, NULL, writer_main, s) != 0) {
        errtext_set(err, errlen, "cannot start the writer thread");
        goto fail;
    }
    s->thread_started = true;
    if (pthread_create(&s->ckpt_thread, NULL, checkpointer_main, s) != 0) {
        errtext_set(err, errlen, "cannot start the checkpointer thread");
        goto fail;
    }
    s->ckpt_thread_started = true;
    *out = s;
    return 0;
fail:
    store_close(s);
    return -1;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->stopping = true;
    pthread_cond_signal(&s->cv);
    pthread_cond_signal(&s->ckpt_cv);
    pthread_mutex_unlock(&s->mu);
    if (s->thread_started)
        pthread_join(s->thread, NULL);
    if (s->ckpt_thread_started)
        pthread_join(s->ckpt_thread, NULL);
    for (size_t i = 0; i < s->q_n; i++) /* only if the writer never ran */
        op_free(s->q[i]);
    free(s->q);
    free(s->batch);
    finalize_all(s, reader_stmts, N_OF(reader_stmts));
    finalize_all(s, writer_stmts, N_OF(writer_stmts));
    /* The writer last: closing the last connection checkpoints the WAL
     * into the database file and removes it. */
    sqlite3_close(s->c);
    sqlite3_close(s->r);
    sqlite3_close(s->w);
    pthread_cond_destroy(&s->ckpt_cv);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

int store_schema_version(const struct store *s)
{
    return s->schema_version;
}

/* ---- enqueue ---------------------------------------------------------- */

/* Appends op to the queue and returns its sequence number; 0 (and frees
 * op) when the queue is full or op is NULL. */
static uint64_t enqueue(struct store *s, struct op *op)
{
    uint64_t seq = 0;

    if (!op)
        return 0;
    pthread_mutex_lock(&s->mu);
    if (s->q_n < STORE_QUEUE_CAP && !s->stopping) {
        seq = op->seq = s->next_seq++;
        op->queued_us = sysclock_us(CLOCK_MONOTONIC);
        s->q[s->q_n++] = op;
        atomic_store(&s->queued, seq);
        if (s->q_n == 1)
            pthread_cond_signal(&s->cv);
    }
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
    TERMINATE(c->gid);
    TERMINATE(c->white_pid);
    TERMINATE(c->white_name);
    TERMINATE(c->black_pid);
    TERMINATE(c->black_name);
    TERMINATE(c->creator_pid);
    TERMINATE(c->initial_fen);
    TERMINATE(c->status);
    TERMINATE(c->result);
    TERMINATE(c->reason);
    TERMINATE(c->final_fen);
    TERMINATE(c->draw_offer);
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
    TERMINATE(op->u.player.pid);
    TERMINATE(op->u.player.name);
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

uint64_t store_put_move(struct store *s, const char *gid,
                        const struct store_move *m)
{
    struct op *op;

    if (!s || !gid || !*gid || !m || m->ply < 1)
        return 0;
    if (!(op = op_new(OP_MOVE)))
        return 0;
    copy_str(op->u.move.gid, sizeof op->u.move.gid, gid);
    op->u.move.m = *m;
    TERMINATE(op->u.move.m.uci);
    TERMINATE(op->u.move.m.san);
    if (!op->u.move.m.uci[0]) {
        op_free(op);
        return 0;
    }
    return enqueue(s, op);
}

/* True for a category's name as the ratings table's CHECK has it. */
static bool valid_category(const char *c)
{
    static const char *const names[] = {"bullet", "blitz", "rapid",
                                        "classical", "per_move"};

    for (size_t i = 0; i < N_OF(names); i++)
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
        TERMINATE(x->pid);
        TERMINATE(x->category);
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
            TERMINATE(op->moves[i].uci);
            TERMINATE(op->moves[i].san);
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
    copy_str(op->u.game.status, sizeof op->u.game.status, "ended");
    return enqueue(s, op);
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
            copy_str(op->keep[i], sizeof op->keep[i], keep[i]);
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
    TERMINATE(op->u.reg.a.pid);
    TERMINATE(op->u.reg.a.username);
    TERMINATE(op->u.reg.a.password_hash);
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
        copy_str(op->u.token.pid, sizeof op->u.token.pid, pid);
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
    copy_str(op->u.settings.pid, sizeof op->u.settings.pid, pid);
    op->u.settings.ms = now_ms;
    if (!(op->text = strdup(json))) {
        op_free(op);
        return 0;
    }
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
        "commit", "write_dropped", "writes_lost", "read", "checkpoint"};
    return names[kind];
}

int64_t store_last_heartbeat_ms(const struct store *s)
{
    return s->last_heartbeat_ms;
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

/* Fills g from columns 0..27 (GAME_COLS order). */
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

static int read_failed(struct store *s, sqlite3_stmt *st)
{
    char q[256];

    atomic_fetch_add(&s->failures[STORE_FAIL_READ], 1);
    log_error("event=store_read_failed error=%s",
              log_quote(q, sizeof q, sqlite3_errmsg(s->r)));
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

int store_find_player_by_token(struct store *s, const uint8_t hash[32],
                               struct store_player *out)
{
    if (!hash)
        return 0;
    sqlite3_bind_blob(s->r_token, 1, hash, 32, SQLITE_STATIC);
    return find_player(s, s->r_token, out);
}

int store_find_player(struct store *s, const char *pid,
                      struct store_player *out)
{
    if (!pid)
        return 0;
    sqlite3_bind_text(s->r_player, 1, pid, -1, SQLITE_STATIC);
    return find_player(s, s->r_player, out);
}

int store_find_account(struct store *s, const char *username,
                       struct store_account *out)
{
    sqlite3_stmt *st = s->r_account;
    int rc;

    if (!username)
        return 0;
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

int store_find_account_token(struct store *s, const uint8_t hash[32],
                             int64_t since_ms, struct store_player *out,
                             int64_t *last_used_ms)
{
    sqlite3_stmt *st = s->r_account_token;
    int rc;

    if (!hash)
        return 0;
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

/* Fills r from RATING_COLS. */
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

int store_get_rating(struct store *s, const char *pid, const char *category,
                     struct store_rating *out)
{
    sqlite3_stmt *st = s->r_rating;
    int rc;

    if (!pid || !category)
        return 0;
    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, category, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        row_rating(st, out);
    return row_end(s, st, rc);
}

int store_player_ratings(struct store *s, const char *pid,
                         struct store_rating *out, size_t max, size_t *n)
{
    sqlite3_stmt *st = s->r_ratings;
    int rc;

    *n = 0;
    if (!pid)
        return 0;
    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (*n < max)
            row_rating(st, &out[(*n)++]);
    if (rows_end(s, st, rc) < 0) {
        *n = 0;
        return -1;
    }
    return 0;
}

int store_is_account(struct store *s, const char *pid)
{
    sqlite3_stmt *st = s->r_is_account;
    int rc;

    if (!pid)
        return 0;
    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    return row_end(s, st, rc);
}

int store_get_settings(struct store *s, const char *pid, char **out)
{
    sqlite3_stmt *st = s->r_settings;
    const char *text;
    int rc;

    *out = NULL;
    if (!pid)
        return 0;
    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        text = (const char *)sqlite3_column_text(st, 0);
        if (!(*out = strdup(text ? text : "{}")))
            rc = SQLITE_NOMEM;
    }
    return row_end(s, st, rc);
}

int store_rating_history(struct store *s, const char *pid,
                         const char *category, int limit,
                         struct store_rating_point **out, size_t *n)
{
    sqlite3_stmt *st = s->r_history;
    struct store_rating_point *v;
    size_t k = 0;
    int rc;

    *out = NULL;
    *n = 0;
    if (!pid || !category || limit < 1)
        return -1;
    v = malloc((size_t)limit * sizeof *v);
    if (!v)
        return -1;
    sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, category, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, limit);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && k < (size_t)limit) {
        v[k].ms = sqlite3_column_int64(st, 0);
        v[k].rating = sqlite3_column_double(st, 1);
        v[k].rd = sqlite3_column_double(st, 2);
        k++;
    }
    if (rows_end(s, st, rc) < 0) {
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
    sqlite3_stmt *st = s->r_board;
    struct store_leader *v;
    size_t k = 0;
    int rc;

    *out = NULL;
    *n = 0;
    if (!category || limit < 1)
        return -1;
    v = malloc((size_t)limit * sizeof *v);
    if (!v)
        return -1;
    sqlite3_bind_text(st, 1, category, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, limit);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && k < (size_t)limit) {
        memset(&v[k], 0, sizeof v[k]);
        col_str(st, 0, v[k].pid, sizeof v[k].pid);
        col_str(st, 1, v[k].name, sizeof v[k].name);
        v[k].rating = sqlite3_column_double(st, 2);
        v[k].rd = sqlite3_column_double(st, 3);
        v[k].games = sqlite3_column_int(st, 4);
        k++;
    }
    if (rows_end(s, st, rc) < 0) {
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

/* A growing list of one game's moves. */
struct move_list {
    struct store_move *v; /* malloc'ed */
    size_t n, cap;
};

/* Adds the move in columns col.. of st's row (MOVE_COLS) to l, in ply
 * order: rows come sorted by ply and then by when they were written, and
 * the last one written for a ply replaces the others. 0 or -1 (out of
 * memory). */
static int move_list_add(struct move_list *l, sqlite3_stmt *st, int col)
{
    struct store_move m;

    memset(&m, 0, sizeof m);
    m.ply = sqlite3_column_int(st, col);
    col_str(st, col + 1, m.uci, sizeof m.uci);
    col_str(st, col + 2, m.san, sizeof m.san);
    m.white_ms = sqlite3_column_int64(st, col + 3);
    m.black_ms = sqlite3_column_int64(st, col + 4);
    m.wall_ms = sqlite3_column_int64(st, col + 5);
    m.lag_ms = sqlite3_column_int64(st, col + 6);
    if (l->n > 0 && l->v[l->n - 1].ply == m.ply) {
        l->v[l->n - 1] = m;
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
    l->v[l->n++] = m;
    return 0;
}

/* Reads gid's moves in ply order with st (r_moves for a finished game,
 * r_journal_game for one in play) into *out (malloc'ed; NULL when
 * empty). Returns 0 or -1. */
static int read_moves(struct store *s, sqlite3_stmt *st, const char *gid,
                      struct store_move **out, size_t *n_out)
{
    struct move_list l = {NULL, 0, 0};
    int rc;

    sqlite3_bind_text(st, 1, gid, -1, SQLITE_TRANSIENT);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (move_list_add(&l, st, 0) != 0)
            goto fail;
    if (rc != SQLITE_DONE)
        goto fail;
    sqlite3_reset(st);
    *out = l.v;
    *n_out = l.n;
    return 0;
fail:
    read_failed(s, st);
    free(l.v);
    return -1;
}

/* Read transactions give a multi-statement read one snapshot. */
static int read_begin(struct store *s)
{
    return step_once(s->r_begin) == SQLITE_DONE ? 0 : -1;
}

static void read_end(struct store *s)
{
    step_once(s->r_end);
}

int store_get_game(struct store *s, const char *gid, struct store_game *g,
                   struct store_move **moves, size_t *n_moves, char **pgn)
{
    sqlite3_stmt *st = s->r_game;
    int rc, found = 0;

    if (moves)
        *moves = NULL;
    if (n_moves)
        *n_moves = 0;
    if (pgn)
        *pgn = NULL;
    if (!gid)
        return 0;
    if (read_begin(s) != 0)
        return read_failed(s, st);
    sqlite3_bind_text(st, 1, gid, -1, SQLITE_TRANSIENT);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, GAME_N_COLS);
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
    if (found == 1 && moves) {
        size_t n = 0;
        sqlite3_stmt *ms = strcmp(g->status, "ended") ? s->r_journal_game
                                                      : s->r_moves;
        if (read_moves(s, ms, gid, moves, &n) != 0) {
            found = -1;
        } else if (n_moves) {
            *n_moves = n;
        }
    }
    read_end(s);
    if (found == -1 && pgn) {
        free(*pgn);
        *pgn = NULL;
    }
    return found;
}

struct live_game {
    struct store_game g;
    struct move_list l;
};

static int cmp_live_gid(const void *a, const void *b)
{
    const struct live_game *x = *(const struct live_game *const *)a;
    const struct live_game *y = *(const struct live_game *const *)b;

    return strcmp(x->g.gid, y->g.gid);
}

/* Reads the whole journal, sorted by game, into the moves of the games
 * of v (rows of other games, ended ones not yet swept, are skipped): one
 * pass, merged with v sorted the same way (SQLite's BINARY collation
 * compares like strcmp). 0 or -1. */
static int read_journal(struct store *s, struct live_game *v, size_t n)
{
    sqlite3_stmt *st = s->r_journal;
    struct live_game **by_gid = malloc((n ? n : 1) * sizeof *by_gid);
    size_t i = 0;
    int rc;

    if (!by_gid)
        return -1;
    for (size_t k = 0; k < n; k++)
        by_gid[k] = &v[k];
    qsort(by_gid, n, sizeof *by_gid, cmp_live_gid);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *gid = (const char *)sqlite3_column_text(st, 0);
        int c = 1;
        if (!gid)
            continue;
        while (i < n && (c = strcmp(by_gid[i]->g.gid, gid)) < 0)
            i++;
        if (i == n)
            break;
        if (c == 0 && move_list_add(&by_gid[i]->l, st, 1) != 0) {
            rc = SQLITE_NOMEM;
            break;
        }
    }
    free(by_gid);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        read_failed(s, st);
        return -1;
    }
    sqlite3_reset(st);
    return 0;
}

int store_load_live(struct store *s,
                    int (*cb)(void *arg, const struct store_game *g,
                              const struct store_move *moves, size_t n),
                    void *arg)
{
    sqlite3_stmt *st = s->r_live;
    struct live_game *v = NULL;
    size_t n = 0, cap = 0;
    int rc, ret = -1;

    /* Everything is read first, in one snapshot, so that cb may call
     * other store functions. */
    if (read_begin(s) != 0)
        return read_failed(s, st);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            struct live_game *nv = realloc(v, ncap * sizeof *v);
            if (!nv) {
                rc = SQLITE_NOMEM;
                break;
            }
            v = nv;
            cap = ncap;
        }
        row_game(st, &v[n].g);
        memset(&v[n].l, 0, sizeof v[n].l);
        n++;
    }
    if (rc != SQLITE_DONE) {
        read_failed(s, st);
        goto out;
    }
    sqlite3_reset(st);
    if (read_journal(s, v, n) != 0)
        goto out;
    read_end(s);
    ret = 0;
    for (size_t i = 0; i < n; i++)
        if (cb(arg, &v[i].g, v[i].l.v, v[i].l.n) != 0)
            break;
out:
    if (ret != 0)
        read_end(s);
    for (size_t i = 0; i < n; i++)
        free(v[i].l.v);
    free(v);
    return ret;
}

int store_list_player_games(struct store *s, const char *pid,
                            const char *before_gid, int limit,
                            struct store_game_list *out)
{
    sqlite3_stmt *st = s->r_list;
    size_t cap = 0;
    int rc;

    out->games = NULL;
    out->n = 0;
    out->has_more = 0;
    if (!pid || !*pid || limit < 1)
        return -1;
    if (read_begin(s) != 0)
        return read_failed(s, st);
    if (before_gid) {
        sqlite3_bind_text(s->r_ended, 1, before_gid, -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(s->r_ended);
        if (rc == SQLITE_ROW)
            sqlite3_bind_int64(st, 2, sqlite3_column_int64(s->r_ended, 0));
        sqlite3_reset(s->r_ended);
        if (rc == SQLITE_DONE) { /* unknown or live game: an empty page */
            read_end(s);
            return 0;
        }
        if (rc != SQLITE_ROW) {
            read_end(s);
            return read_failed(s, s->r_ended);
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
        if (out->n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            struct store_game *nv;
            if (ncap > (size_t)limit)
                ncap = (size_t)limit;
            nv = realloc(out->games, ncap * sizeof *nv);
            if (!nv) {
                rc = SQLITE_NOMEM;
                break;
            }
            out->games = nv;
            cap = ncap;
        }
        row_game(st, &out->games[out->n++]);
    }
    if (rc != SQLITE_DONE) {
        read_failed(s, st);
        read_end(s);
        store_game_list_clear(out);
        return -1;
    }
    sqlite3_reset(st);
    read_end(s);
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
            sleep_ms(10);
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

/* ---- DEBUG STUB (not for commit): cluster functions over SQLite ---- */
static char dbg_gid[4096][33];
static int64_t dbg_ep[4096];
static int dbg_n;
uint64_t store_take_epoch(struct store *s, const char *gid, int64_t epoch)
{
    int i;
    for (i = 0; i < dbg_n && strcmp(dbg_gid[i], gid); i++)
        ;
    if (i == dbg_n && dbg_n < 4096)
        snprintf(dbg_gid[dbg_n++], 33, "%s", gid);
    dbg_ep[i] = epoch;
    return store_expire_tokens(s, 0);
}
int store_get_epoch(struct store *s, const char *gid, int64_t *epoch)
{
    (void)s;
    for (int i = 0; i < dbg_n; i++)
        if (!strcmp(dbg_gid[i], gid)) {
            *epoch = dbg_ep[i];
            return 1;
        }
    *epoch = 0;
    return 0;
}
size_t store_take_fenced(struct store *s, char (*gids)[33], size_t max)
{
    (void)s; (void)gids; (void)max;
    return 0;
}
int store_player_live_games(struct store *s, const char *pid,
                            char (*gids)[33], size_t max, size_t *n)
{
    sqlite3_stmt *st;
    *n = 0;
    if (sqlite3_prepare_v2(s->r, "SELECT gid FROM games WHERE status IN ('waiting','started') AND (white_pid = ?1 OR black_pid = ?1) ORDER BY created_ms, rowid", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, pid, -1, SQLITE_TRANSIENT);
    while (sqlite3_step(st) == SQLITE_ROW && *n < max)
        snprintf(gids[(*n)++], 33, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return 0;
}
int store_live_gids(struct store *s, const char *after, char (*gids)[33],
                    size_t max, size_t *n)
{
    sqlite3_stmt *st;
    *n = 0;
    if (sqlite3_prepare_v2(s->r, "SELECT gid FROM games WHERE status IN ('waiting','started') AND gid > ?1 ORDER BY gid LIMIT ?2", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, after, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
    while (sqlite3_step(st) == SQLITE_ROW && *n < max)
        snprintf(gids[(*n)++], 33, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return 0;
}
