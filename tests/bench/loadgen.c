/*
 * chess-loadgen - load generator for chess-server over the real protocol.
 *
 *   chess-loadgen [--url ws://127.0.0.1:8080/ws]
 *                 [--mode play|connect|idle|echo]
 *                 [--games N] [--move-interval-ms MS] [--duration-s S]
 *                 [--spectators-per-game N] [--seed N] [--plies N]
 *                 [--server-pid PID]
 *                 [--procs N] [--connections N] [--src-addrs N]
 *                 [--max-connecting N] [--ramp-timeout-s S]
 *                 [--event-loop poll|libev] [--verbose]
 *                 [--ports P1,P2,...] [--resume] [--acked FILE]
 *
 * The work is spread over --procs processes (a process may hold at most
 * 20,000 descriptors here), each a libwebsockets client (loadgen_run.c)
 * with its share of the games. This parent waits until every process has
 * its games started, opens the measurement window in all of them at once,
 * samples the server's CPU time and RSS from /proc around the window,
 * merges what the processes measured and prints one line of key=value
 * pairs on stdout (see usage()), ending with the machine's load average:
 * the load generator shares the machine with the server, and so does
 * anything else running.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loadgen_prom.h"
#include "loadgen_run.h"

#define MAX_PROCS 64

struct options {
    struct lg_config cfg; /* the whole load; split per process */
    int procs;
    int server_pid;
};

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: chess-loadgen [options]\n"
        "  --url URL                ws://HOST:PORT/PATH of the server "
        "(default ws://127.0.0.1:8080/ws)\n"
        "  --mode play|connect|idle|echo|relay\n"
        "                           play games (default); connect: "
        "connect, hello, welcome,\n"
        "                           close, again; idle: games with both "
        "first moves made, then\n"
        "                           nothing but staying connected; echo: "
        "against\n"
        "                           tests/bench's echo_server, each "
        "connection sends a\n"
        "                           move-sized text and waits for it to "
        "come back;\n"
        "                           relay: against echo_server --relay, "
        "connections in\n"
        "                           pairs taking turns, each message "
        "coming back to both\n"
        "                           (a game's frames without the game; "
        "--connections even)\n"
        "  --games N                concurrent games (default 10)\n"
        "  --move-interval-ms MS    mean time between two moves of a game "
        "(open loop);\n"
        "                           0: each side moves as soon as it may "
        "(closed loop, default)\n"
        "  --duration-s S           measurement window (default 10)\n"
        "  --spectators-per-game N  spectator connections per game "
        "(default 0)\n"
        "  --seed N                 seed of the move choices (default 1)\n"
        "  --plies N                each game slot plays N moves in all "
        "(one game after\n"
        "                           another), then stays connected and "
        "silent; the window\n"
        "                           ends once every slot has (or at "
        "--duration-s). The\n"
        "                           moves are then the same from run to "
        "run: each slot's\n"
        "                           choices follow from --seed (default "
        "0: no limit)\n"
        "  --server-pid PID         report the server's RSS and CPU from "
        "/proc\n"
        "  --procs N                client processes (default 1)\n"
        "  --connections N          connect mode: attempts in flight; "
        "echo mode:\n"
        "                           connections (default 100)\n"
        "  --src-addrs N            bind the connections to N source "
        "addresses from\n"
        "                           127.0.0.1, in turn (default 1: no "
        "binding). For a server\n"
        "                           with a per-address cap; note that "
        "while they live, their\n"
        "                           ports cannot be listened on at every "
        "address\n"
        "  --max-connecting N       handshakes in progress per process "
        "(default 256)\n"
        "  --ramp-timeout-s S       longest wait for the games to start "
        "(default 300)\n"
        "  --event-loop poll|libev  the client's event loop (default libev)\n"
        "  --verbose                progress on stderr every 5 s (by default "
        "only while\n"
        "                           the games are being set up)\n"
        "Output: one line of key=value pairs. Latencies are in "
        "microseconds from the\n"
        "moment a move frame is written: own_* until the mover reads its "
        "`moved`,\n"
        "opp_* until the opponent does, spec_* until a spectator does. "
        "server_cpu_pct\n"
        "is of one core (the server's threads summed), server_loop_cpu_pct "
        "of its main\n"
        "thread (the event loop) alone, server_loop_us_per_op that "
        "thread's CPU time\n"
        "per move, echo or connection cycle; "
        "server_rss_bytes_per_conn is the\n"
        "RSS growth since start-up divided by the connections; "
        "server_disk_write_*\n"
        "the bytes the server dirtied for the disk over the window "
        "(/proc/PID/io\n"
        "write_bytes: its journal's WAL and checkpoints), in all and "
        "per move. "
        "commit_* is the server's\n"
        "chess_move_commit_seconds over the window (from /metrics "
        "before and after it:\n"
        "a move's arrival to the journal commit that releases its "
        "`moved`), its\n"
        "percentiles interpolated inside the histogram's buckets; "
        "server_moves, the\n"
        "moves the server counted; ckpt_waits, the journal writer's "
        "waits for a\n"
        "checkpoint.\n");
    fputs("  --ports P1,P2,...        a cluster's nodes on --url's host (at "
          "most 8): game slot K's\n"
          "                           players and spectators connect to "
          "port (K + i) mod n,\n"
          "                           i their index (A 0, B 1, spectators "
          "2...): a game's\n"
          "                           players on different nodes\n"
          "  --resume                 a connection cut mid-game reconnects "
          "(to the next port)\n"
          "                           with its token, resyncs (`sync`) and "
          "plays on, as a\n"
          "                           browser does; a move without its "
          "moved for 5 s is\n"
          "                           resynced too. Reports reconnects, "
          "resyncs, lost_moves\n"
          "                           (moves a connection read that its "
          "own resync no longer\n"
          "                           showed) and games found ended "
          "(abandoned) while away\n"
          "  --acked FILE             write a line \"GID PLY\" per game "
          "played: the highest\n"
          "                           ply a moved or state of it showed, "
          "acknowledged (for a\n"
          "                           check against the store: "
          "tests/bench/acked.py)\n",
          f);
}

