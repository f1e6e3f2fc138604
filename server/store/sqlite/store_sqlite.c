/*
 * store_sqlite.c - the store's SQLite backend (store_internal.h): its
 * connections and statements, the schema's migrations at open, close,
 * the table of its operations, and the online backup. Its other files
 * (sqlite_internal.h): sqlite_write.c (a batch in one transaction, the
 * journal), sqlite_wal.c (the WAL and its checkpointer thread),
 * sqlite_read.c (the reads).
 *
 * Three connections to one WAL database:
 * - `w`, the writer's. The loop thread uses it only inside store_open
 *   (migrations, heartbeat read) and store_close; between the two only the
 *   writer thread touches it (handed over by pthread_create/pthread_join).
 * - `r`, read-only (SQLITE_OPEN_READONLY), used by the loop thread for every
 *   read. WAL lets it read while the writer commits.
 * - `c`, the checkpointer thread's. Only this connection checkpoints. The
 *   writer's automatic checkpoint is off (its wal hook, sq__on_wal_commit,
 *   replaces it): it ran inside the committing transaction, copied up to
 *   1000 pages and synced the database file, tens of milliseconds during
 *   which no move could be committed.
 */
#include "store/sqlite/sqlite_internal.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/errtext.h"
#include "lib/log.h"
#include "migrations.h"
#include "sysclock.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* ---- statements ------------------------------------------------------- */

#define GAME_PARAMS                                                      \
    "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, " \
    "?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, "  \
    "?29, ?30, ?31, ?32"

/* A player's finished, non-aborted games as seen from one seat, strictly
 * older than (?2, ?3) in (ended_ms, gid) order; the seat's partial index
 * serves it in that order. */
#define LIST_SEAT(seat, other)                                              \
    "SELECT " STORE_GAME_COLS STORE_LIST_ANALYSED " FROM games WHERE " seat \
    " = ?1 AND "                                                            \
    "status = 'ended' AND result <> '*' AND "                               \
    "(ended_ms, gid) < (?2, ?3)" other

/* An API token with its account's name (sqlite_read.c's api_row). */
#define API_TOKEN_SELECT                                                   \
    "SELECT t.id, t.token_hash, t.pid, a.username, t.description, "        \
    "t.scopes, t.created_ms FROM api_tokens t JOIN accounts a ON a.pid = " \
    "t.pid WHERE "

/* The moderators' queue (store_report_queue): lila's reports, the open
 * atoms of a suspect and reason together, the worst first. */
