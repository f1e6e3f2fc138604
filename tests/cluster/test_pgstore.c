/*
 * test_pgstore.c - the PostgreSQL schema (migrations/pg) and its
 * migrations (server/store/pg/pgmigrate.c) against the real PostgreSQL 15 that
 * fixture.py starts (run as `fixture.py --postgres -- test_pgstore`;
 * CHESS_PG_DSN names it): a fresh database migrates once, two nodes
 * migrating together both succeed and the migrations run once, a newer
 * schema is refused; and the journal's fencing: journal_append takes
 * only the game's current epoch, a stale one fails with SQLSTATE CH001
 * and takes its whole transaction down, epoch_take never goes backward,
 * and an epoch change and a batch never interleave (each waits for the
 * other; observed through pg_blocking_pids, not with sleeps).
 *
 * Every test starts from an empty `public` schema (setup).
 */
#include <check.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_main.h"
#include "lag_rows.h"
#include "migrations.h"
#include "store/pg/pgmigrate.h"

/* A connection that watches the others (and runs setup's reset). */
static PGconn *obs;

static PGconn *connect_db(void)
{
    const char *dsn = getenv("CHESS_PG_DSN");
    PGconn *c;

    ck_assert_msg(dsn != NULL, "CHESS_PG_DSN unset: run through fixture.py");
    c = PQconnectdb(dsn);
    ck_assert_msg(PQstatus(c) == CONNECTION_OK, "%s", PQerrorMessage(c));
    return c;
}

/* Runs sql (no result rows wanted) and fails the test on an error. */
static void exec_ok(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);

    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s: %s", sql,
                  PQerrorMessage(c));
    PQclear(r);
}

/* The one integer that sql returns. */
static long long query_ll(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    long long v;

    ck_assert_msg(PQresultStatus(r) == PGRES_TUPLES_OK, "%s: %s", sql,
                  PQerrorMessage(c));
    ck_assert_int_eq(PQntuples(r), 1);
    v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return v;
}

static void setup(void)
{
    obs = connect_db();
    exec_ok(obs, "SET client_min_messages = warning");
    exec_ok(obs, "DROP SCHEMA public CASCADE");
    exec_ok(obs, "CREATE SCHEMA public");
}

static void teardown(void)
{
    PQfinish(obs);
}

static int newest(void)
{
    return migrations_pg_list[migrations_pg_count - 1].version;
}

/* Migrates c and checks the version. */
static void migrate_ok(PGconn *c)
{
    char err[256] = "";
    int version = -1;

    ck_assert_msg(pgmigrate_apply(c, &version, err, sizeof err) == 0, "%s",
                  err);
    ck_assert_int_eq(version, newest());
}

/* epoch_take(gid, epoch): the epoch the game holds afterwards. */
static long long take(PGconn *c, const char *gid, long long epoch)
{
    char e[24];
    const char *params[2] = {gid, e};
    PGresult *r;
    long long v;

    snprintf(e, sizeof e, "%lld", epoch);
    r = PQexecParams(c, "SELECT epoch_take($1, $2)", 2, NULL, params, NULL,
                     NULL, 0);
    ck_assert_msg(PQresultStatus(r) == PGRES_TUPLES_OK, "%s",
                  PQerrorMessage(c));
    v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return v;
}

static const char append_sql[] =
    "SELECT journal_append($1, $2, $3, 'e2e4', 'e4', 60000, 59000, "
    "1700000000000, 7)";

/* Sends journal_append(gid, epoch, ply, ...) without waiting. */
static void send_append(PGconn *c, const char *gid, long long epoch, int ply)
{
    char e[24], p[16];
    const char *params[3] = {gid, e, p};

    snprintf(e, sizeof e, "%lld", epoch);
    snprintf(p, sizeof p, "%d", ply);
    ck_assert_int_eq(
        PQsendQueryParams(c, append_sql, 3, NULL, params, NULL, NULL, 0), 1);
}

/* The result of the query sent on c (waits for it). */
static PGresult *result(PGconn *c)
{
    PGresult *r = PQgetResult(c), *extra;

    ck_assert_ptr_nonnull(r);
    while ((extra = PQgetResult(c)) != NULL)
        PQclear(extra);
    return r;
}

/* What the sent journal_append gave: its SQLSTATE ("" when it inserted)
 * in state, its error message (if any) in msg. */
