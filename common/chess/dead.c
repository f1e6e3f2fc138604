/*
 * dead.c - can a side ever checkmate?
 *
 * Three sound tests, cheapest first; any that proves "cannot" wins, and
 * anything unproven counts as "can mate":
 *
 *  1. Material: the exact insufficient-material cases (K v K, K+N v K with
 *     at most queens against it, K+B.. v K+B.. with every bishop on one
 *     square colour and no pawns or knights).
 *  2. Locked pawns: every pawn has a pawn right in front of it, the
 *     pieces can never capture a pawn or stand where a pawn could capture
 *     them, so the pawn walls are permanent; then a side cannot mate if none
 *     of its pieces can ever attack a square the enemy king can reach.
 *  3. A bounded exhaustive search of every position reachable from here,
 *     used only for small piece counts; if the whole reachable set is seen
 *     with no mate by the side, it cannot mate. An unfinished search proves
 *     nothing.
 */
#include "dead.h"

#include <string.h>

#include "bitboard.h"
#include "movegen.h"

/* Exact insufficient material for side c (python-chess/chessops rules). */
static bool insufficient_material(const struct board *b, enum color c)
{
    uint64_t us = b->by_color[c], them = b->by_color[c ^ 1];
    if (us & (b->by_type[PAWN] | b->by_type[ROOK] | b->by_type[QUEEN]))
        return false;
    if (us & b->by_type[KNIGHT]) {
        /* A lone knight mates only with help from enemy pawns, minor
         * pieces or rooks that block their own king. */
        return bb_count(us) <= 2 &&
               !(them & ~b->by_type[KING] & ~b->by_type[QUEEN]);
    }
    if (us & b->by_type[BISHOP]) {
        uint64_t bishops = b->by_type[BISHOP];
        bool one_colour = !(bishops & BB_DARK) || !(bishops & BB_LIGHT);
        return one_colour && !b->by_type[PAWN] && !b->by_type[KNIGHT];
    }
    return true;
}

/* Flood fill of king steps from `from` over squares in `allowed`. */
static uint64_t king_region(int from, uint64_t allowed)
{
    uint64_t reach = BB(from), frontier = reach;
    while (frontier) {
        uint64_t next = 0;
        for (uint64_t x = frontier; x;)
            next |= bb_king[bb_pop(&x)];
        next &= allowed & ~reach;
        reach |= next;
        frontier = next;
    }
    return reach;
}

/*
 * Squares a piece of type t starting on `from` can ever reach and the
 * squares it can ever attack, moving over squares in `allowed` with only
 * the pawns (`walls`) blocking: other pieces can always step aside.
 */
static void piece_reach(enum piece_type t, int from, uint64_t allowed,
                        uint64_t walls, uint64_t *reach_out,
                        uint64_t *attack_out)
{
    uint64_t reach = BB(from), frontier = reach, attacks = 0;
    while (frontier) {
        uint64_t next = 0;
        for (uint64_t x = frontier; x;) {
            int s = bb_pop(&x);
            uint64_t a;
            switch (t) {
            case KNIGHT:
                a = bb_knight[s];
                break;
            case BISHOP:
                a = bb_bishop_attacks(s, walls);
                break;
            case ROOK:
                a = bb_rook_attacks(s, walls);
                break;
            default:
                a = bb_bishop_attacks(s, walls) | bb_rook_attacks(s, walls);
                break;
            }
            attacks |= a;
            next |= a;
        }
        next &= allowed & ~reach;
        reach |= next;
        frontier = next;
    }
    *reach_out = reach;
    *attack_out = attacks;
}

/*
 * The locked-pawn test. Returns true when it proves that side c can never
 * checkmate. Proves nothing unless every pawn is blocked by a pawn in
 * front of it and no piece can ever break the pawn chain.
 */
