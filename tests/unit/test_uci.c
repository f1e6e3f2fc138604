/*
 * test_uci.c - the UCI text (server/engine/uci.h): the engine's lines
 * (id name, uciok, readyok, info with its score and pv, bestmove with
 * and without ponder, no move), malformed ones (UCI_BAD), lines UCI says
 * to ignore (UCI_OTHER); and the commands written: go with each limit
 * and the clocks, position from the start or a FEN, with and without
 * moves, and what does not fit. The computer's levels are lichess's.
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "engine/levels.h"
#include "engine/pool.h"
#include "engine/uci.h"

START_TEST(handshake_lines)
{
    struct uci_line l;

    ck_assert_int_eq(uci_parse_line("uciok", &l), UCI_UCIOK);
    ck_assert_int_eq(uci_parse_line("readyok\r", &l), UCI_READYOK);
    ck_assert_int_eq(uci_parse_line("id name Stockfish 15.1", &l),
                     UCI_ID_NAME);
    ck_assert_str_eq(l.name, "Stockfish 15.1");
    ck_assert_int_eq(uci_parse_line("id author the Stockfish developers", &l),
                     UCI_OTHER);
    ck_assert_int_eq(
        uci_parse_line("option name Skill Level type spin default 20 min 0 "
                       "max 20",
                       &l),
        UCI_OTHER);
    ck_assert_int_eq(uci_parse_line("", &l), UCI_OTHER);
    ck_assert_int_eq(uci_parse_line("   ", &l), UCI_OTHER);
    ck_assert_int_eq(uci_parse_line("Stockfish 15.1 by the developers", &l),
                     UCI_OTHER);
}
END_TEST

START_TEST(info_score_and_pv)
{
    struct uci_line l;

    ck_assert_int_eq(
        uci_parse_line("info depth 12 seldepth 17 multipv 1 score cp 31 "
                       "nodes 123456 nps 900000 hashfull 12 tbhits 0 time "
                       "137 pv e2e4 e7e5 g1f3 b8c6",
                       &l),
        UCI_INFO);
    ck_assert(l.info.has_depth && l.info.depth == 12);
    ck_assert(l.info.has_score && !l.info.mate && l.info.score == 31);
    ck_assert(!l.info.bound);
    ck_assert(l.info.has_nodes && l.info.nodes == 123456);
    ck_assert_int_eq(l.info.multipv, 1);
    ck_assert(l.info.has_pv);
    ck_assert_str_eq(l.info.pv, "e2e4 e7e5 g1f3 b8c6");

    ck_assert_int_eq(
        uci_parse_line("info depth 5 score mate -3 pv h7h8q", &l), UCI_INFO);
    ck_assert(l.info.mate && l.info.score == -3);
    ck_assert_str_eq(l.info.pv, "h7h8q");

    ck_assert_int_eq(
        uci_parse_line("info depth 20 multipv 2 score cp -15 upperbound "
                       "nodes 9 pv d2d4",
                       &l),
        UCI_INFO);
    ck_assert(l.info.bound && l.info.score == -15 && l.info.multipv == 2);

    /* without a score; currmove's move is skipped, not a pv */
    ck_assert_int_eq(
        uci_parse_line("info depth 10 currmove e2e4 currmovenumber 1", &l),
        UCI_INFO);
    ck_assert(!l.info.has_score && !l.info.has_pv && l.info.depth == 10);
    /* free text after string is no field */
    ck_assert_int_eq(
        uci_parse_line("info string NNUE evaluation using nn.nnue score x",
                       &l),
        UCI_INFO);
    ck_assert(!l.info.has_score);
    /* unknown tokens are skipped, as UCI asks */
    ck_assert_int_eq(
        uci_parse_line("info wdl 300 500 200 depth 3 score cp 5", &l),
        UCI_INFO);
    ck_assert(l.info.has_score && l.info.score == 5 && l.info.depth == 3);
}
END_TEST

START_TEST(info_pv_cut)
{
    char line[1024] = "info depth 40 score cp 1 pv";
    struct uci_line l;

    for (int i = 0; i < UCI_PV_MOVES + 10; i++)
        strcat(line, i % 2 ? " e7e5" : " e2e4");
    ck_assert_int_eq(uci_parse_line(line, &l), UCI_INFO);
    ck_assert_uint_eq(strlen(l.info.pv), UCI_PV_MOVES * 5 - 1);
    /* a pv ends at its first token that is no move */
    ck_assert_int_eq(uci_parse_line("info score cp 3 pv e2e4 xx e7e5", &l),
                     UCI_INFO);
    ck_assert_str_eq(l.info.pv, "e2e4");
}
END_TEST

START_TEST(info_malformed)
{
    static const char *const bad[] = {
        "info score",
        "info score cp",
        "info score cp abc",
        "info score centipawns 30",
        "info score mate 1.5",
        "info depth",
        "info depth -3",
        "info depth 12x score cp 1",
        "info nodes 99999999999999999999999",
        "info score cp 300000",
    };
    struct uci_line l;

    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(uci_parse_line(bad[i], &l) == UCI_BAD, "%s", bad[i]);
}
END_TEST

