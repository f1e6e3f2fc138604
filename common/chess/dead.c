/*
 * dead.c - can a side ever checkmate?
 *
 * Three sound tests, cheapest first; any that proves "cannot" wins, and
 * anything unproven counts as "can mate":
 *
 *  1. Material: the exact insufficient-material cases (K v K, K+N v K with
 *     at most queens against it, K+B.. v K+B.. with every bishop on one
 *     square colour and no pawns or knights).
 *  2. Locked pawns (reach.h): the squares every pawn and piece can ever
 *     stand on, when no pawn can ever capture or promote; a side cannot
 *     mate if no square its opponent's king can reach can be attacked with
 *     every square around it attacked or filled. It needs pawns: without
 *     them the first test is exact on every position the tests hold.
 *  3. A bounded exhaustive search of every position reachable from here
 *     (off the move path: the flag's verdict and the tools), pruning
 *     positions the first two settle; if the whole reachable set is seen
 *     with no mate by the side, it cannot mate. An unfinished search
 *     proves nothing.
 */
#include "dead.h"

#include <stdio.h>
#include <string.h>

#include "bitboard.h"
#include "movegen.h"
#include "reach.h"

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

/* The locked-pawn analysis of one position, made at most once for both
 * sides' questions. */
struct lock {
    int state; /* 0: not made yet, 1: made, -1: it gives up */
    struct reach r;
};

/* True when the static tests prove that c can never mate; *p gets the
 * proof (when not NULL). */
static bool static_proof(const struct board *b, enum color c, struct lock *l,
                         struct dead_proof *p)
{
    if (insufficient_material(b, c)) {
        if (p)
            *p = (struct dead_proof){.kind = DEAD_MATERIAL};
        return true;
    }
    if (!b->by_type[PAWN])
        return false;
    if (l->state == 0)
        l->state = reach_analyse(b, &l->r) ? 1 : -1;
    if (l->state < 0 || reach_can_mate(&l->r, c))
        return false;
    if (p)
        *p = (struct dead_proof){
            .kind = DEAD_LOCKED,
            .locked = l->r.blockers,
            .reach = {l->r.pieces[WHITE], l->r.pieces[BLACK]}};
    return true;
}

/* True when the static tests prove that c can never mate; `locked`
 * false leaves the locked-pawn analysis out. *heavy: whether that analysis
 * ran in full (up to its mate test), the costly case. */
static bool proven_cannot_mate(const struct board *b, enum color c,
                               bool locked, bool *heavy)
{
    struct lock l; /* (only state needs setting: no 2 KB memset a move) */
    l.state = locked ? 0 : -1;
    bool proven = static_proof(b, c, &l, NULL);
    *heavy = locked && l.state == 1;
    return proven;
}

bool dead_can_mate_proof(const struct board *b, enum color c,
                         struct dead_proof *proof)
{
    struct lock l;
    l.state = 0;

    if (!movegen_has_legal(b)) {
        bool mated_by_c = board_in_check(b) && b->side != c;
        if (!mated_by_c && proof)
            *proof = (struct dead_proof){.kind = DEAD_GAME_OVER};
        return mated_by_c;
    }
    return !static_proof(b, c, &l, proof);
}

bool dead_can_mate(const struct board *b, enum color c)
{
    return dead_can_mate_proof(b, c, NULL);
}

bool dead_is_dead_proof(const struct board *b, struct dead_proof proof[2])
{
    struct lock l;
    l.state = 0;

    /* Both tests fail fast on ordinary material (a pawn that may capture
     * or promote, a rook or a queen with no pawns), which keeps this cheap
     * enough to run after every move. */
    return static_proof(b, WHITE, &l, proof ? &proof[WHITE] : NULL) &&
           static_proof(b, BLACK, &l, proof ? &proof[BLACK] : NULL);
}

bool dead_is_dead(const struct board *b)
{
    return dead_is_dead_proof(b, NULL);
}

