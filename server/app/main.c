/*
 * main.c - chess-server: command line, config file, start-up, signals,
 * shutdown, the backup subcommand, and the wiring: the one module that
 * knows the hub (hub.h, http.h) and the network (net.h) and connects
 * them through struct hub_env and struct net_handlers.
 *
 *   chess-server [--config PATH] [--SETTING VALUE ...]
 *   chess-server --check-config PATH [flags]
 *   chess-server backup DEST (--db PATH | --config PATH)
 *
 * Settings come from the defaults, then the config file, then the flags
 * (config.h; the flags and their --help lines come from config.c's table
 * of settings). Start-up order: open the log, lock the database file
 * (SQLite; with `postgres` set the database is PostgreSQL's and several
 * nodes may share it: nothing to lock), listen, open the store
 * (migrations), restore the live games of the previous run, serve. SIGTERM and SIGINT begin a planned shutdown:
 * clients get {"t":"shutdown"} and a 1001 close, the store commits
 * everything queued and records its last heartbeat (so the downtime is
 * charged to no clock), the process exits 0. SIGHUP reopens the log file
 * and reloads the TLS certificate.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/config.h"
#include "net/listener.h"
#include "app/dbfile.h"
#include "app/status.h"
#include "lib/log.h"
#include "hub/http.h"
#include "hub/hub.h"
#include "lib/msgbuf.h"
#include "net/net.h"
#include "cluster/cluster.h"
#include "cluster/redis.h"
#include "store/store.h"
#include "net/tls.h"
#include "net/trust.h"
#include "lib/tunables.h"

#ifndef CHESS_SERVER_VERSION
#define CHESS_SERVER_VERSION "unknown"
#endif

/* A planned shutdown that has not ended after this long (a store that
 * cannot commit, a wedged loop) is ended by SIGALRM's default action. */
#define SHUTDOWN_HARD_LIMIT_S 20

/* A flag given on the command line, applied after the config file. */
struct override {
    const char *flag; /* as spelled, for messages */
    const char *key;
    const char *value;
};

struct args {
    const char *config; /* --config */
    bool check;         /* --check-config */
    struct override over[16];
    size_t n_over;
};

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: chess-server [options]\n"
        "       chess-server --check-config PATH [options]\n"
        "       chess-server backup DEST (--db PATH | --config PATH)\n"
        "  --config PATH      JSON settings file (docs/operator.md); the "
        "options\n"
        "                     below override it\n"
        "  --check-config PATH  validate PATH (and the options) and exit: 0 "
        "when\n"
        "                     good, 2 with a message when not\n"
        "  --help             this text\n");
    config_help(f); /* a line per flag, then the settings only in files */
    fprintf(f,
            "SIGHUP reopens the log file and reloads the TLS certificate.\n"
            "backup copies the live database with SQLite's online backup, "
            "safe while\n"
            "the server runs; DEST must not exist (a PostgreSQL database: "
            "pg_dump).\n");
}

/* getopt_long's value for the i-th setting of config.c's table. */
#define OPT_SETTING 256

