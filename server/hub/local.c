/*
 * local.c - a node alone: the local router (router.h), which hub_new
 * installs.
 *
 * With no other node, nothing is forwarded, every lease is held and a
 * player's games are those in memory. The router's ops here are no-ops
 * where another node would be told something. ctx is the hub. (The
 * local seek book, the hub's lobby, is seeks.c's.)
 */
#include "hub/hub_internal.h"

#include <stdlib.h>
#include <string.h>

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
