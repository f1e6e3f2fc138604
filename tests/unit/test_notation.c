/*
 * test_notation.c - UCI and SAN formatting and parsing.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "movegen.h"
#include "notation.h"
#include "testutil.h"
#include "check_main.h"

static void san_of(const char *fen, const char *uci, const char *want)
{
    struct board b;
    move_t m;
    char san[SAN_MAX];
    testutil_board(&b, fen);
    ck_assert_msg(notation_parse_uci(&b, uci, &m) == 0, "illegal %s", uci);
    notation_san(&b, m, san);
    ck_assert_str_eq(san, want);
    move_t back;
    ck_assert_int_eq(notation_parse_san(&b, san, &back), 0);
    ck_assert_uint_eq(back, m);
}

START_TEST(san_cases)
{
    const char *queens = "4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1";
    san_of(queens, "a1b2", "Qa1b2");
    san_of(queens, "a3b2", "Q3b2");
    san_of(queens, "c1b2", "Qcb2");
    san_of("4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1", "b1d2", "Nbd2");
    san_of("4k3/8/8/6N1/8/8/8/4K1N1 w - - 0 1", "g1f3", "N1f3");
    /* Only one knight can go there: no disambiguation (the other is
     * pinned). */
    san_of("4k3/8/8/8/8/8/4N3/r2NK3 w - - 0 1", "e2c3", "Nc3");
    san_of("rnbqkbnr/pppp1ppp/8/4p3/4P3/5Q2/PPPP1PPP/RNB1KBNR w KQkq - 0 1",
           "f3f7", "Qxf7+");
    san_of(
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 0 1",
        "h5f7", "Qxf7#");
    san_of("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", "O-O");
    san_of("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8", "O-O-O");
    san_of("r3k3/8/8/8/8/8/8/3K4 b q - 0 1", "e8c8", "O-O-O+");
    san_of("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q", "axb8=Q+");
    san_of("1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8n", "a8=N");
    san_of("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", "exd6");
}
END_TEST

