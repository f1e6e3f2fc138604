/*
 * test_pgnread.c - PGN import: the move tree of games with variations,
 * comments, NAGs and tags (written as a compact line for the
 * assertions); SAN as the rules core writes it; the lenient forms real
 * files use; several games in one text; every error with its line,
 * column and sentence; every limit; and our own export read back.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgn.h"
#include "pgnread.h"
#include "record.h"
#include "testutil.h"
#include "check_main.h"

#define NODES 256
#define TAGS 32
#define COMMENTS 64

static struct pgnread_node nodes[NODES];
static struct pgnread_tag tags[TAGS];
static struct pgnread_comment comments[COMMENTS];
static struct pgnread_tree tree;
static struct pgnread_err err;
static const struct pgnread_limits roomy = {1 << 20, 1000, 16};

/* Reads game index of text with limits lim and the arrays' sizes given;
 * returns pgnread_game's answer. */
static int read_sized(const char *text, int index,
                      const struct pgnread_limits *lim, int cap_nodes,
                      int cap_tags, int cap_comments)
{
    tree = (struct pgnread_tree){.nodes = nodes,
                                 .cap_nodes = cap_nodes,
                                 .tags = tags,
                                 .cap_tags = cap_tags,
                                 .comments = comments,
                                 .cap_comments = cap_comments};
    return pgnread_game(text, strlen(text), index, lim, &tree, &err);
}

static int read_pgn(const char *text)
{
    return read_sized(text, 0, &roomy, NODES, TAGS, COMMENTS);
}

/* Appends node n's SAN and NAGs ("$1"), then its variations in
 * parentheses, then its main line, as PGN orders them. with_siblings:
 * n is its parent's main move, whose alternatives follow it. */
static void line_text(int32_t n, bool with_siblings, char *out, size_t cap)
{
    bool first = true;

    while (n >= 0) {
        const struct pgnread_node *p = &tree.nodes[n];
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "%s%s",
                 len && out[len - 1] != '(' ? " " : "", p->san);
        for (int i = 0; i < p->n_nags; i++) {
            len = strlen(out);
            snprintf(out + len, cap - len, " $%d", p->nags[i]);
        }
        for (int32_t s = p->next_sibling; (with_siblings || !first) && s >= 0;
             s = tree.nodes[s].next_sibling) {
            len = strlen(out);
            snprintf(out + len, cap - len, " (");
            line_text(s, false, out, cap);
            len = strlen(out);
            snprintf(out + len, cap - len, ")");
        }
        first = false;
        n = p->first_child;
    }
}

/* The tree read last as one line: "e4 e5 (c5 Nf3) Nf3". */
static const char *tree_text(void)
{
    static char out[4096];

    out[0] = '\0';
    line_text(tree.first, true, out, sizeof out);
    return out;
}

static const char *span_text(const char *text, struct pgnread_span s)
{
    static char out[256];

    snprintf(out, sizeof out, "%.*s", (int)s.len, text + s.off);
    return out;
}

/* The Zobrist key of the position fen names. */
static uint64_t key_of(const char *fen)
{
    struct board b;

    testutil_board(&b, fen);
    return b.key;
}

static const char *message(void)
{
    static char out[256];

    pgnread_message(&err, out, sizeof out);
    return out;
}

/* Reads text, which must fail with code at line:column saying want. */
static void assert_error(const char *text, enum pgnread_error code, int line,
                         int column, const char *want)
{
    ck_assert_int_eq(read_pgn(text), -1);
    ck_assert_msg(err.code == code, "%s: code %d, not %d (%s)", text,
                  err.code, code, message());
    ck_assert_msg(err.line == line && err.column == column,
                  "%s: at %d:%d, not %d:%d", text, err.line, err.column, line,
                  column);
    ck_assert_str_eq(message(), want);
}

