/*
 * test_swiss.c - the Swiss pairing engine (common/swiss/): the matching
 * against a brute force, the pairing cases of tests/data/swiss/ (from
 * bbpPairings and worked by hand), the TRF reader's every error with its
 * line and column, a TRF round trip, and the differential: thousands of
 * random tournaments paired round by round and checked (swissgen.c).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dutch.h"
#include "matching.h"
#include "swissgen.h"
#include "trf.h"
#include "check_main.h"

/* Brute force: the best matching weight of edges e[k..m). */
static void best_rec(const struct matching_edge *e, int m, int k, bool *used,
                     wide w, wide *best)
{
    if (k == m) {
        if (wide_cmp(w, *best) > 0)
            *best = w;
        return;
    }
    best_rec(e, m, k + 1, used, w, best);
    if (used[e[k].u] || used[e[k].v])
        return;
    used[e[k].u] = used[e[k].v] = true;
    best_rec(e, m, k + 1, used, wide_add(w, e[k].w), best);
    used[e[k].u] = used[e[k].v] = false;
}

START_TEST(matching_brute_force)
{
    uint64_t s = 12345;
    for (int it = 0; it < 5000; it++) {
        struct matching_edge e[45];
        int n = 2 + (int)(s % 9), m = 0, mate[10];
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) {
                s = s * 6364136223846793005ULL + 1442695040888963407ULL;
                if ((s >> 60) % 3 == 0)
                    continue;
                /* weights in a high limb and the lowest: wide carries */
                e[m] = (struct matching_edge){i, j, wide_zero()};
                e[m].w = wide_add_at(e[m].w, (s >> 33) % 7, 150);
                e[m].w = wide_add_at(e[m].w, (s >> 40) % 1000, 60);
                m++;
            }
        ck_assert_int_eq(matching_max_weight(n, e, m, mate, NULL), 0);
        wide got = wide_zero(), best = wide_zero();
        for (int k = 0; k < m; k++)
            if (mate[e[k].u] == e[k].v) {
                ck_assert_int_eq(mate[e[k].v], e[k].u);
                got = wide_add(got, e[k].w);
            }
        bool used[10] = {0};
        best_rec(e, m, 0, used, wide_zero(), &best);
        ck_assert_msg(wide_cmp(got, best) == 0, "iteration %d", it);
        /* The certificate: solved on the first half of the edges, the
         * matching is as heavy as the best over all of them exactly when
         * the dual solution admits every edge left out. */
        struct matching_cert cert;
        int half = m / 2;
        ck_assert_int_eq(matching_max_weight(n, e, half, mate, &cert), 0);
        wide part = wide_zero();
        for (int k = 0; k < half; k++)
            if (mate[e[k].u] == e[k].v)
                part = wide_add(part, e[k].w);
        bool all = true;
        for (int k = half; k < m; k++)
            all &= matching_cert_admits(&cert, e[k].u, e[k].v, e[k].w);
        matching_cert_free(&cert);
        if (all)
            ck_assert_msg(wide_cmp(part, best) == 0, "iteration %d", it);
        else
            ck_assert_msg(wide_cmp(part, best) < 0 || half < m,
                          "iteration %d", it);
    }
}
END_TEST

static char *slurp(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/swiss/%s", getenv("CHESS_TEST_DATA"),
             name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *s = malloc(n + 1);
    memcpy(s, buf, n + 1);
    return s;
}

/* Pairs data file name.trf and compares with name.pairs. */
static void expect_pairs(const char *name)
{
    char file[128];
    snprintf(file, sizeof file, "%s.trf", name);
    char *text = slurp(file);
    struct trf_file f;
    struct trf_error err;
    ck_assert_msg(trf_parse(text, strlen(text), &f, &err) == 0, "%s:%d:%d %s",
                  file, err.line, err.col, err.msg);
    struct dutch_pair out[64];
    int n;
    ck_assert_int_eq(dutch_pair(&f.ev, out, &n), DUTCH_OK);
    char got[1024];
    int len = snprintf(got, sizeof got, "%d\n", n);
    for (int i = 0; i < n; i++)
        len += snprintf(got + len, sizeof got - (size_t)len, "%d %d\n",
                        out[i].white, out[i].black);
    snprintf(file, sizeof file, "%s.pairs", name);
    char *want = slurp(file);
    ck_assert_str_eq(got, want);
    free(want);
    free(text);
    trf_free(&f);
}

