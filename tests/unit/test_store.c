/*
 * test_store.c - the SQLite store: the behaviour cases every backend
 * shares (store_cases.c) against a SQLite file, and what is SQLite's own:
 * migrations and their versions, the journal's sweep, the WAL and its
 * checkpointer, the online backup, open errors.
 *
 * Every test works in its own mkdtemp directory, removed afterwards. The
 * tests look at the database file with a separate raw sqlite3 connection
 * where the store's own answers would not prove anything.
 */
#include <check.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "migrations.h"
#include "move_assert.h"
#include "store/store.h"
#include "lag_rows.h"
#include "reader_cases.h"
#include "store_cases.h"
#include "sysclock.h"
#include "tmpdir.h"
#include "check_main.h"

static char dir[64];
static char db_path[128];
static sqlite3 *raw; /* the harness's connection, opened when first used */

static void setup(void)
{
    tmpdir_make(dir, sizeof dir, "test_store");
    snprintf(db_path, sizeof db_path, "%s/chess.db", dir);
    store_cases_reset();
}

static void teardown(void)
{
    sqlite3_close(raw);
    raw = NULL;
    tmpdir_remove(dir);
}

static struct store *open_store(const char *path)
{
    struct store *s = NULL;
    char err[256] = "";

    ck_assert_msg(store_open(&s, path, store_cases_on_commit, NULL, err,
                             sizeof err) == 0,
                  "store_open: %s", err);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(store_backend_name(s), "sqlite");
    return s;
}

/* A raw connection for looking behind the store's back. */
static sqlite3 *raw_open(const char *path)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    return db;
}

static int64_t raw_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = -1;

    ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void raw_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, msg ? msg : "?");
    sqlite3_free(msg);
}

/* ---- the harness of the shared cases (store_cases.h) ------------------ */

static sqlite3 *h_raw(void)
{
    if (!raw)
        raw = raw_open(db_path);
    return raw;
}

static struct store *h_open(void)
{
    return open_store(db_path);
}

static int64_t h_query_int(const char *sql)
{
    return raw_int(h_raw(), sql);
}

static void h_exec(const char *sql)
{
    raw_exec(h_raw(), sql);
}

/* The write lock: the writer's BEGIN IMMEDIATE waits for it. */
static void h_hold_writer(void)
{
    raw_exec(h_raw(), "BEGIN IMMEDIATE");
}

static void h_release_writer(void)
{
    raw_exec(h_raw(), "ROLLBACK");
}

/* A trigger that fails as a constraint (RAISE(ABORT)). */
static void h_refuse_history_of(const char *pid)
{
    char sql[256];

    raw_exec(h_raw(), "DROP TRIGGER IF EXISTS refuse_history");
    if (!pid)
        return;
    snprintf(sql, sizeof sql,
             "CREATE TRIGGER refuse_history BEFORE INSERT ON "
             "rating_history WHEN NEW.pid = '%s' BEGIN SELECT "
             "RAISE(ABORT, 'refused by the test'); END",
             pid);
    raw_exec(h_raw(), sql);
}

static int64_t h_heartbeat(void)
{
    return raw_int(h_raw(), "SELECT value FROM meta WHERE key = "
                            "'heartbeat_ms'");
}

static int h_open_reader(struct store **out, char *err, size_t errlen)
{
    return store_open_reader(out, db_path, NULL, err, errlen);
}

static const struct store_harness sqlite_harness = {
    .open = h_open,
    .query_int = h_query_int,
    .exec = h_exec,
    .hold_writer = h_hold_writer,
    .release_writer = h_release_writer,
    .refuse_history_of = h_refuse_history_of,
    .heartbeat = h_heartbeat,
    .open_reader = h_open_reader,
};

/* ---- SQLite's own ----------------------------------------------------- */

START_TEST(fresh_database_is_migrated)
{
    struct store *s = open_store(db_path);
    sqlite3 *db = raw_open(db_path);

    /* the version the store reports is what the file records */
    ck_assert_int_ge(store_schema_version(s), 1);
    ck_assert_int_eq(raw_int(db, "PRAGMA user_version"),
                     store_schema_version(s));
    ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM sqlite_schema WHERE "
                                 "type = 'table' AND name IN ('players', "
                                 "'games', 'moves', 'meta', 'journal')"),
                     5);
    ck_assert_int_eq(raw_int(db, "PRAGMA page_size"), STORE_PAGE_SIZE);
    ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM sqlite_schema WHERE "
                                 "type = 'index' AND name IN "
                                 "('games_white_ended', "
                                 "'games_black_ended', 'games_status')"),
                     3);
    sqlite3_stmt *st;
    ck_assert_int_eq(
        sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL),
        SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    ck_assert_int_eq(store_last_heartbeat_ms(s), 0);
    ck_assert_uint_eq(store_committed(s), 0);
    ck_assert_uint_eq(store_queue_depth(s), 0);
    sqlite3_close(db);
    store_close(s);
}
END_TEST