static void append_outcome(PGconn *c, char *state, size_t slen, char *msg,
                           size_t mlen)
{
    PGresult *r = result(c);

    if (PQresultStatus(r) == PGRES_TUPLES_OK) {
        ck_assert_int_eq(PQntuples(r), 1);
        ck_assert_int_gt(strtoll(PQgetvalue(r, 0, 0), NULL, 10), 0);
        snprintf(state, slen, "%s", "");
        snprintf(msg, mlen, "%s", "");
    } else {
        const char *s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        snprintf(state, slen, "%s", s ? s : "?");
        snprintf(msg, mlen, "%s", PQresultErrorMessage(r));
    }
    PQclear(r);
}

/* journal_append(gid, epoch, ply): its SQLSTATE, "" when it inserted. */
static const char *append(PGconn *c, const char *gid, long long epoch,
                          int ply)
{
    static char state[8];
    char msg[256];

    send_append(c, gid, epoch, ply);
    append_outcome(c, state, sizeof state, msg, sizeof msg);
    return state;
}

static long long journal_rows(void)
{
    return query_ll(obs, "SELECT count(*) FROM journal");
}

/* Waits until the query in flight on `waiter` waits for a lock that
 * `holder`'s transaction holds (true), or has finished (false). Polls
 * the server's own account of who blocks whom (pg_blocking_pids) every
 * millisecond, for at most 30 s. */
static bool blocked_by(PGconn *waiter, PGconn *holder)
{
    char w[16], h[16];
    const char *params[2] = {w, h};
    struct timespec ms = {0, 1000000};

    snprintf(w, sizeof w, "%d", PQbackendPID(waiter));
    snprintf(h, sizeof h, "%d", PQbackendPID(holder));
    for (int i = 0; i < 30000; i++) {
        PGresult *r;
        bool yes;

        ck_assert_int_eq(PQconsumeInput(waiter), 1);
        if (!PQisBusy(waiter))
            return false;
        r = PQexecParams(obs,
                         "SELECT $2::int = ANY (pg_blocking_pids($1::int))",
                         2, NULL, params, NULL, NULL, 0);
        ck_assert_int_eq(PQresultStatus(r), PGRES_TUPLES_OK);
        yes = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
        PQclear(r);
        if (yes)
            return true;
        nanosleep(&ms, NULL);
    }
    ck_abort_msg("neither blocked nor finished after 30 s");
    return false;
}

/* ---- migrations ------------------------------------------------------- */

START_TEST(test_fresh_then_noop)
{
    static const char *const tables[] = {
        "players",          "games",       "moves",
        "journal",          "meta",        "accounts",
        "account_tokens",   "ratings",     "rating_history",
        "account_settings", "game_epochs", "schema_version"};
    char err[256] = "";
    int version = -1;
    PGconn *c = connect_db();

    migrate_ok(c);
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        char sql[128];
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM pg_tables WHERE schemaname = "
                 "'public' AND tablename = '%s'",
                 tables[i]);
        ck_assert_msg(query_ll(obs, sql) == 1, "no table %s", tables[i]);
    }
    ck_assert_int_eq(query_ll(obs, "SELECT max(version) FROM schema_version"),
                     newest());
    /* a second run changes nothing: the data stays, no migration reruns */
    exec_ok(obs, "INSERT INTO players VALUES ('p1', 'Ann', "
                 "sha256('t'), 1)");
    ck_assert_int_eq(pgmigrate_apply(c, &version, err, sizeof err), 0);
    ck_assert_int_eq(version, newest());
    ck_assert_int_eq(query_ll(obs, "SELECT count(*) FROM players"), 1);
    ck_assert_int_eq(query_ll(obs, "SELECT count(*) FROM schema_version"),
                     (long long)migrations_pg_count);
    ck_assert_int_eq(PQtransactionStatus(c), PQTRANS_IDLE);
    PQfinish(c);
}
END_TEST

/* The database as the first n migrations left it, each recorded as
 * pgmigrate.c records them (a later migration is then tested on rows
 * written at that version). */
static void migrated_to(int n)
{
    ck_assert_int_gt((int)migrations_pg_count, n);
    exec_ok(obs, "CREATE TABLE schema_version (version integer PRIMARY KEY "
                 "CHECK (version >= 1), name text NOT NULL, applied_ms "
                 "bigint NOT NULL)");
    for (int i = 0; i < n; i++) {
        char sql[128];
        exec_ok(obs, migrations_pg_list[i].sql);
        snprintf(sql, sizeof sql,
                 "INSERT INTO schema_version VALUES (%d, 'x', 1)",
                 migrations_pg_list[i].version);
        exec_ok(obs, sql);
    }
}

