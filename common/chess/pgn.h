/*
 * pgn.h - a finished (or live) game as PGN text: the seven-tag roster,
 * TimeControl, Termination, SetUp/FEN for set-up positions, and a
 * [%clk H:MM:SS] comment after each move.
 */
#ifndef CHESS_PGN_H
#define CHESS_PGN_H

#include <stdint.h>

#include "record.h"

/* Time given in the game: `color`'s clock got `seconds` more after the
 * game's first `ply` plies (0: before the first move). */
struct pgn_give {
    int ply;
    int color;
    int seconds;
};

struct pgn_tags {
    const char *event; /* e.g. "Casual game" */
    const char *site;  /* e.g. "https://host/g/GID" */
    const char *date;  /* "YYYY.MM.DD" */
    const char *white;
    const char *black;
    const char *result;       /* "1-0", "0-1", "1/2-1/2", "*" */
    const char *time_control; /* "300+2" (Fischer) or "1/60" (per move) */
    const char *termination;  /* e.g. "normal", "time forfeit", "abandoned" */
    /* A rated game's WhiteElo, BlackElo (the ratings before it) and,
     * once it ended, WhiteRatingDiff, BlackRatingDiff ("+12", "-7", "0"):
     * written after Result when not NULL. */
    const char *white_elo, *black_elo;
    const char *white_rating_diff, *black_rating_diff;
    /* A comment after the last move, before the result: how the game
     * ended when the tags cannot say it (a dead position's proof). NULL:
     * none. */
    const char *comment;
    /* The lag credit each side received in all, in seconds ("1.234"):
     * WhiteLagTotal, BlackLagTotal after Termination when not NULL. */
    const char *white_lag_total, *black_lag_total;
    /* The game's opening (opening.h): ECO ("C20") and Opening ("King's
     * Pawn Game") after TimeControl, as lichess writes them, when not
     * NULL. */
    const char *eco, *opening;
    /* Not tags: the time given, each as a comment "{ [%give black 15] }"
     * after the move of its ply (before the first move for ply 0). */
    const struct pgn_give *gives;
    size_t n_gives;
};

/* Returns the PGN of record r (malloc'ed, caller frees; NULL when out of
 * memory). Tags in the seven-tag roster's order, then (when set)
 * WhiteElo, BlackElo, WhiteRatingDiff, BlackRatingDiff, then
 * TimeControl, (when set) ECO and Opening, Termination, then (when set)
 * WhiteLagTotal and
 * BlackLagTotal. clk_ms[i], when clk_ms is not NULL, is the
 * mover's remaining time after move i ("[%clk H:MM:SS]"); lag_ms[i], when
 * lag_ms and clk_ms are not NULL and it is above 0, the lag credit move i
 * got, in seconds with millisecond precision ("[%lag 0.123]"). SetUp/FEN tags are written when r started from a
 * position other than the initial one. Tag values are escaped; t->comment,
 * when set, is written "{ ... }" before the result, wrapped, with any '}'
 * as ')'. */
char *pgn_format(const struct pgn_tags *t, const struct record *r,
                 const int64_t *clk_ms, const int64_t *lag_ms);

/* pgn (pgn_format's, with [%clk] comments) with evals[i], when not NULL
 * nor "", written "[%eval E]" after move i's [%clk] (i < n), as lichess
 * writes an analysis ("0.17": pawns, White's point of view; "#3", "#-3":
 * moves to mate). A move without [%clk] gets none (its line may pass 80
 * columns: the tokens are not wrapped again). Malloc'ed, caller frees;
 * NULL when out of memory. */
char *pgn_with_evals(const char *pgn, const char *const *evals, size_t n);

#endif
