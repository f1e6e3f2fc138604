/*
 * test_pgn.c - PGN export: exact texts for short games (worked out by hand
 * from the PGN standard), set-up positions with Black to move, tag
 * escaping, and 80-column wrapping of long random games whose movetext
 * must read back to the same moves.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "notation.h"
#include "pgn.h"
#include "record.h"
#include "testutil.h"
#include "check_main.h"

static const struct pgn_tags casual = {
    .event = "Casual game",
    .site = "https://chess.example/g/abc",
    .date = "2026.11.30",
    .white = "alice",
    .black = "bob",
    .result = "1-0",
    .time_control = "300+2",
    .termination = "normal",
};

/* Starts *r at fen and plays the space-separated UCI moves. */
static void record_of(struct record *r, const char *fen, const char *uci)
{
    struct board b;

    testutil_board(&b, fen);
    ck_assert_int_eq(record_init(r, &b), 0);
    testutil_each_move(&r->cur, uci, testutil_record_push, r);
}

START_TEST(scholars_mate_with_clocks)
{
    struct record r;
    /* remaining time of the mover after each ply */
    static const int64_t clk[] = {301000, 300500, 299999, 298000,
                                  295400, 290000, 3599999};
    char *pgn;

    record_of(&r, FEN_START, "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7");
    pgn = pgn_format(&casual, &r, clk, NULL);
    ck_assert_ptr_nonnull(pgn);
    /* Lines break before the token that would pass column 80; a Black
     * move after a comment gets its "N..." number again. */
    ck_assert_str_eq(
        pgn,
        "[Event \"Casual game\"]\n"
        "[Site \"https://chess.example/g/abc\"]\n"
        "[Date \"2026.11.30\"]\n"
        "[Round \"-\"]\n"
        "[White \"alice\"]\n"
        "[Black \"bob\"]\n"
        "[Result \"1-0\"]\n"
        "[TimeControl \"300+2\"]\n"
        "[Termination \"normal\"]\n"
        "\n"
        "1. e4 { [%clk 0:05:01] } 1... e5 { [%clk 0:05:00] } 2. Bc4 "
        "{ [%clk 0:04:59] }\n"
        "2... Nc6 { [%clk 0:04:58] } 3. Qh5 { [%clk 0:04:55] } 3... Nf6\n"
        "{ [%clk 0:04:50] } 4. Qxf7# { [%clk 0:59:59] } 1-0\n");
    free(pgn);

    /* without clocks: plain numbering */
    pgn = pgn_format(&casual, &r, NULL, NULL);
    ck_assert_ptr_nonnull(pgn);
    ck_assert_ptr_nonnull(strstr(pgn, "\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 "
                                      "4. Qxf7# 1-0\n"));
    ck_assert_ptr_null(strstr(pgn, "SetUp"));
    free(pgn);
    record_clear(&r);
}
END_TEST

START_TEST(clock_format_hours_and_rounding)
{
    struct record r;
    /* 1 h 2 min 3.999 s; exactly 10 h; negative shows as zero */
    static const int64_t clk[] = {3723999, 36000000, -5};
    char *pgn;

    record_of(&r, FEN_START, "d2d4 d7d5 c2c4");
    pgn = pgn_format(&casual, &r, clk, NULL);
    ck_assert_ptr_nonnull(pgn);
    /* " 1-0" would end in column 81: it goes to the next line */
    ck_assert_ptr_nonnull(strstr(pgn, "\n1. d4 { [%clk 1:02:03] } 1... d5 "
                                      "{ [%clk 10:00:00] } 2. c4 "
                                      "{ [%clk 0:00:00] }\n1-0\n"));
    free(pgn);
    record_clear(&r);
}
END_TEST

/* Formats the game uci plays from the initial position with tags t, and
 * checks that the PGN holds want. */
static void assert_pgn_holds(const struct pgn_tags *t, const char *uci,
                             const char *want)
{
    struct record r;
    char *pgn;

    record_of(&r, FEN_START, uci);
    pgn = pgn_format(t, &r, NULL, NULL);
    ck_assert_ptr_nonnull(pgn);
    ck_assert_msg(strstr(pgn, want), "%s", pgn);
    free(pgn);
    record_clear(&r);
}

