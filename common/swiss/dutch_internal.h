/*
 * dutch_internal.h - what dutch.c and dutch_weight.c share: the players to
 * pair in pairing order, one bracket's vertices, and the bit layout of a
 * pairing's weight. Not a public header.
 */
#ifndef SWISS_DUTCH_INTERNAL_H
#define SWISS_DUTCH_INTERNAL_H

#include <stdbool.h>

#include "dutch.h"
#include "matching.h"
#include "wide.h"

struct dplayer {
    int id;                       /* starting number */
    const struct swiss_state *st; /* before the round */
    int group;                    /* scoregroup, 0 the highest */
    bool top;                     /* a topscorer (final round only) */
};

struct deng {
    const struct swiss_event *ev;
    struct swiss_state *st; /* every player, by starting number - 1 */
    struct dplayer *p;      /* the players to pair, in pairing order */
    int n;
    unsigned char *met;   /* n * n: played, or a forbidden pair */
    int *gstart, ngroups; /* group g is p[gstart[g] .. gstart[g + 1]) */
    int win;              /* points of a win, tenths */
    int maxu;             /* most unplayed rounds of anyone */
    bool bye;             /* an odd number of players */
};

/* One bracket's matching: v[0..nb) is the bracket (moved-down players
 * first), v[nb..nb + nn) the next scoregroup, then everyone below; the
 * bye, when needed, is vertex nv. */
struct dbracket {
    int *v, nv, nb, nmdp, nn;
    int s_low, s_next; /* the bracket's resident score, the next group's */
};

enum dcrit {
    F_CARD,
    F_C5,
    F_C6,
    F_C7,
    F_C8A,
    F_C8B,
    F_C9,
    F_C10,
    F_C11,
    F_C12,
    F_C13,
    F_C14,
    F_C15,
    F_C16,
    F_C17,
    F_C18,
    F_C19,
    F_C20,
    F_C21,
    F_TIE2,
    F_TIE3,
    F_TIE4,
    F_TIE1,
    NCRIT
};

#define DLEV_MAX 32

struct dlayout {
    int nf[NCRIT];           /* fields of each criterion */
    int lv[NCRIT][DLEV_MAX]; /* level criteria: the values, descending */
    int nlv[NCRIT];
    int width[NCRIT];         /* bits per field */
    int off[NCRIT][DLEV_MAX]; /* bit offset of each field */
    /* for the tie-breaks, the rules' first candidate: S1 is the moved-down
     * players and the remainder's first half [rem_lo, rem_mid); the
     * residents before rem_lo are those the moved-down players meet */
    int rem_lo, rem_mid, s1;
};

/* True when players i and j (pairing order) may meet: C1, C3, forbidden
 * pairs. */
bool dutch_compatible(const struct deng *e, int i, int j);

/* Builds the layout of bracket b's weights; returns -1 when even the
 * criteria do not fit in a weight. */
int dutch_layout(const struct deng *e, const struct dbracket *b,
                 struct dlayout *L);

/* The weight of pairing vertices x < y of bracket b (y == b->nv: the
 * bye). */
wide dutch_weight(const struct deng *e, const struct dbracket *b,
                  const struct dlayout *L, int x, int y);

/* True when pairing order index i (higher) gets white against j. */
bool dutch_white_of(const struct deng *e, int i, int j);

#endif