#define STORE_REPORT_QUEUE                                              \
    "SELECT r.suspect, a.username, r.reason, CASE WHEN sum(r.score) > " \
    "100 THEN 100 ELSE sum(r.score) END AS sc, count(*), "              \
    "max(r.at_ms) AS last FROM reports r JOIN accounts a ON a.pid = "   \
    "r.suspect WHERE r.closed_ms IS NULL GROUP BY r.suspect, "          \
    "a.username, r.reason ORDER BY sc DESC, last DESC, r.suspect, "     \
    "r.reason LIMIT "

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
        ", ?33) ON CONFLICT (gid) DO UPDATE SET " STORE_GAME_UPDATE
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
    DEF(w_bot, "UPDATE accounts SET bot = 1 WHERE pid = ?1"),
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
    DEF(w_api_token, "INSERT INTO api_tokens (id, token_hash, pid, "
                     "description, scopes, created_ms) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
    DEF(w_api_revoke, "DELETE FROM api_tokens WHERE id = ?1 "
                      "AND (?2 = '' OR pid = ?2)"),
    DEF(w_settings, "INSERT INTO account_settings (pid, settings, "
                    "updated_ms) VALUES (?1, ?2, ?3) ON CONFLICT (pid) "
                    "DO UPDATE SET settings = excluded.settings, "
                    "updated_ms = excluded.updated_ms"),
    DEF(w_analysis,
        "INSERT INTO analyses (gid, pid, requested_ms, status, "
        "result) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (gid) "
        "DO UPDATE SET status = excluded.status, "
        "result = excluded.result WHERE analyses.status <> 'done'"),
    DEF(w_arena, "INSERT INTO arena_calls (event, seq, call, at_ms) "
                 "VALUES (?1, ?2, ?3, ?4)"),
    DEF(w_swiss, "INSERT INTO swiss_calls (event, seq, call, at_ms) "
                 "VALUES (?1, ?2, ?3, ?4)"),
    DEF(w_chat, "INSERT INTO chat_lines (gid, room, pid, name, text, at_ms) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
    DEF(w_room, "INSERT INTO room_lines (key, room, pid, name, text, at_ms) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
    DEF(w_playban, "INSERT INTO account_playban (pid, record, updated_ms) "
                   "VALUES (?1, ?2, ?3) ON CONFLICT (pid) DO UPDATE SET "
                   "record = excluded.record, "
                   "updated_ms = excluded.updated_ms"),
    DEF(w_block, "INSERT OR IGNORE INTO blocks (pid, blocked, at_ms) "
                 "VALUES (?1, ?2, ?3)"),
    DEF(w_unblock, "DELETE FROM blocks WHERE pid = ?1 AND blocked = ?2"),
    DEF(w_report, "INSERT INTO reports (reporter, suspect, reason, text, "
                  "score, at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
    DEF(w_moderator, "UPDATE accounts SET moderator = ?2 WHERE pid = ?1"),
    DEF(w_mod_action,
        "INSERT INTO mod_actions (moderator, target, action, reason, text, "
        "until_ms, at_ms, game, room, line_ms) VALUES (?1, NULLIF(?2, ''), "
        "?3, ?4, ?5, ?6, ?7, NULLIF(?8, ''), NULLIF(?9, ''), ?10)"),
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
    /* (the indexes chat_lines_pid, room_lines_pid, mod_actions_target):
     * the newest of a game's lines and of the other rooms' */
    DEF(r_pid_chat,
        "SELECT * FROM (SELECT gid, room, name, text, at_ms "
        "FROM chat_lines WHERE pid = ?1 ORDER BY id DESC "
        "LIMIT ?2) UNION ALL SELECT * FROM (SELECT key, room, "
        "name, text, at_ms FROM room_lines WHERE pid = ?1 "
        "ORDER BY id DESC LIMIT ?2) ORDER BY at_ms DESC LIMIT ?2"),
    DEF(r_mod_history, "SELECT a.username, m.action, m.reason, m.text, "
                       "m.until_ms, m.at_ms FROM mod_actions m JOIN "
                       "accounts a ON a.pid = m.moderator WHERE "
                       "m.target = ?1 ORDER BY m.at_ms DESC, m.id DESC "
                       "LIMIT ?2"),
    /* (the partial index mod_actions_maintenance) */
    DEF(r_maintenance, "SELECT m.action, m.until_ms, m.at_ms, a.username, "
                       "m.text FROM mod_actions m JOIN accounts a "
                       "ON a.pid = m.moderator WHERE m.action IN "
                       "('maintenance', 'maintenance_cancel') "
                       "ORDER BY m.id DESC LIMIT 1"),
    DEF(r_is_account, "SELECT moderator, chat_muted_until, engine, closed "
                      "FROM accounts WHERE pid = ?1"),
    DEF(r_settings, "SELECT settings FROM account_settings WHERE pid = ?1"),
    DEF(r_playban, "SELECT record FROM account_playban WHERE pid = ?1"),
    DEF(r_analysis, "SELECT gid, pid, requested_ms, status, result "
                    "FROM analyses WHERE gid = ?1"),
    DEF(r_analyses_by, "SELECT gid, pid, requested_ms, status "
                       "FROM analyses WHERE pid = ?1 AND requested_ms >= ?2 "
                       "ORDER BY requested_ms DESC LIMIT ?3"),
    DEF(r_analyses_queued, "SELECT gid, pid, requested_ms, status "
                           "FROM analyses WHERE status = 'queued' "
                           "ORDER BY requested_ms LIMIT ?1"),
    DEF(r_api_hash, API_TOKEN_SELECT "t.token_hash = ?1"),
    DEF(r_api_id, API_TOKEN_SELECT "t.id = ?1"),
    DEF(r_api_pid, API_TOKEN_SELECT "t.pid = ?1 "
                                    "ORDER BY t.created_ms, t.id LIMIT ?2"),
    DEF(r_blocks, "SELECT b.blocked, a.username, b.at_ms FROM blocks b "
                  "JOIN accounts a ON a.pid = b.blocked WHERE b.pid = ?1 "
                  "ORDER BY b.at_ms, b.blocked LIMIT ?2"),
    DEF(r_reports_by, "SELECT suspect, at_ms FROM reports "
                      "WHERE reporter = ?1 AND at_ms >= ?3 "
                      "ORDER BY (suspect = ?2) DESC, at_ms DESC LIMIT ?4"),
    DEF(r_report_queue, STORE_REPORT_QUEUE "?1"),
    DEF(r_open_reports,
        "SELECT r.suspect, r.reason, a.username, r.text, r.at_ms "
        "FROM reports r JOIN accounts a ON a.pid = r.reporter "
        "WHERE r.closed_ms IS NULL ORDER BY r.at_ms DESC, r.id DESC LIMIT "
        "?1"),
    DEF(r_bots, "SELECT pid, username, created_ms FROM accounts "
                "WHERE bot = 1 AND closed = 0 ORDER BY username LIMIT ?1"),
    DEF(r_moderators, "SELECT pid, username, created_ms FROM accounts "
                      "WHERE moderator = 1 ORDER BY username LIMIT ?1"),
    DEF(r_chat, "SELECT pid, name, text, at_ms FROM chat_lines "
                "WHERE gid = ?1 AND room = ?2 ORDER BY id DESC LIMIT ?3"),
    DEF(r_room, "SELECT pid, name, text, at_ms FROM room_lines "
                "WHERE key = ?1 AND room = ?2 ORDER BY id DESC LIMIT ?3"),
    DEF(r_history, "SELECT ended_ms, rating, rd FROM rating_history "
                   "WHERE pid = ?1 AND category = ?2 "
                   "ORDER BY ended_ms DESC, gid DESC LIMIT ?3"),
    DEF(r_board, "SELECT r.pid, p.name, r.rating, r.rd, r.games "
                 "FROM ratings r JOIN players p ON p.pid = r.pid "
                 "WHERE r.category = ?1 AND r.rd <= 110.0 "
                 "AND EXISTS (SELECT 1 FROM accounts a "
                 "WHERE a.pid = r.pid AND a.engine = 0 AND a.closed = 0) "
                 "ORDER BY r.rating DESC, r.pid LIMIT ?2"),
    /* through games_rated_ended, which holds only these games */
    DEF(r_arena, "SELECT event, seq, call FROM arena_calls "
                 "ORDER BY event, seq"),
    DEF(r_swiss, "SELECT event, seq, call FROM swiss_calls "
                 "ORDER BY event, seq"),
    DEF(r_rated_ends, "SELECT white_pid, black_pid, ended_ms FROM games "
                      "WHERE ended_ms >= ?1 AND white_rd > 0 "
                      "ORDER BY ended_ms DESC LIMIT ?2"),
    DEF(r_moves, "SELECT " STORE_MOVE_COLS " FROM moves WHERE gid = ?1 "
                 "ORDER BY ply"),
    /* a live game's journal: no index by game, so a scan (only for a
     * game whose restore failed; see store_get_game) */
    DEF(r_journal_game,
        "SELECT " STORE_MOVE_COLS " FROM journal WHERE gid = ?1 "
        "ORDER BY seq"),
    /* every game's, for restore: one pass and one sort; a game's rows in
     * the order they were written (a takeback's row follows the moves it
     * takes back, the moves played again follow it) */
    DEF(r_journal, "SELECT gid, " STORE_MOVE_COLS " FROM journal "
                   "ORDER BY gid, seq"),
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
    DEF(r_account, "SELECT pid, username, password_hash, created_ms, bot "
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
        errtext_set(
            err, errlen,
            "%s is damaged or not a database "
            "(PRAGMA quick_check: %s); restore a backup (docs/operator.md: "
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
                "backup (docs/operator.md: Backup and restore)",
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
    int64_t have, started;
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
    started = sysclock_ms(CLOCK_MONOTONIC);
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
    if (have < newest) /* (the commit's time included) */
        log_info("event=store_migrated backend=sqlite from=%lld to=%d "
                 "duration_ms=%lld",
                 (long long)have, newest,
                 (long long)(sysclock_ms(CLOCK_MONOTONIC) - started));
    *version = newest;
    return 0;
fail:
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
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

/* The writer's connection `w` of s's backend b opened on path:
 * configured, checked, migrated, its statements prepared, its wal hook
 * set; the last heartbeat and the journal's end read. 0, or -1 with a
 * sentence in err. */
static int open_writer(struct store *s, struct sqlite_be *b, const char *path,
                       char *err, size_t errlen)
{
    int64_t beat = 0;

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
    /* from here on, no automatic checkpoints (sqlite_wal.c) */
    sqlite3_wal_hook(b->w, sq__on_wal_commit, s);
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
    return 0;
}

/* s's backend state for the database at path, or NULL with err said. */
static struct sqlite_be *new_be(struct store *s, const char *path, char *err,
                                size_t errlen)
{
    struct sqlite_be *b = calloc(1, sizeof *b);

    if (!b || !(b->path = strdup(path))) {
        free(b);
        errtext_set(err, errlen, "out of memory");
        return NULL;
    }
    s->be_state = b;
    return b;
}

/* The reads' connection `r` of b: read-only (it never creates the file),
 * extended result codes, the busy timeout. 0, or -1 with err said. */
static int open_reads(struct sqlite_be *b, char *err, size_t errlen)
{
    if (sqlite3_open_v2(b->path, &b->r, SQLITE_OPEN_READONLY, NULL) !=
        SQLITE_OK) {
        errtext_set(err, errlen, "%s (read-only): %s", b->path,
                    b->r ? sqlite3_errmsg(b->r) : "out of memory");
        return -1;
    }
    sqlite3_extended_result_codes(b->r, 1);
    sqlite3_busy_timeout(b->r, STORE_BUSY_MS);
    return 0;
}

/* Opens the backend of s on the database at path (store.c's store_open):
 * migrations, statements, the heartbeat, and the checkpointer thread. 0,
 * or -1 with a sentence in err (store_close then cleans up). */
int store__sqlite_open(struct store *s, const char *path, char *err,
                       size_t errlen)
{
    struct sqlite_be *b = new_be(s, path, err, errlen);
    pthread_condattr_t ca;

    if (!b)
        return -1;
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

    if (own_files(path, err, errlen) != 0 ||
        open_writer(s, b, path, err, errlen) != 0)
        return -1;

    if (open_reads(b, err, errlen) != 0 ||
        prepare_all(b, b->r, reader_stmts, STORE_N_OF(reader_stmts), err,
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
    if (pthread_create(&b->ckpt_thread, NULL, sq__checkpointer_main, s) !=
        0) {
        errtext_set(err, errlen, "cannot start the checkpointer thread");
        return -1;
    }
    b->ckpt_thread_started = true;
    return 0;
}

int store__sqlite_open_reader(struct store *s, const char *path, char *err,
                              size_t errlen)
{
    struct sqlite_be *b = new_be(s, path, err, errlen);
    int64_t have;

    /* only `r`: no writer, no lock (the server's is on the file) */
    if (!b || open_reads(b, err, errlen) != 0)
        return -1;
    if (query_int(b->r, "PRAGMA user_version", &have) != 0 ||
        (have == 0 && version_from_meta(b->r, &have) != 0)) {
        errtext_set(err, errlen, "%s: %s", path, sqlite3_errmsg(b->r));
        return -1;
    }
    s->schema_version = migrations_list[migrations_count - 1].version;
    if (store__reader_schema(have, s->schema_version, path, err, errlen) != 0)
        return -1;
    return prepare_all(b, b->r, reader_stmts, STORE_N_OF(reader_stmts), err,
                       errlen);
}

/* The backend's close (the writer has stopped, s->stopping is set). */
static void sq_close(struct store *s)
{
    struct sqlite_be *b = s->be_state;

    assert(s->stopping); /* store_close: the writer has stopped */
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

const struct store_backend store__sqlite = {
    .name = "sqlite",
    .commit = sq__commit,
    .after_batch = sq__after_batch,
    .beat_waits = sq__beat_waits,
    .hold_checkpoints = sq__hold_checkpoints,
    .close = sq_close,
    .location = sq_location,
    .find_player_by_token = sq__find_player_by_token,
    .find_player = sq__find_player,
    .find_account = sq__find_account,
    .find_account_token = sq__find_account_token,
    .get_rating = sq__get_rating,
    .player_ratings = sq__player_ratings,
    .get_settings = sq__get_settings,
    .get_playban = sq__get_playban,
    .get_analysis = sq__get_analysis,
    .analyses_by = sq__analyses_by,
    .queued_analyses = sq__queued_analyses,
    .chat_lines = sq__chat_lines,
    .is_account = sq__is_account,
    .maintenance = sq__maintenance,
    .mod_history = sq__mod_history,
    .rating_history = sq__rating_history,
    .leaderboard = sq__leaderboard,
    .rated_ends = sq__rated_ends,
    .load_arena = sq__load_arena,
    .get_game = sq__get_game,
    .load_live = sq__load_live,
    .list_player_games = sq__list_player_games,
    .get_epoch = NULL, /* one node: no epochs stored */
    .player_live_games = sq__player_live_games,
    .live_gids = sq__live_gids,
    .api_token = sq__api_token,
    .api_tokens = sq__api_tokens,
    .blocks = sq__blocks,
    .moderators = sq__moderators,
    .bots = sq__bots,
    .open_reports = sq__open_reports,
    .reports_by = sq__reports_by,
    .report_queue = sq__report_queue,
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