static long num_arg(const char *name, const char *text, long lo, long hi)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(text, &end, 10);
    if (errno || !*text || *end || v < lo || v > hi) {
        fprintf(stderr,
                "E: %s must be an integer from %ld to %ld, not "
                "'%s'\n",
                name, lo, hi, text);
        exit(2);
    }
    return v;
}

/* --ports: a comma-separated list of 1-8 ports. */
static void parse_ports(const char *list, struct lg_config *c)
{
    char buf[128], *save = NULL, *tok;

    if (strlen(list) >= sizeof buf) {
        fprintf(stderr, "E: --ports is too long\n");
        exit(2);
    }
    strcpy(buf, list);
    c->n_ports = 0;
    for (tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (c->n_ports == LG_MAX_PORTS) {
            fprintf(stderr, "E: --ports lists at most %d ports\n",
                    LG_MAX_PORTS);
            exit(2);
        }
        c->ports[c->n_ports++] = (int)num_arg("--ports", tok, 1, 65535);
    }
    if (!c->n_ports) {
        fprintf(stderr, "E: --ports lists no port\n");
        exit(2);
    }
}

static void parse_url(const char *url, struct lg_config *c)
{
    const char *p, *colon, *slash;
    size_t hl;

    if (strncmp(url, "ws://", 5)) {
        fprintf(stderr, "E: --url must begin with ws://, not '%s'\n", url);
        exit(2);
    }
    p = url + 5;
    slash = strchr(p, '/');
    colon = strchr(p, ':');
    if (colon && slash && colon > slash)
        colon = NULL;
    hl = (size_t)((colon ? colon : slash ? slash : p + strlen(p)) - p);
    if (!hl || hl >= sizeof c->host) {
        fprintf(stderr, "E: no host in --url '%s'\n", url);
        exit(2);
    }
    memcpy(c->host, p, hl);
    c->host[hl] = '\0';
    c->port = 80;
    if (colon) {
        char port[8];
        size_t pl = (size_t)((slash ? slash : colon + strlen(colon)) - colon -
                             1);
        if (pl >= sizeof port)
            pl = sizeof port - 1;
        memcpy(port, colon + 1, pl);
        port[pl] = '\0';
        c->port = (int)num_arg("the port of --url", port, 1, 65535);
    }
    snprintf(c->path, sizeof c->path, "%s", slash ? slash : "/");
}

