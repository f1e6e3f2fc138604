/*
 * pgmigrate.c - the PostgreSQL schema's migrations applied in one
 * transaction under an advisory lock (pgmigrate.h), as store_sqlite.c's
 * migrate does for SQLite.
 */
#include "store/pg/pgmigrate.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/errtext.h"
#include "lib/log.h"
#include "migrations.h"
#include "sysclock.h"

const char *pgmigrate_message(PGconn *c, const PGresult *r, char *buf,
                              size_t len)
{
    const char *m = r ? PQresultErrorMessage(r) : "";
    size_t n, k = 0;
    bool space = false;

    if (!*m && c)
        m = PQerrorMessage(c);
    if (!*m)
        m = "unknown error";
    /* one line: each run of newlines and the blanks after them, one space */
    for (n = 0; m[n] && k + 1 < len; n++) {
        if (m[n] == '\n' || ((m[n] == ' ' || m[n] == '\t') && space)) {
            space = true;
            continue;
        }
        if (space && k > 0)
            buf[k++] = ' ';
        space = false;
        if (k + 1 < len)
            buf[k++] = m[n] == '\t' ? ' ' : m[n];
    }
    buf[k] = '\0';
    while (k > 0 && buf[k - 1] == ' ')
        buf[--k] = '\0';
    return buf;
}

/* Runs sql (its rows, if any, unread); 0, or -1 with err set to
 * "pgmigrate: WHAT: the server's message". */
static int exec_cmd(PGconn *c, const char *sql, const char *what, char *err,
                    size_t errlen)
{
    PGresult *r = PQexec(c, sql);
    char msg[512];

    if (PQresultStatus(r) == PGRES_COMMAND_OK ||
        PQresultStatus(r) == PGRES_TUPLES_OK) {
        PQclear(r);
        return 0;
    }
    errtext_set(err, errlen, "pgmigrate: %s: %s", what,
                pgmigrate_message(c, r, msg, sizeof msg));
    PQclear(r);
    return -1;
}

/* The database's schema version (0: no migration yet) in *have; 0, or -1
 * with err set. */
static int schema_version(PGconn *c, long long *have, char *err,
                          size_t errlen)
{
    PGresult *r = PQexec(c, "SELECT coalesce(max(version), 0) "
                            "FROM schema_version");
    char msg[512];

    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
        errtext_set(err, errlen, "pgmigrate: reading schema_version: %s",
                    pgmigrate_message(c, r, msg, sizeof msg));
        PQclear(r);
        return -1;
    }
    *have = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return 0;
}

/* Records migration m in schema_version; 0, or -1 with err set. */
static int record(PGconn *c, const struct migration *m, char *err,
                  size_t errlen)
{
    struct timespec ts;
    char version[16], ms[32], msg[512];
    const char *params[3] = {version, m->name, ms};
    PGresult *r;

    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(version, sizeof version, "%d", m->version);
    snprintf(ms, sizeof ms, "%lld",
             (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
    r = PQexecParams(c,
                     "INSERT INTO schema_version (version, name, "
                     "applied_ms) VALUES ($1, $2, $3)",
                     3, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
        errtext_set(err, errlen, "pgmigrate: recording migration %04d_%s: %s",
                    m->version, m->name,
                    pgmigrate_message(c, r, msg, sizeof msg));
        PQclear(r);
        return -1;
    }
    PQclear(r);
    return 0;
}

int pgmigrate_version(PGconn *c, long long *have, int *newest, char *err,
                      size_t errlen)
{
    *newest = migrations_pg_list[migrations_pg_count - 1].version;
    return schema_version(c, have, err, errlen);
}

int pgmigrate_apply(PGconn *c, int *version, char *err, size_t errlen)
{
    int newest = migrations_pg_list[migrations_pg_count - 1].version;
    long long have;
    int64_t started;
    char sql[128];

    if (PQstatus(c) != CONNECTION_OK) {
        errtext_set(err, errlen, "pgmigrate: not connected to PostgreSQL");
        return -1;
    }
    if (PQtransactionStatus(c) != PQTRANS_IDLE) {
        errtext_set(err, errlen,
                    "pgmigrate: the connection is inside a transaction");
        return -1;
    }
    /* READ COMMITTED whatever the sessions' default: a node that waited
     * for the lock must read, in the statements after it (each takes a
     * new snapshot), the schema the node before it committed. */
    if (exec_cmd(c, "BEGIN ISOLATION LEVEL READ COMMITTED", "BEGIN", err,
                 errlen) != 0)
        return -1;
    snprintf(sql, sizeof sql, "SELECT pg_advisory_xact_lock(%lld)",
             (long long)PGMIGRATE_LOCK_KEY);
    if (exec_cmd(c, sql, "taking the migration lock", err, errlen) != 0)
        goto fail;
    if (exec_cmd(c,
                 "SET LOCAL client_min_messages = warning; "
                 "CREATE TABLE IF NOT EXISTS schema_version ("
                 "version integer PRIMARY KEY CHECK (version >= 1), "
                 "name text NOT NULL, applied_ms bigint NOT NULL)",
                 "creating schema_version", err, errlen) != 0 ||
        schema_version(c, &have, err, errlen) != 0)
        goto fail;
    if (have > newest) {
        errtext_set(
            err, errlen,
            "pgmigrate: the PostgreSQL database's schema is version "
            "%lld, newer than the newest this server knows (%d); run a "
            "newer server or restore a backup",
            have, newest);
        goto fail;
    }
    started = sysclock_ms(CLOCK_MONOTONIC);
    for (size_t i = (size_t)have; i < migrations_pg_count; i++) {
        const struct migration *m = &migrations_pg_list[i];
        char what[96];

        snprintf(what, sizeof what, "migration pg/%04d_%s failed", m->version,
                 m->name);
        if (exec_cmd(c, m->sql, what, err, errlen) != 0 ||
            record(c, m, err, errlen) != 0)
            goto fail;
    }
    if (exec_cmd(c, "COMMIT", "COMMIT", err, errlen) != 0)
        goto fail;
    if (have < newest) /* (the commit's time included) */
        log_info("event=store_migrated backend=postgres from=%lld to=%d "
                 "duration_ms=%lld",
                 have, newest,
                 (long long)(sysclock_ms(CLOCK_MONOTONIC) - started));
    *version = newest;
    return 0;
fail:
    if (PQtransactionStatus(c) != PQTRANS_IDLE &&
        PQtransactionStatus(c) != PQTRANS_UNKNOWN)
        PQclear(PQexec(c, "ROLLBACK"));
    return -1;
}
