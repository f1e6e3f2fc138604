/*
 * ending.c - the table of game endings (see ending.h).
 */
#include "ending.h"

#include <stddef.h>
#include <string.h>

#define ROW(r, n, k, term, w)   \
    [r] = {.reason = r,         \
           .name = n,           \
           .kind = k,           \
           .termination = term, \
           .words = w,          \
           .metric = n}

static const struct ending table[] = {
    ROW(ENDING_CHECKMATE, "checkmate", ENDING_KIND_WIN, "normal",
        "the loser is checkmated"),
    ROW(ENDING_RESIGNATION, "resignation", ENDING_KIND_WIN, "normal",
        "the loser resigned or left the game"),
    ROW(ENDING_ABANDONED, "abandoned", ENDING_KIND_WIN, "abandoned",
        "the loser stayed away longer than the grace period, or both "
        "players did and the loser was to move (section 8)"),
    ROW(ENDING_TIMEOUT, "timeout", ENDING_KIND_WIN, "time forfeit",
        "the loser ran out of time and the winner could still checkmate"),
    ROW(ENDING_TIMEOUT_VS_INSUFFICIENT, "timeout_vs_insufficient",
        ENDING_KIND_DRAW, "time forfeit",
        "a side ran out of time but the other could not checkmate"),
    ROW(ENDING_STALEMATE, "stalemate", ENDING_KIND_DRAW, "normal",
        "the side to move has no legal move and is not in check"),
    ROW(ENDING_DEAD_POSITION, "dead_position", ENDING_KIND_DRAW, "normal",
        "neither side can checkmate any more"),
    ROW(ENDING_FIVEFOLD, "fivefold", ENDING_KIND_DRAW, "normal",
        "the same position occurred five times"),
    ROW(ENDING_SEVENTY_FIVE_MOVES, "seventy_five_moves", ENDING_KIND_DRAW,
        "normal", "75 moves by each side without a capture or a pawn move"),
    ROW(ENDING_THREEFOLD, "threefold", ENDING_KIND_DRAW, "normal",
        "claimed: the same position occurred three times"),
    ROW(ENDING_FIFTY_MOVES, "fifty_moves", ENDING_KIND_DRAW, "normal",
        "claimed: 50 moves by each side without a capture or a pawn move"),
    ROW(ENDING_AGREEMENT, "agreement", ENDING_KIND_DRAW, "normal",
        "a draw offer was accepted"),
    ROW(ENDING_ABORTED, "aborted", ENDING_KIND_NONE, "unterminated",
        "a player aborted the game or both players stayed away (section "
        "8) before both sides had moved, or a rated game ended so early "
        "another way (section 5)"),
    ROW(ENDING_NO_START, "no_start", ENDING_KIND_NONE, "unterminated",
        "the side to move did not make its first move in time"),
    ROW(ENDING_CANCELLED, "cancelled", ENDING_KIND_NONE, "unterminated",
        "an invitation nobody joined was withdrawn by its creator, or "
        "expired after 24 hours"),
    ROW(ENDING_ADJUDICATED, "adjudicated", ENDING_KIND_WIN, "adjudication",
        "a moderator gave the winner the game (section 4, \"Moderation\")"),
    ROW(ENDING_ADJUDICATED_DRAW, "adjudicated_draw", ENDING_KIND_DRAW,
        "adjudication",
        "a moderator made the game a draw (section 4, \"Moderation\")"),
};

_Static_assert(sizeof table / sizeof table[0] == ENDING_REASONS,
               "a reason without a row in the table of endings");

static const char *const result_names[ENDING_RESULTS] = {
    [ENDING_WHITE_WINS] = "1-0",
    [ENDING_BLACK_WINS] = "0-1",
    [ENDING_DRAWN] = "1/2-1/2",
    [ENDING_NO_RESULT] = "*",
};

const struct ending *ending_get(enum ending_reason r)
{
    return (unsigned)r < ENDING_REASONS ? &table[r] : NULL;
}

const struct ending *ending_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < ENDING_REASONS; i++)
        if (!strcmp(table[i].name, name))
            return &table[i];
    return NULL;
}

enum ending_result ending_result_for(enum ending_reason r, int winner)
{
    const struct ending *e = ending_get(r);

    if (!e || e->kind == ENDING_KIND_NONE)
        return ENDING_NO_RESULT;
    if (e->kind == ENDING_KIND_DRAW)
        return ENDING_DRAWN;
    return winner == 0 ? ENDING_WHITE_WINS : ENDING_BLACK_WINS;
}

const char *ending_result_name(enum ending_result r)
{
    return (unsigned)r < ENDING_RESULTS ? result_names[r] : NULL;
}

int ending_result_find(const char *s, enum ending_result *r)
{
    if (!s)
        return -1;
    for (int i = 0; i < ENDING_RESULTS; i++)
        if (!strcmp(result_names[i], s)) {
            if (r)
                *r = (enum ending_result)i;
            return 0;
        }
    return -1;
}

bool ending_result_fits(enum ending_reason reason, enum ending_result result)
{
    const struct ending *e = ending_get(reason);

    if (!e)
        return false;
    switch (e->kind) {
    case ENDING_KIND_WIN:
        return result == ENDING_WHITE_WINS || result == ENDING_BLACK_WINS;
    case ENDING_KIND_DRAW:
        return result == ENDING_DRAWN;
    case ENDING_KIND_NONE:
        return result == ENDING_NO_RESULT;
    }
    return false;
}