START_TEST(plain_game)
{
    const char *pgn = "[Event \"Casual\"]\n[White \"Ann\"]\n\n"
                      "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n";

    ck_assert_int_eq(read_pgn(pgn), 0);
    ck_assert_str_eq(tree_text(), "e4 e5 Nf3 Nc6 Bb5 a6");
    ck_assert_int_eq(tree.n_nodes, 6);
    ck_assert_int_eq(tree.n_tags, 2);
    ck_assert_str_eq(span_text(pgn, tree.tags[1].name), "White");
    ck_assert_str_eq(span_text(pgn, tree.tags[1].value), "Ann");
    ck_assert_str_eq(span_text(pgn, tree.result), "1-0");
    for (int i = 0; i < tree.n_nodes; i++) {
        ck_assert_int_eq(tree.nodes[i].parent, i - 1);
        ck_assert_int_eq(tree.nodes[i].ply, i + 1);
    }
    ck_assert_int_eq(tree.start.key, key_of(FEN_START));
}
END_TEST

/* Any SAN the rules core reads is written again as it writes it: check
 * marks added or dropped, "0-0" as "O-O", needless disambiguation gone. */
START_TEST(san_as_the_rules_core_writes_it)
{
    ck_assert_int_eq(read_pgn("1. Ng1f3 d5 2. g3 Nf6 3. Bg2 e6 4. 0-0 Be7+ "
                              "5. d3 0-0"),
                     0);
    ck_assert_str_eq(tree_text(), "Nf3 d5 g3 Nf6 Bg2 e6 O-O Be7 d3 O-O");
    ck_assert_int_eq(read_pgn("1. e4 f6 2. d4 g5 3. Qh5"), 0);
    ck_assert_str_eq(tree_text(), "e4 f6 d4 g5 Qh5#");
}
END_TEST

START_TEST(variations)
{
    ck_assert_int_eq(
        read_pgn("1. e4 e5 (1... c5 2. Nf3 (2. Nc3) 2... d6) 2. Nf3 *"), 0);
    ck_assert_str_eq(tree_text(), "e4 e5 (c5 Nf3 (Nc3) d6) Nf3");
    /* the order of the text: e4, e5, c5, Nf3, Nc3, d6, Nf3 */
    ck_assert_int_eq(tree.n_nodes, 7);
    ck_assert_int_eq(tree.nodes[2].parent, 0); /* c5 varies e5 */
    ck_assert_int_eq(tree.nodes[1].next_sibling, 2);
    ck_assert_int_eq(tree.nodes[4].parent, 2); /* Nc3 varies Nf3 */
    ck_assert_int_eq(tree.nodes[4].ply, 3);
    ck_assert_int_eq(tree.nodes[5].parent, 3); /* d6 after 2. Nf3 */
    ck_assert_int_eq(tree.nodes[6].parent, 1);
    /* two alternatives of one move, and one at the first move */
    ck_assert_int_eq(read_pgn("1. e4 (1. d4 d5) (1. c4) e5"), 0);
    ck_assert_str_eq(tree_text(), "e4 (d4 d5) (c4) e5");
    ck_assert_int_eq(tree.first, 0);
    ck_assert_int_eq(tree.nodes[1].parent, -1);
}
END_TEST

/* A variation repeating a move of the tree goes on from that move: no
 * node twice. An empty variation is nothing. */
START_TEST(same_move_merged)
{
    ck_assert_int_eq(read_pgn("1. e4 (1. e4 e5 2. Nf3) e5 2. Bc4 () *"), 0);
    ck_assert_str_eq(tree_text(), "e4 e5 Nf3 (Bc4)");
    ck_assert_int_eq(tree.n_nodes, 4);
}
END_TEST

START_TEST(comments_and_nags)
{
    const char *pgn = "{Game} 1. e4 $1 {best by test} e5!? ( {Sicilian:} "
                      "1... c5 $14 $14 ) ; rest\n2. Nf3!! ({x}) ?? *";

    ck_assert_int_eq(read_pgn(pgn), 0);
    ck_assert_str_eq(tree_text(), "e4 $1 e5 $5 (c5 $14) Nf3 $3 $4");
    ck_assert_int_eq(tree.n_comments, 4);
    ck_assert_int_eq(tree.comments[0].node, -1);
    ck_assert_str_eq(span_text(pgn, tree.comments[0].text), "Game");
    ck_assert_int_eq(tree.comments[1].node, 0);
    ck_assert(!tree.comments[1].before);
    ck_assert_str_eq(span_text(pgn, tree.comments[1].text), "best by test");
    ck_assert_int_eq(tree.comments[2].node, 2); /* c5's, before it */
    ck_assert(tree.comments[2].before);
    ck_assert_str_eq(span_text(pgn, tree.comments[2].text), "Sicilian:");
    ck_assert_int_eq(tree.comments[3].node, 1); /* ; to the line's end */
    ck_assert_str_eq(span_text(pgn, tree.comments[3].text), " rest");
}
END_TEST

