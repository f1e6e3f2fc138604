/*
 * swiss_cluster.c - a Swiss event on a node of a cluster (swiss_tourney.h;
 * docs/cluster.md "Tournaments in a cluster"): what the Swiss director
 * adds to the shared lease, relay and takeover (tourney_cluster.c,
 * tourney_node.c): a takeover's games found again, the ends of games
 * hosted elsewhere scored, the events known at a node's start, and the
 * draw rule of a Swiss game on any node that hosts it (no draw offers
 * before move 30) and its link to its event (state's "event"): a game
 * brought here by a handover, an adoption or a
 * whole cluster's restart is a Swiss game's when this node's events,
 * the last relay of another node's event (its round's boards) or the
 * journal read at start (the last round of each open event) name it.
 * The tells of a TRF asked over HTTP on another node than the director
 * go to swiss_trf.c. Only the event-loop thread calls it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/swiss_tourney.h"
#include "hub/swiss_trf.h"
#include "lib/table.h"

#define EV(t) ((struct swiss_tourney *)(t))

static struct tourney_director *state(struct hub *h)
{
    struct swiss_director *sd = swiss_director_of(h);

    return sd ? sd->d : NULL;
}

/* e was taken over from a node that died or stopped (tourney_cluster.c):
 * its games here are its own again, the others' ends are read by the
 * tick. */
static void taken(struct hub *h, struct tourney_event *t)
{
    swiss_games_again(h, EV(t), false);
}

static void read_ended(struct hub *h, struct tourney_event *t, size_t k,
                       enum ending_result r, bool no_start, int plies,
                       int to_move, int64_t at)
{
    struct swiss_tourney *e = EV(t);

    (void)plies;
    if (k < e->ng && e->gids[k][0] && !e->t.b[k].result)
        swiss_report_end(h, e, k, r, no_start, to_move, at);
}

static char *page_of(const struct tourney_event *e, int64_t wall, int page)
{
    return swiss_render_standings((const struct swiss_tourney *)e, wall, page,
                                  NULL, NULL);
}

/* Game g, hosted here, is one of copy r's boards (its round's, as its
 * last relay names them): no draw offers before move 30, and linked
 * to r (a handover, an adoption or a restart brought it here, or will:
 * game_hosted). */
static void mark_game(struct game *g, const struct tourney_event *r)
{
    game_set_draw_from_ply(g, SWISS_DRAW_FROM_PLY);
    tourney_link_copy(g, "swiss", r);
}

/* A game hosted here from now on (restored, adopted, handed over): a
 * Swiss game's when one of this node's events, or the last relay of
 * another node's, names it (its round's boards). */
void swiss_game_hosted(struct hub *h, struct game *g, int64_t now)
{
    struct swiss_director *sd = swiss_director_of(h);
    struct tourney_director *d = state(h);
    char *gid;

    (void)now;
    if (!d || game_status(g) == GAME_ENDED)
        return;
    for (size_t i = 0; i < d->n; i++) {
        struct swiss_tourney *e = EV(d->ev[i]);
        for (size_t k = 0; k < e->ng; k++)
            if (!strcmp(e->gids[k], game_gid(g))) {
                game_set_draw_from_ply(g, SWISS_DRAW_FROM_PLY);
                tourney_link(g, "swiss", &e->head, false);
            }
    }
    for (size_t i = 0; i < d->nr; i++)
        if (tourney_copy_names(d->remote[i], g))
            mark_game(g, d->remote[i]);
    if ((gid = table_del(&sd->known, game_gid(g))) != NULL) {
        game_set_draw_from_ply(g, SWISS_DRAW_FROM_PLY);
        free(gid);
    }
}

/* Another node's relay (tourney_relayed): its games here are marked. */
void swiss_told_all(struct hub *h, const char *payload, size_t len,
                    int64_t now)
{
    struct tourney_director *d = state(h);
    struct tourney_event *r;
    const char *nl = memchr(payload, '\n', len);
    char id[PROTO_KEY_MAX + 1];

    (void)now;
    if (swiss_trf_told(h, payload, len)) /* (a TRF's ask or answer) */
        return;
    if (!d || !nl || nl - payload > PROTO_KEY_MAX)
        return;
    tourney_relayed(d, payload, len);
    memcpy(id, payload, (size_t)(nl - payload));
    id[nl - payload] = '\0';
    if ((r = tourney_remote(d, id)) != NULL && r->text)
        tourney_copy_games(h, r, mark_game);
}

/* The journal at a node of a cluster's start: each event, one after
 * another, is known unless it finished, and so are the games of its
 * last round (gids, n of them). */
struct known {
    struct hub *h;
    char id[PROTO_KEY_MAX + 1];
    bool open;
    char (*gids)[PROTO_KEY_MAX + 1];
    size_t n, cap;
};

static void known_flush(struct known *k)
{
    struct swiss_director *sd = swiss_director_of(k->h);
    char *gid;

    if (k->open && proto_key_valid(k->id)) {
        tourney_known(sd->d, k->id);
        for (size_t i = 0; i < k->n; i++)
            if (!table_get(&sd->known, k->gids[i]) &&
                (gid = strdup(k->gids[i])) != NULL &&
                table_put(&sd->known, gid, gid) < 0)
                free(gid);
    }
    k->open = false;
    k->n = 0;
}

static void known_row(void *ctx, const char *id, int64_t seq,
                      const char *line)
{
    struct known *k = ctx;
    char gid[PROTO_KEY_MAX + 1];
    int x;

    if (strcmp(id, k->id) != 0) {
        known_flush(k);
        snprintf(k->id, sizeof k->id, "%s", id);
        k->open = seq == 0;
    }
    if (!strncmp(line, "finish ", 7))
        k->open = false;
    else if (!strncmp(line, "pair ", 5))
        k->n = 0; /* (a new round) */
    else if (sscanf(line, "game %d %32s", &x, gid) == 2 &&
             tourney_grow((void **)&k->gids, &k->cap, k->n,
                          sizeof *k->gids) == 0)
        memcpy(k->gids[k->n++], gid, sizeof gid);
}

int hub_swiss_known(struct hub *h)
{
    struct known k = {.h = h};
    int rc;

    if (!state(h))
        return 0;
    rc = store_load_swiss(h->store, known_row, &k);
    known_flush(&k);
    free(k.gids);
    return rc < 0 ? -1 : 0;
}

void swiss_cluster_init(struct tourney_director *d)
{
    d->page = page_of;
    d->shown_pages = SWISS_STANDINGS_SHOWN / PROTO_STANDINGS_PAGE;
    d->tag = SWISS_TELL;
    d->kind = "swiss";
    d->taken = taken;
    d->ended = read_ended;
}
