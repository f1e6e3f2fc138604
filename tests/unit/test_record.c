/*
 * test_record.c - repetition, the 50/75-move rules, outcomes and claims.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "movegen.h"
#include "notation.h"
#include "record.h"
#include "testutil.h"
#include "check_main.h"

static void start(struct record *r, const char *fen)
{
    struct board b;
    testutil_board(&b, fen);
    ck_assert_int_eq(record_init(r, &b), 0);
}

static void play(struct record *r, const char *uci_moves)
{
    testutil_each_move(&r->cur, uci_moves, testutil_record_push, r);
}

static move_t uci(const struct record *r, const char *text)
{
    move_t m;
    ck_assert_int_eq(notation_parse_uci(&r->cur, text, &m), 0);
    return m;
}

#define KNIGHTS_CYCLE "g1f3 g8f6 f3g1 f6g8 "

START_TEST(threefold_counts_from_the_start)
{
    struct record r;
    start(&r, FEN_START);
    play(&r, KNIGHTS_CYCLE);
    ck_assert_int_eq(record_repetitions(&r), 2);
    ck_assert_int_eq(record_claim_now(&r), CLAIM_NONE);
    /* The move that makes the third occurrence can be named in a claim. */
    play(&r, "g1f3 g8f6 f3g1");
    ck_assert_int_eq(record_claim_with(&r, uci(&r, "f6g8")), CLAIM_THREEFOLD);
    ck_assert_int_eq(record_claim_with(&r, uci(&r, "b8c6")), CLAIM_NONE);
    play(&r, "f6g8");
    ck_assert_int_eq(record_repetitions(&r), 3);
    ck_assert_int_eq(record_claim_now(&r), CLAIM_THREEFOLD);
    ck_assert_int_eq(record_outcome(&r), OUTCOME_NONE);
    record_clear(&r);
}
END_TEST

START_TEST(effective_en_passant_makes_positions_differ)
{
    struct record r;
    start(&r, FEN_START);
    /* After 2...d5 White may take en passant: that position differs from
     * the later ones with the same placement. */
    play(&r, "e2e4 g8f6 e4e5 d7d5");
    ck_assert_int_ne(r.cur.ep, SQ_NONE);
    play(&r, "g1f3 f6g8 f3g1 g8f6 g1f3 f6g8 f3g1 g8f6");
    /* The placement after 2...d5 has now stood three times, but only
     * twice without the en-passant right. */
    ck_assert_int_eq(record_repetitions(&r), 2);
    ck_assert_int_eq(record_claim_now(&r), CLAIM_NONE);
    play(&r, "g1f3 f6g8 f3g1 g8f6");
    ck_assert_int_eq(record_claim_now(&r), CLAIM_THREEFOLD);
    record_clear(&r);
}
END_TEST

START_TEST(ineffective_en_passant_does_not)
{
    struct record r;
    start(&r, FEN_START);
    /* 1.e4 sets no effective right (no black pawn can take), so the
     * position after 1.e4 repeats after each knight cycle. */
    play(&r, "e2e4 g8f6 g1f3 f6g8 f3g1 g8f6 g1f3 f6g8 f3g1");
    ck_assert_int_eq(record_repetitions(&r), 3);
    ck_assert_int_eq(record_claim_now(&r), CLAIM_THREEFOLD);
    record_clear(&r);
}
END_TEST

START_TEST(fivefold_is_automatic)
{
    struct record r;
    start(&r, FEN_START);
    play(&r, KNIGHTS_CYCLE KNIGHTS_CYCLE KNIGHTS_CYCLE "g1f3 g8f6 f3g1");
    ck_assert_int_eq(record_outcome(&r), OUTCOME_NONE);
    play(&r, "f6g8");
    ck_assert_int_eq(record_repetitions(&r), 5);
    ck_assert_int_eq(record_outcome(&r), OUTCOME_FIVEFOLD);
    record_clear(&r);
}
END_TEST

START_TEST(fifty_move_claim_edges)
{
    struct record r;
    start(&r, "4k3/8/8/8/8/8/4P3/R3K3 w - - 99 80");
    ck_assert_int_eq(record_claim_now(&r), CLAIM_NONE);
    ck_assert_int_eq(record_claim_with(&r, uci(&r, "a1a2")), CLAIM_FIFTY);
    /* A pawn move resets the count: no claim with it. */
    ck_assert_int_eq(record_claim_with(&r, uci(&r, "e2e4")), CLAIM_NONE);
    play(&r, "a1a2");
    ck_assert_int_eq(record_claim_now(&r), CLAIM_FIFTY);
    ck_assert_int_eq(record_outcome(&r), OUTCOME_NONE);
    play(&r, "e8d8 e2e4");
    ck_assert_int_eq(record_claim_now(&r), CLAIM_NONE);
    record_clear(&r);
}
END_TEST

START_TEST(seventy_five_moves_edges)
{
    struct record r;
    start(&r, "4k3/8/8/8/8/8/4P3/R3K3 w - - 148 80");
    play(&r, "a1a2");
    ck_assert_int_eq(record_outcome(&r), OUTCOME_NONE);
    play(&r, "e8d8");
    ck_assert_int_eq(r.cur.halfmove, 150);
    ck_assert_int_eq(record_outcome(&r), OUTCOME_SEVENTY_FIVE);
    record_clear(&r);
}
END_TEST