START_TEST(tags_and_set_up_position)
{
    const char *pgn = "[Event \"A \\\"quoted\\\" \\\\ event\"]\n"
                      "[SetUp \"1\"]\n"
                      "[FEN \"4k3/8/8/8/8/8/8/4K2R b K - 0 12\"]\n\n"
                      "12... Kd7 13. O-O Ke6 *";
    char v[64];

    ck_assert_int_eq(read_pgn(pgn), 0);
    ck_assert_str_eq(tree_text(), "Kd7 O-O Ke6");
    ck_assert_int_eq(tree.nodes[0].ply, 1);
    ck_assert_int_eq(tree.start.key,
                     key_of("4k3/8/8/8/8/8/8/4K2R b K - 0 12"));
    pgnread_unescape(pgn, tree.tags[0].value, v, sizeof v);
    ck_assert_str_eq(v, "A \"quoted\" \\ event");
    /* cut to fit, never inside a character */
    pgnread_unescape("caf\xC3\xA9", (struct pgnread_span){0, 5}, v, 5);
    ck_assert_str_eq(v, "caf");
    /* a game of tags only: its position, no move */
    ck_assert_int_eq(read_pgn("[FEN \"8/8/8/8/8/4k3/8/4K2R w K - 0 1\"]"), 0);
    ck_assert_int_eq(tree.n_nodes, 0);
    ck_assert_int_eq(tree.first, -1);
    /* standard chess under its other names */
    ck_assert_int_eq(read_pgn("[Variant \"From Position\"] 1. e4"), 0);
    ck_assert_int_eq(read_pgn("[Variant \"Standard\"] 1. e4"), 0);
}
END_TEST

/* What real files do: CRLF, a byte order mark, escape lines, numbers
 * glued to moves or missing, comments before the tags, no result. */
START_TEST(lenient_forms)
{
    ck_assert_int_eq(read_pgn("\xEF\xBB\xBF[Event \"x\"]\r\n\r\n"
                              "1.e4 e5 2.Nf3\r\n% an escape line\r\n"
                              "2...Nc6 Bb5"),
                     0);
    ck_assert_str_eq(tree_text(), "e4 e5 Nf3 Nc6 Bb5");
    ck_assert_int_eq(read_pgn("; made by hand\n[White \"x\"]\ne4 e5"), 0);
    ck_assert_str_eq(tree_text(), "e4 e5");
    ck_assert_int_eq(tree.n_tags, 1);
}
END_TEST

START_TEST(several_games)
{
    const char *pgn = "[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n"
                      "1. e4 1-0\n\n"
                      "[White \"C\"]\n[Event \"Open\"]\n\n1. d4 d5 *\n"
                      "1. c4 {no tags}\n";
    struct pgnread_head heads[2];

    ck_assert_int_eq(pgnread_heads(pgn, strlen(pgn), &roomy, heads, 2, &err),
                     3);
    ck_assert_str_eq(span_text(pgn, heads[0].white), "A");
    ck_assert_str_eq(span_text(pgn, heads[0].black), "B");
    ck_assert_str_eq(span_text(pgn, heads[0].result), "1-0");
    ck_assert_str_eq(span_text(pgn, heads[1].event), "Open");
    ck_assert_int_eq(heads[1].black.len, 0);
    ck_assert_int_eq(read_sized(pgn, 1, &roomy, NODES, TAGS, COMMENTS), 0);
    ck_assert_str_eq(tree_text(), "d4 d5");
    ck_assert_int_eq(read_sized(pgn, 2, &roomy, NODES, TAGS, COMMENTS), 0);
    ck_assert_str_eq(tree_text(), "c4");
    ck_assert_int_eq(read_sized(pgn, 3, &roomy, NODES, TAGS, COMMENTS), -1);
    ck_assert_int_eq(err.code, PGNREAD_ERR_NO_GAME);
    ck_assert_str_eq(message(),
                     "line 1, column 1: there is no game 4: the text has 3.");
    /* a text that cannot be split */
    ck_assert_int_eq(pgnread_heads("1. e4 {", 7, &roomy, heads, 2, &err), -1);
    ck_assert_int_eq(err.code, PGNREAD_ERR_COMMENT);
    ck_assert_int_eq(pgnread_heads(" {only} ", 8, &roomy, heads, 2, &err), 0);
}
END_TEST

