/*
 * swiss.h - a Swiss tournament's state as the pairing engine reads it: the
 * players by starting number, what each did in every round so far (the
 * TRF's round entries), the point values, and what the round to pair
 * must respect (absences, forbidden pairs). trf.h reads and writes it;
 * dutch.h pairs its next round.
 *
 * What a tournament director stores, and all the engine needs:
 *
 * - per player, the starting number (the initial ranking: rating order,
 *   C.04.2) and for every round the opponent, the colour and the result
 *   code, byes and absences included ('U' for the pairing-allocated bye,
 *   'H' / 'F' / 'Z' for byes granted, ' ' or 'Z' for a round missed, a
 *   late entrant's earlier rounds too). Colour history and differences,
 *   floats (up and down, the last two rounds), byes received and unplayed
 *   games are derived from these (swiss_derive), as the rules define them:
 *   storing them apart would only let them disagree;
 * - per event, the number of rounds (topscorers exist in the last one
 *   only), the first colour of starting number 1, and the point values;
 * - per round to pair, who is absent (withdrawn, or a bye requested) and
 *   the forbidden pairs (teammates, relatives: the organiser's list).
 *
 * A withdrawn player is simply absent from every later round; a player
 * who comes back is paired again from his score.
 *
 * Pure: no I/O, no globals. Any thread.
 */
#ifndef SWISS_SWISS_H
#define SWISS_SWISS_H

#include <stdbool.h>

/* Most players and rounds an event may have (TRF starting numbers have
 * four digits). */
#define SWISS_MAX_PLAYERS 9999
#define SWISS_MAX_ROUNDS 99

/* One player's round: the TRF's "opponent colour result". */
struct swiss_game {
    int opp;     /* opponent's starting number, 0 for none */
    char colour; /* 'w', 'b' or '-' */
    /* '1' '0' '=' played (win, loss, draw), 'W' 'D' 'L' the same unrated,
     * '+' '-' forfeit won / lost, 'U' pairing-allocated bye, 'F' full-point
     * bye, 'H' half-point bye, 'Z' zero-point bye, ' ' absent */
    char result;
};

/* Points for each kind of result, in tenths of a point (FIDE: 10, 5, 0;
 * a pairing-allocated bye scores a win). */
struct swiss_points {
    int win, draw, loss;
    int forfeit_win, forfeit_loss;
    int pab, full_bye, half_bye, zero_bye, absent;
};

/* The event. games[(p - 1) * rounds + r] is player p's round r + 1. */
struct swiss_event {
    int players;       /* starting numbers 1..players */
    int rounds;        /* rounds played (with entries) */
    int total_rounds;  /* rounds the event will have; 0 if unknown */
    char first_colour; /* 'w' or 'b': starting number 1's colour by E.5 */
    struct swiss_points points;
    struct swiss_game *games;
    /* For the round to pair (rounds + 1): */
    bool *absent;   /* players entries, true = not paired; or NULL */
    int *forbidden; /* pairs of starting numbers, 2 * n_forbidden */
    int n_forbidden;
};

/* FIDE's standard points: win 1, draw 1/2, byes as their names say. */
void swiss_points_standard(struct swiss_points *pts);

/* Player p's (1-based) round r (1-based) entry. */
static inline const struct swiss_game *
swiss_game_at(const struct swiss_event *ev, int p, int r)
{
    return &ev->games[(p - 1) * ev->rounds + (r - 1)];
}

/* Points one entry scores. */
int swiss_entry_points(const struct swiss_points *pts,
                       const struct swiss_game *g);

/* True when the entry is a game that was played over the board (colours
 * and rematches count only these). */
bool swiss_entry_played(const struct swiss_game *g);

/* True when the entry scored without a game at least what a win scores
 * (a pairing-allocated or full-point bye, a forfeit win): such a player
 * may not get the pairing-allocated bye again (C.04.3 C2). */
bool swiss_entry_bye_like(const struct swiss_points *pts,
                          const struct swiss_game *g);

/* Colour preferences (C.04.3 1.7 / A.6). */
enum swiss_strength {
    SWISS_PREF_NONE,
    SWISS_PREF_MILD,
    SWISS_PREF_STRONG,
    SWISS_PREF_ABSOLUTE,
};

/* What the rules derive from one player's history before a round. */
struct swiss_state {
    int score;        /* tenths of a point */
    int cd;           /* games with white minus with black */
    int played;       /* games played over the board */
    char last, last2; /* colours of the last two games played */
    char pref;        /* 'w', 'b' or 0 */
    enum swiss_strength strength;
    char float1, float2; /* 'D', 'U' or 0: rounds */
    int unplayed;        /* rounds without a game played */
    bool no_bye;         /* may not get the pairing-allocated bye */
};

/* Derives every player's state before round `round` (1..rounds + 1) into
 * st[0..players-1]. Returns 0, or -1 when an entry is inconsistent
 * (an opponent out of range, or who does not name the player back). */
int swiss_derive(const struct swiss_event *ev, int round,
                 struct swiss_state *st);

/* Checks the event's entries: opponents in range, each game named by both
 * players with opposite colours and matching results. On a problem writes
 * a sentence to err (errlen bytes) and returns -1. */
int swiss_check(const struct swiss_event *ev, char *err, int errlen);

#endif