START_TEST(mate_on_the_150th_halfmove_beats_75_moves)
{
    struct record r;
    start(&r, "7k/8/6K1/8/8/8/8/R7 w - - 149 80");
    play(&r, "a1a8");
    ck_assert_int_eq(r.cur.halfmove, 150);
    ck_assert_int_eq(record_outcome(&r), OUTCOME_CHECKMATE);
    record_clear(&r);
}
END_TEST

START_TEST(outcomes)
{
    struct record r;
    start(&r, FEN_START);
    play(&r, "f2f3 e7e5 g2g4 d8h4");
    ck_assert_int_eq(record_outcome(&r), OUTCOME_CHECKMATE);
    record_clear(&r);
    start(&r, "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1");
    play(&r, "f7g7");
    ck_assert_int_eq(record_outcome(&r), OUTCOME_CHECKMATE);
    record_clear(&r);
    start(&r, "7k/5Q2/8/6K1/8/8/8/8 w - - 0 1");
    play(&r, "g5g6");
    ck_assert_int_eq(record_outcome(&r), OUTCOME_STALEMATE);
    record_clear(&r);
    /* Capturing the last rook leaves K+B v K: dead. */
    start(&r, "4k3/8/8/8/8/8/4r3/3BK3 w - - 0 1");
    play(&r, "e1e2");
    ck_assert_int_eq(record_outcome(&r), OUTCOME_DEAD);
    record_clear(&r);
    /* e2-e4 locks the pawns, but Black may take en passant (f4xe3) and
     * promote: the game goes on (issue 10); once the right is gone and
     * nothing else changed, it is dead. */
    start(&r, "4k3/8/8/p1p1p3/P1P2p1p/1B3P1P/4P3/4K3 w - - 0 1");
    play(&r, "e2e4");
    ck_assert_int_eq(r.cur.ep, SQ(4, 2));
    ck_assert_int_eq(record_outcome(&r), OUTCOME_NONE);
    play(&r, "e8d8");
    ck_assert_int_eq(record_outcome(&r), OUTCOME_DEAD);
    record_clear(&r);
}
END_TEST

START_TEST(history_grows_past_its_first_allocation)
{
    struct record r;
    start(&r, FEN_START);
    for (int i = 0; i < 40; i++)
        play(&r, KNIGHTS_CYCLE);
    ck_assert_uint_eq(r.n, 160);
    ck_assert_uint_eq(r.keys[160], r.start.key);
    record_clear(&r);
    record_clear(&r); /* clearing twice is harmless */
}
END_TEST

/* record_claims gives what record_claim_with gives for every legal move,
 * over random games that often undo their last move (so positions repeat,
 * and claims by threefold and by the fifty-move rule both occur). */
START_TEST(claims_of_all_moves_match_one_by_one)
{
    uint32_t seed = 7;
    long claims = 0, positions = 0;

    for (int game = 0; game < 100; game++) {
        struct record r;
        char fen[FEN_MAX];
        /* half the games start a few plies short of the fifty-move claim */
        snprintf(fen, sizeof fen, "8/8/3k4/8/8/3K4/1R6/5b2 w - - %d 80",
                 90 + game % 10);
        start(&r, game % 2 ? FEN_START : fen);
        for (int ply = 0; ply < 400; ply++) {
            struct movelist l;
            enum claim got[MOVES_MAX];
            move_t m = MOVE_NONE;

            if (record_outcome(&r) != OUTCOME_NONE)
                break;
            movegen_legal(&r.cur, &l);
            record_claims(&r, l.moves, l.n, got);
            for (int i = 0; i < l.n; i++) {
                ck_assert_int_eq(got[i], record_claim_with(&r, l.moves[i]));
                claims += got[i] != CLAIM_NONE;
            }
            positions++;
            seed = seed * 1103515245u + 12345u;
            /* undo the mover's own last move when legal, else random */
            if (r.n >= 2 && (seed >> 16) % 4 != 0) {
                move_t last = r.moves[r.n - 2];
                for (int i = 0; i < l.n; i++)
                    if (MOVE_FROM(l.moves[i]) == MOVE_TO(last) &&
                        MOVE_TO(l.moves[i]) == MOVE_FROM(last) &&
                        MOVE_KIND(l.moves[i]) == MOVE_NORMAL)
                        m = l.moves[i];
            }
            if (m == MOVE_NONE)
                m = l.moves[(seed >> 8) % (unsigned)l.n];
            ck_assert_int_eq(record_push(&r, m), 0);
        }
        record_clear(&r);
    }
    ck_assert_int_gt(positions, 5000);
    ck_assert_int_gt(claims, 1000);
}
END_TEST

static Suite *record_suite(void)
{
    Suite *s = suite_create("record");
    TCase *tc = tcase_create("record");
    tcase_add_test(tc, threefold_counts_from_the_start);
    tcase_add_test(tc, effective_en_passant_makes_positions_differ);
    tcase_add_test(tc, ineffective_en_passant_does_not);
    tcase_add_test(tc, fivefold_is_automatic);
    tcase_add_test(tc, fifty_move_claim_edges);
    tcase_add_test(tc, seventy_five_moves_edges);
    tcase_add_test(tc, mate_on_the_150th_halfmove_beats_75_moves);
    tcase_add_test(tc, outcomes);
    tcase_add_test(tc, history_grows_past_its_first_allocation);
    tcase_add_test(tc, claims_of_all_moves_match_one_by_one);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(record_suite());
}