/* Queues n moves of gid (plies from ply0 + 1) while another connection
 * holds the write lock, so that they commit in one transaction or two
 * (the writer may take the first alone before it blocks), and waits for
 * them. */
static void moves_in_one_batch(struct store *s, const char *gid, int ply0,
                               int n)
{
    sqlite3 *db = raw_open(db_path);
    uint64_t seq = 0;

    raw_exec(db, "BEGIN IMMEDIATE");
    for (int i = 1; i <= n; i++) {
        struct store_move m = move(ply0 + i, i % 2 ? "g1f3" : "g8f6", "x");
        seq = store_put_move(s, gid, &m);
    }
    raw_exec(db, "COMMIT");
    sqlite3_close(db);
    wait_committed(s, seq);
}

/* When the disk is slow, transactions carry hundreds of moves each; the
 * sweep then examines as many rows as those moves earned in the same
 * transaction, not only a small step's, so it keeps pace: the 600 rows
 * of an ended game are gone after 300 moves, 299 of them in one
 * transaction. */
START_TEST(journal_sweep_keeps_pace_with_big_transactions)
{
    struct store *s = open_store(db_path);
    struct store_player a = player("pidA", "pidA", 1);
    struct store_player b = player("pidB", "pidB", 2);
    struct store_game done = game("done", "pidA", "pidB", "started", 10);
    struct store_game live = game("live", "pidB", "pidA", "started", 20);
    sqlite3 *db;

    store_put_player(s, &a);
    store_put_player(s, &b);
    store_put_game(s, &live);
    end_game(&done, "1-0", "resignation", 30);
    wait_committed(s, store_finish_game(s, &done, NULL, 0, "pgn", NULL));
    store_close(s);
    /* 600 journal rows of the ended game (seq 1-600), as a crash right
     * after its end would leave them */
    db = raw_open(db_path);
    raw_exec(db, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
                 "FROM n WHERE i < 600) INSERT INTO journal (gid, ply, uci, "
                 "san, white_ms, black_ms, wall_ms) SELECT 'done', i, "
                 "'e2e4', 'e4', 1, 1, 1 FROM n");
    sqlite3_close(db);
    /* reopened, the sweep starts at the first row with no budget: 300
     * moves in one or two transactions earn 600 rows (and the first
     * heartbeat 64); with a step of at most STORE_SWEEP_MAX (256) a
     * transaction they would examine 322 or 512 at most */
    s = open_store(db_path);
    moves_in_one_batch(s, "live", 0, 300);
    db = raw_open(db_path);
    ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM journal WHERE gid = "
                                 "'done'"),
                     0);
    ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM journal WHERE gid = "
                                 "'live'"),
                     300);
    sqlite3_close(db);
    store_close(s);
}
END_TEST

START_TEST(newer_schema_is_refused)
{
    struct store *s = open_store(db_path);
    int version = store_schema_version(s);
    char sql[64], err[256] = "";
    sqlite3 *db;

    store_close(s);
    db = raw_open(db_path);
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", version + 1);
    raw_exec(db, sql);
    sqlite3_close(db);

    s = (struct store *)&s; /* must be reset to NULL */
    ck_assert_int_eq(store_open(&s, db_path, NULL, NULL, err, sizeof err),
                     -1);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, "newer") != NULL, "err: %s", err);
    ck_assert_msg(strstr(err, db_path) != NULL, "err: %s", err);

    /* and the file was not touched */
    db = raw_open(db_path);
    ck_assert_int_eq(raw_int(db, "PRAGMA user_version"), version + 1);
    sqlite3_close(db);
}
END_TEST