static void parse_args(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"url", required_argument, NULL, 'u'},
        {"mode", required_argument, NULL, 'm'},
        {"games", required_argument, NULL, 'g'},
        {"move-interval-ms", required_argument, NULL, 'i'},
        {"duration-s", required_argument, NULL, 'd'},
        {"spectators-per-game", required_argument, NULL, 's'},
        {"seed", required_argument, NULL, 'S'},
        {"plies", required_argument, NULL, 'p'},
        {"server-pid", required_argument, NULL, 'P'},
        {"procs", required_argument, NULL, 'n'},
        {"connections", required_argument, NULL, 'c'},
        {"src-addrs", required_argument, NULL, 'a'},
        {"max-connecting", required_argument, NULL, 'x'},
        {"ramp-timeout-s", required_argument, NULL, 'r'},
        {"event-loop", required_argument, NULL, 'e'},
        {"ports", required_argument, NULL, 'o'},
        {"resume", no_argument, NULL, 'R'},
        {"acked", required_argument, NULL, 'A'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct lg_config *c = &o->cfg;
    int ch;

    memset(o, 0, sizeof *o);
    parse_url("ws://127.0.0.1:8080/ws", c);
    c->mode = LG_MODE_PLAY;
    c->games = 10;
    c->duration_s = 10;
    c->seed = 1;
    c->connections = 100;
    c->src_addrs = 1;
    c->max_connecting = 256;
    c->ramp_timeout_s = 300;
    c->use_libev = 1;
    c->acked_fd = -1;
    o->procs = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (ch) {
        case 'u':
            parse_url(optarg, c);
            break;
        case 'm':
            if (!strcmp(optarg, "play"))
                c->mode = LG_MODE_PLAY;
            else if (!strcmp(optarg, "connect"))
                c->mode = LG_MODE_CONNECT;
            else if (!strcmp(optarg, "idle"))
                c->mode = LG_MODE_IDLE;
            else if (!strcmp(optarg, "echo"))
                c->mode = LG_MODE_ECHO;
            else if (!strcmp(optarg, "relay")) {
                c->mode = LG_MODE_ECHO;
                c->relay = true;
            } else {
                fprintf(stderr,
                        "E: --mode is play, connect, idle, echo or relay, "
                        "not "
                        "'%s'\n",
                        optarg);
                exit(2);
            }
            break;
        case 'g':
            c->games = (int)num_arg("--games", optarg, 1, 1000000);
            break;
        case 'i':
            c->move_interval_ms = (int)num_arg("--move-interval-ms", optarg,
                                               0, 3600000);
            break;
        case 'd':
            c->duration_s = (double)num_arg("--duration-s", optarg, 1, 86400);
            break;
        case 's':
            c->spectators = (int)num_arg("--spectators-per-game", optarg, 0,
                                         100);
            break;
        case 'S':
            c->seed = (uint64_t)num_arg("--seed", optarg, 0, LONG_MAX);
            break;
        case 'p':
            c->plies = num_arg("--plies", optarg, 0, LONG_MAX);
            break;
        case 'P':
            o->server_pid = (int)num_arg("--server-pid", optarg, 1, 1 << 30);
            break;
        case 'n':
            o->procs = (int)num_arg("--procs", optarg, 1, MAX_PROCS);
            break;
        case 'c':
            c->connections = (int)num_arg("--connections", optarg, 1,
                                          1000000);
            break;
        case 'a':
            c->src_addrs = (int)num_arg("--src-addrs", optarg, 1, 65000);
            break;
        case 'x':
            c->max_connecting = (int)num_arg("--max-connecting", optarg, 1,
                                             100000);
            break;
        case 'r':
            c->ramp_timeout_s = (double)num_arg("--ramp-timeout-s", optarg, 1,
                                                86400);
            break;
        case 'o':
            parse_ports(optarg, c);
            break;
        case 'R':
            c->resume = true;
            break;
        case 'A':
            c->acked_fd = open(
                optarg, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC,
                0644);
            if (c->acked_fd < 0) {
                fprintf(stderr, "E: --acked %s: %s\n", optarg,
                        strerror(errno));
                exit(2);
            }
            break;
        case 'v':
            c->verbose = 1;
            break;
        case 'e':
            if (!strcmp(optarg, "poll"))
                c->use_libev = 0;
            else if (!strcmp(optarg, "libev"))
                c->use_libev = 1;
            else {
                fprintf(stderr,
                        "E: --event-loop is poll or libev, not '%s'\n",
                        optarg);
                exit(2);
            }
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
        exit(2);
    }
}

/* ---- the server, from /proc -------------------------------------------- */

/* utime + stime of pid in seconds (tid > 0: of its thread tid only), or
 * -1. */
