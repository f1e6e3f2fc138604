/*
 * reach.c - where every unit of a position can ever stand (see reach.h).
 *
 * The analysis is a fixpoint. It starts from the hope that no pawn is ever
 * taken and that the pieces that cannot move now never will, and relaxes
 * it until the description is closed under every legal move:
 *
 *  - A pawn's path runs straight ahead from its square up to the first pawn
 *    that is never taken or fixed piece: an enemy pawn stops it on the
 *    square before (they block each other head to head wherever they
 *    meet), a pawn of its own colour just behind that pawn's own path. A
 *    path that reaches the last rank means a promotion: the analysis gives
 *    up.
 *  - Walls are the pawns whose path is their own square and that are never
 *    taken; fixed pieces are pieces that never move and are never taken.
 *    Both block every line; the squares they attack in every position
 *    (their guard: a wall's pawn attacks, a fixed piece's first square on
 *    each line) are closed to the enemy king.
 *  - A piece reaches what its moves reach with only the blockers in the
 *    way; a king the same over squares no enemy guard covers. A fixed
 *    piece that could move is let go.
 *  - A pawn may capture when an enemy piece or pawn may stand on a square
 *    its path attacks: the analysis gives up (so pawns never leave their
 *    file). A pawn or a fixed piece may be taken when an enemy piece may
 *    attack it, or the enemy king may step next to it where its own guard
 *    does not cover it: it is marked takeable (a fixed piece let go),
 *    which may lengthen the paths behind it and take it out of the
 *    blockers, and the whole is computed again. Every step only adds, so
 *    this ends within one round per unit.
 *  - But for one exit (king_take_ends_game): a king taking a unit that
 *    never moves, when the taken side is left with no legal move and not
 *    in check wherever its king may stand, ends the game in a stalemate
 *    there; so that capture leads nowhere and need not be counted.
 *
 * At the fixpoint every legal move from a position in the set leads to one
 * in the set (or, by that exit, to a stalemate): pawns advance only along
 * their paths (a square beyond needs a blocker gone, which needs it
 * takeable), never capture, never promote; pieces move within their
 * regions (fewer blockers only add squares) and never take a unit that is
 * not takeable; kings never enter a square an enemy guard covers. By
 * induction every reachable position is in the set.
 *
 * The mate test (reach_can_mate) asks, for every square k the loser's king
 * may reach: can the winner's units, each on some square of its reach,
 * attack k and every square next to k that the loser's own units, each on
 * one square of its reach, do not fill? Attacks are counted with only the
 * blockers in the way, through k (a king cannot step back along a check),
 * and nothing that would make a checkmate harder is asked (that the
 * checker cannot be taken or blocked, that two units stand apart), so a
 * "no" holds for every position of the set. One thing more is asked, the
 * tempo rule: when the loser's king is its only unit that ever moves, its
 * last move before the mate came from a square next to k, and the
 * winner's king stood then where it stands in the mate (unless the mating
 * move is its own, uncovering a check), so not next to that square; on the
 * king's square of the analysed board with the winner to move, the mate
 * may also come at once.
 */
#include "reach.h"

#include <string.h>

#include "bitboard.h"

/* Squares a piece of type t on s attacks, with occ in the way. */
static uint64_t attacks_from(enum piece_type t, enum color c, int s,
                             uint64_t occ)
{
    switch (t) {
    case PAWN:
        return bb_pawn[c][s];
    case KNIGHT:
        return bb_knight[s];
    case BISHOP:
        return bb_bishop_attacks(s, occ);
    case ROOK:
        return bb_rook_attacks(s, occ);
    case QUEEN:
        return bb_bishop_attacks(s, occ) | bb_rook_attacks(s, occ);
    default:
        return bb_king[s];
    }
}

/*
 * Flood fill of a piece's moves from u->sq over squares in `allowed`, with
 * only `walls` blocking lines: fills u->reach and u->attacks.
 */
static void flood(struct reach_unit *u, uint64_t allowed, uint64_t walls)
{
    uint64_t reach = BB(u->sq), frontier = reach, attacks = 0;

    while (frontier) {
        uint64_t next = 0;
        for (uint64_t x = frontier; x;) {
            uint64_t a = attacks_from(u->type, u->color, bb_pop(&x), walls);
            attacks |= a;
            next |= a;
        }
        next &= allowed & ~reach;
        reach |= next;
        frontier = next;
    }
    u->reach = reach;
    u->attacks = attacks;
}

