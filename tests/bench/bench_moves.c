/*
 * bench_moves - nanoseconds per move for the full per-move processing the
 * server does: parse the UCI text, check legality, make the move, format
 * SAN, update the record and decide the outcome (including the static
 * dead-position analysis), over many seeded random legal games.
 *
 * usage: bench_moves [GAMES] [SEED]
 * Prints one line: games=G moves=M ns_per_move=N
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "board.h"
#include "movegen.h"
#include "notation.h"
#include "record.h"

static unsigned long long rng(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    int games = argc > 1 ? atoi(argv[1]) : 20000;
    unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    struct board start;
    board_from_fen(&start, FEN_START);

    /* First choose the games' moves as UCI text, outside the timing. */
    size_t cap = (size_t)games * 120, n = 0;
    char(*texts)[UCI_MAX] = malloc(cap * UCI_MAX);
    int *lengths = malloc((size_t)games * sizeof *lengths);
    if (!texts || !lengths)
        return 1;
    for (int g = 0; g < games; g++) {
        struct record r;
        if (record_init(&r, &start))
            return 1;
        int len = 0;
        while (len < 120 && record_outcome(&r) == OUTCOME_NONE) {
            struct movelist l;
            movegen_legal(&r.cur, &l);
            move_t m = l.moves[rng(&seed) % (unsigned)l.n];
            notation_uci(m, texts[n + (size_t)len]);
            record_push(&r, m);
            len++;
        }
        lengths[g] = len;
        n += (size_t)len;
        record_clear(&r);
    }

    double t0 = now_s();
    size_t k = 0, moves = 0, ended = 0;
    char san[SAN_MAX];
    for (int g = 0; g < games; g++) {
        struct record r;
        if (record_init(&r, &start))
            return 1;
        for (int i = 0; i < lengths[g]; i++, k++) {
            move_t m;
            if (notation_parse_uci(&r.cur, texts[k], &m) != 0)
                return 1;
            notation_san(&r.cur, m, san);
            record_push(&r, m);
            if (record_outcome(&r) != OUTCOME_NONE)
                ended++;
            moves++;
        }
        record_clear(&r);
    }
    double t = now_s() - t0;
    printf("games=%d moves=%zu ended=%zu ns_per_move=%.0f\n", games, moves,
           ended, t * 1e9 / (double)moves);
    free(texts);
    free(lengths);
    return 0;
}
