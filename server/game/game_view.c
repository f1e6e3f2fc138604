/*
 * game_view.c - what a game shows (see game.h): its subscribers, the
 * messages queued to them (each with the game's last store sequence
 * number, so that nobody sees what is not durable yet), and its views
 * rendered: game_start, state (of a live game, or of a stored one
 * straight from its rows) and moved.
 */
#include "game/game_internal.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/msgbuf.h"
#include "notation.h"
#include "opening.h"
#include "game/rating.h"
#include "lib/grow.h"
#include "lib/tunables.h"

/* ---- subscribers and messages ------------------------------------------ */

/* Queues b (NULL: nothing) to every subscriber, the same bytes to each,
 * and drops the caller's reference. */
static void broadcast_buf(struct game *g, struct msgbuf *b)
{
    if (!b)
        log_error("event=send_dropped why=out_of_memory what=broadcast "
                  "game=%s",
                  g->gid);
    for (size_t i = 0; i < g->nsubs; i++)
        g->env.send(g->env.ctx, g->subs[i].s, b, g->seq);
    msgbuf_unref(b);
}

/* Renders once, queues the same bytes to every subscriber. */
void game_broadcast(struct game *g, char *text)
{
    broadcast_buf(g, msgbuf_take(text));
}

/* `moved` written in place into the buffer its recipients share. */
void game_broadcast_moved(struct game *g, const struct proto_moved *mv)
{
    struct msgbuf *b = msgbuf_new(proto_moved_size(mv));

    if (b)
        b->len = proto_write_moved(mv, b->data);
    broadcast_buf(g, b);
}

/* Watchers. A game counts its spectators (its subscribers other than
 * the players' fans: one per spectating connection, whichever node it
 * is on) and tells everyone in it the count, in `watchers`, at most once
 * every LIMIT_WATCHERS_EVERY_MS: a change arms the game's timer
 * (EV_WATCHERS) at the last announcement plus that, and the count is
 * sent then if it differs from the last one sent, or if a `state` gave
 * someone another count meanwhile (a spectator who came, a player who
 * reconnected while it was other: watchers_shown is then unknown). A
 * spectator coming or
 * going costs its (un)subscription and a flag; the announcement costs
 * one render and a queue entry per subscriber, once a second at most,
 * however many come and go. An ended game announces nothing more. */
#define WATCHERS_UNKNOWN ((size_t)-1)

static void watchers_changed(struct game *g)
{
    if (g->status == GAME_ENDED || g->watchers_due != CLOCK_NEVER)
        return;
    g->watchers_due = g->watchers_at + LIMIT_WATCHERS_EVERY_MS;
    game_rearm(g);
}

void game_announce_watchers(struct game *g, int64_t now)
{
    g->watchers_due = CLOCK_NEVER;
    g->watchers_at = now;
    if (g->nwatchers == g->watchers_shown)
        return;
    g->watchers_shown = g->nwatchers;
    game_broadcast(g, proto_render_watchers(g->gid, g->nwatchers));
}

int game_subscribe(struct game *g, struct session *s, enum game_role role)
{
    struct sub *n;
    size_t was = g->nwatchers;

    for (size_t i = 0; i < g->nsubs; i++)
        if (g->subs[i].s == s) {
            g->nwatchers -= g->subs[i].role == GAME_SPECTATOR;
            g->nwatchers += role == GAME_SPECTATOR;
            g->subs[i].role = role;
            if (g->nwatchers != was)
                watchers_changed(g);
            return 0;
        }
    n = grow_array(g->subs, &g->subcap, g->nsubs, sizeof *n, 4);
    if (!n)
        return -1;
    g->subs = n;
    assert(g->nsubs < g->subcap);
    g->subs[g->nsubs++] = (struct sub){s, role};
    if (role == GAME_SPECTATOR) {
        g->nwatchers++;
        watchers_changed(g);
    }
    return 0;
}

void game_unsubscribe(struct game *g, struct session *s)
{
    for (size_t i = 0; i < g->nsubs; i++)
        if (g->subs[i].s == s) {
            bool watcher = g->subs[i].role == GAME_SPECTATOR;
            g->subs[i] = g->subs[--g->nsubs];
            if (watcher) {
                assert(g->nwatchers > 0);
                g->nwatchers--;
                watchers_changed(g);
            }
            return;
        }
}

