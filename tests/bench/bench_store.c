/*
 * bench_store - the journal's commit latency under a steady stream of
 * moves, through the server's own store (server/store/): its writer
 * thread, its checkpointer and the WAL's cap, on a real file.
 *
 *   bench_store [--moves N] [--games G] [--rate R] [--dir DIR]
 *
 * G games (default 9,000, as the open-loop benchmark) are created, then N
 * moves (default 100,000) are queued round robin over them, one ply each
 * in turn (so commits touch pages all over the moves table, as the
 * server's do). With --rate 0 (the default) each move is queued once the
 * previous one has committed: back-to-back single-move commits. With
 * --rate R, moves are queued R a second on a fixed schedule whatever the
 * commits do (open loop; the writer then batches what queued meanwhile).
 * A move's latency runs from its store_put_move to the commit that covers
 * it (seen by the writer's on_commit callback). The database is created
 * in a new folder under DIR (default: the current folder, so that it is
 * on the disk being measured; /tmp may be memory) and removed at the end.
 *
 * Prints one line: moves, elapsed time, commit latency p50/p99/p99.9/max
 * in microseconds, the writer's checkpoint waits (count, total and mean),
 * the checkpointer's passes, the WAL's restarts and its largest size in
 * frames (all from store_wal_stats, so that the same file measures an
 * older store.c too).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "loadgen_hist.h"
#include "store/store.h"
#include "sysclock.h"

/* Shared between the main thread and the writer's on_commit. */
struct bench {
    struct store *store;
    int64_t *put_us; /* by sequence number; 0: not a move */
    size_t n_seq;
    uint64_t seen;      /* sequence numbers measured so far (writer) */
    struct lg_hist lat; /* written by the writer thread only */
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* The writer thread, after each commit: measures every move it covers. */
static void on_commit(void *arg)
{
    struct bench *b = arg;
    uint64_t upto = store_committed(b->store);
    int64_t t = sysclock_us(CLOCK_MONOTONIC);

    for (uint64_t seq = b->seen + 1; seq <= upto && seq < b->n_seq; seq++) {
        int64_t put = b->put_us[seq]; /* written before store_put_move,
                                          whose lock orders it */
        if (put)
            lg_hist_record(&b->lat, (uint64_t)(t - put));
    }
    b->seen = upto;
    pthread_mutex_lock(&b->mu);
    pthread_cond_signal(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

static void wait_committed(struct bench *b, uint64_t seq)
{
    pthread_mutex_lock(&b->mu);
    while (store_committed(b->store) < seq)
        pthread_cond_wait(&b->cv, &b->mu);
    pthread_mutex_unlock(&b->mu);
}

static void sleep_until_us(int64_t t)
{
    struct timespec ts = {(time_t)(t / 1000000), (long)(t % 1000000) * 1000};

    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
           EINTR)
        ;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_store [--moves N] [--games G] "
                    "[--rate R] [--dir DIR]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"moves", required_argument, NULL, 'n'},
        {"games", required_argument, NULL, 'g'},
        {"rate", required_argument, NULL, 'r'},
        {"dir", required_argument, NULL, 'd'},
        {NULL, 0, NULL, 0},
    };
    long moves = 100000, games = 9000;
    double rate = 0;
    const char *dir = ".";
    char folder[PATH_MAX], path[PATH_MAX + 16], err[256];
    struct bench b;
    struct store_wal_stats ws;
    int c, *ply;
    int64_t t0, t1;
    uint64_t last = 0;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            moves = strtol(optarg, NULL, 10);
            break;
        case 'g':
            games = strtol(optarg, NULL, 10);
            break;
        case 'r':
            rate = strtod(optarg, NULL);
            break;
        case 'd':
            dir = optarg;
            break;
        default:
            usage();
        }
    }
    if (optind != argc || moves < 1 || games < 1 || games > 1000000 ||
        rate < 0)
        usage();
    snprintf(folder, sizeof folder, "%s/bench-store-XXXXXX", dir);
    if (!mkdtemp(folder)) {
        perror(folder);
        return 1;
    }
    snprintf(path, sizeof path, "%s/chess.db", folder);

    memset(&b, 0, sizeof b);
    pthread_mutex_init(&b.mu, NULL);
    pthread_cond_init(&b.cv, NULL);
    b.n_seq = (size_t)(moves + 3 * games + 16);
    b.put_us = calloc(b.n_seq, sizeof *b.put_us);
    ply = calloc((size_t)games, sizeof *ply);
    if (!b.put_us || !ply) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    if (store_open(&b.store, path, on_commit, &b, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }

    /* the games, each with its two players, committed before measuring */
    for (long g = 0; g < games; g++) {
        struct store_player p[2];
        struct store_game row;

        memset(p, 0, sizeof p);
        memset(&row, 0, sizeof row);
        for (int i = 0; i < 2; i++) {
            snprintf(p[i].pid, sizeof p[i].pid, "p%031ld", 2 * g + i);
            snprintf(p[i].name, sizeof p[i].name, "guest%d",
                     (int)(2 * g + i));
            memcpy(p[i].token_hash, p[i].pid, 32);
            p[i].created_ms = 1700000000000;
            if (!store_put_player(b.store, &p[i]))
                wait_committed(&b, store_queued(b.store));
        }
        snprintf(row.gid, sizeof row.gid, "g%031ld", g);
        snprintf(row.white_pid, sizeof row.white_pid, "%s", p[0].pid);
        snprintf(row.white_name, sizeof row.white_name, "%s", p[0].name);
        snprintf(row.black_pid, sizeof row.black_pid, "%s", p[1].pid);
        snprintf(row.black_name, sizeof row.black_name, "%s", p[1].name);
        row.clock.initial_s = 300;
        row.clock.increment_s = 2;
        snprintf(row.initial_fen, sizeof row.initial_fen, "%s",
                 "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        snprintf(row.status, sizeof row.status, "started");
        row.created_ms = row.started_ms = 1700000000000;
        row.white_ms = row.black_ms = 300000;
        if (!store_put_game(b.store, &row))
            return 1;
    }
    wait_committed(&b, store_queued(b.store));
    /* (the set-up's own waits are not part of the figures) */
    sleep(1);
    store_wal_stats(b.store, &ws);
    {
        struct store_wal_stats ws0 = ws;

        t0 = sysclock_us(CLOCK_MONOTONIC);
        for (long i = 0; i < moves; i++) {
            struct store_move m;
            long g = i % games;
            uint64_t seq;
            char gid[33];

            memset(&m, 0, sizeof m);
            m.ply = ++ply[g];
            snprintf(m.uci, sizeof m.uci, "e2e4");
            snprintf(m.san, sizeof m.san, "e4");
            m.white_ms = 300000 - m.ply * 100;
            m.black_ms = 300000 - m.ply * 90;
            m.wall_ms = 1700000001000 + i;
            if (rate > 0)
                sleep_until_us(t0 + (int64_t)((double)i * 1e6 / rate));
            /* The sequence number is known only once queued; the next
             * one is this one's (one thread queues). */
            seq = store_queued(b.store) + 1;
            if (seq < b.n_seq)
                b.put_us[seq] = sysclock_us(CLOCK_MONOTONIC);
            snprintf(gid, sizeof gid, "g%031ld", g);
            last = store_put_move(b.store, gid, &m);
            if (!last) {
                fprintf(stderr, "queue full at move %ld\n", i);
                return 1;
            }
            if (rate == 0)
                wait_committed(&b, last);
        }
        wait_committed(&b, last);
        t1 = sysclock_us(CLOCK_MONOTONIC);
        store_wal_stats(b.store, &ws);
        ws.writer_waits -= ws0.writer_waits;
        ws.writer_wait_us -= ws0.writer_wait_us;
        ws.wal_restarts -= ws0.wal_restarts;
        ws.checkpoints -= ws0.checkpoints;
    }
    store_close(b.store);

    printf("moves=%ld games=%ld rate=%.0f elapsed_s=%.2f moves_per_s=%.0f "
           "commit_p50_us=%llu commit_p99_us=%llu commit_p999_us=%llu "
           "commit_max_us=%llu ckpt_waits=%llu ckpt_wait_total_us=%lld "
           "ckpt_wait_mean_us=%lld checkpoints=%llu wal_restarts=%llu "
           "wal_frames_max=%d\n",
           moves, games, rate, (double)(t1 - t0) / 1e6,
           (double)moves * 1e6 / (double)(t1 - t0),
           (unsigned long long)lg_hist_quantile(&b.lat, 0.5),
           (unsigned long long)lg_hist_quantile(&b.lat, 0.99),
           (unsigned long long)lg_hist_quantile(&b.lat, 0.999),
           (unsigned long long)b.lat.max, (unsigned long long)ws.writer_waits,
           (long long)ws.writer_wait_us,
           (long long)(ws.writer_waits
                           ? ws.writer_wait_us / (int64_t)ws.writer_waits
                           : 0),
           (unsigned long long)ws.checkpoints,
           (unsigned long long)ws.wal_restarts, ws.wal_frames_max);

    snprintf(path, sizeof path, "%s/chess.db", folder);
    unlink(path);
    snprintf(path, sizeof path, "%s/chess.db-wal", folder);
    unlink(path);
    snprintf(path, sizeof path, "%s/chess.db-shm", folder);
    unlink(path);
    rmdir(folder);
    free(b.put_us);
    free(ply);
    pthread_cond_destroy(&b.cv);
    pthread_mutex_destroy(&b.mu);
    return 0;
}
