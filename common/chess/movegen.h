/*
 * movegen.h - exact legal move generation and perft.
 *
 * The generator writes into a caller-supplied list and never allocates.
 */
#ifndef CHESS_MOVEGEN_H
#define CHESS_MOVEGEN_H

#include "board.h"

/*
 * The most moves movegen_legal can write, for any board it can be given
 * (one king a side, an en-passant square only when it is empty), reachable
 * or not. No position a game can reach is known to have more than 218
 * legal moves (R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1 has
 * 218), but boards with unreachable material have more (263 with 26
 * queens: QQQQQQnk/Q4Qpp/Q5QQ/Q6Q/Q6Q/Q6Q/Q6Q/KQQQQQQQ w - - 0 1, which
 * board_from_fen refuses and board_from_fen_any_material accepts), so the
 * list is sized for every board, not only for the positions the parser
 * lets through. Proof, with P the number of pieces of the side to move
 * (1 <= P <= 63):
 *
 * - By piece: a king has at most 8 steps and 2 castlings; a queen at most
 *   27 moves (14 along ranks and files, 13 diagonally); rooks 14, bishops
 *   13, knights 8 and pawns 12 (3 target squares, 4 promotions each) have
 *   fewer. At most 10 + 27 (P - 1) moves.
 * - By target square: a move ends on one of the 64 - P squares not held by
 *   the mover's side. A piece reaches a square t from the nearest piece of
 *   one of the 8 lines through t (slider, king step or castling, pawn push
 *   or double push, pawn capture, en passant) or from one of the 8 knight
 *   squares of t, and has one move to t, except a pawn promoting (4). Only
 *   the 8 squares of the last rank take promotions, from at most 3 pawns:
 *   at most 16 (64 - P) + 8 * 3 * 3 moves.
 *
 * For P <= 25 the first bound is at most 10 + 27 * 24 = 658, for P >= 26
 * the second at most 16 * 38 + 72 = 680: no board has more than 680.
 */
#define MOVES_MAX 680

struct movelist {
    int n;
    move_t moves[MOVES_MAX];
};

/* Fills *out with every legal move of the side to move; returns the count. */
int movegen_legal(const struct board *b, struct movelist *out);

/* True when the side to move has at least one legal move. */
bool movegen_has_legal(const struct board *b);

/* True when m is one of the legal moves of b. */
bool movegen_is_legal(const struct board *b, move_t m);

/* Number of leaf nodes of the legal move tree of depth `depth`. */
uint64_t movegen_perft(struct board *b, int depth);

#endif
