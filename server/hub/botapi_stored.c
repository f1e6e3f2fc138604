/*
 * botapi_stored.c - GET /api/bot|board/game/stream/{id} of a game that is
 * not in memory (see botapi_internal.h): it ended before a restart, or
 * long ago. As lichess answers a finished game's stream, the stream is
 * its gameFull, with the final state (status, winner, moves), and ends.
 *
 * What it costs: one read off the loop (reads.h) of the game's row and
 * journal (store_get_game), after the token's; the game is rebuilt from
 * them and its line written on the reader's thread too (game_restore
 * with the mute environment, as play.c and hosting.c rebuild a stored
 * game: nothing it does reaches the hub), so the loop only opens the
 * stream and queues one line. A game the store does not have is
 * remembered a while (hub_unknown_game): a flood of unknown ids costs
 * no read each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "hub/botapi_internal.h"
#include "hub/botapi_json.h"
#include "hub/hub_internal.h"
#include "hub/reads.h"
#include "hub/router.h"
#include "store/store.h"

struct stored_read {
    struct hub_read r;
    uint64_t later;
    struct apitoken_who who;
    char gid[PROTO_KEY_MAX + 1];
    struct game_env env; /* the mute one (hub_mute_env) */
    int64_t now;
    int found;  /* store_get_game's */
    bool mine;  /* the account plays it */
    char *line; /* its gameFull, ended; NULL: none (not ended, or
                   not rebuildable) */
};

static int stored_run(struct store *st, struct hub_read *r)
{
    struct stored_read *q = (struct stored_read *)r;
    struct store_game row;
    struct store_move *moves = NULL;
    size_t n = 0;
    struct game *g;

    q->found = store_get_game(st, q->gid, &row, &moves, &n, NULL);
    if (q->found == 1 && !strcmp(row.status, "ended") &&
        (g = game_restore(&q->env, &row, moves, n, 0, q->now, NULL))) {
        q->mine = game_color_of(g, q->who.pid) >= 0;
        if (q->mine) {
            json_t *o = botapi_game_full(g, q->now);
            q->line = o ? json_dumps(o, JSON_COMPACT) : NULL;
            json_decref(o);
        }
        game_free(g);
    }
    free(moves);
    return q->found < 0 ? -1 : 0;
}

static void stored_clear(struct hub_read *r)
{
    free(((struct stored_read *)r)->line);
}

static void stored_answer(struct hub_read *r, int rc)
{
    struct stored_read *q = (struct stored_read *)r;
    struct hub *h = r->h;
    struct api_stream st = {.h = h}; /* (no session: it plays nothing) */
    int status;

    if (rc < 0) {
        botapi_fail(h, q->later, 500, "database_error");
        return;
    }
    if (q->found == 0)
        hub_unknown_game_note(h, q->gid);
    if (!q->line) { /* (nobody's, not the account's, or not ended) */
        botapi_fail(h, q->later, 404, "No such game");
        return;
    }
    /* (answered 429 when over the caps) */
    if (!(st.net = h->env.stream_open(q->later, q->who.pid, &st, &status)))
        return;
    botapi_put(&st, json_loads(q->line, 0, NULL), 0);
    h->env.stream_close(st.net); /* (its owner forgotten: st may go) */
}

void botapi_stored_stream(struct hub *h, uint64_t later,
                          const struct apitoken_who *t, const char *gid)
{
    struct stored_read *q;

    if (hub_unknown_game(h, gid)) {
        botapi_fail(h, later, 404, "No such game");
        return;
    }
    if (!(q = calloc(1, sizeof *q))) {
        botapi_fail(h, later, 500, "out of memory");
        return;
    }
    q->r.run = stored_run;
    q->r.answer = stored_answer;
    q->r.clear = stored_clear;
    q->later = later;
    q->who = *t;
    snprintf(q->gid, sizeof q->gid, "%s", gid);
    q->env = hub_mute_env(h);
    q->now = hub_now_ms(h);
    if (hub_read_submit(h, &q->r, NULL, NULL) < 0)
        botapi_fail(h, later, 503, "busy");
}