/*
 * The path of the pawn on sq (a unit of r, on board b) given the pawns
 * marked takeable and the fixed pieces; the paths of the pawns of its
 * colour ahead of it on its file must be filled already. Returns 0 when it
 * can reach the last rank.
 */
static uint64_t pawn_path(const struct board *b, const struct reach *r,
                          const int *idx, int sq)
{
    enum color c = PIECE_COLOR(b->squares[sq]);
    int step = c == WHITE ? 8 : -8;
    uint64_t path = BB(sq);

    for (int t = sq + step; t >= 0 && t < 64; t += step) {
        uint8_t q = b->squares[t];
        if (r->fixed & BB(t))
            return path; /* a piece that never moves */
        bool pawn = q != PIECE_NONE && PIECE_TYPE(q) == PAWN;
        if (pawn && !(r->takeable & BB(t))) {
            if (PIECE_COLOR(q) != c)
                return path; /* head to head: neither passes the other */
            /* up to just behind the farthest square of the one ahead */
            uint64_t ahead = r->units[idx[t]].reach;
            int far = c == WHITE ? 63 - __builtin_clzll(ahead)
                                 : bb_lsb(ahead);
            for (int s = t; s != far; s += step)
                path |= BB(s);
            return path;
        }
        if (SQ_RANK(t) == 0 || SQ_RANK(t) == 7)
            return 0; /* a promotion */
        path |= BB(t);
    }
    return 0;
}

/* All paths, farthest pawns first; false when one can promote. */
static bool pawn_paths(const struct board *b, struct reach *r, const int *idx)
{
    for (int c = WHITE; c <= BLACK; c++) {
        uint64_t pawns = b->by_color[c] & b->by_type[PAWN];
        while (pawns) { /* the farthest first */
            int sq = c == WHITE ? 63 - __builtin_clzll(pawns) : bb_lsb(pawns);
            pawns &= ~BB(sq);
            uint64_t path = pawn_path(b, r, idx, sq);
            if (!path)
                return false;
            struct reach_unit *u = &r->units[idx[sq]];
            u->reach = path;
            u->attacks = 0;
            for (uint64_t x = path; x;)
                u->attacks |= bb_pawn[c][bb_pop(&x)];
        }
    }
    return true;
}

/* Walls and what walls and fixed pieces attack in every position. */
static void find_walls(struct reach *r)
{
    r->walls = 0;
    r->guard[WHITE] = r->guard[BLACK] = 0;
    for (int i = 0; i < r->n; i++) {
        struct reach_unit *u = &r->units[i];
        uint64_t at = BB(u->sq);
        if (u->type == PAWN && u->reach == at && !(r->takeable & at)) {
            r->walls |= at;
            r->guard[u->color] |= u->attacks;
        } else if (r->fixed & at) {
            /* the first square of each line, whatever else moves */
            r->guard[u->color] |= attacks_from(
                (enum piece_type)u->type, (enum color)u->color, u->sq, ~0ull);
        }
    }
    r->blockers = r->walls | r->fixed;
}

/*
 * The pieces' regions. A fixed piece that could move is no longer fixed:
 * returns how many were let go.
 */
static int piece_regions(struct reach *r)
{
    int changed = 0;

    for (int i = 0; i < r->n; i++) {
        struct reach_unit *u = &r->units[i];
        if (u->type == PAWN)
            continue;
        uint64_t allowed = ~r->blockers;
        if (u->type == KING)
            allowed &= ~r->guard[u->color ^ 1];
        if (!(r->fixed & BB(u->sq))) {
            flood(u, allowed, r->blockers);
            continue;
        }
        u->reach = BB(u->sq);
        u->attacks = attacks_from((enum piece_type)u->type,
                                  (enum color)u->color, u->sq, r->blockers);
        if (u->attacks & allowed) {
            r->fixed &= ~BB(u->sq); /* it has a move */
            changed++;
        }
    }
    return changed;
}

