/*
 * test_dead.c - "can this side ever checkmate?" against
 * tests/data/dead-positions.tsv and dead-positions-2.tsv (sources in
 * tests/data/README.md), and against a plain helpmate search on random
 * locked and near-locked positions (tests/unit/deaddiff.h).
 *
 * Soundness: never "cannot mate" where a source says the side can, nor
 * where the helpmate search finds a mate.
 * Exactness: every verdict from python-chess, chessops and scalachess.
 * Coverage of the Chess Unwinnability Analyzer (CHA) rows of the first file
 * is measured and must not fall below what the analysis reached when it
 * was written.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "dead.h"
#include "deaddiff.h"
#include "helpmate.h"
#include "movegen.h"
#include "testutil.h"
#include "check_main.h"

/* CHA "cannot mate" verdicts recognised by the search in
 * dead-positions.tsv (924 of 962 when this test was written); a change
 * that loses any of them fails here. */
#define CHA_RECOGNISED_MIN 924

/* What check_file counted in one data file. */
struct file_tally {
    int rows;
    int unsound;   /* "cannot mate" where the source says "can mate" */
    int exact;     /* python-chess/chessops/scalachess verdicts matched */
    int cha_total; /* CHA "cannot mate" verdicts */
    int cha_fast;  /* ... recognised by the static tests */
    int cha_deep;  /* ... recognised with the bounded search */
};

/*
 * Checks every row of tests/data/NAME; `search` adds the bounded search.
 * Soundness: never "cannot mate" where the source says the side can (every
 * such row is counted, then reported). Exactness: every verdict from
 * python-chess, chessops and scalachess.
 */
static struct file_tally check_file(const char *name, bool search)
{
    FILE *f = testutil_open_data(name);
    void *ws = malloc(dead_scratch_size());
    char line[1024];
    struct file_tally t = {0};
    ck_assert_ptr_nonnull(ws);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) {
        char *col[5];
        char *p = line;
        for (int i = 0; i < 5; i++) {
            col[i] = p;
            p = strchr(p, i < 4 ? '\t' : '\n');
            ck_assert_ptr_nonnull(p);
            *p++ = '\0';
        }
        struct board b;
        testutil_board_any(&b, col[0]); /* some D3-Chess vectors are
                                           composed: 7 bishops, 9 queens */
        bool cha = strstr(col[4], "D3-Chess") || strstr(col[4], "CHA ");
        bool other = strstr(col[4], "python-chess") ||
                     strstr(col[4], "scalachess") ||
                     strstr(col[4], "chessops");
        for (int c = WHITE; c <= BLACK; c++) {
            const char *want = col[2 + c];
            bool fast = dead_can_mate(&b, c);
            bool deep = search ? dead_search_can_mate(&b, c, ws) : fast;
            /* The search only ever adds proofs to the static tests. */
            ck_assert(fast || !deep);
            if (want[0] == '1' && !deep) {
                if (t.unsound++ < 10)
                    printf("unsound (%s): %s says %s can mate: %s\n",
                           search ? "search" : "static", col[4],
                           c ? "black" : "white", col[0]);
            }
            if (want[0] == '0' && other) {
                ck_assert_msg(!fast, "missed insufficient material (%s): %s",
                              c ? "black" : "white", col[0]);
                t.exact++;
            }
            if (want[0] == '0' && cha) {
                t.cha_total++;
                t.cha_fast += !fast;
                t.cha_deep += !deep;
            }
        }
        /* dead_is_dead agrees with the static per-side answers. */
        if (movegen_has_legal(&b))
            ck_assert(dead_is_dead(&b) == (!dead_can_mate(&b, WHITE) &&
                                           !dead_can_mate(&b, BLACK)));
        t.rows++;
    }
    fclose(f);
    free(ws);
    printf("%s (%s): %d rows; %d unsound; %d exact insufficient-material "
           "verdicts; CHA cannot-mate verdicts recognised: static %d, %s %d, "
           "of %d\n",
           name, search ? "search" : "static", t.rows, t.unsound, t.exact,
           t.cha_fast, search ? "search" : "(no search)", t.cha_deep,
           t.cha_total);
    ck_assert_msg(t.unsound == 0, "%d unsound verdicts in %s", t.unsound,
                  name);
    return t;
}