/* The lag credit totals of both sides come after Termination. */
START_TEST(lag_totals_follow_termination)
{
    struct pgn_tags t = casual;

    t.white_lag_total = "1.234";
    t.black_lag_total = "0.000";
    assert_pgn_holds(&t, "e2e4",
                     "[Termination \"normal\"]\n"
                     "[WhiteLagTotal \"1.234\"]\n"
                     "[BlackLagTotal \"0.000\"]\n\n1. e4 1-0\n");
}
END_TEST

/* The opening's ECO and Opening come between TimeControl and
 * Termination, as lichess writes them, escaped like any tag; a game
 * none is named for has neither. */
START_TEST(eco_and_opening_after_time_control)
{
    struct pgn_tags t = casual;

    t.eco = "C20";
    t.opening = "King's Pawn Game: \"Wayward\" Queen";
    assert_pgn_holds(&t, "e2e4 e7e5 d1h5",
                     "[TimeControl \"300+2\"]\n"
                     "[ECO \"C20\"]\n"
                     "[Opening \"King's Pawn Game: "
                     "\\\"Wayward\\\" Queen\"]\n"
                     "[Termination \"normal\"]\n\n");
    /* the tags are written only there */
    assert_pgn_holds(&casual, "e2e4 e7e5 d1h5",
                     "[TimeControl \"300+2\"]\n[Termination ");
}
END_TEST

START_TEST(setup_position_with_black_to_move)
{
    static const char fen[] = "r3k3/8/8/8/8/8/8/4K2R b Kq - 5 30";
    struct pgn_tags t = casual;
    struct record r;
    char *pgn;

    t.result = "*";
    t.time_control = "1/60";
    t.termination = "unterminated";
    record_of(&r, fen, "e8c8 e1g1 d8d1 f1d1");
    pgn = pgn_format(&t, &r, NULL, NULL);
    ck_assert_ptr_nonnull(pgn);
    ck_assert_str_eq(pgn, "[Event \"Casual game\"]\n"
                          "[Site \"https://chess.example/g/abc\"]\n"
                          "[Date \"2026.11.30\"]\n"
                          "[Round \"-\"]\n"
                          "[White \"alice\"]\n"
                          "[Black \"bob\"]\n"
                          "[Result \"*\"]\n"
                          "[TimeControl \"1/60\"]\n"
                          "[Termination \"unterminated\"]\n"
                          "[SetUp \"1\"]\n"
                          "[FEN \"r3k3/8/8/8/8/8/8/4K2R b Kq - 5 30\"]\n"
                          "\n"
                          "30... O-O-O 31. O-O Rd1 32. Rxd1 *\n");
    free(pgn);
    record_clear(&r);
}
END_TEST

START_TEST(standard_start_with_other_move_number_is_a_setup)
{
    struct record r;
    char *pgn;

    /* the initial placement, but not the initial position of a game */
    record_of(&r, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 7",
              "e2e4");
    pgn = pgn_format(&casual, &r, NULL, NULL);
    ck_assert_ptr_nonnull(strstr(pgn, "[SetUp \"1\"]\n[FEN \"rnbqkbnr/"
                                      "pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w "
                                      "KQkq - 0 7\"]\n\n7. e4 1-0\n"));
    free(pgn);
    record_clear(&r);
}
END_TEST

START_TEST(tags_are_escaped_and_missing_ones_filled)
{
    struct pgn_tags t = {0};
    struct record r;
    char *pgn;

    t.white = "Ann \"the \\ rook\"";
    t.black = "two\nlines\tand tab";
    t.result = "2-0"; /* not a result: written as "*" in both places */
    record_of(&r, FEN_START, "");
    pgn = pgn_format(&t, &r, NULL, NULL);
    ck_assert_ptr_nonnull(pgn);
    ck_assert_str_eq(pgn, "[Event \"?\"]\n"
                          "[Site \"?\"]\n"
                          "[Date \"????.??.??\"]\n"
                          "[Round \"-\"]\n"
                          "[White \"Ann \\\"the \\\\ rook\\\"\"]\n"
                          "[Black \"two lines and tab\"]\n"
                          "[Result \"*\"]\n"
                          "[TimeControl \"-\"]\n"
                          "[Termination \"?\"]\n"
                          "\n"
                          "*\n");
    free(pgn);
    record_clear(&r);
}
END_TEST

