/*
 * swissgen.c - see swissgen.h. The checks recompute everything from the
 * round entries: who met whom, colours, byes, scores.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "swissgen.h"

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int below(uint64_t *s, int n)
{
    return (int)(next(s) % (uint64_t)n);
}

static double now_s(clockid_t which)
{
    struct timespec t;
    clock_gettime(which, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct sim {
    struct swiss_event ev;
    int players, cap_rounds;
    struct swiss_game *all; /* players * cap_rounds */
    char *preset;           /* this round: 0, or 'Z' / 'H' */
    uint64_t rng;
};

static const struct swiss_game *entry(const struct sim *s, int p, int r)
{
    return &s->all[(p - 1) * s->cap_rounds + (r - 1)];
}

/* The event before round `round`, with its absentees. */
static void view(struct sim *s, int round)
{
    int R = round - 1;
    s->ev.rounds = R;
    for (int p = 1; p <= s->players; p++) {
        for (int r = 1; r <= R; r++)
            s->ev.games[(p - 1) * (R ? R : 1) + r - 1] = *entry(s, p, r);
        s->ev.absent[p - 1] = s->preset[p - 1] != 0;
    }
}

static int fail(struct swissgen_stats *st, const char *what, int round, int a,
                int b)
{
    snprintf(st->fail, sizeof st->fail, "round %d: %s (players %d, %d)",
             round, what, a, b);
    return -1;
}

static bool met(const struct sim *s, int a, int b, int round)
{
    for (int r = 1; r < round; r++) {
        const struct swiss_game *g = entry(s, a, r);
        if (g->opp == b && strchr("10=WDL", g->result))
            return true;
    }
    for (int f = 0; f < s->ev.n_forbidden; f++)
        if ((s->ev.forbidden[2 * f] == a &&
             s->ev.forbidden[2 * f + 1] == b) ||
            (s->ev.forbidden[2 * f] == b && s->ev.forbidden[2 * f + 1] == a))
            return true;
    return false;
}

static int score_of(const struct sim *s, int p, int round)
{
    int sc = 0;
    for (int r = 1; r < round; r++)
        sc += swiss_entry_points(&s->ev.points, entry(s, p, r));
    return sc;
}

/* Colour difference and the last two colours after giving c. */
static bool colour_ok(const struct sim *s, int p, int round, char c)
{
    int cd = c == 'w' ? 1 : -1;
    char l1 = c, l2 = 0, l3 = 0;
    for (int r = round - 1; r >= 1; r--) {
        const struct swiss_game *g = entry(s, p, r);
        if (!strchr("10=WDL", g->result) || !g->opp)
            continue;
        cd += g->colour == 'w' ? 1 : -1;
        if (!l2)
            l2 = g->colour;
        else if (!l3)
            l3 = g->colour;
    }
    return cd <= 2 && cd >= -2 && !(l1 == l2 && l2 == l3);
}

static bool had_bye(const struct sim *s, int p, int round)
{
    for (int r = 1; r < round; r++) {
        char res = entry(s, p, r)->result;
        if (res == 'U' || res == 'F' || (res == '+' && !entry(s, p, r)->opp))
            return true;
        if (res == '+' && s->ev.points.forfeit_win >= s->ev.points.win)
            return true;
    }
    return false;
}

static bool topscorer(const struct sim *s, int p, int round, int total)
{
    return round == total &&
           2 * score_of(s, p, round) > (round - 1) * s->ev.points.win;
}

static bool can_meet(const struct sim *s, int a, int b, int round, int total)
{
    if (met(s, a, b, round))
        return false;
    /* C3 binds two non-topscorers only: a topscorer's opponent may get
     * a third colour in a row (C10, C11 count it) */
    if (topscorer(s, a, round, total) || topscorer(s, b, round, total))
        return true;
    return (colour_ok(s, a, round, 'w') && colour_ok(s, b, round, 'b')) ||
           (colour_ok(s, a, round, 'b') && colour_ok(s, b, round, 'w'));
}

/* Brute force over the complete pairings of the players in pl[]: the best
 * (lowest) bye score, then the most pairs inside the top scoregroup. */
struct brute {
    const struct sim *s;
    int round, total, n, top;
    int pl[16];
    bool used[16];
    int best_bye, best_pairs, found;
};

