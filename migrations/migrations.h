/*
 * migrations.h - the schema migrations (migrations/NNNN_name.sql for
 * SQLite, migrations/pg/NNNN_name.sql for PostgreSQL) embedded into the
 * binary at build time by embed.c. The arrays are generated, constant and
 * sorted: migrations_list[i].version == i + 1, and alike for
 * migrations_pg_list.
 */
#ifndef MIGRATIONS_H
#define MIGRATIONS_H

#include <stddef.h>

struct migration {
    int version;     /* NNNN from the file name, 1-based, no gaps */
    const char *name;
    const char *sql; /* the whole file, NUL-terminated */
};

/* Every embedded migration in version order (static storage). */
extern const struct migration migrations_list[];
/* How many entries migrations_list has (at least one). */
extern const size_t migrations_count;

/* The PostgreSQL schema's migrations (migrations/pg/NNNN_name.sql), alike;
 * defined only in what links migrations_pg_dep (server/store/pg/pgmigrate.c). */
extern const struct migration migrations_pg_list[];
extern const size_t migrations_pg_count;

#endif