static bool locked_cannot_mate(const struct board *b, enum color c)
{
    uint64_t wp = board_pieces(b, WHITE, PAWN);
    uint64_t bp = board_pieces(b, BLACK, PAWN);
    uint64_t pawns = wp | bp;
    if (!wp || !bp)
        return false;
    /* Every pawn has a pawn right in front of it, so none can advance
     * (a chain of pawns of one colour ends at an enemy pawn). */
    if (((wp << 8) & ~pawns) || ((bp >> 8) & ~pawns))
        return false;
    uint64_t wp_att = ((wp & ~BB_FILE_A) << 7) | ((wp & ~BB_FILE_H) << 9);
    uint64_t bp_att = ((bp & ~BB_FILE_A) >> 9) | ((bp & ~BB_FILE_H) >> 7);
    uint64_t pawn_att[2] = {wp_att, bp_att};
    /* No pawn may be able to take another now, en passant included (b->ep
     * is set only when that capture is legal). Later there is none: a
     * double step needs a pawn that can advance. */
    if ((wp_att & bp) || (bp_att & wp) || b->ep != SQ_NONE)
        return false;

    /* A king walks on squares free of pawns and not attacked by enemy
     * pawns; if it can reach an enemy pawn it can take it. */
    uint64_t king_zone[2];
    for (int side = 0; side < 2; side++) {
        uint64_t allowed = ~pawns & ~pawn_att[side ^ 1];
        king_zone[side] = king_region(board_king_square(b, side), allowed);
        uint64_t enemy_pawns = side == WHITE ? bp : wp;
        uint64_t near = 0;
        for (uint64_t x = king_zone[side]; x;)
            near |= bb_king[bb_pop(&x)];
        /* A pawn guarded by a pawn can never be taken by a king. */
        if (near & enemy_pawns & ~pawn_att[side ^ 1])
            return false;
    }
    /* Every other piece: it must never reach a square attacked by an enemy
     * pawn nor attack an enemy pawn, else the structure could change. */
    uint64_t attack[2] = {0, 0};
    for (int side = 0; side < 2; side++) {
        uint64_t enemy_pawns = side == WHITE ? bp : wp;
        uint64_t pieces = b->by_color[side] & ~b->by_type[PAWN] &
                          ~b->by_type[KING];
        while (pieces) {
            int s = bb_pop(&pieces);
            enum piece_type t = PIECE_TYPE(b->squares[s]);
            uint64_t reach, att;
            piece_reach(t, s, ~pawns, pawns, &reach, &att);
            if ((reach & pawn_att[side ^ 1]) || (att & enemy_pawns))
                return false;
            attack[side] |= att;
        }
    }
    /* Pawns never check a king that cannot step next to them, and kings
     * never give check: c mates only if a piece of c can ever attack a
     * square where the enemy king can stand. */
    if (board_in_check(b))
        return false;
    return !(attack[c] & king_zone[c ^ 1]);
}

/* True when the static tests prove that c can never mate. */
static bool proven_cannot_mate(const struct board *b, enum color c)
{
    return insufficient_material(b, c) || locked_cannot_mate(b, c);
}

bool dead_can_mate(const struct board *b, enum color c)
{
    if (!movegen_has_legal(b))
        return board_in_check(b) && b->side != c;
    return !proven_cannot_mate(b, c);
}

bool dead_is_dead(const struct board *b)
{
    /* Both tests fail fast on ordinary material (a pawn that is not
     * blocked head to head, a rook or a queen), which keeps this cheap
     * enough to run after every move. */
    return proven_cannot_mate(b, WHITE) && proven_cannot_mate(b, BLACK);
}

/* ---- bounded exhaustive search ---- */

/* One step of the current line. Move lists are regenerated on the way
 * back instead of being kept, so a frame stays small and the line may be
 * as long as the node budget. */
struct dead_frame {
    struct board_undo undo;
    move_t move;   /* the move made from this frame's position */
    uint16_t next; /* index of the next move to try there */
};

struct dead_scratch {
    uint64_t seen[DEAD_SEARCH_SEEN]; /* 0 = empty slot */
    struct dead_frame stack[DEAD_SEARCH_NODES + 1];
    uint32_t used[DEAD_SEARCH_NODES + 2]; /* slots of seen filled by the
                                             search, emptied at its end */
    size_t n_used;
};

size_t dead_scratch_size(void)
{
    return sizeof(struct dead_scratch);
}