START_TEST(open_errors_are_sentences)
{
    struct store *s = NULL;
    char err[256] = "";
    char path[200];

    snprintf(path, sizeof path, "%s/no/such/dir/x.db", dir);
    ck_assert_int_eq(store_open(&s, path, NULL, NULL, err, sizeof err), -1);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, path) != NULL, "err: %s", err);

    /* a file that is not a database */
    FILE *f = fopen(db_path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("this is not an SQLite database, not even close to one......\n"
          "................................................................",
          f);
    fclose(f);
    err[0] = '\0';
    ck_assert_int_eq(store_open(&s, db_path, NULL, NULL, err, sizeof err),
                     -1);
    ck_assert_ptr_null(s);
    ck_assert_msg(strlen(err) > strlen(db_path), "err: %s", err);
}
END_TEST

START_TEST(backup_copies_a_live_database)
{
    struct store *s = open_store(db_path);
    struct store_player a = player("pidA", "pidA", 1);
    struct store_game g = game("g1", "pidA", "", "started", 1);
    struct store_game got;
    char dest[160], err[256] = "", *pgn = NULL;
    struct store *copy;

    store_put_player(s, &a);
    end_game(&g, "0-1", "resignation", 50);
    wait_committed(s, store_finish_game(s, &g, NULL, 0, "1. e4 0-1\n", NULL));
    snprintf(dest, sizeof dest, "%s/backup.db", dir);

    /* from another process, while this one has the store open and
     * writing (the heartbeat, one more game) */
    char self[512];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    ck_assert_int_gt(len, 0);
    self[len] = '\0';
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) { /* a fresh process: this binary in backup mode */
        execl(self, "test_store", "--backup", db_path, dest, (char *)NULL);
        _exit(127);
    }
    struct store_game g2 = game("g2", "pidA", "", "waiting", 2);
    ck_assert_uint_gt(store_put_game(s, &g2), 0);
    int status = -1;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    store_close(s);

    copy = open_store(dest);
    ck_assert_int_eq(store_get_game(copy, "g1", &got, NULL, NULL, &pgn), 1);
    ck_assert_str_eq(got.status, "ended");
    ck_assert_str_eq(got.result, "0-1");
    ck_assert_str_eq(pgn, "1. e4 0-1\n");
    free(pgn);
    ck_assert_int_eq(store_find_player(copy, "pidA", &a), 1);
    store_close(copy);

    /* a missing source is an error with the path in it */
    snprintf(dest, sizeof dest, "%s/missing.db", dir);
    ck_assert_int_eq(store_backup(dest, db_path, err, sizeof err), -1);
    ck_assert_msg(strstr(err, dest) != NULL, "err: %s", err);
}
END_TEST

/* The WAL's tests. A move commit writes a frame or two (its journal
 * page, now and then a split); a WAL file of f frames is 32 + f *
 * (STORE_PAGE_SIZE + 24)
 * bytes, and SQLite never shrinks it below the most it held (except to
 * journal_size_limit, twice the cap). */
#define FRAME_BYTES (STORE_PAGE_SIZE + 24)
#define COMMIT_FRAMES 8 /* more than one move's commit ever writes */

static struct store_wal_stats wal_stats(struct store *s)
{
    struct store_wal_stats st;
    store_wal_stats(s, &st);
    return st;
}

static off_t file_size(const char *path)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    return st.st_size;
}

static off_t wal_size(void)
{
    char wal[sizeof db_path + 8];
    snprintf(wal, sizeof wal, "%s-wal", db_path);
    return file_size(wal);
}

/* A game g1 between pidA and pidB, committed. */
static void start_game(struct store *s)
{
    struct store_player a = player("pidA", "pidA", 1);
    struct store_player b = player("pidB", "pidB", 2);
    struct store_game g = game("g1", "pidA", "pidB", "started", 5000);

    store_put_player(s, &a);
    store_put_player(s, &b);
    wait_committed(s, store_put_game(s, &g));
}

/* Queues move `ply` of g1 and waits until it has committed: one commit per
 * move, back to back, as under a steady stream of moves. */
static void commit_move(struct store *s, int ply)
{
    struct store_move m = move(ply, "e2e4", "e4");
    uint64_t seq = store_put_move(s, "g1", &m);

    ck_assert_uint_gt(seq, 0);
    while (store_committed(s) < seq)
        sched_yield();
}

/* Back-to-back commits leave the checkpointer no moment when it could
 * copy the log end (the WAL grew to 14,000 frames from 12,000 commits
 * with the checkpointer alone). At the cap the writer waits for one pass,
 * and the next commit starts the WAL over: the WAL never holds more than
 * the cap plus one commit, whatever the disk or the scheduler do. */
