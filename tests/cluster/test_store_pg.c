/*
 * test_store_pg.c - the store on PostgreSQL (server/store/pg/) against
 * the real PostgreSQL 15 that fixture.py starts (run as `fixture.py
 * --postgres -- test_store_pg`; CHESS_PG_DSN names it, CHESS_FIXTURE_PID
 * restarts it): the behaviour cases every backend shares
 * (tests/unit/store_cases.c), and PostgreSQL's own: the schema and its
 * errors at open, fencing (a stale epoch's writes dropped and `committed`
 * held until the loop collects the game, a take that finds a newer
 * epoch, store_close while the writer waits), two nodes on one database,
 * two nodes migrating at once, a restart of PostgreSQL under a running
 * store, and a commit whose answer the connection lost (a proxy in this
 * file cuts it) applied once.
 *
 * Every test starts from an empty `public` schema (setup). Waits are
 * bounded and poll for the state they wait for; interleavings are forced
 * with locks and observed in pg_stat_activity, never with sleeps.
 */
#include <check.h>
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "check_main.h"
#include "migrations.h"
#include "move_assert.h"
#include "store/pg/pgmigrate.h"
#include "store/store.h"
#include "reader_cases.h"
#include "store_cases.h"
#include "sysclock.h"
#include "tmpdir.h"

static const char *dsn;
static PGconn *obs;    /* looks behind the store's back */
static PGconn *holder; /* hold_writer's lock */

static PGconn *connect_db(void)
{
    PGconn *c;

    ck_assert_msg(dsn != NULL, "CHESS_PG_DSN unset: run through fixture.py");
    c = PQconnectdb(dsn);
    ck_assert_msg(PQstatus(c) == CONNECTION_OK, "%s", PQerrorMessage(c));
    return c;
}

static void pq_exec(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);

    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK ||
                      PQresultStatus(r) == PGRES_TUPLES_OK,
                  "%s: %s", sql, PQerrorMessage(c));
    PQclear(r);
}

/* The first column of the first row (-1: no row or NULL). */
static int64_t pq_int(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    int64_t v = -1;

    ck_assert_msg(PQresultStatus(r) == PGRES_TUPLES_OK, "%s: %s", sql,
                  PQerrorMessage(c));
    if (PQntuples(r) > 0 && !PQgetisnull(r, 0, 0))
        v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return v;
}

static void setup(void)
{
    dsn = getenv("CHESS_PG_DSN");
    obs = connect_db();
    pq_exec(obs, "SET client_min_messages = warning");
    pq_exec(obs, "DROP SCHEMA public CASCADE");
    pq_exec(obs, "CREATE SCHEMA public");
    store_cases_reset();
}

static void teardown(void)
{
    PQfinish(holder);
    holder = NULL;
    PQfinish(obs);
    obs = NULL;
}

static struct store *open_at(const char *conninfo, const char *node)
{
    struct store *s = NULL;
    char err[512] = "";

    ck_assert_msg(store_open_pg(&s, conninfo, node, NULL,
                                store_cases_on_commit, NULL, err,
                                sizeof err) == 0,
                  "store_open_pg: %s", err);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(store_backend_name(s), "postgres");
    return s;
}

static struct store *open_node(const char *node)
{
    return open_at(dsn, node);
}

/* Polls cond (an expression) every millisecond for at most 60 s (valgrind
 * is slow; a pass takes milliseconds). */
#define WAIT_FOR(cond)                                                     \
    do {                                                                   \
        int64_t until_ = sysclock_ms(CLOCK_MONOTONIC) + 60000;             \
        while (!(cond) && sysclock_ms(CLOCK_MONOTONIC) < until_)           \
            sleep_ms(1);                                                   \
        ck_assert_msg((cond), "timed out waiting: %s (%lld ms early)",     \
                      #cond,                                               \
                      (long long)(until_ - sysclock_ms(CLOCK_MONOTONIC))); \
    } while (0)

/* ---- the harness of the shared cases (store_cases.h) ------------------ */

static struct store *h_open(void)
{
    return open_node("node1");
}

static int64_t h_query_int(const char *sql)
{
    return pq_int(obs, sql);
}

static void h_exec(const char *sql)
{
    pq_exec(obs, sql);
}

