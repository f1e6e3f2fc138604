/*
 * main.c - chess-server: command line, config file, start-up, signals,
 * shutdown, the subcommands (backup.c, lagreport.c), and the wiring: the
 * one module that knows the hub (hub.h, http.h) and the network (net.h)
 * and connects them through struct hub_env and struct net_handlers.
 *
 *   chess-server [--config PATH] [--SETTING VALUE ...]
 *   chess-server --check-config PATH [flags]
 *   chess-server backup DEST (--db PATH | --config PATH)
 *   chess-server token create|list|revoke ... (--db PATH | --config PATH)
 *   chess-server lag PLAYER (--db PATH | --postgres CONNINFO | --config
 *                            PATH) [--games N]
 *
 * Settings come from the defaults, then the config file, then the flags
 * (config.h; the flags and their --help lines come from config_keys.c's table
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

#include "app/backup.h"
#include "app/build_commit.h"
#include "app/clusterconf.h"
#include "app/lagreport.h"
#include "app/modcli.h"
#include "app/tokencli.h"
#include "app/config.h"
#include "app/wiring.h"
#include "net/listener.h"
#include "app/dbfile.h"
#include "app/notify.h"
#include "app/preflight.h"
#include "app/ready.h"
#include "engine/pool.h"
#include "lib/log.h"
#include "hub/hub.h"
#include "net/net.h"
#include "sysclock.h"
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
    struct override over[32];
    size_t n_over;
};

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: chess-server [options]\n"
        "       chess-server --check-config PATH [options]\n"
        "       chess-server backup DEST (--db PATH | --config PATH)\n"
        "       chess-server lag PLAYER (--db PATH | --postgres CONNINFO | "
        "--config PATH)\n"
        "                        [--games N]\n"
        "       chess-server token create USERNAME SCOPES [DESCRIPTION]\n"
        "                        (--db PATH | --config PATH)\n"
        "       chess-server token list USERNAME | revoke ID (--db PATH | "
        "--config PATH)\n"
        "       chess-server mod grant|revoke USERNAME | list (--db PATH | "
        "--config PATH)\n"
        "  --config PATH      JSON settings file (docs/operator.md); the "
        "options\n"
        "                     below override it\n"
        "  --check-config PATH  validate PATH (and the options) and exit: 0 "
        "when\n"
        "                     good, 2 with a message when not (Redis "
        "refusing\n"
        "                     the node included), 75 when PostgreSQL or "
        "Redis\n"
        "                     does not answer (try again later)\n"
        "  --help             this text\n");
    config_help(f); /* a line per flag, then the settings only in files */
    fprintf(f,
            "SIGHUP reopens the log file and reloads the TLS "
            "certificate.\n%s%s%s%s",
            backup_help, lagreport_help, tokencli_help, modcli_help);
}

/* getopt_long's value for the i-th setting of config_keys.c's table. */
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
        .send_buffer_bytes = c->send_buffer_bytes,
        .max_connections = c->max_connections,
        .max_connections_per_ip = c->max_connections_per_ip,
        .ipv6_limit_prefix = c->ipv6_limit_prefix,
        .ping_interval_s = c->ping_interval_s,
        .ping_timeout_s = c->ping_timeout_s,
        .drain_ms = c->drain_s * 1000,
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
static unsigned drain_s; /* the drain before a shutdown (config) */

/* SIGTERM, SIGINT: the stop (its drain first; a second signal cuts the
 * drain short); SIGHUP: the log and the certificate again. */
static void on_signal(int sig)
{
    if (sig == SIGHUP) {
        net_request_log_reopen();
        return;
    }
    if (!stopping) {
        stopping = 1;
        notify_send("STOPPING=1");
        alarm(drain_s + SHUTDOWN_HARD_LIMIT_S);
    }
    net_request_stop();
}

static void on_commit(void *arg)
{
    (void)arg;
    net_wake();
}