static double proc_cpu_s(int pid, int tid)
{
    char path[64], buf[2048], *p;
    unsigned long ut, st;
    FILE *f;
    size_t n;

    if (tid > 0)
        snprintf(path, sizeof path, "/proc/%d/task/%d/stat", pid, tid);
    else
        snprintf(path, sizeof path, "/proc/%d/stat", pid);
    f = fopen(path, "r");
    if (!f)
        return -1;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* the command name may hold spaces: fields resume after its ')' */
    p = strrchr(buf, ')');
    if (!p || sscanf(p + 2,
                     "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
                     "%lu %lu",
                     &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* The bytes pid caused to be written to storage (write_bytes of
 * /proc/PID/io: pages it dirtied, whoever writes them back), or -1. */
static long long proc_write_bytes(int pid)
{
    char path[64], line[256];
    long long b = -1;
    FILE *f;

    snprintf(path, sizeof path, "/proc/%d/io", pid);
    f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "write_bytes: %lld", &b) == 1)
            break;
    fclose(f);
    return b;
}

/* VmRSS of pid in KiB, or -1. */
static long proc_rss_kb(int pid)
{
    char path[64], line[256];
    long kb = -1;
    FILE *f;

    snprintf(path, sizeof path, "/proc/%d/status", pid);
    f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

static double mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the server's /metrics ---------------------------------------------- */

/* GET /metrics from the --url's host and port (HTTP/1.0, so the server
 * closes when done): the body, malloc'ed (caller frees), or NULL. */
static char *fetch_metrics(const struct lg_config *c)
{
    struct addrinfo hints = {0}, *ai = NULL;
    char port[8], req[512], *buf = NULL, *body = NULL;
    size_t len = 0, cap = 0;
    int fd = -1;
    ssize_t n;

    hints.ai_socktype = SOCK_STREAM;
    snprintf(port, sizeof port, "%d", c->port);
    if (getaddrinfo(c->host, port, &hints, &ai) != 0)
        return NULL;
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
                ai->ai_protocol);
    if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) < 0)
        goto out;
    n = snprintf(req, sizeof req,
                 "GET /metrics HTTP/1.0\r\nHost: %s\r\n"
                 "\r\n",
                 c->host);
    if (n >= (ssize_t)sizeof req || write(fd, req, (size_t)n) != n)
        goto out;
    for (;;) {
        if (cap - len < 4096) {
            char *nb = realloc(buf, cap ? cap * 2 : 65536);
            if (!nb)
                goto out;
            buf = nb;
            cap = cap ? cap * 2 : 65536;
        }
        n = read(fd, buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    if (strncmp(buf, "HTTP/1.1 200", 12) && strncmp(buf, "HTTP/1.0 200", 12))
        goto out;
    if ((body = strstr(buf, "\r\n\r\n")))
        body = strdup(body + 4);
out:
    if (fd >= 0)
        close(fd);
    freeaddrinfo(ai);
    free(buf);
    return body;
}

/* The journal commit latency of the moves made during the window, from
 * the server's histograms read before and after it: p50/p99/p99.9
 * estimated from the buckets (linear inside a bucket, so no finer than
 * the buckets: 1, 2.5, 5, 10, 25 ms...), the moves the server counted,
 * and the writer's checkpoint waits. "na" when /metrics could not be
 * read. */
static void put_commit(const char *before, const char *after)
{
    struct lg_prom_hist h0, h1, w0, w1;
    double m0, m1;

    if (!before || !after ||
        lg_prom_hist(before, "chess_move_commit_seconds", &h0) ||
        lg_prom_hist(after, "chess_move_commit_seconds", &h1) ||
        lg_prom_hist_sub(&h1, &h0) ||
        lg_prom_value(before, "chess_moves_total", &m0) ||
        lg_prom_value(after, "chess_moves_total", &m1)) {
        printf(" commit_samples=na");
        return;
    }
    printf(" server_moves=%.0f commit_samples=%.0f commit_p50_us=%.0f "
           "commit_p99_us=%.0f commit_p999_us=%.0f commit_mean_us=%.0f",
           m1 - m0, h1.count, lg_prom_quantile(&h1, 0.5) * 1e6,
           lg_prom_quantile(&h1, 0.99) * 1e6,
           lg_prom_quantile(&h1, 0.999) * 1e6,
           h1.count > 0 ? h1.sum / h1.count * 1e6 : 0);
    if (!lg_prom_hist(before, "chess_store_checkpoint_wait_seconds", &w0) &&
        !lg_prom_hist(after, "chess_store_checkpoint_wait_seconds", &w1) &&
        !lg_prom_hist_sub(&w1, &w0))
        printf(" ckpt_waits=%.0f ckpt_wait_total_us=%.0f", w1.count,
               w1.sum * 1e6);
}

/* ---- processes --------------------------------------------------------- */

struct child {
    pid_t pid;
    int ctl, out; /* our ends: write control, read results */
    bool ready, done;
    struct lg_stats st;
};

static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;

    while (len) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The share of `total` that process i of n gets, and where it starts. */
static void share(int total, int n, int i, int *count, int *first)
{
    int base = total / n, extra = total % n;

    *count = base + (i < extra);
    *first = i * base + (i < extra ? i : extra);
}

static int spawn(const struct options *o, int i, struct child *ch)
{
    int ctl[2], out[2];
    struct lg_config cfg = o->cfg;

    if (pipe(ctl) < 0 || pipe(out) < 0) {
        perror("E: pipe");
        return -1;
    }
    cfg.proc_index = i;
    share(o->cfg.games, o->procs, i, &cfg.games, &cfg.first_game);
    if (cfg.mode == LG_MODE_CONNECT || cfg.mode == LG_MODE_ECHO) {
        int first;
        share(o->cfg.connections, o->procs, i, &cfg.connections, &first);
        cfg.first_game = first;
    }
    ch->pid = fork();
    if (ch->pid < 0) {
        perror("E: fork");
        return -1;
    }
    if (ch->pid == 0) {
        close(ctl[1]);
        close(out[0]);
        cfg.ctl_fd = ctl[0];
        cfg.out_fd = out[1];
        /* the control pipe is polled by a timer: never block on it */
        fcntl(ctl[0], F_SETFL, fcntl(ctl[0], F_GETFL) | O_NONBLOCK);
        _exit(lg_run(&cfg));
    }
    close(ctl[0]);
    close(out[1]);
    ch->ctl = ctl[1];
    ch->out = out[0];
    return 0;
}

/* Waits until every child wrote 'R' (or died). Returns how many are
 * ready. */
static int wait_ready(struct child *ch, int n, double timeout_s)
{
    double deadline = mono_s() + timeout_s;
    int ready = 0;

    while (ready < n && mono_s() < deadline) {
        struct pollfd pf[MAX_PROCS];
        int k = 0, idx[MAX_PROCS];
        for (int i = 0; i < n; i++)
            if (!ch[i].ready && !ch[i].done) {
                pf[k].fd = ch[i].out;
                pf[k].events = POLLIN;
                idx[k++] = i;
            }
        if (!k)
            break;
        if (poll(pf, (nfds_t)k, 1000) <= 0)
            continue;
        for (int j = 0; j < k; j++) {
            char b;
            if (!pf[j].revents)
                continue;
            if (read(ch[idx[j]].out, &b, 1) == 1 && b == 'R') {
                ch[idx[j]].ready = true;
                ready++;
            } else {
                ch[idx[j]].done = true; /* died */
            }
        }
    }
    return ready;
}

static void put_hist(const char *name, const struct lg_hist *h)
{
    printf(" %s_samples=%llu %s_p50_us=%llu %s_p99_us=%llu %s_p999_us=%llu "
           "%s_max_us=%llu",
           name, (unsigned long long)h->total, name,
           (unsigned long long)lg_hist_quantile(h, 0.50), name,
           (unsigned long long)lg_hist_quantile(h, 0.99), name,
           (unsigned long long)lg_hist_quantile(h, 0.999), name,
           (unsigned long long)h->max);
}

static const char *mode_name(const struct lg_config *c)
{
    enum lg_mode m = c->mode;

    return m == LG_MODE_PLAY      ? "play"
           : m == LG_MODE_CONNECT ? "connect"
           : m == LG_MODE_ECHO    ? (c->relay ? "relay" : "echo")
                                  : "idle";
}

/* The server's loop thread (its main thread) over the run: its share of
 * a core and its CPU time per operation (a move, an echo, a connection
 * cycle). Unlike a rate, the time per operation hardly depends on what
 * else the machine runs, so runs on a busy machine still compare. */
static void loop_report(enum lg_mode m, const struct lg_stats *t,
                        double wall_s, double loop_cpu_s)
{
    uint64_t ops = m == LG_MODE_ECHO      ? t->echoes
                   : m == LG_MODE_CONNECT ? t->connects
                   : m == LG_MODE_PLAY    ? t->moves
                                          : 0;

    printf(" server_loop_cpu_pct=%.1f", 100.0 * loop_cpu_s / wall_s);
    if (ops)
        printf(" server_loop_us_per_op=%.2f", loop_cpu_s * 1e6 / (double)ops);
}

/* The machine's CPU time so far from /proc/stat's first line: *steal,
 * the time the hypervisor ran something else while this machine's CPUs
 * wanted to run, and *total, all of it (clock ticks). -1 when unread. */
static void machine_cpu(long long *steal, long long *total)
{
    long long v[8] = {0};
    FILE *f = fopen("/proc/stat", "r");

    *steal = *total = -1;
    if (!f)
        return;
    if (fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1],
               &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
        *steal = v[7];
        *total = 0;
        for (int i = 0; i < 8; i++)
            *total += v[i];
    }
    fclose(f);
}