/* The next movetext token starting at p (a whole { comment } is one). */
static size_t token_len(const char *p)
{
    if (*p == '{')
        return strcspn(p, "}") + 1;
    return strcspn(p, " \n");
}

START_TEST(long_games_wrap_at_80_and_read_back)
{
    unsigned long long seed = 0x9e3779b97f4a7c15ULL + (unsigned)_i;
    struct record r;
    struct board b;
    int64_t clk[400];
    char *pgn, *movetext, *line;
    size_t ply = 0, lines = 0;

    /* a random game from a random early position, Black to move half of
     * the time; clocks on even-numbered runs */
    testutil_board(&b, FEN_START);
    ck_assert_int_eq(record_init(&r, &b), 0);
    for (int i = 0; i < 400; i++) {
        struct movelist ml;
        if (movegen_legal(&r.cur, &ml) == 0 || record_outcome(&r))
            break;
        move_t m = ml.moves[testutil_rand(&seed) % (unsigned)ml.n];
        if (i < (int)(_i % 3)) { /* shift the start off the initial one */
            struct board start = r.cur;
            board_make(&start, m, &(struct board_undo){0});
            record_clear(&r);
            ck_assert_int_eq(record_init(&r, &start), 0);
            continue;
        }
        ck_assert_int_eq(record_push(&r, m), 0);
        clk[r.n - 1] = (int64_t)(testutil_rand(&seed) % 40000000);
    }
    pgn = pgn_format(&casual, &r, _i % 2 == 0 ? clk : NULL, NULL);
    ck_assert_ptr_nonnull(pgn);

    movetext = strstr(pgn, "\n\n");
    ck_assert_ptr_nonnull(movetext);
    movetext += 2;
    /* every line fits, and breaks only where the next token would not */
    for (line = pgn; *line; line += strcspn(line, "\n") + 1) {
        size_t len = strcspn(line, "\n");
        ck_assert_msg(len <= 80, "line of %zu: %.*s", len, (int)len, line);
        if (line >= movetext && line[len] == '\n' && line[len + 1]) {
            ck_assert_uint_gt(len + 1 + token_len(line + len + 1), 80);
            lines++;
        }
    }
    ck_assert_uint_gt(lines, 2);

    /* replaying the SAN tokens gives back the moves */
    b = r.start;
    for (const char *p = movetext; *p;) {
        size_t n;
        char tok[32];
        while (*p == ' ' || *p == '\n')
            p++;
        if (!*p)
            break;
        n = token_len(p);
        ck_assert(n < sizeof tok);
        memcpy(tok, p, n);
        tok[n] = '\0';
        p += n;
        if (tok[0] == '{' ||
            (tok[0] >= '0' && tok[0] <= '9' && strchr(tok, '.')))
            continue; /* comment or move number */
        if (!strcmp(tok, "1-0") || !strcmp(tok, "0-1") ||
            !strcmp(tok, "1/2-1/2") || !strcmp(tok, "*")) {
            ck_assert_uint_eq(ply, r.n);
            ck_assert_str_eq(tok, "1-0");
            ck_assert_str_eq(p, "\n");
            break;
        }
        move_t m;
        ck_assert_uint_lt(ply, r.n);
        ck_assert_msg(notation_parse_san(&b, tok, &m) == 0, "SAN %s", tok);
        ck_assert_uint_eq(m, r.moves[ply]);
        board_make(&b, m, &(struct board_undo){0});
        ply++;
    }
    ck_assert_uint_eq(ply, r.n);
    free(pgn);
    record_clear(&r);
}
END_TEST

static Suite *pgn_suite(void)
{
    Suite *s = suite_create("pgn");
    TCase *tc = tcase_create("pgn");

    tcase_add_test(tc, scholars_mate_with_clocks);
    tcase_add_test(tc, clock_format_hours_and_rounding);
    tcase_add_test(tc, setup_position_with_black_to_move);
    tcase_add_test(tc, lag_totals_follow_termination);
    tcase_add_test(tc, eco_and_opening_after_time_control);
    tcase_add_test(tc, standard_start_with_other_move_number_is_a_setup);
    tcase_add_test(tc, tags_are_escaped_and_missing_ones_filled);
    tcase_add_loop_test(tc, long_games_wrap_at_80_and_read_back, 0, 12);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(pgn_suite());
}
