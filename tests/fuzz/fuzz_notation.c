/*
 * fuzz_notation.c - fuzz target for the SAN and UCI parsers.
 *
 * Input: the first byte picks one of a fixed set of positions; the rest is
 * a list of move texts separated by spaces or newlines. Each text is given
 * to notation_parse_san and notation_parse_uci. A parser may only return
 * its documented codes; a move it returns must be legal; UCI must parse
 * back from notation_uci and SAN from notation_san to the same move; when
 * both parsers accept a text they must agree. The first move found is
 * played, so the input walks a game; in every position reached, each legal
 * move's SAN must be unique, short enough and parse back to that move, and
 * notation_sort_uci must put the moves in the byte order of their UCI.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "movegen.h"
#include "notation.h"

/* Positions with castling, en passant, promotions, pins and pieces that
 * need file, rank or full-square disambiguation. */
static const char *const positions[] = {
    FEN_START,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "7k/8/8/8/Q1Q5/8/Q7/K7 w - - 0 1",
    "4k3/8/8/8/8/1N3N2/8/1N2K3 w - - 0 1",
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "4k3/1P6/8/8/8/8/6p1/4K2R b K - 0 1",
    "R6R/8/8/2k5/8/8/8/R1K4R w - - 0 1",
    "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
    /* 218 legal moves, nine queens: the longest list, full-square SAN */
    "R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1",
};
#define N_POSITIONS (sizeof positions / sizeof *positions)

/* The longest move text looked at; longer ones are cut (both parsers
 * reject anything this long anyway). */
#define TEXT_MAX 64
/* Moves played at most, so one input stays fast. */
#define PLIES_MAX 64

/* Every legal move of b: SAN short enough, unique, and parsing back; in
 * UCI byte order once sorted. */
static void check_all_san(const struct board *b)
{
    struct movelist l;
    char san[MOVES_MAX][SAN_MAX];
    char uci[UCI_MAX], prev[UCI_MAX] = "";
    move_t m;

    movegen_legal(b, &l);
    notation_sort_uci(l.moves, l.n);
    for (int i = 0; i < l.n; i++) {
        notation_san(b, l.moves[i], san[i]);
        FUZZ_CHECK(strlen(san[i]) < SAN_MAX, "SAN '%s' too long", san[i]);
        FUZZ_CHECK(notation_parse_san(b, san[i], &m) == 0 && m == l.moves[i],
                   "SAN '%s' does not parse back", san[i]);
        for (int j = 0; j < i; j++)
            FUZZ_CHECK(strcmp(san[i], san[j]) != 0, "SAN '%s' twice", san[i]);
        notation_uci(l.moves[i], uci);
        FUZZ_CHECK(notation_uci_well_formed(uci), "UCI '%s'", uci);
        FUZZ_CHECK(strcmp(prev, uci) < 0, "UCI '%s' sorted after '%s'", uci,
                   prev);
        memcpy(prev, uci, UCI_MAX);
        FUZZ_CHECK(notation_parse_uci(b, uci, &m) == 0 && m == l.moves[i],
                   "UCI '%s' does not parse back", uci);
    }
}

/* Parses one text both ways; returns the move to play or MOVE_NONE. */
static move_t check_text(const struct board *b, const char *text)
{
    move_t ms = MOVE_NONE, mu = MOVE_NONE, m;
    char san[SAN_MAX], uci[UCI_MAX];
    int rs = notation_parse_san(b, text, &ms);
    int ru = notation_parse_uci(b, text, &mu);

    FUZZ_CHECK(rs == 0 || rs == -1 || rs == -2 || rs == -3,
               "parse_san('%s') returned %d", text, rs);
    FUZZ_CHECK(ru == 0 || ru == -1 || ru == -2, "parse_uci('%s') returned %d",
               text, ru);
    FUZZ_CHECK((ru == -1) == !notation_uci_well_formed(text),
               "parse_uci('%s') returned %d", text, ru);
    if (rs == 0) {
        FUZZ_CHECK(movegen_is_legal(b, ms), "SAN '%s' gave illegal %04x",
                   text, ms);
        notation_san(b, ms, san);
        FUZZ_CHECK(notation_parse_san(b, san, &m) == 0 && m == ms,
                   "SAN of '%s' is '%s', which does not parse back", text,
                   san);
    }
    if (ru == 0) {
        FUZZ_CHECK(movegen_is_legal(b, mu), "UCI '%s' gave illegal %04x",
                   text, mu);
        notation_uci(mu, uci);
        FUZZ_CHECK(!strcmp(uci, text), "UCI '%s' read as '%s'", text, uci);
        notation_san(b, mu, san);
        FUZZ_CHECK(notation_parse_san(b, san, &m) == 0 && m == mu,
                   "SAN of UCI '%s' is '%s', which does not parse back", text,
                   san);
    }
    if (rs == 0 && ru == 0)
        FUZZ_CHECK(ms == mu, "'%s' is %04x as SAN but %04x as UCI", text, ms,
                   mu);
    return rs == 0 ? ms : ru == 0 ? mu : MOVE_NONE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct board b;
    struct board_undo u;
    char *input;
    int plies = 0;

    if (size == 0)
        return 0;
    /* '0' picks the first position, '1' the second, and so on. */
    if (board_from_fen(&b,
                       positions[((size_t)data[0] + 256 * N_POSITIONS - '0') %
                                 N_POSITIONS]) != FEN_OK)
        abort();
    check_all_san(&b);
    input = fuzz_text(data + 1, size - 1);
    for (const char *p = input; *p && plies < PLIES_MAX;) {
        size_t n = strcspn(p, " \n");
        if (n > 0) {
            /* An exact-size copy so that a read past its end is caught. */
            char *word = malloc((n < TEXT_MAX ? n : TEXT_MAX) + 1);
            if (!word)
                abort();
            memcpy(word, p, n < TEXT_MAX ? n : TEXT_MAX);
            word[n < TEXT_MAX ? n : TEXT_MAX] = '\0';
            move_t m = check_text(&b, word);
            free(word);
            if (m != MOVE_NONE) {
                board_make(&b, m, &u);
                check_all_san(&b);
                plies++;
            }
        }
        p += n;
        if (*p)
            p++;
    }
    free(input);
    return 0;
}
