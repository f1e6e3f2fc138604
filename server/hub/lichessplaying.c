/*
 * lichessplaying.c - lichess's GET /api/account/playing (see
 * lichessapi_internal.h, PROTOCOL.md section 9): the account's started
 * games, the most urgent first. On one node from the games in memory;
 * in a cluster from the store's live games of every node, each rendered
 * from a stand-in rebuilt from its row and journal unless this node
 * hosts it (docs/cluster.md).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apitoken.h"
#include "game/game.h"
#include "hub/apiform.h"
#include "hub/apitokens.h"
#include "hub/botapi_json.h"
#include "hub/hub_internal.h"
#include "hub/lichessapi_internal.h"
#include "hub/reads.h"
#include "store/store.h"

/* The most nowPlaying games (lichess: nb, 1-50, default 9). */
#define LICHESS_PLAYING_MAX HUB_LIVE_GAMES_MAX
#define LICHESS_PLAYING_DEFAULT 9

/* ---- GET /api/account/playing ------------------------------------------- */

/* One game of nowPlaying, from seat color's side. */
static json_t *playing_one(struct game *g, int color, int64_t now)
{
    const struct clock_spec *k = game_clock_spec(g);
    char fen[FEN_MAX], opp[PROTO_NAME_MAX + 1];
    int ply = game_ply(g), o = 1 - color;
    struct proto_player op = game_seat_player(g, o), me;
    json_t *j;

    game_fen(g, fen);
    me = game_seat_player(g, color);
    apitoken_user_id(op.name ? op.name : "", opp, sizeof opp);
    j = json_pack(
        "{s:s,s:s,s:s,s:s,s:b,s:b,s:s,s:{s:s,s:s},s:s,s:s,s:b,s:{s:s,s:s},"
        "s:I,s:s,s:{s:i,s:s}}",
        "gameId", game_gid(g), "fullId", game_gid(g), "color",
        color ? "black" : "white", "fen", fen, "hasMoved", ply > color,
        "isMyTurn", game_side_to_move(g) == color, "lastMove",
        ply ? game_move_uci(g, ply - 1) : "", "variant", "key", "standard",
        "name", "Standard", "speed", botapi_speed(k), "perf", botapi_speed(k),
        "rated", game_rated(g), "opponent", "id", opp, "username",
        op.name ? op.name : "", "secondsLeft",
        (json_int_t)(game_time_left(g, color, now) / 1000), "source",
        "friend", "status", "id", 20, "name", "started");
    if (j && op.has_rating)
        json_object_set_new(json_object_get(j, "opponent"), "rating",
                            json_integer(op.rating));
    if (j && me.has_rating)
        json_object_set_new(j, "rating", json_integer(me.rating));
    return j;
}

/* One of nowPlaying before it is written: its game and seat, and what
 * its order is by (lichess: the most urgent first; here my_games's:
 * my turn first, then the least time left). */
struct playing {
    struct game *g;
    int color;
    bool turn;
    int64_t left;
};

static int by_urgency(const void *pa, const void *pb)
{
    const struct playing *a = pa, *b = pb;

    if (a->turn != b->turn)
        return a->turn ? -1 : 1;
    return (a->left > b->left) - (a->left < b->left);
}

/* nowPlaying of pid from its games gs[0..n) (those it plays and that
 * started), the most urgent first, at most nb. */
static void playing_render(struct hub *h, const char *pid,
                           struct game *const *gs, size_t n, int nb,
                           uint64_t later)
{
    struct playing *v = calloc(n ? n : 1, sizeof *v);
    size_t k = 0;
    int mine = 0;
    json_t *list = json_array();
    int64_t now = hub_now_ms(h);

    for (size_t i = 0; v && i < n; i++) {
        struct game *g = gs[i];
        int c = g ? game_color_of(g, pid) : -1;
        if (!g || c < 0 || game_status(g) != GAME_STARTED)
            continue; /* an invitation */
        v[k] = (struct playing){g, c, game_side_to_move(g) == c,
                                game_turn_left(g, now)};
        mine += v[k++].turn;
    }
    if (v)
        qsort(v, k, sizeof *v, by_urgency);
    for (size_t i = 0; v && list && i < k && i < (size_t)nb; i++)
        json_array_append_new(list, playing_one(v[i].g, v[i].color, now));
    if (!v || !list) {
        free(v);
        json_decref(list);
        lichessapi_answer_error(h, later, 500, "out_of_memory");
        return;
    }
    free(v);
    lichessapi_answer_json(
        h, later,
        lichessapi_dump(
            json_pack("{s:o,s:i}", "nowPlaying", list, "nbMyTurn", mine)));
}

