/*
 * tourney.c - what the tournament directors share (see tourney.h).
 */
#include "hub/tourney.h"

#include <stdlib.h>
#include <string.h>

#include "lib/msgbuf.h"

int tourney_grow(void **v, size_t *cap, size_t n, size_t size)
{
    void *nv;
    size_t ncap;

    if (n < *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 8;
    if (!(nv = realloc(*v, ncap * size)))
        return -1;
    *v = nv;
    *cap = ncap;
    return 0;
}

char *tourney_finish(json_t *o, const struct proto_id *id)
{
    char *text;

    if (!o)
        return NULL;
    if (id && id->kind == 1)
        json_object_set_new(o, "id", json_stringn(id->str, id->len));
    else if (id && id->kind == 2)
        json_object_set_new(o, "id", json_integer(id->num));
    text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return text;
}

void tourney_send(struct session *s, json_t *o, const struct proto_id *id,
                  uint64_t seq)
{
    char *text = tourney_finish(o, id);

    if (text)
        hub_send_text(s, text, seq);
}

void tourney_push(struct hub *h, char *text, struct session *const *watchers,
                  size_t n, uint64_t seq)
{
    struct msgbuf *b;

    if (!text || !(b = msgbuf_take(text)))
        return;
    for (size_t i = 0; i < n; i++)
        hub_env_send(h, watchers[i], b, seq);
    msgbuf_unref(b);
}

bool tourney_may_create(struct session *s, const struct proto_msg *m)
{
    struct hub *h = s->hub;

    if (h->router.ops != &hub_local_router || h->cfg.arena_create == 0) {
        hub_send_error(s, PROTO_NO_TOURNAMENTS,
                       h->router.ops != &hub_local_router
                           ? "a node of a cluster runs no tournaments"
                           : "this server runs no tournaments",
                       &m->id);
        return false;
    }
    if (h->cfg.arena_create == 1 && !s->player->account) {
        hub_send_error(s, PROTO_NEEDS_ACCOUNT,
                       "only an account may create a tournament", &m->id);
        return false;
    }
    if (m->clock.per_move) {
        hub_send_error(s, PROTO_BAD_CLOCK,
                       "a tournament plays a fischer clock", &m->id);
        return false;
    }
    return true;
}

int tourney_rating(const struct player *p, int base_s, int inc_s)
{
    struct clock_spec clock = {.initial_s = base_s, .increment_s = inc_s};
    enum rating_category cat = rating_category(&clock);

    if (p->facts && p->facts->has[cat])
        return (int)(p->facts->ratings[cat].rating + 0.5);
    return 1500;
}

struct game *tourney_game(struct hub *h, int base_s, int inc_s,
                          const struct game_seat_init seats[2])
{
    struct clock_spec clock = {.initial_s = base_s, .increment_s = inc_s};
    struct board start;

    if (board_from_fen(&start, FEN_START) != FEN_OK)
        return NULL;
    return hub_start_game(h, &clock, &start, seats, NULL, false,
                          hub_now_ms(h));
}

void tourney_announce(struct hub *h, struct game *g, json_t *o, uint64_t seq)
{
    struct msgbuf *b;

    game_announce_start(g, hub_now_ms(h));
    b = msgbuf_take(tourney_finish(o, NULL));
    for (int side = 0; b && side < 2; side++) {
        struct player *p = table_get(&h->players, game_seat_pid(g, side));
        if (p)
            hub_env_send(h, &p->fan, b, seq);
    }
    msgbuf_unref(b);
}

int tourney_stored_end(struct hub *h, const char *gid, enum ending_result *r,
                       bool *no_start, int *plies, int *to_move,
                       int64_t *ended_ms)
{
    struct store_game row;
    struct store_move *moves = NULL;
    size_t n = 0;
    int ended = 0;

    if (store_get_game(h->store, gid, &row, &moves, &n, NULL) == 1 &&
        !strcmp(row.status, "ended") &&
        ending_result_find(row.result, r) == 0) {
        *no_start = !strcmp(row.reason, "no_start");
        *plies = (int)n;
        *to_move = (int)(n % 2);
        *ended_ms = row.ended_ms;
        ended = 1;
    }
    free(moves);
    return ended;
}
