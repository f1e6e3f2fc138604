/*
 * notation.h - moves as text: UCI (long algebraic) and SAN.
 */
#ifndef CHESS_NOTATION_H
#define CHESS_NOTATION_H

#include "board.h"

struct movelist;

/* Longest UCI string (e7e8q) plus terminator. */
#define UCI_MAX 6
/* Longest SAN string (e.g. "Qa1xb2=Q+" is impossible, "Nb1xd2+" / "exd8=Q#")
 * plus terminator. */
#define SAN_MAX 10

/* Writes the UCI text of m into buf (UCI_MAX bytes). */
void notation_uci(move_t m, char *buf);

/* The promotion letters of UCI, by MOVE_PROMO - KNIGHT. */
#define NOTATION_PROMO_LETTERS "nbrq"

/* Writes the UCI text of m at out without a terminator (4 or 5 bytes);
 * returns the end. Inline: `moved` writes some 30 a move. */
static inline char *notation_uci_put(move_t m, char *out)
{
    int from = MOVE_FROM(m), to = MOVE_TO(m);

    out[0] = (char)('a' + SQ_FILE(from));
    out[1] = (char)('1' + SQ_RANK(from));
    out[2] = (char)('a' + SQ_FILE(to));
    out[3] = (char)('1' + SQ_RANK(to));
    if (MOVE_KIND(m) != MOVE_PROMOTION)
        return out + 4;
    out[4] = NOTATION_PROMO_LETTERS[MOVE_PROMO(m) - KNIGHT];
    return out + 5;
}

/* Sorts moves[0..n-1] (n <= MOVES_MAX) into the byte order of their UCI
 * text (the order `moved` and `state` list them in), comparing no
 * string. */
void notation_sort_uci(move_t *moves, int n);

/* Parses a UCI string into the matching legal move of b. Returns 0 and sets
 * *m, -1 when the text is malformed, -2 when it is well-formed but not legal. */
int notation_parse_uci(const struct board *b, const char *text, move_t *m);

/* notation_parse_uci against legal[0..n-1], the legal moves of the
 * position (movegen_legal's, in any order), when the caller has them
 * already. */
int notation_uci_in(const move_t *legal, int n, const char *text, move_t *m);

/* True when text has the UCI shape: two squares and an optional q/r/b/n. */
bool notation_uci_well_formed(const char *text);

/* Writes the SAN of legal move m in b into buf (SAN_MAX bytes), with '+'
 * or '#' as the move gives check or mate. */
void notation_san(const struct board *b, move_t m, char *buf);

/* notation_san with legal[0..n-1], the legal moves of b (movegen_legal's,
 * in any order), given. */
void notation_san_in(const struct board *b, const move_t *legal, int n,
                     move_t m, char *buf);

/* Parses SAN (check marks, "x", "=" and annotations like "!?" optional;
 * O-O and 0-0 accepted) into a legal move of b. Returns 0 and sets *m,
 * -1 when malformed, -2 when no legal move matches, -3 when ambiguous. */
int notation_parse_san(const struct board *b, const char *text, move_t *m);

#endif