START_TEST(san_parse_variants_and_errors)
{
    struct board b;
    move_t m, want;
    testutil_board(&b, FEN_START);
    ck_assert_int_eq(notation_parse_uci(&b, "g1f3", &want), 0);
    ck_assert_int_eq(notation_parse_san(&b, "Nf3", &m), 0);
    ck_assert_uint_eq(m, want);
    ck_assert_int_eq(notation_parse_san(&b, "Ng1f3!?", &m), 0);
    ck_assert_uint_eq(m, want);
    ck_assert_int_eq(notation_parse_san(&b, "Nf4", &m), -2);
    ck_assert_int_eq(notation_parse_san(&b, "Zf3", &m), -1);
    ck_assert_int_eq(notation_parse_san(&b, "", &m), -1);
    ck_assert_int_eq(notation_parse_san(&b, "O-O", &m), -2);
    testutil_board(&b, "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
    ck_assert_int_eq(notation_parse_san(&b, "Nd2", &m), -3);
    testutil_board(&b, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    ck_assert_int_eq(notation_parse_san(&b, "0-0-0", &m), 0);
    ck_assert_int_eq(MOVE_KIND(m), MOVE_CASTLING);
    ck_assert_int_eq(MOVE_TO(m), SQ(2, 0));
}
END_TEST

START_TEST(uci_parse_and_errors)
{
    struct board b;
    move_t m;
    char buf[UCI_MAX];
    testutil_board(&b, FEN_START);
    ck_assert_int_eq(notation_parse_uci(&b, "e2e4", &m), 0);
    notation_uci(m, buf);
    ck_assert_str_eq(buf, "e2e4");
    ck_assert_int_eq(notation_parse_uci(&b, "e2e5", &m), -2);
    ck_assert_int_eq(notation_parse_uci(&b, "e2e4q", &m), -2);
    ck_assert_int_eq(notation_parse_uci(&b, "E2E4", &m), -1);
    ck_assert_int_eq(notation_parse_uci(&b, "e2e", &m), -1);
    ck_assert_int_eq(notation_parse_uci(&b, "e2e4k", &m), -1);
    ck_assert_int_eq(notation_parse_uci(&b, "i2e4", &m), -1);
    ck_assert_int_eq(notation_parse_uci(&b, "e2e4qq", &m), -1);
}
END_TEST

/* Every legal move along many random games: SAN parses back to itself
 * and UCI parses back to itself. */
START_TEST(round_trips_over_random_games)
{
    unsigned long long seed = 777;
    long checked = 0;
    for (int game = 0; game < 100; game++) {
        struct board b;
        testutil_board(&b, FEN_START);
        for (int ply = 0; ply < 200; ply++) {
            struct movelist l;
            if (movegen_legal(&b, &l) == 0)
                break;
            for (int i = 0; i < l.n; i++) {
                char san[SAN_MAX], uci[UCI_MAX];
                move_t back;
                notation_san(&b, l.moves[i], san);
                ck_assert_int_eq(notation_parse_san(&b, san, &back), 0);
                ck_assert_uint_eq(back, l.moves[i]);
                notation_uci(l.moves[i], uci);
                ck_assert_int_eq(notation_parse_uci(&b, uci, &back), 0);
                ck_assert_uint_eq(back, l.moves[i]);
                checked++;
            }
            struct board_undo u;
            board_make(&b, l.moves[testutil_rand(&seed) % (unsigned)l.n], &u);
        }
    }
    ck_assert_int_gt(checked, 50000);
}
END_TEST

static int cmp_uci(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* notation_sort_uci(l) in strcmp order of the UCI texts, every move kept
 * once; the texts in *out are those of the sorted list. */
static void assert_sorted_like_strcmp(struct movelist *l, const char *what)
{
    static char want[MOVES_MAX][UCI_MAX];
    char got[UCI_MAX], *end;

    for (int i = 0; i < l->n; i++)
        notation_uci(l->moves[i], want[i]);
    qsort(want, (size_t)l->n, UCI_MAX, cmp_uci);
    notation_sort_uci(l->moves, l->n);
    for (int i = 0; i < l->n; i++) {
        end = notation_uci_put(l->moves[i], got);
        *end = '\0';
        ck_assert_msg(!strcmp(got, want[i]), "%s: move %d is %s, not %s",
                      what, i, got, want[i]);
    }
}

/* The UCI sort orders files before ranks and promotions b < n < q < r,
 * in positions with every kind of move, along random games, and in the
 * position with the most moves a board can hold (263, past the counting
 * sort's per-square and per-list sizes of a game). */
START_TEST(uci_sort_is_byte_order)
{
    static const char *const fens[] = {
        FEN_START,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 "
        "1",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N w - - 0 1",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
        "7k/8/8/8/8/8/8/K7 w - - 0 1",
    };
    unsigned long long seed = 4242;
    struct movelist l;
    struct board b;

    for (size_t f = 0; f < sizeof fens / sizeof fens[0]; f++) {
        testutil_board(&b, fens[f]);
        movegen_legal(&b, &l);
        assert_sorted_like_strcmp(&l, fens[f]);
    }
    testutil_board_any(
        &b, "QQQQQQnk/Q4Qpp/Q5QQ/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1");
    ck_assert_int_eq(movegen_legal(&b, &l), 263);
    assert_sorted_like_strcmp(&l, "263 moves");
    l.n = 0;
    notation_sort_uci(l.moves, 0);
    for (int game = 0; game < 50; game++) {
        testutil_board(&b, fens[game % 5]);
        for (int ply = 0; ply < 150 && movegen_legal(&b, &l) > 0; ply++) {
            struct board_undo u;
            move_t m = l.moves[testutil_rand(&seed) % (unsigned)l.n];
            assert_sorted_like_strcmp(&l, "random game");
            board_make(&b, m, &u);
        }
    }
}
END_TEST

static Suite *notation_suite(void)
{
    Suite *s = suite_create("notation");
    TCase *tc = tcase_create("notation");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, san_cases);
    tcase_add_test(tc, san_parse_variants_and_errors);
    tcase_add_test(tc, uci_parse_and_errors);
    tcase_add_test(tc, round_trips_over_random_games);
    tcase_add_test(tc, uci_sort_is_byte_order);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(notation_suite());
}
