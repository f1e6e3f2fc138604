/*
 * ratings.c - the hub's view of ratings: the rows of rated ends queued and
 * not committed yet, overlaid on the players' facts (facts.c: what the
 * hub read from the store, kept current by this node's own ends; see
 * hub.c's header, "Ratings"), and what welcome and the seats show of
 * them.
 */
#include "hub/hub_internal.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/reads.h"
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
    hub_facts_rated(h, r); /* (the newest there is: this node wrote it) */
}

/* Forgets the rows the store has committed (its reads have them). */
void hub_rated_sweep(struct hub *h)
{
    uint64_t committed = hub_reads_horizon(h);

    for (size_t i = 0; i < h->rated.cap; i++) {
        struct rated_row *e = h->rated.slots[i].value;
        if (e && e->seq <= committed)
            free(table_del(&h->rated, e->key));
    }
}

/* pid's current rating in category: a row queued and not committed yet,
 * else its facts' (facts.c), else a new player's (rating_start, no
 * games). 0, or -1 when its facts are not read (yet). */
int hub_rating_of(struct hub *h, const char *pid, const char *category,
                  struct store_rating *out)
{
    char key[48];
    struct rated_row *e;
    struct rating start = rating_start();
    struct player *p;
    enum rating_category c;

    rated_key(pid, category, key, sizeof key);
    e = table_get(&h->rated, key);
    if (e && e->seq > store_committed(h->store)) {
        *out = e->r;
        return 0;
    }
    p = table_get(&h->players, pid);
    if (!p || !p->facts || !rating_category_parse(category, &c))
        return -1;
    if (p->facts->has[c]) {
        *out = p->facts->ratings[c];
        return 0;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->pid, sizeof out->pid, "%s", pid);
    snprintf(out->category, sizeof out->category, "%s", category);
    out->rating = start.rating;
    out->rd = start.rd;
    out->vol = start.vol;
    return 0;
}

/* Shows seat color's player with g: an account or a guest, and in a
 * rated game its rating in g's category, as its record knows them (its
 * facts, or its connection's hello). A seat whose facts are not read
 * shows what is known, and its facts are read: its games show them
 * when they come (hub_facts_reshow). */
void hub_show_seat(struct hub *h, struct game *g, int color)
{
    struct store_rating r;
    const char *cat = rating_category_name(
        rating_category(game_clock_spec(g)));
    const char *pid = color == 0 || color == 1 ? game_seat_pid(g, color) : "";
    struct player *p;

    if (!pid[0])
        return;
    p = table_get(&h->players, pid);
    if (p && (p->facts || hub_player_present(p)))
        game_set_account(g, color, p->account);
    if (p && p->facts)
        game_set_bot(g, color, p->facts->bot);
    if (game_rated(g) && hub_rating_of(h, pid, cat, &r) == 0)
        game_set_rating(g, color, r.rating, r.rd);
    if (!p || !p->facts)
        hub_facts_background(h, pid);
}

void hub_facts_reshow(struct hub *h, struct player *p)
{
    for (size_t i = 0; i < p->ngames; i++) {
        struct game *g = table_get(&h->games, p->games[i].gid);
        int color = g ? game_color_of(g, p->pid) : -1;
        if (color >= 0 && game_status(g) != GAME_ENDED)
            hub_show_seat(h, g, color);
    }
}

/* Every category pid has played rated, in the categories' order, as
 * welcome (results false) or the API's profile (true) shows them, into
 * out[0..RATING_CATEGORIES): its facts, overlaid by the rows not
 * committed yet. How many (none when its facts are not read). */
size_t hub_ratings_shown(struct hub *h, const char *pid,
                         struct proto_rating out[RATING_CATEGORIES],
                         bool results)
{
    struct store_rating r;
    size_t n = 0;

    for (int c = 0; c < RATING_CATEGORIES; c++) {
        const char *cat = rating_category_name((enum rating_category)c);
        if (hub_rating_of(h, pid, cat, &r) < 0 || r.games == 0)
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
