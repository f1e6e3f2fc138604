/*
 * swiss_render.c - a Swiss event as its messages show it (PROTOCOL.md
 * "Swiss tournaments"): the summary swiss_list and swiss_created carry,
 * and the standings swiss_watch answers and the director pushes. Pure
 * rendering of the director's state (swiss_tourney.h): no journal, no
 * send. Only the event-loop thread calls it.
 */
#include <limits.h>
#include <jansson.h>
#include <stdlib.h>

#include "hub/swiss_tourney.h"
#include "hub/tourney.h"
#include "hub/tourney_entry.h"
#include "tour.h"

/* Standings rows shown (the ranked first). */

static const char *event_status(const struct swiss_tourney *e, int64_t wall)
{
    if (e->head.finished)
        return "finished";
    return e->start_ms < 0 || wall < e->start_ms ? "open" : "running";
}

json_t *swiss_summary(const struct swiss_tourney *e, int64_t wall)
{
    size_t listed = 0;

    for (size_t i = 0; i < e->np; i++)
        listed += !e->t.p[i].withdrawn || e->t.p[i].sn;
    return json_pack(
        "{s:s,s:s,s:s,s:s,s:o,s:{s:s,s:i,s:i},s:i,s:i,s:i,s:i,s:b,s:o}",
        "event", e->head.id, "name", e->head.name, "creator", e->head.creator,
        "status", event_status(e, wall), "start_ms",
        e->start_ms < 0 ? json_null() : json_integer(e->start_ms), "clock",
        "type", "fischer", "initial_s", e->base_s, "increment_s", e->inc_s,
        "rounds", e->t.total_rounds, "round", e->t.rounds, "interval_s",
        e->interval_s, "players", (int)listed, "paused", e->paused,
        "conditions", tourney_entry_json(&e->entry));
}

static json_t *sheet_of(const struct swiss_tourney *e, int p)
{
    json_t *a = json_array();

    for (int r = 1; r <= e->t.rounds; r++) {
        struct swiss_game g = tour_entry(&e->t, p, r);
        char code[2] = {g.result, 0}, colour[2] = {g.colour, 0};
        json_array_append_new(a, json_pack("{s:i,s:s,s:s}", "opp", g.opp,
                                           "colour", colour, "result", code));
    }
    return a;
}

static const char *result_name(char r)
{
    switch (r) {
    case '1':
        return "1-0";
    case '0':
        return "0-1";
    case '=':
        return "1/2-1/2";
    case '+':
        return "+--";
    case '-':
        return "--+";
    case 'U':
        return "bye";
    default:
        return NULL;
    }
}

/* The last round's boards. */
static json_t *pairings_of(const struct swiss_tourney *e)
{
    json_t *a = json_array();
    const struct tour_board *b;
    int n = e->t.rounds ? tour_round(&e->t, e->t.rounds, &b) : 0;
    size_t first = n ? (size_t)(b - e->t.b) : 0;

    for (int i = 0; i < n; i++) {
        const char *res = result_name(b[i].result);
        const char *gid = e->gids[first + (size_t)i];
        bool bye = b[i].black < 0;
        json_array_append_new(
            a,
            json_pack(
                "{s:s,s:o,s:s,s:o,s:o,s:o}", "white",
                e->players[b[i].white].pid, "black",
                bye ? json_null() : json_string(e->players[b[i].black].pid),
                "white_name", e->players[b[i].white].name, "black_name",
                bye ? json_null() : json_string(e->players[b[i].black].name),
                "game", *gid ? json_string(gid) : json_null(), "result",
                res ? json_string(res) : json_null()));
    }
    return a;
}

static json_t *standing_row(const struct swiss_tourney *e, int p,
                            const struct tour_standing *st)
{
    return json_pack("{s:i,s:i,s:s,s:s,s:i,s:f,s:f,s:i,s:b,s:o}", "rank",
                     st ? st->rank : 0, "sn", e->t.p[p].sn, "id",
                     e->players[p].pid, "name", e->players[p].name, "rating",
                     e->t.p[p].rating, "points", st ? st->score / 10.0 : 0.0,
                     "sb", st ? st->sb / 100.0 : 0.0, "performance",
                     st ? st->performance : 0, "withdrawn",
                     e->t.p[p].withdrawn, "sheet", sheet_of(e, p));
}

/* When e's next round is due (Unix ms), or -1: none is (a round in
 * play, the last one over, paused, or a manual start not given). */
static int64_t next_round_ms(const struct swiss_tourney *e)
{
    if (e->head.finished || e->paused || e->start_ms < 0 ||
        !tour_round_over(&e->t) || e->t.rounds >= e->t.total_rounds)
        return -1;
    return e->t.rounds ? e->last_ms + e->interval_s * 1000LL : e->start_ms;
}

/* Player me's listed row in e (st: its n ranked), or null. */
static json_t *own_row(const struct swiss_tourney *e,
                       const struct tour_standing *st, int n, const char *me)
{
    int p = swiss_entrant_of(e, me);

    for (int i = 0; p >= 0 && i < n; i++)
        if (st[i].player == p)
            return standing_row(e, p, &st[i]);
    return p >= 0 && !e->t.p[p].sn && !e->t.p[p].withdrawn
               ? standing_row(e, p, NULL)
               : json_null();
}

char *swiss_render_standings(const struct swiss_tourney *e, int64_t wall,
                             int page, const char *me,
                             const struct proto_id *id)
{
    struct tour_standing *st = malloc((e->np ? e->np : 1) * sizeof *st);
    int *late = malloc((e->np ? e->np : 1) * sizeof *late);
    json_t *o = swiss_summary(e, wall), *rows = json_array();
    int n, nl = 0, from = page > 0 ? (page - 1) * PROTO_STANDINGS_PAGE : 0;
    int to = page > 0   ? from + PROTO_STANDINGS_PAGE
             : page < 0 ? INT_MAX
                        : SWISS_STANDINGS_SHOWN;

    if (!st || !late || !o || !rows || (n = tour_standings(&e->t, st)) < 0) {
        free(st);
        free(late);
        json_decref(o);
        json_decref(rows);
        return NULL;
    }
    for (size_t p = 0; p < e->np; p++) /* joined since the last pairing */
        if (!e->t.p[p].sn && !e->t.p[p].withdrawn)
            late[nl++] = (int)p;
    for (int i = from; i < to && i < n + nl; i++)
        json_array_append_new(rows,
                              i < n ? standing_row(e, st[i].player, &st[i])
                                    : standing_row(e, late[i - n], NULL));
    if (page > 0) {
        json_object_set_new(o, "page", json_integer(page));
        json_object_set_new(
            o, "pages",
            json_integer(n + nl ? (n + nl + PROTO_STANDINGS_PAGE - 1) /
                                      PROTO_STANDINGS_PAGE
                                : 1));
    }
    if (me)
        json_object_set_new(o, "me", own_row(e, st, n, me));
    json_object_set_new(
        o, "next_ms",
        next_round_ms(e) < 0 ? json_null() : json_integer(next_round_ms(e)));
    free(st);
    free(late);
    if (page < 0) { /* (results: every board's game, oldest first) */
        json_t *games = json_array();
        for (size_t g = 0; g < e->ng; g++)
            if (e->gids[g][0])
                json_array_append_new(games, json_string(e->gids[g]));
        json_object_set_new(o, "games", games);
    }
    json_object_set_new(
        o, "t", json_string(page < 0 ? "swiss_results" : "swiss_standings"));
    json_object_set_new(o, "standings", rows);
    json_object_set_new(o, "pairings", pairings_of(e));
    return tourney_finish(o, id);
}