START_TEST(wal_stays_within_its_cap_under_back_to_back_commits)
{
    struct store *s = open_store(db_path);
    struct store_wal_stats st;

    start_game(s);
    for (int ply = 1; ply <= 4 * STORE_WAL_CAP_FRAMES; ply++) {
        commit_move(s, ply);
        st = wal_stats(s);
        ck_assert_msg(st.wal_frames <= STORE_WAL_CAP_FRAMES + COMMIT_FRAMES,
                      "ply %d: WAL of %d frames", ply, st.wal_frames);
    }
    st = wal_stats(s);
    /* each commit writes a frame at least: four caps' worth. (How many
     * of the restarts followed a wait is not fixed: past the soft mark
     * the checkpointer's passes go back to back, and one that falls
     * between two of these commits starts the WAL over with no wait;
     * writer_waits_for_the_checkpointer_and_never_checkpoints shows the
     * wait.) */
    ck_assert_uint_ge(st.wal_restarts, 3);
    ck_assert_int_le(st.wal_frames_max, STORE_WAL_CAP_FRAMES + COMMIT_FRAMES);
    ck_assert_int_le(wal_size(), 32 + (STORE_WAL_CAP_FRAMES + COMMIT_FRAMES) *
                                          FRAME_BYTES);
    store_close(s);
}
END_TEST

/* The writer never copies a page into the database itself: with the
 * checkpointer held, the database file does not change while the WAL
 * fills up to the cap, and at the cap the writer waits (the next move is
 * not committed) instead of checkpointing. Let go, the checkpointer's
 * pass releases it and the WAL starts over. */
START_TEST(writer_waits_for_the_checkpointer_and_never_checkpoints)
{
    struct store *s = open_store(db_path);
    struct store_wal_stats st;
    struct store_move m;
    off_t db_before;
    uint64_t seq, restarts;
    int ply = 1;

    start_game(s);
    store_hold_checkpoints(s, 1);
    db_before = file_size(db_path);
    restarts = wal_stats(s).wal_restarts;
    while (wal_stats(s).wal_frames < STORE_WAL_CAP_FRAMES) {
        commit_move(s, ply++);
        ck_assert_int_lt(ply, 3 * STORE_WAL_CAP_FRAMES);
    }
    m = move(ply, "e2e4", "e4");
    seq = store_put_move(s, "g1", &m);
    ck_assert_uint_gt(seq, 0);
    for (int i = 0; i < 10000 && wal_stats(s).writer_waits == 0; i++)
        sleep_ms(1);
    st = wal_stats(s);
    ck_assert_uint_lt(store_committed(s), seq);
    ck_assert_int_eq(file_size(db_path), db_before);
    ck_assert_uint_eq(st.wal_restarts, restarts);
    ck_assert_uint_eq(st.writer_waits, 1);

    store_hold_checkpoints(s, 0);
    wait_committed(s, seq);
    st = wal_stats(s);
    ck_assert_uint_eq(st.wal_restarts, restarts + 1);
    ck_assert_int_le(st.wal_frames, COMMIT_FRAMES);
    ck_assert_int_gt(file_size(db_path), db_before);
    store_close(s);
}
END_TEST

/* Below the cap nobody waits: once the writer is idle through one pass,
 * the pass copies the log end and the next commit starts the WAL over.
 * That next commit may be the writer's own heartbeat (every second, as
 * the checkpointer's passes are, so the two can keep falling within a
 * poll of each other): a heartbeat that started the WAL over is the
 * same event, and the test waits for whichever comes first. */
START_TEST(wal_starts_over_after_an_idle_pass_without_waiting)
{
    struct store *s = open_store(db_path);
    struct store_wal_stats st;
    uint64_t restarts;
    int frames, i;

    start_game(s);
    store_hold_checkpoints(s, 1); /* no restart among the 300 */
    for (int ply = 1; ply <= 300; ply++)
        commit_move(s, ply);
    st = wal_stats(s);
    store_hold_checkpoints(s, 0);
    frames = st.wal_frames;
    restarts = st.wal_restarts;
    ck_assert_int_gt(frames, COMMIT_FRAMES);
    for (i = 0; i < 20000; i++) {
        st = wal_stats(s);
        if (st.wal_restarts > restarts ||
            (st.ckpt_copied == st.wal_frames && st.ckpt_log == st.wal_frames))
            break;
        sleep_ms(1);
    }
    ck_assert_int_lt(i, 20000);
    commit_move(s, 301);
    st = wal_stats(s);
    ck_assert_uint_gt(st.wal_restarts, restarts);
    /* started over: what is left is move 301 and at most a heartbeat */
    ck_assert_int_le(st.wal_frames, COMMIT_FRAMES);
    ck_assert_int_lt(st.wal_frames, frames);
    ck_assert_uint_eq(st.writer_waits, 0);
    store_close(s);
}
END_TEST

