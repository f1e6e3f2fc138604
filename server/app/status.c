/*
 * status.c - the process's status pages (see status.h): /healthz, and
 * /metrics as a view of the whole process (the hub's counters, the
 * network's, the store's, and the process's own from /proc).
 */
#include "app/status.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "app/build_commit.h"
#include "engine/pool.h"
#include "hub/challenge.h"
#include "hub/hub.h"
#include "hub/metrics.h"
#include "lib/tunables.h"
#include "proto.h"
#include "store/store.h"

#ifndef CHESS_SERVER_VERSION
#define CHESS_SERVER_VERSION "unknown"
#endif

/* The journal writer's figures, copied from the store for rendering. */
struct metrics_store {
    bool pg;                             /* PostgreSQL's (else SQLite's) */
    size_t queue_depth;                  /* store_queue_depth */
    struct store_timing timing;          /* store_timing */
    struct store_wal_stats wal;          /* store_wal_stats */
    struct store_pg_stats pgs;           /* store_pg_stats */
    uint64_t failures[STORE_FAIL_KINDS]; /* store_failures */
    struct store_read_stats reads;       /* store_read_stats */
};

struct out {
    char *buf;
    size_t len, cap;
    int failed;
};

static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (o->failed)
        return;
    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            o->failed = 1;
            return;
        }
        if ((size_t)n < o->cap - o->len) {
            o->len += (size_t)n;
            return;
        }
        char *b = realloc(o->buf, o->cap * 2);
        if (!b) {
            o->failed = 1;
            return;
        }
        o->buf = b;
        o->cap *= 2;
    }
}

static void put_hist(struct out *o, const char *name, const char *help,
                     const struct hist *h)
{
    uint64_t cum = 0;

    put(o, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
    for (int i = 0; i < HIST_BUCKETS; i++) {
        cum += h->bucket[i];
        put(o, "%s_bucket{le=\"%g\"} %llu\n", name,
            (double)hist_bounds_us[i] / 1e6, (unsigned long long)cum);
    }
    cum += h->bucket[HIST_BUCKETS];
    put(o, "%s_bucket{le=\"+Inf\"} %llu\n%s_sum %.6f\n%s_count %llu\n", name,
        (unsigned long long)cum, name, (double)h->sum_us / 1e6, name,
        (unsigned long long)h->count);
}

/* ---- the process -------------------------------------------------------- */

/* Descriptors open now (the entries of /proc/self/fd but its own), or -1. */
static long open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    long n = 0;

    if (!d)
        return -1;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1; /* the listing's own */
}

/* Resident memory in bytes (/proc/self/statm), or -1. */
static long long resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "re");
    unsigned long long size, resident;
    int ok;

    if (!f)
        return -1;
    ok = fscanf(f, "%llu %llu", &size, &resident) == 2;
    fclose(f);
    return ok ? (long long)(resident *
                            (unsigned long long)sysconf(_SC_PAGESIZE))
              : -1;
}

/* The process's start in seconds since the epoch: the boot time
 * (/proc/stat btime) plus its start in ticks after boot (field 22 of
 * /proc/self/stat), or -1. */
