/*
 * backup.h - the backup subcommand: `chess-server backup DEST (--db PATH
 * | --config PATH)` copies the database to DEST (a new file, written
 * beside it and renamed when complete, the owner's only) with SQLite's
 * online backup. A database on PostgreSQL is refused: pg_dump it.
 */
#ifndef SERVER_APP_BACKUP_H
#define SERVER_APP_BACKUP_H

/* The subcommand's lines of --help. */
extern const char backup_help[];

/* Runs it on argv[0..argc) (argv[0] is "backup"): the exit status (0,
 * 1 when the copy failed, 2 for a usage error). */
int backup_main(int argc, char **argv);

#endif
