/*
 * rematch.c - rematch offers (see rematch.h, PROTOCOL.md section 7).
 *
 * A rematch offer is kept with its ended game's host record (struct
 * game_host, hub_internal.h) and named by GID in both players' `offers`;
 * it lives only while both players are connected and the game is in
 * memory.
 */
#include "hub/rematch.h"

#include <stdio.h>
#include <string.h>

#include "hub/hub_internal.h"
#include "game/lobby.h"
#include "lib/log.h"
#include "lib/msgbuf.h"
#include "store/store.h"
#include "lib/tunables.h"

/* Sends text (taken) to every connection of both players of g, behind
 * the game's own messages. */
static void rematch_tell(struct hub *h, struct game *g, char *text)
{
    struct msgbuf *b = msgbuf_take(text);

    if (!b)
        return;
    for (int c = 0; c < 2; c++) {
        struct player *p = table_get(&h->players, game_seat_pid(g, c));
        if (p)
            hub_env_send(h, &p->fan, b, game_seq(g));
    }
    msgbuf_unref(b);
}

/* Ends gh's pending rematch offer, if any: both players forget it and,
 * unless reason is NULL, hear {"t":"rematch_declined",...,"reason":R}
 * with color (the player who declined or left; -1: null). */
void rematch_clear(struct hub *h, struct game_host *gh, int color,
                   const char *reason)
{
    struct game *g = gh->game;

    if (gh->rematch_by < 0)
        return;
    gh->rematch_by = -1;
    hub_alarm_free(h, gh->rematch_t);
    gh->rematch_t = NULL;
    for (int c = 0; c < 2; c++) {
        struct player *p = table_get(&h->players, game_seat_pid(g, c));
        if (p)
            hub_refs_drop(p->offers, &p->noffers, game_gid(g));
    }
    if (reason)
        rematch_tell(
            h, g, proto_render_rematch_declined(game_gid(g), color, reason));
}

/* The offer's LIMIT_REMATCH_MS are over. */
static void rematch_expire(void *arg)
{
    struct game_host *gh = arg;

    rematch_clear(gh->hub, gh, -1, "expired");
}

/* p's last connection closed: the offers to and from p lapse. */
void rematch_player_gone(struct hub *h, struct player *p)
{
    while (p->noffers) {
        struct game *g = table_get(&h->games, p->offers[0].gid);
        struct game_host *gh = g ? game_user(g) : NULL;
        if (gh && gh->rematch_by >= 0)
            rematch_clear(h, gh, game_color_of(g, p->pid), "left");
        else /* (not expected: a game frees its offer with itself) */
            hub_refs_drop(p->offers, &p->noffers, p->offers[0].gid);
    }
}

/* The player pid sent leave for g: a pending offer lapses, and the
 * player may not offer again (a leave and offer loop would spam the
 * opponent). */
void rematch_left(struct hub *h, struct game *g, const char *pid)
{
    struct game_host *gh = game_user(g);
    int c = game_color_of(g, pid);

    if (!gh || gh->rematch_by < 0 || c < 0)
        return;
    gh->rematch_barred[c] = true;
    rematch_clear(h, gh, c, "left");
}

/* The checks rematch and rematch_decline share, in this order:
 * no_such_game, then no_rematch (not a player, not over, a game not in
 * memory, nobody joined it, against the computer, its rematch has
 * started). Returns g's host
 * record with *color the sender's, or NULL when the error was sent. */
static struct game_host *rematch_host(struct session *s,
                                      const struct proto_msg *m, int *color,
                                      int64_t now)
{
    struct hub *h = s->hub;
    struct game *g = table_get(&h->games, m->game);
    struct game_host *gh;
    const char *why = NULL;

    if (!g) {
        hub_stored_read(s, m, STORED_NO_REMATCH);
        return NULL;
    }
    game_tick(g, now);
    *color = game_color_of(g, s->player->pid);
    if (*color < 0)
        why = "you are not a player of this game";
    else if (game_status(g) != GAME_ENDED)
        why = "the game is not over";
    else if (!game_seat_pid(g, 1 - *color)[0])
        why = "nobody joined this game";
    else if (proto_ai_level(game_seat_pid(g, 1 - *color)))
        why = "the computer plays no rematch: start a new game against it";
    if (why) {
        hub_send_error(s, PROTO_NO_REMATCH, why, &m->id);
        return NULL;
    }
    gh = hub_host_get(h, g);
    if (!gh) {
        hub_send_error(s, PROTO_RATE_LIMITED, "out of memory", &m->id);
        return NULL;
    }
    if (gh->rematch_used) {
        hub_send_error(s, PROTO_NO_REMATCH, "the rematch has started",
                       &m->id);
        return NULL;
    }
    return gh;
}

/* The opponent's rematch answers the pending offer: a new game, colours
 * swapped, the same clock and start position. */