static void parse_args(int argc, char **argv, struct args *a)
{
    /* --config, --check-config, --help and a flag per setting that has
     * one (config.h), with a terminator */
    struct option longopts[64];
    const struct config_setting *s;
    size_t n = 0;
    int c;

    longopts[n++] = (struct option){"config", required_argument, NULL, 'c'};
    longopts[n++] = (struct option){"check-config", required_argument, NULL,
                                    'C'};
    longopts[n++] = (struct option){"help", no_argument, NULL, 'h'};
    for (size_t i = 0; (s = config_setting_at(i)); i++)
        if (s->flag) {
            /* room for every flag and the terminator */
            assert(n < sizeof longopts / sizeof longopts[0] - 1);
            if (n < sizeof longopts / sizeof longopts[0] - 1)
                longopts[n++] = (struct option){s->flag + 2,
                                                required_argument, NULL,
                                                OPT_SETTING + (int)i};
        }
    longopts[n] = (struct option){NULL, 0, NULL, 0};

    memset(a, 0, sizeof *a);
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
        case 'C':
            if (a->config && strcmp(a->config, optarg)) {
                fprintf(stderr, "E: --config and --check-config name "
                                "different files\n");
                exit(2);
            }
            a->config = optarg;
            if (c == 'C')
                a->check = true;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            if (c >= OPT_SETTING &&
                (s = config_setting_at((size_t)(c - OPT_SETTING)))) {
                if (a->n_over == sizeof a->over / sizeof a->over[0]) {
                    fprintf(stderr, "E: too many options\n");
                    exit(2);
                }
                a->over[a->n_over++] = (struct override){s->flag, s->key,
                                                         optarg};
                break;
            }
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

/* Defaults, the file, the flags, then the checks across keys. Exits 2
 * with a message on any error. */
static void load_config(const struct args *a, struct config *cfg)
{
    char err[600];

    if (config_init(cfg) < 0) {
        fprintf(stderr, "E: out of memory\n");
        exit(1);
    }
    if (a->config && config_load_file(cfg, a->config, err, sizeof err) < 0)
        goto fail;
    for (size_t i = 0; i < a->n_over; i++) {
        char why[512];
        if (config_set_text(cfg, a->over[i].key, a->over[i].value, why,
                            sizeof why) < 0) {
            snprintf(err, sizeof err, "%s %s", a->over[i].flag, why);
            goto fail;
        }
    }
    if (config_validate(cfg, err, sizeof err) < 0 ||
        tls_check(cfg->tls_cert, cfg->tls_key, cfg->tls_ciphers, err,
                  sizeof err) < 0)
        goto fail;
    return;
fail:
    fprintf(stderr, "E: %s\n", err);
    config_clear(cfg);
    exit(2);
}

/* --check-config's probes of what the settings name beyond files: the
 * PostgreSQL database (SELECT 1) and Redis (PING), when set. 0, or -1
 * with a sentence in err. */
#define CHECK_REDIS_MS 2000
static int check_servers(const struct config *cfg, char *err, size_t errlen)
{
    char why[512];

    if (cfg->postgres[0] && store_check_pg(cfg->postgres, err, errlen) != 0)
        return -1;
    if (cfg->redis[0] &&
        redis_ping(cfg->redis, CHECK_REDIS_MS, why, sizeof why) != 0) {
        snprintf(err, errlen, "key 'redis': %s", why);
        return -1;
    }
    return 0;
}

/* mkdir -p of the folder holding path; the folders it creates are the
 * owner's only (0700: the database in them holds token hashes), whatever
 * the umask. */
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
            if (mkdir(dir, 0700) < 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return -1;
    return 0;
}

static bool log_to_file;

/* The watch on the database file, looked at every DB_WATCH_MS on the
 * loop: a deleted or replaced file is logged once and fails /healthz. */
#define DB_WATCH_MS 1000
static struct {
    struct dbfile_watch w;
    struct hub *hub;
    struct net_timer *timer;
} db_watch;

static void db_watch_tick(void *arg)
{
    struct metrics *m = hub_metrics(db_watch.hub);
    const char *why;
    char q[600];

    (void)arg;
    if (!m->db_file_lost && (why = dbfile_watch_check(&db_watch.w))) {
        m->db_file_lost = 1;
        log_error("event=store_file_lost db=%s why=%s msg=\"the database "
                  "file is no longer at its path: writes from now on are "
                  "lost when the server stops; stop it and restore the "
                  "database from a backup\"",
                  log_quote(q, sizeof q, db_watch.w.path), why);
    }
    if (!m->db_file_lost)
        net_timer_arm(db_watch.timer, net_now_ms() + DB_WATCH_MS);
}

/* A start-up failure: logged, and on standard error too when the log
 * goes to a file (the operator at the terminal must see it). */
static void start_failed(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static void start_failed(const char *fmt, ...)
{
    char msg[700], q[800];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log_error("event=start_failed error=%s", log_quote(q, sizeof q, msg));
    if (log_to_file)
        fprintf(stderr, "E: %s\n", msg);
}

/* An exclusive flock(2) on path (created 0600 when missing; narrowed to
 * the owner when others may read it and `narrow`), or -1 with
 * start_failed. */
static int lock_file(const char *db, const char *path, bool narrow)
{
    struct stat st;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

    if (fd < 0) {
        start_failed("cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    if (narrow && fstat(fd, &st) == 0 && (st.st_mode & 077))
        (void)fchmod(fd, st.st_mode & 0700);
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        start_failed("database %s is in use by another chess-server "
                     "(%s is locked)",
                     db, path);
        close(fd);
        return -1;
    }
    return fd;
}

/* One server per database, for the process lifetime: an exclusive flock
 * on the database file itself (deleting a file beside it cannot undo
 * that; flock locks are apart from SQLite's POSIX locks on the same
 * file, and this descriptor is closed only after SQLite has closed its
 * own, since closing any descriptor of a file drops the process's POSIX
 * locks on it), and on <db>.lock, which is what older versions lock.
 * Returns 0 with both descriptors, or -1. */
static int lock_db(const char *db, int fds[2])
{
    char path[PATH_MAX];

    snprintf(path, sizeof path, "%s.lock", db);
    fds[0] = lock_file(db, path, true);
    if (fds[0] < 0)
        return -1;
    /* (the database's mode is the store's to narrow, with a warning) */
    fds[1] = lock_file(db, db, false);
    if (fds[1] < 0) {
        close(fds[0]);
        return -1;
    }
    return 0;
}

/* Fits the connection cap under the descriptor limit: raises the soft
 * limit towards max_connections + LIMIT_FD_RESERVE (not to the hard
 * limit: lws sizes its tables by the soft limit, so it is raised no
 * further than needed) and lowers max_connections when the hard limit is
 * too low, with a warning. Called before net_start, which reads the
 * limit. */
static void fit_fd_limit(struct config *cfg)
{
    struct rlimit rl;
    rlim_t want = (rlim_t)cfg->max_connections + LIMIT_FD_RESERVE;
    int fit;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
        struct rlimit up = rl;
        up.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want
                          ? rl.rlim_max
                          : want;
        if (setrlimit(RLIMIT_NOFILE, &up) == 0)
            rl = up;
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
        return;
    fit = rl.rlim_cur > LIMIT_FD_RESERVE + 1
              ? (int)(rl.rlim_cur - LIMIT_FD_RESERVE)
              : 1;
    log_warn("event=max_connections_lowered configured=%d now=%d "
             "fd_limit=%llu reserve=%d hint=\"raise the descriptor limit "
             "(LimitNOFILE, ulimit -n) to max_connections + %d\"",
             cfg->max_connections, fit, (unsigned long long)rl.rlim_cur,
             LIMIT_FD_RESERVE, LIMIT_FD_RESERVE);
    cfg->max_connections = fit;
}

/* The settings the network layer uses, from c (which must outlive
 * net_stop: nc points at its strings). */
static void net_config_of(const struct config *c, struct net_config *nc)
{
    _Static_assert(CONFIG_MAX_PROXIES <= NET_MAX_PROXIES,
                   "a config's proxies fit a net_config");
    *nc = (struct net_config){
        .listen_address = c->listen_address,
        .port = c->port,
        .http_redirect_port = c->http_redirect_port,
        .tls_cert = c->tls_cert,
        .tls_key = c->tls_key,
        .tls_min_version = c->tls_min_version,
        .tls_ciphers = c->tls_ciphers,
        .hsts_max_age_s = c->hsts_max_age_s,
        .web_root = c->web_root,
        .http_rate_per_s = c->http_rate_per_s,
        .http_burst = c->http_burst,
        .request_timeout_s = c->request_timeout_s,
        .max_connections = c->max_connections,
        .max_connections_per_ip = c->max_connections_per_ip,
        .ping_interval_s = c->ping_interval_s,
        .ping_timeout_s = c->ping_timeout_s,
        .allowed_origins = (const char *const *)c->allowed_origins,
        .n_allowed_origins = c->n_allowed_origins,
        .n_trusted_proxies = c->n_trusted_proxies,
    };
    /* config.c checked each with trust_addr_parse: none fails here */
    for (size_t i = 0; i < c->n_trusted_proxies; i++) {
        int ok = trust_addr_parse(c->trusted_proxies[i],
                                  &nc->trusted_proxies[i]);
        assert(ok == 0);
        (void)ok;
    }
}

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
    if (sig == SIGHUP) {
        net_request_log_reopen();
        return;
    }
    if (!stopping) {
        stopping = 1;
        alarm(SHUTDOWN_HARD_LIMIT_S);
    }
    net_request_stop();
}

static void on_commit(void *arg)
{
    (void)arg;
    net_wake();
}

/* chess-server backup DEST (--db PATH | --config PATH) */
static int cmd_backup(int argc, char **argv)
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
            usage(stdout);
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

/* ---- wiring: the hub over the network, the network over the hub -------
 *
 * main.c is the one module that knows both: the hub talks out through
 * struct hub_env (filled in here over net.h) and net.c hands its events
 * to struct net_handlers (filled in here over hub.h and http.h). */

static void env_send(void *ctx, struct conn *c, struct msgbuf *b,
                     uint64_t seq)
{
    (void)ctx;
    net_send(c, b, seq);
}

static void env_send_now(void *ctx, struct conn *c, struct msgbuf *b)
{
    (void)ctx;
    net_send_now(c, b);
}

static void env_close(void *ctx, struct conn *c, int code, const char *reason)
{
    (void)ctx;
    net_close(c, code, reason);
}

static void env_drop(void *ctx, struct conn *c, int code, const char *reason)
{
    (void)ctx;
    net_drop(c, code, reason);
}

/* A hub_alarm is a net_timer. */
static struct hub_alarm *env_alarm_new(void *ctx, void (*cb)(void *arg),
                                       void *arg)
{
    (void)ctx;
    return (struct hub_alarm *)net_timer_new(cb, arg);
}

static void env_alarm_arm(void *ctx, struct hub_alarm *a, int64_t at)
{
    (void)ctx;
    net_timer_arm((struct net_timer *)a, at);
}

static void env_alarm_free(void *ctx, struct hub_alarm *a)
{
    (void)ctx;
    net_timer_free((struct net_timer *)a);
}

static int64_t env_rtt_ms(void *ctx, struct conn *c)
{
    (void)ctx;
    return net_conn_rtt_ms(c);
}

static int64_t env_now_ms(void *ctx)
{
    (void)ctx;
    return net_now_ms();
}

static int64_t env_now_us(void *ctx)
{
    (void)ctx;
    return net_now_us();
}

static int64_t env_wall_ms(void *ctx)
{
    (void)ctx;
    return net_wall_ms();
}

static void *on_open(void *ctx, struct conn *c, const char *ip)
{
    return hub_open(ctx, c, ip);
}

static void on_text(void *ctx, void *owner, const char *text, size_t len,
                    int64_t now)
{
    hub_on_text(ctx, owner, text, len, now);
}

static uint64_t on_committed(void *ctx)
{
    return store_committed(hub_store(ctx));
}

static void on_binary(void *ctx, void *owner, int64_t now)
{
    hub_on_binary(ctx, owner, now);
}

static void on_control(void *ctx, void *owner, int64_t now)
{
    hub_on_control(ctx, owner, now);
}

static void on_closed(void *ctx, void *owner, int64_t now)
{
    hub_close(ctx, owner, now);
}

static void on_wake(void *ctx)
{
    hub_wake(ctx);
}

static void on_shutdown(void *ctx)
{
    hub_shutdown(ctx);
}

static bool on_stoppable(void *ctx)
{
    return hub_stoppable(ctx);
}

static bool on_http_wants(const char *path)
{
    return http_wants(path);
}

static int on_http_route(const char *path)
{
    return (int)http_route(path);
}

static void to_net_reply(const struct http_reply *hr, struct net_reply *r)
{
    *r = (struct net_reply){hr->status, hr->type, hr->body, hr->len};
}

static void on_http(void *ctx, const char *path, const char *const *args,
                    size_t nargs, int64_t now, struct net_reply *r)
{
    struct http_reply hr;

    if (!status_handle(ctx, path, now, &hr))
        http_handle(ctx, path, args, nargs, now, &hr);
    to_net_reply(&hr, r);
}

static void on_http_too_many(struct net_reply *r)
{
    struct http_reply hr;

    http_too_many(&hr);
    to_net_reply(&hr, r);
}

/* The hub over net.h, and net.c attached to it. NULL when out of
 * memory. */
static struct hub *start_hub(struct store *st, const struct hub_config *hc)
{
    const struct hub_env env = {
        .ctx = NULL,
        .store = st,
        .send = env_send,
        .send_now = env_send_now,
        .close = env_close,
        .drop = env_drop,
        .alarm_new = env_alarm_new,
        .alarm_arm = env_alarm_arm,
        .alarm_free = env_alarm_free,
        .rtt_ms = env_rtt_ms,
        .now_ms = env_now_ms,
        .now_us = env_now_us,
        .wall_ms = env_wall_ms,
        .wake = net_wake,
    };
    struct hub *h = hub_new(&env, hc);
    const struct net_handlers hd = {
        .ctx = h,
        .open = on_open,
        .text = on_text,
        .committed = on_committed,
        .binary = on_binary,
        .control = on_control,
        .closed = on_closed,
        .wake = on_wake,
        .shutdown = on_shutdown,
        .stoppable = on_stoppable,
        .http_wants = on_http_wants,
        .http_route = on_http_route,
        .http = on_http,
        .http_too_many = on_http_too_many,
    };

    if (h)
        net_attach(&hd, &hub_metrics(h)->net);
    return h;
}

int main(int argc, char **argv)
{
    struct args a;
    struct config cfg;
    struct store *st = NULL;
    struct hub *h = NULL;
    struct redis *rd = NULL;
    struct cluster *cl = NULL;
    struct bus bus;
    struct sigaction sa;
    char err[600], q1[600], q2[600], where[300];
    struct listener_bound bound, rbound;
    int lock_fds[2] = {-1, -1}, restored, e, rc = 1;
    bool pg;

    if (argc >= 2 && !strcmp(argv[1], "backup"))
        return cmd_backup(argc - 1, argv + 1);
    parse_args(argc, argv, &a);
    load_config(&a, &cfg);
    if (a.check) {
        if (check_servers(&cfg, err, sizeof err) != 0) {
            fprintf(stderr, "E: %s\n", err);
            config_clear(&cfg);
            return 2;
        }
        printf("%s: OK\n", a.config);
        config_clear(&cfg);
        return 0;
    }

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stderr, NULL, _IOLBF, 0);
    if (log_open(cfg.log_file, (enum log_level)cfg.log_level, err,
                 sizeof err) < 0) {
        fprintf(stderr, "E: %s\n", err);
        config_clear(&cfg);
        return 2;
    }
    log_to_file = cfg.log_file[0] != '\0';
    pg = cfg.postgres[0] != '\0';

    /* SQLite: one server per database file (PostgreSQL: shared) */
    if (!pg && make_parent(cfg.database) < 0) {
        start_failed("cannot create the folder of %s: %s", cfg.database,
                     strerror(errno));
        goto out_log;
    }
    /* before the lock, which creates the database file when missing */
    if (!pg && dbfile_check(cfg.database, err, sizeof err) < 0) {
        start_failed("%s", err);
        goto out_log;
    }
    if (!pg && lock_db(cfg.database, lock_fds) < 0)
        goto out_log;
    fit_fd_limit(&cfg);
    struct net_config ncfg;
    net_config_of(&cfg, &ncfg);
    e = net_start(&ncfg, err, sizeof err);
    if (e < 0) {
        start_failed("%s", err);
        if (e == NET_START_REFUSED)
            rc = 2; /* no use restarting: RestartPreventExitStatus=2 */
        goto out_lock;
    }
    if (pg ? store_open_pg(&st, cfg.postgres, cfg.node_id, on_commit, NULL,
                           err, sizeof err) < 0
           : store_open(&st, cfg.database, on_commit, NULL, err, sizeof err) <
                 0) {
        start_failed("database %s: %s", pg ? "(postgres)" : cfg.database,
                     err);
        goto out_net;
    }
    store_location(st, where, sizeof where);
    if (!pg &&
        dbfile_watch_start(&db_watch.w, cfg.database, err, sizeof err) < 0) {
        start_failed("%s", err);
        goto out_store;
    }
    struct hub_config hc = {
        .grace_ms = (int64_t)cfg.grace_s * 1000,
        .first_move_ms = (int64_t)cfg.first_move_s * 1000,
        .move_rate_per_s = cfg.move_rate_per_s,
        .move_burst = cfg.move_burst,
        .msg_rate_per_s = cfg.msg_rate_per_s,
        .msg_burst = cfg.msg_burst,
        .max_games_per_player = cfg.max_games_per_player,
        .max_invites_per_ip = cfg.max_invites_per_ip,
        .guests_per_ip_per_min = cfg.guests_per_ip_per_min,
        .logins_per_ip_per_min = cfg.logins_per_ip_per_min,
        .logins_per_user_per_min = cfg.logins_per_user_per_min,
        .password_threads = cfg.password_threads,
        .password_queue = cfg.password_queue,
    };
    if (cfg.redis[0]) { /* one node of a cluster (ARCHITECTURE.md) */
        struct redis_config rcfg = {.address = cfg.redis};
        rd = redis_new(net_ev_loop(), &rcfg, err, sizeof err);
        if (!rd) {
            start_failed("key 'redis': %s", err);
            goto out_store;
        }
    }
    h = start_hub(st, &hc);
    /* a node of a cluster: the cluster is the hub's router and seek book */
    if (!h || (rd && (redis_bus_init(rd, &bus) < 0 ||
                      !(cl = cluster_new(h, &bus, cfg.node_id))))) {
        start_failed("out of memory");
        hub_free(h);
        redis_free(rd);
        goto out_store;
    }
    db_watch.hub = h;
    db_watch.timer = pg ? NULL : net_timer_new(db_watch_tick, NULL);
    if (db_watch.timer)
        net_timer_arm(db_watch.timer, net_now_ms() + DB_WATCH_MS);
    /* (in a cluster the live games are every node's: adopted once the
     * node joined, where nobody hosts them: cluster/) */
    restored = cl ? 0 : hub_restore(h, net_now_ms());
    if (restored < 0)
        log_error("event=restore_failed db=%s",
                  log_quote(q1, sizeof q1, where));
    else
        log_info("event=restored games=%d", restored);

    struct stat wst;
    if (stat(cfg.web_root, &wst) < 0 || !S_ISDIR(wst.st_mode))
        log_warn("event=web_root_missing web=%s",
                 log_quote(q1, sizeof q1, cfg.web_root));
    /* the address and ports as the kernel bound them (getsockname) */
    net_bound(&bound, &rbound);
    log_info("event=listening version=%s address=%s family=%s port=%d "
             "tls=%s redirect_port=%d origins=%zu store=%s db=%s schema=%d "
             "node=%s web=%s log_level=%s",
             CHESS_SERVER_VERSION, bound.address, bound.family, bound.port,
             cfg.tls_cert[0] ? "on" : "off", rbound.port,
             cfg.n_allowed_origins, store_backend_name(st),
             log_quote(q1, sizeof q1, where), store_schema_version(st),
             cfg.node_id, log_quote(q2, sizeof q2, cfg.web_root),
             log_level_name((enum log_level)cfg.log_level));
    net_wake(); /* a signal that came before the loop ran is seen now */
    net_run();

    net_timer_free(db_watch.timer);
    hub_shutdown(h);
    cluster_stop(cl); /* nothing more goes to Redis */
    redis_free(rd);   /* (on the loop, which net_stop destroys) */
    store_close(st);
    st = NULL;
    net_stop();
    cluster_free(cl);
    hub_free(h);
    tls_free();
    if (lock_fds[0] >= 0) {
        close(lock_fds[1]);
        close(lock_fds[0]);
    }
    log_info("event=stopped");
    log_close();
    config_clear(&cfg);
    return 0;

out_store:
    store_close(st);
out_net:
    net_stop();
    tls_free();
out_lock:
    if (lock_fds[0] >= 0) {
        close(lock_fds[1]);
        close(lock_fds[0]);
    }
out_log:
    log_close();
    config_clear(&cfg);
    return rc;
}
