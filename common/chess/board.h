/*
 * board.h - a chess position: bitboards plus a square-indexed mailbox,
 * side to move, castling rights, effective en-passant square, move clocks
 * and an incrementally maintained Zobrist key.
 *
 * Squares are 0..63 with a1 = 0, b1 = 1, ..., h8 = 63. The board is a plain
 * value: copy it freely. Nothing here allocates, reads a clock or does I/O.
 *
 * Invariant: `ep` names a square only when an en-passant capture onto it is
 * legal for the side to move (FIDE "effective" en-passant right), so that
 * the key, FEN output and repetition comparison all agree.
 */
#ifndef CHESS_BOARD_H
#define CHESS_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum color { WHITE = 0, BLACK = 1 };
enum piece_type { PAWN = 0, KNIGHT, BISHOP, ROOK, QUEEN, KING, NO_TYPE };

/* A piece code on the mailbox: 0 = empty, else 1 + type + 8 * color. */
/* (clang-format 14 takes `(p)` for a cast and writes `(p)-1`) */
/* clang-format off */
#define PIECE_NONE 0
#define PIECE_MAKE(c, t) ((uint8_t)(1 + (t) + 8 * (c)))
#define PIECE_TYPE(p) ((enum piece_type)(((p) - 1) & 7))
#define PIECE_COLOR(p) ((enum color)(((p) - 1) >> 3))

#define SQ_NONE 64
#define SQ(file, rank) ((file) + 8 * (rank))
#define SQ_FILE(s) ((s) & 7)
#define SQ_RANK(s) ((s) >> 3)
/* clang-format on */

/* Castling right bits. */
enum {
    CASTLE_WK = 1, /* white O-O */
    CASTLE_WQ = 2, /* white O-O-O */
    CASTLE_BK = 4,
    CASTLE_BQ = 8
};

/*
 * A move in 16 bits: from (0-5), to (6-11), promotion piece (12-13, knight
 * to queen), kind (14-15). Castling is encoded as the king's two-square
 * move, as in UCI. MOVE_NONE (0) is never a legal move (a1a1).
 */
typedef uint16_t move_t;
#define MOVE_NONE ((move_t)0)
enum move_kind {
    MOVE_NORMAL = 0,
    MOVE_PROMOTION = 1,
    MOVE_EN_PASSANT = 2,
    MOVE_CASTLING = 3
};
/* clang-format off */
#define MOVE_FROM(m) ((int)((m) & 63))
/* clang-format on */
#define MOVE_TO(m) ((int)(((m) >> 6) & 63))
#define MOVE_KIND(m) ((enum move_kind)((m) >> 14))
#define MOVE_PROMO(m) ((enum piece_type)((((m) >> 12) & 3) + KNIGHT))
#define MOVE_MAKE(from, to) ((move_t)((from) | ((to) << 6)))
#define MOVE_MAKE_KIND(from, to, kind) \
    ((move_t)((from) | ((to) << 6) | ((unsigned)(kind) << 14)))
#define MOVE_MAKE_PROMO(from, to, type)                                  \
    ((move_t)((from) | ((to) << 6) | (((unsigned)(type)-KNIGHT) << 12) | \
              ((unsigned)MOVE_PROMOTION << 14)))

struct board {
    uint64_t by_color[2];
    uint64_t by_type[6];
    uint8_t squares[64];
    uint8_t side;      /* enum color to move */
    uint8_t castling;  /* CASTLE_* bits */
    uint8_t ep;        /* effective en-passant target square or SQ_NONE */
    uint16_t halfmove; /* plies since the last capture or pawn move */
    uint16_t fullmove; /* starts at 1, incremented after Black moves */
    uint64_t key;      /* Zobrist key of placement, side, castling, ep */
};

/* What board_make saves so that board_unmake can restore the position. */
struct board_undo {
    uint64_t key;
    uint8_t captured; /* piece code taken (PIECE_NONE if none) */
    uint8_t castling;
    uint8_t ep;
    uint16_t halfmove;
};

