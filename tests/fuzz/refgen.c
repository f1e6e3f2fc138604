/*
 * refgen.c - the slow reference move generator (see refgen.h).
 */
#include "refgen.h"

#include <string.h>

static const int knight_d[8][2] = {{1, 2},   {2, 1},   {2, -1}, {1, -2},
                                   {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
static const int king_d[8][2] = {{1, 0},  {1, 1},   {0, 1},  {-1, 1},
                                 {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
/* The first four are rook directions, the last four bishop directions. */
static const int ray_d[8][2] = {{1, 0}, {-1, 0}, {0, 1},  {0, -1},
                                {1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

static bool on_board(int f, int r)
{
    return f >= 0 && f < 8 && r >= 0 && r < 8;
}

static bool is(uint8_t p, int c, enum piece_type t)
{
    return p != PIECE_NONE && (int)PIECE_COLOR(p) == c && PIECE_TYPE(p) == t;
}

bool refgen_attacked(const uint8_t squares[64], int sq, int c)
{
    int f = SQ_FILE(sq), r = SQ_RANK(sq);
    /* A pawn of colour c attacks diagonally forward, so it stands one rank
     * behind sq from its own point of view. */
    int pr = c == WHITE ? r - 1 : r + 1;
    for (int df = -1; df <= 1; df += 2)
        if (on_board(f + df, pr) && is(squares[SQ(f + df, pr)], c, PAWN))
            return true;
    for (int i = 0; i < 8; i++) {
        int nf = f + knight_d[i][0], nr = r + knight_d[i][1];
        if (on_board(nf, nr) && is(squares[SQ(nf, nr)], c, KNIGHT))
            return true;
        nf = f + king_d[i][0];
        nr = r + king_d[i][1];
        if (on_board(nf, nr) && is(squares[SQ(nf, nr)], c, KING))
            return true;
    }
    for (int i = 0; i < 8; i++) {
        enum piece_type slider = i < 4 ? ROOK : BISHOP;
        int nf = f + ray_d[i][0], nr = r + ray_d[i][1];
        while (on_board(nf, nr)) {
            uint8_t p = squares[SQ(nf, nr)];
            if (p != PIECE_NONE) {
                if (is(p, c, slider) || is(p, c, QUEEN))
                    return true;
                break;
            }
            nf += ray_d[i][0];
            nr += ray_d[i][1];
        }
    }
    return false;
}

/* Plays m on a copy of the mailbox; true when the mover's king is safe. */
static bool leaves_king_safe(const struct board *b, move_t m)
{
    uint8_t sq[64];
    int from = MOVE_FROM(m), to = MOVE_TO(m), us = b->side;

    memcpy(sq, b->squares, sizeof sq);
    switch (MOVE_KIND(m)) {
    case MOVE_EN_PASSANT:
        sq[SQ(SQ_FILE(to), SQ_RANK(from))] = PIECE_NONE;
        break;
    case MOVE_CASTLING:
        if (to > from) {
            sq[from + 1] = sq[from + 3];
            sq[from + 3] = PIECE_NONE;
        } else {
            sq[from - 1] = sq[from - 4];
            sq[from - 4] = PIECE_NONE;
        }
        break;
    default:
        break;
    }
    sq[to] = MOVE_KIND(m) == MOVE_PROMOTION ? PIECE_MAKE(us, MOVE_PROMO(m))
                                            : sq[from];
    sq[from] = PIECE_NONE;
    for (int s = 0; s < 64; s++)
        if (is(sq[s], us, KING))
            return !refgen_attacked(sq, s, us ^ 1);
    return false;
}

static void add(const struct board *b, struct movelist *out, move_t m)
{
    if (out->n < MOVES_MAX && leaves_king_safe(b, m))
        out->moves[out->n++] = m;
}

static void add_pawn(const struct board *b, struct movelist *out, int from,
                     int to)
{
    if (SQ_RANK(to) == 0 || SQ_RANK(to) == 7) {
        for (int t = KNIGHT; t <= QUEEN; t++)
            add(b, out, MOVE_MAKE_PROMO(from, to, t));
    } else {
        add(b, out, MOVE_MAKE(from, to));
    }
}

static void gen_pawn(const struct board *b, int ep, struct movelist *out,
                     int from)
{
    int us = b->side, f = SQ_FILE(from), r = SQ_RANK(from);
    int dir = us == WHITE ? 1 : -1, start = us == WHITE ? 1 : 6;

    if (on_board(f, r + dir) && !b->squares[SQ(f, r + dir)]) {
        add_pawn(b, out, from, SQ(f, r + dir));
        if (r == start && !b->squares[SQ(f, r + 2 * dir)])
            add(b, out, MOVE_MAKE(from, SQ(f, r + 2 * dir)));
    }
    for (int df = -1; df <= 1; df += 2) {
        if (!on_board(f + df, r + dir))
            continue;
        int to = SQ(f + df, r + dir);
        uint8_t p = b->squares[to];
        if (p && (int)PIECE_COLOR(p) != us)
            add_pawn(b, out, from, to);
        else if (!p && to == ep &&
                 is(b->squares[SQ(f + df, r)], us ^ 1, PAWN))
            add(b, out, MOVE_MAKE_KIND(from, to, MOVE_EN_PASSANT));
    }
}

static void gen_steps(const struct board *b, struct movelist *out, int from,
                      const int (*d)[2])
{
    for (int i = 0; i < 8; i++) {
        int nf = SQ_FILE(from) + d[i][0], nr = SQ_RANK(from) + d[i][1];
        if (!on_board(nf, nr))
            continue;
        uint8_t p = b->squares[SQ(nf, nr)];
        if (!p || (int)PIECE_COLOR(p) != b->side)
            add(b, out, MOVE_MAKE(from, SQ(nf, nr)));
    }
}

static void gen_rays(const struct board *b, struct movelist *out, int from,
                     int first, int last)
{
    for (int i = first; i < last; i++) {
        int nf = SQ_FILE(from) + ray_d[i][0],
            nr = SQ_RANK(from) + ray_d[i][1];
        while (on_board(nf, nr)) {
            uint8_t p = b->squares[SQ(nf, nr)];
            if (p && (int)PIECE_COLOR(p) == b->side)
                break;
            add(b, out, MOVE_MAKE(from, SQ(nf, nr)));
            if (p)
                break;
            nf += ray_d[i][0];
            nr += ray_d[i][1];
        }
    }
}

/* Castling by the book: the right, king and rook at home, the squares
 * between them empty, and the king neither in check nor passing through
 * or landing on an attacked square. */
static void gen_castling(const struct board *b, struct movelist *out)
{
    int us = b->side, base = us == WHITE ? 0 : 56;
    int k = base + 4;

    if (!is(b->squares[k], us, KING) ||
        refgen_attacked(b->squares, k, us ^ 1))
        return;
    if ((b->castling & (us == WHITE ? CASTLE_WK : CASTLE_BK)) &&
        is(b->squares[base + 7], us, ROOK) && !b->squares[base + 5] &&
        !b->squares[base + 6] &&
        !refgen_attacked(b->squares, base + 5, us ^ 1) &&
        !refgen_attacked(b->squares, base + 6, us ^ 1))
        add(b, out, MOVE_MAKE_KIND(k, base + 6, MOVE_CASTLING));
    if ((b->castling & (us == WHITE ? CASTLE_WQ : CASTLE_BQ)) &&
        is(b->squares[base], us, ROOK) && !b->squares[base + 1] &&
        !b->squares[base + 2] && !b->squares[base + 3] &&
        !refgen_attacked(b->squares, base + 3, us ^ 1) &&
        !refgen_attacked(b->squares, base + 2, us ^ 1))
        add(b, out, MOVE_MAKE_KIND(k, base + 2, MOVE_CASTLING));
}

int refgen_legal(const struct board *b, int ep, struct movelist *out)
{
    out->n = 0;
    for (int s = 0; s < 64; s++) {
        uint8_t p = b->squares[s];
        if (!p || (int)PIECE_COLOR(p) != b->side)
            continue;
        switch (PIECE_TYPE(p)) {
        case PAWN:
            gen_pawn(b, ep, out, s);
            break;
        case KNIGHT:
            gen_steps(b, out, s, knight_d);
            break;
        case BISHOP:
            gen_rays(b, out, s, 4, 8);
            break;
        case ROOK:
            gen_rays(b, out, s, 0, 4);
            break;
        case QUEEN:
            gen_rays(b, out, s, 0, 8);
            break;
        case KING:
            gen_steps(b, out, s, king_d);
            break;
        default:
            break;
        }
    }
    gen_castling(b, out);
    return out->n;
}
