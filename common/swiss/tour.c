/*
 * tour.c - a running Swiss event (see tour.h).
 */
#include "tour.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trf.h"

void tour_init(struct tour *t, int total_rounds, char first_colour)
{
    memset(t, 0, sizeof *t);
    assert(total_rounds >= 1 && total_rounds <= SWISS_MAX_ROUNDS);
    t->total_rounds = total_rounds;
    t->first_colour = first_colour == 'b' ? 'b' : 'w';
}

void tour_free(struct tour *t)
{
    free(t->p);
    free(t->b);
    free(t->round_at);
    free(t->forbid);
    memset(t, 0, sizeof *t);
}

/* A copy of n elements of size at v (NULL when n is 0): 0, or -1. */
static int dup_array(void **out, const void *v, int n, size_t size)
{
    *out = NULL;
    if (n <= 0)
        return 0;
    if (!(*out = malloc((size_t)n * size)))
        return -1;
    memcpy(*out, v, (size_t)n * size);
    return 0;
}

int tour_copy(struct tour *dst, const struct tour *src)
{
    *dst = *src;
    dst->pcap = src->np;
    dst->bcap = src->nb;
    dst->rcap = src->rounds;
    if (dup_array((void **)&dst->p, src->p, src->np, sizeof *src->p) |
        dup_array((void **)&dst->b, src->b, src->nb, sizeof *src->b) |
        dup_array((void **)&dst->round_at, src->round_at, src->rounds,
                  sizeof *src->round_at) |
        dup_array((void **)&dst->forbid, src->forbid, 2 * src->nforbid,
                  sizeof *src->forbid)) {
        tour_free(dst);
        return TOUR_ENOMEM;
    }
    return TOUR_OK;
}

int tour_forbid(struct tour *t, const int *pairs, int n)
{
    int *v = NULL;

    for (int i = 0; i < 2 * n; i++)
        if (pairs[i] < 0 || pairs[i] >= t->np ||
            (i % 2 && pairs[i] == pairs[i - 1]))
            return TOUR_EBAD;
    if (dup_array((void **)&v, pairs, 2 * n, sizeof *pairs) < 0)
        return TOUR_ENOMEM;
    free(t->forbid);
    t->forbid = v;
    t->nforbid = n;
    return TOUR_OK;
}

static bool forbidden(const struct tour *t, int a, int b)
{
    for (int f = 0; f < t->nforbid; f++)
        if ((t->forbid[2 * f] == a && t->forbid[2 * f + 1] == b) ||
            (t->forbid[2 * f] == b && t->forbid[2 * f + 1] == a))
            return true;
    return false;
}