/* A reader that keeps a snapshot (an operator's open transaction) stops
 * the WAL from starting over, but not the writer: it waits for one pass
 * per cap's worth of frames and goes on. Once the reader is done, the WAL
 * starts over and its file is cut back to journal_size_limit. */
START_TEST(reader_snapshot_delays_the_restart_not_the_writer)
{
    struct store *s = open_store(db_path);
    sqlite3 *db = raw_open(db_path);
    struct store_wal_stats st;
    off_t grown;
    int ply = 1;

    start_game(s);
    raw_exec(db, "BEGIN");
    ck_assert_int_ge(raw_int(db, "SELECT count(*) FROM moves"), 0);
    while (wal_stats(s).wal_frames < 2 * STORE_WAL_CAP_FRAMES + 100) {
        commit_move(s, ply++);
        ck_assert_int_lt(ply, 6 * STORE_WAL_CAP_FRAMES);
    }
    st = wal_stats(s);
    ck_assert_uint_eq(st.wal_restarts, 0);
    ck_assert_uint_ge(st.writer_waits, 2);
    /* it waited once per cap's worth, not on every commit */
    ck_assert_uint_le(st.writer_waits, 2);
    grown = wal_size();
    ck_assert_int_gt(grown, 2 * STORE_WAL_CAP_FRAMES * FRAME_BYTES);

    raw_exec(db, "COMMIT");
    while (wal_stats(s).wal_restarts == 0) {
        commit_move(s, ply++);
        ck_assert_int_lt(ply, 12 * STORE_WAL_CAP_FRAMES);
    }
    ck_assert_int_le(wal_size(), 2 * STORE_WAL_CAP_FRAMES * FRAME_BYTES);
    ck_assert_int_lt(wal_size(), grown);
    sqlite3_close(db);
    store_close(s);
}
END_TEST

/* The leaderboard query reads the ratings_board index in order: the
 * best rows of a category, never a scan of every rating. */
START_TEST(leaderboard_reads_its_index)
{
    struct store *s = open_store(db_path);
    sqlite3 *db = raw_open(db_path);
    sqlite3_stmt *st;
    char plan[1024] = "";

    ck_assert_int_eq(
        sqlite3_prepare_v2(
            db,
            "EXPLAIN QUERY PLAN SELECT r.pid, p.name, r.rating, r.rd, "
            "r.games FROM ratings r JOIN players p ON p.pid = r.pid "
            "WHERE r.category = 'blitz' AND r.rd <= 110.0 AND EXISTS "
            "(SELECT 1 FROM accounts a WHERE a.pid = r.pid) ORDER BY "
            "r.rating DESC, r.pid LIMIT 100",
            -1, &st, NULL),
        SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        strncat(plan, (const char *)sqlite3_column_text(st, 3),
                sizeof plan - strlen(plan) - 2);
        strcat(plan, ";");
    }
    sqlite3_finalize(st);
    ck_assert_msg(strstr(plan, "USING INDEX ratings_board"), "%s", plan);
    ck_assert_msg(!strstr(plan, "SCAN r"), "%s", plan);
    ck_assert_msg(!strstr(plan, "TEMP B-TREE"), "%s", plan);
    sqlite3_close(db);
    store_close(s);
}
END_TEST

/* 31 zero bytes in hex */
#define Z31 "00000000000000000000000000000000000000000000000000000000000000"

/* A database of schema version 2 (the first two migrations, as servers
 * before accounts left it) with guests, a live game with its journal and
 * a finished one: opened by this store it is upgraded in place and keeps
 * every row; the guests' tokens still find them. */
