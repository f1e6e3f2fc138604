/*
 * movegen.c - legal move generation with check and pin masks.
 *
 * Moves are generated legal directly: king moves are tested against the
 * enemy attacks with the king lifted off the board, other pieces move only
 * onto the check-resolving mask and along their pin line, and en passant
 * (the one move that can uncover a rank attack by removing two pieces) is
 * tested by recomputing the attackers.
 */
#include "movegen.h"

#include <assert.h>

#include "bitboard.h"

static inline move_t *add_promotions(move_t *out, int from, int to)
{
    *out++ = MOVE_MAKE_PROMO(from, to, QUEEN);
    *out++ = MOVE_MAKE_PROMO(from, to, ROOK);
    *out++ = MOVE_MAKE_PROMO(from, to, BISHOP);
    *out++ = MOVE_MAKE_PROMO(from, to, KNIGHT);
    return out;
}

/* Own pieces pinned against the king at ksq by enemy sliders. */
static uint64_t pinned_pieces(const struct board *b, int ksq, int us)
{
    int them = us ^ 1;
    uint64_t occ = board_occupied(b), pinned = 0;
    uint64_t snipers = ((bb_rook_attacks(ksq, 0) &
                         (b->by_type[ROOK] | b->by_type[QUEEN])) |
                        (bb_bishop_attacks(ksq, 0) &
                         (b->by_type[BISHOP] | b->by_type[QUEEN]))) &
                       b->by_color[them];
    while (snipers) {
        int s = bb_pop(&snipers);
        uint64_t bw = bb_between[ksq][s] & occ;
        if (bw && !bb_more_than_one(bw) && (bw & b->by_color[us]))
            pinned |= bw;
    }
    return pinned;
}

static move_t *gen_pawns(const struct board *b, move_t *out, uint64_t target,
                         uint64_t pinned, int ksq)
{
    int us = b->side, them = us ^ 1;
    uint64_t occ = board_occupied(b), empty = ~occ;
    uint64_t enemies = b->by_color[them] & target;
    uint64_t pawns = board_pieces(b, us, PAWN);
    uint64_t promo_rank = us == WHITE ? BB_RANK_8 : BB_RANK_1;
    uint64_t third = us == WHITE ? 0xFF0000ull : 0xFF0000000000ull;
    int up = us == WHITE ? 8 : -8;

    /* Unpinned pawns set-wise; pinned pawns one at a time. */
    uint64_t free_pawns = pawns & ~pinned;
    uint64_t one = bb_forward(free_pawns, us) & empty;
    uint64_t two = bb_forward(one & third, us) & empty & target;
    one &= target;
    uint64_t capl, capr;
    if (us == WHITE) {
        capl = ((free_pawns & ~BB_FILE_A) << 7) & enemies;
        capr = ((free_pawns & ~BB_FILE_H) << 9) & enemies;
    } else {
        capl = ((free_pawns & ~BB_FILE_A) >> 9) & enemies;
        capr = ((free_pawns & ~BB_FILE_H) >> 7) & enemies;
    }
    int dl = us == WHITE ? 7 : -9, dr = us == WHITE ? 9 : -7;
    uint64_t x;
    for (x = one & ~promo_rank; x;) {
        int to = bb_pop(&x);
        *out++ = MOVE_MAKE(to - up, to);
    }
    for (x = one & promo_rank; x;) {
        int to = bb_pop(&x);
        out = add_promotions(out, to - up, to);
    }
    for (x = two; x;) {
        int to = bb_pop(&x);
        *out++ = MOVE_MAKE(to - 2 * up, to);
    }
    for (x = capl; x;) {
        int to = bb_pop(&x);
        if (BB(to) & promo_rank)
            out = add_promotions(out, to - dl, to);
        else
            *out++ = MOVE_MAKE(to - dl, to);
    }
    for (x = capr; x;) {
        int to = bb_pop(&x);
        if (BB(to) & promo_rank)
            out = add_promotions(out, to - dr, to);
        else
            *out++ = MOVE_MAKE(to - dr, to);
    }
    for (x = pawns & pinned; x;) {
        int from = bb_pop(&x);
        uint64_t line = bb_line[ksq][from];
        uint64_t dests = bb_pawn[us][from] & enemies & line;
        int to = from + up;
        if ((BB(to) & empty) && (BB(to) & line)) {
            if (BB(to) & target)
                dests |= BB(to);
            if ((BB(from) & bb_forward(third, them)) &&
                (BB(to + up) & empty) && (BB(to + up) & target))
                dests |= BB(to + up);
        }
        while (dests) {
            int d = bb_pop(&dests);
            if (BB(d) & promo_rank)
                out = add_promotions(out, from, d);
            else
                *out++ = MOVE_MAKE(from, d);
        }
    }
    if (b->ep != SQ_NONE) {
        int ep = b->ep, victim = ep - up;
        /* En passant resolves a check only by taking the checking pawn
         * (or blocking, impossible here as the square was just passed). */
        if ((target & BB(victim)) || (target & BB(ep))) {
            for (x = bb_pawn[them][ep] & pawns; x;) {
                int from = bb_pop(&x);
                uint64_t o = (occ ^ BB(from) ^ BB(victim)) | BB(ep);
                if (!(board_attackers(b, ksq, them, o) & ~BB(victim)))
                    *out++ = MOVE_MAKE_KIND(from, ep, MOVE_EN_PASSANT);
            }
        }
    }
    return out;
}

