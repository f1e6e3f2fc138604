/*
 * ratings.c - the hub's view of ratings: the rows of rated ends queued and
 * not committed yet, overlaid on the store's (see hub.c's header,
 * "Ratings"), and what welcome and the API show of them.
 */
#include "hub/hub_internal.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

/* A rating row queued with a rated game's end, until it commits. */
struct rated_row {
    char key[48];
    uint64_t seq;
    struct store_rating r;
};

/* ---- ratings ----------------------------------------------------------- */

static void rated_key(const char *pid, const char *category, char *key,
                      size_t len)
{
    snprintf(key, len, "%s/%s", pid, category);
}

/* Remembers r, queued at seq, until the store has committed it. */
void hub_rated_put(struct hub *h, const struct store_rating *r, uint64_t seq)
{
    char key[48];
    struct rated_row *e;

    rated_key(r->pid, r->category, key, sizeof key);
    e = table_get(&h->rated, key);
    if (!e) {
        e = calloc(1, sizeof *e);
        if (!e) {
            log_error("event=rating_unrecorded player=%s", r->pid);
            return;
        }
        snprintf(e->key, sizeof e->key, "%s", key);
        if (table_put(&h->rated, e->key, e) < 0) {
            free(e);
            log_error("event=rating_unrecorded player=%s", r->pid);
            return;
        }
    }
    e->seq = seq;
    e->r = *r;
}

/* Forgets the rows the store has committed (its reads have them). */
void hub_rated_sweep(struct hub *h)
{
    uint64_t committed = store_committed(h->store);

    for (size_t i = 0; i < h->rated.cap; i++) {
        struct rated_row *e = h->rated.slots[i].value;
        if (e && e->seq <= committed)
            free(table_del(&h->rated, e->key));
    }
}

/* pid's current rating in category: a row queued and not committed yet,
 * else the store's, else a new player's (rating_start, no games). 0, or
 * -1 when the store cannot be read. */
int hub_rating_of(struct hub *h, const char *pid, const char *category,
                  struct store_rating *out)
{
    char key[48];
    struct rated_row *e;
    struct rating start = rating_start();
    int rc;

    rated_key(pid, category, key, sizeof key);
    e = table_get(&h->rated, key);
    if (e && e->seq > store_committed(h->store)) {
        *out = e->r;
        return 0;
    }
    rc = store_get_rating(h->store, pid, category, out);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        memset(out, 0, sizeof *out);
        snprintf(out->pid, sizeof out->pid, "%s", pid);
        snprintf(out->category, sizeof out->category, "%s", category);
        out->rating = start.rating;
        out->rd = start.rd;
        out->vol = start.vol;
    }
    return 0;
}

/* Shows seat color's player with g: an account or a guest (its record
 * here, else the store's), and in a rated game its rating in g's
 * category. */
void hub_show_seat(struct hub *h, struct game *g, int color)
{
    struct store_rating r;
    const char *cat = rating_category_name(
        rating_category(game_clock_spec(g)));
    const char *pid = color == 0 || color == 1 ? game_seat_pid(g, color) : "";
    struct player *p;

    if (!pid[0])
        return;
    /* (a connected player's record knows; one restored from a seat may
     * not yet) */
    p = table_get(&h->players, pid);
    game_set_account(g, color,
                     p && (p->account || hub_player_present(p))
                         ? p->account
                         : store_is_account(h->store, pid) == 1);
    if (!game_rated(g))
        return;
    if (hub_rating_of(h, game_seat_pid(g, color), cat, &r) == 0)
        game_set_rating(g, color, r.rating, r.rd);
}

/* Every category pid has played rated, in the categories' order, as
 * welcome (results false) or the API's profile (true) shows them, into
 * out[0..RATING_CATEGORIES): one read of the store, overlaid by the rows
 * not committed yet. How many. */
size_t hub_ratings_shown(struct hub *h, const char *pid,
                         struct proto_rating out[RATING_CATEGORIES],
                         bool results)
{
    struct store_rating rows[RATING_CATEGORIES], r;
    size_t nrows = 0, n = 0;

    if (store_player_ratings(h->store, pid, rows, RATING_CATEGORIES, &nrows) <
        0)
        nrows = 0;
    for (int c = 0; c < RATING_CATEGORIES; c++) {
        const char *cat = rating_category_name((enum rating_category)c);
        char key[48];
        struct rated_row *e;
        bool found = false;
        rated_key(pid, cat, key, sizeof key);
        e = table_get(&h->rated, key);
        if (e && e->seq > store_committed(h->store)) {
            r = e->r;
            found = true;
        }
        for (size_t i = 0; !found && i < nrows; i++)
            if (!strcmp(rows[i].category, cat)) {
                r = rows[i];
                found = true;
            }
        if (!found || r.games == 0)
            continue;
        out[n++] = (struct proto_rating){
            .category = cat,
            .rating = rating_round(r.rating),
            .rd = rating_round(r.rd),
            .games = r.games,
            .provisional = r.rd > RATING_RD_PROVISIONAL,
            .results = results,
            .wins = r.wins,
            .draws = r.draws,
            .losses = r.losses,
        };
    }
    return n;
}

int hub_env_ratings(void *ctx, const struct game *g, const char *category,
                    struct store_rating out[2])
{
    struct hub *h = ctx;

    for (int c = 0; c < 2; c++)
        if (hub_rating_of(h, game_seat_pid(g, c), category, &out[c]) < 0) {
            log_error("event=rating_unreadable game=%s", game_gid(g));
            return -1;
        }
    return 0;
}
