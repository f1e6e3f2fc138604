/*
 * tour.h - a running Swiss event as its director holds it: the players in
 * the order they joined, every round's boards and their results, and what
 * the rules derive from them: starting numbers, each player's TRF entries
 * (a late joiner's missed rounds, absences), the next round's pairing by
 * dutch.h, the standings with their tie-breaks, the TRF export.
 *
 * Players and boards are indices, 0 up, in the order they were added; the
 * director maps them to accounts and games, and journals the calls
 * (tour_join, tour_withdraw, tour_add_round, tour_result) that rebuild the
 * same state when replayed in order.
 *
 * The rules this module decides (PROTOCOL.md "Swiss tournaments"):
 *
 * - Starting numbers (C.04.2): the first pairing numbers every player
 *   present by rating, highest first (ties: who joined first); a later
 *   joiner gets the next number at the first pairing after he joined.
 * - A round missed before joining scores nothing ('Z'), except one: a
 *   player who joins after k rounds were paired, k at most half the
 *   rounds, gets a half-point bye ('H') for round k.
 * - A round paired while withdrawn is absent, scoring nothing ('Z').
 * - The pairing-allocated bye ('U') is worth a win (1 point).
 * - A game that was never started by its loser (the first move missed) is
 *   a forfeit: '+' for the winner, '-' for the loser; it is not a game
 *   played (colours and rematches ignore it).
 * - Tie-breaks (FIDE C.07, 2023): Sonneborn-Berger, then performance.
 *   Sonneborn-Berger is the sum of the scores of the opponents beaten
 *   plus half the scores of those drawn; an unplayed round that scored
 *   (a bye, a forfeit win) counts as a game against a virtual opponent
 *   with the player's own score (C.07 16.4). Performance: the mean, over
 *   games played, of the opponent's rating +500 for a win, -500 for a
 *   loss (lichess's linear performance), rounded half up; 0 without one.
 *   Rank: score, Sonneborn-Berger, performance, then starting number.
 *
 * Pure: no I/O, no globals. One thread at a time.
 */
#ifndef SWISS_TOUR_H
#define SWISS_TOUR_H

#include <stdbool.h>

#include "dutch.h"
#include "swiss.h"

enum tour_status {
    TOUR_OK = 0,
    TOUR_ENOMEM = -1,
    TOUR_EBAD = -2,       /* a call that does not fit the state */
    TOUR_UNPAIRABLE = -3, /* no pairing meets the absolute criteria */
};

struct tour_player {
    int rating;
    int sn;     /* starting number, 0 until the first pairing after join */
    int joined; /* rounds paired when he joined */
    bool withdrawn;
};

/* A board: white and black are player indices; black is -1 for the
 * pairing-allocated bye. result: 0 while the game runs, '1' white won,
 * '0' black won, '=' drawn, '+' white won by forfeit, '-' black did. */
struct tour_board {
    int white, black;
    char result;
};

struct tour {
    int total_rounds;  /* 1..SWISS_MAX_ROUNDS */
    char first_colour; /* 'w' or 'b' */
    struct tour_player *p;
    int np, pcap;
    struct tour_board *b; /* every round's boards, round after round */
    int nb, bcap;
    int *round_at; /* round r's (1-based) boards start at b[round_at[r-1]] */
    int rounds;    /* rounds paired */
    int rcap;
    int *forbid; /* the organiser's forbidden pairs: 2 * nforbid indices */
    int nforbid;
};

/* A player's standing. Scores in tenths of a point, Sonneborn-Berger in
 * hundredths. */
struct tour_standing {
    int player; /* index */
    int rank;   /* 1 up */
    int score, sb, performance;
};

void tour_init(struct tour *t, int total_rounds, char first_colour);
void tour_free(struct tour *t);

/* *dst becomes a copy of src (for a pairing on another thread):
 * TOUR_OK, or TOUR_ENOMEM (*dst then empty). Free it with tour_free. */
int tour_copy(struct tour *dst, const struct tour *src);

/* The pairs that must not meet from the next pairing on (C.04.3 C1, an
 * absolute criterion; tour_pair honours them, a manual pairing must):
 * n pairs of player indices, replacing the list. TOUR_OK, TOUR_EBAD (an
 * index out of range, or a player paired with himself), TOUR_ENOMEM. */
int tour_forbid(struct tour *t, const int *pairs, int n);

/* Whether the n boards are a valid next round as an organiser gives it:
 * every player present exactly once and nobody else, no forbidden
 * pair, the bye (black -1) only when the players present are an odd
 * number, and last. TOUR_OK, or TOUR_EBAD with a sentence in why. */
int tour_check_manual(const struct tour *t, const struct tour_board *b, int n,
                      char *why, int whylen);

/* A new player of rating: his index, or TOUR_ENOMEM. */
int tour_join(struct tour *t, int rating);

/* Player p leaves (withdrawn = true) or comes back: paired or not from
 * the next pairing on. */
void tour_withdraw(struct tour *t, int p, bool withdrawn);

/* True when every board of the last round paired has its result (also
 * before the first round). */
bool tour_round_over(const struct tour *t);

/* Boards of round r (1..rounds): *first into t->b, the count returned. */
int tour_round(const struct tour *t, int r, const struct tour_board **first);

/* The next round's pairing by the Dutch system into *out (malloc'ed, the
 * caller frees; the bye last, with black -1) and *n, numbering the
 * players as tour_add_round will (t is as it was after). TOUR_OK,
 * TOUR_UNPAIRABLE, TOUR_EBAD (the last round is not over, or every round
 * is paired), TOUR_ENOMEM. */
int tour_pair(struct tour *t, struct tour_board **out, int *n);

/* Adds the next round: its n boards (results 0, the bye's 'U' set here).
 * Numbers the players who have none, as tour_pair. TOUR_OK, TOUR_EBAD
 * (a player out of range, twice, or withdrawn), TOUR_ENOMEM. */
int tour_add_round(struct tour *t, const struct tour_board *boards, int n);

/* Board k (an index into t->b) ended with result ('1' '0' '=' '+' '-'):
 * TOUR_OK, or TOUR_EBAD when it is a bye, over, or result is not one. */
int tour_result(struct tour *t, int k, char result);

/* Player p's entry for round r (1..rounds), as the TRF writes it; a game
 * still running has result ' '. */
struct swiss_game tour_entry(const struct tour *t, int p, int r);

/* The standings of every numbered player, best first, into out (room for
 * t->np); returns how many, or TOUR_ENOMEM. */
int tour_standings(const struct tour *t, struct tour_standing *out);

/* The event as a TRF (trf.h) over its rounds whose games have all ended:
 * name in its 012 line, names[p] each player's, the forbidden pairs of
 * numbered players as XXP lines (tour_forbid's list as it is now). A
 * malloc'ed string, NULL when out of memory. */
char *tour_trf(const struct tour *t, const char *name,
               const char *const *names);

#endif