/* What a running server holds, in the order it is made. */
struct node {
    struct config cfg;
    bool pg;         /* the database is PostgreSQL's (else SQLite's) */
    int lock_fds[2]; /* SQLite's locks: -1 when none */
    struct store *st;
    struct redis *rd[CONFIG_REDIS_MAX]; /* a cluster's, one a shard */
    int nrd;                            /* 0: a node alone */
    struct redis_bus *rbus;             /* the bus over rd[0..nrd) */
    struct bus bus;
    struct hub *h;
    struct cluster *cl;
    struct engine_pool *engines; /* NULL: no computer games */
    char where[300];             /* the database, for the log */
};

/* Redis before anything is served: settings it refuses (a wrong
 * password, an untrusted certificate, a user its ACL does not know) stop
 * the start with a clear message; a Redis that does not answer yet is
 * logged, and the node keeps trying once it runs. 0, or -1 (logged). */
static int join_redis(const struct config *cfg)
{
    char err[700], q[700];
    bool refused;

    if (preflight_redis(cfg, &refused, err, sizeof err) == 0)
        return 0;
    if (refused) {
        start_failed("%s", err);
        return -1;
    }
    log_warn("event=cluster_redis_unreachable error=%s hint=\"the node "
             "starts and keeps trying\"",
             log_quote(q, sizeof q, err));
    return 0;
}

/* A connection to each Redis of `redis` (its shards, in its order). 0,
 * or -1 (logged). */
static int open_redis(struct node *n)
{
    char addrs[CONFIG_REDIS_MAX][CONFIG_REDIS_ADDR_MAX], err[600];
    struct clusterconf cc;
    int k = config_redis_split(n->cfg.redis, addrs, CONFIG_REDIS_MAX);

    _Static_assert(CONFIG_REDIS_MAX == BUS_SHARDS_MAX, "as many shards");
    if (k < 1 || clusterconf_load(&cc, &n->cfg, err, sizeof err) < 0) {
        start_failed("%s", k < 1 ? "key 'redis': no address" : err);
        return -1;
    }
    for (n->nrd = 0; n->nrd < k; n->nrd++) {
        cc.redis.address = addrs[n->nrd];
        n->rd[n->nrd] = redis_new(net_ev_loop(), &cc.redis, err, sizeof err);
        if (!n->rd[n->nrd]) {
            clusterconf_clear(&cc);
            start_failed("key 'redis': %s: %s", addrs[n->nrd], err);
            return -1;
        }
    }
    clusterconf_clear(&cc);
    return 0;
}

/* The database's folder and locks (SQLite: one server per file; with
 * PostgreSQL several nodes share the database: nothing to lock). 0, or
 * -1 (logged). */
static int claim_db(struct node *n)
{
    char err[600];

    if (n->pg)
        return 0;
    if (make_parent(n->cfg.database) < 0) {
        start_failed("cannot create the folder of %s: %s", n->cfg.database,
                     strerror(errno));
        return -1;
    }
    /* before the lock, which creates the database file when missing */
    if (dbfile_check(n->cfg.database, err, sizeof err) < 0) {
        start_failed("%s", err);
        return -1;
    }
    return lock_db(n->cfg.database, n->lock_fds);
}

/* The store (migrations), and the watch on SQLite's file. 0; -1 (logged);
 * PREFLIGHT_UNREACHABLE (logged) when PostgreSQL does not answer or
 * refuses, as --check-config would say: it may later. */
static int open_store(struct node *n)
{
    const struct config *cfg = &n->cfg;
    struct store_pg_options po;
    char err[600];

    preflight_pg_options(cfg, &po);

    if (n->pg ? store_open_pg(&n->st, cfg->postgres, cfg->node_id, &po,
                              on_commit, NULL, err, sizeof err) < 0
              : store_open(&n->st, cfg->database, on_commit, NULL, err,
                           sizeof err) < 0) {
        start_failed("database %s: %s", n->pg ? "(postgres)" : cfg->database,
                     err);
        /* (asked again: a failure of the migrations is no server away) */
        if (n->pg &&
            store_check_pg(cfg->postgres, &po, err, sizeof err) == -1)
            return PREFLIGHT_UNREACHABLE;
        return -1;
    }
    store_location(n->st, n->where, sizeof n->where);
    store_read_configure(n->st, cfg->store_read_timeout_ms, STORE_READ_QUEUE);
    if (!n->pg &&
        dbfile_watch_start(&db_watch.w, cfg->database, err, sizeof err) < 0) {
        start_failed("%s", err);
        return -1;
    }
    return 0;
}