/* In a cluster: the account's live games from the store (every node's,
 * at most HUB_LIVE_GAMES_MAX), each a stand-in rebuilt from its row and
 * journal unless it is in this node's memory. */
struct playing_read {
    struct hub_read r;
    uint64_t later;
    int nb;
    struct hub_live_games lg;
};

static int playing_run(struct store *st, struct hub_read *r)
{
    return hub_live_games_load(st, &((struct playing_read *)r)->lg);
}

static void playing_clear(struct hub_read *r)
{
    hub_live_games_clear(&((struct playing_read *)r)->lg);
}

static void playing_answer(struct hub_read *r, int rc)
{
    struct playing_read *q = (struct playing_read *)r;
    struct game *gs[HUB_LIVE_GAMES_MAX];
    bool stand_in[HUB_LIVE_GAMES_MAX];

    if (rc < 0) {
        lichessapi_answer_error(r->h, q->later, 500, "database_error");
        return;
    }
    hub_live_games_view(r->h, &q->lg, gs, stand_in);
    playing_render(r->h, q->lg.pid, gs, q->lg.n, q->nb, q->later);
    for (size_t i = 0; i < q->lg.n; i++)
        if (stand_in[i])
            game_free(gs[i]);
}

static void playing_then(struct hub *h, const struct apitoken_who *who,
                         int rc, void *arg, uint64_t later)
{
    struct player *p = table_get(&h->players, who->pid);
    size_t n = p ? p->ngames : 0;
    struct game **gs;

    (void)rc;
    if (hub_shared_store(h)) { /* (a cluster: every node's games) */
        struct playing_read *q = calloc(1, sizeof *q);
        if (!q) {
            lichessapi_answer_error(h, later, 500, "out_of_memory");
            return;
        }
        q->later = later;
        q->nb = *(int *)arg;
        snprintf(q->lg.pid, sizeof q->lg.pid, "%s", who->pid);
        q->r.run = playing_run;
        q->r.answer = playing_answer;
        q->r.clear = playing_clear;
        if (hub_read_submit(h, &q->r, NULL, NULL) < 0)
            lichessapi_answer_error(h, later, 503, "busy");
        return;
    }
    gs = calloc(n ? n : 1, sizeof *gs);
    for (size_t i = 0; gs && i < n; i++)
        gs[i] = hub_game(h, p->games[i].gid);
    if (!gs) {
        lichessapi_answer_error(h, later, 500, "out_of_memory");
        return;
    }
    playing_render(h, who->pid, gs, n, *(int *)arg, later);
    free(gs);
}

void lichessapi_playing(struct hub *h, const struct http_request *q,
                        int64_t now, uint64_t later, struct http_reply *r)
{
    const char *nb = NULL;
    long v = LICHESS_PLAYING_DEFAULT;
    int *arg;

    for (size_t i = 0; i < q->nargs; i++)
        if (!strncmp(q->args[i], "nb=", 3))
            nb = q->args[i] + 3;
    if (nb && !api_form_int(nb, 1, LICHESS_PLAYING_MAX, &v)) {
        lichessapi_error(r, 400, "nb: 1-50");
        return;
    }
    if (!(arg = malloc(sizeof *arg))) {
        lichessapi_error(r, 500, "out_of_memory");
        return;
    }
    *arg = (int)v;
    apitoken_auth(h, q, now, later, 0, NULL, playing_then, arg, r);
}