/* Every batch writes this node's row in meta first (its commit marker):
 * a lock on meta stops the writer at its next batch. */
static void h_hold_writer(void)
{
    if (!holder)
        holder = connect_db();
    pq_exec(holder, "BEGIN");
    pq_exec(holder, "LOCK TABLE meta IN EXCLUSIVE MODE");
}

static void h_release_writer(void)
{
    pq_exec(holder, "ROLLBACK");
}

/* A trigger raising check_violation (a constraint's SQLSTATE class). */
static void h_refuse_history_of(const char *pid)
{
    char sql[512];

    pq_exec(obs, "DROP TRIGGER IF EXISTS refuse_history ON rating_history");
    if (!pid)
        return;
    snprintf(sql, sizeof sql,
             "CREATE OR REPLACE FUNCTION refuse_history() RETURNS trigger "
             "LANGUAGE plpgsql AS $$ BEGIN IF NEW.pid = '%s' THEN RAISE "
             "EXCEPTION USING ERRCODE = 'check_violation', MESSAGE = "
             "'refused by the test'; END IF; RETURN NEW; END $$",
             pid);
    pq_exec(obs, sql);
    pq_exec(obs, "CREATE TRIGGER refuse_history BEFORE INSERT ON "
                 "rating_history FOR EACH ROW EXECUTE FUNCTION "
                 "refuse_history()");
}

static int64_t h_heartbeat(void)
{
    return pq_int(obs, "SELECT value FROM meta WHERE key = "
                       "'heartbeat_ms:node1'");
}

static int h_open_reader(struct store **out, char *err, size_t errlen)
{
    /* a path too: the connection string wins */
    return store_open_reader(out, "/nonexistent/chess.db", dsn, err, errlen);
}

static const struct store_harness pg_harness = {
    .open = h_open,
    .query_int = h_query_int,
    .exec = h_exec,
    .hold_writer = h_hold_writer,
    .release_writer = h_release_writer,
    .refuse_history_of = h_refuse_history_of,
    .heartbeat = h_heartbeat,
    .open_reader = h_open_reader,
};

/* ---- helpers of PostgreSQL's own cases -------------------------------- */

/* Sessions of node (its application_name) waiting for a lock. */
static int64_t waiting(const char *node, const char *event_type)
{
    char sql[256];

    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM pg_stat_activity WHERE "
             "application_name = 'chess-server/%s' AND "
             "wait_event_type = '%s'",
             node, event_type);
    return pq_int(obs, sql);
}

/* Stops node1's writer inside a transaction (a player row queued while
 * the writer waits for hold_writer's lock): everything queued until
 * h_release_writer then commits in the one batch after it. */
static void hold_next_batch(struct store *s)
{
    struct store_player p = player("blocker", "blocker", 200);

    h_hold_writer();
    ck_assert_uint_gt(store_put_player(s, &p), 0);
    WAIT_FOR(waiting("node1", "Lock") == 1);
}

static int64_t journal_of(const char *gid)
{
    char sql[128];

    snprintf(sql, sizeof sql, "SELECT count(*) FROM journal WHERE gid = '%s'",
             gid);
    return pq_int(obs, sql);
}

/* Players pidA and pidB and the started games of gids between them, each
 * taken at epoch 1 first when `taken`. */
static void two_players_and_games(struct store *s, const char *const *gids,
                                  size_t n, bool taken)
{
    struct store_player a = player("pidA", "pidA", 1);
    struct store_player b = player("pidB", "pidB", 2);
    uint64_t seq = 0;

    store_put_player(s, &a);
    store_put_player(s, &b);
    for (size_t i = 0; i < n; i++) {
        struct store_game g = game(gids[i], "pidA", "pidB", "started",
                                   100 + (int64_t)i);
        if (taken)
            ck_assert_uint_gt(store_take_epoch(s, gids[i], 1), 0);
        seq = store_put_game(s, &g);
    }
    wait_committed(s, seq);
}

/* ---- the schema, errors at open --------------------------------------- */

