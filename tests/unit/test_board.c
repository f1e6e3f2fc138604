/*
 * test_board.c - FEN parsing and formatting, make/unmake, Zobrist keys.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "movegen.h"
#include "testutil.h"
#include "check_main.h"

START_TEST(fen_round_trips_the_perft_suite)
{
    FILE *f = testutil_open_data("perft.epd");
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        char *semi = strchr(line, ';');
        ck_assert_ptr_nonnull(semi);
        while (semi > line && semi[-1] == ' ')
            semi--;
        *semi = '\0';
        struct board b;
        char out[FEN_MAX];
        testutil_board(&b, line);
        board_to_fen(&b, out);
        /* The suite has effective en-passant squares only, so text and
         * round trip must agree exactly. */
        ck_assert_str_eq(out, line);
        n++;
    }
    fclose(f);
    ck_assert_int_eq(n, 44);
}
END_TEST

static const struct {
    const char *fen;
    int err;
} bad_fens[] = {
    {"", FEN_ERR_FIELDS},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -", FEN_ERR_FIELDS},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 x",
     FEN_ERR_FIELDS},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
     FEN_ERR_PIECE},
    {"rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     FEN_ERR_RANK_LONG},
    {"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     FEN_ERR_RANK_LONG},
    {"rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     FEN_ERR_RANK_SHORT},
    {"rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", FEN_ERR_RANKS},
    {"rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
     FEN_ERR_RANKS},
    {"rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", FEN_ERR_KINGS},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKKNR w kq - 0 1", FEN_ERR_KINGS},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP w kq - 0 1",
     FEN_ERR_PAWN_RANK},
    {"pnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
     FEN_ERR_PAWN_RANK},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
     FEN_ERR_SIDE},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1",
     FEN_ERR_CASTLING},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w QK - 0 1",
     FEN_ERR_CASTLING},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",
     FEN_ERR_CASTLING_POS},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1", FEN_ERR_KINGS},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", FEN_ERR_EP},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",
     FEN_ERR_EP_POS},
    /* White to move, so the en-passant square must be on rank 6 behind a
     * black pawn that just moved; d6 has no pawn on d5 here. */
    {"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 1",
     FEN_ERR_EP_POS},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
     FEN_ERR_HALFMOVE},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0",
     FEN_ERR_FULLMOVE},
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -3",
     FEN_ERR_FULLMOVE},
    /* Black in check with White to move. */
    {"4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", FEN_ERR_OPP_CHECK},
    /* Three checkers; two knights; two rooks on one line. */
    {"4k3/8/8/8/8/3n1n2/4r3/4K3 w - - 0 1", FEN_ERR_CHECKERS},
    {"4k3/8/8/8/8/3n1n2/8/4K3 w - - 0 1", FEN_ERR_CHECKERS},
    /* Material no game reaches: 263 legal moves with 26 queens; 9 pawns;
     * 17 pieces; a second queen, a third rook or knight, a second bishop
     * on one square colour (f1 and h1 are light) with all 8 pawns, for
     * either side; 3 promoted pieces with 6 pawns. */
    {"QQQQQQnk/Q4Qpp/Q5QQ/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1",
     FEN_ERR_MATERIAL},
    {"4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1", FEN_ERR_MATERIAL},
    {"4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1", FEN_ERR_MATERIAL},
    {"4k3/8/8/8/8/1N6/PPPPPPPP/RNBQKBNR w KQ - 0 1", FEN_ERR_MATERIAL},
    {"4k3/8/8/8/3Q4/8/PPPPPPPP/3QK3 w - - 0 1", FEN_ERR_MATERIAL},
    {"4k3/8/8/8/8/8/PPPPPPPP/R3K1RR w - - 0 1", FEN_ERR_MATERIAL},
    {"4k3/8/8/8/8/8/PPPPPPPP/1NN1K1N1 w - - 0 1", FEN_ERR_MATERIAL},
    {"4k3/8/8/8/8/8/PPPPPPPP/4KB1B w - - 0 1", FEN_ERR_MATERIAL},
    {"2b1kb1b/pppppppp/8/8/8/8/8/4K3 w - - 0 1", FEN_ERR_MATERIAL},
    {"2b1k3/ppp1pp1p/8/8/8/8/8/qqqqK3 w - - 0 1", FEN_ERR_MATERIAL},
};

