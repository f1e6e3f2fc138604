/*
 * rating.h - rating categories and the Glicko-2 rating system (Mark E.
 * Glickman, "Example of the Glicko-2 system", glicko.net): pure
 * arithmetic on plain values, no I/O, no globals, no allocation.
 *
 * A game's category follows from its clock: a Fischer clock's estimated
 * duration initial_s + 40 * increment_s under 180 s is bullet, under 480
 * blitz, under 1500 rapid, else classical; a per-move clock is per_move.
 *
 * Ratings are kept on Glicko's display scale (rating 1500, RD 350,
 * volatility 0.06 for a new player), at full precision; rating_round()
 * makes the integers shown to players. Every rated game is its own
 * rating period for both players; before it, each player's RD grows for
 * the days (fractional) since that player's last rated game in the
 * category: phi* = sqrt(phi^2 + sigma^2 * days), at most 350. After an
 * update the RD is kept within [45, 350].
 */
#ifndef SERVER_RATING_H
#define SERVER_RATING_H

#include <stdbool.h>
#include <stddef.h>

#include "clock.h"

/* A new player's rating, RD and volatility; the system constant tau. */
#define RATING_START 1500.0
#define RATING_RD_START 350.0
#define RATING_VOL_START 0.06
#define RATING_TAU 0.5
/* The RD is kept within these bounds. */
#define RATING_RD_MIN 45.0
#define RATING_RD_MAX 350.0
/* A rating is provisional while its RD is above this. */
#define RATING_RD_PROVISIONAL 110.0

/* Categories by clock, in the order of the table of names. */
enum rating_category {
    RATING_BULLET,
    RATING_BLITZ,
    RATING_RAPID,
    RATING_CLASSICAL,
    RATING_PER_MOVE,
    RATING_CATEGORIES /* how many there are */
};

/* A player's rating in one category. */
struct rating {
    double rating; /* r */
    double rd;     /* RD */
    double vol;    /* sigma */
};

/* One game of a rating period, from the rated player's side: the
 * opponent's rating and RD, and the player's score (1 win, 0.5 draw, 0
 * loss). */
struct rating_result {
    double rating;
    double rd;
    double score;
};

/* The category of a game played with clock spec. */
enum rating_category rating_category(const struct clock_spec *spec);

/* The category's wire name ("bullet", "blitz", "rapid", "classical",
 * "per_move"); a static string. NULL when c is out of range. */
const char *rating_category_name(enum rating_category c);

/* Sets *out to the category named name: false (and *out untouched) when
 * name (NULL allowed) names none. Exact, case-sensitive. */
bool rating_category_parse(const char *name, enum rating_category *out);

/* A new player's rating: 1500, 350, 0.06. */
struct rating rating_start(void);

/* r with its RD grown for days (fractional, negative counts as 0) without
 * a rated game, at most RATING_RD_MAX; rating and volatility unchanged. */
struct rating rating_aged(struct rating r, double days);

/*
 * r after a rating period with the n results (the paper's steps 1-8, the
 * volatility by the Illinois algorithm to 1e-6), its RD then kept within
 * [RATING_RD_MIN, RATING_RD_MAX]. With n == 0 only the RD grows by one
 * period. results may be NULL when n is 0.
 */
struct rating rating_update(struct rating r,
                            const struct rating_result *results, size_t n);

/*
 * One rated game between white and black, its own rating period for
 * both: each player's RD first grows for their days since their last
 * rated game in the category (white_days, black_days; 0 for a first
 * game), then both are updated from these pre-game values (white scores
 * white_score, black 1 - white_score). *white and *black are replaced.
 */
void rating_game(struct rating *white, double white_days,
                 struct rating *black, double black_days, double white_score);

/* True while r's RD is above RATING_RD_PROVISIONAL. */
bool rating_provisional(const struct rating *r);

/* x rounded to an integer, halves up (1499.5 -> 1500, -0.5 -> 0): how
 * ratings, RDs and rating changes are shown. */
long rating_round(double x);

#endif
