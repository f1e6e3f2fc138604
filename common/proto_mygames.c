/*
 * proto_mygames.c - the `my_games` answer: a player's started games, each
 * with whose turn it is and the time that turn has left (PROTOCOL.md
 * section 5, "Your games").
 */
#include "proto_internal.h"

char *proto_render_my_games(const struct proto_my_game *g, size_t n,
                            const struct proto_id *id)
{
    json_t *list = json_array();

    for (size_t i = 0; list && i < n; i++) {
        json_t *o = json_pack(
            "{s:s,s:s,s:o,s:o,s:i,s:b,s:I,s:b}", "game", g[i].game, "color",
            proto_color_name(g[i].color), "opponent",
            proto_json_player(&g[i].opponent), "clock",
            proto_json_clock(&g[i].clock), "ply", g[i].ply, "your_turn",
            g[i].your_turn, "left_ms", (json_int_t)g[i].left_ms,
            "correspondence", clock_spec_correspondence(&g[i].clock));
        if (!o || json_array_append_new(list, o) < 0) {
            json_decref(list);
            list = NULL;
        }
    }
    if (!list)
        return NULL;
    return proto_json_finish(
        json_pack("{s:s,s:o}", "t", "my_games", "games", list), id);
}
