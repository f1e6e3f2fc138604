/*
 * arena_berserk.c - an arena player's berserk (PROTOCOL.md "Arena
 * tournaments"; arena_event.h): the event's checks, then the game's
 * (game_berserk: its clock halved, journaled), then the event's call
 * (the extra point a win then earns); and an arena game's link to its
 * event (state's "event") on a node of a cluster that receives the game
 * (handed over, adopted) or hosts it while another node directs the
 * event. Only the event-loop thread calls it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arena/arena.h"
#include "hub/arena_director.h"
#include "hub/arena_event.h"
#include "lib/log.h"
#include "lib/table.h"

/* The event of which g is a game not over (its index in *k), or NULL:
 * a lookup in each event not finished. */
struct event *arena_event_of_game(struct hub *h, const struct game *g,
                                  size_t *k)
{
    struct tourney_director *d = hub_arena_director(h);

    for (size_t i = 0; i < d->n; i++) {
        struct event *e = (struct event *)d->ev[i];
        const struct running *r = e->head.finished
                                      ? NULL
                                      : table_get(&e->running, game_gid(g));
        if (r) {
            *k = r->k;
            return e;
        }
    }
    return NULL;
}

bool arena_berserk_allowed(const struct arena_config *c)
{
    return c->berserk && arena_berserkable(c->base_s, c->inc_s);
}

/* Journals side's berserk in e's game k, plies played. */
void arena_note_berserk(struct hub *h, struct event *e, size_t k, int side,
                        int plies)
{
    char line[96];

    snprintf(line, sizeof line, "berserk %zu %d %d %" PRId64, k, side, plies,
             hub_wall_ms(h));
    if (arena_call(h, e, line, hub_wall_ms(h)) == 0)
        log_info("event=arena_berserk arena=%s game=%s side=%d", e->head.id,
                 e->gids[k], side);
}

/* berserk: the checks of the event (an arena game, allowed, a base
 * time), then the game's (a player, before its first move, once), then
 * the game's journal row and `berserk` to its players and spectators,
 * then the event's call (the extra point). */
static void run_berserk(struct session *s, struct game *g,
                        const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;
    size_t k = 0;
    struct event *e = arena_event_of_game(h, g, &k);
    const struct arena_config *c = e ? arena_config(e->a) : NULL;
    int side = game_color_of(g, s->player->pid);
    struct proto_error err = {PROTO_OK, ""};
    int64_t base_ms, inc_ms;
    const char *why = !e            ? "not an arena game"
                      : !c->berserk ? "this tournament "
                                      "forbids berserk"
                      : !arena_berserkable(c->base_s, c->inc_s)
                          ? "no berserk with a base time of 0"
                          : NULL;

    if (side < 0 || game_status(g) == GAME_ENDED) { /* (steps 8, 9) */
        hub_send_error(s, side < 0 ? PROTO_NOT_A_PLAYER : PROTO_GAME_OVER,
                       side < 0 ? "you hold no seat in this game"
                                : "the game is over",
                       &m->id);
        return;
    }
    if (why) {
        hub_send_error(s, PROTO_BERSERK_REFUSED, why, &m->id);
        return;
    }
    arena_berserk_clock(c->base_s, c->inc_s, &base_ms, &inc_ms);
    if (game_berserk(g, s->player->pid, base_ms, now, &err) < 0) {
        hub_send_error(s, err.code, err.msg, &m->id);
        return;
    }
    arena_note_berserk(h, e, k, side, game_ply(g));
}

void arena_do_berserk(struct session *s, const struct proto_msg *m,
                      int64_t now)
{
    hub_run_game_command(s, m, now, run_berserk);
}

static void link_copy(struct game *g, const struct tourney_event *r)
{
    tourney_link_copy(g, "arena", r);
}

/* A game hosted here from now on (restored, adopted, handed over): an
 * arena game's when one of this node's events (its games not over) or
 * the last relay of another node's event (its rows' current games: the
 * best ARENA_STANDINGS_SHOWN players') names it. */
void arena_game_hosted(struct hub *h, struct game *g, int64_t now)
{
    struct tourney_director *d = hub_arena_director(h);
    struct event *e;
    size_t k;

    (void)now;
    if (!d || game_status(g) == GAME_ENDED)
        return;
    if ((e = arena_event_of_game(h, g, &k)) != NULL) {
        tourney_link(g, "arena", &e->head,
                     arena_berserk_allowed(arena_config(e->a)));
        return;
    }
    for (size_t i = 0; i < d->nr; i++)
        if (tourney_copy_names(d->remote[i], g))
            link_copy(g, d->remote[i]);
}

void arena_told_all(struct hub *h, const char *payload, size_t len,
                    int64_t now)
{
    struct tourney_director *d = hub_arena_director(h);
    const char *nl = memchr(payload, '\n', len);
    char id[PROTO_KEY_MAX + 1];
    struct tourney_event *r;

    (void)now;
    if (!d)
        return;
    tourney_relayed(d, payload, len);
    if (!nl || nl - payload > PROTO_KEY_MAX)
        return;
    memcpy(id, payload, (size_t)(nl - payload));
    id[nl - payload] = '\0';
    if ((r = tourney_remote(d, id)) != NULL)
        tourney_copy_games(h, r, link_copy);
}