/* Test time: a build with its tests started with CHESS_TEST_CLOCK_MS=N
 * reads every clock N ms ahead and takes test_clock (testtime.c). Set
 * before anything reads a clock; true when it is on. */
static bool test_clock_on;

static void test_clock_start(void)
{
#ifdef CHESS_TEST_CLOCK
    const char *v = getenv("CHESS_TEST_CLOCK_MS");

    if (!v)
        return;
    sysclock_test_advance(strtoll(v, NULL, 10));
    test_clock_on = true;
#endif
}

/* Tests only: the number in environment variable name when test time
 * is on, else 0. CHESS_TEST_SWISS_PAIR_MS=N: each Swiss pairing waits N
 * ms on its worker, so that a test meets it running.
 * CHESS_TEST_ANALYSIS_COUNT_MS=N: analyse's count of the requester's
 * analyses waits N ms on the reader before its query.
 * CHESS_TEST_REPORT_COUNT_MS=N: report's read of the reporter's reports
 * of the day waits N ms on the reader before its query.
 * CHESS_TEST_EVENT_SEED=N: every new tournament's seed is N (the same
 * colours in two runs). CHESS_TEST_TOURNEY_TICK_MS=N: the tournament
 * directors tick every N ms, so that a test's test_clock steps alone
 * tick them (tests/integration/test_tourney_kill.py).
 * CHESS_TEST_SWISS_TRF_HOLD_MS=N: a Swiss director renders the TRF
 * another node of a cluster asked for N ms after the ask, not at its
 * next tick (hub/swiss_trf.c; tests/integration/test_swiss.py). */
static long long test_env(const char *name)
{
#ifdef CHESS_TEST_CLOCK
    const char *v = getenv(name);

    if (test_clock_on && v)
        return strtoll(v, NULL, 10);
#else
    (void)name;
#endif
    return 0;
}

