/*
 * test_opening.c - opening names by position (opening.h): lines of the
 * data set named as they are written and by other move orders, the name
 * kept after a game leaves theory and replaced by a later named position,
 * the en-passant square counted only when a capture there is legal, no
 * name for a game from a set-up position or past OPENING_MAX_PLY, and the
 * incremental opening_after agreeing with opening_of on random games.
 * The expected names are the rows of common/openings/a.tsv ... e.tsv.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "notation.h"
#include "opening.h"
#include "record.h"
#include "testutil.h"
#include "check_main.h"

/* Starts *r at fen and plays the space-separated SAN moves. */
static void record_san(struct record *r, const char *fen, const char *san)
{
    struct board b;

    testutil_board(&b, fen);
    ck_assert_int_eq(record_init(r, &b), 0);
    testutil_each_san(&r->cur, san, testutil_record_push, r);
}

struct checked_line {
    struct record r;
    int inc; /* opening_after, move by move */
};

static void push_checked(void *arg, move_t m)
{
    struct checked_line *l = arg;

    testutil_record_push(&l->r, m);
    l->inc = opening_after(&l->r, l->inc);
    ck_assert_int_eq(l->inc, opening_of(&l->r));
}

/* The opening of the game played from the initial position by san,
 * checked against the incremental opening_after at every ply. */
static int opening_of_line(const char *san)
{
    struct checked_line l = {.inc = 0};
    struct board b;
    int id;

    testutil_board(&b, FEN_START);
    ck_assert_int_eq(record_init(&l.r, &b), 0);
    testutil_each_san(&l.r.cur, san, push_checked, &l);
    id = opening_of(&l.r);
    record_clear(&l.r);
    return id;
}

static void assert_opening(int id, const char *eco, const char *name)
{
    ck_assert_msg(id > 0, "no opening, expected %s %s", eco, name);
    ck_assert_str_eq(opening_eco(id), eco);
    ck_assert_str_eq(opening_name(id), name);
}

/* The key of the position fen. */
static uint64_t key_of(const char *fen)
{
    struct board b;

    testutil_board(&b, fen);
    return b.key;
}

START_TEST(table_is_the_data_set)
{
    /* every row of a.tsv..e.tsv names its own position (gen.c fails the
     * build on a clash), each ECO code A00..E99 */
    ck_assert_int_eq(opening_count(), 3529);
    for (int id = 1; id <= opening_count(); id++) {
        const char *eco = opening_eco(id);
        ck_assert_int_eq((int)strlen(eco), 3);
        ck_assert(eco[0] >= 'A' && eco[0] <= 'E');
        ck_assert(eco[1] >= '0' && eco[1] <= '9');
        ck_assert(eco[2] >= '0' && eco[2] <= '9');
        ck_assert(opening_name(id)[0] != '\0');
        ck_assert_int_eq(opening_at(opening_key(id)), id);
    }
    ck_assert_int_eq(opening_at(key_of(FEN_START)), 0);
}
END_TEST

START_TEST(lines_as_written)
{
    assert_opening(opening_of_line("e4"), "B00", "King's Pawn Game");
    assert_opening(opening_of_line("e4 e5"), "C20", "King's Pawn Game");
    assert_opening(opening_of_line("e4 e5 Nf3 Nc6 Bb5"), "C60", "Ruy Lopez");
    assert_opening(opening_of_line("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6"),
                   "B90", "Sicilian Defense: Najdorf Variation");
    /* UTF-8 names come through as they are */
    assert_opening(opening_of_line("d4 Nf6 c4 g6 Nc3 d5"), "D80",
                   "Gr\xc3\xbcnfeld Defense");
}
END_TEST

START_TEST(transpositions_are_named)
{
    /* D31 is written 1. d4 d5 2. c4 e6 3. Nc3 */
    assert_opening(opening_of_line("c4 e6 Nc3 d5 d4"), "D31",
                   "Queen's Gambit Declined: Queen's Knight Variation");
    /* D02 is written 1. d4 d5 2. Nf3: here after A06's 1. Nf3 d5 */
    assert_opening(opening_of_line("Nf3 d5"), "A06", "Zukertort Opening");
    assert_opening(opening_of_line("Nf3 d5 d4"), "D02",
                   "Queen's Pawn Game: Zukertort Variation");
    /* C42 Russian Game written 1. e4 e5 2. Nf3 Nf6, reached by the
     * knights first */
    assert_opening(opening_of_line("Nf3 Nf6 e4 e5"), "C42", "Russian Game");
}
END_TEST