static void brute_rec(struct brute *b, int bye_score, int pairs)
{
    int i = 0;
    while (i < b->n && b->used[i])
        i++;
    if (i == b->n) {
        if (!b->found || bye_score < b->best_bye ||
            (bye_score == b->best_bye && pairs > b->best_pairs)) {
            b->best_bye = bye_score;
            b->best_pairs = pairs;
        }
        b->found = 1;
        return;
    }
    b->used[i] = true;
    for (int j = i + 1; j < b->n; j++) {
        if (b->used[j] ||
            !can_meet(b->s, b->pl[i], b->pl[j], b->round, b->total))
            continue;
        b->used[j] = true;
        int si = score_of(b->s, b->pl[i], b->round);
        int sj = score_of(b->s, b->pl[j], b->round);
        brute_rec(b, bye_score, pairs + (si == b->top && sj == b->top));
        b->used[j] = false;
    }
    b->used[i] = false;
}

static void brute(struct brute *b)
{
    b->found = 0;
    if (b->n % 2 == 0) {
        brute_rec(b, -1, 0);
        return;
    }
    for (int k = 0; k < b->n; k++) {
        if (had_bye(b->s, b->pl[k], b->round))
            continue;
        b->used[k] = true;
        brute_rec(b, score_of(b->s, b->pl[k], b->round), 0);
        b->used[k] = false;
    }
}

/* The absolute criteria, and against a brute force when small. */
static int check_round(struct sim *s, int round, int total,
                       const struct dutch_pair *out, int n,
                       struct swissgen_stats *st)
{
    int *seen = calloc((size_t)s->players + 1, sizeof *seen);
    int rc = 0, byes = 0, active = 0, top = -1, top_pairs = 0;
    for (int p = 1; p <= s->players; p++)
        if (!s->preset[p - 1]) {
            active++;
            int sc = score_of(s, p, round);
            top = sc > top ? sc : top;
        }
    for (int i = 0; i < n && !rc; i++) {
        int w = out[i].white, b = out[i].black;
        if (w < 1 || w > s->players || b < 0 || b > s->players ||
            s->preset[w - 1] || (b && s->preset[b - 1]))
            rc = fail(st, "a player absent or out of range", round, w, b);
        else if (seen[w]++ || (b && seen[b]++))
            rc = fail(st, "a player paired twice", round, w, b);
        else if (!b && (byes++ || had_bye(s, w, round)))
            rc = fail(st, "a second bye, or a bye to a player who had one",
                      round, w, b);
        else if (b && met(s, w, b, round))
            rc = fail(st, "a rematch or a forbidden pair", round, w, b);
        else if (b && !topscorer(s, w, round, total) &&
                 !topscorer(s, b, round, total) &&
                 (!colour_ok(s, w, round, 'w') ||
                  !colour_ok(s, b, round, 'b')))
            rc = fail(st,
                      "a colour difference past 2 or a third colour in "
                      "a row",
                      round, w, b);
        else if (b && score_of(s, w, round) == top &&
                 score_of(s, b, round) == top)
            top_pairs++;
    }
    for (int p = 1; p <= s->players && !rc; p++)
        if (!s->preset[p - 1] && !seen[p])
            rc = fail(st, "a player left out", round, p, 0);
    if (!rc && byes != active % 2)
        rc = fail(st,
                  "a bye with an even number of players, or none with "
                  "an odd",
                  round, active, byes);
    if (!rc && active <= 12) {
        struct brute br = {
            .s = s, .round = round, .total = total, .top = top};
        int bye_score = -1;
        for (int p = 1; p <= s->players; p++)
            if (!s->preset[p - 1])
                br.pl[br.n++] = p;
        for (int i = 0; i < n; i++)
            if (!out[i].black)
                bye_score = score_of(s, out[i].white, round);
        brute(&br);
        st->brute_checked++;
        if (!br.found || br.best_bye != bye_score ||
            br.best_pairs != top_pairs)
            rc = fail(st,
                      "the bye's score or the pairs of the top "
                      "scoregroup are not the best possible (C5, C6)",
                      round, br.best_bye, br.best_pairs);
    }
    free(seen);
    return rc;
}

/* An unpairable verdict, against the brute force when small. */
static int check_unpairable(struct sim *s, int round, int total,
                            struct swissgen_stats *st)
{
    struct brute br = {.s = s, .round = round, .total = total};
    for (int p = 1; p <= s->players; p++)
        if (!s->preset[p - 1])
            br.pl[br.n++] = p;
    if (br.n > 12)
        return 0;
    brute(&br);
    st->brute_checked++;
    return br.found ? fail(st, "called unpairable, but a pairing exists",
                           round, br.n, 0)
                    : 0;
}

