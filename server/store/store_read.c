/*
 * store_read.c - the store core's reads (store_internal.h): each public
 * read of store.h checks its arguments and clears its outputs, then
 * calls the backend's, holding the read connection (store__read_enter);
 * and the lists the backends fill as they read (one game's moves, the
 * live games with their journals, a page of games). The reader thread's
 * (inside a job), or any thread's before the loop serves.
 */
#include "store/store_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/log.h"

/* ---- what the backends read into -------------------------------------- */

int store__read_failed(struct store *s, const char *why)
{
    char q[300];

    assert(s && !store__on_writer(s));
    atomic_fetch_add(&s->failures[STORE_FAIL_READ], 1);
    log_error("event=store_read_failed error=%s",
              log_quote(q, sizeof q, why));
    return -1;
}

/* A journal row that is not a move (rows.h). */
static bool is_event(const struct store_move *m)
{
    return !strcmp(m->uci, STORE_JOURNAL_UNDO) ||
           !strcmp(m->uci, STORE_JOURNAL_GIVE) ||
           !strcmp(m->uci, STORE_JOURNAL_BERSERK);
}

int store__moves_add(struct store__moves *l, const struct store_move *m)
{
    struct store_move *nv;

    /* in ply order (every query sorts them so), but for a live game's
     * takebacks and time given: the journal's rows in their order */
    bool events = l->n > 0 && (is_event(m) || is_event(&l->v[l->n - 1]));

    assert(l->n == 0 || events || m->ply >= l->v[l->n - 1].ply);
    if (l->n > 0 && !events && l->v[l->n - 1].ply == m->ply) {
        l->v[l->n - 1] = *m;
        return 0;
    }
    if (!(nv = grow_array(l->v, &l->cap, l->n, sizeof *nv, 64)))
        return -1;
    l->v = nv;
    l->v[l->n++] = *m;
    return 0;
}

struct store__live_game *store__live_add(struct store__live *ll)
{
    struct store__live_game *nv = grow_array(ll->v, &ll->cap, ll->n,
                                             sizeof *nv, 16);

    if (!nv)
        return NULL;
    ll->v = nv;
    memset(&ll->v[ll->n], 0, sizeof ll->v[ll->n]);
    return &ll->v[ll->n++];
}

static int cmp_live_gid(const void *a, const void *b)
{
    const struct store__live_game *x = *(
        const struct store__live_game *const *)a;
    const struct store__live_game *y = *(
        const struct store__live_game *const *)b;

    return strcmp(x->g.gid, y->g.gid);
}

int store__live_index(struct store__live *ll)
{
    free(ll->by_gid);
    ll->by_gid = malloc((ll->n ? ll->n : 1) * sizeof *ll->by_gid);
    if (!ll->by_gid)
        return -1;
    for (size_t i = 0; i < ll->n; i++)
        ll->by_gid[i] = &ll->v[i];
    qsort(ll->by_gid, ll->n, sizeof *ll->by_gid, cmp_live_gid);
    return 0;
}

