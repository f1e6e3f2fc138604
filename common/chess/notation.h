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

/* Parses a UCI string into the matching legal move of b. Returns 0 and sets
 * *m, -1 when the text is malformed, -2 when it is well-formed but not legal. */
int notation_parse_uci(const struct board *b, const char *text, move_t *m);

/* notation_parse_uci against legal, the legal moves of the position
 * (movegen_legal), when the caller has them already. */
int notation_uci_in(const struct movelist *legal, const char *text,
                    move_t *m);

/* True when text has the UCI shape: two squares and an optional q/r/b/n. */
bool notation_uci_well_formed(const char *text);

/* Writes the SAN of legal move m in b into buf (SAN_MAX bytes), with '+'
 * or '#' as the move gives check or mate. */
void notation_san(const struct board *b, move_t m, char *buf);

/* notation_san with legal, the legal moves of b (movegen_legal), given. */
void notation_san_in(const struct board *b, const struct movelist *legal,
                     move_t m, char *buf);

/* Parses SAN (check marks, "x", "=" and annotations like "!?" optional;
 * O-O and 0-0 accepted) into a legal move of b. Returns 0 and sets *m,
 * -1 when malformed, -2 when no legal move matches, -3 when ambiguous. */
int notation_parse_san(const struct board *b, const char *text, move_t *m);

#endif
