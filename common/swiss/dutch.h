/*
 * dutch.h - the FIDE (Dutch) Swiss pairing system, C.04.3 as approved in
 * 2024 and in force from 2026: the next round of a swiss_event, paired.
 *
 * How: the players are ranked by score then starting number and split in
 * scoregroups; each bracket (the players moved down from above and a
 * scoregroup) is paired, top down, by one maximum-weight matching over
 * the bracket and every player below it. The weight of a pairing packs
 * the criteria in their order of priority, one bit field each (a higher
 * field outweighs all lower ones together): completion (C4), the score
 * of the pairing-allocated bye's assignee (C5), pairs in the bracket (C6),
 * its pairing score differences (C7), the next bracket's pairs and
 * differences (C8), the bye assignee's unplayed games (C9), topscorers'
 * colours (C10, C11), colour preferences (C12, C13), repeated floats and
 * their score differences (C14-C21). The absolute criteria (C1 no rematch
 * or forbidden pair, C2 one bye, C3 absolute colours) remove edges. The
 * bracket's pairs are kept, its unpaired players float to the next. Among
 * pairings equal on every criterion the lowest fields prefer the order in
 * which the rules generate candidates: S1 (the moved-down players, then
 * the first half of the remainder) against S2, each S1 player in turn
 * against the first S2 player he can meet, the lowest-ranked floating.
 * That is the rules' order whenever the best candidate needs no exchange
 * (and in the cases of tests/data/swiss/); with exchanges, or past the
 * bits a weight has for it (brackets beyond some 30 players), it may
 * choose another of the equally good pairings. Colours by 5.2 (E.1-E.5).
 *
 * Pure: no I/O, no globals; memory is the caller's or freed before
 * returning. Any thread.
 */
#ifndef SWISS_DUTCH_H
#define SWISS_DUTCH_H

#include "swiss.h"

/* One board: white and black by starting number; black 0 means white
 * receives the pairing-allocated bye. */
struct dutch_pair {
    int white, black;
};

enum dutch_status {
    DUTCH_OK = 0,
    DUTCH_UNPAIRABLE = 1, /* no pairing meets the absolute criteria */
    DUTCH_NOMEM = -1,
    DUTCH_BAD = -2, /* inconsistent entries (see swiss_check) */
};

/* Pairs round ev->rounds + 1. out must have room for ev->players / 2 + 1
 * boards; *n_out is set to how many were written, in board order (the
 * higher score on the board first, then the lower, then the better-ranked
 * player; the bye last). Players marked absent are left out. */
enum dutch_status dutch_pair(const struct swiss_event *ev,
                             struct dutch_pair *out, int *n_out);

/* Who has white when a and b (1-based starting numbers) meet in round
 * ev->rounds + 1, by the colour allocation rules (5.2, E.1-E.5): returns
 * a if a has white, else b. st from swiss_derive for that round. */
int dutch_white(const struct swiss_event *ev, const struct swiss_state *st,
                int a, int b);

#endif
