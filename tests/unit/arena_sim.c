/*
 * arena_sim.c - test_arena's randomized run (see arena_sim.h).
 *
 * Players join, leave, come back and drop their connections; games end
 * at random with random results, plies, berserks and missed first moves,
 * over one-second ticks. The run keeps its own model of who waits, last
 * opponents and colours (lila's rules as it reads them) and checks every
 * tick's pairings against it, the small ones against a brute-force
 * matching, and the sheets, performances and standings against a scoring
 * of its own from the games.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "arena_sim.h"
#include "testutil.h"

#define S_MS 1000LL

#define NP ARENA_SIM_MAX

struct mplayer {
    bool connected, withdrawn, listed;
    int game, last, strike, balance, rating;
    int64_t waiting;
};

struct sim {
    struct arena *a;
    struct mplayer m[NP];
    int np;
    unsigned long long rng;
    bool duel;             /* this tick: two players left */
    bool duel_seen;        /* a tick had a duel (colours may then run on) */
    int brute;             /* ticks with pairs checked by the brute force */
    int cap;               /* most players */
    int wide;              /* ticks with more waiting than a window */
    int run[NP / 2], nrun; /* the games being played */
};

static int rnd(struct sim *s, int n)
{
    return (int)(testutil_rand(&s->rng) % (unsigned long long)n);
}

static int active(const struct sim *s)
{
    int k = 0;
    for (int p = 0; p < s->np; p++)
        k += s->m[p].listed && !s->m[p].withdrawn;
    return k;
}

static bool m_allowed(const struct sim *s, int x, int y)
{
    const struct mplayer *a = &s->m[x], *b = &s->m[y];
    if (s->duel)
        return true;
    return a->last != y && b->last != x &&
           !(a->strike >= 2 && b->strike >= 2) &&
           !(a->strike <= -2 && b->strike <= -2);
}

static long m_cost(const struct sim *s, int x, int y, const int *rank, int r)
{
    int rx = rank[x], ry = rank[y], better = rx < ry ? rx : ry;
    long f = 300 + 1700L * (r - better) / r;
    return labs((long)(rx - ry)) * f +
           labs((long)(s->m[x].rating - s->m[y].rating));
}

/* The most pairs, then the least cost, over v[0..n) by brute force. */
static void brute(const struct sim *s, const int *v, int n, const int *rank,
                  int r, bool *used, int pairs, long cost, int *bp, long *bc)
{
    int i = 0;
    while (i < n && used[i])
        i++;
    if (i == n) {
        if (pairs > *bp || (pairs == *bp && cost < *bc)) {
            *bp = pairs;
            *bc = cost;
        }
        return;
    }
    used[i] = true;
    brute(s, v, n, rank, r, used, pairs, cost, bp, bc);
    for (int j = i + 1; j < n; j++)
        if (!used[j] && m_allowed(s, v[i], v[j])) {
            used[j] = true;
            brute(s, v, n, rank, r, used, pairs + 1,
                  cost + m_cost(s, v[i], v[j], rank, r), bp, bc);
            used[j] = false;
        }
    used[i] = false;
}

static void best_of(const struct sim *s, const int *v, int n, const int *rank,
                    int *bp, long *bc)
{
    bool used[NP] = {false};
    *bp = 0;
    *bc = 0;
    if (n >= 2)
        brute(s, v, n, rank, rank[v[n - 1]], used, 0, 0, bp, bc);
}

/* The waiting players in rank order into w, rank[] by player; the count. */
static int m_waiting(const struct sim *s, int *w, int *rank)
{
    int order[NP], nw = 0;
    int listed = arena_standings(s->a, order);
    for (int p = 0; p < NP; p++)
        rank[p] = 0;
    for (int i = 0; i < listed; i++) {
        rank[order[i]] = i + 1;
        const struct mplayer *m = &s->m[order[i]];
        if (m->listed && !m->withdrawn && m->connected && m->game < 0)
            w[nw++] = order[i];
    }
    return nw;
}

/* Of an odd number waiting, the one lila leaves out: who started
 * waiting last, the lower ranked of a tie. */