START_TEST(fresh_database_is_migrated)
{
    struct store *s = open_node("node1");
    char where[300];
    int64_t epoch = -1;

    ck_assert_int_eq(store_schema_version(s),
                     migrations_pg_list[migrations_pg_count - 1].version);
    ck_assert_int_eq(pq_int(obs, "SELECT max(version) FROM schema_version"),
                     store_schema_version(s));
    ck_assert_int_eq(pq_int(obs, "SELECT count(*) FROM pg_indexes WHERE "
                                 "indexname = 'journal_game'"),
                     1);
    ck_assert_int_eq(store_last_heartbeat_ms(s), 0);
    ck_assert_uint_eq(store_committed(s), 0);
    ck_assert_uint_eq(store_queue_depth(s), 0);
    store_location(s, where, sizeof where);
    ck_assert_msg(strstr(where, "postgres ") == where, "%s", where);
    ck_assert_msg(strstr(where, "dbname=chess"), "%s", where);
    ck_assert_msg(strstr(where, "user=chess"), "%s", where);
    ck_assert_int_eq(store_get_epoch(s, "nope", &epoch), 0);
    ck_assert_int_eq(epoch, 0);
    store_close(s);
}
END_TEST

START_TEST(newer_schema_is_refused)
{
    struct store *s = open_node("node1");
    int newest = store_schema_version(s);
    char sql[128], err[512] = "";

    store_close(s);
    snprintf(sql, sizeof sql,
             "INSERT INTO schema_version VALUES (%d, 'future', 0)",
             newest + 1);
    pq_exec(obs, sql);
    s = (struct store *)&s; /* must be reset to NULL */
    ck_assert_int_eq(
        store_open_pg(&s, dsn, "node1", NULL, NULL, NULL, err, sizeof err),
        -1);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, "newer"), "err: %s", err);
    ck_assert_msg(strstr(err, "dbname=chess"), "err: %s", err);
    ck_assert_int_eq(pq_int(obs, "SELECT max(version) FROM schema_version"),
                     newest + 1);
}
END_TEST

/* A reader neither migrates nor prepares statements an older schema
 * lacks: it names both versions and what to do. */
START_TEST(reader_refuses_an_older_schema)
{
    struct store *s = open_node("node1"), *r = (struct store *)&s;
    char err[512] = "";

    store_close(s);
    pq_exec(obs, "DELETE FROM schema_version WHERE version = "
                 "(SELECT max(version) FROM schema_version)");
    ck_assert_int_eq(store_open_reader(&r, NULL, dsn, err, sizeof err), -1);
    ck_assert_ptr_null(r);
    ck_assert_msg(strstr(err, "start this chess-server on it once") &&
                      strstr(err, "dbname=chess"),
                  "err: %s", err);
    ck_assert_int_eq(store_open_reader(&r, NULL, "host=/nonexistent/chess",
                                       err, sizeof err),
                     -1);
    ck_assert_msg(strstr(err, "cannot connect to PostgreSQL"), "err: %s",
                  err);
}
END_TEST

START_TEST(open_errors_are_sentences)
{
    struct store *s = NULL;
    char err[512] = "";

    ck_assert_int_eq(store_open_pg(&s,
                                   "host=/nonexistent/chess port=5432 "
                                   "dbname=chess",
                                   "node1", NULL, NULL, NULL, err,
                                   sizeof err),
                     -1);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, "cannot connect to PostgreSQL") &&
                      strstr(err, "/nonexistent/chess"),
                  "err: %s", err);
    err[0] = '\0';
    ck_assert_int_eq(store_open_pg(&s, "this is not a connection string",
                                   "node1", NULL, NULL, NULL, err,
                                   sizeof err),
                     -1);
    ck_assert_msg(strstr(err, "cannot connect to PostgreSQL"), "err: %s",
                  err);
    ck_assert_int_eq(
        store_open_pg(&s, dsn, "", NULL, NULL, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "node id"), "err: %s", err);
    ck_assert_int_eq(
        store_open_pg(&s, "", "node1", NULL, NULL, NULL, err, sizeof err),
        -1);
    ck_assert_ptr_null(s);
    /* --check-config's probe */
    ck_assert_int_eq(store_check_pg(dsn, NULL, err, sizeof err), 0);
    ck_assert_int_eq(store_check_pg("host=/nonexistent/chess dbname=x", NULL,
                                    err, sizeof err),
                     -1);
    ck_assert_msg(strstr(err, "key 'postgres': PostgreSQL does not answer"),
                  "err: %s", err);
}
END_TEST

/* ---- fencing ---------------------------------------------------------- */

