/*
 * fairplay.c - rating farming (issue 25): how many rated games two
 * accounts have had counted in the last 24 hours, and the accounts
 * whose rated games look farmed, for moderators.
 *
 * Pairs. A rated game between A and B counts for ratings only while
 * fewer than cfg.rated_games_per_pair_per_day of their rated games
 * ended with a rating change in the last 24 h or are live and rated on
 * this node; past that a new game between them starts casual
 * ("rated":false in its game_start: hub_start_game, and the join of a
 * rated invitation). The hub keeps, per pair ("A/B", the smaller PID
 * first), the end times of its last N rating changes, in memory: read
 * once at start from the store (hub_fair_load: the games that changed
 * ratings in the last day, through the index games_rated_ended), then
 * kept by every rating change this hub stores (hub_fair_rated_end). The
 * store is never read for it while the loop serves. A pair whose newest
 * end is older than a day is forgotten by the sweep. In a cluster each
 * node counts the changes it stored since its start and those the
 * database had then; a pair's games hosted by other nodes since are not
 * seen (docs/operator.md).
 *
 * Suspects. For every account with a rated game counted, the last
 * LIMIT_SUSPECT_WINDOW of them (opponent, plies). Once the window is
 * full, an account whose games are mostly very short (fewer than
 * LIMIT_SUSPECT_SHORT_PLIES) or mostly against one opponent is flagged,
 * once per run: a line `level=warn event=fairplay_flag` with the reason
 * and the figures, and chess_fairplay_flags_total{reason}. Nothing is
 * done to the account: it is a signal for a moderator (issue 30). An
 * account idle for a day is forgotten.
 */
#include "hub/hub_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/tunables.h"

#define DAY_MS (24LL * 3600 * 1000)

/* A pair's last rating changes: ends[] a ring of the newest n end
 * times (wall ms), at most cap. */
struct pair {
    char key[2 * 33 + 1];
    int64_t newest;
    int n, head, cap;
    int64_t ends[];
};

/* An account's last rated games counted, a ring. */
struct suspect {
    char pid[33];
    int64_t last_ms;
    int n, head;
    bool flagged;
    struct {
        char opp[33];
        int plies;
    } g[LIMIT_SUSPECT_WINDOW];
};

static void pair_key(const char *a, const char *b, char *key, size_t len)
{
    if (strcmp(a, b) > 0) {
        const char *t = a;
        a = b;
        b = t;
    }
    snprintf(key, len, "%s/%s", a, b);
}

void hub_fair_init(struct hub *h)
{
    table_init(&h->pairs);
    table_init(&h->suspects);
}

void hub_fair_free(struct hub *h)
{
    for (size_t i = 0; i < h->pairs.cap; i++)
        free(h->pairs.slots[i].value);
    for (size_t i = 0; i < h->suspects.cap; i++)
        free(h->suspects.slots[i].value);
    table_clear(&h->pairs);
    table_clear(&h->suspects);
}

void hub_fair_sweep(struct hub *h, int64_t wall)
{
    for (size_t i = 0; i < h->pairs.cap; i++) {
        struct pair *p = h->pairs.slots[i].value;
        if (p && p->newest <= wall - DAY_MS)
            free(table_del(&h->pairs, p->key));
    }
    for (size_t i = 0; i < h->suspects.cap; i++) {
        struct suspect *s = h->suspects.slots[i].value;
        if (s && s->last_ms <= wall - DAY_MS)
            free(table_del(&h->suspects, s->pid));
    }
}

/* Counts a rating change of the pair a, b that ended at ms. */
static void pair_note(struct hub *h, const char *a, const char *b, int64_t ms)
{
    int cap = h->cfg.rated_games_per_pair_per_day;
    char key[sizeof((struct pair *)0)->key];
    struct pair *p;

    if (cap <= 0)
        return;
    pair_key(a, b, key, sizeof key);
    p = table_get(&h->pairs, key);
    if (!p) {
        p = calloc(1, sizeof *p + (size_t)cap * sizeof p->ends[0]);
        if (!p) {
            log_error("event=rated_pair_unrecorded pair=%s", key);
            return;
        }
        snprintf(p->key, sizeof p->key, "%s", key);
        p->cap = cap;
        if (table_put(&h->pairs, p->key, p) < 0) {
            free(p);
            log_error("event=rated_pair_unrecorded pair=%s", key);
            return;
        }
    }
    p->ends[p->head] = ms;
    p->head = (p->head + 1) % p->cap;
    if (p->n < p->cap)
        p->n++;
    if (ms > p->newest)
        p->newest = ms;
}