/* The most material each rule allows; all reachable by promotions. */
static const char *const material_edges[] = {
    /* 218 legal moves, the most known in a reachable position. */
    "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
    FEN_START,
    /* 9 queens and no pawns; with 6 pawns two promoted pieces: a queen
     * and a rook, two knights, two light bishops (b1, f1, h1). */
    "QQQQ1QQQ/8/8/8/3k4/8/Q7/K7 b - - 0 1",
    "4k3/8/8/8/3Q4/8/PPPPPP2/RN1QK1RR w - - 0 1",
    "1nbnkbnn/ppp2ppp/8/8/8/8/8/4KB1B w - - 0 1",
    "4k3/8/8/8/8/8/PPPPPP2/1BB1KB1B w - - 0 1",
};

START_TEST(fen_accepts_the_most_material_a_game_reaches)
{
    const char *fen = material_edges[_i];
    struct board b, any;
    char out[FEN_MAX];
    testutil_board(&b, fen);
    board_to_fen(&b, out);
    ck_assert_str_eq(out, fen);
    ck_assert_int_eq(board_from_fen_any_material(&any, fen), FEN_OK);
    ck_assert(!memcmp(&any, &b, sizeof b));
}
END_TEST

/* Composed material is refused by board_from_fen only: every other check
 * still applies to board_from_fen_any_material, and the board is the same
 * a legal position would give. */
START_TEST(any_material_keeps_every_other_check)
{
    struct board b;
    char out[FEN_MAX];
    const char *queens =
        "QQQQQQnk/Q4Qpp/Q5QQ/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1";
    ck_assert_int_eq(board_from_fen_any_material(&b, queens), FEN_OK);
    board_to_fen(&b, out);
    ck_assert_str_eq(out, queens);
    ck_assert_int_eq(board_from_fen_any_material(
                         &b,
                         "QQQQQQnk/Q4Qpp/Q5QQ/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w KQ "
                         "- 0 1"),
                     FEN_ERR_CASTLING_POS);
    ck_assert_int_eq(board_from_fen_any_material(
                         &b, "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 x"),
                     FEN_ERR_FULLMOVE);
    for (size_t i = 0; i < sizeof bad_fens / sizeof bad_fens[0]; i++)
        if (bad_fens[i].err != FEN_ERR_MATERIAL)
            ck_assert_int_eq(board_from_fen_any_material(&b, bad_fens[i].fen),
                             bad_fens[i].err);
}
END_TEST

/* The longest FEN: every rank written with 8 characters, all castling
 * rights, and both clocks counted on past 9999 by a quiet move: 92
 * characters and the terminator. */
START_TEST(longest_fen_fits_fen_max)
{
    struct board b;
    char out[FEN_MAX + 16];
    testutil_board_any(&b, "rnbqkbnr/pppppppp/1p1p1p1p/p1p1p1p1/1P1P1P1P/"
                           "P1P1P1P1/PPPPPPPP/RNBQKBNR b KQkq - 9999 9999");
    testutil_play(&b, "b8a6");
    memset(out, 'x', sizeof out);
    board_to_fen(&b, out);
    ck_assert_str_eq(out, "r1bqkbnr/pppppppp/np1p1p1p/p1p1p1p1/1P1P1P1P/"
                          "P1P1P1P1/PPPPPPPP/RNBQKBNR w KQkq - 10000 10000");
    ck_assert_uint_lt(strlen(out), FEN_MAX);
}
END_TEST

START_TEST(fen_rejects_each_malformed_case)
{
    struct board b;
    int err = board_from_fen(&b, bad_fens[_i].fen);
    ck_assert_msg(err == bad_fens[_i].err, "%s: got %d (%s), want %d",
                  bad_fens[_i].fen, err, board_fen_strerror(err),
                  bad_fens[_i].err);
    ck_assert_str_ne(board_fen_strerror(err), "invalid FEN");
}
END_TEST