static int grow(void **v, int *cap, int n, size_t size)
{
    void *nv;
    int ncap;

    if (n < *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 8;
    if (!(nv = realloc(*v, (size_t)ncap * size)))
        return -1;
    *v = nv;
    *cap = ncap;
    return 0;
}

int tour_join(struct tour *t, int rating)
{
    if (t->np >= SWISS_MAX_PLAYERS ||
        grow((void **)&t->p, &t->pcap, t->np, sizeof *t->p))
        return TOUR_ENOMEM;
    t->p[t->np] = (struct tour_player){.rating = rating, .joined = t->rounds};
    return t->np++;
}

void tour_withdraw(struct tour *t, int p, bool withdrawn)
{
    assert(p >= 0 && p < t->np);
    t->p[p].withdrawn = withdrawn;
}

int tour_round(const struct tour *t, int r, const struct tour_board **first)
{
    int end;

    assert(r >= 1 && r <= t->rounds);
    end = r < t->rounds ? t->round_at[r] : t->nb;
    *first = t->b + t->round_at[r - 1];
    return end - t->round_at[r - 1];
}

bool tour_round_over(const struct tour *t)
{
    const struct tour_board *b;
    int n;

    if (!t->rounds)
        return true;
    n = tour_round(t, t->rounds, &b);
    for (int i = 0; i < n; i++)
        if (!b[i].result)
            return false;
    return true;
}

/* Numbers the players present who have no starting number: rating order,
 * then join order, after the numbers given. */
static void number(struct tour *t)
{
    int next = 1;

    for (int i = 0; i < t->np; i++)
        if (t->p[i].sn >= next)
            next = t->p[i].sn + 1;
    for (;;) {
        int best = -1;
        for (int i = 0; i < t->np; i++)
            if (!t->p[i].sn && !t->p[i].withdrawn &&
                (best < 0 || t->p[i].rating > t->p[best].rating))
                best = i;
        if (best < 0)
            return;
        t->p[best].sn = next++;
    }
}

/* Numbered players: their count, and by[sn - 1] = index. */
static int numbered(const struct tour *t, int *by)
{
    int n = 0;

    for (int i = 0; i < t->np; i++)
        if (t->p[i].sn) {
            by[t->p[i].sn - 1] = i;
            n++;
        }
    return n;
}

struct swiss_game tour_entry(const struct tour *t, int p, int r)
{
    const struct tour_board *b;
    int n = tour_round(t, r, &b);
    static const char mirror[] = "10=+-";
    static const char mirrored[] = "01=-+";

    for (int i = 0; i < n; i++) {
        char res = b[i].result ? b[i].result : ' ';
        if (b[i].white == p && b[i].black < 0)
            return (struct swiss_game){0, '-', 'U'};
        if (b[i].white == p)
            return (struct swiss_game){t->p[b[i].black].sn, 'w', res};
        if (b[i].black == p)
            return (struct swiss_game){
                t->p[b[i].white].sn, 'b',
                res == ' ' ? ' ' : mirrored[strchr(mirror, res) - mirror]};
    }
    if (r == t->p[p].joined && 2 * r <= t->total_rounds)
        return (struct swiss_game){0, '-', 'H'};
    return (struct swiss_game){0, '-', 'Z'};
}

/* The event over its first `rounds` rounds for the engine and the TRF:
 * ev->players numbered players, by[] their indices. 0, or -1 when out of
 * memory; the caller frees ev->games and ev->absent. */
static int build(const struct tour *t, int rounds, struct swiss_event *ev,
                 int *by)
{
    int n = numbered(t, by);

    memset(ev, 0, sizeof *ev);
    ev->players = n;
    ev->rounds = rounds;
    ev->total_rounds = t->total_rounds;
    ev->first_colour = t->first_colour;
    swiss_points_standard(&ev->points);
    ev->games = calloc((size_t)(n ? n : 1) * (size_t)(rounds ? rounds : 1),
                       sizeof *ev->games);
    ev->absent = calloc((size_t)(n ? n : 1), sizeof *ev->absent);
    if (!ev->games || !ev->absent) {
        free(ev->games);
        free(ev->absent);
        return -1;
    }
    for (int s = 1; s <= n; s++) {
        ev->absent[s - 1] = t->p[by[s - 1]].withdrawn;
        for (int r = 1; r <= rounds; r++)
            ev->games[(s - 1) * rounds + (r - 1)] = tour_entry(t, by[s - 1],
                                                               r);
    }
    return 0;
}

int tour_pair(struct tour *t, struct tour_board **out, int *n)
{
    struct swiss_event ev;
    struct dutch_pair *pairs = NULL;
    int *by, np = 0, rc = TOUR_OK;
    enum dutch_status st;

    *out = NULL;
    *n = 0;
    if (!tour_round_over(t) || t->rounds >= t->total_rounds)
        return TOUR_EBAD;
    if (!(by = malloc(2 * (size_t)(t->np ? t->np : 1) * sizeof *by)))
        return TOUR_ENOMEM;
    /* numbers for the engine only, undone: tour_add_round gives them, so
     * that a pairing not journaled leaves no trace */
    for (int i = 0; i < t->np; i++)
        by[t->np + i] = t->p[i].sn;
    number(t);
    rc = build(t, t->rounds, &ev, by) < 0 ? TOUR_ENOMEM : TOUR_OK;
    if (rc == TOUR_OK && t->nforbid &&
        !(ev.forbidden = malloc(2 * (size_t)t->nforbid * sizeof(int)))) {
        free(ev.games);
        free(ev.absent);
        rc = TOUR_ENOMEM;
    }
    for (int f = 0; rc == TOUR_OK && f < t->nforbid; f++) {
        int a = t->p[t->forbid[2 * f]].sn, b = t->p[t->forbid[2 * f + 1]].sn;
        if (a && b) { /* (a player not numbered is not paired) */
            ev.forbidden[2 * ev.n_forbidden] = a;
            ev.forbidden[2 * ev.n_forbidden++ + 1] = b;
        }
    }
    for (int i = 0; i < t->np; i++)
        t->p[i].sn = by[t->np + i];
    if (rc != TOUR_OK) {
        free(by);
        return rc;
    }
    if (!(pairs = malloc(((size_t)ev.players / 2 + 1) * sizeof *pairs)) ||
        !(*out = malloc(((size_t)ev.players / 2 + 1) * sizeof **out)))
        rc = TOUR_ENOMEM;
    else if ((st = dutch_pair(&ev, pairs, &np)) != DUTCH_OK)
        rc = st == DUTCH_UNPAIRABLE ? TOUR_UNPAIRABLE
             : st == DUTCH_NOMEM    ? TOUR_ENOMEM
                                    : TOUR_EBAD;
    for (int i = 0; rc == TOUR_OK && i < np; i++)
        (*out)[i] = (struct tour_board){
            by[pairs[i].white - 1],
            pairs[i].black ? by[pairs[i].black - 1] : -1, 0};
    if (rc == TOUR_OK)
        *n = np;
    else {
        free(*out);
        *out = NULL;
    }
    free(pairs);
    free(ev.games);
    free(ev.absent);
    free(ev.forbidden);
    free(by);
    return rc;
}

int tour_check_manual(const struct tour *t, const struct tour_board *b, int n,
                      char *why, int whylen)
{
    char *seen = calloc((size_t)(t->np ? t->np : 1), 1);
    int present = 0, rc = TOUR_EBAD;

    if (!seen) {
        snprintf(why, (size_t)whylen, "out of memory");
        return TOUR_ENOMEM;
    }
    for (int i = 0; i < t->np; i++)
        present += !t->p[i].withdrawn;
    for (int i = 0; i < n; i++) {
        int w = b[i].white, k = b[i].black;
        if (w < 0 || w >= t->np || k < -1 || k >= t->np || w == k ||
            t->p[w].withdrawn || (k >= 0 && t->p[k].withdrawn)) {
            snprintf(why, (size_t)whylen,
                     "board %d: a player who is not in the round", i + 1);
            goto out;
        }
        if (seen[w] || (k >= 0 && seen[k])) {
            snprintf(why, (size_t)whylen, "board %d: a player paired twice",
                     i + 1);
            goto out;
        }
        if (k < 0 && (i != n - 1 || present % 2 == 0)) {
            snprintf(why, (size_t)whylen,
                     "board %d: a bye, but only the last board of an odd "
                     "number of players is one",
                     i + 1);
            goto out;
        }
        if (k >= 0 && forbidden(t, w, k)) {
            snprintf(why, (size_t)whylen, "board %d: a forbidden pair",
                     i + 1);
            goto out;
        }
        seen[w] = 1;
        seen[k >= 0 ? k : w] = 1;
    }
    if (2 * n - (n && b[n - 1].black < 0) != present) {
        snprintf(why, (size_t)whylen,
                 "%d players are in the round, the boards pair %d", present,
                 2 * n - (n && b[n - 1].black < 0));
        goto out;
    }
    rc = TOUR_OK;
out:
    free(seen);
    return rc;
}

int tour_add_round(struct tour *t, const struct tour_board *boards, int n)
{
    char *seen;
    int rc = TOUR_OK;

    if (!tour_round_over(t) || t->rounds >= t->total_rounds)
        return TOUR_EBAD;
    number(t);
    if (!(seen = calloc((size_t)(t->np ? t->np : 1), 1)))
        return TOUR_ENOMEM;
    for (int i = 0; i < n && rc == TOUR_OK; i++) {
        int w = boards[i].white, b = boards[i].black;
        if (w < 0 || w >= t->np || b < -1 || b >= t->np || w == b ||
            seen[w] || (b >= 0 && seen[b]) || t->p[w].withdrawn ||
            (b >= 0 && t->p[b].withdrawn) || (b < 0 && i != n - 1))
            rc = TOUR_EBAD;
        else
            seen[w] = 1, seen[b >= 0 ? b : w] = 1;
    }
    free(seen);
    if (rc != TOUR_OK)
        return rc;
    if (grow((void **)&t->round_at, &t->rcap, t->rounds,
             sizeof *t->round_at) < 0)
        return TOUR_ENOMEM;
    while (t->bcap < t->nb + n)
        if (grow((void **)&t->b, &t->bcap, t->bcap, sizeof *t->b) < 0)
            return TOUR_ENOMEM;
    t->round_at[t->rounds++] = t->nb;
    for (int i = 0; i < n; i++) {
        t->b[t->nb] = boards[i];
        t->b[t->nb++].result = boards[i].black < 0 ? 'U' : 0;
    }
    return TOUR_OK;
}

int tour_result(struct tour *t, int k, char result)
{
    if (k < 0 || k >= t->nb || t->b[k].black < 0 || t->b[k].result ||
        !result || !strchr("10=+-", result))
        return TOUR_EBAD;
    t->b[k].result = result;
    return TOUR_OK;
}

/* ---- standings ---------------------------------------------------------- */

static int cmp_standing(const void *a, const void *b)
{
    const struct tour_standing *x = a, *y = b;

    if (x->score != y->score)
        return y->score - x->score;
    if (x->sb != y->sb)
        return y->sb - x->sb;
    if (x->performance != y->performance)
        return y->performance - x->performance;
    return x->rank - y->rank; /* (the starting number, until ranked) */
}

int tour_standings(const struct tour *t, struct tour_standing *out)
{
    struct swiss_event ev;
    int *by = malloc((size_t)(t->np ? t->np : 1) * sizeof *by);
    int n;

    if (!by || build(t, t->rounds, &ev, by) < 0) {
        free(by);
        return TOUR_ENOMEM;
    }
    n = ev.players;
    for (int s = 1; s <= n; s++) {
        struct tour_standing *o = &out[s - 1];
        o->player = by[s - 1];
        o->rank = s;
        o->score = 0;
        for (int r = 1; r <= ev.rounds; r++)
            o->score += swiss_entry_points(&ev.points,
                                           swiss_game_at(&ev, s, r));
    }
    for (int s = 1; s <= n; s++) {
        struct tour_standing *o = &out[s - 1];
        long perf = 0;
        int games = 0;
        o->sb = 0;
        for (int r = 1; r <= ev.rounds; r++) {
            const struct swiss_game *g = swiss_game_at(&ev, s, r);
            int pts = swiss_entry_points(&ev.points, g);
            if (swiss_entry_played(g)) {
                o->sb += out[g->opp - 1].score * pts;
                perf += t->p[by[g->opp - 1]].rating + (g->result == '1' ? 500
                                                       : g->result == '0'
                                                           ? -500
                                                           : 0);
                games++;
            } else if (strchr("UFH+", g->result)) {
                o->sb += o->score * pts;
            }
        }
        o->performance = games ? (int)((2 * perf +
                                        (perf >= 0 ? games : -games)) /
                                       (2 * games))
                               : 0;
    }
    qsort(out, (size_t)n, sizeof *out, cmp_standing);
    for (int i = 0; i < n; i++)
        out[i].rank = i + 1;
    free(ev.games);
    free(ev.absent);
    free(by);
    return n;
}

/* ---- TRF ---------------------------------------------------------------- */

char *tour_trf(const struct tour *t, const char *name,
               const char *const *names)
{
    struct trf_file f = {0};
    int *by = malloc((size_t)(t->np ? t->np : 1) * sizeof *by);
    int done = t->rounds - !tour_round_over(t);
    char *text = NULL, header[64];

    if (!by || build(t, done, &f.ev, by) < 0) {
        free(by);
        return NULL;
    }
    f.ev.absent = (free(f.ev.absent), NULL);
    /* the organiser's forbidden pairs as they are now, of players
     * numbered (the file's: a player who joined since is not in it) */
    if (t->nforbid &&
        !(f.ev.forbidden = malloc(2 * (size_t)t->nforbid * sizeof(int)))) {
        free(f.ev.games);
        free(by);
        return NULL;
    }
    for (int i = 0; i < t->nforbid; i++) {
        int a = t->p[t->forbid[2 * i]].sn, b = t->p[t->forbid[2 * i + 1]].sn;
        if (a && b) {
            f.ev.forbidden[2 * f.ev.n_forbidden] = a;
            f.ev.forbidden[2 * f.ev.n_forbidden++ + 1] = b;
        }
    }
    snprintf(header, sizeof header, "012 %s\n", name);
    f.header = header;
    if ((f.player = calloc((size_t)(f.ev.players ? f.ev.players : 1),
                           sizeof *f.player))) {
        for (int s = 1; s <= f.ev.players; s++) {
            snprintf(f.player[s - 1].name, sizeof f.player[0].name, "%s",
                     names[by[s - 1]]);
            f.player[s - 1].rating = t->p[by[s - 1]].rating;
            f.player[s - 1].points = -1;
        }
        text = trf_write(&f);
    }
    free(f.player);
    free(f.ev.games);
    free(f.ev.forbidden);
    free(by);
    return text;
}