/* A database at pg/0003 (before the lag totals): pg/0004 sums each
 * finished game's lag credits by side from its moves (White's the odd
 * plies of a game White started, the even ones of a game Black started),
 * as SQLite's 0009 does; a live game's are left for its next row write. */
START_TEST(test_lag_totals_filled_from_moves)
{
    PGconn *c = connect_db();

    migrated_to(3);
    exec_ok(obs, "INSERT INTO players VALUES ('pidW', 'W', sha256('w'), 1), "
                 "('pidB', 'B', sha256('b'), 1)");
    exec_ok(obs, LAG_ROWS_GAMES);
    exec_ok(obs, LAG_ROWS_MOVES);
    migrate_ok(c);
    ck_assert_int_eq(query_ll(obs,
                              "SELECT white_lag_ms * 1000 + "
                              "black_lag_ms FROM games WHERE gid = 'w1'"),
                     350040);
    ck_assert_int_eq(query_ll(obs,
                              "SELECT white_lag_ms * 1000 + "
                              "black_lag_ms FROM games WHERE gid = 'b1'"),
                     30070);
    ck_assert_int_eq(query_ll(obs, "SELECT white_lag_ms + black_lag_ms "
                                   "FROM games WHERE gid = 'live'"),
                     0);
    PQfinish(c);
}
END_TEST

/* A database at pg/0004 (before the openings): pg/0005 takes each
 * finished game's ECO code and opening name from its PGN's tags, as
 * SQLite's 0010 does; a game whose PGN has none gets none. */
START_TEST(test_openings_filled_from_pgn)
{
    PGconn *c = connect_db();

    migrated_to(4);
    exec_ok(obs, "INSERT INTO players VALUES ('pidW', 'W', sha256('w'), 1), "
                 "('pidB', 'B', sha256('b'), 1)");
    exec_ok(obs, LAG_ROWS_GAMES);
    exec_ok(obs, "UPDATE games SET pgn = E'[Event \"Casual game\"]\\n"
                 "[ECO \"C44\"]\\n[Opening \"King''s Pawn Game: Tayler "
                 "Opening\"]\\n\\n1. e4 e5 1-0\\n' WHERE gid = 'w1'");
    exec_ok(obs, "UPDATE games SET pgn = E'[Event \"Casual game\"]\\n\\n"
                 "1... Kd7 1/2-1/2\\n' WHERE gid = 'b1'");
    migrate_ok(c);
    ck_assert_int_eq(query_ll(obs, "SELECT count(*) FROM games WHERE "
                                   "gid = 'w1' AND eco = 'C44' AND opening "
                                   "= 'King''s Pawn Game: Tayler Opening'"),
                     1);
    ck_assert_int_eq(query_ll(obs, "SELECT count(*) FROM games WHERE "
                                   "eco IS NOT NULL OR opening IS NOT NULL"),
                     1);
    PQfinish(c);
}
END_TEST

/* The schema's constraints came across: a few that SQLite enforces. */
START_TEST(test_constraints)
{
    PGconn *c = connect_db();
    PGresult *r;

    migrate_ok(c);
    exec_ok(c, "INSERT INTO players VALUES ('p1', 'Ann', sha256('a'), 1), "
               "('p2', 'Bob', sha256('b'), 1)");
    exec_ok(c, "INSERT INTO accounts VALUES ('p1', 'Ann_1', 'h', 1, 0)");
    /* usernames are unique without regard to case */
    r = PQexec(c, "INSERT INTO accounts VALUES ('p2', 'aNN_1', 'h', 1, 0)");
    ck_assert_str_eq(PQresultErrorField(r, PG_DIAG_SQLSTATE), "23505");
    PQclear(r);
    /* a token hash is 32 bytes */
    r = PQexec(c, "INSERT INTO players VALUES ('p3', 'C', '\\x00', 1)");
    ck_assert_str_eq(PQresultErrorField(r, PG_DIAG_SQLSTATE), "23514");
    PQclear(r);
    /* a game's status is one of three */
    r = PQexec(c, "INSERT INTO games (gid, per_move, initial_fen, status, "
                  "created_ms) VALUES ('g', 0, 'x', 'paused', 1)");
    ck_assert_str_eq(PQresultErrorField(r, PG_DIAG_SQLSTATE), "23514");
    PQclear(r);
    PQfinish(c);
}
END_TEST

