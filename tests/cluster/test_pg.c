/*
 * test_pg.c - libpq against the real PostgreSQL 15 that fixture.py starts
 * (run as `fixture.py --postgres -- test_pg`; CHESS_PG_DSN names it): the
 * connection, the server's version, a statement with parameters, and
 * pipeline mode (the batches of the design's store_pg: many statements,
 * one round trip, one transaction).
 */
#include <check.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"

static PGconn *pg;

static void setup(void)
{
    const char *dsn = getenv("CHESS_PG_DSN");

    ck_assert_msg(dsn != NULL, "CHESS_PG_DSN unset: run through fixture.py");
    pg = PQconnectdb(dsn);
    ck_assert_msg(PQstatus(pg) == CONNECTION_OK, "%s", PQerrorMessage(pg));
}

static void teardown(void)
{
    PQfinish(pg);
}

/* Runs sql (no result rows wanted) and fails the test on an error. */
static void exec_ok(const char *sql)
{
    PGresult *r = PQexec(pg, sql);

    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s: %s", sql,
                  PQerrorMessage(pg));
    PQclear(r);
}

START_TEST(test_version)
{
    int v = PQserverVersion(pg);

    ck_assert_msg(v >= 150000 && v < 160000, "server version %d", v);
    ck_assert_int_ge(PQlibVersion(), 150000);
}
END_TEST

START_TEST(test_parameters)
{
    const char *params[2] = {"g1", "it's \"quoted\""};
    PGresult *r;

    exec_ok("CREATE TEMP TABLE t (gid text PRIMARY KEY, note text)");
    r = PQexecParams(pg, "INSERT INTO t VALUES ($1, $2)", 2, NULL, params,
                     NULL, NULL, 0);
    ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s",
                  PQerrorMessage(pg));
    PQclear(r);
    r = PQexecParams(pg, "SELECT note FROM t WHERE gid = $1", 1, NULL, params,
                     NULL, NULL, 0);
    ck_assert_int_eq(PQresultStatus(r), PGRES_TUPLES_OK);
    ck_assert_int_eq(PQntuples(r), 1);
    ck_assert_str_eq(PQgetvalue(r, 0, 0), params[1]);
    PQclear(r);
}
END_TEST

START_TEST(test_pipeline)
{
    enum { N = 100 };
    char num[16];
    const char *params[1] = {num};
    PGresult *r;
    int results = 0, nulls = 0;

    exec_ok("CREATE TEMP TABLE moves (ply int PRIMARY KEY)");
    ck_assert_int_eq(PQenterPipelineMode(pg), 1);
    ck_assert_int_eq(
        PQsendQueryParams(pg, "BEGIN", 0, NULL, NULL, NULL, NULL, 0), 1);
    for (int i = 0; i < N; i++) {
        snprintf(num, sizeof num, "%d", i);
        ck_assert_int_eq(PQsendQueryParams(pg,
                                           "INSERT INTO moves VALUES ($1)", 1,
                                           NULL, params, NULL, NULL, 0),
                         1);
    }
    ck_assert_int_eq(
        PQsendQueryParams(pg, "COMMIT", 0, NULL, NULL, NULL, NULL, 0), 1);
    ck_assert_int_eq(PQpipelineSync(pg), 1);
    /* N + 2 results, each followed by a NULL, then the sync's */
    for (;;) {
        r = PQgetResult(pg);
        if (!r) {
            ck_assert_int_le(++nulls, N + 2); /* one after each query */
            continue;
        }
        if (PQresultStatus(r) == PGRES_PIPELINE_SYNC) {
            PQclear(r);
            break;
        }
        ck_assert_msg(PQresultStatus(r) == PGRES_COMMAND_OK, "%s",
                      PQresultErrorMessage(r));
        results++;
        PQclear(r);
    }
    ck_assert_int_eq(results, N + 2);
    ck_assert_int_eq(PQexitPipelineMode(pg), 1);
    r = PQexec(pg, "SELECT count(*), sum(ply) FROM moves");
    ck_assert_int_eq(PQresultStatus(r), PGRES_TUPLES_OK);
    ck_assert_str_eq(PQgetvalue(r, 0, 0), "100");
    ck_assert_str_eq(PQgetvalue(r, 0, 1), "4950");
    PQclear(r);
}
END_TEST

static Suite *pg_suite(void)
{
    Suite *s = suite_create("pg");
    TCase *tc = tcase_create("pg");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_version);
    tcase_add_test(tc, test_parameters);
    tcase_add_test(tc, test_pipeline);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(pg_suite());
}