/*
 * Another node took game A (epoch 2) while this one wrote A at epoch 1:
 * the batch with A's moves and B's writes is refused by journal_append
 * (CH001), A's ops are dropped and B's commit; `committed` stops before
 * A's first dropped op until the loop collects A, then passes it. A later
 * write of A is dropped without reaching the database; a new take lets
 * the node write A again.
 */
START_TEST(stale_epoch_is_fenced_and_held_for_the_loop)
{
    static const char *const gids[] = {"A", "B"};
    struct store *s = open_node("node1");
    struct store_game gb = game("B", "pidA", "pidB", "started", 101);
    struct store_move m1 = move(1, "e2e4", "e4"), m2 = move(2, "e7e5", "e5");
    char fenced[4][33];
    uint64_t a1, a2, b1, b2, a3;

    two_players_and_games(s, gids, 2, true);
    ck_assert_int_eq(pq_int(obs, "SELECT epoch_take('A', 2)"), 2);

    hold_next_batch(s);
    b1 = store_put_move(s, "B", &m1);
    a1 = store_put_move(s, "A", &m1);
    a2 = store_put_move(s, "A", &m2);
    snprintf(gb.draw_offer, sizeof gb.draw_offer, "white");
    b2 = store_put_game(s, &gb);
    ck_assert_uint_eq(a1, b1 + 1);
    h_release_writer();

    /* B's writes committed in the database ... */
    WAIT_FOR(pq_int(obs, "SELECT count(*) FROM games WHERE gid = 'B' AND "
                         "draw_offer = 'white'") == 1);
    ck_assert_int_eq(journal_of("B"), 1);
    ck_assert_int_eq(journal_of("A"), 0);
    /* ... but committed stays before A's first dropped op */
    WAIT_FOR(store_committed(s) >= b1);
    ck_assert_uint_eq(store_committed(s), a1 - 1);
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_FENCED), 2);

    /* the loop collects A: committed goes on past the dropped ops */
    ck_assert_uint_eq(store_take_fenced(s, fenced, 4), 1);
    ck_assert_str_eq(fenced[0], "A");
    wait_committed(s, b2);
    ck_assert_uint_gt(b2, a2);

    /* a later write of A never reaches the database */
    a3 = store_put_move(s, "A", &m1);
    wait_committed(s, a3);
    ck_assert_int_eq(journal_of("A"), 0);
    ck_assert_uint_eq(store_failures(s, STORE_FAIL_FENCED), 3);
    ck_assert_uint_eq(store_take_fenced(s, fenced, 4), 0);

    /* the node took A's lease again, at epoch 3 */
    ck_assert_uint_gt(store_take_epoch(s, "A", 3), 0);
    wait_committed(s, store_put_move(s, "A", &m1));
    ck_assert_int_eq(journal_of("A"), 1);
    ck_assert_int_eq(pq_int(obs, "SELECT epoch FROM game_epochs WHERE "
                                 "gid = 'A'"),
                     3);
    store_close(s);
}
END_TEST

/* A take that finds a newer epoch (another node took the game since) is
 * reported as fenced, and the game's later writes are dropped. */
START_TEST(take_of_a_game_taken_since_is_fenced)
{
    static const char *const gids[] = {"C"};
    struct store *s = open_node("node1");
    struct store_move m1 = move(1, "e2e4", "e4");
    char fenced[4][33];
    int64_t epoch = 0;
    uint64_t t;
    size_t n = 0;

    two_players_and_games(s, gids, 1, false);
    ck_assert_int_eq(pq_int(obs, "SELECT epoch_take('C', 5)"), 5);
    t = store_take_epoch(s, "C", 4);
    ck_assert_uint_gt(t, 0);
    for (int64_t until = sysclock_ms(CLOCK_MONOTONIC) + 60000;
         n == 0 && sysclock_ms(CLOCK_MONOTONIC) < until;) {
        n = store_take_fenced(s, fenced, 4);
        if (!n)
            sleep_ms(1);
    }
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(fenced[0], "C");
    wait_committed(s, t);
    ck_assert_int_eq(store_get_epoch(s, "C", &epoch), 1);
    ck_assert_int_eq(epoch, 5);
    wait_committed(s, store_put_move(s, "C", &m1));
    ck_assert_int_eq(journal_of("C"), 0);
    ck_assert_uint_ge(store_failures(s, STORE_FAIL_FENCED), 2);
    store_close(s);
}
END_TEST