/* One line per column: "table.column type notnull pk", type one of int,
 * text, blob, real; pk the column's position in the primary key (0: not
 * in it); a primary key's columns count as NOT NULL (SQLite's INTEGER
 * PRIMARY KEY is, without saying so). */
#define COLUMN_LINE "%s.%s %s %d %d\n"

static const char *type_class(const char *t)
{
    static const char *const map[][2] = {
        {"INTEGER", "int"}, {"int4", "int"},  {"int8", "int"},
        {"TEXT", "text"},   {"text", "text"}, {"BLOB", "blob"},
        {"bytea", "blob"},  {"REAL", "real"}, {"float8", "real"}};

    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(t, map[i][0]) == 0)
            return map[i][1];
    return t;
}

/* Appends a formatted line to buf (len bytes), failing when it is full. */
static void add_line(char *buf, size_t len, const char *table,
                     const char *column, const char *type, int notnull,
                     int pk)
{
    size_t n = strlen(buf);
    int w = snprintf(buf + n, len - n, COLUMN_LINE, table, column,
                     type_class(type), notnull || pk > 0, pk);
    ck_assert_int_lt(w, (int)(len - n));
}

/* The SQLite schema's columns after every SQLite migration (an in-memory
 * database), and its named indexes (one line each: "index NAME"). */
static void sqlite_schema(char *buf, size_t len)
{
    sqlite3 *db;
    sqlite3_stmt *st;

    buf[0] = '\0';
    ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
    for (size_t i = 0; i < migrations_count; i++)
        ck_assert_msg(sqlite3_exec(db, migrations_list[i].sql, NULL, NULL,
                                   NULL) == SQLITE_OK,
                      "%s", sqlite3_errmsg(db));
    ck_assert_int_eq(
        sqlite3_prepare_v2(db,
                           "SELECT m.name, p.name, p.type, p.\"notnull\", "
                           "p.pk FROM sqlite_schema m, "
                           "pragma_table_info(m.name) p "
                           "WHERE m.type = 'table' ORDER BY m.name, p.cid",
                           -1, &st, NULL),
        SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW)
        add_line(buf, len, (const char *)sqlite3_column_text(st, 0),
                 (const char *)sqlite3_column_text(st, 1),
                 (const char *)sqlite3_column_text(st, 2),
                 sqlite3_column_int(st, 3), sqlite3_column_int(st, 4));
    sqlite3_finalize(st);
    ck_assert_int_eq(sqlite3_prepare_v2(db,
                                        "SELECT name FROM sqlite_schema "
                                        "WHERE type = 'index' AND sql IS "
                                        "NOT NULL ORDER BY name",
                                        -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "index %s\n", sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* The same of the PostgreSQL schema, without its own tables (fencing,
 * schema_version) and indexes: the primary and unique keys' own, which
 * SQLite does not name; accounts_username, which stands for SQLite's
 * UNIQUE COLLATE NOCASE; and journal_game (pg/0002), the journal by game,
 * which PostgreSQL's shared journal needs (a node adopts, reads and ends
 * one game at a time) and SQLite's, one node's read whole at restore,
 * leaves out so that a commit writes one page. */
static void pg_schema(PGconn *c, char *buf, size_t len)
{
    PGresult *r;

    buf[0] = '\0';
    r = PQexec(c, "SELECT c.relname, a.attname, t.typname, "
                  "a.attnotnull::int, coalesce(array_position("
                  "  (SELECT string_to_array(ix.indkey::text, ' ')::int2[] "
                  "   FROM pg_index ix WHERE ix.indrelid = c.oid "
                  "   AND ix.indisprimary), a.attnum), 0) "
                  "FROM pg_class c "
                  "JOIN pg_namespace n ON n.oid = c.relnamespace "
                  "JOIN pg_attribute a ON a.attrelid = c.oid "
                  "JOIN pg_type t ON t.oid = a.atttypid "
                  "WHERE n.nspname = 'public' AND c.relkind = 'r' "
                  "AND a.attnum > 0 AND NOT a.attisdropped "
                  "AND c.relname NOT IN ('game_epochs', 'schema_version') "
                  "ORDER BY c.relname, a.attnum");
    ck_assert_msg(PQresultStatus(r) == PGRES_TUPLES_OK, "%s",
                  PQerrorMessage(c));
    for (int i = 0; i < PQntuples(r); i++)
        add_line(buf, len, PQgetvalue(r, i, 0), PQgetvalue(r, i, 1),
                 PQgetvalue(r, i, 2), atoi(PQgetvalue(r, i, 3)),
                 atoi(PQgetvalue(r, i, 4)));
    PQclear(r);
    r = PQexec(c, "SELECT i.relname FROM pg_index ix "
                  "JOIN pg_class i ON i.oid = ix.indexrelid "
                  "JOIN pg_namespace n ON n.oid = i.relnamespace "
                  "WHERE n.nspname = 'public' AND NOT ix.indisprimary "
                  "AND NOT EXISTS (SELECT 1 FROM pg_constraint k "
                  "  WHERE k.conindid = ix.indexrelid) "
                  "AND i.relname NOT IN ('accounts_username', "
                  "'journal_game') "
                  "ORDER BY i.relname COLLATE \"C\"");
    ck_assert_msg(PQresultStatus(r) == PGRES_TUPLES_OK, "%s",
                  PQerrorMessage(c));
    for (int i = 0; i < PQntuples(r); i++) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "index %s\n", PQgetvalue(r, i, 0));
    }
    PQclear(r);
}