/* The game gid of ll (after store__live_index), or NULL. */
static struct store__live_game *live_find(const struct store__live *ll,
                                          const char *gid)
{
    size_t lo = 0, hi = ll->n;

    assert(ll->n == 0 || ll->by_gid); /* store__live_index came first */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ll->by_gid[mid]->g.gid, gid);
        if (c == 0)
            return ll->by_gid[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int store__live_move(const struct store__live *ll,
                     struct store__live_game **cur, const char *gid,
                     const struct store_move *m)
{
    if (!*cur || strcmp((*cur)->g.gid, gid))
        *cur = live_find(ll, gid);
    return *cur ? store__moves_add(&(*cur)->l, m) : 0;
}

static void live_free(struct store__live *ll)
{
    for (size_t i = 0; i < ll->n; i++)
        free(ll->v[i].l.v);
    free(ll->v);
    free(ll->by_gid);
}

struct store_game *store__game_list_add(struct store_game_list *l,
                                        size_t *cap, int limit)
{
    /* the caller stops at limit: the list never grows past it */
    assert(limit >= 1 && l->n < (size_t)limit && l->n <= *cap);
    if (l->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        struct store_game *nv;
        if (ncap > (size_t)limit)
            ncap = (size_t)limit;
        nv = realloc(l->games, ncap * sizeof *nv);
        if (!nv)
            return NULL;
        l->games = nv;
        *cap = ncap;
    }
    return &l->games[l->n++];
}

/* ---- reads: the arguments checked, then the backend's ----------------- */

static int do_find_player_by_token(struct store *s, const uint8_t hash[32],
                                   struct store_player *out)
{
    assert(out);
    return hash ? s->be->find_player_by_token(s, hash, out) : 0;
}

static int do_find_player(struct store *s, const char *pid,
                          struct store_player *out)
{
    assert(out);
    return pid ? s->be->find_player(s, pid, out) : 0;
}

static int do_find_account(struct store *s, const char *username,
                           struct store_account *out)
{
    assert(out);
    return username ? s->be->find_account(s, username, out) : 0;
}

static int do_find_account_token(struct store *s, const uint8_t hash[32],
                                 int64_t since_ms, struct store_player *out,
                                 int64_t *last_used_ms)
{
    assert(out);
    return hash ? s->be->find_account_token(s, hash, since_ms, out,
                                            last_used_ms)
                : 0;
}

static int do_get_rating(struct store *s, const char *pid,
                         const char *category, struct store_rating *out)
{
    assert(out);
    return pid && category ? s->be->get_rating(s, pid, category, out) : 0;
}

static int do_player_ratings(struct store *s, const char *pid,
                             struct store_rating *out, size_t max, size_t *n)
{
    assert(n && (out || max == 0));
    *n = 0;
    if (!pid)
        return 0;
    if (s->be->player_ratings(s, pid, out, max, n) < 0) {
        *n = 0;
        return -1;
    }
    return 0;
}

static int do_is_account(struct store *s, const char *pid)
{
    return pid ? s->be->is_account(s, pid, NULL) : 0;
}

/* An account's text through get (get_settings, get_playban). */
static int do_get_text(struct store *s, const char *pid, char **out,
                       int (*get)(struct store *, const char *, char **))
{
    int rc;

    assert(out);
    *out = NULL;
    if (!pid)
        return 0;
    rc = get(s, pid, out);
    if (rc != 1) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

/* Reverses the k rows of `size` bytes at v in place (a backend reads the
 * newest first, as its LIMIT keeps them; callers get the oldest first). */
static void reverse_rows(void *v, size_t k, size_t size)
{
    unsigned char *p = v;

    for (size_t i = 0; i < k / 2; i++) {
        unsigned char *x = p + i * size, *y = p + (k - 1 - i) * size;
        for (size_t b = 0; b < size; b++) {
            unsigned char t = x[b];
            x[b] = y[b];
            y[b] = t;
        }
    }
}

static int do_rating_history(struct store *s, const char *pid,
                             const char *category, int limit,
                             struct store_rating_point **out, size_t *n)
{
    struct store_rating_point *v;
    size_t k = 0;

    assert(out && n);
    *out = NULL;
    *n = 0;
    if (!pid || !category || limit < 1)
        return -1;
    if (!(v = malloc((size_t)limit * sizeof *v)))
        return -1;
    if (s->be->rating_history(s, pid, category, limit, v, &k) < 0) {
        free(v);
        return -1;
    }
    reverse_rows(v, k, sizeof *v);
    if (!k) {
        free(v);
        v = NULL;
    }
    *out = v;
    *n = k;
    return 0;
}

static int do_chat_lines(struct store *s, const char *gid, const char *room,
                         int limit, struct store_chat_line **out, size_t *n)
{
    struct store_chat_line *v;
    size_t k = 0;

    assert(out && n);
    *out = NULL;
    *n = 0;
    if (!gid || !room || limit < 1)
        return -1;
    if (!(v = malloc((size_t)limit * sizeof *v)))
        return -1;
    if (s->be->chat_lines(s, gid, room, limit, v, &k) < 0) {
        free(v);
        return -1;
    }
    reverse_rows(v, k, sizeof *v);
    if (!k) {
        free(v);
        v = NULL;
    }
    *out = v;
    *n = k;
    return 0;
}

static int do_leaderboard(struct store *s, const char *category, int limit,
                          struct store_leader **out, size_t *n)
{
    struct store_leader *v;
    size_t k = 0;

    assert(out && n);
    *out = NULL;
    *n = 0;
    if (!category || limit < 1)
        return -1;
    if (!(v = malloc((size_t)limit * sizeof *v)))
        return -1;
    if (s->be->leaderboard(s, category, limit, v, &k) < 0) {
        free(v);
        return -1;
    }
    if (!k) {
        free(v);
        v = NULL;
    }
    *out = v;
    *n = k;
    return 0;
}

static int do_rated_ends(struct store *s, int64_t since_ms,
                         struct store_rated_end *out, size_t max, size_t *n)
{
    assert(n);
    *n = 0;
    if (!out || max < 1)
        return -1;
    return s->be->rated_ends(s, since_ms, out, max, n);
}

static int do_get_game(struct store *s, const char *gid, struct store_game *g,
                       struct store_move **moves, size_t *n_moves, char **pgn)
{
    struct store__moves l = {NULL, 0, 0};
    int found;

    assert(g);
    if (moves)
        *moves = NULL;
    if (n_moves)
        *n_moves = 0;
    if (pgn)
        *pgn = NULL;
    if (!gid)
        return 0;
    found = s->be->get_game(s, gid, g, moves ? &l : NULL, pgn);
    if (found != 1) {
        free(l.v);
        if (pgn) {
            free(*pgn);
            *pgn = NULL;
        }
        return found;
    }
    if (moves) {
        *moves = l.v;
        if (n_moves)
            *n_moves = l.n;
    }
    return 1;
}

int store_load_game(struct store *s, const char *gid, struct store_game *g,
                    struct store_move **moves, size_t *n_moves)
{
    int found;

    assert(moves && n_moves);
    found = store_get_game(s, gid, g, moves, n_moves, NULL);

    if (found == 1 && !strcmp(g->status, "ended")) {
        free(*moves);
        *moves = NULL;
        *n_moves = 0;
        return 0;
    }
    return found;
}

int store_load_live(struct store *s,
                    int (*cb)(void *arg, const struct store_game *g,
                              const struct store_move *moves, size_t n),
                    void *arg)
{
    struct store__live ll = {NULL, 0, 0, NULL};
    int ret;

    assert(cb);
    /* Everything is read first, in one snapshot, so that cb may call
     * other store functions. */
    store__read_enter(s);
    ret = s->be->load_live(s, &ll);
    store__read_leave(s);
    if (ret == 0) {
        ret = 0;
        for (size_t i = 0; i < ll.n; i++)
            if (cb(arg, &ll.v[i].g, ll.v[i].l.v, ll.v[i].l.n) != 0)
                break;
    }
    live_free(&ll);
    return ret == 0 ? 0 : -1;
}

static int do_list_player_games(struct store *s, const char *pid,
                                const char *before_gid, int limit,
                                struct store_game_list *out)
{
    assert(out);
    out->games = NULL;
    out->n = 0;
    out->has_more = 0;
    if (!pid || !*pid || limit < 1)
        return -1;
    if (s->be->list_player_games(s, pid, before_gid, limit, out) != 0) {
        store_game_list_clear(out);
        return -1;
    }
    return 0;
}

void store_game_list_clear(struct store_game_list *l)
{
    if (!l)
        return;
    free(l->games);
    l->games = NULL;
    l->n = 0;
    l->has_more = 0;
}

static int do_get_epoch(struct store *s, const char *gid, int64_t *epoch)
{
    assert(epoch);
    *epoch = 0;
    if (!gid || !*gid || !s->be->get_epoch)
        return 0;
    return s->be->get_epoch(s, gid, epoch);
}

int store_player_live_games(struct store *s, const char *pid,
                            char (*gids)[33], size_t max, size_t *n)
{
    int rc;

    assert(n && (gids || max == 0));
    *n = 0;
    if (!pid || !*pid)
        return -1;
    if (!max)
        return 0;
    store__read_enter(s);
    rc = s->be->player_live_games(s, pid, gids, max, n);
    store__read_leave(s);
    return rc;
}

int store_live_gids(struct store *s, const char *after, int64_t before_ms,
                    char (*gids)[33], size_t max, size_t *n)
{
    int rc;

    assert(n && (gids || max == 0));
    *n = 0;
    if (!max)
        return 0;
    store__read_enter(s);
    rc = s->be->live_gids(s, after ? after : "", before_ms, gids, max, n);
    store__read_leave(s);
    return rc;
}

/* ---- the public reads: the read connection taken around each -------- */

int store_find_player_by_token(struct store *s, const uint8_t hash[32],
                               struct store_player *out)
{
    int rc;

    store__read_enter(s);
    rc = do_find_player_by_token(s, hash, out);
    store__read_leave(s);
    return rc;
}

int store_find_player(struct store *s, const char *pid,
                      struct store_player *out)
{
    int rc;

    store__read_enter(s);
    rc = do_find_player(s, pid, out);
    store__read_leave(s);
    return rc;
}

int store_find_account(struct store *s, const char *username,
                       struct store_account *out)
{
    int rc;

    store__read_enter(s);
    rc = do_find_account(s, username, out);
    store__read_leave(s);
    return rc;
}

int store_find_account_token(struct store *s, const uint8_t hash[32],
                             int64_t since_ms, struct store_player *out,
                             int64_t *last_used_ms)
{
    int rc;

    store__read_enter(s);
    rc = do_find_account_token(s, hash, since_ms, out, last_used_ms);
    store__read_leave(s);
    return rc;
}

int store_get_rating(struct store *s, const char *pid, const char *category,
                     struct store_rating *out)
{
    int rc;

    store__read_enter(s);
    rc = do_get_rating(s, pid, category, out);
    store__read_leave(s);
    return rc;
}

int store_player_ratings(struct store *s, const char *pid,
                         struct store_rating *out, size_t max, size_t *n)
{
    int rc;

    store__read_enter(s);
    rc = do_player_ratings(s, pid, out, max, n);
    store__read_leave(s);
    return rc;
}

int store_is_account(struct store *s, const char *pid)
{
    int rc;

    store__read_enter(s);
    rc = do_is_account(s, pid);
    store__read_leave(s);
    return rc > 1 ? 1 : rc;
}

int store_account_role(struct store *s, const char *pid,
                       struct store_account_marks *marks)
{
    int rc;

    if (marks)
        memset(marks, 0, sizeof *marks);
    store__read_enter(s);
    rc = pid ? s->be->is_account(s, pid, marks) : 0;
    store__read_leave(s);
    return rc;
}

int store_mod_history(struct store *s, const char *pid,
                      struct store_chat_line *lines, size_t max_lines,
                      size_t *n_lines, struct store_mod_action *acts,
                      size_t max_acts, size_t *n_acts)
{
    int rc;

    *n_lines = *n_acts = 0;
    store__read_enter(s);
    rc = s->be->mod_history(s, pid, lines, max_lines, n_lines, acts, max_acts,
                            n_acts);
    store__read_leave(s);
    return rc;
}

int store_maintenance(struct store *s, struct store_maintenance *out)
{
    int rc;

    memset(out, 0, sizeof *out);
    store__read_enter(s);
    rc = s->be->maintenance(s, out);
    store__read_leave(s);
    return rc;
}

int store_get_settings(struct store *s, const char *pid, char **out)
{
    int rc;

    store__read_enter(s);
    rc = do_get_text(s, pid, out, s->be->get_settings);
    store__read_leave(s);
    return rc;
}

int store_get_playban(struct store *s, const char *pid, char **out)
{
    int rc;

    store__read_enter(s);
    rc = do_get_text(s, pid, out, s->be->get_playban);
    store__read_leave(s);
    return rc;
}

int store_get_analysis(struct store *s, const char *gid,
                       struct store_analysis *out, char **result)
{
    int rc = 0;

    assert(out && result);
    memset(out, 0, sizeof *out);
    *result = NULL;
    store__read_enter(s);
    if (gid)
        rc = s->be->get_analysis(s, gid, out, result);
    store__read_leave(s);
    if (rc != 1) {
        free(*result);
        *result = NULL;
    }
    return rc;
}

int store_analyses_by(struct store *s, const char *pid, int64_t since_ms,
                      size_t max, struct store_analysis **out, size_t *n)
{
    int rc = -1;

    assert(out && n);
    *out = NULL;
    *n = 0;
    store__read_enter(s);
    if (pid && max)
        rc = s->be->analyses_by(s, pid, since_ms, max, out, n);
    else if (pid)
        rc = 0;
    store__read_leave(s);
    if (rc < 0 || !*n) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc < 0 ? -1 : 0;
}

int store_queued_analyses(struct store *s, struct store_analysis *out,
                          size_t max, size_t *n)
{
    int rc;

    assert(out && n);
    *n = 0;
    store__read_enter(s);
    rc = s->be->queued_analyses(s, out, max, n);
    store__read_leave(s);
    return rc;
}

int store_rating_history(struct store *s, const char *pid,
                         const char *category, int limit,
                         struct store_rating_point **out, size_t *n)
{
    int rc;

    store__read_enter(s);
    rc = do_rating_history(s, pid, category, limit, out, n);
    store__read_leave(s);
    return rc;
}

int store_chat_lines(struct store *s, const char *gid, const char *room,
                     int limit, struct store_chat_line **out, size_t *n)
{
    int rc;

    store__read_enter(s);
    rc = do_chat_lines(s, gid, room, limit, out, n);
    store__read_leave(s);
    return rc;
}

int store_leaderboard(struct store *s, const char *category, int limit,
                      struct store_leader **out, size_t *n)
{
    int rc;

    store__read_enter(s);
    rc = do_leaderboard(s, category, limit, out, n);
    store__read_leave(s);
    return rc;
}

int store_rated_ends(struct store *s, int64_t since_ms,
                     struct store_rated_end *out, size_t max, size_t *n)
{
    int rc;

    store__read_enter(s);
    rc = do_rated_ends(s, since_ms, out, max, n);
    store__read_leave(s);
    return rc;
}

static int load_calls(struct store *s, bool swiss, store_arena_fn fn,
                      void *ctx)
{
    int rc;

    store__read_enter(s);
    rc = s->be->load_arena(s, swiss, fn, ctx);
    store__read_leave(s);
    return rc;
}

int store_load_arena(struct store *s, store_arena_fn fn, void *ctx)
{
    return load_calls(s, false, fn, ctx);
}

int store_load_swiss(struct store *s, store_arena_fn fn, void *ctx)
{
    return load_calls(s, true, fn, ctx);
}

int store_get_game(struct store *s, const char *gid, struct store_game *g,
                   struct store_move **moves, size_t *n_moves, char **pgn)
{
    int rc;

    store__read_enter(s);
    rc = do_get_game(s, gid, g, moves, n_moves, pgn);
    store__read_leave(s);
    return rc;
}

int store_list_player_games(struct store *s, const char *pid,
                            const char *before_gid, int limit,
                            struct store_game_list *out)
{
    int rc;

    store__read_enter(s);
    rc = do_list_player_games(s, pid, before_gid, limit, out);
    store__read_leave(s);
    return rc;
}

int store_get_epoch(struct store *s, const char *gid, int64_t *epoch)
{
    int rc;

    store__read_enter(s);
    rc = do_get_epoch(s, gid, epoch);
    store__read_leave(s);
    return rc;
}

/* ---- API tokens ---------------------------------------------------------- */

static int api_token_one(struct store *s, const uint8_t *hash, const char *id,
                         struct store_api_token *out)
{
    int rc;

    assert(out);
    memset(out, 0, sizeof *out);
    if (!hash && (!id || !*id))
        return 0;
    store__read_enter(s);
    rc = s->be->api_token(s, hash, id, out);
    store__read_leave(s);
    if (rc != 1)
        memset(out, 0, sizeof *out);
    return rc;
}

int store_find_api_token(struct store *s, const uint8_t hash[32],
                         struct store_api_token *out)
{
    return api_token_one(s, hash, NULL, out);
}

int store_get_api_token(struct store *s, const char *id,
                        struct store_api_token *out)
{
    return api_token_one(s, NULL, id, out);
}

int store_list_api_tokens(struct store *s, const char *pid,
                          struct store_api_token *out, size_t max, size_t *n)
{
    int rc;

    assert(n);
    *n = 0;
    if (!pid || !*pid || !max)
        return pid && out ? 0 : -1;
    store__read_enter(s);
    rc = s->be->api_tokens(s, pid, out, max, n);
    store__read_leave(s);
    if (rc < 0)
        *n = 0;
    return rc < 0 ? -1 : 0;
}

/* ---- blocks and reports -------------------------------------------------- */

int store_list_blocks(struct store *s, const char *pid,
                      struct store_block *out, size_t max, size_t *n)
{
    int rc;

    assert(n);
    *n = 0;
    if (!pid || !*pid || !max)
        return pid && out ? 0 : -1;
    store__read_enter(s);
    rc = s->be->blocks(s, pid, out, max, n);
    store__read_leave(s);
    if (rc < 0)
        *n = 0;
    return rc < 0 ? -1 : 0;
}

int store_open_reports(struct store *s, struct store_report *out, size_t max,
                       size_t *n)
{
    int rc;

    assert(n);
    *n = 0;
    if (!out || !max)
        return out ? 0 : -1;
    store__read_enter(s);
    rc = s->be->open_reports(s, out, max, n);
    store__read_leave(s);
    if (rc < 0)
        *n = 0;
    return rc < 0 ? -1 : 0;
}

/* A list of accounts (moderators, bots) by the backend's op into out. */
static int account_list(struct store *s,
                        int (*op)(struct store *s, struct store_block *v,
                                  size_t max, size_t *n),
                        struct store_block *out, size_t max, size_t *n)
{
    int rc;

    assert(n);
    *n = 0;
    if (!out || !max)
        return out ? 0 : -1;
    store__read_enter(s);
    rc = op(s, out, max, n);
    store__read_leave(s);
    if (rc < 0)
        *n = 0;
    return rc < 0 ? -1 : 0;
}

int store_list_moderators(struct store *s, struct store_block *out,
                          size_t max, size_t *n)
{
    return account_list(s, s->be->moderators, out, max, n);
}

int store_list_bots(struct store *s, struct store_block *out, size_t max,
                    size_t *n)
{
    return account_list(s, s->be->bots, out, max, n);
}

int store_reports_by(struct store *s, const char *reporter,
                     const char *suspect, int64_t since_ms,
                     struct store_reported *out, size_t max, size_t *n)
{
    int rc;

    assert(n);
    *n = 0;
    if (!reporter || !*reporter || !suspect || (max && !out))
        return -1;
    if (!max)
        return 0;
    store__read_enter(s);
    rc = s->be->reports_by(s, reporter, suspect, since_ms, out, max, n);
    store__read_leave(s);
    if (rc < 0)
        *n = 0;
    return rc < 0 ? -1 : 0;
}

int store_report_queue(struct store *s, struct store_report_entry *out,
                       size_t max, size_t *n)
{
    int rc;

    assert(n);
    *n = 0;
    if (!max)
        return out ? 0 : -1;
    store__read_enter(s);
    rc = s->be->report_queue(s, out, max, n);
    store__read_leave(s);
    if (rc < 0)
        *n = 0;
    return rc < 0 ? -1 : 0;
}