/*
 * The squares of `from` that c's king may step off and uncover a check on
 * a king on k: on a line from k with no blocker between (and not next to
 * k, where c's king never stands), that a slider of c's may stand on
 * beyond them.
 */
static uint64_t uncovering(const struct reach *r, int c, int k, uint64_t from)
{
    uint64_t found = 0;

    for (uint64_t y = from & ~bb_king[k] & ~BB(k); y;) {
        int o = bb_pop(&y);
        if (!bb_line[k][o] || (bb_between[k][o] & r->blockers))
            continue;
        bool diag = SQ_FILE(k) != SQ_FILE(o) && SQ_RANK(k) != SQ_RANK(o);
        for (int i = 0; i < r->n && !(found & BB(o)); i++) {
            const struct reach_unit *v = &r->units[i];
            if (v->color != c ||
                !(v->type == QUEEN || v->type == (diag ? BISHOP : ROOK)))
                continue;
            for (uint64_t z = v->reach & bb_line[k][o]; z;)
                if (bb_between[k][bb_pop(&z)] & BB(o))
                    found |= BB(o);
        }
    }
    return found;
}

/*
 * Does the enemy king taking u (a unit that never moves) always end the
 * game in a stalemate? Then the capture leads nowhere and u need not be
 * counted takeable. True when u's side has no other unit that moves, its
 * king has no step left wherever it may stand apart from u's square (every
 * square it could step to is next to the capturing king), and the capture
 * cannot uncover a check on it.
 */
static bool king_take_ends_game(const struct reach *r,
                                const struct reach_unit *u)
{
    int p = u->color, e = p ^ 1, s = u->sq;
    const struct reach_unit *kp = &r->units[r->king[p]];
    uint64_t taken = bb_king[s] | BB(s); /* next to the capturing king */
    uint64_t from = r->units[r->king[e]].reach & bb_king[s];

    /* a fixed capturing king guards squares it leaves: not counted here */
    if (u->reach != BB(s) || (r->fixed & r->units[r->king[e]].reach))
        return false;
    for (int i = 0; i < r->n; i++) {
        const struct reach_unit *v = &r->units[i];
        if (v != u && v->color == p && v->type != KING &&
            v->reach != BB(v->sq))
            return false; /* another unit may move */
    }
    /* the enemy's units that never move and nothing guards */
    uint64_t loose = r->blockers & ~r->guard[e];
    for (int i = 0; i < r->n; i++)
        if (r->units[i].color == p)
            loose &= ~BB(r->units[i].sq);
    for (uint64_t x = kp->reach & ~taken; x;) {
        int q = bb_pop(&x);
        if ((bb_king[q] & (kp->reach | loose) & ~taken) ||
            uncovering(r, e, q, from))
            return false;
    }
    return true;
}

/*
 * One round of the fixpoint with the current takeable pawns and fixed
 * pieces. Returns -1 when the analysis gives up, else how many pawns were
 * newly found takeable and pieces let go.
 */
static int round_once(const struct board *b, struct reach *r, const int *idx)
{
    uint64_t paths[2] = {0, 0}, piece_reach[2] = {0, 0};
    uint64_t piece_att[2] = {0, 0}, king_near[2] = {0, 0};

    if (!pawn_paths(b, r, idx))
        return -1;
    find_walls(r);
    for (int i = 0; i < r->n; i++)
        if (r->units[i].type == PAWN)
            paths[r->units[i].color] |= r->units[i].reach;
    /* no pawn may ever stand where an enemy pawn may take it */
    for (int i = 0; i < r->n; i++) {
        struct reach_unit *u = &r->units[i];
        if (u->type == PAWN && (u->attacks & paths[u->color ^ 1]))
            return -1;
    }
    int changed = piece_regions(r);
    r->pieces[WHITE] = r->pieces[BLACK] = 0;
    for (int i = 0; i < r->n; i++) {
        struct reach_unit *u = &r->units[i];
        if (u->type == PAWN)
            continue;
        r->pieces[u->color] |= u->reach;
        if (u->type == KING) {
            king_near[u->color] = u->attacks;
        } else {
            piece_reach[u->color] |= u->reach;
            piece_att[u->color] |= u->attacks;
        }
    }
    for (int i = 0; i < r->n; i++) {
        struct reach_unit *u = &r->units[i];
        uint64_t at = BB(u->sq);
        int e = u->color ^ 1;
        /* a piece stepping where a pawn could take it */
        if (u->type == PAWN && (u->attacks & piece_reach[e]))
            return -1;
        if (u->type == KING || (r->takeable & at) ||
            (u->type != PAWN && !(r->fixed & at)))
            continue;
        /* a pawn or a fixed piece an enemy piece or king may take */
        if ((u->reach & piece_att[e]) ||
            ((u->reach & king_near[e] & ~r->guard[u->color]) &&
             !king_take_ends_game(r, u))) {
            if (u->type == PAWN)
                r->takeable |= at;
            else
                r->fixed &= ~at;
            changed++;
        }
    }
    return changed;
}

