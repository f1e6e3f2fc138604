/*
 * dbfile.h - the database file's place on disk.
 *
 * A marker beside the database (DATABASE.created, written once the first
 * start has created the database) records that a database lives at that
 * path. A start that finds the marker but no database (deleted, a volume
 * not mounted, a wrong path) refuses, instead of creating an empty one and
 * losing every token and game without a word. A fresh machine has no
 * marker, so the first start needs no flag; to start over on purpose,
 * delete the marker with the database.
 *
 * The watch notices the file being deleted or replaced under the running
 * server (SQLite goes on writing into the unlinked file, which is gone at
 * exit): it compares the path's device and inode with those of the file
 * the server opened. Only the event-loop thread (and main) use these.
 */
#ifndef SERVER_DBFILE_H
#define SERVER_DBFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Before the store opens db: 0 when the start may go on, -1 with a
 * sentence in err when the marker says a database was created at db and
 * there is none (no file, or an empty one). */
int dbfile_check(const char *db, char *err, size_t errlen);

struct dbfile_watch {
    char path[4096];
    dev_t dev;
    ino_t ino;
    const char *lost; /* NULL, or why the file is no longer at path */
};

/* After the store opened db: writes the marker when absent and records
 * the identity of the file at db. Returns 0, or -1 with a sentence in
 * err. */
int dbfile_watch_start(struct dbfile_watch *w, const char *db, char *err,
                       size_t errlen);

/* Looks at the path again. Returns NULL while the opened file is still
 * there, else why not ("deleted" or "replaced"), also kept in w->lost:
 * the loss is for good (the server's writes no longer reach the path). */
const char *dbfile_watch_check(struct dbfile_watch *w);

#endif
