/*
 * game_playban.c - an ended game as lichess's playban rules see it
 * (game.h: game_playban_view; common/playban.h).
 */
#include "game/game_internal.h"

#include <assert.h>

void game_playban_view(const struct game *g, int64_t now, int64_t wall,
                       struct playban_game *out)
{
    const struct clock_spec *cs = &g->clock.spec;
    int stm = side_to_move(g);
    int n = (int)g->rec.n;

    assert(g->status == GAME_ENDED);
    *out = (struct playban_game){
        .reason = g->reason,
        .winner = g->result == ENDING_WHITE_WINS   ? WHITE
                  : g->result == ENDING_BLACK_WINS ? BLACK
                                                   : -1,
        .side_to_move = stm,
        .actor = g->actor,
        .present = {g->seat[WHITE].present, g->seat[BLACK].present},
        .rated = g->rated,
        /* a move's time: 40 of them stand for the estimate */
        .initial_ms = cs->per_move ? 0 : cs->initial_s * 1000LL,
        .increment_ms = (cs->per_move ? cs->per_move_s : cs->increment_s) *
                        1000LL,
        .plies = n,
        .started_ms = g->started_wall ? g->started_wall : g->created_wall,
        .last_move_ms = {-1, -1},
        .now_ms = wall,
    };
    out->moved_ms = n ? g->plies[n - 1].wall_ms : out->started_ms;
    for (int c = 0; c < 2; c++)
        out->left_ms[c] = clock_left(&g->clock, c, now);
    /* each side's last move: the last ply (1 - stm's), the one before */
    for (int i = n - 1; i >= 0 && i >= n - 2; i--) {
        int mover = (n - i) % 2 ? 1 - stm : stm;
        int64_t before = i ? g->plies[i - 1].wall_ms : out->started_ms;
        out->last_move_ms[mover] = g->plies[i].wall_ms - before;
    }
}