/* Appends the squares of set, "a1 b2 c3", to t. */
static void put_squares(struct text *t, uint64_t set)
{
    bool first = true;

    while (set) {
        int s = bb_pop(&set);
        char sq[4] = {' ', (char)('a' + SQ_FILE(s)),
                      (char)('1' + SQ_RANK(s))};
        text_put(t, first ? sq + 1 : sq, first ? 2 : 3);
        first = false;
    }
}

void dead_proof_text(const struct dead_proof *p, enum color c, struct text *t)
{
    static const char *const name[2] = {"White", "Black"};
    char num[32];

    text_str(t, name[c]);
    text_str(t, " cannot checkmate: ");
    switch (p->kind) {
    case DEAD_GAME_OVER:
        text_str(t, "the game is over on the board.");
        break;
    case DEAD_MATERIAL:
        text_str(t, "insufficient material.");
        break;
    case DEAD_LOCKED:
        text_str(t, "the pawns are locked; ");
        text_str(t, "these never move: ");
        put_squares(t, p->locked);
        for (int side = WHITE; side <= BLACK; side++) {
            text_str(t, side == WHITE ? "; " : "; and ");
            text_str(t, name[side]);
            text_str(t, "'s king and pieces can only reach ");
            put_squares(t, p->reach[side]);
        }
        text_str(t, ".");
        break;
    case DEAD_SEARCH:
        snprintf(num, sizeof num, "%ld", p->positions);
        text_str(t, "a search of every position reachable from here (");
        text_str(t, num);
        text_str(t, " examined) found no checkmate by ");
        text_str(t, name[c]);
        text_str(t, ".");
        break;
    default:
        text_str(t, "unproven.");
        break;
    }
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
 * -1 = expand its moves. The locked-pawn analysis, the costly test, runs
 * only where a capture or a pawn move has just changed what it sees: the
 * other moves are ones its regions already allow for, so where it could
 * not prove the position before such a move it rarely can after it.
 */
static int classify(const struct board *b, enum color c, struct movelist *ml,
                    bool *heavy)
{
    *heavy = false;
    if (movegen_legal(b, ml) == 0)
        return board_in_check(b) && b->side != c ? 1 : 0;
    return proven_cannot_mate(b, c, b->halfmove == 0, heavy) ? 0 : -1;
}

void dead_scratch_init(void *mem)
{
    struct dead_scratch *ws = mem;

    memset(ws->seen, 0, sizeof ws->seen);
    ws->n_used = 0;
}

/* The search of dead_search_bounded, on a table that is empty at entry;
 * *steps counts its steps (dead.h), *positions the positions explored. */
static enum dead_search search(const struct board *root, enum color c,
                               struct dead_scratch *ws, long max_steps,
                               long *steps_out, long *positions)
{
    struct board b = *root;
    struct movelist lists[2];
    struct movelist *ml = &lists[0], *spare = &lists[1];
    bool full = false, heavy;
    long nodes = 0, steps = 0, depth = 0;

    *steps_out = *positions = 0;
    int r = classify(&b, c, ml, &heavy);
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
        *positions = ++nodes;
        r = classify(&b, c, spare, &heavy);
        *steps_out = steps += 1 + (heavy ? DEAD_LOCKED_STEPS : 0);
        if (steps > max_steps)
            return DEAD_SEARCH_UNKNOWN; /* budget spent */
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
                                     void *mem, long max_steps, long *steps,
                                     struct dead_proof *proof)
{
    struct dead_scratch *ws = mem;
    enum dead_search r;
    long positions;

    if (max_steps > DEAD_SEARCH_NODES)
        max_steps = DEAD_SEARCH_NODES;
    if (!dead_can_mate_proof(b, c, proof)) {
        *steps = 0;
        return DEAD_SEARCH_NO_MATE;
    }
    r = search(b, c, ws, max_steps, steps, &positions);
    if (r == DEAD_SEARCH_NO_MATE && proof)
        *proof = (struct dead_proof){.kind = DEAD_SEARCH,
                                     .positions = positions + 1};
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
    return dead_search_bounded(b, c, ws, DEAD_SEARCH_NODES, &nodes, NULL) !=
           DEAD_SEARCH_NO_MATE;
}