START_TEST(bbp_2025_c5)
{
    expect_pairs("bbp-2025-c5");
}
END_TEST

START_TEST(bbp_2025_c9)
{
    expect_pairs("bbp-2025-c9");
}
END_TEST

START_TEST(hand_round1)
{
    expect_pairs("round1-even");
    expect_pairs("round1-odd-black1");
}
END_TEST

START_TEST(hand_round2_colours)
{
    expect_pairs("round2-colours");
    expect_pairs("round2-transposition");
}
END_TEST

/* Round 1 of a big event: the rules' first candidate, S1[i] against
 * S2[i], with the initial colour to the odd-numbered higher player (E.5);
 * past the weight's bits for the exact order of S1, the tie-break that
 * keeps every player by his natural partner must still find it. */
START_TEST(round1_big)
{
    enum { N = 400 };
    struct swiss_event ev = {
        .players = N, .total_rounds = 9, .first_colour = 'w'};
    struct swiss_game g;
    ev.games = &g;
    swiss_points_standard(&ev.points);
    struct dutch_pair out[N / 2 + 1];
    int n;
    ck_assert_int_eq(dutch_pair(&ev, out, &n), DUTCH_OK);
    ck_assert_int_eq(n, N / 2);
    for (int i = 1; i <= N / 2; i++) {
        int w = i % 2 ? i : i + N / 2, b = i % 2 ? i + N / 2 : i;
        ck_assert_int_eq(out[i - 1].white, w);
        ck_assert_int_eq(out[i - 1].black, b);
    }
}
END_TEST

START_TEST(hand_round2_remainder)
{
    expect_pairs("round2-remainder");
}
END_TEST

START_TEST(hand_round2_no_repeat_float)
{
    expect_pairs("round2-no-repeat-float");
}
END_TEST

/* A 001 line: player n, points, then "OPP C R" round entries. */
static void player_line(char *out, size_t cap, int n, const char *pts,
                        const char *rounds)
{
    int len = snprintf(out, cap,
                       "001 %4d      %-33s %4s %3s %11s %10s "
                       "%4s %4s",
                       n, "Player", "2000", "", "", "", pts, "");
    for (const char *r = rounds; *r;) {
        int opp;
        char c, res;
        int used;
        sscanf(r, "%d %c %c%n", &opp, &c, &res, &used);
        len += snprintf(out + len, cap - (size_t)len, "  %4d %c %c", opp, c,
                        res);
        r += used;
        while (*r == ' ')
            r++;
    }
    snprintf(out + len, cap - (size_t)len, "\n");
}

/* Two players who drew in round 1, and extra lines. */
static char *two_players(const char *extra, const char *p1_pts)
{
    static char text[4096];
    char a[256], b[256];
    player_line(a, sizeof a, 1, p1_pts, "2 w =");
    player_line(b, sizeof b, 2, "0.5", "1 b =");
    snprintf(text, sizeof text, "012 Test\n%s%s%s", a, b, extra);
    return text;
}

struct bad_case {
    const char *text; /* NULL: built by the test */
    int line, col;
    const char *says;
};

static void expect_error(const char *text, int line, int col,
                         const char *says)
{
    struct trf_file f;
    struct trf_error err;
    ck_assert_msg(trf_parse(text, strlen(text), &f, &err) == -1, "%s", text);
    ck_assert_msg(err.line == line && err.col == col && strstr(err.msg, says),
                  "want %d:%d \"%s\", got %d:%d \"%s\" for:\n%s", line, col,
                  says, err.line, err.col, err.msg, text);
    ck_assert_ptr_null(f.ev.games);
}

/* Replaces column col (1-based) of line `line` of text with s. */
static char *patch(const char *text, int line, int col, const char *s)
{
    static char out[4096];
    snprintf(out, sizeof out, "%s", text);
    char *p = out;
    for (int l = 1; l < line; l++)
        p = strchr(p, '\n') + 1;
    memcpy(p + col - 1, s, strlen(s));
    return out;
}