static int m_latest(const struct sim *s, const int *w, int nw)
{
    int drop = 0;
    for (int i = 1; i < nw; i++)
        if (s->m[w[i]].waiting >= s->m[w[drop]].waiting)
            drop = i;
    return drop;
}

/* The pairs of a tick against the model, and when few wait, their count
 * and cost against the brute force's. */
static void check_pairs(struct sim *s, int64_t now,
                        const struct arena_pairing *pr, int n, bool open)
{
    int w[NP], rank[NP], nw = m_waiting(s, w, rank);
    s->wide += open && nw > ARENA_WINDOW;
    if (!open) {
        ck_assert_int_eq(n, 0);
        return;
    }
    bool seen[NP] = {false}, in_w[NP] = {false};
    for (int i = 0; i < nw; i++)
        in_w[w[i]] = true;
    for (int i = 0; i < n; i++) {
        int x = pr[i].white, y = pr[i].black;
        ck_assert(x != y && in_w[x] && in_w[y] && !seen[x] && !seen[y]);
        seen[x] = seen[y] = true;
        ck_assert_msg(m_allowed(s, x, y), "forbidden pair %d-%d", x, y);
        const struct mplayer *a = &s->m[x], *b = &s->m[y];
        ck_assert(a->strike < b->strike ||
                  (a->strike == b->strike && a->balance <= b->balance));
    }
    if (nw > 10 || now - arena_config(s->a)->start_ms < ARENA_START_MS)
        return;
    /* the set paired: without the odd one out unless that pairs nobody */
    int v[NP], k = 0, bp;
    long bc, cost = 0;
    int drop = nw % 2 == 1 ? m_latest(s, w, nw) : -1;
    for (int i = 0; i < nw; i++)
        if (i != drop)
            v[k++] = w[i];
    best_of(s, v, k, rank, &bp, &bc);
    if (drop >= 0 && bp > 0)
        ck_assert(!seen[w[drop]]);
    if (drop >= 0 && bp == 0) {
        memcpy(v, w, sizeof v);
        k = nw;
        best_of(s, v, k, rank, &bp, &bc);
    }
    for (int i = 0; i < n; i++)
        cost += m_cost(s, pr[i].white, pr[i].black, rank, rank[v[k - 1]]);
    ck_assert_int_eq(n, bp);
    ck_assert_int_eq(cost, bc);
    s->brute += n > 0;
}

/* A player's sheet scored again from his games, as the rules say. */
struct ref {
    int k, total;
    long perf;
    char res[1024]; /* 'W' 'D' 'L' 'Q', game by game */
};

/* Scores counted game g (x) for the player on side into r. */
static void ref_add(const struct sim *s, struct ref *r, int g, int side)
{
    const struct arena_game *x = arena_game(s->a, g);
    const struct arena_score *sh;
    int n = arena_sheet(s->a, side ? x->black : x->white, &sh), k = r->k;
    char res = x->result == ARENA_DRAWN ? (x->plies < 20 ? 'Q' : 'D')
               : (x->result == ARENA_WHITE_WINS) == (side == 0) ? 'W'
                                                                : 'L';
    bool fire = arena_config(s->a)->streaks && k >= 2 &&
                r->res[k - 1] == 'W' && r->res[k - 2] == 'W';
    int pts = 0;
    if (res == 'W')
        pts = (fire ? 4 : 2) + (x->berserk[side] && x->plies >= 14);
    if (res == 'D') {
        int j = k - 1;
        while (j >= 0 && r->res[j] == 'L')
            j--;
        bool streak = j >= 0 && r->res[j] != 'W' && x->plies < 60;
        pts = fire ? 2 : streak ? 0 : 1;
    }
    ck_assert_int_lt(k, n);
    ck_assert_int_lt(k, (int)sizeof r->res);
    ck_assert_int_eq(sh[k].game, g);
    ck_assert_int_eq(sh[k].points, pts);
    int mult = res == 'W' ? 1 : res == 'L' ? -1 : 0;
    long this = x->rating[1 - side] + 500 * mult;
    long sum = r->perf * k + this, d = 2L * (k + 1), v = 2 * sum + (k + 1);
    r->perf = (v - (v % d + d) % d) / d; /* floor(v / d): half up */
    r->res[r->k++] = res;
    r->total += pts;
}

