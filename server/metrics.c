/*
 * metrics.c - counters and Prometheus text (see metrics.h).
 */
#include "metrics.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const reasons[METRICS_REASONS] = {
    "checkmate", "resignation", "abandoned", "timeout",
    "timeout_vs_insufficient", "stalemate", "dead_position", "fivefold",
    "seventy_five_moves", "threefold", "fifty_moves", "agreement",
    "aborted",
};

/* Upper bounds of the latency buckets, in seconds. */
static const double bounds[METRICS_BUCKETS] = {
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
    0.05, 0.1, 0.25, 0.5, 1,
};

void metrics_finished(struct metrics *m, const char *reason)
{
    for (int i = 0; i < METRICS_REASONS; i++)
        if (!strcmp(reasons[i], reason))
            m->finished[i]++;
}

void metrics_hist_add(struct metrics_hist *h, int64_t us)
{
    double s = (double)us / 1e6;
    int i = 0;

    while (i < METRICS_BUCKETS && s > bounds[i])
        i++;
    h->bucket[i]++;
    h->count++;
    h->sum += s;
}

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
                     const struct metrics_hist *h)
{
    uint64_t cum = 0;

    put(o, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
    for (int i = 0; i < METRICS_BUCKETS; i++) {
        cum += h->bucket[i];
        put(o, "%s_bucket{le=\"%g\"} %llu\n", name, bounds[i],
            (unsigned long long)cum);
    }
    cum += h->bucket[METRICS_BUCKETS];
    put(o, "%s_bucket{le=\"+Inf\"} %llu\n%s_sum %.6f\n%s_count %llu\n",
        name, (unsigned long long)cum, name, h->sum, name,
        (unsigned long long)h->count);
}

/* A histogram of the store's (microseconds, its own bounds). */
static void put_store_hist(struct out *o, const char *name,
                           const char *help, const struct store_hist *h)
{
    uint64_t cum = 0;

    put(o, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
    for (int i = 0; i < STORE_HIST_BUCKETS; i++) {
        cum += h->bucket[i];
        put(o, "%s_bucket{le=\"%g\"} %llu\n", name,
            (double)store_hist_bounds_us[i] / 1e6, (unsigned long long)cum);
    }
    cum += h->bucket[STORE_HIST_BUCKETS];
    put(o, "%s_bucket{le=\"+Inf\"} %llu\n%s_sum %.6f\n%s_count %llu\n",
        name, (unsigned long long)cum, name, (double)h->sum_us / 1e6, name,
        (unsigned long long)h->count);
}

/* The journal writer: where a commit's time goes, and the WAL. */
static void put_store(struct out *o, const struct metrics_store *st)
{
    put(o, "# HELP chess_store_queue_depth Store writes queued, not yet "
            "committed.\n# TYPE chess_store_queue_depth gauge\n"
            "chess_store_queue_depth %zu\n", st->queue_depth);
    put_store_hist(o, "chess_store_queue_wait_seconds", "Time the oldest "
                   "write of a journal transaction waited in the queue "
                   "before the transaction began.", &st->timing.queue);
    put_store_hist(o, "chess_store_checkpoint_wait_seconds", "Time the "
                   "journal writer waited for a checkpoint pass, the WAL "
                   "being at its cap (one sample per wait).",
                   &st->timing.ckpt_wait);
    put_store_hist(o, "chess_store_statements_seconds", "Time a journal "
                   "transaction took from BEGIN to its COMMIT statement.",
                   &st->timing.statements);
    put_store_hist(o, "chess_store_commit_seconds", "Time the COMMIT "
                   "statement of a journal transaction took.",
                   &st->timing.commit);
    put(o, "# HELP chess_store_retries_total Journal transactions rolled "
            "back and tried again.\n"
            "# TYPE chess_store_retries_total counter\n"
            "chess_store_retries_total %llu\n",
        (unsigned long long)st->timing.retries);
    put(o, "# HELP chess_store_checkpoints_total Checkpoint passes of the "
            "WAL into the database file.\n"
            "# TYPE chess_store_checkpoints_total counter\n"
            "chess_store_checkpoints_total %llu\n",
        (unsigned long long)st->wal.checkpoints);
    put(o, "# HELP chess_store_wal_restarts_total Commits that started the "
            "WAL over.\n# TYPE chess_store_wal_restarts_total counter\n"
            "chess_store_wal_restarts_total %llu\n",
        (unsigned long long)st->wal.wal_restarts);
    put(o, "# HELP chess_store_wal_frames Pages in the WAL after the last "
            "commit.\n# TYPE chess_store_wal_frames gauge\n"
            "chess_store_wal_frames %d\n", st->wal.wal_frames);
}

char *metrics_render(const struct metrics *m, size_t live_games,
                     size_t open_seeks, const struct metrics_store *st)
{
    struct out o = {malloc(4096), 0, 4096, 0};

    if (!o.buf)
        return NULL;
    o.buf[0] = '\0';
    put(&o, "# HELP chess_connections Open WebSocket connections.\n"
            "# TYPE chess_connections gauge\nchess_connections %lld\n",
        (long long)m->connections);
    put(&o, "# HELP chess_connections_total WebSocket connections accepted."
            "\n# TYPE chess_connections_total counter\n"
            "chess_connections_total %llu\n",
        (unsigned long long)m->connections_total);
    put(&o, "# HELP chess_live_games Games waiting or being played.\n"
            "# TYPE chess_live_games gauge\nchess_live_games %zu\n",
        live_games);
    put(&o, "# HELP chess_open_seeks Seeks waiting for an opponent.\n"
            "# TYPE chess_open_seeks gauge\nchess_open_seeks %zu\n",
        open_seeks);
    put(&o, "# HELP chess_messages_total Client text messages received.\n"
            "# TYPE chess_messages_total counter\nchess_messages_total %llu\n",
        (unsigned long long)m->messages_in);
    put(&o, "# HELP chess_moves_total Moves played.\n"
            "# TYPE chess_moves_total counter\nchess_moves_total %llu\n",
        (unsigned long long)m->moves);
    put(&o, "# HELP chess_games_finished_total Finished games by reason.\n"
            "# TYPE chess_games_finished_total counter\n");
    for (int i = 0; i < METRICS_REASONS; i++)
        put(&o, "chess_games_finished_total{reason=\"%s\"} %llu\n",
            reasons[i], (unsigned long long)m->finished[i]);
    put(&o, "# HELP chess_messages_rejected_total Error replies by code.\n"
            "# TYPE chess_messages_rejected_total counter\n");
    for (int i = 1; i < PROTO_CODE_COUNT; i++)
        put(&o, "chess_messages_rejected_total{code=\"%s\"} %llu\n",
            proto_code_name((enum proto_code)i),
            (unsigned long long)m->rejected[i]);
    put(&o, "# HELP chess_out_queue_bytes Bytes queued for clients.\n"
            "# TYPE chess_out_queue_bytes gauge\nchess_out_queue_bytes %llu\n",
        (unsigned long long)m->out_queue_bytes);
    put(&o, "# HELP chess_connections_cut_total Connections closed by the "
            "server for misbehaviour.\n"
            "# TYPE chess_connections_cut_total counter\n"
            "chess_connections_cut_total{why=\"slow_reader\"} %llu\n"
            "chess_connections_cut_total{why=\"flood\"} %llu\n",
        (unsigned long long)m->closed_overflow,
        (unsigned long long)m->closed_flood);
    put(&o, "# HELP chess_upgrades_refused_total WebSocket upgrades "
            "refused.\n# TYPE chess_upgrades_refused_total counter\n"
            "chess_upgrades_refused_total{why=\"origin\"} %llu\n"
            "chess_upgrades_refused_total{why=\"max_connections\"} %llu\n"
            "chess_upgrades_refused_total{why=\"max_connections_per_ip\"} "
            "%llu\n",
        (unsigned long long)m->refused_origin,
        (unsigned long long)m->refused_full,
        (unsigned long long)m->refused_per_ip);
    put_hist(&o, "chess_move_seconds", "Time to handle one move message.",
             &m->move);
    put_hist(&o, "chess_move_commit_seconds", "Time from a move's arrival "
             "to the journal commit that lets its moved message go out.",
             &m->commit);
    put_store(&o, st);
    if (o.failed) {
        free(o.buf);
        return NULL;
    }
    return o.buf;
}