static void set(struct sim *s, int p, int r, int opp, char c, char res)
{
    s->all[(p - 1) * s->cap_rounds + (r - 1)] = (struct swiss_game){opp, c,
                                                                    res};
}

/* Results of the round: stronger (lower number) players win more. */
static void play(struct sim *s, int round, const struct dutch_pair *out,
                 int n)
{
    for (int p = 1; p <= s->players; p++)
        if (s->preset[p - 1])
            set(s, p, round, 0, '-', s->preset[p - 1]);
    for (int i = 0; i < n; i++) {
        int w = out[i].white, b = out[i].black;
        if (!b) {
            set(s, w, round, 0, '-', 'U');
            continue;
        }
        int roll = below(&s->rng, 100);
        int edge = (b - w) * 20 / s->players; /* -20..20 */
        if (roll < 2) {
            set(s, w, round, b, 'w', '+');
            set(s, b, round, w, 'b', '-');
        } else if (roll < 40 + edge) {
            set(s, w, round, b, 'w', '1');
            set(s, b, round, w, 'b', '0');
        } else if (roll < 70 + edge) {
            set(s, w, round, b, 'w', '=');
            set(s, b, round, w, 'b', '=');
        } else {
            set(s, w, round, b, 'w', '0');
            set(s, b, round, w, 'b', '1');
        }
    }
}

static int setup(struct sim *s, int players, int rounds, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->players = players;
    s->cap_rounds = rounds;
    s->rng = seed * 2654435761u + 1;
    s->all = calloc((size_t)players * (size_t)rounds, sizeof *s->all);
    s->preset = calloc((size_t)players, 1);
    s->ev.games = calloc((size_t)players * (size_t)rounds,
                         sizeof *s->ev.games);
    s->ev.absent = calloc((size_t)players, sizeof *s->ev.absent);
    s->ev.forbidden = calloc(4, sizeof(int));
    if (!s->all || !s->preset || !s->ev.games || !s->ev.absent ||
        !s->ev.forbidden)
        return -1;
    s->ev.players = players;
    s->ev.total_rounds = rounds;
    s->ev.first_colour = below(&s->rng, 2) ? 'w' : 'b';
    swiss_points_standard(&s->ev.points);
    if (players >= 4 && below(&s->rng, 2)) {
        s->ev.n_forbidden = 2;
        for (int i = 0; i < 4; i++)
            s->ev.forbidden[i] = 1 + below(&s->rng, players);
        if (s->ev.forbidden[0] == s->ev.forbidden[1])
            s->ev.n_forbidden = 0;
        else if (s->ev.forbidden[2] == s->ev.forbidden[3])
            s->ev.n_forbidden = 1;
    }
    return 0;
}

static void teardown(struct sim *s)
{
    free(s->all);
    free(s->preset);
    free(s->ev.games);
    free(s->ev.absent);
    free(s->ev.forbidden);
}

int swissgen_run(int players, int rounds, uint64_t seed,
                 struct swissgen_stats *st)
{
    struct sim s;
    int rc = setup(&s, players, rounds, seed);
    struct dutch_pair *out = malloc(((size_t)players / 2 + 1) * sizeof *out);
    if (rc || !out) {
        snprintf(st->fail, sizeof st->fail, "out of memory");
        rc = -1;
    }
    for (int round = 1; round <= rounds && !rc; round++) {
        for (int p = 0; p < players; p++) {
            int roll = below(&s.rng, 100);
            s.preset[p] = roll < 3 ? 'Z' : roll < 5 ? 'H' : 0;
        }
        view(&s, round);
        int n = 0;
        double t0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
        double w0 = now_s(CLOCK_MONOTONIC);
        enum dutch_status d = dutch_pair(&s.ev, out, &n);
        double dt = now_s(CLOCK_PROCESS_CPUTIME_ID) - t0;
        st->round_wall_s[round - 1] = now_s(CLOCK_MONOTONIC) - w0;
        st->total_s += dt;
        st->round_s[round - 1] = dt;
        st->worst_s = dt > st->worst_s ? dt : st->worst_s;
        if (d == DUTCH_UNPAIRABLE) {
            st->unpairable++;
            rc = check_unpairable(&s, round, rounds, st);
            break;
        }
        if (d != DUTCH_OK) {
            rc = fail(st, "the engine failed", round, d, 0);
            break;
        }
        st->rounds_paired++;
        st->byes += n > 0 && !out[n - 1].black;
        rc = check_round(&s, round, rounds, out, n, st);
        play(&s, round, out, n);
    }
    free(out);
    teardown(&s);
    return rc;
}