static double start_time_s(void)
{
    char buf[1024], *p;
    unsigned long long btime = 0, start = 0;
    bool found = false;
    FILE *f = fopen("/proc/stat", "re");

    if (!f)
        return -1;
    while (fgets(buf, sizeof buf, f))
        if (sscanf(buf, "btime %llu", &btime) == 1) {
            found = true;
            break;
        }
    fclose(f);
    f = fopen("/proc/self/stat", "re");
    if (!f || !found)
        goto fail;
    if (!fgets(buf, sizeof buf, f))
        goto fail;
    fclose(f);
    f = NULL;
    /* the command name (field 2) may hold spaces: count from its ')' */
    p = strrchr(buf, ')');
    if (!p)
        return -1;
    for (int field = 2; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    if (!p || sscanf(p + 1, "%llu", &start) != 1)
        return -1;
    return (double)btime + (double)start / (double)sysconf(_SC_CLK_TCK);
fail:
    if (f)
        fclose(f);
    return -1;
}

static void put_process(struct out *o)
{
    struct rusage ru;
    struct rlimit rl;
    long long rss = resident_bytes();
    long fds = open_fds();
    double start = start_time_s();

    if (getrusage(RUSAGE_SELF, &ru) == 0)
        put(o,
            "# HELP process_cpu_seconds_total User and system CPU time "
            "spent in seconds.\n# TYPE process_cpu_seconds_total "
            "counter\nprocess_cpu_seconds_total %.6f\n",
            (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
    if (rss >= 0)
        put(o,
            "# HELP process_resident_memory_bytes Resident memory size "
            "in bytes.\n# TYPE process_resident_memory_bytes gauge\n"
            "process_resident_memory_bytes %lld\n",
            rss);
    if (fds >= 0)
        put(o,
            "# HELP process_open_fds Number of open file descriptors.\n"
            "# TYPE process_open_fds gauge\nprocess_open_fds %ld\n",
            fds);
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        put(o,
            "# HELP process_max_fds Maximum number of open file "
            "descriptors.\n# TYPE process_max_fds gauge\n"
            "process_max_fds %llu\n",
            (unsigned long long)rl.rlim_cur);
    if (start >= 0)
        put(o,
            "# HELP process_start_time_seconds Start time of the process "
            "since unix epoch in seconds.\n"
            "# TYPE process_start_time_seconds gauge\n"
            "process_start_time_seconds %.2f\n",
            start);
}

/* SQLite's own: its WAL and the checkpointer. */
static void put_sqlite(struct out *o, const struct metrics_store *st)
{
    put_hist(o, "chess_store_checkpoint_wait_seconds",
             "Time the "
             "journal writer waited for a checkpoint pass, the WAL "
             "being at its cap (one sample per wait).",
             &st->timing.ckpt_wait);
    put(o,
        "# HELP chess_store_checkpoints_total Checkpoint passes of the "
        "WAL into the database file.\n"
        "# TYPE chess_store_checkpoints_total counter\n"
        "chess_store_checkpoints_total %llu\n",
        (unsigned long long)st->wal.checkpoints);
    put(o,
        "# HELP chess_store_wal_restarts_total Commits that started the "
        "WAL over.\n# TYPE chess_store_wal_restarts_total counter\n"
        "chess_store_wal_restarts_total %llu\n",
        (unsigned long long)st->wal.wal_restarts);
    put(o,
        "# HELP chess_store_wal_frames Pages in the WAL after the last "
        "commit.\n# TYPE chess_store_wal_frames gauge\n"
        "chess_store_wal_frames %d\n",
        st->wal.wal_frames);
}

/* The store's reads off the loop (the reader's figures, and the hub's:
 * the reads its budgets refused, the commands its unknown games
 * answered without one). */
static void put_reads(struct out *o, const struct metrics *m,
                      const struct store_read_stats *rd)
{
    put(o,
        "# HELP chess_store_reads_total Store reads off the loop, by how "
        "they ended: answered, late (past store_read_timeout_ms: the "
        "command was answered busy), refused (the reader's queue full).\n"
        "# TYPE chess_store_reads_total counter\n"
        "chess_store_reads_total{outcome=\"answered\"} %llu\n"
        "chess_store_reads_total{outcome=\"late\"} %llu\n"
        "chess_store_reads_total{outcome=\"refused\"} %llu\n",
        (unsigned long long)rd->answered, (unsigned long long)rd->late,
        (unsigned long long)rd->refused);
    put(o,
        "# HELP chess_store_reads_waiting Store reads queued for the "
        "reader thread.\n# TYPE chess_store_reads_waiting gauge\n"
        "chess_store_reads_waiting %zu\n",
        rd->waiting);
    put_hist(o, "chess_store_read_seconds",
             "Time a store read took from its submission to its answer.",
             &rd->latency);
    put(o,
        "# HELP chess_store_reads_limited_total Commands answered "
        "rate_limited for their connection's or address's reads waiting.\n"
        "# TYPE chess_store_reads_limited_total counter\n"
        "chess_store_reads_limited_total %llu\n"
        "# HELP chess_unknown_games_total Commands about a game the store "
        "did not have a moment before, answered without a read.\n"
        "# TYPE chess_unknown_games_total counter\n"
        "chess_unknown_games_total %llu\n",
        (unsigned long long)m->reads_limited,
        (unsigned long long)m->unknown_game_hits);
}

/* PostgreSQL's own: the writer's connection. */
static void put_pg(struct out *o, const struct metrics_store *st)
{
    put(o,
        "# HELP chess_store_pg_reconnects_total Times the journal "
        "writer's connection to PostgreSQL was opened again after a "
        "loss.\n# TYPE chess_store_pg_reconnects_total counter\n"
        "chess_store_pg_reconnects_total %llu\n",
        (unsigned long long)st->pgs.reconnects);
    put(o,
        "# HELP chess_store_pg_commits_resolved_total Transactions whose "
        "COMMIT answer a lost connection swallowed, resolved by their "
        "marker: committed or not.\n"
        "# TYPE chess_store_pg_commits_resolved_total counter\n"
        "chess_store_pg_commits_resolved_total{committed=\"yes\"} %llu\n"
        "chess_store_pg_commits_resolved_total{committed=\"no\"} %llu\n",
        (unsigned long long)st->pgs.resolved[1],
        (unsigned long long)st->pgs.resolved[0]);
}

/* The journal writer: where a commit's time goes, and the backend's own
 * series (only those of the backend in use). */
static void put_store(struct out *o, const struct metrics_store *st)
{
    put(o,
        "# HELP chess_store_backend The database the store runs on.\n"
        "# TYPE chess_store_backend gauge\n"
        "chess_store_backend{backend=\"%s\"} 1\n",
        st->pg ? "postgres" : "sqlite");
    put(o,
        "# HELP chess_store_queue_depth Store writes queued, not yet "
        "committed.\n# TYPE chess_store_queue_depth gauge\n"
        "chess_store_queue_depth %zu\n",
        st->queue_depth);
    put_hist(o, "chess_store_queue_wait_seconds",
             "Time the oldest "
             "write of a journal transaction waited in the queue "
             "before the transaction began.",
             &st->timing.queue);
    put_hist(o, "chess_store_statements_seconds",
             "Time a journal "
             "transaction took from BEGIN to its COMMIT statement.",
             &st->timing.statements);
    put_hist(o, "chess_store_commit_seconds",
             "Time the COMMIT "
             "statement of a journal transaction took.",
             &st->timing.commit);
    put(o,
        "# HELP chess_store_retries_total Journal transactions rolled "
        "back and tried again.\n"
        "# TYPE chess_store_retries_total counter\n"
        "chess_store_retries_total %llu\n",
        (unsigned long long)st->timing.retries);
    if (st->pg)
        put_pg(o, st);
    else
        put_sqlite(o, st);
}

/* The Prometheus text exposition (malloc'ed), or NULL when out of
 * memory. */
/* The hub's gauges that are counted when rendered. */
struct metrics_sizes {
    size_t live_games, open_seeks, subscriptions;
    size_t challenges;
};

/* The process's version and the gauges of the hub. */
static void put_gauges(struct out *o, const struct metrics *m,
                       const struct metrics_sizes *s)
{
    put(o,
        "# HELP chess_build_info The running chess-server's version and "
        "the git commit it was built from.\n"
        "# TYPE chess_build_info gauge\n"
        "chess_build_info{version=\"%s\",commit=\"%s\"} 1\n",
        CHESS_SERVER_VERSION, CHESS_SERVER_COMMIT);
    put(o,
        "# HELP chess_connections Open WebSocket connections.\n"
        "# TYPE chess_connections gauge\nchess_connections %lld\n",
        (long long)m->connections);
    put(o,
        "# HELP chess_connections_total WebSocket connections accepted."
        "\n# TYPE chess_connections_total counter\n"
        "chess_connections_total %llu\n",
        (unsigned long long)m->connections_total);
    put(o,
        "# HELP chess_live_games Games waiting or being played.\n"
        "# TYPE chess_live_games gauge\nchess_live_games %zu\n",
        s->live_games);
    put(o,
        "# HELP chess_open_seeks Seeks waiting for an opponent.\n"
        "# TYPE chess_open_seeks gauge\nchess_open_seeks %zu\n",
        s->open_seeks);
    put(o,
        "# HELP chess_game_subscriptions Targets of the games' "
        "messages: one per seated player online (whatever its number "
        "of connections) and one per spectating connection.\n"
        "# TYPE chess_game_subscriptions gauge\n"
        "chess_game_subscriptions %zu\n",
        s->subscriptions);
    put(o,
        "# HELP chess_challenges_pending Challenges sent and not yet "
        "accepted, declined, canceled or expired.\n"
        "# TYPE chess_challenges_pending gauge\n"
        "chess_challenges_pending %zu\n",
        s->challenges);
}

/* The hub's counters by reason and code, and the store's failures. */
static void put_counters(struct out *o, const struct metrics *m,
                         const struct metrics_store *st)
{
    put(o,
        "# HELP chess_lobby_watchers Connections watching the lobby's "
        "open seeks and live games (lobby_watch).\n"
        "# TYPE chess_lobby_watchers gauge\nchess_lobby_watchers %lld\n",
        (long long)m->lobby_watchers);
    put(o,
        "# HELP chess_messages_total Client text messages received.\n"
        "# TYPE chess_messages_total counter\nchess_messages_total %llu\n",
        (unsigned long long)m->messages_in);
    put(o,
        "# HELP chess_moves_total Moves played.\n"
        "# TYPE chess_moves_total counter\nchess_moves_total %llu\n",
        (unsigned long long)m->moves);
    put(o, "# HELP chess_games_finished_total Finished games by reason.\n"
           "# TYPE chess_games_finished_total counter\n");
    for (int i = 0; i < ENDING_REASONS; i++)
        put(o, "chess_games_finished_total{reason=\"%s\"} %llu\n",
            ending_get((enum ending_reason)i)->metric,
            (unsigned long long)m->finished[i]);
    put(o, "# HELP chess_messages_rejected_total Error replies by code.\n"
           "# TYPE chess_messages_rejected_total counter\n");
    for (int i = 1; i < PROTO_CODE_COUNT; i++)
        put(o, "chess_messages_rejected_total{code=\"%s\"} %llu\n",
            proto_code_name((enum proto_code)i),
            (unsigned long long)m->rejected[i]);
    put(o, "# HELP chess_store_failures_total Database operations that "
           "failed (a failed commit is retried).\n"
           "# TYPE chess_store_failures_total counter\n");
    for (int i = 0; i < STORE_FAIL_KINDS; i++)
        if (i != (st->pg ? STORE_FAIL_CHECKPOINT : STORE_FAIL_FENCED))
            put(o, "chess_store_failures_total{op=\"%s\"} %llu\n",
                store_failure_name((enum store_failure)i),
                (unsigned long long)st->failures[i]);
}

/* SQLite's database file, and what the network refused or cut. */
static void put_net(struct out *o, const struct metrics *m,
                    const struct metrics_store *st)
{
    if (!st->pg)
        put(o,
            "# HELP chess_database_file_lost 1 when the database file "
            "was deleted or replaced under the running server.\n"
            "# TYPE chess_database_file_lost gauge\n"
            "chess_database_file_lost %d\n",
            m->db_file_lost);
    put(o,
        "# HELP chess_out_queue_bytes Bytes queued for clients.\n"
        "# TYPE chess_out_queue_bytes gauge\nchess_out_queue_bytes %llu\n",
        (unsigned long long)m->net.out_queue_bytes);
    put(o,
        "# HELP chess_api_streams Open NDJSON streams of the lichess Bot "
        "and Board API.\n"
        "# TYPE chess_api_streams gauge\nchess_api_streams %llu\n",
        (unsigned long long)m->net.streams);
    put(o,
        "# HELP chess_connections_cut_total Connections closed by the "
        "server for misbehaviour.\n"
        "# TYPE chess_connections_cut_total counter\n"
        "chess_connections_cut_total{why=\"slow_reader\"} %llu\n"
        "chess_connections_cut_total{why=\"flood\"} %llu\n",
        (unsigned long long)m->net.closed_overflow,
        (unsigned long long)m->closed_flood);
    put(o,
        "# HELP chess_fairplay_flags_total Accounts flagged for moderators "
        "as likely rating farming, by reason.\n"
        "# TYPE chess_fairplay_flags_total counter\n"
        "chess_fairplay_flags_total{reason=\"short\"} %llu\n"
        "chess_fairplay_flags_total{reason=\"one_opponent\"} %llu\n",
        (unsigned long long)m->rating_suspects[0],
        (unsigned long long)m->rating_suspects[1]);
    put(o,
        "# HELP chess_upgrades_refused_total WebSocket upgrades "
        "refused.\n# TYPE chess_upgrades_refused_total counter\n"
        "chess_upgrades_refused_total{why=\"origin\"} %llu\n"
        "chess_upgrades_refused_total{why=\"max_connections\"} %llu\n"
        "chess_upgrades_refused_total{why=\"max_connections_per_ip\"} "
        "%llu\n",
        (unsigned long long)m->net.refused_origin,
        (unsigned long long)m->net.refused_full,
        (unsigned long long)m->net.refused_per_ip);
    put(o,
        "# HELP chess_http_rate_limited_total HTTP API requests "
        "refused with 429 (over http_rate_per_s).\n"
        "# TYPE chess_http_rate_limited_total counter\n"
        "chess_http_rate_limited_total %llu\n",
        (unsigned long long)m->net.refused_http_rate);
}

/* The histograms of the moves and of the loop. */
static void put_latencies(struct out *o, const struct metrics *m)
{
    put_hist(o, "chess_move_seconds", "Time to handle one move message.",
             &m->move);
    put_hist(o, "chess_move_lag_credit_seconds",
             "Lag credit given back to the mover's clock per move played "
             "(half the connection's smoothed ping round trip, within the "
             "player's quota).",
             &m->lag_credit);
    put_hist(o, "chess_move_commit_seconds",
             "Time from a move's arrival "
             "to the journal commit that lets its moved message go out.",
             &m->commit);
    put_hist(o, "chess_event_loop_lag_seconds",
             "How late a periodic "
             "timer on the event loop fires (the loop was busy or stalled).",
             &m->net.loop_lag);
}

/* WebSocket closes by code, HTTP answers by route and status. */
static void put_closes(struct out *o, const struct metrics *m)
{
    put(o, "# HELP chess_ws_closes_total Closed WebSocket connections by "
           "close code (1006: no close frame either way).\n"
           "# TYPE chess_ws_closes_total counter\n");
    for (int i = 0; i < NETSTATS_CLOSE_CODES; i++) {
        if (i < NETSTATS_CLOSE_CODES - 1)
            put(o, "chess_ws_closes_total{code=\"%d\"} %llu\n",
                netstats_close_codes[i],
                (unsigned long long)m->net.ws_closes[i]);
        else
            put(o, "chess_ws_closes_total{code=\"other\"} %llu\n",
                (unsigned long long)m->net.ws_closes[i]);
    }
    put(o, "# HELP chess_http_requests_total HTTP responses by route and "
           "status (pairs seen so far).\n"
           "# TYPE chess_http_requests_total counter\n");
    for (int r = 0; r < NETSTATS_ROUTES; r++)
        for (int i = 0; i < NETSTATS_HTTP_STATUSES; i++) {
            char status[8];
            if (!m->net.http[r][i])
                continue;
            if (i < NETSTATS_HTTP_STATUSES - 1)
                snprintf(status, sizeof status, "%d",
                         netstats_http_statuses[i]);
            else
                snprintf(status, sizeof status, "other");
            put(o,
                "chess_http_requests_total{route=\"%s\",status=\"%s\"} "
                "%llu\n",
                netstats_routes[r], status,
                (unsigned long long)m->net.http[r][i]);
        }
}

/* The engine pool's figures (all 0 on a server without engines). */
static void put_engines(struct out *o, const struct engine_pool_stats *e)
{
    static const char *const outcomes[3] = {"ok", "failed", "expired"};

    put(o,
        "# HELP chess_engines Engine processes the pool may run at once.\n"
        "# TYPE chess_engines gauge\nchess_engines %d\n"
        "# HELP chess_engines_running Engine processes running.\n"
        "# TYPE chess_engines_running gauge\nchess_engines_running %d\n"
        "# HELP chess_engine_queue Engine requests waiting for an engine.\n"
        "# TYPE chess_engine_queue gauge\nchess_engine_queue %zu\n"
        "# HELP chess_engine_restarts_total Engines killed and restarted, "
        "by fault.\n# TYPE chess_engine_restarts_total counter\n",
        e->engines, e->running, e->queued);
    for (int f = ENGINE_FAULT_NONE + 1; f < ENGINE_FAULTS; f++)
        put(o, "chess_engine_restarts_total{reason=\"%s\"} %llu\n",
            engine_fault_name((enum engine_fault)f),
            (unsigned long long)e->restarts[f]);
    put(o, "# HELP chess_engine_requests_total Engine requests answered, "
           "by outcome.\n# TYPE chess_engine_requests_total counter\n");
    for (int i = 0; i < 3; i++)
        put(o, "chess_engine_requests_total{outcome=\"%s\"} %llu\n",
            outcomes[i], (unsigned long long)e->answers[i]);
    put_hist(o, "chess_engine_think_seconds",
             "An engine's search, go to bestmove, of each answer.",
             &e->think);
}

/* A family of one gauge or counter: one sample without labels (label
 * NULL), or one per value of label (values[i] counts labels[i]). */
struct family {
    const char *name, *type, *help, *label;
    double v[3];
    const char *labels[3];
};

static void put_family(struct out *o, const struct family *f)
{
    put(o, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name,
        f->type);
    if (!f->label) {
        put(o, "%s %.15g\n", f->name, f->v[0]);
        return;
    }
    for (int i = 0; i < 3 && f->labels[i]; i++)
        put(o, "%s{%s=\"%s\"} %.15g\n", f->name, f->label, f->labels[i],
            f->v[i]);
}

/* A cluster node's own (its lease, its games and connections across
 * nodes, what it adopted, handed over, fenced, forwarded), and its
 * connection to Redis. */
static void put_cluster(struct out *o, const struct cluster_metrics *c)
{
    const struct family fams[] = {
        {"chess_cluster_leased",
         "gauge",
         "1 while this node holds its lease (renewed within the lease's "
         "length).",
         NULL,
         {c->leased},
         {NULL}},
        {"chess_cluster_lease_age_seconds",
         "gauge",
         "Time since this node's lease was last renewed (since its start "
         "while it never held one).",
         NULL,
         {(double)c->lease_age_ms / 1e3},
         {NULL}},
        {"chess_cluster_leases_lost_total",
         "counter",
         "Renewals that found this node's lease lapsed.",
         NULL,
         {(double)c->leases_lost},
         {NULL}},
        {"chess_cluster_hosted_games",
         "gauge",
         "Games hosted on this node under an epoch.",
         NULL,
         {(double)c->hosted},
         {NULL}},
        {"chess_cluster_followed_games",
         "gauge",
         "Games of other nodes followed by this node's connections.",
         NULL,
         {(double)c->followed},
         {NULL}},
        {"chess_cluster_remote_sessions",
         "gauge",
         "Connections of other nodes mirrored on this node's games.",
         NULL,
         {(double)c->remotes},
         {NULL}},
        {"chess_cluster_adoptions_in_progress",
         "gauge",
         "Adoptions under way (the take, the epoch's commit).",
         NULL,
         {(double)c->adopting},
         {NULL}},
        {"chess_cluster_adoptions_total",
         "counter",
         "Games adopted here: taken over (their host's lease lapsed, or "
         "none hosted them) or handed over by a node that stopped.",
         "how",
         {(double)c->adopted[0], (double)c->adopted[1]},
         {"takeover", "handover"}},
        {"chess_cluster_take_failures_total",
         "counter",
         "Takes of a game that failed: a new game's in Redis, or an "
         "adoption's.",
         "what",
         {(double)c->take_failed[0], (double)c->take_failed[1]},
         {"new_game", "adoption"}},
        {"chess_cluster_handovers_total",
         "counter",
         "Games this node handed to another (stopping, or balancing).",
         NULL,
         {(double)c->handed_over},
         {NULL}},
        {"chess_cluster_fences_total",
         "counter",
         "Games fenced here: another node took them while this node's "
         "lease had lapsed.",
         NULL,
         {(double)c->fenced},
         {NULL}},
        {"chess_cluster_commands_held_total",
         "counter",
         "Commands of other nodes' connections a host held, its lease in "
         "doubt, until it knew (then run or refused).",
         NULL,
         {(double)c->held},
         {NULL}},
        {"chess_cluster_commands_refused_total",
         "counter",
         "Commands of other nodes' connections a host answered busy: its "
         "lease unknown in time, the game taken from it or gone.",
         NULL,
         {(double)c->refused},
         {NULL}},
        {"chess_cluster_commands_forwarded_total",
         "counter",
         "Commands of this node's connections sent to another node's game.",
         NULL,
         {(double)c->forwarded},
         {NULL}},
        {"chess_cluster_limit_takes_total",
         "counter",
         "Tokens of the shared limits (per address, per name): taken here "
         "and told the other nodes, or taken by another node and heard "
         "here (taken from this node's bucket too).",
         "way",
         {(double)c->limit_takes[0], (double)c->limit_takes[1]},
         {"told", "heard"}},
        {"chess_cluster_dead_nodes_total",
         "counter",
         "Nodes whose lease lapsed, removed from the cluster by this "
         "node's sweep (each by one node, once its games are taken).",
         NULL,
         {(double)c->dead_nodes},
         {NULL}},
        {"chess_cluster_messages_refused_total",
         "counter",
         "Messages from other nodes refused: signature wrong or missing "
         "(forged), too old or from a clock too far ahead (stale), taken "
         "already (replayed).",
         "why",
         {(double)c->messages_refused[0], (double)c->messages_refused[1],
          (double)c->messages_refused[2]},
         {"forged", "stale", "replayed"}},
        {"chess_redis_up",
         "gauge",
         "1 while both connections to Redis are ready.",
         NULL,
         {c->bus_up},
         {NULL}},
        {"chess_redis_reconnects_total",
         "counter",
         "Times the connection to Redis came up again after a loss.",
         NULL,
         {(double)c->reconnects},
         {NULL}},
        {"chess_redis_errors_total",
         "counter",
         "Redis commands that failed: an error reply, lost with the "
         "connection, or refused while not connected.",
         "kind",
         {(double)c->bus_errors[0], (double)c->bus_errors[1],
          (double)c->bus_errors[2]},
         {"reply", "lost", "refused"}},
        {"chess_redis_queue_depth",
         "gauge",
         "Redis commands waiting for the connection (while it is down).",
         NULL,
         {(double)c->bus_queued},
         {NULL}},
        {"chess_redis_pending_commands",
         "gauge",
         "Redis commands sent and not answered yet.",
         NULL,
         {(double)c->bus_pending},
         {NULL}},
    };

    put(o,
        "# HELP chess_cluster_node_info This node's node_id and its "
        "incarnation (new at each start and after each lapse of its "
        "lease).\n# TYPE chess_cluster_node_info gauge\n"
        "chess_cluster_node_info{node=\"%s\",incarnation=\"%s\"} 1\n",
        c->node, c->incarnation);
    for (size_t i = 0; i < sizeof fams / sizeof *fams; i++)
        put_family(o, &fams[i]);
    put_hist(o, "chess_redis_round_trip_seconds",
             "Time from sending a Redis command or script to its answer "
             "(PUBLISH apart).",
             &c->round_trip);
    put_hist(o, "chess_redis_publish_seconds",
             "Time from sending a PUBLISH to Redis's answer.", &c->publish);
}

static char *metrics_render(const struct metrics *m,
                            const struct metrics_sizes *sizes,
                            const struct metrics_store *st,
                            const struct cluster_metrics *cm,
                            const struct engine_pool_stats *engines)
{
    struct out o = {malloc(4096), 0, 4096, 0};

    if (!o.buf)
        return NULL;
    o.buf[0] = '\0';
    put_process(&o);
    put_gauges(&o, m, sizes);
    put_counters(&o, m, st);
    put_net(&o, m, st);
    put_latencies(&o, m);
    put_closes(&o, m);
    put_store(&o, st);
    put_reads(&o, m, &st->reads);
    if (cm)
        put_cluster(&o, cm);
    put_engines(&o, engines);
    if (o.failed) {
        free(o.buf);
        return NULL;
    }
    return o.buf;
}

static int reply(struct http_reply *r, int status, const char *type,
                 char *body)
{
    *r = (struct http_reply){status, type, body, body ? strlen(body) : 0};
    if (!body)
        r->status = 500;
    return 0;
}

/* /healthz, from what the store's threads publish, never a query (a
 * stalled database must not stall the loop that answers): the loop
 * answers (this runs on it), the writer has committed lately (its
 * once-a-second heartbeat), the reader is not stuck in one read, and the
 * database file is still where it was opened. */
static void healthz(struct hub *h, int64_t now, struct http_reply *r)
{
    int ok = !store_stalled(hub_store(h), now) &&
             !hub_metrics(h)->db_file_lost;

    reply(r, ok ? 200 : 503, "application/json",
          proto_render_health(ok, (int64_t)hub_live_games(h),
                              hub_metrics(h)->connections));
    if (r->body)
        r->status = ok ? 200 : 503;
}

static void metrics_page(struct hub *h, struct http_reply *r)
{
    struct store *s = hub_store(h);
    struct metrics_store st;
    struct cluster_metrics cm;
    bool cluster = hub_cluster_metrics(h, &cm);

    st.pg = !strcmp(store_backend_name(s), "postgres");
    store_pg_stats(s, &st.pgs);
    st.queue_depth = store_queue_depth(s);
    store_read_stats(s, &st.reads);
    store_timing(s, &st.timing);
    store_wal_stats(s, &st.wal);
    for (int i = 0; i < STORE_FAIL_KINDS; i++)
        st.failures[i] = store_failures(s, (enum store_failure)i);
    struct metrics_sizes sizes = {hub_live_games(h), hub_open_seeks(h),
                                  hub_subscriptions(h), challenge_count(h)};
    struct engine_pool_stats engines = {0};

    if (hub_engines(h))
        engine_pool_stats(hub_engines(h), &engines);
    reply(r, 200, "text/plain; version=0.0.4",
          metrics_render(hub_metrics(h), &sizes, &st, cluster ? &cm : NULL,
                         &engines));
}

void status_readyz(const char *why, struct http_reply *r)
{
    char body[96];

    if (why)
        snprintf(body, sizeof body,
                 "{\"status\":\"not_ready\",\"why\":\"%s\"}", why);
    else
        snprintf(body, sizeof body, "{\"status\":\"ready\"}");
    reply(r, why ? 503 : 200, "application/json", strdup(body));
}

bool status_handle(struct hub *h, const char *path, int64_t now,
                   struct http_reply *r)
{
    if (!strcmp(path, "/healthz"))
        healthz(h, now, r);
    else if (!strcmp(path, "/metrics"))
        metrics_page(h, r);
    else
        return false;
    return true;
}