static struct hub_config hub_config_of(const struct config *cfg)
{
    return (struct hub_config){
        .grace_ms = (int64_t)cfg->grace_s * 1000,
        .first_move_ms = (int64_t)cfg->first_move_s * 1000,
        .move_rate_per_s = cfg->move_rate_per_s,
        .move_burst = cfg->move_burst,
        .msg_rate_per_s = cfg->msg_rate_per_s,
        .msg_burst = cfg->msg_burst,
        .max_games_per_player = cfg->max_games_per_player,
        .max_invites_per_ip = cfg->max_invites_per_ip,
        .max_games_per_ip = cfg->max_games_per_ip,
        .max_live_games = cfg->max_live_games,
        .rated_games_per_pair_per_day = cfg->rated_games_per_pair_per_day,
        .max_seeks_per_ip = cfg->max_seeks_per_ip,
        .seek_idle_ms = (int64_t)cfg->seek_idle_s * 1000,
        .lag_rtt_margin_ms = cfg->lag_rtt_margin_ms,
        .guests_per_ip_per_min = cfg->guests_per_ip_per_min,
        .logins_per_ip_per_min = cfg->logins_per_ip_per_min,
        .logins_per_user_per_min = cfg->logins_per_user_per_min,
        .registers_per_ip_per_min = cfg->registers_per_ip_per_min,
        .unknown_logins_per_s = cfg->unknown_logins_per_s,
        .ipv6_limit_prefix = cfg->ipv6_limit_prefix,
        .password_threads = cfg->password_threads,
        .password_queue = cfg->password_queue,
        .max_computer_games_per_player = cfg->max_computer_games_per_player,
        .max_computer_games_per_ip = cfg->max_computer_games_per_ip,
        .max_challenges_out = cfg->max_challenges_out,
        .max_challenges_in = cfg->max_challenges_in,
        .challenge_lapse_ms = (int64_t)cfg->challenge_lapse_s * 1000,
        .bot_rated_vs_humans = cfg->bot_rated_vs_humans != 0,
        .bot_max_games = cfg->bot_max_games,
        .bot_games_per_day = cfg->bot_games_per_day,
        .analysis_nodes = cfg->analysis_nodes,
        .analysis_queue = cfg->analysis_queue,
        .analyses_per_day = cfg->analyses_per_day,
        .analyses_per_week = cfg->analyses_per_week,
        .test_clock = test_clock_on,
        .arena_create = cfg->arena_create,
        .tourney_account_days = cfg->tourney_account_days,
        .tourney_creators = cfg->tourney_creators,
        .max_arenas = cfg->max_arenas,
        .arena_players = cfg->arena_players,
        .max_swiss = cfg->max_swiss,
        .swiss_players = cfg->swiss_players,
        .swiss_pair_delay_ms = (int)test_env("CHESS_TEST_SWISS_PAIR_MS"),
        .analysis_count_delay_ms = (int)test_env(
            "CHESS_TEST_ANALYSIS_COUNT_MS"),
        .report_count_delay_ms = (int)test_env("CHESS_TEST_REPORT_COUNT_MS"),
        .event_seed = (uint64_t)test_env("CHESS_TEST_EVENT_SEED"),
        .tourney_tick_ms = test_env("CHESS_TEST_TOURNEY_TICK_MS"),
        .swiss_trf_hold_ms = test_env("CHESS_TEST_SWISS_TRF_HOLD_MS"),
        .chat_guests = cfg->chat_guests != 0,
        .lobby_chat = cfg->lobby_chat != 0,
        .chat_per_min = cfg->chat_per_min,
        .chat_burst = cfg->chat_burst,
        .chat_room_per_s = cfg->chat_room_per_s,
        .chat_mute_ms = (int64_t)cfg->chat_mute_s * 1000,
        .playban = cfg->playban != 0,
        .playban_guests = !strcmp(cfg->playban_guests, "address")
                              ? HUB_GUESTBAN_ADDRESS
                          : !strcmp(cfg->playban_guests, "token")
                              ? HUB_GUESTBAN_TOKEN
                              : HUB_GUESTBAN_OFF,
        .playban_guests_max = (int)test_env("CHESS_TEST_GUESTBANS_MAX"),
    };
}

/* The engine pool of engine_path (none when it is ""): engines of them
 * at most, one per core when 0. 0, or -1 (logged). */
static int start_engines(struct node *n)
{
    const struct config *cfg = &n->cfg;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int engines = cfg->engines ? cfg->engines
                               : (int)(cores < 1    ? 1
                                       : cores > 64 ? 64
                                                    : cores);
    char q[600];

    if (!cfg->engine_path[0]) {
        log_info("event=engines_off");
        return 0;
    }
    n->engines = engine_pool_start(&(struct engine_pool_config){
        .path = cfg->engine_path,
        .engines = engines,
        .queue = (size_t)cfg->engine_queue,
        .wake = net_wake,
    });
    if (!n->engines) {
        start_failed("out of memory (the engine pool)");
        return -1;
    }
    log_info("event=engines path=%s engines=%d queue=%d",
             log_quote(q, sizeof q, cfg->engine_path), engines,
             cfg->engine_queue);
    return 0;
}

/* The hub and, for a node of a cluster, Redis's bus and the cluster (the
 * hub's router and seek book); the live games of the previous run
 * (a node alone; in a cluster they are every node's, adopted once the
 * node joined where nobody hosts them). 0, or -1. */