/* store_close returns while the writer waits for the loop to collect a
 * fenced game, and what the batch committed stays committed. */
START_TEST(close_returns_while_the_writer_waits_for_the_loop)
{
    static const char *const gids[] = {"A", "B"};
    struct store *s = open_node("node1");
    struct store_move m1 = move(1, "e2e4", "e4");
    uint64_t b1;

    two_players_and_games(s, gids, 2, true);
    ck_assert_int_eq(pq_int(obs, "SELECT epoch_take('A', 2)"), 2);
    hold_next_batch(s);
    store_put_move(s, "A", &m1);
    b1 = store_put_move(s, "B", &m1);
    h_release_writer();
    WAIT_FOR(journal_of("B") == 1);
    WAIT_FOR(store_failures(s, STORE_FAIL_FENCED) == 1);
    ck_assert_uint_lt(store_committed(s), b1);
    store_close(s); /* (the test's timeout catches a hang) */
    ck_assert_int_eq(journal_of("B"), 1);
    ck_assert_int_eq(journal_of("A"), 0);
}
END_TEST

/* ---- several nodes ---------------------------------------------------- */

/* Two nodes on one database: each reads what the other committed, each
 * numbers its own writes, and each keeps its own heartbeat row, which it
 * reads back at its next start. */
START_TEST(two_nodes_share_one_database)
{
    static const char *const gids[] = {"G"};
    struct store *s1 = open_node("node1"), *s2 = open_node("node2");
    struct store_move m1 = move(1, "e2e4", "e4"), m2 = move(2, "e7e5", "e5");
    struct store_move *moves = NULL;
    struct store_game got;
    int64_t t2a, t2b, t1a, t1b;
    uint64_t seq;
    size_t n = 0;

    two_players_and_games(s1, gids, 1, false);
    wait_committed(s1, store_put_move(s1, "G", &m1));
    ck_assert_int_eq(store_get_game(s2, "G", &got, &moves, &n, NULL), 1);
    ck_assert_uint_eq(n, 1);
    free(moves);
    seq = store_put_move(s2, "G", &m2);
    ck_assert_uint_eq(seq, 1); /* s2's own numbers */
    wait_committed(s2, seq);
    ck_assert_int_eq(store_get_game(s1, "G", &got, &moves, &n, NULL), 1);
    ck_assert_uint_eq(n, 2);
    assert_move_eq(&moves[1], &m2);
    free(moves);
    WAIT_FOR(pq_int(obs,
                    "SELECT count(*) FROM meta WHERE key IN "
                    "('heartbeat_ms:node1', 'heartbeat_ms:node2')") == 2);

    t2a = sysclock_ms(CLOCK_REALTIME);
    store_close(s2);
    t2b = sysclock_ms(CLOCK_REALTIME);
    /* node1 beats on after node2 stopped */
    WAIT_FOR(h_heartbeat() > t2b);
    t1a = sysclock_ms(CLOCK_REALTIME);
    store_close(s1);
    t1b = sysclock_ms(CLOCK_REALTIME);

    s2 = open_node("node2");
    ck_assert_int_ge(store_last_heartbeat_ms(s2), t2a);
    ck_assert_int_le(store_last_heartbeat_ms(s2), t2b);
    s1 = open_node("node1");
    ck_assert_int_ge(store_last_heartbeat_ms(s1), t1a);
    ck_assert_int_le(store_last_heartbeat_ms(s1), t1b);
    store_close(s1);
    store_close(s2);
}
END_TEST

struct opener {
    pthread_t thread;
    const char *node;
    struct store *s;
    int rc;
    char err[512];
};

static void *open_thread(void *arg)
{
    struct opener *o = arg;

    o->rc = store_open_pg(&o->s, dsn, o->node, NULL, NULL, NULL, o->err,
                          sizeof o->err);
    return NULL;
}

/* Two nodes starting at once on an empty database: both wait for the
 * migration lock (held here until both do), one migrates, both open at
 * the newest version, and each migration ran once. */