START_TEST(last_named_position_is_kept)
{
    /* out of theory after the Ruy Lopez: the name stays */
    assert_opening(opening_of_line("e4 e5 Nf3 Nc6 Bb5 Rb8 Ke2 Ra8"), "C60",
                   "Ruy Lopez");
    /* back to a named position later: the last one named wins, as on
     * lichess, even though C44 came before and is deeper in theory */
    assert_opening(opening_of_line("e4 e5 Nf3 Nc6 Ng1 Nb8"), "C20",
                   "King's Pawn Game");
}
END_TEST

START_TEST(en_passant_only_when_a_capture_is_legal)
{
    /* After 1. e4 no black pawn can take on e3: the FEN's "e3" is no
     * right (board.h), and the position is 1. e4's with or without it. */
    uint64_t k = key_of(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    ck_assert_uint_eq(
        k,
        key_of("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"));
    assert_opening(opening_at(k), "B00", "King's Pawn Game");

    /* B02 Everglades: 1. e4 Nf6 2. e5 Ng8 3. d4 f5, after which exf6 e.p.
     * is legal. The same placement reached by f6-f5 has no such right: a
     * different position (FIDE 9.2.3), not named Everglades. */
    assert_opening(opening_of_line("e4 Nf6 e5 Ng8 d4 f5"), "B02",
                   "Alekhine Defense: Brooklyn Variation, Everglades "
                   "Variation");
    assert_opening(opening_of_line("e4 Nf6 e5 Ng8 d3 f6 d4 f5"), "B02",
                   "Alekhine Defense: Brooklyn Variation");
    ck_assert_int_eq(
        opening_at(key_of("rnbqkbnr/ppppp1pp/8/4Pp2/3P4/8/PPP2PPP/RNBQKBNR "
                          "w KQkq - 0 4")),
        0);
    ck_assert_int_ne(
        opening_at(key_of("rnbqkbnr/ppppp1pp/8/4Pp2/3P4/8/PPP2PPP/RNBQKBNR "
                          "w KQkq f6 0 4")),
        0);
}
END_TEST

START_TEST(set_up_positions_are_not_named)
{
    struct record r;

    /* the initial position without White's a-pawn, then 1. e4 e5: the
     * placement differs, and a set-up game gets no name at all */
    record_san(&r, "rnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/RNBQKBNR w KQkq - 0 1",
               "e4 e5");
    ck_assert_int_eq(opening_of(&r), 0);
    ck_assert_int_eq(opening_after(&r, 0), 0);
    record_clear(&r);
    /* a set-up position that is the initial one is the initial one */
    record_san(&r, FEN_START, "e4 e5");
    assert_opening(opening_of(&r), "C20", "King's Pawn Game");
    record_clear(&r);
}
END_TEST

START_TEST(no_lookup_past_the_ply_limit)
{
    char line[512] = "";

    /* ten rounds of knights out and back (40 plies, the initial position
     * again), then 21. e4 e5: C20, but at ply 42 */
    for (int i = 0; i < OPENING_MAX_PLY / 4; i++)
        strcat(line, "Nf3 Nf6 Ng1 Ng8 ");
    strcat(line, "e4 e5");
    assert_opening(opening_of_line(line), "A05", "Zukertort Opening");
    ck_assert_int_eq(OPENING_MAX_PLY, 40);
}
END_TEST

START_TEST(incremental_agrees_on_random_games)
{
    unsigned long long seed = 0x0be11a5ULL;

    for (int game = 0; game < 200; game++) {
        struct record r;
        struct board b;
        int inc = 0;

        testutil_board(&b, FEN_START);
        ck_assert_int_eq(record_init(&r, &b), 0);
        for (int ply = 0; ply < 60; ply++) {
            struct movelist l;
            movegen_legal(&r.cur, &l);
            if (l.n == 0)
                break;
            /* mostly the first moves of the list: a narrow tree, so
             * that games pass through named positions */
            int i = (int)(testutil_rand(&seed) % (ply < 8 ? 6 : l.n));
            ck_assert_int_eq(record_push(&r, l.moves[i % l.n]), 0);
            inc = opening_after(&r, inc);
            ck_assert_int_eq(inc, opening_of(&r));
        }
        record_clear(&r);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("opening");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, table_is_the_data_set);
    tcase_add_test(tc, lines_as_written);
    tcase_add_test(tc, transpositions_are_named);
    tcase_add_test(tc, last_named_position_is_kept);
    tcase_add_test(tc, en_passant_only_when_a_capture_is_legal);
    tcase_add_test(tc, set_up_positions_are_not_named);
    tcase_add_test(tc, no_lookup_past_the_ply_limit);
    tcase_add_test(tc, incremental_agrees_on_random_games);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(suite());
}