static int start_node(struct node *n)
{
    struct hub_config hc = hub_config_of(&n->cfg);
    char q[600];
    int restored;

    if (n->cfg.redis[0] && open_redis(n) < 0)
        return -1;
    if (start_engines(n) < 0)
        return -1;
    n->h = wiring_start_hub(n->st, n->engines, &hc);
    if (!n->h ||
        (n->nrd && (!(n->rbus = redis_bus_new(n->rd, n->nrd, &n->bus)) ||
                    !(n->cl = cluster_new(n->h, &n->bus, n->cfg.node_id))))) {
        start_failed("out of memory");
        return -1;
    }
    if (n->cl) {
        cluster_set_balance(n->cl, n->cfg.balance_games_per_s);
        cluster_set_trace(n->cl, n->cfg.cluster_trace != 0);
    }
    db_watch.hub = n->h;
    db_watch.timer = n->pg ? NULL : net_timer_new(db_watch_tick, NULL);
    if (db_watch.timer)
        net_timer_arm(db_watch.timer, net_now_ms() + DB_WATCH_MS);
    if (hub_load_rated_pairs(n->h) < 0)
        log_error("event=rated_pairs_unreadable db=%s",
                  log_quote(q, sizeof q, n->where));
    restored = n->cl ? 0 : hub_restore(n->h, net_now_ms());
    if (n->cl && hub_tourney_known(n->h) < 0)
        log_error("event=restore_failed what=tournaments db=%s",
                  log_quote(q, sizeof q, n->where));
    if (restored < 0)
        log_error("event=restore_failed db=%s",
                  log_quote(q, sizeof q, n->where));
    else
        log_info("event=restored games=%d", restored);
    return 0;
}

/* The start-up's last line: what the server listens on and serves. */
static void log_listening(const struct node *n)
{
    const struct config *cfg = &n->cfg;
    struct listener_bound bound, rbound;
    char q1[600], q2[600];
    struct stat wst;

    if (stat(cfg->web_root, &wst) < 0 || !S_ISDIR(wst.st_mode))
        log_warn("event=web_root_missing web=%s",
                 log_quote(q1, sizeof q1, cfg->web_root));
    /* the address and ports as the kernel bound them (getsockname) */
    net_bound(&bound, &rbound);
    log_info("event=listening version=%s address=%s family=%s port=%d "
             "tls=%s redirect_port=%d origins=%zu store=%s db=%s schema=%d "
             "node=%s web=%s log_level=%s commit=%s",
             CHESS_SERVER_VERSION, bound.address, bound.family, bound.port,
             cfg->tls_cert[0] ? "on" : "off", rbound.port,
             cfg->n_allowed_origins, store_backend_name(n->st),
             log_quote(q1, sizeof q1, n->where), store_schema_version(n->st),
             cfg->node_id, log_quote(q2, sizeof q2, cfg->web_root),
             log_level_name((enum log_level)cfg->log_level),
             CHESS_SERVER_COMMIT);
}

/* SQLite's locks go (the database closed: see lock_db). */
static void release_locks(struct node *n)
{
    if (n->lock_fds[0] >= 0) {
        close(n->lock_fds[1]);
        close(n->lock_fds[0]);
        n->lock_fds[0] = n->lock_fds[1] = -1;
    }
}

/* Undoes what start-up made, in reverse; a planned shutdown first hands
 * the hub's games on (hub_shutdown) and leaves the cluster before Redis
 * goes, and the store commits what is queued before the connections
 * close. */
static void stop(struct node *n)
{
    ready_stop();
    net_timer_free(db_watch.timer);
    db_watch.timer = NULL;
    if (n->h)
        hub_shutdown(n->h);
    cluster_stop(n->cl); /* nothing more goes to Redis */
    redis_bus_free(n->rbus);
    for (int i = 0; i < n->nrd; i++)
        redis_free(n->rd[i]); /* (on the loop, which net_stop destroys) */
    store_close(n->st);
    n->st = NULL;
    engine_pool_stop(n->engines); /* (its workers wake net: before it) */
    n->engines = NULL;
    net_stop();
    cluster_free(n->cl);
    hub_free(n->h);
    tls_free();
    release_locks(n);
}