/*
 * With the units of `stops` never moving and no pawn taken: can a pawn
 * promote, or take another? The squares the pawns of a colour may stand on
 * are those from a pawn ahead through squares that are not stops (or are
 * its own pawns, which move on ahead of it).
 */
static bool pawns_clash(const struct board *b, uint64_t stops)
{
    uint64_t wp = b->by_color[WHITE] & b->by_type[PAWN];
    uint64_t bp = b->by_color[BLACK] & b->by_type[PAWN];
    uint64_t w = wp, b_ = bp, wn = wp, bn = bp;

    while (wn | bn) {
        wn = (wn << 8) & (~stops | wp) & ~w;
        bn = (bn >> 8) & (~stops | bp) & ~b_;
        w |= wn;
        b_ |= bn;
    }
    return ((w & BB_RANK_8) || (b_ & BB_RANK_1) ||
            ((((w & ~BB_FILE_A) << 7) | ((w & ~BB_FILE_H) << 9)) & b_));
}

bool reach_analyse(const struct board *b, struct reach *r)
{
    int idx[64];

    if (b->ep != SQ_NONE)
        return false; /* a capture en passant now */
    /* Cheap refusals first (most positions of a game end here): the first
     * round's pawn paths, as unions in bitboards, with every unit that
     * cannot move now in the way (the first round's view), or first, more
     * cheaply, every unit (shorter paths: a refusal then holds too). */
    uint64_t occ = b->by_color[WHITE] | b->by_color[BLACK];
    if (pawns_clash(b, occ))
        return false;
    uint64_t stops = b->by_type[PAWN] | b->by_type[KING];
    for (uint64_t x = occ & ~stops; x;) {
        int s = bb_pop(&x);
        uint8_t p = b->squares[s];
        if (!(attacks_from(PIECE_TYPE(p), PIECE_COLOR(p), s, occ) &
              ~b->by_color[PIECE_COLOR(p)]))
            stops |= BB(s);
    }
    if (pawns_clash(b, stops))
        return false;
    r->n = 0;
    r->side = b->side;
    r->takeable = 0;
    r->fixed = 0;
    for (uint64_t x = occ; x;) {
        int s = bb_pop(&x);
        uint8_t p = b->squares[s];
        struct reach_unit *u = &r->units[r->n];
        u->sq = (uint8_t)s;
        u->type = (uint8_t)PIECE_TYPE(p);
        u->color = (uint8_t)PIECE_COLOR(p);
        u->reach = u->attacks = 0;
        /* Pieces start fixed unless they can move now (the fixpoint lets
         * go of the others as they are shown to move or be taken). */
        if (u->type == KING) {
            r->king[u->color] = r->n;
            r->fixed |= BB(s);
        } else if (u->type != PAWN &&
                   !(attacks_from((enum piece_type)u->type,
                                  (enum color)u->color, s, occ) &
                     ~b->by_color[u->color])) {
            r->fixed |= BB(s);
        }
        idx[s] = r->n++;
    }
    for (;;) {
        int changed = round_once(b, r, idx);
        if (changed < 0)
            return false;
        if (changed == 0)
            return true;
    }
}

/* ---- the mate test ---- */

/* The 3x3 box around k as bits 0..8 (bit 4 is k): the bit of square s. */
static int box_bit(int k, int s)
{
    return (SQ_RANK(s) - SQ_RANK(k) + 1) * 3 + (SQ_FILE(s) - SQ_FILE(k) + 1);
}

