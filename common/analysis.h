/*
 * analysis.h - the figures of a game's computer analysis, as lichess
 * computes them: the winning chances and win percentage of a score, each
 * move's accuracy, each side's game accuracy and each move's judgement
 * (inaccuracy, mistake, blunder). Pure: no I/O, no allocation, no state;
 * any thread.
 *
 * The formulas are lila's (github.com/lichess-org/lila, read 2026-12):
 * modules/tree/src/main/WinPercent.scala, modules/analyse/src/main/
 * AccuracyPercent.scala, modules/tree/src/main/Advice.scala,
 * modules/common/src/main/Maths.scala and modules/tree/src/main/eval.scala
 * (Eval.forceAsCp); the limits on requests are modules/fishnet/src/main/
 * FishnetLimiter.scala's. docs/analysis.md states them.
 */
#ifndef COMMON_ANALYSIS_H
#define COMMON_ANALYSIS_H

#include <stdint.h>

/* lila's Cp.CEILING: scores are clamped to +-1000 for win percentages. */
#define ANALYSIS_CP_CEILING 1000
/* lila's Cp.initial: the start position's assumed score. */
#define ANALYSIS_CP_INITIAL 15

enum analysis_kind {
    ANALYSIS_CP = 0, /* value: centipawns, White's point of view */
    ANALYSIS_MATE,   /* value: mate in |value| moves, > 0 White mates */
    ANALYSIS_MATED,  /* the game ended in checkmate: +1 White won, -1 Black */
};

/* A position's score, always from White's point of view. */
struct analysis_score {
    enum analysis_kind kind;
    int value;
};

enum analysis_judgement {
    ANALYSIS_GOOD = 0, /* no mark */
    ANALYSIS_INACCURACY,
    ANALYSIS_MISTAKE,
    ANALYSIS_BLUNDER,
};

/* lila's WinPercent.winningChances: 2 / (1 + exp(-0.00368208 cp)) - 1, in
 * [-1, 1], of cp as given (Advice uses it unclamped). */
double analysis_winning_chances(int cp);

/* White's win percentage (0-100) of s: lila's WinPercent.fromCentiPawns of
 * cp clamped to +-ANALYSIS_CP_CEILING; a mate counts as the ceiling with
 * its sign (fromMate), a checkmate on the board likewise for its winner. */
double analysis_win_percent(struct analysis_score s);

/* lila's AccuracyPercent.fromWinPercents: the accuracy (0-100) of a move
 * that took its mover's win percentage from before to after: 100 when it
 * did not drop, else 103.1668 exp(-0.04354 drop) - 3.1669 + 1 (lila's
 * uncertainty bonus), clamped to 0-100. */
double analysis_move_accuracy(double before, double after);

/* lila's Advice (CpAdvice, else MateAdvice) of the move by mover (0 White,
 * 1 Black) from a position scored prev to one scored next. A move that
 * checkmates is never marked. */
enum analysis_judgement analysis_judge(struct analysis_score prev,
                                       struct analysis_score next, int mover);

/* lila's AccuracyPercent.gameAccuracy: each side's accuracy (out[0] White,
 * out[1] Black) over a game whose n plies led to the scores after[0..n-1],
 * the first ply played by start (0 White, 1 Black): the mean of the
 * volatility-weighted mean and the harmonic mean of its moves'
 * accuracies. 0, or -1 when a side made no move (out untouched). */
int analysis_game_accuracy(const struct analysis_score *after, int n,
                           int start, double out[2]);

/* What lila's FishnetLimiter answers a player who asked for `today`
 * analyses in the last 24 hours and `week` in the last 7 days, with the
 * limits per_day and per_week: ANALYSIS_LIMIT_OK, _WEEK when week reached
 * per_week, _DAY when today reached the day's limit, which is two thirds of
 * per_day (at least 1) once week reached two thirds of per_week. */
enum analysis_limit {
    ANALYSIS_LIMIT_OK,
    ANALYSIS_LIMIT_DAY,
    ANALYSIS_LIMIT_WEEK,
};
enum analysis_limit analysis_limit(int64_t today, int64_t week, int per_day,
                                   int per_week);

/* "?!", "?", "??", or "" for ANALYSIS_GOOD. */
const char *analysis_judgement_glyph(enum analysis_judgement j);
/* "inaccuracy", "mistake", "blunder", or "good". */
const char *analysis_judgement_name(enum analysis_judgement j);

#endif
