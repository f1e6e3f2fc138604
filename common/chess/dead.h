/*
 * dead.h - can a side ever checkmate? (FIDE 2023 Art. 5.2.2 and 6.9)
 *
 * The answer is sound in one direction: `false` is returned only when it is
 * proven that no sequence of legal moves lets that side checkmate, and the
 * proof comes with it (struct dead_proof); `true` means it can or that the
 * analysis could not prove otherwise. No allocation, no I/O (but
 * dead_proof_text, which writes a proof for people).
 */
#ifndef CHESS_DEAD_H
#define CHESS_DEAD_H

#include "board.h"
#include "text.h"

/* Why a side cannot checkmate. */
enum dead_proof_kind {
    DEAD_UNPROVEN,  /* no proof: the side may be able to mate */
    DEAD_GAME_OVER, /* checkmate or stalemate is on the board */
    DEAD_MATERIAL,  /* insufficient material */
    DEAD_LOCKED,    /* locked pawns: the squares every unit can ever reach
                       leave no checkmate (reach.h) */
    DEAD_SEARCH,    /* every reachable position was examined: none is a
                       checkmate by the side */
};

/* A proof that a side cannot checkmate. */
struct dead_proof {
    enum dead_proof_kind kind;
    uint64_t locked;   /* DEAD_LOCKED: the pawns and pieces that never move */
    uint64_t reach[2]; /* DEAD_LOCKED: the squares each side's king and
                          pieces may ever stand on */
    long positions;    /* DEAD_SEARCH: positions the search examined */
};

/* Could side c checkmate its opponent by some series of legal moves from b?
 * In a position that is already checkmate the answer is whether c is the
 * side giving mate; in a stalemate it is false for both. The static tests
 * only (no search): cheap enough for every move. */
bool dead_can_mate(const struct board *b, enum color c);

/* dead_can_mate, and when it answers false the proof in *proof. */
bool dead_can_mate_proof(const struct board *b, enum color c,
                         struct dead_proof *proof);

/* Appends to t, in English, why side c cannot checkmate according to p
 * (one sentence; squares in algebraic notation). */
void dead_proof_text(const struct dead_proof *p, enum color c,
                     struct text *t);

/*
 * Scratch memory for dead_search_can_mate: the caller allocates it (it is
 * large, about 9 MB) and may reuse it for any number of searches, so the
 * rules core itself never allocates.
 */
#define DEAD_SEARCH_SEEN (1u << 19) /* visited-position slots, power of 2 */
#define DEAD_SEARCH_NODES 200000    /* steps before giving up (below) */
/* A search's budget is in steps: one per position explored, and this many
 * more for a position where the locked-pawn analysis ran in full (its
 * mate test), which costs about that many positions' work; so that steps
 * stand for time (tests/bench/bench_flag measures steps a millisecond). */
#define DEAD_LOCKED_STEPS 3
struct dead_scratch;
size_t dead_scratch_size(void);

/* Like dead_can_mate, but when the static tests prove nothing it also
 * explores every position reachable from b (both sides' moves, bounded by
 * DEAD_SEARCH_NODES), pruning positions the static tests settle; if no
 * checkmate by c is reachable, c cannot mate. ws points to
 * dead_scratch_size() bytes owned by the caller. Worst case some tens of
 * milliseconds: meant for a flag-fall verdict or a tool, not every move. */
bool dead_search_can_mate(const struct board *b, enum color c, void *ws);

/* What a bounded search found. */
enum dead_search {
    DEAD_SEARCH_NO_MATE, /* proven: c can never mate */
    DEAD_SEARCH_MATE,    /* a mate by c is reachable (or static: can mate
                            and nothing to search) */
    DEAD_SEARCH_UNKNOWN  /* the budget ran out first: counts as can mate */
};

/* Empties the scratch's table once, for dead_search_bounded. */
void dead_scratch_init(void *ws);

/* dead_search_can_mate with a budget of max_steps steps (at most
 * DEAD_SEARCH_NODES), telling a proof from a budget that ran out; *steps
 * gets the steps spent, and *proof (when not NULL) the proof of a
 * DEAD_SEARCH_NO_MATE: the static one when they settle b, else
 * DEAD_SEARCH with the positions explored. Its cost is proportional to
 * *steps (no per-call clearing of the whole table): ws must have been
 * through dead_scratch_init, and each call leaves it ready for the next. */
enum dead_search dead_search_bounded(const struct board *b, enum color c,
                                     void *ws, long max_steps, long *steps,
                                     struct dead_proof *proof);

/* True when neither side can ever checkmate (a dead position), by the
 * static tests. Meant for a position where the side to move has a legal
 * move: checkmate and stalemate are decided before this is asked. */
bool dead_is_dead(const struct board *b);

/* dead_is_dead, with each side's proof in proof[WHITE], proof[BLACK] when
 * it answers true. */
bool dead_is_dead_proof(const struct board *b, struct dead_proof proof[2]);

#endif