/* The box bits of the squares of `set` (all inside k's box). */
static unsigned box_mask(int k, uint64_t set)
{
    unsigned m = 0;
    while (set)
        m |= 1u << box_bit(k, bb_pop(&set));
    return m;
}

/* A set of box masks: 512 bits. */
struct maskset {
    uint64_t w[8];
};

static void maskset_add(struct maskset *s, unsigned m)
{
    s->w[m >> 6] |= 1ull << (m & 63);
}

/*
 * What unit u of the winner may attack in k's box, as the set of masks over
 * the squares it may stand on (0 too when it may be gone or elsewhere).
 */
static void unit_masks(const struct reach *r, const struct reach_unit *u,
                       int k, uint64_t box, struct maskset *out)
{
    memset(out, 0, sizeof *out);
    if (!(r->blockers & BB(u->sq)))
        maskset_add(out, 0);
    for (uint64_t x = u->reach; x;) {
        int s = bb_pop(&x);
        if (s == k || (u->type == KING && (box & BB(s))))
            continue; /* kings never stand side by side */
        uint64_t a = attacks_from((enum piece_type)u->type,
                                  (enum color)u->color, s, r->blockers);
        maskset_add(out, box_mask(k, a & box));
    }
}

/* out = { a | m : a in cur, m in add }. */
static void maskset_join(const struct maskset *cur, const struct maskset *add,
                         struct maskset *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 8; i++)
        for (uint64_t x = add->w[i]; x;) {
            unsigned m = (unsigned)(i * 64 + bb_pop(&x));
            for (int j = 0; j < 8; j++)
                for (uint64_t y = cur->w[j]; y;) {
                    unsigned a = (unsigned)(j * 64 + bb_pop(&y));
                    maskset_add(out, a | m);
                }
        }
}

/* Matching of the squares of `need` to distinct units of `fill` (a list of
 * reach sets): can each square get a unit that may stand on it? */
static bool try_square(const uint64_t *fill, int n, int sq, int *owner,
                       uint64_t *seen)
{
    for (int i = 0; i < n; i++) {
        if (!(fill[i] & BB(sq)) || (*seen & (1ull << i)))
            continue;
        *seen |= 1ull << i;
        if (owner[i] < 0 || try_square(fill, n, owner[i], owner, seen)) {
            owner[i] = sq;
            return true;
        }
    }
    return false;
}

static bool can_fill(const uint64_t *fill, int n, uint64_t need)
{
    int owner[REACH_UNITS];

    if (bb_count(need) > n)
        return false;
    for (int i = 0; i < n; i++)
        owner[i] = -1;
    while (need) {
        uint64_t seen = 0;
        if (!try_square(fill, n, bb_pop(&need), owner, &seen))
            return false;
    }
    return true;
}

/* What the mate test knows about the winner c and the loser. */
struct mate_ctx {
    enum color c;
    uint64_t own;      /* c's units that never move (walls, fixed) */
    uint64_t threat;   /* what c's units, king included, may attack */
    uint64_t fillable; /* squares some loser unit may stand on */
    uint64_t fill[REACH_UNITS]; /* the reach of each loser unit that moves */
    int n_fill;
    bool king_only; /* the loser's king is the only loser unit that moves */
};

/* One class of squares of c's king: what it attacks in k's box, which
 * squares next to k it stands next to, whether it may have come from a
 * square that uncovers a check, and whether it may stand there when c's
 * first move mates (its own square, or a step uncovering a check). */
struct king_class {
    unsigned mask;
    bool uncovered; /* it may have come from a square that uncovers */
    bool first;     /* it may stand there after c's first move */
    uint64_t near;
};

