/*
 * backup.c - `chess-server backup DEST (--db PATH | --config PATH)`: a
 * copy of the live SQLite database through SQLite's online backup, safe
 * while the server runs (see backup.h).
 */
#include "app/backup.h"

#include <errno.h>
#include <getopt.h>
#include <linux/limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/config.h"
#include "store/store.h"

const char backup_help[] =
    "backup copies the live database with SQLite's online backup, safe "
    "while\n"
    "the server runs; DEST must not exist (a PostgreSQL database: "
    "pg_dump).\n";

/* chess-server backup DEST (--db PATH | --config PATH) */
int backup_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},
        {"config", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *db = NULL, *config = NULL, *dest;
    struct config cfg = {0};
    char tmp[PATH_MAX], err[600];
    struct stat st;
    int c, rc = 1;

    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            db = optarg;
            break;
        case 'c':
            config = optarg;
            break;
        case 'h':
            printf("usage: chess-server backup DEST (--db PATH | --config "
                   "PATH)\n%s",
                   backup_help);
            return 0;
        default:
            fprintf(stderr, "E: backup: unknown or incomplete option '%s'\n",
                    argv[optind - 1]);
            return 2;
        }
    }
    if (optind != argc - 1 || (!db && !config) || (db && !*db)) {
        fprintf(stderr, "E: usage: chess-server backup DEST "
                        "(--db PATH | --config PATH)\n");
        return 2;
    }
    dest = argv[optind];
    if (config) {
        if (config_init(&cfg) < 0) {
            fprintf(stderr, "E: out of memory\n");
            return 1;
        }
        if (config_load_file(&cfg, config, err, sizeof err) < 0) {
            fprintf(stderr, "E: %s\n", err);
            config_clear(&cfg);
            return 2;
        }
        if (!db && cfg.postgres[0]) {
            fprintf(stderr,
                    "E: backup: %s keeps the database in PostgreSQL "
                    "(key 'postgres'): back it up with pg_dump "
                    "(docs/operator.md: PostgreSQL)\n",
                    config);
            rc = 2;
            goto out;
        }
        if (!db)
            db = cfg.database;
    }
    if (stat(db, &st) < 0) {
        fprintf(stderr, "E: backup: no database at %s: %s\n", db,
                strerror(errno));
        goto out;
    }
    if (lstat(dest, &st) == 0) {
        fprintf(stderr, "E: backup: %s exists; name a new file\n", dest);
        goto out;
    }
    /* Written beside DEST and renamed when complete, so DEST is never a
     * partial copy; readable by the owner only (it holds token hashes). */
    if (snprintf(tmp, sizeof tmp, "%s.partial", dest) >= (int)sizeof tmp) {
        fprintf(stderr, "E: backup: path too long\n");
        goto out;
    }
    unlink(tmp);
    umask(077);
    if (store_backup(db, tmp, err, sizeof err) < 0) {
        fprintf(stderr, "E: backup: %s\n", err);
        unlink(tmp);
        goto out;
    }
    if (rename(tmp, dest) < 0) {
        fprintf(stderr, "E: backup: cannot rename %s to %s: %s\n", tmp, dest,
                strerror(errno));
        unlink(tmp);
        goto out;
    }
    printf("backed up %s to %s\n", db, dest);
    rc = 0;
out:
    config_clear(&cfg);
    return rc;
}
