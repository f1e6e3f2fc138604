/*
 * bitboard.h - constant attack tables and bit helpers shared inside the
 * rules core. The tables are generated at build time by gen_tables.c.
 */
#ifndef CHESS_BITBOARD_H
#define CHESS_BITBOARD_H

#include <stdint.h>

struct bb_magic {
    uint64_t mask, magic;
    unsigned offset, shift;
};

extern const uint64_t bb_knight[64];
extern const uint64_t bb_king[64];
extern const uint64_t bb_pawn[2][64]; /* squares a pawn of colour c attacks */
extern const uint64_t bb_between[64][64]; /* squares strictly between */
extern const uint64_t bb_line[64][64];    /* whole line through both, or 0 */
extern const uint64_t bb_slider_table[];
extern const struct bb_magic bb_rook_magic[64];
extern const struct bb_magic bb_bishop_magic[64];
extern const uint64_t zobrist_piece[16][64];
extern const uint64_t zobrist_castling[16];
extern const uint64_t zobrist_ep[8];
extern const uint64_t zobrist_side;

#define BB(sq) (1ull << (sq))
#define BB_FILE_A 0x0101010101010101ull
#define BB_FILE_H 0x8080808080808080ull
#define BB_RANK_1 0xFFull
#define BB_RANK_8 0xFF00000000000000ull
#define BB_DARK 0xAA55AA55AA55AA55ull
#define BB_LIGHT (~BB_DARK)

static inline int bb_lsb(uint64_t b)
{
    return __builtin_ctzll(b);
}
static inline int bb_count(uint64_t b)
{
    return __builtin_popcountll(b);
}
static inline int bb_pop(uint64_t *b)
{
    int s = __builtin_ctzll(*b);
    *b &= *b - 1;
    return s;
}
static inline int bb_more_than_one(uint64_t b)
{
    return (b & (b - 1)) != 0;
}

static inline uint64_t bb_rook_attacks(int sq, uint64_t occ)
{
    const struct bb_magic *m = &bb_rook_magic[sq];
    return bb_slider_table[m->offset +
                           (((occ & m->mask) * m->magic) >> m->shift)];
}

static inline uint64_t bb_bishop_attacks(int sq, uint64_t occ)
{
    const struct bb_magic *m = &bb_bishop_magic[sq];
    return bb_slider_table[m->offset +
                           (((occ & m->mask) * m->magic) >> m->shift)];
}

/* Shift a whole set one rank toward the opponent of colour c. */
static inline uint64_t bb_forward(uint64_t b, int c)
{
    return c == 0 ? b << 8 : b >> 8;
}

#endif