static void report(const struct options *o, const struct lg_stats *t,
                   int failed, double wall_s, double srv_cpu_s,
                   double loop_cpu_s, long rss0_kb, long rss1_kb,
                   long long written, const char *metrics0,
                   const char *metrics1, double steal_pct)
{
    char loadavg[16] = "na";
    FILE *f = fopen("/proc/loadavg", "r");

    if (f) {
        if (fscanf(f, "%15s", loadavg) != 1)
            strcpy(loadavg, "na");
        fclose(f);
    }
    const struct lg_config *c = &o->cfg;
    uint64_t errors = 0;
    bool any = false;
    double window = t->window_s > 0 ? t->window_s : wall_s;

    for (int i = 0; i < LG_ERR_COUNT; i++)
        errors += t->errors[i];
    printf("mode=%s procs=%d event_loop=%s", mode_name(c), o->procs,
           c->use_libev ? "libev" : "poll");
    if (c->mode == LG_MODE_CONNECT)
        printf(" connections_in_flight=%d", c->connections);
    else if (c->mode == LG_MODE_ECHO)
        printf(" echo_connections=%d", c->connections);
    else
        printf(" games=%d spectators_per_game=%d move_interval_ms=%d",
               c->games, c->spectators, c->move_interval_ms);
    printf(" duration_s=%.2f ramp_s=%.2f ramp_games=%llu src_addrs=%d "
           "connections=%llu",
           window, t->ramp_s, (unsigned long long)t->ramp_games, c->src_addrs,
           (unsigned long long)t->connections);
    if (c->mode == LG_MODE_CONNECT) {
        printf(" connects=%llu connects_per_s=%.0f",
               (unsigned long long)t->connects, (double)t->connects / window);
        put_hist("welcome", &t->welcome);
    } else if (c->mode == LG_MODE_ECHO) {
        printf(" echoes=%llu echoes_per_s=%.0f",
               (unsigned long long)t->echoes, (double)t->echoes / window);
        put_hist("echo", &t->echo);
    } else {
        printf(" games_live=%llu games_started=%llu games_ended=%llu "
               "moves=%llu moves_per_s=%.0f late_moves=%llu",
               (unsigned long long)t->games_live,
               (unsigned long long)t->games_started,
               (unsigned long long)t->games_ended,
               (unsigned long long)t->moves, (double)t->moves / window,
               (unsigned long long)t->late_moves);
        put_hist("own", &t->own);
        put_hist("opp", &t->opp);
        if (c->spectators)
            put_hist("spec", &t->spec);
        put_commit(metrics0, metrics1);
    }
    printf(" errors=%llu errors_by_code=", (unsigned long long)errors);
    for (int i = 0; i < LG_ERR_COUNT; i++)
        if (t->errors[i]) {
            printf("%s%s:%llu", any ? "," : "", lg_msg_error_name(i),
                   (unsigned long long)t->errors[i]);
            any = true;
        }
    printf("%s unexpected_closes=%llu connect_failures=%llu stalls=%llu "
           "unanswered=%llu client_queue_full=%llu shutdowns=%llu "
           "failed_procs=%d",
           any ? "" : "none", (unsigned long long)t->unexpected_closes,
           (unsigned long long)t->connect_failures,
           (unsigned long long)t->stalls, (unsigned long long)t->unanswered,
           (unsigned long long)t->queue_full,
           (unsigned long long)t->shutdowns, failed);
    if (c->mode == LG_MODE_PLAY || c->mode == LG_MODE_IDLE)
        printf(" resets=%llu", (unsigned long long)t->resets);
    if (c->resume)
        printf(" reconnects=%llu resumes=%llu resyncs=%llu lost_moves=%llu "
               "ended_away=%llu abandoned=%llu stale_states=%llu",
               (unsigned long long)t->reconnects,
               (unsigned long long)t->resumes, (unsigned long long)t->resyncs,
               (unsigned long long)t->lost_moves,
               (unsigned long long)t->ended_away,
               (unsigned long long)t->abandoned,
               (unsigned long long)t->stale_states);
    if (o->server_pid && rss1_kb >= 0) {
        printf(" server_rss_kb=%ld server_rss_start_kb=%ld", rss1_kb,
               rss0_kb);
        if (t->connections)
            printf(" server_rss_bytes_per_conn=%.0f",
                   (double)(rss1_kb - rss0_kb) * 1024.0 /
                       (double)t->connections);
        else
            printf(" server_rss_bytes_per_conn=na");
        printf(" server_cpu_pct=%.1f", 100.0 * srv_cpu_s / wall_s);
        loop_report(c->mode, t, wall_s, loop_cpu_s);
        if (c->mode == LG_MODE_PLAY && written >= 0) {
            printf(" server_disk_write_kb=%lld", written / 1024);
            if (t->moves)
                printf(" server_disk_write_bytes_per_move=%.0f",
                       (double)written / (double)t->moves);
        }
    } else {
        printf(" server_rss_kb=na server_rss_bytes_per_conn=na "
               "server_cpu_pct=na");
    }
    printf(" loadgen_cpu_pct=%.1f loadavg_1m=%s",
           100.0 * (double)t->cpu_us / 1e6 / window, loadavg);
    if (steal_pct >= 0) /* of every CPU's time: a busy neighbour's share */
        printf(" machine_steal_pct=%.1f\n", steal_pct);
    else
        printf(" machine_steal_pct=na\n");
}