START_TEST(two_nodes_starting_together_migrate_once)
{
    struct opener o[2] = {{.node = "node1"}, {.node = "node2"}};
    char sql[128];

    snprintf(sql, sizeof sql, "SELECT pg_advisory_lock(%lld)",
             (long long)PGMIGRATE_LOCK_KEY);
    pq_exec(obs, sql);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(
            pthread_create(&o[i].thread, NULL, open_thread, &o[i]), 0);
    WAIT_FOR(waiting("node1", "Lock") + waiting("node2", "Lock") == 2);
    snprintf(sql, sizeof sql, "SELECT pg_advisory_unlock(%lld)",
             (long long)PGMIGRATE_LOCK_KEY);
    pq_exec(obs, sql);
    for (int i = 0; i < 2; i++) {
        pthread_join(o[i].thread, NULL);
        ck_assert_msg(o[i].rc == 0, "%s: %s", o[i].node, o[i].err);
        ck_assert_int_eq(store_schema_version(o[i].s),
                         migrations_pg_list[migrations_pg_count - 1].version);
    }
    ck_assert_int_eq(pq_int(obs, "SELECT count(*) FROM schema_version"),
                     (int64_t)migrations_pg_count);
    store_close(o[0].s);
    store_close(o[1].s);
}
END_TEST

/* ---- failures --------------------------------------------------------- */

/* fixture.py stops PostgreSQL on SIGUSR1 and starts it again on SIGUSR2,
 * each waited for: then the server answers, or no longer does. */
static void fixture_signal(int sig)
{
    const char *pid = getenv("CHESS_FIXTURE_PID");

    ck_assert_msg(pid != NULL, "CHESS_FIXTURE_PID unset: run through "
                               "fixture.py");
    ck_assert_int_eq(kill((pid_t)atoi(pid), sig), 0);
}

/* The postmaster has exited: it removes its socket's lock file last
 * (PQping may fail on the way down and answer again after). */
static bool postgres_stopped(void)
{
    char lock[200];

    snprintf(lock, sizeof lock, "%s/.s.PGSQL.%s.lock", getenv("PGHOST"),
             getenv("PGPORT") ? getenv("PGPORT") : "5432");
    return access(lock, F_OK) != 0 && errno == ENOENT;
}

/* PostgreSQL restarted under a running store: the writes queued while it
 * is down are retried and commit once it is back, each exactly once and
 * in order; reads work again. */
START_TEST(writes_retry_across_a_restart_of_postgres)
{
    static const char *const gids[] = {"G"};
    struct store *s = open_node("node1");
    struct store_move *moves = NULL;
    struct store_game got;
    struct store_pg_stats pgs;
    uint64_t seq = 0;
    size_t n = 0;

    two_players_and_games(s, gids, 1, true);
    store_pg_stats(s, &pgs);
    ck_assert_uint_eq(pgs.reconnects, 0);
    for (int ply = 1; ply <= 5; ply++) {
        struct store_move m = move(ply, "e2e4", "e4");
        seq = store_put_move(s, "G", &m);
    }
    wait_committed(s, seq);

    PQfinish(obs);
    obs = NULL;
    fixture_signal(SIGUSR1);
    WAIT_FOR(postgres_stopped());
    for (int ply = 6; ply <= 10; ply++) {
        struct store_move m = move(ply, "e2e4", "e4");
        seq = store_put_move(s, "G", &m);
    }
    ck_assert_uint_lt(store_committed(s), seq);
    fixture_signal(SIGUSR2);
    WAIT_FOR(PQping(dsn) == PQPING_OK);
    wait_committed(s, seq);

    obs = connect_db();
    ck_assert_int_eq(journal_of("G"), 10);
    ck_assert_int_eq(pq_int(obs, "SELECT count(DISTINCT ply) FROM journal "
                                 "WHERE gid = 'G'"),
                     10);
    ck_assert_uint_gt(store_failures(s, STORE_FAIL_COMMIT), 0);
    store_pg_stats(s, &pgs); /* (the metrics' count of it) */
    ck_assert_uint_eq(pgs.reconnects, 1);
    ck_assert_int_eq(store_get_game(s, "G", &got, &moves, &n, NULL), 1);
    ck_assert_uint_eq(n, 10);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(moves[i].ply, (int)i + 1);
    free(moves);
    store_close(s);
}
END_TEST