/* The PostgreSQL schema has SQLite's tables, columns (in order, with
 * matching types, NOT NULL and primary keys) and named indexes. */
START_TEST(test_same_as_sqlite)
{
    static char want[16384], got[16384];
    const char *w, *g;
    PGconn *c = connect_db();

    migrate_ok(c);
    sqlite_schema(want, sizeof want);
    pg_schema(c, got, sizeof got);
    ck_assert_ptr_nonnull(strstr(want, "journal.seq int 1 1\n"));
    /* the first line that differs, for the message */
    for (w = want, g = got; *w && *g;) {
        const char *we = strchr(w, '\n'), *ge = strchr(g, '\n');
        ck_assert_msg(we - w == ge - g && memcmp(w, g, (size_t)(we - w)) == 0,
                      "SQLite: %.*s, PostgreSQL: %.*s", (int)(we - w), w,
                      (int)(ge - g), g);
        w = we + 1;
        g = ge + 1;
    }
    ck_assert_msg(*w == '\0' && *g == '\0', "SQLite: %s, PostgreSQL: %s",
                  *w ? w : "(end)", *g ? g : "(end)");
    PQfinish(c);
}
END_TEST

struct applier {
    pthread_t thread;
    const char *dsn;
    int rc, version;
    char err[256];
};

static void *apply_thread(void *arg)
{
    struct applier *a = arg;
    PGconn *c = PQconnectdb(a->dsn);

    a->rc = -1;
    if (PQstatus(c) == CONNECTION_OK)
        a->rc = pgmigrate_apply(c, &a->version, a->err, sizeof a->err);
    else
        snprintf(a->err, sizeof a->err, "%s", PQerrorMessage(c));
    PQfinish(c);
    return NULL;
}

/* Two nodes starting together: the test holds the migration lock until
 * both wait for it, then lets them go at once. Twice: with the server's
 * default isolation (READ COMMITTED), and with nodes whose sessions
 * default to SERIALIZABLE (a snapshot taken before the wait would not see
 * the first node's schema). */
START_TEST(test_concurrent_apply)
{
    struct applier a[2];
    char sql[128], dsn[512];
    long long waiting = 0;
    struct timespec ms = {0, 1000000};

    exec_ok(obs, "BEGIN");
    snprintf(sql, sizeof sql, "SELECT pg_advisory_xact_lock(%lld)",
             (long long)PGMIGRATE_LOCK_KEY);
    {
        PGresult *r = PQexec(obs, sql);
        ck_assert_int_eq(PQresultStatus(r), PGRES_TUPLES_OK);
        PQclear(r);
    }
    snprintf(dsn, sizeof dsn, "%s%s", getenv("CHESS_PG_DSN"),
             _i == 0 ? ""
                     : " options='-c "
                       "default_transaction_isolation=serializable'");
    for (int i = 0; i < 2; i++) {
        a[i].dsn = dsn;
        ck_assert_int_eq(
            pthread_create(&a[i].thread, NULL, apply_thread, &a[i]), 0);
    }
    for (int i = 0; i < 30000 && waiting < 2; i++) {
        waiting = query_ll(obs, "SELECT count(*) FROM pg_locks WHERE "
                                "locktype = 'advisory' AND NOT granted");
        if (waiting < 2)
            nanosleep(&ms, NULL);
    }
    ck_assert_int_eq(waiting, 2);
    exec_ok(obs, "COMMIT");
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(pthread_join(a[i].thread, NULL), 0);
        ck_assert_msg(a[i].rc == 0, "node %d: %s", i, a[i].err);
        ck_assert_int_eq(a[i].version, newest());
    }
    /* each migration ran once (schema_version's key would refuse a
     * second row; a second run of 0001 would fail on its tables) */
    ck_assert_int_eq(query_ll(obs, "SELECT count(*) FROM schema_version"),
                     (long long)migrations_pg_count);
}
END_TEST

