/*
 * pgmigrate.h - the PostgreSQL schema's migrations (migrations/pg/, embedded
 * as migrations_pg_list) applied at a node's start (docs/cluster.md,
 * "Storage"), and the error contract of the schema's fencing functions.
 *
 * Several nodes share one database and may start together: the
 * migrations run in one transaction under a transaction-level advisory
 * lock (PGMIGRATE_LOCK_KEY), so one node migrates and the others, which
 * wait for its commit, then find nothing to do. The table schema_version
 * (made here, before any migration) holds one row per migration applied:
 * (version, name, applied_ms); the database's version is the greatest.
 *
 * The store's PostgreSQL backend (store_pg.c) runs it at open.
 */
#ifndef SERVER_PGMIGRATE_H
#define SERVER_PGMIGRATE_H

#include <stddef.h>

#include <libpq-fe.h>

/* The key of the advisory lock pg_advisory_xact_lock(bigint) that a
 * migration run holds ("chess" in ASCII). */
#define PGMIGRATE_LOCK_KEY 0x6368657373LL

/* The SQLSTATE that journal_append (migrations/pg/0001_init.sql) raises
 * when the writer's epoch is not the game's current one: the writer's
 * lease lapsed, another node hosts the game, and the transaction (the
 * whole batch) failed. Its message names the stale and the current
 * epoch. */
#define PGMIGRATE_SQLSTATE_FENCED "CH001"

/* libpq's words for a failed result r (or, r NULL or without words, for
 * connection c) on one line, in buf (len bytes, always terminated):
 * libpq's own messages run over several lines. Returns buf. */
const char *pgmigrate_message(PGconn *c, const PGresult *r, char *buf,
                              size_t len);

/* Applies, on connection c (idle, outside a transaction), every embedded
 * migration newer than the database's schema, in one transaction under
 * the advisory lock, and records each in schema_version. On success sets
 * *version to the schema's version (the newest embedded migration) and
 * returns 0; a database already there is left untouched. On failure
 * (a database newer than this binary, a migration's error, a lost
 * connection) rolls everything back, writes one sentence into err
 * (errlen bytes, always terminated) and returns -1. */
int pgmigrate_apply(PGconn *c, int *version, char *err, size_t errlen);

/* The schema version of c's database in *have (the greatest recorded in
 * schema_version) and this binary's in *newest, without migrating (a
 * reader's check, store_open_reader). 0, or -1 with a sentence in err
 * (no schema_version: no chess-server ever ran on it). */
int pgmigrate_version(PGconn *c, long long *have, int *newest, char *err,
                      size_t errlen);

#endif