START_TEST(version_2_database_upgrades_in_place)
{
    sqlite3 *db = raw_open(db_path);
    struct store_player out;
    struct store_game g;
    struct store_move *moves = NULL;
    size_t n = 0;
    char *pgn = NULL;
    uint8_t hash[32];

    ck_assert_int_ge((int)migrations_count, 3);
    raw_exec(db, "PRAGMA journal_mode = WAL");
    for (int i = 0; i < 2; i++)
        raw_exec(db, migrations_list[i].sql);
    raw_exec(db, "PRAGMA user_version = 2");
    raw_exec(db, "INSERT INTO meta VALUES ('schema_version', 2)");
    raw_exec(db, "INSERT INTO players VALUES ('pidW', 'white', x'" Z31
                 "01', 1700000000000), ('pidB', 'black', x'" Z31
                 "02', 1700000000001)");
    raw_exec(db, "INSERT INTO games (gid, white_pid, white_name, "
                 "black_pid, black_name, creator_pid, per_move, "
                 "initial_s, increment_s, initial_fen, status, "
                 "created_ms, started_ms, white_ms, black_ms) VALUES "
                 "('live', 'pidW', 'white', 'pidB', 'black', 'pidW', 0, "
                 "300, 2, 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w "
                 "KQkq - 0 1', 'started', 1700000000100, 1700000000200, "
                 "299000, 300000)");
    raw_exec(db, "INSERT INTO moves VALUES ('live', 1, 'e2e4', 'e4', "
                 "299000, 300000, 1700000000300)");
    raw_exec(db, "INSERT INTO games (gid, white_pid, white_name, "
                 "black_pid, black_name, per_move, per_move_s, "
                 "initial_fen, status, result, reason, created_ms, "
                 "ended_ms, pgn) VALUES ('done', 'pidB', 'black', "
                 "'pidW', 'white', 1, 60, 'rnbqkbnr/pppppppp/8/8/8/8/"
                 "PPPPPPPP/RNBQKBNR w KQkq - 0 1', 'ended', '0-1', "
                 "'resignation', 1700000000400, 1700000000500, '[pgn]')");
    raw_exec(db, "INSERT INTO moves VALUES ('done', 1, 'd2d4', 'd4', "
                 "60000, 60000, 1700000000450)");
    sqlite3_close(db);

    struct store *s = open_store(db_path);
    ck_assert_int_eq(store_schema_version(s), (int)migrations_count);
    memset(hash, 0, sizeof hash);
    hash[31] = 1;
    ck_assert_int_eq(store_find_player_by_token(s, hash, &out), 1);
    ck_assert_str_eq(out.pid, "pidW");
    ck_assert_str_eq(out.name, "white");
    hash[31] = 2;
    ck_assert_int_eq(store_find_player_by_token(s, hash, &out), 1);
    ck_assert_str_eq(out.pid, "pidB");
    ck_assert_int_eq(store_get_game(s, "live", &g, &moves, &n, NULL), 1);
    ck_assert_str_eq(g.status, "started");
    ck_assert_str_eq(g.white_pid, "pidW");
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(moves[0].san, "e4");
    /* 0007: the game in play's move went to the journal, the finished
     * game's stayed; the file keeps its 4 KB pages */
    db = raw_open(db_path);
    ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM journal WHERE "
                                 "gid = 'live' AND uci = 'e2e4'"),
                     1);
    ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM moves WHERE "
                                 "gid = 'done' AND uci = 'd2d4'"),
                     1);
    ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM moves"), 1);
    ck_assert_int_eq(raw_int(db, "PRAGMA page_size"), 4096);
    sqlite3_close(db);
    ck_assert_int_eq(store_get_game(s, "done", &g, NULL, NULL, &pgn), 1);
    ck_assert_str_eq(g.reason, "resignation");
    ck_assert_str_eq(pgn, "[pgn]");
    ck_assert_int_eq(g.rated, 0); /* games from before are casual */
    free(pgn);
    /* and the new tables work on it */
    struct store_account a = account("pidB", "blackie", 1800000000000);
    uint8_t dead[32], t[32];
    fill(dead, 0xee);
    fill(t, 0x55);
    wait_committed(s, store_register(s, &a, dead, t));
    ck_assert_int_eq(store_find_account_token(s, t, 0, &out, NULL), 1);
    ck_assert_str_eq(out.pid, "pidB");
    /* and the ratings: the live game ends rated */
    struct store_rating r[2] = {rating_row("pidW", "blitz", 1400, 1, 2000),
                                rating_row("pidB", "blitz", 1600, 1, 2000)};
    struct store_rating got;
    ck_assert_int_eq(store_get_game(s, "live", &g, NULL, NULL, NULL), 1);
    end_game(&g, "0-1", "resignation", 2000);
    g.rated = 1;
    g.rd_before[0] = g.rd_before[1] = 350;
    wait_committed(s, store_finish_game(s, &g, moves, n, "pgn", r));
    free(moves);
    ck_assert_int_eq(store_get_rating(s, "pidB", "blitz", &got), 1);
    assert_rating_eq(&got, &r[1]);
    store_close(s);

    db = raw_open(db_path);
    ck_assert_int_eq(raw_int(db, "PRAGMA user_version"),
                     (int64_t)migrations_count);
    ck_assert_int_eq(raw_int(db, "SELECT value FROM meta WHERE key = "
                                 "'schema_version'"),
                     (int64_t)migrations_count);
    ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM players"), 2);
    ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM games"), 2);
    ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM moves"), 2);
    sqlite3_close(db);
}
END_TEST

