/*
 * fuzz_dead.c - fuzz target for the dead-position analysis.
 *
 * Input: a FEN on the first line; each byte after the newline picks a
 * legal move (byte modulo the number of moves), so one seed FEN leads to
 * many random legal positions. In every position reached: dead_can_mate
 * must agree with the position when it is already mate or stalemate; when
 * it says a side cannot mate, no mate by that side may be found within a
 * few plies of cooperative play (a helpmate search), and the bounded
 * search must agree; dead_is_dead must mean neither side can mate.
 */
#include <stdlib.h>
#include <string.h>

#include "dead.h"
#include "fuzz.h"
#include "movegen.h"

/* Plies of the helpmate search that looks for a counterexample. */
#define HELP_PLIES 3
/* Positions (after the first) visited per input. */
#define WALK_MAX 8

static void *scratch;

/* Can side c give mate within `plies` half-moves if both sides help? */
static bool helpmate(struct board *b, enum color c, int plies)
{
    struct movelist l;
    struct board_undo u;
    bool found = false;

    if (movegen_legal(b, &l) == 0)
        return board_in_check(b) && b->side != c;
    if (plies == 0)
        return false;
    for (int i = 0; i < l.n && !found; i++) {
        board_make(b, l.moves[i], &u);
        found = helpmate(b, c, plies - 1);
        board_unmake(b, l.moves[i], &u);
    }
    return found;
}

/* The bounded search costs milliseconds (it clears a 4 MB table) and with
 * five or six pieces often spends its whole budget (tens of milliseconds
 * under the sanitizers): it runs on the last position of each input only,
 * and only with at most four pieces, to keep the rate in the hundreds. */
#define SEARCH_PIECES_MAX 4

static void check_position(const struct board *pos, bool search)
{
    struct board b;
    bool can[2];
    bool mated = !movegen_has_legal(pos) && board_in_check(pos);
    bool stalemate = !movegen_has_legal(pos) && !board_in_check(pos);

    memcpy(&b, pos, sizeof b);
    for (int c = WHITE; c <= BLACK; c++) {
        can[c] = dead_can_mate(&b, (enum color)c);
        FUZZ_CHECK(!memcmp(&b, pos, sizeof b), "dead_can_mate changed b");
        if (mated)
            FUZZ_CHECK(can[c] == (pos->side != c),
                       "checkmate: can_mate(%d) = %d", c, can[c]);
        if (stalemate)
            FUZZ_CHECK(!can[c], "stalemate: can_mate(%d)", c);
        if (!can[c]) {
            FUZZ_CHECK(!helpmate(&b, (enum color)c, HELP_PLIES),
                       "side %d said unable to mate has a helpmate", c);
            FUZZ_CHECK(!dead_search_can_mate(&b, (enum color)c, scratch),
                       "search says side %d can mate after all", c);
        } else if (search && __builtin_popcountll(board_occupied(pos)) <=
                                 SEARCH_PIECES_MAX) {
            /* Whatever the search proves must not contradict a helpmate
             * found by brute force. */
            if (!dead_search_can_mate(&b, (enum color)c, scratch))
                FUZZ_CHECK(!helpmate(&b, (enum color)c, HELP_PLIES),
                           "search misses a helpmate by side %d", c);
        }
        FUZZ_CHECK(!memcmp(&b, pos, sizeof b), "the analysis changed b");
    }
    if (!mated && !stalemate)
        FUZZ_CHECK(dead_is_dead(&b) == (!can[WHITE] && !can[BLACK]),
                   "dead_is_dead %d, can_mate %d/%d", dead_is_dead(&b),
                   can[WHITE], can[BLACK]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t fen_len = nl ? (size_t)(nl - data) : size;
    char *fen = fuzz_text(data, fen_len);
    struct board b;
    struct board_undo u;
    struct movelist l;

    if (!scratch && !(scratch = malloc(dead_scratch_size())))
        abort();
    /* Composed material too: the analysis must be sound on any board. */
    if (board_from_fen_any_material(&b, fen) == FEN_OK) {
        for (size_t i = fen_len + 1; i < size && i <= fen_len + WALK_MAX;
             i++) {
            if (movegen_legal(&b, &l) == 0)
                break;
            check_position(&b, false);
            board_make(&b, l.moves[data[i] % l.n], &u);
        }
        check_position(&b, true);
    }
    free(fen);
    return 0;
}