static void rematch_start(struct session *s, struct game_host *gh, int color,
                          const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;
    struct game *old = gh->game, *g;
    struct player *opp = table_get(&h->players,
                                   game_seat_pid(old, 1 - color));
    struct game_seat_init seats[2];
    struct board start;
    const char *opp_pid = game_seat_pid(old, 1 - color);

    /* both players' facts (their games, their ratings to show): read
     * first, and the rematch runs again then */
    if (opp && !hub_facts_want(s, m, &opp_pid, 1,
                               hub_facts_since(h, game_rated(old), now)))
        return;
    if (hub_player_full(s, false, &m->id))
        return;
    if (!opp || opp->ngames + (size_t)lobby_has(h->lobby, opp->pid) >=
                    (size_t)h->cfg.max_games_per_player) {
        hub_send_error(s, PROTO_TOO_MANY_GAMES,
                       "your opponent holds as many live games, invitations "
                       "and seeks as there may be",
                       &m->id);
        return;
    }
    if (hub_games_refused(s, opp->pid, true, &m->id))
        return;
    if (board_from_fen(&start, game_initial_fen(old)) != FEN_OK) {
        hub_send_error(s, PROTO_NO_REMATCH, "the game's start is not valid",
                       &m->id);
        return;
    }
    for (int c = 0; c < 2; c++)
        seats[c] = (struct game_seat_init){game_seat_pid(old, 1 - c),
                                           game_seat_name(old, 1 - c)};
    /* the rematch keeps the old game's rated flag, as it keeps its clock
     * (both players of a rated game are accounts) */
    g = hub_start_game(h, game_clock_spec(old), &start, seats, NULL,
                       game_rated(old), now);
    if (!g) {
        hub_send_error(s, PROTO_RATE_LIMITED, "the server is busy; try again",
                       &m->id);
        return;
    }
    gh->rematch_used = true;
    rematch_clear(h, gh, -1, NULL); /* the game_start says it */
    log_info("event=rematch game=%s of=%s", game_gid(g), game_gid(old));
    game_announce_start(g, now);
}

/* rematch and rematch_decline (PROTOCOL.md section 7). */
void rematch_command(struct session *s, const struct proto_msg *m,
                     int64_t now)
{
    struct hub *h = s->hub;
    struct game_host *gh;
    struct player *opp;
    int color;

    gh = rematch_host(s, m, &color, now);
    if (!gh)
        return;
    if (m->type == PROTO_T_REMATCH_DECLINE) {
        if (gh->rematch_by < 0) {
            hub_send_error(s, PROTO_NO_REMATCH, "there is no rematch offer",
                           &m->id);
            return;
        }
        gh->rematch_barred[gh->rematch_by] = true;
        rematch_clear(h, gh, color, "declined");
        return;
    }
    if (gh->rematch_by == color) /* offered already: nothing new */
        return;
    if (gh->rematch_by == 1 - color) {
        rematch_start(s, gh, color, m, now);
        return;
    }
    opp = table_get(&h->players, game_seat_pid(gh->game, 1 - color));
    if (gh->rematch_barred[color]) {
        hub_send_error(s, PROTO_NO_REMATCH,
                       "your rematch offer was declined, withdrawn or left",
                       &m->id);
        return;
    }
    if (!opp || !hub_player_present(opp)) {
        hub_send_error(s, PROTO_NO_REMATCH, "your opponent has left", &m->id);
        return;
    }
    if (gh->rematch_offers[color] >= LIMIT_REMATCH_OFFERS) {
        char msg[96];
        snprintf(msg, sizeof msg,
                 "you have offered a rematch of this game %d times: the "
                 "most there may be",
                 LIMIT_REMATCH_OFFERS);
        hub_send_error(s, PROTO_NO_REMATCH, msg, &m->id);
        return;
    }
    if (!hub_facts_want(s, m, (const char *[]){opp->pid}, 1,
                        hub_facts_since(h, game_rated(gh->game), now)) ||
        hub_player_full(s, false, &m->id) ||
        hub_games_refused(s, opp->pid, true, &m->id))
        return;
    gh->rematch_t = hub_alarm_new(h, rematch_expire, gh);
    if (!gh->rematch_t ||
        hub_refs_add(&s->player->offers, &s->player->noffers,
                     &s->player->offercap, game_gid(gh->game)) < 0 ||
        hub_refs_add(&opp->offers, &opp->noffers, &opp->offercap,
                     game_gid(gh->game)) < 0) {
        hub_refs_drop(s->player->offers, &s->player->noffers,
                      game_gid(gh->game));
        hub_alarm_free(h, gh->rematch_t);
        gh->rematch_t = NULL;
        hub_send_error(s, PROTO_RATE_LIMITED, "out of memory", &m->id);
        return;
    }
    gh->rematch_by = color;
    gh->rematch_offers[color]++;
    hub_alarm_arm(h, gh->rematch_t, now + LIMIT_REMATCH_MS);
    rematch_tell(
        h, gh->game,
        proto_render_draw("rematch_offered", game_gid(gh->game), color));
}

/* ---- the module ---------------------------------------------------------- */

/* g leaves memory: its rematch offer with it. */
static void game_gone(struct hub *h, struct game *g)
{
    struct game_host *gh = game_user(g);

    if (gh)
        rematch_clear(h, gh, -1, "expired");
}

static const struct hub_command commands[] = {
    {PROTO_T_REMATCH, rematch_command, true},
    {PROTO_T_REMATCH_DECLINE, rematch_command, true},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_rematch_module = {
    .name = "rematch",
    .player_gone = rematch_player_gone,
    .game_gone = game_gone,
    .game_left = rematch_left,
    .commands = commands,
};