START_TEST(fen_null_and_garbage_never_crash)
{
    struct board b;
    ck_assert_int_eq(board_from_fen(&b, NULL), FEN_ERR_FIELDS);
    ck_assert_int_lt(board_from_fen(&b, "\xff\xfe / / / / /"), 0);
    ck_assert_int_lt(board_from_fen(&b, "8/8/8/8/8/8/8/8 w - - 0 1"), 0);
    ck_assert_int_lt(board_from_fen(&b, "        "), 0);
}
END_TEST

START_TEST(ineffective_en_passant_is_dropped)
{
    struct board b;
    char out[FEN_MAX];
    /* After 1.e4 no black pawn can take: the square is not written. */
    testutil_board(&b, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b "
                       "KQkq e3 0 1");
    board_to_fen(&b, out);
    ck_assert_str_eq(out,
                     "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq "
                     "- 0 1");
    /* A capture that would expose the king along the rank is illegal,
     * so the right is not effective either. */
    testutil_board(&b, "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1");
    ck_assert_int_eq(b.ep, SQ_NONE);
    /* A legal capture keeps it. */
    testutil_board(&b, "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
    ck_assert_int_eq(b.ep, SQ(3, 5));
}
END_TEST

START_TEST(make_unmake_restores_everything)
{
    unsigned long long seed = 12345;
    for (int game = 0; game < 50; game++) {
        struct board b;
        testutil_board(&b, FEN_START);
        for (int ply = 0; ply < 120; ply++) {
            struct movelist l;
            if (movegen_legal(&b, &l) == 0)
                break;
            for (int i = 0; i < l.n; i++) {
                struct board copy = b;
                struct board_undo u;
                board_make(&b, l.moves[i], &u);
                /* Incremental key equals the key of the same FEN. */
                char fen[FEN_MAX];
                struct board fresh;
                board_to_fen(&b, fen);
                testutil_board(&fresh, fen);
                ck_assert_uint_eq(fresh.key, b.key);
                ck_assert(memcmp(fresh.squares, b.squares, 64) == 0);
                board_unmake(&b, l.moves[i], &u);
                ck_assert(memcmp(&copy, &b, sizeof b) == 0);
            }
            struct board_undo u;
            board_make(&b, l.moves[testutil_rand(&seed) % (unsigned)l.n], &u);
        }
    }
}
END_TEST

START_TEST(clocks_and_counters)
{
    struct board b;
    char out[FEN_MAX];
    testutil_board(&b, FEN_START);
    testutil_play(&b, "g1f3 g8f6 f3g1");
    board_to_fen(&b, out);
    ck_assert_str_eq(out, "rnbqkb1r/pppppppp/5n2/8/8/8/PPPPPPPP/RNBQKBNR b "
                          "KQkq - 3 2");
    testutil_play(&b, "e7e5");
    ck_assert_int_eq(b.halfmove, 0);
    ck_assert_int_eq(b.fullmove, 3);
}
END_TEST

static Suite *board_suite(void)
{
    Suite *s = suite_create("board");
    TCase *tc = tcase_create("fen");
    tcase_add_test(tc, fen_round_trips_the_perft_suite);
    tcase_add_loop_test(tc, fen_rejects_each_malformed_case, 0,
                        (int)(sizeof bad_fens / sizeof bad_fens[0]));
    tcase_add_test(tc, fen_null_and_garbage_never_crash);
    tcase_add_loop_test(
        tc, fen_accepts_the_most_material_a_game_reaches, 0,
        (int)(sizeof material_edges / sizeof material_edges[0]));
    tcase_add_test(tc, any_material_keeps_every_other_check);
    tcase_add_test(tc, longest_fen_fits_fen_max);
    tcase_add_test(tc, ineffective_en_passant_is_dropped);
    suite_add_tcase(s, tc);
    tc = tcase_create("make");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, make_unmake_restores_everything);
    tcase_add_test(tc, clocks_and_counters);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(board_suite());
}