/*
 * A proxy between the store and PostgreSQL's socket that can lose a
 * commit's answer: armed with a needle (a statement's name, which the
 * Bind message carries), it forwards the store's pipeline that holds it
 * up to its Sync and then cuts both sides without a byte of the answer,
 * so that the server commits and the store cannot know; after a cut it
 * refuses connections until told to forward again.
 */
enum proxy_mode { PROXY_FORWARD, PROXY_CUT, PROXY_REFUSE };

struct proxy {
    char dir[64], path[100], target[100];
    int lfd;
    pthread_t thread;
    atomic_int mode, cuts;
    atomic_bool stop;
    const char *needle;
    size_t needle_len;
};

struct pair {
    int c, s;  /* the store's side, the server's; -1: free */
    bool seen; /* the needle went by since the last Sync */
};

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void pair_close(struct pair *p)
{
    if (p->c >= 0)
        close(p->c);
    if (p->s >= 0)
        close(p->s);
    p->c = p->s = -1;
    p->seen = false;
}

/* From the store to the server: forwarded, and cut after a pipeline that
 * carried the needle when armed. */
static void from_store(struct proxy *px, struct pair *p, const char *buf,
                       size_t n)
{
    static const char sync_msg[5] = {'S', 0, 0, 0, 4};

    if (atomic_load(&px->mode) == PROXY_CUT &&
        memmem(buf, n, px->needle, px->needle_len))
        p->seen = true;
    if (write_all(p->s, buf, n) != 0) {
        pair_close(p);
        return;
    }
    if (p->seen && n >= 5 && !memcmp(buf + n - 5, sync_msg, 5)) {
        atomic_store(&px->mode, PROXY_REFUSE);
        atomic_fetch_add(&px->cuts, 1);
        pair_close(p);
    }
}