bool game_is_subscribed(const struct game *g, const struct session *s)
{
    for (size_t i = 0; i < g->nsubs; i++)
        if (g->subs[i].s == s)
            return true;
    return false;
}

size_t game_subscriptions(const struct game *g)
{
    return g->nsubs;
}

/* ---- derived views ----------------------------------------------------- */

struct moves_info {
    char legal[MOVES_MAX][UCI_MAX];
    size_t n_legal;
    char claim[MOVES_MAX][UCI_MAX];
    size_t n_claim;
    bool claimable;
};

/* The UCI texts of moves[0..n-1], the legal moves of the side to move
 * (sorted), and of the claims among them, for `state`; all empty unless
 * the game is started. */
static void moves_info(const struct game *g, const move_t *moves, int n,
                       struct moves_info *mi)
{
    move_t claim[MOVES_MAX];
    int k = game_claim_moves(g, moves, n, claim, &mi->claimable);

    mi->n_legal = mi->n_claim = 0;
    if (g->status != GAME_STARTED || g->flagged >= 0)
        return;
    for (int i = 0; i < n; i++)
        notation_uci(moves[i], mi->legal[mi->n_legal++]);
    for (int i = 0; i < k; i++)
        notation_uci(claim[i], mi->claim[mi->n_claim++]);
}

const char *game_status_name(enum game_status s)
{
    return s == GAME_WAITING   ? "waiting"
           : s == GAME_STARTED ? "started"
                               : "ended";
}

/* A seat as `state` and game_start show it: with its rating in a rated
 * game (the one the change was computed from, once there is one). */
struct proto_player game_seat_player(const struct game *g, int c)
{
    assert(is_color(c));
    struct proto_player p = {g->seat[c].pid[0] ? g->seat[c].pid : NULL,
                             g->seat[c].name,
                             false,
                             0,
                             false,
                             true,
                             g->seat[c].account,
                             g->seat[c].bot};

    if (!g->rated)
        return p;
    if (g->rated_end) {
        p.has_rating = true;
        p.rating = rating_round(g->before[c]);
        p.provisional = g->rd_before[c] > RATING_RD_PROVISIONAL;
    } else if (g->shown[c]) {
        p.has_rating = true;
        p.rating = rating_round(g->shown_rating[c]);
        p.provisional = g->shown_rd[c] > RATING_RD_PROVISIONAL;
    }
    return p;
}

/* The rounded changes of a game that ended with one. */
struct proto_rating_change game_change_of(const double before[2],
                                          const double after[2])
{
    struct proto_rating_change c;

    for (int i = 0; i < 2; i++) {
        c.before[i] = rating_round(before[i]);
        c.after[i] = rating_round(after[i]);
    }
    return c;
}

/* The plies' UCI, SAN and lag credits as `state` lists them: one block
 * (lags at its start, which the caller frees). False when out of
 * memory. */
struct lists {
    int64_t *lags;
    char (*uci)[UCI_MAX];
    char (*san)[SAN_MAX];
};

static bool lists_of(struct lists *l, const struct ply *p, size_t n)
{
    size_t k = n ? n : 1;

    l->lags = malloc(k * (sizeof *l->lags + UCI_MAX + SAN_MAX));
    if (!l->lags)
        return false;
    l->uci = (char(*)[UCI_MAX])(l->lags + k);
    l->san = (char(*)[SAN_MAX])(l->uci + k);
    for (size_t i = 0; i < n; i++) {
        memcpy(l->uci[i], p[i].uci, UCI_MAX);
        memcpy(l->san[i], p[i].san, SAN_MAX);
        l->lags[i] = p[i].lag_ms;
    }
    return true;
}

