/*
 * clock.h - chess clock arithmetic on injected time: Fischer (initial time
 * plus an increment after each move) and per move (a fixed budget for every
 * move, unused time does not carry over).
 *
 * Nothing here reads a clock: every function that needs the time takes
 * `now`, a monotonic timestamp in milliseconds. A clock is a plain value.
 */
#ifndef COMMON_CLOCK_H
#define COMMON_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* "Never" as a deadline. */
#define CLOCK_NEVER INT64_MAX

/* Limits of the clock settings the protocol accepts. */
#define CLOCK_INITIAL_MAX_S 10800
#define CLOCK_INCREMENT_MAX_S 10
#define CLOCK_PER_MOVE_MAX_S (14 * 86400)

/* A per-move clock of this much or more is a correspondence game: no
 * short first-move time, no abandonment; its clock alone decides. */
#define CLOCK_CORRESPONDENCE_S 86400

/* Clock settings, as the protocol gives them. */
struct clock_spec {
    int per_move;    /* 0 = Fischer, 1 = per move */
    int initial_s;   /* Fischer: 1..10800 */
    int increment_s; /* Fischer: 0..10 */
    int per_move_s;  /* per move: 1..CLOCK_PER_MOVE_MAX_S (14 days) */
};

/*
 * A running clock. Invariant: left_ms[side] is what that side had when its
 * current turn began (or when the clock was last paused); while a side
 * runs, its remaining time is left_ms[side] - (now - since_ms). Each side
 * has its own increment (a Fischer clock's): both are the spec's until
 * clock_set_side gives one side another (an arena's berserk).
 */
struct clock {
    struct clock_spec spec;
    int64_t left_ms[2]; /* indexed by colour: 0 white, 1 black */
    int64_t inc_ms[2];  /* Fischer: added to the mover's time on a press */
    int running;        /* colour whose time runs, or -1 */
    int64_t since_ms;   /* when the running side's time started to run */
};

/* True when spec is within the protocol's ranges. */
bool clock_spec_valid(const struct clock_spec *spec);

/* True when spec is a correspondence clock (a day or more a move). */
bool clock_spec_correspondence(const struct clock_spec *spec);

/* True when both specs describe the same clock. */
bool clock_spec_equal(const struct clock_spec *a, const struct clock_spec *b);

/* The full budget of a side at the start: initial (Fischer) or per-move
 * time, in milliseconds. */
int64_t clock_full_ms(const struct clock_spec *spec);

/* Sets *c to spec with both sides at their full budget and the spec's
 * increment, not running. */
void clock_init(struct clock *c, const struct clock_spec *spec);

/* Gives side a time of its own, left_ms (>= 0) and inc_ms (>= 0) per
 * move, while its time is not running (a berserk before its first move:
 * the other side's clock is untouched). */
void clock_set_side(struct clock *c, int side, int64_t left_ms,
                    int64_t inc_ms);

/* Starts (or resumes) side's time at now; the other side stops without
 * being charged. */
void clock_start(struct clock *c, int side, int64_t now);

/* Charges the running side up to now and stops the clock. */
void clock_pause(struct clock *c, int64_t now);

/* What side has left at now, never below zero. */
int64_t clock_left(const struct clock *c, int side, int64_t now);

/* The moment the running side's time reaches zero, or CLOCK_NEVER. */
int64_t clock_deadline(const struct clock *c);

/* True when the running side has no time left at now. */
bool clock_flagged(const struct clock *c, int64_t now);

/* Ends the running side's turn at now: charges it, adds its increment
 * (Fischer: inc_ms[side]) or restores its budget (per move), and starts the other side.
 * The caller checks clock_flagged first. Returns the mover's remaining
 * time after the move, or -1 when the clock was not running. */
int64_t clock_press(struct clock *c, int64_t now);

#endif