START_TEST(move_errors)
{
    assert_error("[Event \"x\"]\n\n1. e4 e5 2. Nf6", PGNREAD_ERR_ILLEGAL, 3,
                 13, "line 3, column 13: 2. Nf6 is not a legal move here.");
    assert_error("1. e4 Ke7", PGNREAD_ERR_ILLEGAL, 1, 7,
                 "line 1, column 7: 1... Ke7 is not a legal move here.");
    assert_error("1. e4 hello", PGNREAD_ERR_NOT_MOVE, 1, 7,
                 "line 1, column 7: 1... hello is not a move (SAN such as "
                 "e4, Nf3, O-O or exd8=Q).");
    assert_error("1. d4 d5 2. Nf3 Nf6 3. Nd2", PGNREAD_ERR_AMBIGUOUS, 1, 24,
                 "line 1, column 24: 3. Nd2 is ambiguous here: more than "
                 "one piece can make it.");
    assert_error("1. e4 -- 2. d4", PGNREAD_ERR_NULL_MOVE, 1, 7,
                 "line 1, column 7: '--': null moves are not played here.");
    assert_error("1. e4 Z0", PGNREAD_ERR_NULL_MOVE, 1, 7,
                 "line 1, column 7: 'Z0': null moves are not played here.");
    /* columns count characters, not bytes */
    assert_error("{caf\xC3\xA9} 1. Ke2", PGNREAD_ERR_ILLEGAL, 1, 11,
                 "line 1, column 11: 1. Ke2 is not a legal move here.");
    /* a move after the mate */
    assert_error("1. f3 e5 2. g4 Qh4 3. a3", PGNREAD_ERR_ILLEGAL, 1, 23,
                 "line 1, column 23: 3. a3 is not a legal move here.");
}
END_TEST

START_TEST(structure_errors)
{
    assert_error("1. e4 {oops\n e5", PGNREAD_ERR_COMMENT, 1, 7,
                 "line 1, column 7: the comment opened here with '{' is "
                 "never closed.");
    assert_error("1. e4 (1. d4 d5\n2. c4", PGNREAD_ERR_RAV_OPEN, 1, 7,
                 "line 1, column 7: the variation opened here with '(' is "
                 "never closed.");
    assert_error("1. e4 e5 ) 2. d4", PGNREAD_ERR_RAV_CLOSE, 1, 10,
                 "line 1, column 10: this ')' closes no variation.");
    assert_error("( 1. e4 )", PGNREAD_ERR_RAV_START, 1, 1,
                 "line 1, column 1: a variation '(' must follow the move it "
                 "replaces.");
    assert_error("1. e4 (1. d4 1-0) e5", PGNREAD_ERR_RESULT_IN_RAV, 1, 14,
                 "line 1, column 14: a result (1-0) inside a variation: "
                 "close it with ')' first.");
    assert_error("1. e4 @", PGNREAD_ERR_CHAR, 1, 7,
                 "line 1, column 7: '@' has no place here.");
    assert_error("1. e4 \xC3\xA9", PGNREAD_ERR_CHAR, 1, 7,
                 "line 1, column 7: '\xC3\xA9' has no place here.");
    assert_error("1. e4 $300", PGNREAD_ERR_NAG, 1, 7,
                 "line 1, column 7: '$300' is no annotation ($0 to $255, "
                 "or ! ? !! ?? !? ?!).");
    assert_error("1. e4!!!", PGNREAD_ERR_NAG, 1, 6,
                 "line 1, column 6: '!!!' is no annotation ($0 to $255, or "
                 "! ? !! ?? !? ?!).");
    assert_error("", PGNREAD_ERR_NO_GAME, 1, 1,
                 "line 1, column 1: no game here: PGN is tags such as "
                 "[White \"...\"] and moves such as 1. e4 e5.");
    assert_error("  {just a comment} ", PGNREAD_ERR_NO_GAME, 1, 1,
                 "line 1, column 1: no game here: PGN is tags such as "
                 "[White \"...\"] and moves such as 1. e4 e5.");
}
END_TEST

