/*
 * analysis.c - lichess's analysis figures (analysis.h). Each function
 * names the lila code it follows; docs/analysis.md states the formulas.
 */
#include "analysis.h"

#include <math.h>

/* lila's Cp.ceiled. */
static int ceiled(int cp)
{
    if (cp > ANALYSIS_CP_CEILING)
        return ANALYSIS_CP_CEILING;
    if (cp < -ANALYSIS_CP_CEILING)
        return -ANALYSIS_CP_CEILING;
    return cp;
}

/* WinPercent.winningChances (modules/tree/src/main/WinPercent.scala; the
 * multiplier from lila pull request 11148). */
double analysis_winning_chances(int cp)
{
    double w = 2 / (1 + exp(-0.00368208 * cp)) - 1;

    return w < -1 ? -1 : w > 1 ? 1 : w;
}

/* As lila's Eval.forceAsCp before the ceiling: a mate is worth more than
 * any score, for the side that mates. */
static int forced_cp(struct analysis_score s)
{
    if (s.kind == ANALYSIS_CP)
        return s.value;
    return s.value > 0 ? 2 * ANALYSIS_CP_CEILING : -2 * ANALYSIS_CP_CEILING;
}

/* WinPercent.fromCentiPawns (and fromMate: the ceiling with the mate's
 * sign). */
double analysis_win_percent(struct analysis_score s)
{
    return 50 + 50 * analysis_winning_chances(ceiled(forced_cp(s)));
}

/* AccuracyPercent.fromWinPercents (modules/analyse/src/main/
 * AccuracyPercent.scala), with lila's fitted constants. */
double analysis_move_accuracy(double before, double after)
{
    if (after >= before)
        return 100;
    double raw = 103.1668100711649 *
                     exp(-0.04354415386753951 * (before - after)) -
                 3.166924740191411 + 1; /* +1: the uncertainty bonus */
    return raw > 100 ? 100 : raw < 0 ? 0 : raw;
}

/* Advice.scala's MateAdvice: the mate rules, seen from the mover's side
 * (pov: +1 White moved, -1 Black). */
static enum analysis_judgement judge_mate(struct analysis_score prev,
                                          struct analysis_score next, int pov)
{
    int pm = prev.kind == ANALYSIS_MATE ? prev.value * pov : 0;
    int nm = next.kind == ANALYSIS_MATE ? next.value * pov : 0;
    int pcp = prev.kind == ANALYSIS_CP ? prev.value * pov : 0;
    int ncp = next.kind == ANALYSIS_CP ? next.value * pov : 0;

    if (prev.kind != ANALYSIS_MATE && nm < 0) /* MateCreated */
        return pcp < -999   ? ANALYSIS_INACCURACY
               : pcp < -700 ? ANALYSIS_MISTAKE
                            : ANALYSIS_BLUNDER;
    if (pm > 0 && (next.kind != ANALYSIS_MATE || nm < 0)) /* MateLost */
        return ncp > 999   ? ANALYSIS_INACCURACY
               : ncp > 700 ? ANALYSIS_MISTAKE
                           : ANALYSIS_BLUNDER;
    return ANALYSIS_GOOD; /* MateDelayed and the rest: no mark */
}

/* Advice.apply: CpAdvice when both are scores (a drop of the mover's
 * winning chances of .3, .2, .1), else MateAdvice. */
enum analysis_judgement analysis_judge(struct analysis_score prev,
                                       struct analysis_score next, int mover)
{
    int pov = mover == 0 ? 1 : -1;

    if (next.kind == ANALYSIS_MATED || prev.kind == ANALYSIS_MATED)
        return ANALYSIS_GOOD; /* it checkmated: nothing better */
    if (prev.kind == ANALYSIS_CP && next.kind == ANALYSIS_CP) {
        double drop = pov * (analysis_winning_chances(prev.value) -
                             analysis_winning_chances(next.value));
        return drop >= .3   ? ANALYSIS_BLUNDER
               : drop >= .2 ? ANALYSIS_MISTAKE
               : drop >= .1 ? ANALYSIS_INACCURACY
                            : ANALYSIS_GOOD;
    }
    return judge_mate(prev, next, pov);
}

/* White's win percentage at position k of the game: 0 the start (lila's
 * Cp.initial), k the one after ply k. */
static double win_at(const struct analysis_score *after, int k)
{
    struct analysis_score initial = {ANALYSIS_CP, ANALYSIS_CP_INITIAL};

    return analysis_win_percent(k == 0 ? initial : after[k - 1]);
}

/* lila's Maths.standardDeviation (population) of the win percentages of
 * positions [from, to). */
static double deviation(const struct analysis_score *after, int from, int to)
{
    double sum = 0, sq = 0;
    int n = to - from;

    for (int k = from; k < to; k++)
        sum += win_at(after, k);
    double mean = sum / n;
    for (int k = from; k < to; k++) {
        double d = win_at(after, k) - mean;
        sq += d * d;
    }
    return sqrt(sq / n);
}

/* The weight of ply i (0-based) in AccuracyPercent.gameAccuracy: the
 * deviation of its window, the first window repeated for the first
 * size - 2 plies and then sliding, clamped to 0.5-12. */
static double weight(const struct analysis_score *after, int n, int i,
                     int size)
{
    int from = i < size - 2 ? 0 : i - (size - 2);
    int to = from + size < n + 1 ? from + size : n + 1;
    double w = deviation(after, from, to);

    return w < 0.5 ? 0.5 : w > 12 ? 12 : w;
}

int analysis_game_accuracy(const struct analysis_score *after, int n,
                           int start, double out[2])
{
    int size = n / 10 < 2 ? 2 : n / 10 > 8 ? 8 : n / 10;
    double wsum[2] = {0, 0}, wacc[2] = {0, 0}, inv[2] = {0, 0};
    int moves[2] = {0, 0};

    for (int i = 0; i < n; i++) {
        int c = (i + start) % 2;
        double prev = win_at(after, i), next = win_at(after, i + 1);
        /* Black's accuracy: the same drop seen from its side */
        double acc = c == 0 ? analysis_move_accuracy(prev, next)
                            : analysis_move_accuracy(next, prev);
        double w = weight(after, n, i, size);

        wsum[c] += w;
        wacc[c] += acc * w;
        inv[c] += 1 / (acc > 1 ? acc : 1); /* Maths.harmonicMean */
        moves[c]++;
    }
    if (!moves[0] || !moves[1])
        return -1;
    for (int c = 0; c < 2; c++)
        out[c] = (wacc[c] / wsum[c] + moves[c] / inv[c]) / 2;
    return 0;
}

const char *analysis_judgement_glyph(enum analysis_judgement j)
{
    static const char *const glyph[] = {"", "?!", "?", "??"};

    return glyph[j];
}

const char *analysis_judgement_name(enum analysis_judgement j)
{
    static const char *const name[] = {"good", "inaccuracy", "mistake",
                                       "blunder"};

    return name[j];
}

enum analysis_limit analysis_limit(int64_t today, int64_t week, int per_day,
                                   int per_week)
{
    int day_cap = per_day;

    if (week >= per_week)
        return ANALYSIS_LIMIT_WEEK;
    /* FishnetLimiter.perDayCheck: maxPerDay * 2 / 3 past two thirds of
     * the week's, in integers as lila's. */
    if (week >= per_week * 2 / 3)
        day_cap = per_day * 2 / 3 > 0 ? per_day * 2 / 3 : 1;
    return today >= day_cap ? ANALYSIS_LIMIT_DAY : ANALYSIS_LIMIT_OK;
}