START_TEST(trf_errors)
{
    const char *good = two_players("XXR 3\n", "0.5");
    struct trf_file f;
    struct trf_error err;
    ck_assert_int_eq(trf_parse(good, strlen(good), &f, &err), 0);
    ck_assert_int_eq(f.ev.players, 2);
    ck_assert_int_eq(f.ev.rounds, 1);
    ck_assert_int_eq(f.ev.total_rounds, 3);
    trf_free(&f);
    const struct bad_case cases[] = {
        {"ABC x\n", 1, 1, "unknown line code"},
        {"01\n", 1, 1, "three-character code"},
        {"001x\n", 1, 4, "three-character code"},
        {"012 a\x01z\n", 1, 6, "control character"},
        {"012 only a header\n", 1, 0, "no player (001) lines"},
        {NULL, 2, 5, "starting number"},     /* "   x" */
        {NULL, 2, 49, "rating"},             /* "20x0" */
        {NULL, 2, 81, "points"},             /* "1..5" */
        {NULL, 2, 90, "two blanks"},         /* separator */
        {NULL, 2, 92, "opponent"},           /* "  a2" */
        {NULL, 2, 96, "a blank"},            /* "2xw" */
        {NULL, 2, 97, "colour"},             /* 'x' */
        {NULL, 2, 99, "result"},             /* 'Q' */
        {NULL, 2, 97, "needs colour"},       /* '-' with '=' */
        {NULL, 2, 99, "has no result"},      /* ' ' */
        {NULL, 2, 81, "add up to"},          /* points 1.0 */
        {NULL, 2, 0, "does not match"},      /* opponent 2 says 1 won */
        {NULL, 3, 5, "there are 2 players"}, /* number 3 of 2 */
        {NULL, 3, 5, "used twice"},          /* number 1 twice */
        {NULL, 4, 5, "XXR needs"},
        {NULL, 4, 7, "XXR takes one"},
        {NULL, 4, 5, "XXC: unsupported"},
        {NULL, 4, 4, "XXC needs"},
        {NULL, 4, 5, "XXS: expected"},
        {NULL, 4, 7, "XXS: the points"},
        {NULL, 4, 4, "XXS needs"},
        {NULL, 4, 1, "accelerated pairings"},
        {NULL, 4, 4097, "too long"},
        {NULL, 2, 1082, "more than 99 rounds"},
        {NULL, 2, 109, "only a bye or an absence"},
        {NULL, 0, 0, "round 1 has no entry for anyone"},
    };
    char big[6000];
    memset(big, 'x', sizeof big);
    memcpy(big, "012 ", 4);
    big[5000] = '\n';
    big[5001] = '\0';
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *t = cases[i].text;
        char buf[4096];
        switch (i) {
        case 5:
            t = patch(good, 2, 5, "   x");
            break;
        case 6:
            t = patch(good, 2, 49, "20x0");
            break;
        case 7:
            t = patch(good, 2, 81, "1..5");
            break;
        case 8:
            t = patch(good, 2, 90, "x");
            break;
        case 9:
            t = patch(good, 2, 92, "  a2");
            break;
        case 10:
            t = patch(good, 2, 96, "x");
            break;
        case 11:
            t = patch(good, 2, 97, "x");
            break;
        case 12:
            t = patch(good, 2, 99, "Q");
            break;
        case 13:
            t = patch(good, 2, 97, "-");
            break;
        case 14:
            t = patch(good, 2, 99, " ");
            break;
        case 15:
            t = patch(good, 2, 81, " 1.0");
            break;
        case 16:
            snprintf(buf, sizeof buf, "%s", patch(good, 3, 99, "1"));
            t = patch(buf, 3, 81, " 1.0");
            break;
        case 17:
            t = patch(good, 3, 5, "   3");
            break;
        case 18:
            t = patch(good, 3, 5, "   1");
            break;
        case 19:
            t = two_players("XXR 0\n", "0.5");
            break;
        case 20:
            t = two_players("XXR 3 4\n", "0.5");
            break;
        case 21:
            t = two_players("XXC green1\n", "0.5");
            break;
        case 22:
            t = two_players("XXC\n", "0.5");
            break;
        case 23:
            t = two_players("XXS Q=1\n", "0.5");
            break;
        case 24:
            t = two_players("XXS W=x\n", "0.5");
            break;
        case 25:
            t = two_players("XXS\n", "0.5");
            break;
        case 26:
            t = two_players("XXA 1 2\n", "0.5");
            break;
        case 27:
            snprintf(buf, sizeof buf, "%s", two_players("", "0.5"));
            t = NULL;
            {
                static char longer[12000];
                snprintf(longer, sizeof longer, "%s%s", buf, big);
                t = longer;
            }
            break;
        case 28: {
            static char many[2048];
            const char *p1 = strchr(good, '\n') + 1;
            int len = snprintf(many, sizeof many, "012 Test\n%.89s", p1);
            for (int r = 0; r < 100; r++)
                len += snprintf(many + len, sizeof many - (size_t)len,
                                "  0000 - Z");
            snprintf(many + len, sizeof many - (size_t)len, "\n");
            t = many;
            break;
        }
        case 29:   /* a game result set in the round to pair */
        case 30: { /* round 1 empty, round 2 to pair */
            static char text[1024];
            char a[256], b[256];
            player_line(a, sizeof a, 1, i == 29 ? "0.5" : "0.0",
                        i == 29 ? "2 w = 0 b 0" : "0 - Z 0 - Z");
            player_line(b, sizeof b, 2, i == 29 ? "0.5" : "0.0",
                        i == 29 ? "1 b =" : "");
            snprintf(text, sizeof text, "012 Test\n%s%s", a, b);
            t = i == 29 ? text : patch(text, 2, 99, " ");
            break;
        }
        default:
            break;
        }
        expect_error(t, cases[i].line, cases[i].col, cases[i].says);
    }
}
END_TEST

