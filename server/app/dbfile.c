/*
 * dbfile.c - the database file's marker and watch (see dbfile.h).
 */
#include "app/dbfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int marker_path(const char *db, char *out, size_t len)
{
    return snprintf(out, len, "%s.created", db) < (int)len ? 0 : -1;
}

int dbfile_check(const char *db, char *err, size_t errlen)
{
    char marker[4200];
    struct stat st;

    if (marker_path(db, marker, sizeof marker) < 0) {
        snprintf(err, errlen, "database path too long");
        return -1;
    }
    if (stat(marker, &st) < 0)
        return 0; /* a first start (or one from before the marker) */
    if (stat(db, &st) == 0 && st.st_size > 0)
        return 0;
    snprintf(err, errlen,
             "the database %s is missing or empty, but %s says one was "
             "created there: restore it from a backup (docs/operator.md, "
             "Backup and "
             "restore), or delete %s to start over with an empty database",
             db, marker, marker);
    return -1;
}

int dbfile_watch_start(struct dbfile_watch *w, const char *db, char *err,
                       size_t errlen)
{
    char marker[4200], line[64];
    struct stat st;
    time_t now = time(NULL);
    struct tm tm;
    int fd;

    memset(w, 0, sizeof *w);
    if (snprintf(w->path, sizeof w->path, "%s", db) >= (int)sizeof w->path ||
        marker_path(db, marker, sizeof marker) < 0) {
        snprintf(err, errlen, "database path too long");
        return -1;
    }
    if (stat(db, &st) < 0) {
        snprintf(err, errlen, "%s: %s", db, strerror(errno));
        return -1;
    }
    w->dev = st.st_dev;
    w->ino = st.st_ino;
    fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (errno == EEXIST)
            return 0;
        snprintf(err, errlen, "cannot create %s: %s", marker,
                 strerror(errno));
        return -1;
    }
    if (!gmtime_r(&now, &tm) ||
        !strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%SZ\n", &tm))
        snprintf(line, sizeof line, "?\n");
    if (write(fd, line, strlen(line)) < 0 || fsync(fd) < 0) {
        snprintf(err, errlen, "cannot write %s: %s", marker, strerror(errno));
        close(fd);
        unlink(marker);
        return -1;
    }
    close(fd);
    return 0;
}

const char *dbfile_watch_check(struct dbfile_watch *w)
{
    struct stat st;

    if (w->lost)
        return w->lost;
    if (stat(w->path, &st) < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            w->lost = "deleted";
        return w->lost; /* another error (EACCES...): cannot tell */
    }
    if (st.st_dev != w->dev || st.st_ino != w->ino)
        w->lost = "replaced";
    return w->lost;
}