/* A database of schema version 8 (before the lag totals): migration 0009
 * sums each finished game's lag credits by side from its moves, White's
 * the odd plies of a game White started and the even ones of a game
 * Black started; a live game's are left for its next row write. */
START_TEST(version_8_database_gets_lag_totals)
{
    sqlite3 *db = raw_open(db_path);
    struct store_game g;

    ck_assert_int_ge((int)migrations_count, 9);
    raw_exec(db, "PRAGMA journal_mode = WAL");
    for (int i = 0; i < 8; i++)
        raw_exec(db, migrations_list[i].sql);
    raw_exec(db, "PRAGMA user_version = 8");
    raw_exec(db, "INSERT INTO players VALUES ('pidW', 'white', x'" Z31
                 "01', 1700000000000), ('pidB', 'black', x'" Z31
                 "02', 1700000000001)");
    raw_exec(db, LAG_ROWS_GAMES);
    raw_exec(db, LAG_ROWS_MOVES);
    raw_exec(db, "INSERT INTO journal (gid, ply, uci, san, white_ms, "
                 "black_ms, wall_ms, lag_ms) VALUES "
                 "('live', 1, 'e2e4', 'e4', 1, 1, 1, 90)");
    sqlite3_close(db);

    struct store *s = open_store(db_path);
    ck_assert_int_eq(store_schema_version(s), (int)migrations_count);
    ck_assert_int_eq(store_get_game(s, "w1", &g, NULL, NULL, NULL), 1);
    ck_assert_int_eq(g.lag_ms[0], 350);
    ck_assert_int_eq(g.lag_ms[1], 40);
    ck_assert_int_eq(store_get_game(s, "b1", &g, NULL, NULL, NULL), 1);
    ck_assert_int_eq(g.lag_ms[0], 30);
    ck_assert_int_eq(g.lag_ms[1], 70);
    ck_assert_int_eq(store_get_game(s, "live", &g, NULL, NULL, NULL), 1);
    ck_assert_int_eq(g.lag_ms[0], 0);
    ck_assert_int_eq(g.lag_ms[1], 0);
    store_close(s);
}
END_TEST

/* A database of schema version 9 (before the openings): migration 0010
 * takes each finished game's ECO code and opening name from its PGN's
 * tags; a game whose PGN has none, and a live one, get none. */
START_TEST(version_9_database_gets_openings)
{
    sqlite3 *db = raw_open(db_path);
    struct store_game g;

    ck_assert_int_ge((int)migrations_count, 10);
    raw_exec(db, "PRAGMA journal_mode = WAL");
    for (int i = 0; i < 9; i++)
        raw_exec(db, migrations_list[i].sql);
    raw_exec(db, "PRAGMA user_version = 9");
    raw_exec(db, "INSERT INTO players VALUES ('pidW', 'white', x'" Z31
                 "01', 1700000000000), ('pidB', 'black', x'" Z31
                 "02', 1700000000001)");
    raw_exec(db, LAG_ROWS_GAMES);
    raw_exec(db, "UPDATE games SET pgn = '[Event \"Casual game\"]\n"
                 "[ECO \"C44\"]\n[Opening \"King''s Pawn Game: Tayler "
                 "Opening\"]\n\n1. e4 e5 1-0\n' WHERE gid = 'w1'");
    raw_exec(db, "UPDATE games SET pgn = '[Event \"Casual game\"]\n\n"
                 "1... Kd7 1/2-1/2\n' WHERE gid = 'b1'");
    sqlite3_close(db);

    struct store *s = open_store(db_path);
    ck_assert_int_eq(store_schema_version(s), (int)migrations_count);
    ck_assert_int_eq(store_get_game(s, "w1", &g, NULL, NULL, NULL), 1);
    ck_assert_str_eq(g.eco, "C44");
    ck_assert_str_eq(g.opening, "King's Pawn Game: Tayler Opening");
    ck_assert_int_eq(store_get_game(s, "b1", &g, NULL, NULL, NULL), 1);
    ck_assert_str_eq(g.eco, "");
    ck_assert_str_eq(g.opening, "");
    ck_assert_int_eq(store_get_game(s, "live", &g, NULL, NULL, NULL), 1);
    ck_assert_str_eq(g.eco, "");
    store_close(s);
}
END_TEST