START_TEST(test_newer_refused)
{
    PGconn *c = connect_db();
    char err[256] = "", sql[160];
    int version = -1;

    migrate_ok(c);
    snprintf(sql, sizeof sql,
             "INSERT INTO schema_version VALUES (%d, 'future', 0)",
             newest() + 1);
    exec_ok(obs, sql);
    ck_assert_int_eq(pgmigrate_apply(c, &version, err, sizeof err), -1);
    ck_assert_int_eq(version, -1);
    ck_assert_msg(strstr(err, "newer than the newest this server knows"),
                  "%s", err);
    snprintf(sql, sizeof sql, "version %d,", newest() + 1);
    ck_assert_msg(strstr(err, sql), "%s", err);
    /* nothing changed, and the connection is usable */
    ck_assert_int_eq(PQtransactionStatus(c), PQTRANS_IDLE);
    ck_assert_int_eq(query_ll(c, "SELECT max(version) FROM schema_version"),
                     newest() + 1);
    PQfinish(c);
}
END_TEST

/* ---- fencing ---------------------------------------------------------- */

START_TEST(test_append_current_epoch)
{
    PGconn *c = connect_db();
    PGresult *r;

    migrate_ok(c);
    ck_assert_int_eq(take(c, "g1", 1), 1);
    ck_assert_str_eq(append(c, "g1", 1, 1), "");
    ck_assert_str_eq(append(c, "g1", 1, 2), "");
    r = PQexec(c, "SELECT gid, ply, uci, san, white_ms, black_ms, wall_ms, "
                  "lag_ms FROM journal ORDER BY seq");
    ck_assert_int_eq(PQntuples(r), 2);
    ck_assert_str_eq(PQgetvalue(r, 0, 0), "g1");
    ck_assert_str_eq(PQgetvalue(r, 1, 1), "2");
    ck_assert_str_eq(PQgetvalue(r, 0, 2), "e2e4");
    ck_assert_str_eq(PQgetvalue(r, 0, 3), "e4");
    ck_assert_str_eq(PQgetvalue(r, 0, 4), "60000");
    ck_assert_str_eq(PQgetvalue(r, 0, 5), "59000");
    ck_assert_str_eq(PQgetvalue(r, 0, 6), "1700000000000");
    ck_assert_str_eq(PQgetvalue(r, 0, 7), "7");
    PQclear(r);
    PQfinish(c);
}
END_TEST

START_TEST(test_append_stale_epoch)
{
    PGconn *c = connect_db();
    char state[8], msg[256];

    migrate_ok(c);
    ck_assert_int_eq(take(c, "g1", 1), 1);
    ck_assert_int_eq(take(c, "g1", 2), 2);
    send_append(c, "g1", 1, 1);
    append_outcome(c, state, sizeof state, msg, sizeof msg);
    ck_assert_str_eq(state, PGMIGRATE_SQLSTATE_FENCED);
    ck_assert_msg(strstr(msg, "epoch 1 is stale") &&
                      strstr(msg, "current epoch is 2"),
                  "%s", msg);
    /* a newer epoch than the game's is no better: it was never taken */
    ck_assert_str_eq(append(c, "g1", 3, 1), PGMIGRATE_SQLSTATE_FENCED);
    /* nor is a game without an epoch */
    ck_assert_str_eq(append(c, "g2", 1, 1), PGMIGRATE_SQLSTATE_FENCED);
    ck_assert_int_eq(journal_rows(), 0);
    ck_assert_str_eq(append(c, "g1", 2, 1), "");
    ck_assert_int_eq(journal_rows(), 1);
    PQfinish(c);
}
END_TEST