START_TEST(trf_round_trip)
{
    char *text = slurp("bbp-2025-c5.trf");
    struct trf_file f, g;
    struct trf_error err;
    ck_assert_int_eq(trf_parse(text, strlen(text), &f, &err), 0);
    ck_assert_int_eq(f.ev.rounds, 2); /* round 3 to pair, 4 set aside */
    ck_assert(f.ev.absent[3] && !f.ev.absent[0]);
    char *out = trf_write(&f);
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(trf_parse(out, strlen(out), &g, &err), 0);
    ck_assert_int_eq(g.ev.players, f.ev.players);
    ck_assert_int_eq(g.ev.rounds, f.ev.rounds);
    ck_assert_int_eq(g.ev.total_rounds, 3);
    ck_assert_int_eq(memcmp(g.ev.games, f.ev.games,
                            (size_t)f.ev.players * 2 * sizeof *f.ev.games),
                     0);
    ck_assert_str_eq(g.player[0].name, "Test0001 Player0001");
    ck_assert_int_eq(g.player[0].rating, 2720);
    ck_assert(strstr(out, "012 Dutch 2025 C5 test\n") == out);
    free(out);
    free(text);
    trf_free(&f);
    trf_free(&g);
}
END_TEST

/* Forbidden pairs (XXP, as bbpPairings reads them): round1-even's pairing
 * 1-4 5-2 3-6 changes when 1-4 is forbidden, and no board pairs a
 * forbidden pair; a line of three forbids its three pairs; trf_write
 * writes them back; two players forbidden to meet are unpairable; a bad
 * XXP line, and TRF-2026's 260, are refused where they go wrong; so are
 * its other records that would change the round (byes 240,
 * acceleration 250, scoring 162, abnormal points 299, teams), and its 152
 * (the initial colour) is read as XXC. */
