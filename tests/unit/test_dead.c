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

/* CHA "cannot mate" verdicts recognised by the static tests alone (no
 * search) when this test was written; a change that loses any fails here.
 * With the search every one is recognised (but the errata below). */
#define CHA_STATIC_1 709   /* of 962 in dead-positions.tsv */
#define CHA_STATIC_2 30311 /* of 30334 in dead-positions-2.tsv */

/*
 * CHA verdicts "cannot mate" that are wrong: that side has a helpmate,
 * given here and replayed by the test (Stockfish 15.1 agrees that the last
 * position is checkmate). They are left out of CHA's counts and must be
 * answered "can mate".
 */
static const struct {
    const char *fen;
    enum color side;
    const char *line; /* the helpmate, in UCI */
} cha_errata[] = {
    /* f4xe3 e.p. blocks the bishop's check; then the g-pawn promotes with
     * mate on c4 (tests/data/README.md) */
    {"b7/2p5/p1Pp4/p1kPp3/Pp2Pp1p/1P3PpP/2K3P1/6B1 b - e3 0 40", BLACK,
     "f4e3 c2d3 c5b6 g1f2 g3f2 d3c4 f2f1q"},
};

/* Is (fen, c) one of the errata? */
static bool erratum(const char *fen, enum color c)
{
    for (size_t i = 0; i < sizeof cha_errata / sizeof *cha_errata; i++)
        if (!strcmp(cha_errata[i].fen, fen) && cha_errata[i].side == c)
            return true;
    return false;
}

/* What check_file counted in one data file. */
struct file_tally {
    int rows;
    int unsound;   /* "cannot mate" where the source says "can mate" */
    int exact;     /* python-chess/chessops/scalachess verdicts matched */
    int cha_total; /* CHA "cannot mate" verdicts (errata left out) */
    int cha_fast;  /* ... recognised by the static tests */
    int cha_deep;  /* ... recognised with the bounded search */
};

/* A proof that side c of b cannot mate says something true of b: the
 * units that never move stand on b, the squares each side can reach
 * include where its king stands, a search examined positions. */
static void check_proof(const struct board *b, enum color c,
                        const struct dead_proof *p, const char *fen)
{
    uint64_t occupied = b->by_color[WHITE] | b->by_color[BLACK];
    switch (p->kind) {
    case DEAD_GAME_OVER:
        ck_assert_msg(!movegen_has_legal(b), "%s", fen);
        break;
    case DEAD_MATERIAL:
        break;
    case DEAD_LOCKED:
        ck_assert_msg((p->locked & ~occupied) == 0, "%s", fen);
        for (int side = WHITE; side <= BLACK; side++)
            ck_assert_msg(p->reach[side] >> board_king_square(b, side) & 1,
                          "%s", fen);
        break;
    case DEAD_SEARCH:
        ck_assert_msg(p->positions > 0, "%s", fen);
        break;
    default:
        ck_abort_msg("side %d of %s: no proof", c, fen);
    }
}

/*
 * Checks every row of tests/data/NAME; `search` adds the bounded search.
 * Soundness: never "cannot mate" where the source says the side can (every
 * such row is counted, then reported). Exactness: every verdict from
 * python-chess, chessops and scalachess. Each "cannot mate" has a proof.
 */