char *game_render_state(struct game *g, const struct proto_id *id, bool api,
                        int64_t now)
{
    struct moves_info *mi = malloc(sizeof *mi);
    struct proto_rating_change change = game_change_of(g->before, g->after);
    struct movelist scratch;
    struct lists l;
    const move_t *legal;
    int n_legal;
    char fen[FEN_MAX];
    char *text;

    if (!mi || !lists_of(&l, g->plies, g->rec.n)) {
        free(mi);
        return NULL;
    }
    legal = game_legal_now(g, &scratch, &n_legal);
    moves_info(g, legal, n_legal, mi);
    board_to_fen(&g->rec.cur, fen);
    struct dead_proof proof[2];
    bool proven = game_proof(g, proof);
    /* A client told another count than the last announcement: the next
     * announcement goes out even if the count is back to that one. */
    if (g->nwatchers != g->watchers_shown)
        g->watchers_shown = WATCHERS_UNKNOWN;
    struct proto_state s = {
        .game = g->gid,
        .white = game_seat_player(g, 0),
        .black = game_seat_player(g, 1),
        .clock = g->clock.spec,
        .initial_fen = g->initial_fen,
        .moves = (const char(*)[UCI_MAX])l.uci,
        .san = (const char(*)[SAN_MAX])l.san,
        .lags = l.lags,
        .n = g->rec.n,
        .fen = fen,
        .ply = (int)g->rec.n,
        .to_move = side_to_move(g),
        .check = board_in_check(&g->rec.cur),
        .clocks = game_clocks_at(g, now),
        .first_move_ms = game_first_move_left(g, now),
        .status = game_status_name(g->status),
        .draw_offer = g->status == GAME_STARTED ? g->draw_offer : -1,
        .takeback = g->status == GAME_STARTED ? g->takeback : -1,
        .berserk = {g->berserk[0], g->berserk[1]},
        .draw_from_ply = g->status != GAME_ENDED ? g->draw_from_ply : 0,
        .event = g->status != GAME_ENDED && g->event.kind ? &g->event : NULL,
        .gone_ms = {-1, -1},
        .rtt_ms = {g->seat[0].rtt_ms, g->seat[1].rtt_ms},
        .watchers = g->nwatchers,
        .legal = (const char(*)[UCI_MAX])mi->legal,
        .n_legal = mi->n_legal,
        .claimable = mi->claimable,
        .claim_moves = (const char(*)[UCI_MAX])mi->claim,
        .n_claim = mi->n_claim,
        .result = g->status == GAME_ENDED ? ending_result_name(g->result)
                                          : NULL,
        .reason = g->status == GAME_ENDED ? ending_get(g->reason)->name
                                          : NULL,
        .rated = g->rated,
        .change = g->rated_end ? &change : NULL,
        .proof = proven ? proof : NULL,
        .opening_eco = g->opening ? opening_eco(g->opening) : NULL,
        .opening_name = g->opening ? opening_name(g->opening) : NULL,
        .api = api,
        .created_ms = g->created_wall,
        .started_ms = g->started_wall,
        .ended_ms = g->ended_wall,
    };
    for (int c = 0; c < 2; c++)
        if (g->status == GAME_STARTED && !g->seat[c].present &&
            !game_corr(g)) {
            int64_t end = g->seat[c].gone_since + g->env.grace_ms;
            s.gone_ms[c] = end > now ? end - now : 0;
        }
    text = proto_render_state(&s, id);
    free(l.lags);
    free(mi);
    return text;
}

/* The opening of the game that started at start with moves[0..n-1] (its
 * journal): opening_of of its first OPENING_MAX_PLY plies, 0 when a move
 * is not legal or out of memory. */
static int stored_opening(const struct board *start,
                          const struct store_move *moves, size_t n)
{
    struct record r;
    int id = 0;

    if (record_init(&r, start) < 0)
        return 0;
    for (size_t i = 0; i < n && i < OPENING_MAX_PLY; i++) {
        move_t m;
        if (notation_parse_uci(&r.cur, moves[i].uci, &m) != 0 ||
            record_push(&r, m) < 0)
            goto out;
    }
    id = opening_of(&r);
out:
    record_clear(&r);
    return id;
}