START_TEST(trf_forbidden)
{
    char *even = slurp("round1-even.trf");
    char text[4096];
    struct trf_file f, g;
    struct trf_error err;
    struct dutch_pair out[8];
    int n;

    snprintf(text, sizeof text, "%sXXP 1 4\nXXP 2 5 6\n", even);
    ck_assert_msg(trf_parse(text, strlen(text), &f, &err) == 0, "%d:%d %s",
                  err.line, err.col, err.msg);
    ck_assert_int_eq(f.ev.n_forbidden, 4);
    const int want[] = {1, 4, 2, 5, 2, 6, 5, 6};
    ck_assert_int_eq(memcmp(f.ev.forbidden, want, sizeof want), 0);
    ck_assert_int_eq(dutch_pair(&f.ev, out, &n), DUTCH_OK);
    ck_assert_int_eq(n, 3);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 4; k++) {
            int a = want[2 * k], b = want[2 * k + 1];
            ck_assert_msg(!((out[i].white == a && out[i].black == b) ||
                            (out[i].white == b && out[i].black == a)),
                          "board %d pairs forbidden %d-%d", i + 1, a, b);
        }
    char *w = trf_write(&f);
    ck_assert_ptr_nonnull(w);
    ck_assert_ptr_nonnull(strstr(w, "XXC white1\nXXP 1 4\nXXP 2 5\n"
                                    "XXP 2 6\nXXP 5 6\n"));
    ck_assert_int_eq(trf_parse(w, strlen(w), &g, &err), 0);
    ck_assert_int_eq(g.ev.n_forbidden, 4);
    ck_assert_int_eq(memcmp(g.ev.forbidden, want, sizeof want), 0);
    free(w);
    trf_free(&g);
    trf_free(&f);

    /* two players who may not meet: no round 1 */
    const char *two = "001    1      A                                 2000\n"
                      "001    2      B                                 1900\n"
                      "XXR 3\nXXP 2 1\n";
    ck_assert_int_eq(trf_parse(two, strlen(two), &f, &err), 0);
    ck_assert_int_eq(dutch_pair(&f.ev, out, &n), DUTCH_UNPAIRABLE);
    trf_free(&f);

    const struct {
        const char *extra;
        int col;
        const char *says;
    } bad[] = {
        {"XXP 1\n", 6, "XXP needs two or more"},
        {"XXP\n", 4, "XXP needs two or more"},
        {"XXP 1 x2\n", 7, "XXP: expected starting numbers"},
        {"XXP 1 0\n", 7, "XXP: expected starting numbers"},
        {"XXP 2 1 2\n", 9, "XXP: player 2 is listed twice"},
        {"XXP 1 7\n", 7, "XXP: player 7 is not in the file (6 players)"},
        {"260   1   3    1    4\n", 1, "260: forbidden pairs by rounds"},
        /* TRF-2026's records that change the round to pair, not read */
        {"240 H 002    3\n", 1, "240: byes by record (TRF-2026)"},
        {"250 00.0 01.0 001 003 0001 0003\n", 1,
         "250: accelerated rounds are not supported"},
        {"162 W 3.0\n", 1, "162: a scoring system (TRF-2026)"},
        {"299 H       0.5 002 0003\n", 1, "299: abnormal point"},
        {"310   1 Club\n", 1, "310: team tournaments are not supported"},
        {"152 X\n", 5, "152: the initial colour is W or B"},
        {"152 Black\n", 5, "152: the initial colour is W or B"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(text, sizeof text, "%s%s", even, bad[i].extra);
        expect_error(text, 9, bad[i].col, bad[i].says);
    }
    /* the caps: 64 players a line (the 65th's column), 4096 pairs */
    int len = snprintf(text, sizeof text, "%sXXP", even);
    for (int p = 1; p <= 65; p++)
        len += snprintf(text + len, sizeof text - (size_t)len, " %d", p);
    snprintf(text + len, sizeof text - (size_t)len, "\n");
    expect_error(text, 9, 3 + 2 * 9 + 3 * 55 + 2, "more than 64 players");
    size_t cap = strlen(even) + 4097 * 8 + 1;
    char *many = malloc(cap);
    size_t at = (size_t)snprintf(many, cap, "%s", even);
    for (int i = 0; i < 4097; i++)
        at += (size_t)snprintf(many + at, cap - at, "XXP 1 2\n");
    expect_error(many, 8 + 4097, 7, "more than 4096 forbidden pairs");
    many[at - 8] = '\0'; /* 4096 pairs: read */
    ck_assert_int_eq(trf_parse(many, strlen(many), &f, &err), 0);
    ck_assert_int_eq(f.ev.n_forbidden, 4096);
    trf_free(&f);
    free(many);
    free(even);
}
END_TEST