/* Signals: SIGTERM and SIGINT stop, SIGHUP reopens the log and reloads
 * the certificate; a write to a closed socket is only an error. */
static void catch_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stderr, NULL, _IOLBF, 0);
}

/* --check-config: the settings (already checked), what the host must
 * have for them, and the servers they name. The exit status: 0; 2 for a
 * fault of the configuration (Redis refusing the node's password or
 * certificate included: systemd does not restart it); 75 when a server
 * does not answer (it may later: systemd tries again). */
static int check_only(const struct args *a, struct config *cfg)
{
    char err[600];
    int rc = 0;

    if (preflight_host(cfg, err, sizeof err) != 0) {
        rc = 2;
    } else {
        switch (preflight_servers(cfg, err, sizeof err)) {
        case 0:
            break;
        case -2:
            rc = 2;
            break;
        default:
            rc = PREFLIGHT_UNREACHABLE;
            break;
        }
    }
    if (rc)
        fprintf(stderr, "E: %s\n", err);
    else
        printf("%s: OK\n", a->config);
    config_clear(cfg);
    return rc;
}

int main(int argc, char **argv)
{
    struct node n = {.lock_fds = {-1, -1}};
    struct net_config ncfg;
    struct args a;
    char err[600];
    int e, rc = 1;

    signal(SIGPIPE, SIG_IGN); /* (--check-config's TLS to Redis too) */
    test_clock_start();
    if (argc >= 2 && !strcmp(argv[1], "backup"))
        return backup_main(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "lag"))
        return lagreport_main(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "token"))
        return tokencli_main(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "mod"))
        return modcli_main(argc - 1, argv + 1);
    parse_args(argc, argv, &a);
    load_config(&a, &n.cfg);
    if (a.check)
        return check_only(&a, &n.cfg);
    drain_s = (unsigned)n.cfg.drain_s; /* (before a signal can come) */
    catch_signals();
    if (log_open(n.cfg.log_file, (enum log_level)n.cfg.log_level, err,
                 sizeof err) < 0) {
        fprintf(stderr, "E: %s\n", err);
        config_clear(&n.cfg);
        return 2;
    }
    log_to_file = n.cfg.log_file[0] != '\0';
    if (test_clock_on)
        log_warn("event=test_clock_on offset_ms=%lld",
                 (long long)sysclock_test_offset_ms());
    n.pg = n.cfg.postgres[0] != '\0';
    if (n.cfg.redis[0] && join_redis(&n.cfg) < 0) {
        rc = 2; /* the settings: no use restarting */
        goto out;
    }
    if (claim_db(&n) < 0)
        goto out;
    fit_fd_limit(&n.cfg);
    net_config_of(&n.cfg, &ncfg);
    e = net_start(&ncfg, err, sizeof err);
    if (e < 0) {
        start_failed("%s", err);
        if (e == NET_START_REFUSED)
            rc = 2; /* no use restarting: RestartPreventExitStatus=2 */
        release_locks(&n);
        goto out;
    }
    if ((e = open_store(&n)) != 0 || start_node(&n) < 0) {
        if (e == PREFLIGHT_UNREACHABLE)
            rc = e; /* (systemd tries again, as for --check-config's) */
        stop(&n);
        goto out;
    }
    log_listening(&n);
    if (notify_open(err, sizeof err) < 0)
        log_warn("event=sd_notify_failed error=\"%s\"", err);
    if (ready_start(n.h, n.cl) < 0) {
        start_failed("out of memory");
        stop(&n);
        goto out;
    }
    /* the loop serves: every read is the reader's from now on */
    store_read_serving(n.st, true);
    net_wake(); /* a signal that came before the loop ran is seen now */
    net_run();
    stop(&n);
    log_info("event=stopped");
    rc = 0;
out:
    notify_close();
    log_close();
    config_clear(&n.cfg);
    return rc;
}
