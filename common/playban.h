/*
 * playban.h - lichess's playban rules (lila's modules/playban): what each
 * ended game says of each player (an outcome), the record of a player's
 * recent outcomes and bans, and when and for how long a temporary ban
 * from starting games is given.
 *
 * Pure: no I/O, no allocation, no globals. Times are Unix ms passed in.
 * The rules follow lila's model.scala (UserRecord, TempBan, Outcome) and
 * PlaybanApi.scala (which outcome an end gives); each function names the
 * part it follows. What lila has and this does not: the rage-sit counter
 * (c, rageSitRecidive), user trust (every player counts as trusted), and
 * its float arithmetic (scores here are integer tenths: 0.8 is 8).
 */
#ifndef COMMON_PLAYBAN_H
#define COMMON_PLAYBAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ending.h"

/* lila's Outcome enum, with its ids (stored). */
enum playban_outcome {
    PLAYBAN_GOOD = 0,       /* nothing unusual */
    PLAYBAN_ABORT = 1,      /* aborts the game */
    PLAYBAN_NO_PLAY = 2,    /* won't play a move */
    PLAYBAN_RAGE_QUIT = 3,  /* quits without resigning */
    PLAYBAN_SITTING = 4,    /* lets time run out */
    PLAYBAN_SIT_MOVING = 5, /* waits then moves at the last moment */
    PLAYBAN_SANDBAG = 6,    /* deliberately loses the game */
    PLAYBAN_SIT_RESIGN = 7, /* waits then resigns at the last moment */
};
#define PLAYBAN_OUTCOMES 8
/* No outcome to record for this player (playban_judge). */
#define PLAYBAN_NONE (-1)

/* lila keeps the last 30 outcomes and the last 30 bans ($slice -30). */
#define PLAYBAN_KEEP 30
/* A ban lasts at most 3 days (TempBan.make: atMost 3 * 24 * 60). */
#define PLAYBAN_MAX_MINUTES (3 * 24 * 60)
/* The first ban: 10 minutes (TempBan.baseMinutes). */
#define PLAYBAN_BASE_MINUTES 10

struct playban_ban {
    int64_t at_ms; /* when it was given */
    int32_t mins;  /* how long */
};

/* A player's record (lila's UserRecord, without c). */
struct playban_record {
    uint8_t outcome[PLAYBAN_KEEP]; /* oldest first; n of them */
    uint8_t n;
    uint8_t nbans;
    struct playban_ban ban[PLAYBAN_KEEP]; /* oldest first */
    /* The last quick resign forgiven (lila forgives one a day:
     * quickResignCasualOnce), 0: none. */
    int64_t forgiven_ms;
    uint32_t version; /* bumped by every change (a newer copy wins) */
};

/* One ended game as the rules see it, for playban_judge. */
struct playban_game {
    enum ending_reason reason;
    int winner;              /* 0 white, 1 black, -1 none */
    int side_to_move;        /* at the end */
    int actor;               /* who aborted or resigned (-1: nobody) */
    bool present[2];         /* a connection of the seat was on the game */
    bool rated;              /* rated */
    int64_t initial_ms;      /* the clock's initial time */
    int64_t increment_ms;    /* its increment */
    int plies;               /* moves played */
    int64_t started_ms;      /* when it started */
    int64_t moved_ms;        /* when the last move was played (lila's
                             movedAt: the start when none) */
    int64_t last_move_ms[2]; /* how long each side's last move took, -1:
                                none */
    int64_t left_ms[2];      /* each side's time left at the end */
    int64_t now_ms;          /* the end */
};

/* What the end of g says of colour c (PlaybanApi: abort, noStart,
 * rageQuit, flag, other): an enum playban_outcome, or PLAYBAN_NONE when
 * nothing is recorded for c (the winner, a draw, an abort by the other).
 * forgiven: *forgiven_ms of c's record, updated when a quick resign is
 * forgiven (once a day). The caller has checked the game counts (a live
 * clock, two humans). */
int playban_judge(const struct playban_game *g, int c, int64_t *forgiven_ms);

/* The ban in effect at now_ms (TempBan.inEffect): its end (ms), or 0. */
int64_t playban_ends(const struct playban_record *r, int64_t now_ms);

/* Records outcome o at now_ms (PlaybanApi.save then legiferate), the
 * account age_days old: returns the minutes of the ban it gave (the
 * outcomes are then cleared and the ban added), or 0. */
int playban_add(struct playban_record *r, int o, int64_t now_ms,
                int age_days);

/* The record as stored text (at most PLAYBAN_TEXT_MAX bytes with its
 * NUL): "v:OUTCOMES:BANS:FORGIVEN", OUTCOMES a digit per outcome, BANS
 * "at_ms+mins" joined with ','. Returns its length. */
#define PLAYBAN_TEXT_MAX (16 + PLAYBAN_KEEP + PLAYBAN_KEEP * 28 + 24)
size_t playban_encode(const struct playban_record *r, char *out, size_t cap);
/* The record text s stands for (playban_encode's): 0, or -1 when it is
 * malformed (*r then empty). */
int playban_decode(const char *s, struct playban_record *r);

/* The outcome's name ("abort", "noPlay", ...: lila's keys), NULL if none. */
const char *playban_outcome_name(int o);

#endif