/* A batch (one transaction: several games' moves) with one stale row
 * commits nothing. */
START_TEST(test_stale_fails_batch)
{
    PGconn *c = connect_db();
    PGresult *r;

    migrate_ok(c);
    take(c, "g1", 1);
    take(c, "g2", 4);
    take(c, "g2", 5);
    exec_ok(c, "BEGIN");
    ck_assert_str_eq(append(c, "g1", 1, 1), "");
    ck_assert_str_eq(append(c, "g2", 5, 1), "");
    ck_assert_str_eq(append(c, "g2", 4, 2), PGMIGRATE_SQLSTATE_FENCED);
    ck_assert_int_eq(PQtransactionStatus(c), PQTRANS_INERROR);
    r = PQexec(c, "COMMIT");
    ck_assert_str_eq(PQcmdStatus(r), "ROLLBACK");
    PQclear(r);
    ck_assert_int_eq(journal_rows(), 0);
    PQfinish(c);
}
END_TEST

/* A game's other writes go after epoch_check in the same transaction: a
 * stale host's update of the game row (a draw offer, say) fails with
 * CH001 and changes nothing, the current host's goes through. */
START_TEST(test_check_fences_game_rows)
{
    PGconn *c = connect_db();
    PGresult *r;
    char state[8] = "";

    migrate_ok(c);
    exec_ok(c, "INSERT INTO games (gid, per_move, initial_fen, status, "
               "created_ms) VALUES ('g1', 0, 'x', 'started', 1)");
    take(c, "g1", 1);
    take(c, "g1", 2);
    exec_ok(c, "BEGIN");
    r = PQexec(c, "SELECT epoch_check('g1', 1)");
    snprintf(state, sizeof state, "%s",
             PQresultErrorField(r, PG_DIAG_SQLSTATE)
                 ? PQresultErrorField(r, PG_DIAG_SQLSTATE)
                 : "");
    PQclear(r);
    ck_assert_str_eq(state, PGMIGRATE_SQLSTATE_FENCED);
    r = PQexec(c, "UPDATE games SET draw_offer = 'white' WHERE gid = 'g1'");
    ck_assert_int_eq(PQresultStatus(r), PGRES_FATAL_ERROR); /* aborted */
    PQclear(r);
    r = PQexec(c, "COMMIT");
    ck_assert_str_eq(PQcmdStatus(r), "ROLLBACK");
    PQclear(r);
    ck_assert_int_eq(query_ll(obs, "SELECT count(*) FROM games "
                                   "WHERE draw_offer IS NOT NULL"),
                     0);
    exec_ok(c, "BEGIN");
    r = PQexec(c, "SELECT epoch_check('g1', 2)");
    ck_assert_msg(PQresultStatus(r) == PGRES_TUPLES_OK, "%s",
                  PQerrorMessage(c));
    PQclear(r);
    exec_ok(c, "UPDATE games SET draw_offer = 'white' WHERE gid = 'g1'");
    exec_ok(c, "COMMIT");
    ck_assert_int_eq(query_ll(obs, "SELECT count(*) FROM games "
                                   "WHERE draw_offer = 'white'"),
                     1);
    PQfinish(c);
}
END_TEST

START_TEST(test_epoch_never_backward)
{
    PGconn *c = connect_db();

    migrate_ok(c);
    ck_assert_int_eq(take(c, "g1", 3), 3);
    ck_assert_int_eq(take(c, "g1", 2), 3);
    ck_assert_int_eq(take(c, "g1", 3), 3);
    ck_assert_int_eq(take(c, "g1", 1), 3);
    ck_assert_int_eq(take(c, "g1", 7), 7);
    ck_assert_int_eq(take(c, "g2", 1), 1);
    ck_assert_int_eq(
        query_ll(obs, "SELECT epoch FROM game_epochs WHERE gid = 'g1'"), 7);
    ck_assert_str_eq(append(c, "g1", 3, 1), PGMIGRATE_SQLSTATE_FENCED);
    ck_assert_str_eq(append(c, "g1", 7, 1), "");
    PQfinish(c);
}
END_TEST

/* Node A (epoch 1) is inside a batch that has appended; node B takes
 * epoch 2. B's take waits for A's batch, which commits whole (it was
 * checked before the take); A's next append fails. */
