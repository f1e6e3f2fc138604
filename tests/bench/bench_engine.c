/*
 * bench_engine.c - the engine pool's throughput (docs/performance.md,
 * "The computer's games"): requests a second at one of the computer's
 * levels, with that level's options and limits as hub/computer.c asks
 * them (no clock), through server/engine/pool.h with Debian's
 * Stockfish, the pool's queue kept full.
 *
 *   bench_engine LEVEL [REQUESTS] [ENGINES] [ENGINE_PATH]
 *
 * ENGINES 0 (the default): one per core, as the server's default.
 * The positions are those of a random game (seeded), each asked as a new
 * game (ucinewgame: the pool's tag changes). The first answer of each
 * engine (its start: exec, uci, the network's load) is timed apart.
 * Prints one line: level, engines, requests, seconds, requests_per_s,
 * think_p50_ms, think_p99_ms, first_answer_ms, failed, restarts.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "engine/levels.h"
#include "engine/pool.h"
#include "engine/uciproc.h"
#include "movegen.h"
#include "notation.h"

#define POSITIONS 120

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int woken;
static int answered, failed;
static int64_t *thinks;
static int64_t t_start, t_first;

static void wake(void)
{
    pthread_mutex_lock(&mu);
    woken = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

static void done(void *arg, const struct engine_answer *a)
{
    (void)arg;
    if (a->status != ENGINE_OK)
        failed++;
    if (!t_first)
        t_first = uciproc_now_ms();
    thinks[answered++] = a->think_ms;
}

/* The moves of a random game from the start (seeded), as one text:
 * prefixes of it are the positions asked. */
static void random_game(char moves[POSITIONS][POSITIONS * UCI_MAX], int *n)
{
    struct board b;
    char line[POSITIONS * UCI_MAX] = "";
    unsigned seed = 27;

    board_from_fen(&b, FEN_START);
    *n = 0;
    while (*n < POSITIONS) {
        struct movelist l;
        struct board_undo u;
        char uci[UCI_MAX];
        int k = movegen_legal(&b, &l);
        if (k <= 0)
            break;
        strcpy(moves[(*n)++], line);
        seed = seed * 1103515245u + 12345u;
        notation_uci(l.moves[(seed >> 16) % (unsigned)k], uci);
        board_make(&b, l.moves[(seed >> 16) % (unsigned)k], &u);
        if (line[0])
            strcat(line, " ");
        strcat(line, uci);
    }
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    static char moves[POSITIONS][POSITIONS * UCI_MAX];
    int level = argc > 1 ? atoi(argv[1]) : 0;
    int requests = argc > 2 ? atoi(argv[2]) : 200;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int engines = argc > 3 && atoi(argv[3]) > 0
                      ? atoi(argv[3])
                      : (int)(cores > 0 ? cores : 1);
    const char *path = argc > 4 ? argv[4] : "/usr/games/stockfish";
    const struct engine_level *l = engine_level(level);
    struct engine_pool_stats st;
    struct engine_pool *p;
    int n, asked = 0;
    uint64_t restarts = 0;

    if (!l || requests < 1) {
        fprintf(stderr, "usage: bench_engine LEVEL(1-8) [REQUESTS] "
                        "[ENGINES] [ENGINE_PATH]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    thinks = calloc((size_t)requests, sizeof *thinks);
    random_game(moves, &n);
    p = engine_pool_start(&(struct engine_pool_config){
        .path = path,
        .engines = engines,
        .queue = (size_t)engines * 4,
        .wake = wake,
    });
    if (!p || !thinks)
        return 1;
    t_start = uciproc_now_ms();
    while (answered < requests) {
        /* keep every engine busy and as many waiting */
        while (asked < requests && asked - answered < engines * 2) {
            char tag[16];
            struct engine_ask q = {
                .tag = tag,
                .moves = moves[asked % n],
                .deadline_ms = uciproc_now_ms() + 60000,
                .prio = ENGINE_PRIO_PLAY,
                .done = done,
            };
            snprintf(tag, sizeof tag, "b%d", asked);
            engine_level_ask(l, &q);
            if (engine_pool_ask(p, &q) < 0)
                break;
            asked++;
        }
        pthread_mutex_lock(&mu);
        while (!woken)
            pthread_cond_wait(&cv, &mu);
        woken = 0;
        pthread_mutex_unlock(&mu);
        engine_pool_collect(p);
    }
    int64_t ms = uciproc_now_ms() - t_start;
    engine_pool_stats(p, &st);
    for (int f = 0; f < ENGINE_FAULTS; f++)
        restarts += st.restarts[f];
    engine_pool_stop(p);
    qsort(thinks, (size_t)requests, sizeof *thinks, cmp64);
    printf("level=%d engines=%d requests=%d seconds=%.2f requests_per_s=%.2f "
           "think_p50_ms=%lld think_p99_ms=%lld first_answer_ms=%lld "
           "failed=%d restarts=%llu\n",
           level, engines, requests, ms / 1000.0, requests * 1000.0 / ms,
           (long long)thinks[requests / 2],
           (long long)thinks[requests * 99 / 100],
           (long long)(t_first - t_start), failed,
           (unsigned long long)restarts);
    free(thinks);
    return failed ? 1 : 0;
}
