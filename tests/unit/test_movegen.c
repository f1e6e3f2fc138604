/*
 * test_movegen.c - legal move generation against the perft suite
 * (tests/data/perft.epd, sources in tests/data/README.md) and targeted
 * rule cases.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "movegen.h"
#include "notation.h"
#include "testutil.h"
#include "check_main.h"

/* Depths whose node count is at most this run in the unit tests; the
 * deeper ones run in the benchmark (tests/bench). */
#define PERFT_UNIT_MAX_NODES 20000000ull

START_TEST(perft_suite)
{
    FILE *f = testutil_open_data("perft.epd");
    char line[512];
    int checked = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = strchr(line, ';');
        ck_assert_ptr_nonnull(p);
        char fen[128];
        size_t n = (size_t)(p - line);
        while (n && line[n - 1] == ' ')
            n--;
        ck_assert(n < sizeof fen);
        memcpy(fen, line, n);
        fen[n] = '\0';
        struct board b;
        testutil_board(&b, fen);
        while (p && *p == ';') {
            int depth;
            unsigned long long want;
            ck_assert_int_eq(sscanf(p, ";D%d %llu", &depth, &want), 2);
            if (want <= PERFT_UNIT_MAX_NODES) {
                unsigned long long got = movegen_perft(&b, depth);
                ck_assert_msg(got == want, "%s depth %d: got %llu want %llu",
                              fen, depth, got, want);
                checked++;
            }
            p = strchr(p + 1, ';');
        }
    }
    fclose(f);
    ck_assert_int_ge(checked, 150);
}
END_TEST

/* Sorted, space-separated UCI moves of a position. */
static void moves_text(const char *fen, char *out)
{
    struct board b;
    struct movelist l;
    char uci[MOVES_MAX][UCI_MAX];
    testutil_board(&b, fen);
    movegen_legal(&b, &l);
    for (int i = 0; i < l.n; i++)
        notation_uci(l.moves[i], uci[i]);
    qsort(uci, (size_t)l.n, UCI_MAX,
          (int (*)(const void *, const void *))strcmp);
    out[0] = '\0';
    for (int i = 0; i < l.n; i++) {
        if (i)
            strcat(out, " ");
        strcat(out, uci[i]);
    }
}

static bool has_move(const char *fen, const char *uci)
{
    struct board b;
    move_t m;
    testutil_board(&b, fen);
    return notation_parse_uci(&b, uci, &m) == 0;
}

START_TEST(castling_rules)
{
    /* Through an attacked square (f1 by the bishop on c4): no O-O. */
    ck_assert(!has_move("4k3/8/8/8/2b5/8/8/4K2R w K - 0 1", "e1g1"));
    /* Into check (g1 by the rook on g8). */
    ck_assert(!has_move("4k1r1/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1"));
    /* Out of check. */
    ck_assert(!has_move("4k3/8/8/8/8/8/8/r3K2R w K - 0 1", "e1g1"));
    /* The rook may be attacked, and on the queen side b1 may be. */
    ck_assert(has_move("4k2r/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1"));
    ck_assert(has_move("1r2k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "e1c1"));
    /* A piece between king and rook blocks, even on b1. */
    ck_assert(!has_move("4k3/8/8/8/8/8/8/RN2K3 w Q - 0 1", "e1c1"));
}
END_TEST

START_TEST(en_passant_rules)
{
    /* Taking en passant would expose the king along the fifth rank. */
    ck_assert(!has_move("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1", "e5d6"));
    /* Legal when nothing is exposed. */
    ck_assert(has_move("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6"));
    /* En passant evades a check by the pawn that just moved. */
    ck_assert(has_move("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", "e4d3"));
}
END_TEST

START_TEST(pins_checks_and_promotions)
{
    char out[2048];
    /* Double check: only king moves. */
    moves_text("4k3/8/8/8/8/5n2/8/r3K3 w - - 0 1", out);
    ck_assert_str_eq(out, "e1e2 e1f2");
    /* A pinned rook slides along the pin only. */
    moves_text("4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1", out);
    ck_assert(strstr(out, "e2e7") && strstr(out, "e2e3") &&
              !strstr(out, "e2d2"));
    /* Promotion with capture and underpromotion. */
    moves_text("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", out);
    ck_assert(strstr(out, "a7a8n") && strstr(out, "a7b8q") &&
              strstr(out, "a7b8r") && strstr(out, "a7b8b"));
}
END_TEST

/* The most legal moves: 218 in a reachable position, more in composed
 * ones (board_from_fen refuses those, but the generator must hold every
 * board: MOVES_MAX). Each list has distinct moves, every one legal, and
 * every one makes and unmakes back to the same board. */
static const struct {
    const char *fen;
    int moves;
} most_moves[] = {
    {"R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1", 218},
    /* from issue 10 (which counts 262; this generator, the fuzzers'
     * reference generator and Stockfish 15.1 perft 1 count 263) */
    {"QQQQQQnk/Q4Qpp/Q5QQ/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1", 263},
    /* the most a hill-climbing search over composed boards found */
    {"QQQQQQBk/Q5RB/Q6Q/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1", 271},
};

START_TEST(most_moves_fit_the_list)
{
    struct board b, before;
    struct movelist l;
    struct board_undo u;
    testutil_board_any(&b, most_moves[_i].fen);
    before = b;
    ck_assert_int_eq(movegen_legal(&b, &l), most_moves[_i].moves);
    ck_assert_int_le(l.n, MOVES_MAX);
    for (int i = 0; i < l.n; i++) {
        ck_assert(movegen_is_legal(&b, l.moves[i]));
        for (int j = 0; j < i; j++)
            ck_assert_uint_ne(l.moves[i], l.moves[j]);
        board_make(&b, l.moves[i], &u);
        board_unmake(&b, l.moves[i], &u);
        ck_assert(!memcmp(&b, &before, sizeof b));
    }
    ck_assert_uint_eq(movegen_perft(&b, 1), (uint64_t)most_moves[_i].moves);
}
END_TEST

static Suite *movegen_suite(void)
{
    Suite *s = suite_create("movegen");
    TCase *tc = tcase_create("perft");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, perft_suite);
    suite_add_tcase(s, tc);
    tc = tcase_create("rules");
    tcase_add_test(tc, castling_rules);
    tcase_add_test(tc, en_passant_rules);
    tcase_add_test(tc, pins_checks_and_promotions);
    tcase_add_loop_test(tc, most_moves_fit_the_list, 0,
                        (int)(sizeof most_moves / sizeof most_moves[0]));
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(movegen_suite());
}