/* Errors from board_from_fen; board_fen_strerror explains each. */
enum fen_error {
    FEN_OK = 0,
    FEN_ERR_FIELDS = -1,        /* not six space-separated fields */
    FEN_ERR_PIECE = -2,         /* unknown piece letter */
    FEN_ERR_RANK_LONG = -3,     /* a rank describes more than 8 squares */
    FEN_ERR_RANK_SHORT = -4,    /* a rank describes fewer than 8 squares */
    FEN_ERR_RANKS = -5,         /* not eight ranks */
    FEN_ERR_KINGS = -6,         /* not exactly one king of each colour */
    FEN_ERR_PAWN_RANK = -7,     /* a pawn on the first or last rank */
    FEN_ERR_SIDE = -8,          /* side to move is not "w" or "b" */
    FEN_ERR_CASTLING = -9,      /* castling field malformed */
    FEN_ERR_CASTLING_POS = -10, /* castling right without king/rook home */
    FEN_ERR_EP = -11,           /* en-passant field malformed */
    FEN_ERR_EP_POS = -12,       /* en-passant square impossible here */
    FEN_ERR_HALFMOVE = -13,     /* halfmove clock not a number 0..9999 */
    FEN_ERR_FULLMOVE = -14,     /* fullmove number not a number 1..9999 */
    FEN_ERR_OPP_CHECK = -15,    /* the side not to move is in check */
    FEN_ERR_CHECKERS = -16,     /* check by more than two pieces, or two
                                   that no last move could give */
    FEN_ERR_MATERIAL = -17      /* more pieces than a game can have: see
                                   board_from_fen */
};

#define FEN_START "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
/* Longest FEN board_to_fen writes, terminator included, for any board:
 * placement 64 squares + 7 slashes = 71, side 1, castling at most 4,
 * en passant at most 2, and the two clocks at most 5 digits each (they
 * are uint16_t and board_make counts on past 9999), 5 separating spaces:
 * 71 + 1 + 4 + 2 + 5 + 5 + 5 = 93, plus the terminator. */
#define FEN_MAX 94

/* Sets *b from a six-field FEN. Returns FEN_OK or a negative enum fen_error
 * and leaves *b unspecified on error. Never reads past the terminator.
 *
 * Besides the form of each field it refuses positions no game can reach
 * by the clear cases: not one king a side, pawns on the first or last
 * rank, impossible castling or en-passant rights, the side not to move in
 * check, impossible checks, and impossible material (FEN_ERR_MATERIAL):
 * more than 16 pieces or 8 pawns of one colour, or more promoted pieces
 * than that colour has missing pawns, counting as promoted each queen
 * beyond 1, each rook or knight beyond 2, and each bishop beyond 1 on one
 * square colour (a side starts with one bishop on each colour and a
 * bishop never changes colour, so a second one on the same colour is a
 * promoted pawn even while the side has only two bishops). */
int board_from_fen(struct board *b, const char *fen);

/* As board_from_fen, but accepts material no game can reach (never
 * returns FEN_ERR_MATERIAL): for composed positions, such as test vectors
 * of dead-position analysers. Every other function of the rules core
 * works on such a board (movegen.h: MOVES_MAX); the server never makes
 * one. */
int board_from_fen_any_material(struct board *b, const char *fen);

/* A static English sentence for a board_from_fen error code. */
const char *board_fen_strerror(int err);

/* Writes the six-field FEN of b into buf (at least FEN_MAX bytes) and
 * returns its length. The text holds only letters, digits, '/', ' ' and
 * '-': a JSON string takes it unescaped. */
size_t board_to_fen(const struct board *b, char *buf);

/* Plays a legal move (from movegen_legal) and fills *u for unmaking. */
void board_make(struct board *b, move_t m, struct board_undo *u);

/* Takes back move m, which must be the last one made with undo *u. */
void board_unmake(struct board *b, move_t m, const struct board_undo *u);

/* Squares attacked by side c with the given occupancy. */
uint64_t board_attacks_by(const struct board *b, enum color c, uint64_t occ);

/* Bitboard of pieces of colour c that attack square sq given occupancy. */
uint64_t board_attackers(const struct board *b, int sq, enum color c,
                         uint64_t occ);

/* True when the side to move is in check. */
bool board_in_check(const struct board *b);

/* Pieces of type t and colour c. */
static inline uint64_t board_pieces(const struct board *b, enum color c,
                                    enum piece_type t)
{
    return b->by_color[c] & b->by_type[t];
}

static inline uint64_t board_occupied(const struct board *b)
{
    return b->by_color[WHITE] | b->by_color[BLACK];
}

static inline int board_king_square(const struct board *b, enum color c)
{
    return __builtin_ctzll(board_pieces(b, c, KING));
}

#endif