static struct file_tally check_file(const char *name, bool search)
{
    FILE *f = testutil_open_data(name);
    void *ws = malloc(dead_scratch_size());
    char line[1024];
    struct file_tally t = {0};
    ck_assert_ptr_nonnull(ws);
    dead_scratch_init(ws);
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
            struct dead_proof proof;
            long nodes;
            bool fast = dead_can_mate_proof(&b, c, &proof);
            if (!fast)
                check_proof(&b, c, &proof, col[0]);
            bool deep = fast;
            if (search) {
                deep = dead_search_bounded(&b, c, ws, DEAD_SEARCH_NODES,
                                           &nodes,
                                           &proof) != DEAD_SEARCH_NO_MATE;
                if (!deep)
                    check_proof(&b, c, &proof, col[0]);
            }
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
            if (want[0] == '0' && cha && erratum(col[0], c)) {
                ck_assert_msg(deep, "erratum called cannot: %s", col[0]);
            } else if (want[0] == '0' && cha) {
                t.cha_total++;
                t.cha_fast += !fast;
                t.cha_deep += !deep;
                if (search && deep)
                    printf("missed (search): %s cannot mate: %s\n",
                           c ? "black" : "white", col[0]);
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
    struct file_tally t = check_file("dead-positions.tsv", false);
    ck_assert_int_eq(t.rows, 941);
    ck_assert_int_ge(t.cha_fast, CHA_STATIC_1);
}
END_TEST

/* With the search, every CHA "cannot mate" of file name (cha of them, in
 * `rows` rows) is recognised. */
static void check_search(const char *name, int rows, int cha)
{
    struct file_tally t = check_file(name, true);
    ck_assert_int_eq(t.rows, rows);
    ck_assert_int_eq(t.cha_total, cha);
    ck_assert_int_eq(t.cha_deep, t.cha_total);
}

START_TEST(dead_positions_file_search)
{
    check_search("dead-positions.tsv", 941, 962);
}
END_TEST

/* The generated positions labelled by CHA (tests/data/README.md). */
START_TEST(dead_positions_2_file_static)
{
    struct file_tally t = check_file("dead-positions-2.tsv", false);
    ck_assert_int_eq(t.rows, 24433);
    ck_assert_int_ge(t.cha_fast, CHA_STATIC_2);
}
END_TEST

START_TEST(dead_positions_2_file_search)
{
    check_search("dead-positions-2.tsv", 24433, 30333);
}
END_TEST

/* Each erratum's helpmate is legal move by move and ends in checkmate by
 * the side CHA said could not mate. */
START_TEST(cha_errata_mate)
{
    for (size_t i = 0; i < sizeof cha_errata / sizeof *cha_errata; i++) {
        struct board b;
        testutil_board_any(&b, cha_errata[i].fen);
        ck_assert(dead_can_mate(&b, cha_errata[i].side));
        testutil_play(&b, cha_errata[i].line);
        ck_assert(board_in_check(&b) && !movegen_has_legal(&b));
        ck_assert_int_ne(b.side, cha_errata[i].side);
    }
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

/* Expects dead_can_mate_proof's answers for White and Black on fen, and a
 * DEAD_LOCKED proof for each side that cannot. */
static void expect_locked(const char *fen, bool white, bool black)
{
    struct board b;
    struct dead_proof p;
    testutil_board_any(&b, fen);
    ck_assert_msg(dead_can_mate_proof(&b, WHITE, &p) == white, "%s", fen);
    ck_assert_msg(white || p.kind == DEAD_LOCKED, "%s", fen);
    ck_assert_msg(dead_can_mate_proof(&b, BLACK, &p) == black, "%s", fen);
    ck_assert_msg(black || p.kind == DEAD_LOCKED, "%s", fen);
}

/*
 * The rules of the locked-pawn analysis (reach.c), each on a position it
 * decides (CHA agrees: the first four are D3-Chess test vectors).
 */
START_TEST(reach_rules)
{
    struct board b;
    struct dead_proof p;
    /* Pawns that may still advance into the lock, and pawns a king may
     * take, are no longer a reason to give up. */
    expect_locked("3k4/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/3K4 w - - 0 1",
                  false, false);
    expect_locked("3k4/1p1p1p1p/1P1P1P1P/3p4/8/8/3P3P/4K3 w - - 0 1", false,
                  false);
    /* Pieces that never move block: White's king on a1 keeps the a2 pawn
     * from promoting, and appears in the proof among what never moves. */
    const char *fixed = "k6B/1b4B1/5B2/4B3/3B4/1pB1B3/pP1B4/K7 w - - 0 1";
    expect_locked(fixed, false, false);
    testutil_board_any(&b, fixed);
    ck_assert(!dead_can_mate_proof(&b, WHITE, &p));
    ck_assert(p.locked & 1ull); /* a1 */
    /* Black's king may take g2 only with White's king on h4, which then has
     * no move: a stalemate, so the g-pawn never runs. And though Black's
     * bishops could check the king on h4 with Black's king on h2 guarding
     * h3, White's king only ever comes to h4 from h3, next to h2: no
     * mate. */
    const char *pocket = "8/b1b5/k6p/2b2p1P/1b3p2/5PpK/6P1/8 w - - 0 1";
    expect_locked(pocket, false, false);
    /* A white knight that can move: taking g2 no longer stalemates, the
     * g-pawn may promote, nothing is proven. */
    testutil_board(&b, "8/b1b5/k6p/2b2p1P/1b3p2/5PpK/6P1/N7 w - - 0 1");
    ck_assert(dead_can_mate(&b, BLACK));
    /* The same kings already there, Black to move: Bc5-e7 mates at once
     * (no earlier move of White's king to rule it out). */
    const char *now = "8/b1b5/7p/2b2p1P/1b3p1K/5Pp1/6Pk/8 b - - 0 1";
    testutil_board_any(&b, now);
    ck_assert(dead_can_mate(&b, BLACK));
    ck_assert(!dead_can_mate(&b, WHITE));
    testutil_play(&b, "c5e7");
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
    tcase_add_test(tc, cha_errata_mate);
    tcase_add_test(tc, reach_rules);
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
