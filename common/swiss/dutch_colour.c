/*
 * dutch_colour.c - the colour allocation rules of C.04.3 (5.2; E.1-E.5 in
 * the 2017 numbering), see dutch.h.
 */
#include <stdlib.h>

#include "dutch.h"

static int abs_i(int x)
{
    return x < 0 ? -x : x;
}

/* E.3: the most recent round (counting played games back from each
 * player's last) in which one had white and the other black; returns
 * a's colour then, or 0. */
static char last_difference(const struct swiss_event *ev, int a, int b)
{
    int ra = ev->rounds, rb = ev->rounds;
    for (;;) {
        while (ra >= 1 && !swiss_entry_played(swiss_game_at(ev, a, ra)))
            ra--;
        while (rb >= 1 && !swiss_entry_played(swiss_game_at(ev, b, rb)))
            rb--;
        if (ra < 1 || rb < 1)
            return 0;
        char ca = swiss_game_at(ev, a, ra)->colour;
        char cb = swiss_game_at(ev, b, rb)->colour;
        if (ca != cb)
            return ca;
        ra--;
        rb--;
    }
}

/* a is the higher ranked (score, then starting number). */
static bool higher_white(const struct swiss_event *ev,
                         const struct swiss_state *sa,
                         const struct swiss_state *sb, int a, int b)
{
    char pa = sa->pref, pb = sb->pref;
    if (pa && pb && pa != pb) /* E.1 */
        return pa == 'w';
    if (pa && !pb)
        return pa == 'w';
    if (!pa && pb)
        return pb == 'b';
    if (pa && pb) { /* E.2: the same colour wanted */
        if (sa->strength != sb->strength)
            return sa->strength > sb->strength ? pa == 'w' : pb == 'b';
        if (sa->strength == SWISS_PREF_ABSOLUTE &&
            abs_i(sa->cd) != abs_i(sb->cd))
            return abs_i(sa->cd) > abs_i(sb->cd) ? pa == 'w' : pb == 'b';
    }
    char then = last_difference(ev, a, b); /* E.3 */
    if (then)
        return then == 'b';
    if (pa) /* E.4 */
        return pa == 'w';
    bool odd = a % 2 == 1; /* E.5 */
    return odd == (ev->first_colour != 'b');
}

int dutch_white(const struct swiss_event *ev, const struct swiss_state *st,
                int a, int b)
{
    const struct swiss_state *sa = &st[a - 1], *sb = &st[b - 1];
    bool a_higher = sa->score > sb->score ||
                    (sa->score == sb->score && a < b);
    if (!a_higher)
        return higher_white(ev, sb, sa, b, a) ? b : a;
    return higher_white(ev, sa, sb, a, b) ? a : b;
}