static move_t *gen_all(const struct board *b, move_t *out)
{
    int us = b->side, them = us ^ 1;
    int ksq = board_king_square(b, us);
    uint64_t occ = board_occupied(b), ours = b->by_color[us];
    uint64_t checkers = board_attackers(b, ksq, them, occ);
    uint64_t x;

    for (x = bb_king[ksq] & ~ours; x;) {
        int to = bb_pop(&x);
        if (!board_attackers(b, to, them, occ ^ BB(ksq)))
            *out++ = MOVE_MAKE(ksq, to);
    }
    if (bb_more_than_one(checkers))
        return out;

    uint64_t target = checkers ? bb_between[ksq][bb_lsb(checkers)] | checkers
                               : ~ours;
    uint64_t pinned = pinned_pieces(b, ksq, us);

    out = gen_pawns(b, out, target, pinned, ksq);
    for (x = board_pieces(b, us, KNIGHT) & ~pinned; x;) {
        int from = bb_pop(&x);
        for (uint64_t d = bb_knight[from] & target; d;)
            *out++ = MOVE_MAKE(from, bb_pop(&d));
    }
    for (x = ours & (b->by_type[BISHOP] | b->by_type[QUEEN]); x;) {
        int from = bb_pop(&x);
        uint64_t d = bb_bishop_attacks(from, occ) & target;
        if (pinned & BB(from))
            d &= bb_line[ksq][from];
        while (d)
            *out++ = MOVE_MAKE(from, bb_pop(&d));
    }
    for (x = ours & (b->by_type[ROOK] | b->by_type[QUEEN]); x;) {
        int from = bb_pop(&x);
        uint64_t d = bb_rook_attacks(from, occ) & target;
        if (pinned & BB(from))
            d &= bb_line[ksq][from];
        while (d)
            *out++ = MOVE_MAKE(from, bb_pop(&d));
    }
    if (!checkers && (b->castling & (us == WHITE ? 3 : 12))) {
        int base = us == WHITE ? 0 : 56;
        int kright = us == WHITE ? CASTLE_WK : CASTLE_BK;
        int qright = us == WHITE ? CASTLE_WQ : CASTLE_BQ;
        if ((b->castling & kright) &&
            !(occ & bb_between[base + 4][base + 7]) &&
            !board_attackers(b, base + 5, them, occ) &&
            !board_attackers(b, base + 6, them, occ))
            *out++ = MOVE_MAKE_KIND(base + 4, base + 6, MOVE_CASTLING);
        if ((b->castling & qright) && !(occ & bb_between[base + 4][base]) &&
            !board_attackers(b, base + 3, them, occ) &&
            !board_attackers(b, base + 2, them, occ))
            *out++ = MOVE_MAKE_KIND(base + 4, base + 2, MOVE_CASTLING);
    }
    return out;
}

int movegen_legal(const struct board *b, struct movelist *out)
{
    out->n = (int)(gen_all(b, out->moves) - out->moves);
    assert(out->n <= MOVES_MAX); /* the bound movegen.h proves */
    return out->n;
}

bool movegen_has_legal(const struct board *b)
{
    struct movelist l;
    return movegen_legal(b, &l) > 0;
}

bool movegen_is_legal(const struct board *b, move_t m)
{
    struct movelist l;
    movegen_legal(b, &l);
    for (int i = 0; i < l.n; i++)
        if (l.moves[i] == m)
            return true;
    return false;
}

uint64_t movegen_perft(struct board *b, int depth)
{
    struct movelist l;
    struct board_undo u;
    uint64_t nodes = 0;

    if (depth <= 0)
        return 1;
    movegen_legal(b, &l);
    if (depth == 1)
        return (uint64_t)l.n;
    for (int i = 0; i < l.n; i++) {
        board_make(b, l.moves[i], &u);
        nodes += movegen_perft(b, depth - 1);
        board_unmake(b, l.moves[i], &u);
    }
    return nodes;
}