START_TEST(bestmove_lines)
{
    struct uci_line l;

    ck_assert_int_eq(uci_parse_line("bestmove e2e4", &l), UCI_BESTMOVE);
    ck_assert_str_eq(l.best, "e2e4");
    ck_assert_str_eq(l.ponder, "");
    ck_assert_int_eq(uci_parse_line("bestmove e7e8q ponder d8e8\r", &l),
                     UCI_BESTMOVE);
    ck_assert_str_eq(l.best, "e7e8q");
    ck_assert_str_eq(l.ponder, "d8e8");
    ck_assert_int_eq(uci_parse_line("bestmove (none)", &l), UCI_BESTMOVE);
    ck_assert_str_eq(l.best, "");
    ck_assert_int_eq(uci_parse_line("bestmove 0000", &l), UCI_BESTMOVE);
    ck_assert_str_eq(l.best, "");

    ck_assert_int_eq(uci_parse_line("bestmove", &l), UCI_BAD);
    ck_assert_int_eq(uci_parse_line("bestmove e9e4", &l), UCI_BAD);
    ck_assert_int_eq(uci_parse_line("bestmove E2E4", &l), UCI_BAD);
    ck_assert_int_eq(uci_parse_line("bestmove e2e4e5", &l), UCI_BAD);
    ck_assert_int_eq(uci_parse_line("bestmove e2e4 foo d7d5", &l), UCI_BAD);
    ck_assert_int_eq(uci_parse_line("bestmove e9?? ponder !!", &l), UCI_BAD);
}
END_TEST

START_TEST(go_text)
{
    struct uci_budget b = {0};
    char buf[200];

    ck_assert(!uci_budget_limited(&b));
    ck_assert_uint_gt(uci_go_text(&b, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "go");
    b.movetime_ms = 300;
    b.depth = 5;
    ck_assert(uci_budget_limited(&b));
    uci_go_text(&b, buf, sizeof buf);
    ck_assert_str_eq(buf, "go movetime 300 depth 5");
    b = (struct uci_budget){.nodes = 150};
    uci_go_text(&b, buf, sizeof buf);
    ck_assert_str_eq(buf, "go nodes 150");
    b = (struct uci_budget){.clock = true,
                            .wtime_ms = 60000,
                            .btime_ms = 0,
                            .winc_ms = 2000,
                            .binc_ms = 2000,
                            .movetime_ms = 1000,
                            .depth = 22};
    ck_assert(uci_budget_limited(&b));
    uci_go_text(&b, buf, sizeof buf);
    /* (a clock at 0 is said 1: UCI's engines take 0 for none) */
    ck_assert_str_eq(buf, "go wtime 60000 btime 1 winc 2000 binc 2000 "
                          "movetime 1000 depth 22");
    ck_assert_uint_eq(uci_go_text(&b, buf, 10), 0);
}
END_TEST

START_TEST(position_text)
{
    char buf[200];

    ck_assert_uint_eq(uci_position_text(NULL, NULL, buf, sizeof buf),
                      strlen("position startpos"));
    ck_assert_str_eq(buf, "position startpos");
    uci_position_text("", "e2e4 e7e5", buf, sizeof buf);
    ck_assert_str_eq(buf, "position startpos moves e2e4 e7e5");
    uci_position_text("8/8/8/8/8/8/k7/K6Q w - - 0 1", "", buf, sizeof buf);
    ck_assert_str_eq(buf, "position fen 8/8/8/8/8/8/k7/K6Q w - - 0 1");
    uci_position_text("8/8/8/8/8/8/k7/K6Q w - - 0 1", "h1h2", buf,
                      sizeof buf);
    ck_assert_str_eq(buf,
                     "position fen 8/8/8/8/8/8/k7/K6Q w - - 0 1 moves h1h2");
    ck_assert_uint_eq(uci_position_text(NULL, "e2e4", buf, 10), 0);
}
END_TEST

START_TEST(levels_are_lichess)
{
    static const int skill[] = {-9, -5, -1, 3, 7, 11, 16, 20};
    static const int depth[] = {5, 5, 5, 5, 5, 8, 13, 22};
    static const int movetime[] = {50, 100, 150, 200, 300, 400, 500, 1000};

    ck_assert_ptr_null(engine_level(0));
    ck_assert_ptr_null(engine_level(9));
    for (int l = 1; l <= 8; l++) {
        const struct engine_level *e = engine_level(l);
        ck_assert_int_eq(e->level, l);
        ck_assert_int_eq(e->lichess_skill, skill[l - 1]);
        ck_assert_int_eq(e->depth, depth[l - 1]);
        ck_assert_int_eq(e->movetime_ms, movetime[l - 1]);
        /* Debian's Stockfish takes 0-20: below 0, Skill Level 0 choosing
         * among more moves the weaker the level */
        ck_assert(e->skill >= 0 && e->skill <= 20);
        ck_assert(skill[l - 1] >= 0
                      ? e->skill == skill[l - 1] && e->multipv == 1
                      : e->skill == 0 && e->multipv >= 4);
        if (l > 1 && e->skill == 0)
            ck_assert_int_lt(e->multipv, engine_level(l - 1)->multipv);
    }
    /* a move's request at level 2, as the computer asks it */
    struct engine_ask q = {0};
    char go[100];
    engine_level_ask(engine_level(2), &q);
    ck_assert_int_eq(q.n_options, 2);
    ck_assert_str_eq(q.options[0].name, "Skill Level");
    ck_assert_str_eq(q.options[0].value, "0");
    ck_assert_str_eq(q.options[1].name, "MultiPV");
    ck_assert_str_eq(q.options[1].value, "6");
    uci_go_text(&q.budget, go, sizeof go);
    ck_assert_str_eq(go, "go movetime 100 depth 5");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("uci");
    TCase *tc = tcase_create("uci");

    tcase_add_test(tc, handshake_lines);
    tcase_add_test(tc, info_score_and_pv);
    tcase_add_test(tc, info_pv_cut);
    tcase_add_test(tc, info_malformed);
    tcase_add_test(tc, bestmove_lines);
    tcase_add_test(tc, go_text);
    tcase_add_test(tc, position_text);
    tcase_add_test(tc, levels_are_lichess);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(suite());
}
