/*
 * main.c - chess-server: command line, start-up, signals, shutdown.
 *
 *   chess-server --port N --db PATH --web DIR --grace-s N --first-move-s N
 *
 * Start-up order: take the database's lock file, listen, open the store
 * (migrations), restore the live games of the previous run, serve. SIGTERM
 * and SIGINT begin a planned shutdown: clients get {"t":"shutdown"} and a
 * 1001 close, the store commits everything queued, the process exits 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net.h"
#include "session.h"
#include "store.h"

struct options {
    int port;
    const char *db;
    const char *web;
    int grace_s;
    int first_move_s;
};

static void usage(FILE *f)
{
    fprintf(f,
        "usage: chess-server [options]\n"
        "  --port N          TCP port for HTTP and the WebSocket at /ws "
        "(default 8080)\n"
        "  --db PATH         SQLite database (default ./data/chess.db; its "
        "folder is created)\n"
        "  --web DIR         static files of the browser client (default "
        "./web)\n"
        "  --grace-s N       seconds a disconnected player keeps a game "
        "(default 60)\n"
        "  --first-move-s N  seconds for each side's first move (default "
        "30)\n"
        "  --help            this text\n");
}

/* Parses a decimal integer in [lo, hi]; exits with a message otherwise. */
static int int_arg(const char *name, const char *text, int lo, int hi)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(text, &end, 10);
    if (errno || !*text || *end || v < lo || v > hi) {
        fprintf(stderr, "E: %s must be an integer from %d to %d, not '%s'\n",
                name, lo, hi, text);
        exit(2);
    }
    return (int)v;
}

static void parse_args(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"port", required_argument, NULL, 'p'},
        {"db", required_argument, NULL, 'd'},
        {"web", required_argument, NULL, 'w'},
        {"grace-s", required_argument, NULL, 'g'},
        {"first-move-s", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;

    *o = (struct options){8080, "./data/chess.db", "./web", 60, 30};
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            o->port = int_arg("--port", optarg, 1, 65535);
            break;
        case 'd':
            if (!*optarg) {
                fprintf(stderr, "E: --db needs a path\n");
                exit(2);
            }
            o->db = optarg;
            break;
        case 'w':
            o->web = optarg;
            break;
        case 'g':
            o->grace_s = int_arg("--grace-s", optarg, 1, 86400);
            break;
        case 'f':
            o->first_move_s = int_arg("--first-move-s", optarg, 1, 86400);
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            fprintf(stderr, "E: unknown or incomplete option '%s'\n",
                    argv[optind - 1]);
            usage(stderr);
            exit(2);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "E: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        exit(2);
    }
}

/* mkdir -p of the folder holding path. */
static int make_parent(const char *path)
{
    char dir[PATH_MAX];
    char *slash;

    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return -1;
    slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* One server per database: an exclusive lock on <db>.lock for the
 * process lifetime. Returns the descriptor or -1. */
static int lock_db(const char *db)
{
    char path[PATH_MAX];
    int fd;

    snprintf(path, sizeof path, "%s.lock", db);
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "E: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        fprintf(stderr, "E: %s is in use by another chess-server\n", db);
        close(fd);
        return -1;
    }
    return fd;
}

static void on_signal(int sig)
{
    (void)sig;
    net_request_stop();
}

static void on_commit(void *arg)
{
    (void)arg;
    net_wake();
}

int main(int argc, char **argv)
{
    struct options o;
    struct store *st = NULL;
    struct hub *h = NULL;
    char err[256];
    int lock_fd, restored;

    parse_args(argc, argv, &o);
    setvbuf(stderr, NULL, _IOLBF, 0);
    signal(SIGPIPE, SIG_IGN);
    if (make_parent(o.db) < 0) {
        fprintf(stderr, "E: cannot create the folder of %s: %s\n", o.db,
                strerror(errno));
        return 1;
    }
    lock_fd = lock_db(o.db);
    if (lock_fd < 0)
        return 1;
    struct net_config nc = {o.port, o.web};
    if (net_start(&nc, err, sizeof err) < 0) {
        fprintf(stderr, "E: %s\n", err);
        return 1;
    }
    if (store_open(&st, o.db, on_commit, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "E: database %s: %s\n", o.db, err);
        net_stop();
        return 1;
    }
    struct hub_config hc = {(int64_t)o.grace_s * 1000,
                            (int64_t)o.first_move_s * 1000};
    h = hub_new(st, &hc);
    if (!h) {
        fprintf(stderr, "E: out of memory\n");
        store_close(st);
        net_stop();
        return 1;
    }
    net_attach(h, st);
    restored = hub_restore(h, net_now_ms());
    if (restored < 0)
        fprintf(stderr, "E: live games could not be read from %s\n", o.db);
    else
        fprintf(stderr, "N: restored %d live game(s)\n", restored);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    fprintf(stderr, "N: listening on port %d (http://localhost:%d/, "
            "WebSocket /ws); database %s (schema %d); web %s\n", o.port,
            o.port, o.db, store_schema_version(st), o.web);
    net_run();

    hub_shutdown(h);
    store_close(st);
    net_stop();
    hub_free(h);
    close(lock_fd);
    fprintf(stderr, "N: stopped\n");
    return 0;
}