START_TEST(test_take_waits_for_batch)
{
    PGconn *a = connect_db(), *b = connect_db();
    char e[8] = "2";
    const char *params[2] = {"g1", e};
    PGresult *r;

    migrate_ok(a);
    take(a, "g1", 1);
    exec_ok(a, "BEGIN");
    ck_assert_str_eq(append(a, "g1", 1, 1), "");
    ck_assert_int_eq(PQsendQueryParams(b, "SELECT epoch_take($1, $2)", 2,
                                       NULL, params, NULL, NULL, 0),
                     1);
    ck_assert_msg(blocked_by(b, a),
                  "epoch_take did not wait for a batch in flight");
    ck_assert_str_eq(append(a, "g1", 1, 2), "");
    exec_ok(a, "COMMIT");
    r = result(b);
    ck_assert_int_eq(PQresultStatus(r), PGRES_TUPLES_OK);
    ck_assert_str_eq(PQgetvalue(r, 0, 0), "2");
    PQclear(r);
    ck_assert_int_eq(journal_rows(), 2);
    ck_assert_str_eq(append(a, "g1", 1, 3), PGMIGRATE_SQLSTATE_FENCED);
    ck_assert_int_eq(journal_rows(), 2);
    PQfinish(a);
    PQfinish(b);
}
END_TEST

/* Node B's take of epoch 2 is not committed yet when node A (epoch 1)
 * appends: A waits for B; B commits, and A's row is refused. */
START_TEST(test_append_waits_for_take)
{
    PGconn *a = connect_db(), *b = connect_db();
    char state[8], msg[256];

    migrate_ok(a);
    take(a, "g1", 1);
    exec_ok(b, "BEGIN");
    ck_assert_int_eq(take(b, "g1", 2), 2);
    exec_ok(a, "BEGIN");
    send_append(a, "g1", 1, 1);
    ck_assert_msg(blocked_by(a, b),
                  "journal_append did not wait for an epoch_take in flight");
    exec_ok(b, "COMMIT");
    append_outcome(a, state, sizeof state, msg, sizeof msg);
    ck_assert_str_eq(state, PGMIGRATE_SQLSTATE_FENCED);
    ck_assert_msg(strstr(msg, "current epoch is 2"), "%s", msg);
    exec_ok(a, "ROLLBACK");
    ck_assert_int_eq(journal_rows(), 0);
    PQfinish(a);
    PQfinish(b);
}
END_TEST

/* As above, but B's take rolls back: A's epoch is still the game's, and
 * its row goes in. */
START_TEST(test_append_after_take_rolled_back)
{
    PGconn *a = connect_db(), *b = connect_db();

    migrate_ok(a);
    take(a, "g1", 1);
    exec_ok(b, "BEGIN");
    ck_assert_int_eq(take(b, "g1", 2), 2);
    send_append(a, "g1", 1, 1);
    ck_assert(blocked_by(a, b));
    exec_ok(b, "ROLLBACK");
    {
        char state[8], msg[256];
        append_outcome(a, state, sizeof state, msg, sizeof msg);
        ck_assert_msg(strcmp(state, "") == 0, "%s", msg);
    }
    ck_assert_int_eq(journal_rows(), 1);
    PQfinish(a);
    PQfinish(b);
}
END_TEST

static Suite *pgstore_suite(void)
{
    Suite *s = suite_create("pgstore");
    TCase *tc = tcase_create("pgstore");

    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_fresh_then_noop);
    tcase_add_test(tc, test_constraints);
    tcase_add_test(tc, test_lag_totals_filled_from_moves);
    tcase_add_test(tc, test_openings_filled_from_pgn);
    tcase_add_test(tc, test_same_as_sqlite);
    tcase_add_loop_test(tc, test_concurrent_apply, 0, 2);
    tcase_add_test(tc, test_newer_refused);
    tcase_add_test(tc, test_append_current_epoch);
    tcase_add_test(tc, test_append_stale_epoch);
    tcase_add_test(tc, test_stale_fails_batch);
    tcase_add_test(tc, test_check_fences_game_rows);
    tcase_add_test(tc, test_epoch_never_backward);
    tcase_add_test(tc, test_take_waits_for_batch);
    tcase_add_test(tc, test_append_waits_for_take);
    tcase_add_test(tc, test_append_after_take_rolled_back);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(pgstore_suite());
}