/* Raises the descriptor limit to the hard limit; says so when the load
 * cannot fit. */
static void raise_nofile(const struct options *o)
{
    struct rlimit rl;
    long need;
    const struct lg_config *c = &o->cfg;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return;
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    need = c->mode == LG_MODE_CONNECT || c->mode == LG_MODE_ECHO
               ? c->connections
               : (long)c->games * (2 + c->spectators);
    need = (need + o->procs - 1) / o->procs + 64;
    if (rl.rlim_cur != RLIM_INFINITY && (rlim_t)need > rl.rlim_cur)
        fprintf(stderr,
                "W: each process needs about %ld descriptors but "
                "may open %llu: use more --procs\n",
                need, (unsigned long long)rl.rlim_cur);
}

int main(int argc, char **argv)
{
    struct options o;
    struct child *ch; /* each holds ~120 KiB of histograms: not the stack */
    struct lg_stats *total;
    char *metrics0 = NULL, *metrics1 = NULL;
    double cpu0 = 0, cpu1 = 0, loop0 = 0, loop1 = 0, t0, t1;
    long rss0 = -1, rss1 = -1;
    long long wb0 = -1, wb1 = -1, st0, st1, all0, all1;
    int ready, failed = 0;

    parse_args(argc, argv, &o);
    raise_nofile(&o);
    signal(SIGPIPE, SIG_IGN);
    if (o.server_pid) {
        rss0 = proc_rss_kb(o.server_pid);
        if (rss0 < 0) {
            fprintf(stderr, "E: no process %d to measure\n", o.server_pid);
            return 2;
        }
    }
    ch = calloc(MAX_PROCS, sizeof *ch);
    total = calloc(1, sizeof *total);
    if (!ch || !total) {
        fprintf(stderr, "E: out of memory\n");
        return 1;
    }
    fflush(stdout);
    for (int i = 0; i < o.procs; i++)
        if (spawn(&o, i, &ch[i]) < 0)
            return 1;
    ready = wait_ready(ch, o.procs, o.cfg.ramp_timeout_s + 30);
    if (ready < o.procs)
        fprintf(stderr, "W: %d of %d processes ready\n", ready, o.procs);
    if (o.cfg.mode == LG_MODE_PLAY || o.cfg.mode == LG_MODE_IDLE)
        metrics0 = fetch_metrics(&o.cfg);
    if (o.server_pid) {
        cpu0 = proc_cpu_s(o.server_pid, 0);
        loop0 = proc_cpu_s(o.server_pid, o.server_pid);
        wb0 = proc_write_bytes(o.server_pid);
    }
    machine_cpu(&st0, &all0);
    t0 = mono_s();
    for (int i = 0; i < o.procs; i++)
        if (ch[i].ready && write(ch[i].ctl, "G", 1) != 1)
            ch[i].ready = false;
    for (int i = 0; i < o.procs; i++) {
        if (!ch[i].ready || read_all(ch[i].out, &ch[i].st, sizeof ch[i].st)) {
            failed++;
            continue;
        }
    }
    t1 = mono_s();
    machine_cpu(&st1, &all1);
    if (o.server_pid) {
        cpu1 = proc_cpu_s(o.server_pid, 0);
        loop1 = proc_cpu_s(o.server_pid, o.server_pid);
        rss1 = proc_rss_kb(o.server_pid);
        wb1 = proc_write_bytes(o.server_pid);
    }
    if (metrics0)
        metrics1 = fetch_metrics(&o.cfg);
    for (int i = 0; i < o.procs; i++)
        close(ch[i].ctl); /* end of file: the children close and exit */
    for (int i = 0; i < o.procs; i++) {
        struct lg_stats *s = &ch[i].st;
        int status;
        waitpid(ch[i].pid, &status, 0);
        close(ch[i].out);
        if (!ch[i].ready)
            continue;
        total->moves += s->moves;
        total->games_started += s->games_started;
        total->games_ended += s->games_ended;
        for (int k = 0; k < LG_ERR_COUNT; k++)
            total->errors[k] += s->errors[k];
        total->unexpected_closes += s->unexpected_closes;
        total->connect_failures += s->connect_failures;
        total->stalls += s->stalls;
        total->unanswered += s->unanswered;
        total->late_moves += s->late_moves;
        total->queue_full += s->queue_full;
        total->shutdowns += s->shutdowns;
        total->connects += s->connects;
        total->echoes += s->echoes;
        total->connections += s->connections;
        total->games_live += s->games_live;
        total->cpu_us += s->cpu_us;
        total->resets += s->resets;
        total->reconnects += s->reconnects;
        total->resumes += s->resumes;
        total->resyncs += s->resyncs;
        total->lost_moves += s->lost_moves;
        total->ended_away += s->ended_away;
        total->abandoned += s->abandoned;
        total->stale_states += s->stale_states;
        if (s->window_s > total->window_s)
            total->window_s = s->window_s;
        if (s->ramp_s > total->ramp_s)
            total->ramp_s = s->ramp_s;
        total->ramp_games += s->ramp_games;
        lg_hist_merge(&total->own, &s->own);
        lg_hist_merge(&total->opp, &s->opp);
        lg_hist_merge(&total->spec, &s->spec);
        lg_hist_merge(&total->welcome, &s->welcome);
        lg_hist_merge(&total->echo, &s->echo);
    }
    if (o.cfg.verbose) {
        static const double qs[] = {0.5,  0.75, 0.9,   0.95, 0.97,
                                    0.98, 0.99, 0.995, 0.999};
        const struct lg_hist *h = o.cfg.mode == LG_MODE_CONNECT
                                      ? &total->welcome
                                      : &total->opp;
        fprintf(stderr, "I: %s latency (us):",
                o.cfg.mode == LG_MODE_CONNECT ? "welcome" : "opponent");
        for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++)
            fprintf(stderr, " p%g=%llu", qs[i] * 100,
                    (unsigned long long)lg_hist_quantile(h, qs[i]));
        fprintf(stderr, "\n");
    }
    report(&o, total, failed, t1 - t0,
           cpu0 >= 0 && cpu1 >= 0 ? cpu1 - cpu0 : 0,
           loop0 >= 0 && loop1 >= 0 ? loop1 - loop0 : 0, rss0, rss1,
           wb0 >= 0 && wb1 >= 0 ? wb1 - wb0 : -1, metrics0, metrics1,
           st0 >= 0 && st1 >= 0 && all1 > all0
               ? 100.0 * (double)(st1 - st0) / (double)(all1 - all0)
               : -1);
    free(metrics0);
    free(metrics1);
    free(total);
    free(ch);
    return failed ? 1 : 0;
}