/* TRF-2026's 152 (the initial colour) is read as XXC: the hand-checked
 * round 1 with black first, its XXC black1 given as 152 B, pairs the
 * same; 152 W as white1. */
START_TEST(trf_152)
{
    char *text = slurp("round1-odd-black1.trf");
    char *xxc = strstr(text, "XXC black1\n");
    struct trf_file f, g;
    struct trf_error err;
    struct dutch_pair a[8], b[8];
    int na, nb;

    ck_assert_ptr_nonnull(xxc);
    ck_assert_int_eq(trf_parse(text, strlen(text), &f, &err), 0);
    memcpy(xxc, "152 B     \n", 11);
    ck_assert_msg(trf_parse(text, strlen(text), &g, &err) == 0, "%d:%d %s",
                  err.line, err.col, err.msg);
    ck_assert_int_eq(g.ev.first_colour, 'b');
    ck_assert_int_eq(dutch_pair(&f.ev, a, &na), DUTCH_OK);
    ck_assert_int_eq(dutch_pair(&g.ev, b, &nb), DUTCH_OK);
    ck_assert_int_eq(na, nb);
    ck_assert_int_eq(memcmp(a, b, (size_t)na * sizeof *a), 0);
    trf_free(&g);
    xxc[4] = 'W';
    ck_assert_int_eq(trf_parse(text, strlen(text), &g, &err), 0);
    ck_assert_int_eq(g.ev.first_colour, 'w');
    trf_free(&g);
    trf_free(&f);
    free(text);
}
END_TEST

/* Random events, every round checked: small ones (up to 13 players)
 * against a brute force of the top bracket and of unpairable verdicts,
 * larger ones on the absolute criteria. */
START_TEST(differential)
{
    long rounds = 0, brute = 0, unpairable = 0;
    for (int i = 0; i < 3000; i++) {
        struct swissgen_stats st = {0};
        int players = 3 + i % 11, nr = 3 + i % 5;
        ck_assert_msg(swissgen_run(players, nr, (uint64_t)i + 1, &st) == 0,
                      "seed %d, %d players, %d rounds: %s", i + 1, players,
                      nr, st.fail);
        rounds += st.rounds_paired;
        brute += st.brute_checked;
        unpairable += st.unpairable;
    }
    for (int i = 0; i < 60; i++) {
        struct swissgen_stats st = {0};
        int players = 20 + i, nr = 5 + i % 5;
        ck_assert_msg(swissgen_run(players, nr, (uint64_t)i + 7000, &st) == 0,
                      "seed %d, %d players: %s", i + 7000, players, st.fail);
        rounds += st.rounds_paired;
    }
    ck_assert_int_gt(rounds, 10000);
    ck_assert_int_gt(brute, 8000);
    ck_assert_int_gt(unpairable, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("swiss");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, matching_brute_force);
    tcase_add_test(tc, bbp_2025_c5);
    tcase_add_test(tc, bbp_2025_c9);
    tcase_add_test(tc, hand_round1);
    tcase_add_test(tc, hand_round2_colours);
    tcase_add_test(tc, hand_round2_remainder);
    tcase_add_test(tc, round1_big);
    tcase_add_test(tc, hand_round2_no_repeat_float);
    tcase_add_test(tc, trf_errors);
    tcase_add_test(tc, trf_round_trip);
    tcase_add_test(tc, trf_forbidden);
    tcase_add_test(tc, trf_152);
    suite_add_tcase(s, tc);
    /* the differential: its own case and test (meson: swiss_diff, in the
     * slow suite too, which the valgrind run leaves out) */
    TCase *diff = tcase_create("diff");
    tcase_set_timeout(diff, 600);
    tcase_add_test(diff, differential);
    suite_add_tcase(s, diff);
    return check_main(s);
}
