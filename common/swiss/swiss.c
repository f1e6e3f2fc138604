/*
 * swiss.c - scores, colours, floats and byes derived from the round
 * entries (see swiss.h). The definitions are C.04.3's (2025): colour
 * difference and preferences in 1.7, floats in 1.4, the bye rules in C2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swiss.h"

void swiss_points_standard(struct swiss_points *pts)
{
    pts->win = 10;
    pts->draw = 5;
    pts->loss = 0;
    pts->forfeit_win = 10;
    pts->forfeit_loss = 0;
    pts->pab = 10;
    pts->full_bye = 10;
    pts->half_bye = 5;
    pts->zero_bye = 0;
    pts->absent = 0;
}

int swiss_entry_points(const struct swiss_points *pts,
                       const struct swiss_game *g)
{
    switch (g->result) {
    case '1':
    case 'W':
        return pts->win;
    case '=':
    case 'D':
        return pts->draw;
    case '0':
    case 'L':
        return pts->loss;
    case '+':
        return pts->forfeit_win;
    case '-':
        return pts->forfeit_loss;
    case 'U':
        return pts->pab;
    case 'F':
        return pts->full_bye;
    case 'H':
        return pts->half_bye;
    case 'Z':
        return pts->zero_bye;
    default:
        return pts->absent;
    }
}

bool swiss_entry_played(const struct swiss_game *g)
{
    return g->opp > 0 && strchr("10=WDL", g->result) && g->result;
}

bool swiss_entry_bye_like(const struct swiss_points *pts,
                          const struct swiss_game *g)
{
    if (g->result == 'U')
        return true;
    if (swiss_entry_played(g) || !strchr("+F", g->result) || !g->result)
        return false;
    return swiss_entry_points(pts, g) >= pts->win;
}

static char other(char c)
{
    return c == 'w' ? 'b' : 'w';
}

static void set_pref(struct swiss_state *s)
{
    s->pref = 0;
    s->strength = SWISS_PREF_NONE;
    if (s->played == 0)
        return;
    if (s->cd > 1 || s->cd < -1) {
        s->pref = s->cd > 1 ? 'b' : 'w';
        s->strength = SWISS_PREF_ABSOLUTE;
    } else if (s->played >= 2 && s->last == s->last2) {
        s->pref = other(s->last);
        s->strength = SWISS_PREF_ABSOLUTE;
    } else if (s->cd != 0) {
        s->pref = s->cd > 0 ? 'b' : 'w';
        s->strength = SWISS_PREF_STRONG;
    } else {
        s->pref = other(s->last);
        s->strength = SWISS_PREF_MILD;
    }
}

/* The float player p received in round r (1-based), given everyone's
 * score before each round (before[(q - 1) * (rounds + 1) + r - 1]). */
static char float_of(const struct swiss_event *ev, const int *before, int p,
                     int r)
{
    const struct swiss_game *g = swiss_game_at(ev, p, r);
    int stride = ev->rounds + 1;
    int pts = swiss_entry_points(&ev->points, g);
    if (!swiss_entry_played(g) && pts > ev->points.loss)
        return 'D'; /* scored without playing: 1.4.3 */
    if (g->opp <= 0 || g->opp > ev->players)
        return 0;
    int mine = before[(p - 1) * stride + r - 1];
    int theirs = before[(g->opp - 1) * stride + r - 1];
    return mine > theirs ? 'D' : mine < theirs ? 'U' : 0;
}

int swiss_derive(const struct swiss_event *ev, int round,
                 struct swiss_state *st)
{
    int n = ev->players, stride = ev->rounds + 1;
    if (round < 1 || round > ev->rounds + 1)
        return -1;
    int *before = malloc((size_t)n * (size_t)stride * sizeof *before);
    if (!before)
        return -1;
    for (int p = 1; p <= n; p++) {
        int s = 0;
        for (int r = 1; r <= ev->rounds; r++) {
            before[(p - 1) * stride + r - 1] = s;
            s += swiss_entry_points(&ev->points, swiss_game_at(ev, p, r));
        }
        before[(p - 1) * stride + ev->rounds] = s;
    }
    for (int p = 1; p <= n; p++) {
        struct swiss_state *s = &st[p - 1];
        memset(s, 0, sizeof *s);
        s->score = before[(p - 1) * stride + round - 1];
        for (int r = 1; r < round; r++) {
            const struct swiss_game *g = swiss_game_at(ev, p, r);
            if (g->opp < 0 || g->opp > n || g->opp == p) {
                free(before);
                return -1;
            }
            if (swiss_entry_played(g)) {
                s->played++;
                s->cd += g->colour == 'w' ? 1 : -1;
                s->last2 = s->last;
                s->last = g->colour;
            } else {
                s->unplayed++;
            }
            if (swiss_entry_bye_like(&ev->points, g))
                s->no_bye = true;
        }
        if (round > 1)
            s->float1 = float_of(ev, before, p, round - 1);
        if (round > 2)
            s->float2 = float_of(ev, before, p, round - 2);
        set_pref(s);
    }
    free(before);
    return 0;
}

static char mirror(char result)
{
    switch (result) {
    case '1':
        return '0';
    case '0':
        return '1';
    case 'W':
        return 'L';
    case 'L':
        return 'W';
    case '+':
        return '-';
    default:
        return result; /* '=' 'D'; '-' is checked apart */
    }
}

static int check_game(const struct swiss_event *ev, int p, int r, char *err,
                      int errlen)
{
    const struct swiss_game *g = swiss_game_at(ev, p, r);
    if (!strchr("10=WDL+-UFHZ ", g->result) || !g->result) {
        snprintf(err, (size_t)errlen,
                 "player %d, round %d: unknown result code '%c'", p, r,
                 g->result);
        return -1;
    }
    if (g->opp < 0 || g->opp > ev->players || g->opp == p) {
        snprintf(err, (size_t)errlen,
                 "player %d, round %d: opponent %d is not another player", p,
                 r, g->opp);
        return -1;
    }
    if (g->opp == 0) {
        if (strchr("10=WDL", g->result)) {
            snprintf(err, (size_t)errlen,
                     "player %d, round %d: a played result needs an "
                     "opponent",
                     p, r);
            return -1;
        }
        return 0;
    }
    const struct swiss_game *o = swiss_game_at(ev, g->opp, r);
    bool ok = o->opp == p;
    if (ok && strchr("UFHZ ", g->result))
        ok = false;
    if (ok && swiss_entry_played(g))
        ok = o->result == mirror(g->result) &&
             ((g->colour == 'w' && o->colour == 'b') ||
              (g->colour == 'b' && o->colour == 'w'));
    if (ok && !swiss_entry_played(g))
        ok = g->result == '-' ? strchr("+-", o->result) != NULL
                              : o->result == mirror(g->result);
    if (!ok) {
        snprintf(err, (size_t)errlen,
                 "player %d, round %d: the game against %d does not match "
                 "that player's entry for the round",
                 p, r, g->opp);
        return -1;
    }
    return 0;
}

int swiss_check(const struct swiss_event *ev, char *err, int errlen)
{
    for (int p = 1; p <= ev->players; p++)
        for (int r = 1; r <= ev->rounds; r++)
            if (check_game(ev, p, r, err, errlen))
                return -1;
    for (int i = 0; i < 2 * ev->n_forbidden; i++)
        if (ev->forbidden[i] < 1 || ev->forbidden[i] > ev->players) {
            snprintf(err, (size_t)errlen,
                     "forbidden pair names player %d, who is not in the "
                     "event",
                     ev->forbidden[i]);
            return -1;
        }
    return 0;
}