/* Every sheet, score, performance and fire against the scoring above,
 * and the standings' order. */
static void check_standings(const struct sim *s)
{
    bool streaks = arena_config(s->a)->streaks;
    struct ref *r = calloc(NP, sizeof *r);
    ck_assert_ptr_nonnull(r);
    for (int g = 0; g < arena_games(s->a); g++) {
        const struct arena_game *x = arena_game(s->a, g);
        if (x->counted) {
            ref_add(s, &r[x->white], g, 0);
            ref_add(s, &r[x->black], g, 1);
        }
    }
    for (int p = 0; p < s->np; p++) {
        struct arena_standing st;
        arena_standing(s->a, p, &st);
        int k = r[p].k;
        ck_assert_int_eq(st.games, k);
        ck_assert_int_eq(st.score, r[p].total);
        ck_assert_int_eq(st.performance, k ? r[p].perf : 0);
        ck_assert(st.fire == (streaks && k >= 2 && r[p].res[k - 1] == 'W' &&
                              r[p].res[k - 2] == 'W'));
    }
    free(r);
    int order[NP];
    int n = arena_standings(s->a, order);
    for (int i = 1; i < n; i++) {
        struct arena_standing a, b;
        arena_standing(s->a, order[i - 1], &a);
        arena_standing(s->a, order[i], &b);
        int ka = a.games ? a.performance : a.rating;
        int kb = b.games ? b.performance : b.rating;
        ck_assert(a.score > b.score ||
                  (a.score == b.score &&
                   (ka > kb || (ka == kb && order[i - 1] < order[i]))));
        ck_assert_int_eq(a.rank, i);
    }
}

static void end_game(struct sim *s, int g, int64_t now)
{
    const struct arena_game *x = arena_game(s->a, g);
    int plies = rnd(s, 100);
    bool no_start = rnd(s, 20) == 0;
    enum arena_result r = (enum arena_result)rnd(s, 3);
    if (no_start) {
        plies = rnd(s, 2); /* the side to move never did */
        r = plies == 0 ? ARENA_BLACK_WINS : ARENA_WHITE_WINS;
    }
    int ids[2] = {x->white, x->black};
    arena_game_end(s->a, g, r, plies, no_start, now);
    ck_assert(x->counted == (now < arena_config(s->a)->end_ms));
    for (int side = 0; side < 2; side++) {
        struct mplayer *m = &s->m[ids[side]];
        m->game = -1;
        m->waiting = now;
        if (x->counted) {
            m->strike = side == 0 ? (m->strike < 0 ? 1 : m->strike + 1)
                                  : (m->strike > 0 ? -1 : m->strike - 1);
            m->balance += side == 0 ? 1 : -1;
        }
        if (!s->duel_seen)
            ck_assert_int_le(abs(m->strike), ARENA_MAX_STRIKE);
        if (rnd(s, 3) == 0) {
            m->rating = 1200 + rnd(s, 1000);
            arena_rating(s->a, ids[side], m->rating);
        }
    }
    if (no_start)
        s->m[ids[plies]].withdrawn = true;
}