/* A reader never creates a database nor migrates one: a missing file and
 * a schema older than this binary's are refused, each with what to do,
 * and the file is left as it was. */
START_TEST(reader_refuses_what_it_cannot_read)
{
    struct store *r = (struct store *)&r;
    char err[512] = "", missing[600];
    sqlite3 *db;

    snprintf(missing, sizeof missing, "%s.none", db_path);
    ck_assert_int_eq(store_open_reader(&r, missing, NULL, err, sizeof err),
                     -1);
    ck_assert_ptr_null(r);
    ck_assert_msg(strstr(err, missing), "%s", err);
    ck_assert_int_eq(access(missing, F_OK), -1);
    ck_assert_int_eq(store_open_reader(&r, "", "", err, sizeof err), -1);
    db = raw_open(db_path);
    for (int i = 0; i < 8; i++)
        raw_exec(db, migrations_list[i].sql);
    raw_exec(db, "PRAGMA user_version = 8");
    sqlite3_close(db);
    ck_assert_int_eq(store_open_reader(&r, db_path, NULL, err, sizeof err),
                     -1);
    ck_assert_ptr_null(r);
    ck_assert_msg(strstr(err, "schema is version 8") &&
                      strstr(err, "start this chess-server on it once"),
                  "%s", err);
    db = raw_open(db_path);
    ck_assert_int_eq(raw_int(db, "PRAGMA user_version"), 8);
    sqlite3_close(db);
}
END_TEST

/* One node: a take is a write that stores nothing, and a game has no
 * epoch to read back. */
START_TEST(epochs_are_not_stored)
{
    struct store *s = open_store(db_path);
    int64_t epoch = -1;
    char where[200];

    wait_committed(s, store_take_epoch(s, "g1", 3));
    ck_assert_int_eq(store_get_epoch(s, "g1", &epoch), 0);
    ck_assert_int_eq(epoch, 0);
    store_location(s, where, sizeof where);
    ck_assert_str_eq(where, db_path);
    store_close(s);
}
END_TEST

static Suite *store_suite(void)
{
    Suite *s = suite_create("store");
    TCase *tc = tcase_create("store");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, fresh_database_is_migrated);
    tcase_add_test(tc, journal_sweep_keeps_pace_with_big_transactions);
    tcase_add_test(tc, newer_schema_is_refused);
    tcase_add_test(tc, open_errors_are_sentences);
    tcase_add_test(tc, backup_copies_a_live_database);
    tcase_add_test(tc, version_2_database_upgrades_in_place);
    tcase_add_test(tc, version_8_database_gets_lag_totals);
    tcase_add_test(tc, version_9_database_gets_openings);
    tcase_add_test(tc, reader_refuses_what_it_cannot_read);
    tcase_add_test(tc, leaderboard_reads_its_index);
    tcase_add_test(tc, wal_stays_within_its_cap_under_back_to_back_commits);
    tcase_add_test(tc,
                   writer_waits_for_the_checkpointer_and_never_checkpoints);
    tcase_add_test(tc, wal_starts_over_after_an_idle_pass_without_waiting);
    tcase_add_test(tc, reader_snapshot_delays_the_restart_not_the_writer);
    tcase_add_test(tc, epochs_are_not_stored);
    store_cases_add(tc, &sqlite_harness);
    reader_cases_add(tc, &sqlite_harness);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    /* test_store --backup DB DEST: what backup_copies_a_live_database
     * runs in a second process */
    if (argc == 4 && !strcmp(argv[1], "--backup")) {
        char err[256];
        if (store_backup(argv[2], argv[3], err, sizeof err) != 0) {
            fprintf(stderr, "backup: %s\n", err);
            return EXIT_FAILURE;
        }
        return EXIT_SUCCESS;
    }
    return check_main(store_suite());
}