/* The live rated games between a and b on this node. */
static int live_rated(struct hub *h, const char *a, const char *b)
{
    struct player *p = table_get(&h->players, a);
    int n = 0;

    for (size_t i = 0; p && i < p->ngames; i++) {
        struct game *g = table_get(&h->games, p->games[i].gid);
        if (g && game_rated(g) && game_status(g) != GAME_ENDED &&
            game_color_of(g, b) >= 0)
            n++;
    }
    return n;
}

bool hub_fair_pair_full(struct hub *h, const char *a, const char *b,
                        int64_t wall)
{
    int cap = h->cfg.rated_games_per_pair_per_day, n;
    char key[sizeof((struct pair *)0)->key];
    struct pair *p;

    if (cap <= 0 || !a[0] || !b[0])
        return false;
    pair_key(a, b, key, sizeof key);
    p = table_get(&h->pairs, key);
    n = live_rated(h, a, b);
    for (int i = 0; p && i < p->n; i++)
        n += p->ends[i] > wall - DAY_MS;
    if (n < cap)
        return false;
    log_info("event=rated_pair_limit white=%s black=%s counted=%d limit=%d",
             a, b, n, cap);
    return true;
}

/* Flags s when its full window is mostly short games or one opponent. */
static void suspect_check(struct hub *h, struct suspect *s)
{
    int shorts = 0, top = 0;
    const char *top_opp = "";

    if (s->flagged || s->n < LIMIT_SUSPECT_WINDOW)
        return;
    for (int i = 0; i < s->n; i++) {
        int same = 0;
        shorts += s->g[i].plies < LIMIT_SUSPECT_SHORT_PLIES;
        for (int j = 0; j < s->n; j++)
            same += !strcmp(s->g[i].opp, s->g[j].opp);
        if (same > top) {
            top = same;
            top_opp = s->g[i].opp;
        }
    }
    if (shorts >= LIMIT_SUSPECT_MOSTLY) {
        h->metrics.rating_suspects[0]++;
        log_warn("event=fairplay_flag player=%s reason=short games=%d "
                 "short=%d short_plies=%d",
                 s->pid, s->n, shorts, LIMIT_SUSPECT_SHORT_PLIES);
        s->flagged = true;
    } else if (top >= LIMIT_SUSPECT_MOSTLY) {
        h->metrics.rating_suspects[1]++;
        log_warn("event=fairplay_flag player=%s reason=one_opponent "
                 "games=%d opponent=%s against=%d",
                 s->pid, s->n, top_opp, top);
        s->flagged = true;
    }
}

/* Adds a counted rated game (against opp, of plies) to pid's window. */
static void suspect_note(struct hub *h, const char *pid, const char *opp,
                         int plies, int64_t ms)
{
    struct suspect *s = table_get(&h->suspects, pid);

    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s || (snprintf(s->pid, sizeof s->pid, "%s", pid),
                   table_put(&h->suspects, s->pid, s) < 0)) {
            free(s);
            log_error("event=rating_suspect_unrecorded player=%s", pid);
            return;
        }
    }
    snprintf(s->g[s->head].opp, sizeof s->g[s->head].opp, "%s", opp);
    s->g[s->head].plies = plies;
    s->head = (s->head + 1) % LIMIT_SUSPECT_WINDOW;
    if (s->n < LIMIT_SUSPECT_WINDOW)
        s->n++;
    s->last_ms = ms;
    suspect_check(h, s);
}

void hub_fair_rated_end(struct hub *h, const char *white, const char *black,
                        int64_t ended_ms, int plies)
{
    pair_note(h, white, black, ended_ms);
    suspect_note(h, white, black, plies, ended_ms);
    suspect_note(h, black, white, plies, ended_ms);
}

int hub_fair_load(struct hub *h, int64_t wall)
{
    size_t max = LIMIT_FAIR_LOAD, n = 0;
    struct store_rated_end *v;

    if (h->cfg.rated_games_per_pair_per_day <= 0)
        return 0;
    if (!(v = malloc(max * sizeof *v)))
        return -1;
    if (store_rated_ends(h->store, wall - DAY_MS, v, max, &n) < 0) {
        free(v);
        return -1;
    }
    for (size_t i = n; i-- > 0;) /* (read newest first: oldest first in) */
        pair_note(h, v[i].white, v[i].black, v[i].ended_ms);
    free(v);
    log_info("event=rated_pairs_loaded games=%zu pairs=%zu", n, h->pairs.n);
    return 0;
}

int hub_load_rated_pairs(struct hub *h)
{
    return hub_fair_load(h, hub_wall_ms(h));
}