/* Marks key seen; false when it was already there or the table is full. */
static bool seen_insert(struct dead_scratch *ws, uint64_t key, bool *full)
{
    uint64_t k = key ? key : 1; /* 0 marks an empty slot */
    size_t mask = DEAD_SEARCH_SEEN - 1;
    size_t i = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 40) & mask;
    for (int probes = 0; probes < 64; probes++, i = (i + 1) & mask) {
        if (ws->seen[i] == k)
            return false;
        if (ws->seen[i] == 0) {
            ws->seen[i] = k;
            ws->used[ws->n_used++] = (uint32_t)i;
            return true;
        }
    }
    *full = true;
    return false;
}

/*
 * What the search does with a position (its legal moves left in *ml):
 * 1 = c has mated here, 0 = nothing
 * to expand (stalemate, c mated, or settled by the static tests),
 * -1 = expand its moves.
 */
static int classify(const struct board *b, enum color c, struct movelist *ml)
{
    if (movegen_legal(b, ml) == 0)
        return board_in_check(b) && b->side != c ? 1 : 0;
    return proven_cannot_mate(b, c) ? 0 : -1;
}

void dead_scratch_init(void *mem)
{
    struct dead_scratch *ws = mem;

    memset(ws->seen, 0, sizeof ws->seen);
    ws->n_used = 0;
}

/* The search of dead_search_bounded, on a table that is empty at entry;
 * *nodes counts the positions explored. */
static enum dead_search search(const struct board *root, enum color c,
                               struct dead_scratch *ws, long max_nodes,
                               long *nodes_out)
{
    struct board b = *root;
    struct movelist lists[2];
    struct movelist *ml = &lists[0], *spare = &lists[1];
    bool full = false;
    long nodes = 0, depth = 0;

    *nodes_out = 0;
    int r = classify(&b, c, ml);
    if (r >= 0)
        return r == 1 ? DEAD_SEARCH_MATE : DEAD_SEARCH_NO_MATE;
    seen_insert(ws, b.key, &full);
    ws->stack[0].next = 0;

    /* Depth-first over every position reachable from the root; a position
     * already seen was (or is being) explored from its first visit. *ml
     * holds the moves of the current position except right after a step
     * back, when they are generated again. */
    bool ml_valid = true;
    while (depth >= 0) {
        struct dead_frame *f = &ws->stack[depth];
        if (!ml_valid) {
            movegen_legal(&b, ml);
            ml_valid = true;
        }
        if (f->next >= ml->n) {
            if (--depth >= 0)
                board_unmake(&b, ws->stack[depth].move,
                             &ws->stack[depth].undo);
            ml_valid = false;
            continue;
        }
        f->move = ml->moves[f->next++];
        board_make(&b, f->move, &f->undo);
        if (!seen_insert(ws, b.key, &full)) {
            board_unmake(&b, f->move, &f->undo);
            if (full)
                return DEAD_SEARCH_UNKNOWN; /* no room left for the proof */
            continue;
        }
        *nodes_out = ++nodes;
        if (nodes > max_nodes)
            return DEAD_SEARCH_UNKNOWN; /* budget spent */
        r = classify(&b, c, spare);
        if (r == 1)
            return DEAD_SEARCH_MATE;
        if (r == 0) {
            board_unmake(&b, f->move, &f->undo);
            continue;
        }
        struct movelist *t = ml; /* the child's moves become current */
        ml = spare;
        spare = t;
        ws->stack[++depth].next = 0;
    }
    return DEAD_SEARCH_NO_MATE; /* every reachable position seen */
}

enum dead_search dead_search_bounded(const struct board *b, enum color c,
                                     void *mem, long max_nodes, long *nodes)
{
    struct dead_scratch *ws = mem;
    enum dead_search r;

    if (max_nodes > DEAD_SEARCH_NODES)
        max_nodes = DEAD_SEARCH_NODES;
    r = search(b, c, ws, max_nodes, nodes);
    for (size_t i = 0; i < ws->n_used; i++) /* as cheap as the search */
        ws->seen[ws->used[i]] = 0;
    ws->n_used = 0;
    return r;
}

bool dead_search_can_mate(const struct board *b, enum color c, void *ws)
{
    long nodes;

    dead_scratch_init(ws);
    /* unknown counts as "can mate" */
    return dead_search_bounded(b, c, ws, DEAD_SEARCH_NODES, &nodes) !=
           DEAD_SEARCH_NO_MATE;
}