/* The distinct classes of c's king's squares for a loser king on k. */
static int king_classes(const struct reach *r, enum color c, int k,
                        uint64_t uncover, struct king_class *out)
{
    const struct reach_unit *u = &r->units[r->king[c]];
    uint64_t box = bb_king[k] | BB(k);
    int n = 0;

    for (uint64_t x = u->reach & ~box; x;) {
        int t = bb_pop(&x);
        struct king_class kc = {
            .mask = box_mask(k, bb_king[t] & box),
            .uncovered = (bb_king[t] & uncover) != 0,
            .first = t == u->sq ||
                     ((bb_king[t] & BB(u->sq)) && (uncover & BB(u->sq))),
            .near = bb_king[t] & bb_king[k]};
        int i = 0;
        while (i < n &&
               (out[i].mask != kc.mask || out[i].near != kc.near ||
                out[i].uncovered != kc.uncovered || out[i].first != kc.first))
            i++;
        if (i == n)
            out[n++] = kc;
    }
    return n;
}

/*
 * Could c mate the loser's king on k? The winner's units but its king are
 * joined first (every union of what they attack in k's box); its king is
 * added last, square class by square class, because of the tempo rule:
 * when the loser's king is its only unit that moves, its last move came
 * from a square k2 next to k, and at that moment c's king stood where it
 * stands now (unless the mating move is a king's that uncovers a check),
 * so not next to k2.
 */
static bool mate_on(const struct reach *r, int k, const struct mate_ctx *m)
{
    const struct reach_unit *lk = &r->units[r->king[m->c ^ 1]];
    uint64_t box = bb_king[k] | BB(k);
    struct maskset cur, add, next;
    struct king_class kings[64];

    /* Each flight must be attacked by some unit or filled by some unit
     * (a cheap necessary condition; most squares fail it). */
    if (bb_king[k] & ~(m->threat | m->fillable | (r->blockers & ~m->own)))
        return false;
    memset(&cur, 0, sizeof cur);
    maskset_add(&cur, 0);
    for (int i = 0; i < r->n; i++) {
        const struct reach_unit *u = &r->units[i];
        if (u->color != m->c || u->type == KING || !(u->attacks & box))
            continue;
        unit_masks(r, u, k, box, &add);
        maskset_join(&cur, &add, &next);
        cur = next;
    }
    /* where the loser's king may have come from */
    uint64_t origins = bb_king[k] & lk->reach;
    bool at_root = k == lk->sq && r->side == (int)m->c;
    uint64_t uncover = m->king_only
                           ? uncovering(r, m->c, k,
                                        r->units[r->king[m->c]].reach)
                           : 0;
    int n_kings = king_classes(r, m->c, k, uncover, kings);
    for (int i = 0; i < 8; i++)
        for (uint64_t x = cur.w[i]; x;) {
            unsigned u = (unsigned)(i * 64 + bb_pop(&x));
            if (!(u & (1u << 4)))
                continue; /* no check */
            for (int j = 0; j < n_kings; j++) {
                if (m->king_only && !kings[j].uncovered &&
                    !(origins & ~kings[j].near) &&
                    !(at_root && kings[j].first))
                    continue;
                unsigned all = u | kings[j].mask;
                uint64_t open = bb_king[k];
                for (uint64_t y = open; y;) {
                    int s = bb_pop(&y);
                    if (all & (1u << box_bit(k, s)))
                        open &= ~BB(s);
                }
                if (open & m->own)
                    continue; /* the king takes an unguarded unit */
                if (can_fill(m->fill, m->n_fill, open & ~r->blockers))
                    return true;
            }
        }
    return false;
}

bool reach_can_mate(const struct reach *r, enum color c)
{
    const struct reach_unit *king = &r->units[r->king[c ^ 1]];
    struct mate_ctx m = {.c = c, .king_only = true};
    uint64_t check = 0;

    for (int i = 0; i < r->n; i++) {
        const struct reach_unit *u = &r->units[i];
        bool still = u->reach == BB(u->sq);
        if (u->color == c) {
            m.own |= (r->blockers & BB(u->sq));
            m.threat |= u->attacks;
            check |= u->type == KING ? 0 : u->attacks;
        } else if (u->type != KING && !(r->blockers & BB(u->sq))) {
            m.fill[m.n_fill++] = u->reach;
            m.fillable |= u->reach;
        }
        if (u->color != c && u->type != KING && !still)
            m.king_only = false;
    }
    for (uint64_t x = king->reach & check; x;)
        if (mate_on(r, bb_pop(&x), &m))
            return true;
    return false;
}
