/*
 * mygames.c - `my_games`: the player's started games, those waiting for
 * the player's move first (PROTOCOL.md section 5, "Your games"). What a
 * lobby or a player's page shows of a player's correspondence games (and
 * of any other): the list at load; the `moved`, `game_start` and
 * `game_end` every connection of the player receives keep it current.
 *
 * Cost: one answer of at most max_games_per_player (default 100) games of
 * about 250 bytes, from the games in this node's memory; the messages'
 * token bucket bounds how often.
 */
#include "hub/hub_internal.h"

#include <stdlib.h>

#include "game/game.h"
#include "hub/module.h"

/* Your turn first, then the least time left first. */
static int by_urgency(const void *pa, const void *pb)
{
    const struct proto_my_game *a = pa, *b = pb;

    if (a->your_turn != b->your_turn)
        return a->your_turn ? -1 : 1;
    return (a->left_ms > b->left_ms) - (a->left_ms < b->left_ms);
}

static void my_games_command(struct session *s, const struct proto_msg *m,
                             int64_t now)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    size_t n = 0, k = 0;
    struct game_ref *refs = p ? hub_games_snapshot(p, &n) : NULL;
    struct proto_my_game *out = calloc(n ? n : 1, sizeof *out);
    char *text;

    for (size_t i = 0; out && i < n; i++) {
        struct game *g = table_get(&h->games, refs[i].gid);
        int c = g ? game_color_of(g, p->pid) : -1;

        if (c < 0 || game_status(g) != GAME_STARTED)
            continue; /* an invitation, or hosted on another node */
        out[k++] = (struct proto_my_game){
            .game = game_gid(g),
            .color = c,
            .opponent = game_seat_player(g, 1 - c),
            .clock = *game_clock_spec(g),
            .ply = game_ply(g),
            .your_turn = game_side_to_move(g) == c,
            .left_ms = game_turn_left(g, now),
        };
    }
    qsort(out, k, sizeof *out, by_urgency);
    text = out ? proto_render_my_games(out, k, &m->id) : NULL;
    free(out);
    free(refs);
    if (!text) {
        hub_send_error(s, PROTO_RATE_LIMITED, "out of memory: try again",
                       &m->id);
        return;
    }
    hub_send_text(s, text, 0);
}

static const struct hub_command commands[] = {
    {PROTO_T_MY_GAMES, my_games_command, false},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_mygames_module = {
    .name = "mygames",
    .commands = commands,
};