START_TEST(dead_positions_file_static)
{
    ck_assert_int_eq(check_file("dead-positions.tsv", false).rows, 941);
}
END_TEST

START_TEST(dead_positions_file_search)
{
    struct file_tally t = check_file("dead-positions.tsv", true);
    ck_assert_int_eq(t.rows, 941);
    ck_assert_int_ge(t.cha_deep, CHA_RECOGNISED_MIN);
}
END_TEST

/* The generated positions labelled by CHA (tests/data/README.md). */
START_TEST(dead_positions_2_file_static)
{
    ck_assert_int_eq(check_file("dead-positions-2.tsv", false).rows, 24433);
}
END_TEST

START_TEST(dead_positions_2_file_search)
{
    ck_assert_int_eq(check_file("dead-positions-2.tsv", true).rows, 24433);
}
END_TEST

START_TEST(terminal_positions)
{
    struct board b;
    /* Fool's mate: Black has mated, White cannot. */
    testutil_board(&b, "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w "
                       "KQkq - 1 3");
    ck_assert(dead_can_mate(&b, BLACK));
    ck_assert(!dead_can_mate(&b, WHITE));
    /* Stalemate: neither. */
    testutil_board(&b, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    ck_assert(!dead_can_mate(&b, WHITE));
    ck_assert(!dead_can_mate(&b, BLACK));
}
END_TEST

START_TEST(material_cases)
{
    static const struct {
        const char *fen;
        bool white, black;
    } cases[] = {
        {"4k3/8/8/8/8/8/8/4K3 w - - 0 1", false, false},
        {"4k3/8/8/8/8/8/8/2B1K3 w - - 0 1", false, false},
        {"4k3/8/8/8/8/8/8/2N1K3 w - - 0 1", false, false},
        /* Bishops all on one colour: dead; on both colours: not. */
        {"2b1k3/8/8/8/8/8/8/3BK3 w - - 0 1", false, false},
        {"3bk3/8/8/8/8/8/8/3BK3 w - - 0 1", true, true},
        /* K+N v K+Q: the knight cannot mate, the queen can. */
        {"4k3/8/8/8/8/8/8/1N1qK3 w - - 0 1", false, true},
        /* K+N v K+R: the rook can block its own king, a mate exists. */
        {"4k3/8/8/8/8/8/8/1N1rK3 w - - 0 1", true, true},
        /* Blocked pawns only: dead. */
        {"4k3/8/8/1p1p1p1p/1P1P1P1P/8/8/4K3 w - - 0 1", false, false},
        /* Blocked head to head, but each side can take a pawn: not dead. */
        {"4k3/8/8/3pp3/3PP3/8/8/4K3 w - - 0 1", true, true},
        /* A pawn blocked by its own pawn, which is blocked: still locked. */
        {"4k3/8/8/1p1p1p1p/1P1P1P1P/1P6/8/4K3 w - - 0 1", false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct board b;
        testutil_board(&b, cases[i].fen);
        ck_assert_msg(dead_can_mate(&b, WHITE) == cases[i].white, "%s",
                      cases[i].fen);
        ck_assert_msg(dead_can_mate(&b, BLACK) == cases[i].black, "%s",
                      cases[i].fen);
    }
}
END_TEST

/*
 * Locked pawns with an en-passant capture on: Black's f4xe3 frees a pawn
 * that runs to e1, after which both sides can mate (issue 10).
 */
START_TEST(locked_with_en_passant)
{
    static const char *fen =
        "4k3/8/8/p1p1p3/P1P1Pp1p/1B3P1P/8/4K3 b - e3 0 1";
    struct board b;
    testutil_board(&b, fen);
    ck_assert(dead_can_mate(&b, WHITE));
    ck_assert(dead_can_mate(&b, BLACK));
    ck_assert(!dead_is_dead(&b));
    /* The same pawns a move later, the en-passant right gone: dead. */
    testutil_board(&b, "4k3/8/8/p1p1p3/P1P1Pp1p/1B3P1P/8/3K4 b - - 0 1");
    ck_assert(!dead_can_mate(&b, WHITE));
    ck_assert(!dead_can_mate(&b, BLACK));
    ck_assert(dead_is_dead(&b));
    /* A helpmate by Black: the freed pawn promotes and mates. */
    testutil_board(&b, fen);
    testutil_play(&b, "f4e3 f3f4 e3e2 e1d2 e5e4 d2e3 e2e1q");
    ck_assert(board_in_check(&b) && !movegen_has_legal(&b));
}
END_TEST

/* The reference search itself: it finds the en-passant helpmate above at
 * its true length, its line replays to a checkmate by that side, and it
 * finds none where there is none. */
START_TEST(helpmate_reference)
{
    struct helpmate *h = helpmate_new(16);
    move_t line[HELPMATE_PLIES_MAX];
    struct board b;
    ck_assert_ptr_nonnull(h);
    testutil_board(&b, "4k3/8/8/p1p1p3/P1P1Pp1p/1B3P1P/8/4K3 b - e3 0 1");
    int n = helpmate_find(h, &b, BLACK, 8, 1000000, line, NULL);
    ck_assert_int_eq(n, 7);
    for (int i = 0; i < n; i++) {
        struct board_undo u;
        ck_assert(movegen_is_legal(&b, line[i]));
        board_make(&b, line[i], &u);
    }
    ck_assert(board_in_check(&b) && !movegen_has_legal(&b));
    ck_assert_int_eq(b.side, WHITE);
    /* Fool's mate in 4 plies; none shorter. */
    testutil_board(&b, FEN_START);
    ck_assert_int_eq(helpmate_find(h, &b, BLACK, 4, 1000000, line, NULL), 4);
    ck_assert_int_eq(helpmate_find(h, &b, WHITE, 4, 1000000, line, NULL), -1);
    /* A bare king never mates; the same pawns without en passant. */
    testutil_board(&b, "7k/8/6K1/8/8/8/8/1Q6 w - - 0 1");
    ck_assert_int_eq(helpmate_find(h, &b, BLACK, 8, 1000000, line, NULL), -1);
    ck_assert_int_eq(helpmate_find(h, &b, WHITE, 8, 1000000, line, NULL), 1);
    testutil_board(&b, "4k3/8/8/p1p1p3/P1P1Pp1p/1B3P1P/8/3K4 b - - 0 1");
    ck_assert_int_eq(helpmate_find(h, &b, BLACK, 16, 1000000, line, NULL),
                     -1);
    helpmate_free(h);
}
END_TEST

/*
 * The differential test (tests/unit/deaddiff.h): random locked and
 * near-locked positions; wherever dead.c says a side cannot mate, a plain
 * helpmate search (16 plies, 200,000 positions) must find no mate for it.
 * tests/bench/dead_diff runs the same at scale.
 */
static void differential(long per_kind, bool search)
{
    struct deaddiff_options o = {.per_kind = per_kind,
                                 .seed = 20240610,
                                 .plies = 16,
                                 .nodes = 200000,
                                 .search = search};
    struct deaddiff_tally t;
    ck_assert(deaddiff_run(&o, 0, &t, stdout));
    deaddiff_print(&t, stdout);
    ck_assert_int_eq(t.total.positions, per_kind * LOCKGEN_KINDS);
    ck_assert_int_eq(t.total.unsound, 0);
    /* The test means something only if dead.c often says "cannot". */
    ck_assert_int_ge(t.total.cannot_deep, per_kind / 10);
}

START_TEST(differential_static)
{
    differential(500, false);
}
END_TEST

START_TEST(differential_search)
{
    differential(60, true);
}
END_TEST

static Suite *dead_suite(void)
{
    Suite *s = suite_create("dead");
    TCase *tc = tcase_create("static");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, dead_positions_file_static);
    tcase_add_test(tc, dead_positions_2_file_static);
    tcase_add_test(tc, terminal_positions);
    tcase_add_test(tc, material_cases);
    tcase_add_test(tc, locked_with_en_passant);
    tcase_add_test(tc, helpmate_reference);
    tcase_add_test(tc, differential_static);
    suite_add_tcase(s, tc);
    /* Seconds in an optimised build: run as its own meson test. */
    tc = tcase_create("search");
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, dead_positions_file_search);
    tcase_add_test(tc, differential_search);
    suite_add_tcase(s, tc);
    /* Minutes: the search over the 24,433 generated rows. */
    tc = tcase_create("search2");
    tcase_set_timeout(tc, 3600);
    tcase_add_test(tc, dead_positions_2_file_search);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(dead_suite());
}