START_TEST(tag_errors)
{
    assert_error("[Event x]", PGNREAD_ERR_TAG_VALUE, 1, 8,
                 "line 1, column 8: a tag's value in quotes must follow "
                 "its name, not 'x'.");
    assert_error("[Event \"x\"", PGNREAD_ERR_TAG_CLOSE, 1, 11,
                 "line 1, column 11: a tag ends with ']', not the end of "
                 "the text.");
    assert_error("[\"x\"]", PGNREAD_ERR_TAG_NAME, 1, 2,
                 "line 1, column 2: a tag name must follow '[', not 'x'.");
    assert_error("\n[Event \"x]\n1. e4", PGNREAD_ERR_STRING, 2, 8,
                 "line 2, column 8: the tag's value is not closed on its "
                 "line (a \" is missing).");
    assert_error("[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]", PGNREAD_ERR_FEN, 1, 6,
                 "line 1, column 6: the FEN tag is not a position: "
                 "each side must have exactly one king.");
    assert_error("[Variant \"Crazyhouse\"]\n1. e4", PGNREAD_ERR_VARIANT, 1,
                 10,
                 "line 1, column 10: the variant \"Crazyhouse\" is not "
                 "played here: only standard chess.");
    assert_error("1. e4 \"x\"", PGNREAD_ERR_CHAR, 1, 7,
                 "line 1, column 7: '\"' has no place here.");
}
END_TEST

START_TEST(limits)
{
    struct pgnread_limits lim = roomy;
    struct pgnread_head heads[1];

    lim.bytes = 10;
    ck_assert_int_eq(
        read_sized("1. e4 e5\n2. Nf3", 0, &lim, NODES, TAGS, COMMENTS), -1);
    ck_assert_int_eq(err.code, PGNREAD_ERR_TOO_LONG);
    ck_assert_str_eq(message(),
                     "line 2, column 2: the text is longer than 10 bytes.");
    ck_assert_int_eq(
        pgnread_heads("1. e4 e5\n2. Nf3", 15, &lim, heads, 1, &err), -1);
    ck_assert_int_eq(err.code, PGNREAD_ERR_TOO_LONG);
    lim = roomy;
    ck_assert_int_eq(
        read_sized("1. e4 e5 2. Nf3 Nc6", 0, &lim, 3, TAGS, COMMENTS), -1);
    ck_assert_str_eq(message(),
                     "line 1, column 17: more than 3 moves in all.");
    /* a merged move is no new node */
    ck_assert_int_eq(
        read_sized("1. e4 (1. e4) e5", 0, &lim, 2, TAGS, COMMENTS), 0);
    lim.plies = 2;
    ck_assert_int_eq(read_sized("1. e4 (1. d4 d5) e5 2. Nf3", 0, &lim, NODES,
                                TAGS, COMMENTS),
                     -1);
    ck_assert_str_eq(message(),
                     "line 1, column 24: a line longer than 2 half-moves.");
    lim = roomy;
    lim.depth = 1;
    ck_assert_int_eq(
        read_sized("1. e4 (1. d4 (1. c4)) *", 0, &lim, NODES, TAGS, COMMENTS),
        -1);
    ck_assert_str_eq(message(),
                     "line 1, column 14: variations nested more than 1 "
                     "deep.");
    lim.depth = 1000; /* (more than the reader's stack: its own cap) */
    ck_assert_int_eq(
        read_sized("1. e4 (1. d4 (1. c4)) *", 0, &lim, NODES, TAGS, COMMENTS),
        0);
    ck_assert_int_eq(read_sized("[A \"1\"] [B \"2\"] 1. e4", 0, &roomy, NODES,
                                1, COMMENTS),
                     -1);
    ck_assert_str_eq(message(), "line 1, column 10: more than 1 tags.");
    ck_assert_int_eq(
        read_sized("1. e4 {a} e5 {b}", 0, &roomy, NODES, TAGS, 1), -1);
    ck_assert_str_eq(message(), "line 1, column 14: more than 1 comments.");
}
END_TEST

/* The deepest nesting the reader's own stack allows, and a line as long
 * as the limit. */