static void *proxy_main(void *arg)
{
    struct proxy *px = arg;
    struct pair pairs[8];
    char buf[65536];

    for (size_t i = 0; i < 8; i++)
        pairs[i] = (struct pair){-1, -1, false};
    while (!atomic_load(&px->stop)) {
        struct pollfd fds[17];
        nfds_t nf = 0;

        fds[nf++] = (struct pollfd){px->lfd, POLLIN, 0};
        for (size_t i = 0; i < 8; i++)
            if (pairs[i].c >= 0) {
                fds[nf++] = (struct pollfd){pairs[i].c, POLLIN, 0};
                fds[nf++] = (struct pollfd){pairs[i].s, POLLIN, 0};
            }
        if (poll(fds, nf, 50) <= 0)
            continue;
        if (fds[0].revents & POLLIN) {
            int c = accept(px->lfd, NULL, NULL), s = -1;
            struct sockaddr_un a = {.sun_family = AF_UNIX};
            size_t i;

            snprintf(a.sun_path, sizeof a.sun_path, "%s", px->target);
            if (c >= 0 && atomic_load(&px->mode) != PROXY_REFUSE &&
                (s = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0 &&
                connect(s, (struct sockaddr *)&a, sizeof a) == 0) {
                for (i = 0; i < 8 && pairs[i].c >= 0; i++)
                    ;
                if (i < 8) {
                    pairs[i] = (struct pair){c, s, false};
                    c = s = -1;
                }
            }
            if (c >= 0)
                close(c);
            if (s >= 0)
                close(s);
        }
        for (nfds_t k = 1; k < nf; k++) {
            struct pair *p = NULL;
            bool store_side = false;
            ssize_t n;

            if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            for (size_t i = 0; i < 8 && !p; i++)
                if (pairs[i].c == fds[k].fd || pairs[i].s == fds[k].fd) {
                    p = &pairs[i];
                    store_side = pairs[i].c == fds[k].fd;
                }
            if (!p)
                continue; /* closed earlier in this round */
            n = read(fds[k].fd, buf, sizeof buf);
            if (n <= 0) {
                pair_close(p);
                continue;
            }
            if (store_side)
                from_store(px, p, buf, (size_t)n);
            else if (write_all(p->c, buf, (size_t)n) != 0)
                pair_close(p);
        }
    }
    for (size_t i = 0; i < 8; i++)
        pair_close(&pairs[i]);
    return NULL;
}

/* Starts a proxy in front of the fixture's socket ($PGHOST, $PGPORT),
 * listening as a PostgreSQL socket of port 5432 in its own folder. */
static void proxy_start(struct proxy *px, const char *needle, size_t len)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    const char *host = getenv("PGHOST"), *port = getenv("PGPORT");

    ck_assert_ptr_nonnull(host);
    memset(px, 0, sizeof *px);
    px->needle = needle;
    px->needle_len = len;
    tmpdir_make(px->dir, sizeof px->dir, "test_store_pg");
    snprintf(px->path, sizeof px->path, "%s/.s.PGSQL.5432", px->dir);
    ck_assert_int_lt(snprintf(px->target, sizeof px->target, "%s/.s.PGSQL.%s",
                              host, port ? port : "5432"),
                     (int)sizeof px->target);
    px->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_ge(px->lfd, 0);
    snprintf(a.sun_path, sizeof a.sun_path, "%s", px->path);
    ck_assert_int_eq(bind(px->lfd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(px->lfd, 8), 0);
    ck_assert_int_eq(pthread_create(&px->thread, NULL, proxy_main, px), 0);
}

static void proxy_stop(struct proxy *px)
{
    atomic_store(&px->stop, true);
    pthread_join(px->thread, NULL);
    close(px->lfd);
    unlink(px->path);
    tmpdir_remove(px->dir);
}

/* The connection breaks after the server committed a batch and before the
 * store heard: the store opens a new one, finds its commit marker, and
 * does not send the batch again (the move is journaled once). */
START_TEST(a_commit_whose_answer_was_lost_is_applied_once)
{
    static const char *const gids[] = {"G"};
    static const char needle[] = "w_move"; /* with its NUL: the name */
    struct store_move m1 = move(1, "e2e4", "e4"), m2 = move(2, "e7e5", "e5");
    struct proxy px;
    struct store *s;
    struct store_pg_stats pgs;
    char via[256];
    uint64_t seq;

    proxy_start(&px, needle, sizeof needle);
    snprintf(via, sizeof via, "host=%s port=5432 user=chess dbname=chess",
             px.dir);
    s = open_at(via, "node1");
    two_players_and_games(s, gids, 1, false);

    atomic_store(&px.mode, PROXY_CUT);
    seq = store_put_move(s, "G", &m1);
    WAIT_FOR(atomic_load(&px.cuts) == 1);
    /* the server committed it; the store has not heard and cannot */
    WAIT_FOR(journal_of("G") == 1);
    ck_assert_uint_lt(store_committed(s), seq);

    atomic_store(&px.mode, PROXY_FORWARD);
    wait_committed(s, seq);
    ck_assert_int_eq(journal_of("G"), 1);
    ck_assert_uint_gt(store_failures(s, STORE_FAIL_COMMIT), 0);
    store_pg_stats(s, &pgs); /* resolved by its marker: committed */
    ck_assert_uint_eq(pgs.resolved[1], 1);
    ck_assert_uint_eq(pgs.resolved[0], 0);
    ck_assert_uint_ge(pgs.reconnects, 1);
    wait_committed(s, store_put_move(s, "G", &m2));
    ck_assert_int_eq(journal_of("G"), 2);
    store_close(s);
    proxy_stop(&px);
}
END_TEST

static Suite *store_pg_suite(void)
{
    Suite *s = suite_create("store_pg");
    TCase *tc = tcase_create("store_pg");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, fresh_database_is_migrated);
    tcase_add_test(tc, newer_schema_is_refused);
    tcase_add_test(tc, open_errors_are_sentences);
    tcase_add_test(tc, reader_refuses_an_older_schema);
    tcase_add_test(tc, stale_epoch_is_fenced_and_held_for_the_loop);
    tcase_add_test(tc, take_of_a_game_taken_since_is_fenced);
    tcase_add_test(tc, close_returns_while_the_writer_waits_for_the_loop);
    tcase_add_test(tc, two_nodes_share_one_database);
    tcase_add_test(tc, two_nodes_starting_together_migrate_once);
    tcase_add_test(tc, writes_retry_across_a_restart_of_postgres);
    tcase_add_test(tc, a_commit_whose_answer_was_lost_is_applied_once);
    store_cases_add(tc, &pg_harness);
    reader_cases_add(tc, &pg_harness);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(store_pg_suite());
}