char *game_render_stored(const struct store_game *row,
                         const struct store_move *moves, size_t n,
                         const bool account[2], const struct proto_id *id,
                         bool api)
{
    struct ply *plies = malloc((n ? n : 1) * sizeof *plies);
    struct lists l = {NULL, NULL, NULL};
    struct board b;
    char fen[FEN_MAX], initial[FEN_MAX];
    char *text = NULL;

    if (!plies || strcmp(row->status, "ended") ||
        board_from_fen(&b, row->initial_fen) != FEN_OK)
        goto out;
    board_to_fen(&b, initial); /* normalised, as a restored game has it */
    int opening = stored_opening(&b, moves, n);
    if (board_from_fen(&b, row->final_fen) != FEN_OK)
        goto out;
    board_to_fen(&b, fen);
    for (size_t i = 0; i < n; i++)
        ply_of_row(&plies[i], &moves[i]);
    if (!lists_of(&l, plies, n))
        goto out;
    /* a rated game that ended with a change (an RD is never 0) */
    bool changed = row->rated && row->rd_before[0] > 0;
    struct proto_rating_change change = game_change_of(row->rating_before,
                                                       row->rating_after);
    struct proto_player seat[2] = {
        {row->white_pid[0] ? row->white_pid : NULL, row->white_name, false, 0,
         false, true, account[0], false},
        {row->black_pid[0] ? row->black_pid : NULL, row->black_name, false, 0,
         false, true, account[1], false}};
    for (int c = 0; changed && c < 2; c++) {
        seat[c].has_rating = true;
        seat[c].rating = change.before[c];
        seat[c].provisional = row->rd_before[c] > RATING_RD_PROVISIONAL;
    }
    const struct ending *e = ending_find(row->reason);
    struct dead_proof proof[2];
    bool proven = e && game__final_proof(&b, e->reason, proof);
    struct proto_state s = {
        .game = row->gid,
        .white = seat[0],
        .black = seat[1],
        .clock = {row->clock.per_move, row->clock.initial_s,
                  row->clock.increment_s, row->clock.per_move_s},
        .initial_fen = initial,
        .moves = (const char(*)[UCI_MAX])l.uci,
        .san = (const char(*)[SAN_MAX])l.san,
        .lags = l.lags,
        .n = n,
        .fen = fen,
        .ply = (int)n,
        .to_move = b.side,
        .check = board_in_check(&b),
        .clocks = {row->white_ms, row->black_ms, -1},
        .first_move_ms = -1,
        .status = "ended",
        .draw_offer = -1,
        .takeback = -1,
        .gone_ms = {-1, -1},
        .result = row->result,
        .reason = row->reason,
        .rated = row->rated != 0,
        .change = changed ? &change : NULL,
        .proof = proven ? proof : NULL,
        .opening_eco = opening ? opening_eco(opening) : NULL,
        .opening_name = opening ? opening_name(opening) : NULL,
        .api = api,
        .created_ms = row->created_ms,
        .started_ms = row->started_ms,
        .ended_ms = row->ended_ms,
    };
    text = proto_render_state(&s, id);
out:
    free(plies);
    free(l.lags);
    return text;
}

/* ---- messages ---------------------------------------------------------- */

void game_announce_start(struct game *g, int64_t now)
{
    struct proto_player p[2];

    for (int c = 0; c < 2; c++)
        p[c] = game_seat_player(g, c);
    for (int c = 0; c < 2; c++) {
        struct msgbuf *b = msgbuf_take(proto_render_game_start(
            g->gid, &p[0], &p[1], &g->clock.spec, g->rated, c));
        if (!b)
            continue;
        for (size_t i = 0; i < g->nsubs; i++)
            if (g->subs[i].role == (enum game_role)c)
                g->env.send(g->env.ctx, g->subs[i].s, b, g->seq);
        msgbuf_unref(b);
    }
    game_broadcast(g, game_render_state(g, NULL, false, now));
}

void game_send_start(struct game *g, struct session *s, int c, int64_t now)
{
    struct proto_player p[2];
    struct msgbuf *b;

    for (int k = 0; k < 2; k++)
        p[k] = game_seat_player(g, k);
    if (g->status != GAME_WAITING && (c == 0 || c == 1)) {
        b = msgbuf_take(proto_render_game_start(g->gid, &p[0], &p[1],
                                                &g->clock.spec, g->rated, c));
        if (b) {
            g->env.send(g->env.ctx, s, b, g->seq);
            msgbuf_unref(b);
        }
    }
    game_send_state(g, s, NULL, now);
}

size_t game_subscribers(const struct game *g, struct session **out,
                        size_t max)
{
    size_t n = 0;

    for (size_t i = 0; i < g->nsubs && n < max; i++)
        out[n++] = g->subs[i].s;
    return n;
}

void game_send_state(struct game *g, struct session *s,
                     const struct proto_id *id, int64_t now)
{
    struct msgbuf *b;
    char *text;

    game_tick(g, now);
    text = game_render_state(g, id, false, now);
    b = msgbuf_take(text);
    if (!b)
        return;
    g->env.send(g->env.ctx, s, b, g->seq);
    msgbuf_unref(b);
}

void game_fen(const struct game *g, char fen[FEN_MAX])
{
    board_to_fen(&g->rec.cur, fen);
}