START_TEST(deep_variations)
{
    char pgn[PGNREAD_DEPTH_MAX * 16 + 64];
    struct pgnread_limits lim = roomy;
    size_t n = 0;

    lim.depth = PGNREAD_DEPTH_MAX;
    n += (size_t)snprintf(pgn + n, sizeof pgn - n, "1. e4");
    for (int i = 0; i < PGNREAD_DEPTH_MAX; i++)
        n += (size_t)snprintf(pgn + n, sizeof pgn - n,
                              i % 2 ? " (1. e4" : " (1. d4");
    for (int i = 0; i < PGNREAD_DEPTH_MAX; i++)
        n += (size_t)snprintf(pgn + n, sizeof pgn - n, ")");
    ck_assert_int_eq(read_sized(pgn, 0, &lim, NODES, TAGS, COMMENTS), 0);
    ck_assert_int_eq(tree.n_nodes, 2);
    snprintf(pgn + n - PGNREAD_DEPTH_MAX, sizeof pgn - n, " (1. c4)%*s",
             PGNREAD_DEPTH_MAX, "");
    memset(pgn + strlen(pgn) - PGNREAD_DEPTH_MAX, ')', PGNREAD_DEPTH_MAX);
    ck_assert_int_eq(read_sized(pgn, 0, &lim, NODES, TAGS, COMMENTS), -1);
    ck_assert_int_eq(err.code, PGNREAD_ERR_DEPTH);
}
END_TEST

/* Our own export, with its clock comments, reads back to its moves. */
START_TEST(own_export_reads_back)
{
    static const int64_t clk[] = {301000, 300500, 299999, 298000};
    const struct pgn_tags t = {.event = "Casual \"blitz\" game",
                               .white = "alice",
                               .black = "bob",
                               .result = "0-1",
                               .time_control = "300+2",
                               .termination = "normal"};
    struct record r;
    struct board b;
    char *pgn, v[64];

    testutil_board(&b, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 30");
    ck_assert_int_eq(record_init(&r, &b), 0);
    testutil_each_move(&r.cur, "e1c1 e8g8 d1d8 f8d8", testutil_record_push,
                       &r);
    pgn = pgn_format(&t, &r, clk, NULL);
    ck_assert_ptr_nonnull(pgn);
    ck_assert_int_eq(read_pgn(pgn), 0);
    ck_assert_str_eq(tree_text(), "O-O-O O-O Rd8 Rfxd8");
    ck_assert_int_eq(tree.n_comments, 4);
    ck_assert_str_eq(span_text(pgn, tree.comments[3].text),
                     " [%clk 0:04:58] ");
    ck_assert_str_eq(span_text(pgn, tree.result), "0-1");
    pgnread_unescape(pgn, tree.tags[0].value, v, sizeof v);
    ck_assert_str_eq(v, "Casual \"blitz\" game");
    ck_assert_int_eq(tree.start.key, b.key);
    free(pgn);
    record_clear(&r);
}
END_TEST

/* A message cut to its buffer ends on a whole character. */
START_TEST(message_cut)
{
    char buf[24];

    ck_assert_int_eq(read_pgn("1. e4 \xE2\x82\xAC\xE2\x82\xAC"), -1);
    ck_assert_int_eq(pgnread_message(&err, buf, 23), 22);
    ck_assert_str_eq(buf, "line 1, column 7: '\xE2\x82\xAC");
    ck_assert_int_eq(pgnread_message(&err, buf, 22), 19);
    ck_assert_str_eq(buf, "line 1, column 7: '");
    ck_assert_int_eq(pgnread_message(&err, buf, 1), 0);
    ck_assert_str_eq(buf, "");
}
END_TEST

static Suite *pgnread_suite(void)
{
    Suite *s = suite_create("pgnread");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, plain_game);
    tcase_add_test(tc, san_as_the_rules_core_writes_it);
    tcase_add_test(tc, variations);
    tcase_add_test(tc, same_move_merged);
    tcase_add_test(tc, comments_and_nags);
    tcase_add_test(tc, tags_and_set_up_position);
    tcase_add_test(tc, lenient_forms);
    tcase_add_test(tc, several_games);
    tcase_add_test(tc, move_errors);
    tcase_add_test(tc, structure_errors);
    tcase_add_test(tc, tag_errors);
    tcase_add_test(tc, limits);
    tcase_add_test(tc, deep_variations);
    tcase_add_test(tc, own_export_reads_back);
    tcase_add_test(tc, message_cut);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(pgnread_suite());
}
