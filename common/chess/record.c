/*
 * record.c - game history, repetition, the move-count rules and outcomes.
 */
#include "record.h"

#include <assert.h>
#include <stdlib.h>

#include "dead.h"
#include "movegen.h"

/* Plies the history holds before it first grows (doubling): a live game's
 * record is kept for every game a server holds. */
#define RECORD_FIRST_CAP 16

int record_init(struct record *r, const struct board *start)
{
    r->start = *start;
    r->cur = *start;
    r->n = 0;
    r->cap = RECORD_FIRST_CAP;
    r->moves = malloc(r->cap * sizeof *r->moves);
    r->keys = malloc((r->cap + 1) * sizeof *r->keys);
    if (!r->moves || !r->keys) {
        record_clear(r);
        return -1;
    }
    r->keys[0] = start->key;
    return 0;
}

void record_clear(struct record *r)
{
    free(r->moves);
    free(r->keys);
    r->moves = NULL;
    r->keys = NULL;
    r->n = r->cap = 0;
}

int record_push(struct record *r, move_t m)
{
    assert(movegen_is_legal(&r->cur, m));
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : RECORD_FIRST_CAP;
        move_t *mv = realloc(r->moves, cap * sizeof *mv);
        if (!mv)
            return -1;
        r->moves = mv;
        uint64_t *k = realloc(r->keys, (cap + 1) * sizeof *k);
        if (!k)
            return -1;
        r->keys = k;
        r->cap = cap;
    }
    struct board_undo u;
    board_make(&r->cur, m, &u);
    r->moves[r->n++] = m;
    r->keys[r->n] = r->cur.key;
    return 0;
}

void record_truncate(struct record *r, size_t n)
{
    struct board_undo u;

    assert(n <= r->n);
    r->cur = r->start;
    for (size_t i = 0; i < n; i++)
        board_make(&r->cur, r->moves[i], &u);
    r->n = n;
    assert(r->cur.key == r->keys[n]);
}

/*
 * Occurrences of `key` among the positions since the last irreversible
 * move, looking back `window` plies from ply `at` in steps of two (same side
 * to move). The halfmove clock bounds the window: a capture or pawn move
 * makes every earlier position unrepeatable; castling-right changes show in
 * the key itself.
 */
static int count_key(const struct record *r, size_t at, unsigned window,
                     uint64_t key)
{
    int count = 0;
    size_t lim = window < at ? at - window : 0;
    for (size_t i = at;; i -= 2) {
        if (r->keys[i] == key)
            count++;
        if (i < lim + 2)
            break;
    }
    return count;
}

int record_repetitions(const struct record *r)
{
    return count_key(r, r->n, r->cur.halfmove, r->cur.key);
}

enum outcome record_outcome(const struct record *r)
{
    return record_outcome_n(r, movegen_has_legal(&r->cur) ? 1 : 0);
}

enum outcome record_outcome_n(const struct record *r, int n_legal)
{
    const struct board *b = &r->cur;
    if (n_legal == 0)
        return board_in_check(b) ? OUTCOME_CHECKMATE : OUTCOME_STALEMATE;
    if (dead_is_dead(b))
        return OUTCOME_DEAD;
    if (b->halfmove >= 8 && record_repetitions(r) >= 5)
        return OUTCOME_FIVEFOLD;
    if (b->halfmove >= 150)
        return OUTCOME_SEVENTY_FIVE;
    return OUTCOME_NONE;
}

enum claim record_claim_now(const struct record *r)
{
    if (r->cur.halfmove >= 4 && record_repetitions(r) >= 3)
        return CLAIM_THREEFOLD;
    if (r->cur.halfmove >= 100)
        return CLAIM_FIFTY;
    return CLAIM_NONE;
}

/* False when no move of the side to move can be played with a claim:
 * fewer than 99 plies since the last irreversible move, and no position
 * that a move could repeat a third time, none having occurred twice among
 * those with the opponent to move within the halfmove window. */
static bool claim_possible(const struct record *r)
{
    uint64_t seen[80];
    unsigned window;
    size_t n = 0, lim;

    if (r->cur.halfmove >= 99)
        return true;
    if (r->cur.halfmove < 3 || r->n < 1)
        return false;
    /* as count_key looks back from ply n-1 for a move's position */
    window = r->cur.halfmove - 1u;
    lim = window < r->n - 1 ? r->n - 1 - window : 0;
    for (size_t i = r->n - 1;; i -= 2) {
        for (size_t j = 0; j < n; j++)
            if (seen[j] == r->keys[i])
                return true;
        assert(n < sizeof seen / sizeof *seen);
        seen[n++] = r->keys[i];
        if (i < lim + 2)
            break;
    }
    return false;
}

void record_claims(const struct record *r, const move_t *moves, int n,
                   enum claim *out)
{
    bool possible = claim_possible(r);

    for (int i = 0; i < n; i++)
        out[i] = possible ? record_claim_with(r, moves[i]) : CLAIM_NONE;
}

enum claim record_claim_with(const struct record *r, move_t m)
{
    struct board after = r->cur;
    struct board_undo u;
    board_make(&after, m, &u);
    /* The new position is at ply n+1, which is not stored: count it once
     * and look back from ply n-1 to ply n+1-halfmove. */
    if (after.halfmove >= 4 && r->n >= 1) {
        int reps = 1 + count_key(r, r->n - 1, after.halfmove - 2u, after.key);
        if (reps >= 3)
            return CLAIM_THREEFOLD;
    }
    if (after.halfmove >= 100)
        return CLAIM_FIFTY;
    return CLAIM_NONE;
}