static void churn(struct sim *s, int64_t now)
{
    const struct arena_config *c = arena_config(s->a);
    if (s->np < s->cap && rnd(s, 30) == 0 && now < c->end_ms) {
        int rating = 1200 + rnd(s, 1000);
        ck_assert_int_eq(arena_join(s->a, rating, now), s->np);
        s->m[s->np++] = (struct mplayer){.connected = true,
                                         .listed = true,
                                         .game = -1,
                                         .last = -1,
                                         .rating = rating,
                                         .waiting = now};
    }
    for (int p = 0; p < s->np; p++) {
        struct mplayer *m = &s->m[p];
        /* a big event's players come back together (arena_sim_run) */
        bool big = s->cap > ARENA_WINDOW;
        int odds = m->connected ? (big ? 60 : 200) : 20;
        if ((m->connected || !big) && rnd(s, odds) == 0) {
            arena_presence(s->a, p, !m->connected, now);
            if (!m->connected)
                m->waiting = now;
            m->connected = !m->connected;
        }
        if (!m->withdrawn && rnd(s, 400) == 0 && now < c->end_ms) {
            arena_withdraw(s->a, p, now);
            m->withdrawn = true;
            m->listed = m->listed && now >= c->start_ms;
        } else if (m->withdrawn && rnd(s, 20) == 0 && now < c->end_ms) {
            int64_t wait = arena_rejoin_wait_ms(s->a, p, now);
            int rc = arena_rejoin(s->a, p, now);
            ck_assert_int_eq(rc, wait > 0 ? ARENA_EPAUSED : ARENA_OK);
            if (rc == ARENA_OK) {
                m->withdrawn = false;
                m->listed = true;
                m->waiting = now;
            }
        }
    }
}

void arena_sim_run(const struct arena_config *c, int cap,
                   unsigned long long seed, struct arena_sim_stats *st)
{
    struct sim s = {.rng = seed, .cap = cap};
    s.a = arena_new(c);
    ck_assert_ptr_nonnull(s.a);
    for (int p = 0; p < (cap > ARENA_WINDOW ? cap : cap / 2); p++) {
        int rating = 1200 + rnd(&s, 1000);
        ck_assert_int_eq(arena_join(s.a, rating, -S_MS), p);
        s.m[s.np++] = (struct mplayer){.connected = true,
                                       .listed = true,
                                       .game = -1,
                                       .last = -1,
                                       .rating = rating,
                                       .waiting = -S_MS};
    }
    /* a big event: everyone away until 20 s, then back at once, and so
     * every minute (more waiting than a window, after the first
     * seconds) */
    for (int p = 0; p < s.np && cap > ARENA_WINDOW; p++) {
        arena_presence(s.a, p, false, -S_MS);
        s.m[p].connected = false;
    }
    for (int64_t now = c->start_ms - 30 * S_MS; now < c->end_ms + 60 * S_MS;
         now += S_MS) {
        bool back = cap > ARENA_WINDOW && now % (60 * S_MS) == 20 * S_MS;
        for (int p = 0; p < s.np && back; p++)
            if (!s.m[p].connected) {
                arena_presence(s.a, p, true, now);
                s.m[p].connected = true;
                s.m[p].waiting = now;
            }
        churn(&s, now);
        for (int i = 0; i < s.nrun; i++)
            if (rnd(&s, cap > ARENA_WINDOW ? 8 : 40) == 0) {
                end_game(&s, s.run[i], now);
                s.run[i--] = s.run[--s.nrun];
            }
        struct arena_pairing *pr;
        int n = arena_pair(s.a, now, &pr);
        ck_assert_int_ge(n, 0);
        bool open = now >= c->start_ms && now < c->end_ms &&
                    !arena_pairings_closed(s.a, now);
        s.duel = active(&s) == 2;
        check_pairs(&s, now, pr, n, open);
        s.duel_seen |= n > 0 && s.duel;
        for (int i = 0; i < n; i++) {
            int x = pr[i].white, y = pr[i].black;
            int g = arena_game_start(s.a, x, y, now);
            ck_assert_int_ge(g, 0);
            s.m[x].game = s.m[y].game = g;
            s.run[s.nrun++] = g;
            s.m[x].last = y;
            s.m[y].last = x;
            for (int side = 0; side < 2; side++)
                if (rnd(&s, 4) == 0)
                    ck_assert_int_eq(arena_berserk(s.a, g, side, side),
                                     c->berserk && c->base_s > 0
                                         ? ARENA_OK
                                         : ARENA_EREFUSED);
        }
        st->pairs += n;
        st->brute += s.brute;
        st->wide += s.wide;
        s.brute = s.wide = 0;
        free(pr);
        if ((now / S_MS) % 60 == 0)
            check_standings(&s);
    }
    check_standings(&s);
    arena_free(s.a);
}
