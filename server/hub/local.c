/*
 * local.c - a node alone: the local router (router.h) and the local seek
 * book (seekbook.h), which hub_new installs.
 *
 * With no other node, nothing is forwarded, every lease is held, a
 * player's games are those in memory, and the open seeks are the hub's
 * lobby (game/lobby.h). The router's ops here are no-ops where another
 * node would be told something. ctx is the hub.
 */
#include "hub/hub_internal.h"

#include <stdlib.h>
#include <string.h>

#include "game/lobby.h"
#include "lib/ids.h"
#include "lib/log.h"

/* ---- the router -------------------------------------------------------- */

static int opened(void *ctx, struct session *s)
{
    (void)ctx;
    (void)s;
    return 0;
}

static void session_nop(void *ctx, struct session *s)
{
    (void)ctx;
    (void)s;
}

static void player_nop(void *ctx, struct player *p)
{
    (void)ctx;
    (void)p;
}

/* Memory has every game: none elsewhere. */
static int count_games(void *ctx, const char *pid, size_t max, size_t *n)
{
    (void)ctx;
    (void)pid;
    (void)max;
    *n = 0;
    return 0;
}

static int list_games(void *ctx, struct player *p, const char **gids,
                      char (*buf)[PROTO_KEY_MAX + 1], size_t max, size_t *n)
{
    struct hub *h = ctx;
    struct game **gs = malloc((max ? max : 1) * sizeof *gs);

    (void)buf; /* (the GIDs are the games' own, valid for the call) */
    if (!gs)
        return -1;
    *n = hub_player_games_sorted(h, p, gs, max);
    for (size_t i = 0; i < *n; i++)
        gids[i] = game_gid(gs[i]);
    free(gs);
    return 0;
}

static void welcome(void *ctx, struct session *s, const char *const *gids,
                    size_t n, struct msgbuf *b, uint64_t seq)
{
    (void)ctx;
    (void)gids;
    (void)n;
    hub_session_send(s, b, seq);
}

static bool forward(void *ctx, struct session *s, const struct proto_msg *m,
                    const char *text, size_t len, int64_t now)
{
    (void)ctx;
    (void)s;
    (void)m;
    (void)text;
    (void)len;
    (void)now;
    return false;
}

static bool yes(void *ctx)
{
    (void)ctx;
    return true;
}

static bool no(void *ctx)
{
    (void)ctx;
    return false;
}

static int new_game(void *ctx, const char *gid)
{
    (void)ctx;
    (void)gid;
    return 0;
}

static void game_nop(void *ctx, struct game *g)
{
    (void)ctx;
    (void)g;
}

static void gone(void *ctx, const char *gid)
{
    (void)ctx;
    (void)gid;
}

static void tell(void *ctx, const char *pid, char tag, const char *payload,
                 size_t len, uint64_t seq)
{
    (void)ctx;
    (void)pid;
    (void)tag;
    (void)payload;
    (void)len;
    (void)seq;
}

static void nop(void *ctx)
{
    (void)ctx;
}

const struct router_ops hub_local_router = {
    .session_opened = opened,
    .session_closed = session_nop,
    .session_detached = session_nop,
    .player_joined = player_nop,
    .player_left = player_nop,
    .count_games = count_games,
    .list_games = list_games,
    .welcome = welcome,
    .forward = forward,
    .leased = yes,
    .game_new = new_game,
    .game_seated = game_nop,
    .game_ended = game_nop,
    .game_gone = gone,
    .shared_store = no,
    .tell = tell,
    .wake = nop,
    .shutdown = nop,
    .stoppable = yes,
};

/* ---- the seek book: the hub's lobby ------------------------------------- */

static void place(void *ctx, struct session *s, const struct proto_msg *m,
                  const struct lobby_seek *k, int64_t now)
{
    struct hub *h = ctx;
    struct lobby_seek match;
    int color, rc;

    rc = lobby_seek(h->lobby, k, (int)(ids_random_byte() & 1), &match,
                    &color);
    if (rc < 0) {
        hub_send_error(s, PROTO_RATE_LIMITED, "out of memory", &m->id);
        return;
    }
    hub_send_text(s, proto_render_seeking(k->sid, &m->id), 0);
    if (rc == 1)
        hub_seek_paired(s, m, &match, color, now);
}

static void cancel(void *ctx, struct session *s, const struct proto_id *id)
{
    struct hub *h = ctx;

    if (lobby_cancel(h->lobby, s->player->pid))
        hub_send_text(s, proto_render_seek_cancelled(id), 0);
    else
        hub_send_error(s, PROTO_NO_SEEK, "you have no open seek", id);
}

/* The hub's checks after no_such_seek, then the game; s's own open seek
 * ends with the game's start (its game_start says so). */
static void accept(void *ctx, struct session *s, const struct proto_msg *m,
                   int64_t now)
{
    struct hub *h = ctx;
    const struct lobby_seek *k = lobby_find(h->lobby, m->seek);
    struct lobby_seek seek;
    struct game *g;

    if (!k) {
        hub_send_error(s, PROTO_NO_SUCH_SEEK,
                       "no open seek has that id (taken, cancelled or gone)",
                       &m->id);
        return;
    }
    if (hub_accept_refused(s, k, &m->id))
        return;
    seek = *k; /* taken (with s's own seek) once the game exists */
    g = hub_accept_start(s, &seek, &m->id, now);
    if (!g)
        return;
    lobby_take(h->lobby, seek.sid, &seek);
    lobby_cancel(h->lobby, s->player->pid);
    log_info("event=seek_accepted seek=%s game=%s", seek.sid, game_gid(g));
    game_announce_start(g, now);
}

static bool has(void *ctx, const struct session *s)
{
    struct hub *h = ctx;

    return s->player && lobby_has(h->lobby, s->player->pid);
}

static void drop(void *ctx, struct session *s)
{
    struct hub *h = ctx;

    lobby_drop_owner(h->lobby, s);
}

static size_t count(void *ctx)
{
    struct hub *h = ctx;

    return lobby_count(h->lobby);
}

const struct seekbook_ops hub_local_seekbook = {
    .place = place,
    .cancel = cancel,
    .accept = accept,
    .has = has,
    .drop = drop,
    .count = count,
    .fetch = NULL,
};
