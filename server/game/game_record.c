/*
 * game_record.c - a game's record (see game.h): the moves played (a move
 * or a claim with one checked, played, stored, sent), the legal moves
 * kept from one move to the next, the lag credit, the game's stored row
 * and journal, its PGN, and the game rebuilt from them (game_restore).
 */
#include "game/game_internal.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/tunables.h"
#include "notation.h"
#include "opening.h"
#include "pgn.h"
#include "text.h"
#include "game/rating.h"
#include "lib/grow.h"

/* ---- legal moves ------------------------------------------------------- */

/* Keeps moves[0..n-1] (sorted) as the legal moves of rec.cur; out of
 * memory, forgets them instead (legal_now generates them again). */
static void keep_legal(struct game *g, const move_t *moves, int n)
{
    assert(n >= 0 && n <= MOVES_MAX);
    if (n > g->cap_legal) {
        /* 64: 128 bytes a game, and most positions have fewer moves */
        int cap = g->cap_legal ? g->cap_legal : 64;
        move_t *p;
        while (cap < n)
            cap *= 2;
        p = realloc(g->legal, (size_t)cap * sizeof *p);
        if (!p) {
            g->n_legal = -1;
            return;
        }
        g->legal = p;
        g->cap_legal = cap;
    }
    if (n) /* (none: mate or stalemate, perhaps nothing allocated) */
        memcpy(g->legal, moves, (size_t)n * sizeof *moves);
    g->n_legal = n;
}

/* The legal moves of rec.cur, sorted: the kept ones, or generated into
 * *scratch (and kept) when they are not known. Sets *n. */
static inline const move_t *legal_now(struct game *g,
                                      struct movelist *scratch, int *n)
{
    if (g->n_legal < 0) {
        movegen_legal(&g->rec.cur, scratch);
        notation_sort_uci(scratch->moves, scratch->n);
        keep_legal(g, scratch->moves, scratch->n);
        if (g->n_legal < 0) {
            *n = scratch->n;
            return scratch->moves;
        }
    }
    *n = g->n_legal;
    return g->legal;
}

/* (legal_now and claim_moves are static, for the move to inline them;
 * the other files call them by these names) */
const move_t *game_legal_now(struct game *g, struct movelist *scratch, int *n)
{
    return legal_now(g, scratch, n);
}

/* The moves among moves[0..n-1], the legal moves of the side to move,
 * that may be played with a draw claim, into out (in their order);
 * *claimable when a draw may be claimed without a move. Returns how many
 * (none while the game is not started). */
static int claim_moves(const struct game *g, const move_t *moves, int n,
                       move_t *out, bool *claimable)
{
    enum claim claims[MOVES_MAX];
    int k = 0;

    assert(n >= 0 && n <= MOVES_MAX);
    *claimable = false;
    if (g->status != GAME_STARTED || g->flagged >= 0)
        return 0;
    record_claims(&g->rec, moves, n, claims);
    for (int i = 0; i < n; i++)
        if (claims[i] != CLAIM_NONE)
            out[k++] = moves[i];
    *claimable = record_claim_now(&g->rec) != CLAIM_NONE;
    return k;
}

int game_claim_moves(const struct game *g, const move_t *moves, int n,
                     move_t *out, bool *claimable)
{
    return claim_moves(g, moves, n, out, claimable);
}

int game_legal_moves(struct game *g, move_t out[MOVES_MAX])
{
    struct movelist scratch;
    int n;
    const move_t *l = legal_now(g, &scratch, &n);

    assert(n >= 0 && n <= MOVES_MAX);
    memcpy(out, l, (size_t)n * sizeof *out);
    return n;
}

/* ---- store rows and the PGN -------------------------------------------- */

/* board_to_fen writes straight into the rows. */
_Static_assert(sizeof((struct store_game *)0)->final_fen >= FEN_MAX &&
                   sizeof((struct store_game *)0)->initial_fen >= FEN_MAX,
               "store_game FEN fields shorter than FEN_MAX");

void game_fill_row(const struct game *g, struct store_game *r, int64_t now)
{
    memset(r, 0, sizeof *r);
    snprintf(r->gid, sizeof r->gid, "%s", g->gid);
    snprintf(r->white_pid, sizeof r->white_pid, "%s", g->seat[0].pid);
    snprintf(r->white_name, sizeof r->white_name, "%s", g->seat[0].name);
    snprintf(r->black_pid, sizeof r->black_pid, "%s", g->seat[1].pid);
    snprintf(r->black_name, sizeof r->black_name, "%s", g->seat[1].name);
    snprintf(r->creator_pid, sizeof r->creator_pid, "%s", g->creator);
    r->clock.per_move = g->clock.spec.per_move;
    r->clock.initial_s = g->clock.spec.initial_s;
    r->clock.increment_s = g->clock.spec.increment_s;
    r->clock.per_move_s = g->clock.spec.per_move_s;
    snprintf(r->initial_fen, sizeof r->initial_fen, "%s", g->initial_fen);
    snprintf(r->status, sizeof r->status, "%s", game_status_name(g->status));
    if (g->status == GAME_ENDED) {
        snprintf(r->result, sizeof r->result, "%s",
                 ending_result_name(g->result));
        snprintf(r->reason, sizeof r->reason, "%s",
                 ending_get(g->reason)->name);
    }
    board_to_fen(&g->rec.cur, r->final_fen);
    if (g->draw_offer >= 0 && g->status == GAME_STARTED)
        snprintf(r->draw_offer, sizeof r->draw_offer, "%s",
                 proto_color_name(g->draw_offer));
    r->created_ms = g->created_wall;
    r->started_ms = g->started_wall;
    r->ended_ms = g->ended_wall;
    r->white_ms = clock_left(&g->clock, WHITE, now);
    r->black_ms = clock_left(&g->clock, BLACK, now);
    r->rated = g->rated;
    game_lag_totals(g, r->lag_ms);
    if (g->opening) {
        snprintf(r->eco, sizeof r->eco, "%s", opening_eco(g->opening));
        snprintf(r->opening, sizeof r->opening, "%s",
                 opening_name(g->opening));
    }
    if (g->rated_end)
        for (int c = 0; c < 2; c++) {
            r->rating_before[c] = g->before[c];
            r->rating_after[c] = g->after[c];
            r->rd_before[c] = g->rd_before[c];
        }
}

/* Writes the game row; 0, or -1 when the store's queue is full. */
int game_put_row(struct game *g, int64_t now)
{
    struct store_game r;
    uint64_t seq;

    game_fill_row(g, &r, now);
    seq = g->env.put_game(g->env.ctx, &r);
    if (!seq)
        return -1;
    game_set_seq(g, seq);
    return 0;
}

void game_lag_totals(const struct game *g, int64_t out[2])
{
    out[0] = out[1] = 0;
    for (size_t i = 0; i < g->rec.n; i++)
        out[(g->rec.start.side + i) % 2] += g->plies[i].lag_ms;
}

/* The PGN of g's record with tags t: each move with the mover's time
 * left after it and its lag credit. NULL when out of memory. */
static char *pgn_of(const struct game *g, const struct pgn_tags *t)
{
    size_t n = g->rec.n;
    int64_t *clk = NULL, *lag = NULL;
    char *pgn;

    if (n) { /* both lists in one block */
        clk = malloc(2 * n * sizeof *clk);
        if (!clk)
            return NULL;
        lag = clk + n;
    }
    for (size_t i = 0; i < n; i++) {
        const struct ply *p = &g->plies[i];
        bool white = (g->rec.start.side + i) % 2 == WHITE;
        clk[i] = white ? p->white_ms : p->black_ms;
        lag[i] = p->lag_ms;
    }
    pgn = pgn_format(t, &g->rec, clk, lag);
    free(clk);
    return pgn;
}

/* Why the game ended, for the PGN's last comment, when the tags cannot
 * say it: each proof that a side could not mate (text.h string; p NULL
 * when there is none). */
static void proof_comment(const struct game *g, struct text *t)
{
    struct dead_proof proof[2];

    if (!game_proof(g, proof))
        return;
    if (g->reason == ENDING_DEAD_POSITION)
        text_str(t, "Dead position.");
    else
        text_str(t, g->rec.cur.side == WHITE ? "White ran out of time."
                                             : "Black ran out of time.");
    for (int c = WHITE; c <= BLACK; c++) {
        if (proof[c].kind == DEAD_UNPROVEN)
            continue;
        text_str(t, " ");
        dead_proof_text(&proof[c], (enum color)c, t);
    }
}

/* The game's PGN: its result and Termination (the table of endings'
 * values) once ended, with a comment on why for a dead position or a
 * timeout against a side that could not mate; "*" and Termination
 * "normal" while it is live. */
char *game_pgn(const struct game *g)
{
    struct text why = {0};
    bool ended = g->status == GAME_ENDED;
    char date[16] = "????.??.??", tc[32];
    time_t t = (time_t)((g->started_wall ? g->started_wall
                                         : g->created_wall) /
                        1000);
    struct tm tm;
    char site[64], event[48], elo[2][16], diff[2][16], lag[2][24];
    int64_t lag_ms[2];
    const char *cat = rating_category_name(rating_category(&g->clock.spec));

    if (gmtime_r(&t, &tm))
        strftime(date, sizeof date, "%Y.%m.%d", &tm);
    if (g->clock.spec.per_move)
        snprintf(tc, sizeof tc, "1/%d", g->clock.spec.per_move_s);
    else
        snprintf(tc, sizeof tc, "%d+%d", g->clock.spec.initial_s,
                 g->clock.spec.increment_s);
    snprintf(site, sizeof site, "/g/%s", g->gid);
    snprintf(event, sizeof event, "%s %s game", g->rated ? "Rated" : "Casual",
             cat);
    struct pgn_tags tags = {
        .event = event,
        .site = site,
        .date = date,
        .white = g->seat[0].name[0] ? g->seat[0].name : "?",
        .black = g->seat[1].name[0] ? g->seat[1].name : "?",
        .result = ended ? ending_result_name(g->result) : "*",
        .time_control = tc,
        .termination = ended ? ending_get(g->reason)->termination : "normal",
        .eco = g->opening ? opening_eco(g->opening) : NULL,
        .opening = g->opening ? opening_name(g->opening) : NULL,
    };
    if (g->rated && g->rated_end) {
        struct proto_rating_change c = game_change_of(g->before, g->after);
        for (int i = 0; i < 2; i++) {
            snprintf(elo[i], sizeof elo[i], "%ld", c.before[i]);
            snprintf(diff[i], sizeof diff[i], "%s%ld",
                     c.after[i] > c.before[i] ? "+" : "",
                     c.after[i] - c.before[i]);
        }
        tags.white_rating_diff = diff[0];
        tags.black_rating_diff = diff[1];
    } else if (g->rated) {
        for (int i = 0; i < 2; i++)
            snprintf(elo[i], sizeof elo[i], "%ld",
                     rating_round(g->shown_rating[i]));
    }
    if (g->rated && (g->rated_end || (g->shown[0] && g->shown[1]))) {
        tags.white_elo = elo[0];
        tags.black_elo = elo[1];
    }
    struct pgn_give gives[GAME_GIFTS_MAX];
    for (int i = 0; i < g->n_gifts; i++)
        gives[i] = (struct pgn_give){g->gifts[i].ply, g->gifts[i].color,
                                     GAME_GIVE_MS / 1000};
    tags.gives = gives;
    tags.n_gives = (size_t)g->n_gifts;
    if (!g->clock.spec.per_move) { /* a per-move clock gives no credit */
        game_lag_totals(g, lag_ms);
        for (int i = 0; i < 2; i++)
            snprintf(lag[i], sizeof lag[i], "%" PRId64 ".%03" PRId64,
                     lag_ms[i] / 1000, lag_ms[i] % 1000);
        tags.white_lag_total = lag[0];
        tags.black_lag_total = lag[1];
    }
    proof_comment(g, &why);
    if (why.failed) {
        free(why.p);
        return NULL;
    }
    tags.comment = why.p;
    char *pgn = pgn_of(g, &tags);
    free(why.p);
    return pgn;
}

/* The game's moves as they were journaled: a malloc'ed array of rec.n
 * (caller frees), NULL when empty or out of memory. */
struct store_move *game_journal(const struct game *g)
{
    struct store_move *v = g->rec.n ? calloc(g->rec.n, sizeof *v) : NULL;

    for (size_t i = 0; v && i < g->rec.n; i++)
        ply_to_row(&g->plies[i], (int)i + 1, &v[i]);
    return v;
}

/* ---- the lag credit ---------------------------------------------------- */

/* The lag quota of colour c for its next clocked move: what is left, plus
 * the move's gain, capped (tunables.h: LAG_QUOTA_*). */
static int64_t lag_quota_now(const struct game *g, int c)
{
    int64_t q;

    assert(is_color(c));
    q = g->lag_quota[c] + LAG_QUOTA_GAIN_MS;
    return q < LAG_QUOTA_MAX_MS ? q : LAG_QUOTA_MAX_MS;
}

/* Colour c's clocked move got `lag` (at most lag_quota_now): the quota
 * left. */
static void lag_spend(struct game *g, int c, int64_t lag)
{
    int64_t q = lag_quota_now(g, c) - lag;

    g->lag_quota[c] = q > 0 ? q : 0;
}

/* The credit of a move: the one-way estimate est, at most
 * LAG_CREDIT_MAX_MS, the quota and the time `took` that the move took on
 * the server's clock; never below 0. */
static int64_t lag_credit(int64_t quota, int64_t est, int64_t took)
{
    int64_t c = est;

    if (c > LAG_CREDIT_MAX_MS)
        c = LAG_CREDIT_MAX_MS;
    if (c > quota)
        c = quota;
    if (c > took)
        c = took;
    return c > 0 ? c : 0;
}

/* ---- replay ------------------------------------------------------------ */

/* Room for one more ply, doubling from 4 (48 bytes a ply: 9,000 idle
 * games are counted in bytes per connection). */
static int reserve(struct game *g)
{
    /* (most idle games hold a few plies) */
    struct ply *p = grow_array(g->plies, &g->cap, g->rec.n, sizeof *p, 4);

    if (!p)
        return -1;
    g->plies = p;
    return 0;
}

/* Plays the journal moves[0..n-1] onto g's record and plies (with the
 * takebacks and time given among them: game_replay_event), and sets the
 * clocks as the last row left them, the side to move charged up to
 * heartbeat_ms. Returns 0, or -1 with the cause in *cause. */
static int replay(struct game *g, const struct store_move *moves, size_t n,
                  int64_t heartbeat_ms, const char **cause)
{
    int side = g->rec.start.side;

    for (size_t i = 0; i < n; i++) {
        size_t at = g->rec.n;
        int ev = game_replay_event(g, &moves[i]);
        move_t m;
        if (ev < 0) {
            *cause = "a takeback or time given in the journal does not fit";
            return -1;
        }
        if (ev > 0)
            continue;
        if (reserve(g) < 0)
            return -1;
        if (notation_parse_uci(&g->rec.cur, moves[i].uci, &m) != 0) {
            *cause = "a move in the journal is not legal";
            return -1;
        }
        if (record_push(&g->rec, m) < 0)
            return -1;
        ply_of_row(&g->plies[at], &moves[i]);
        if (at >= 2) /* the quota as play left it */
            lag_spend(g, (int)(side + at) % 2, g->plies[at].lag_ms);
    }
    g->opening = opening_of(&g->rec);
    if (n > 0) {
        g->clock.left_ms[WHITE] = moves[n - 1].white_ms;
        g->clock.left_ms[BLACK] = moves[n - 1].black_ms;
    }
    if (g->rec.n >= 2 && heartbeat_ms > moves[n - 1].wall_ms) {
        int stm = g->rec.cur.side;
        int64_t left = g->clock.left_ms[stm] -
                       (heartbeat_ms - moves[n - 1].wall_ms);
        g->clock.left_ms[stm] = left > 0 ? left : 0;
    }
    return 0;
}

/* A restored correspondence game waits for nobody: its turn begins at
 * once (the pause ends now), the side to move's clock as replay charged
 * it, and a pending first move's time goes on from what was used of it
 * up to the previous run's heartbeat (the time down counts for no one,
 * as for the clocks). */
static void restore_corr(struct game *g, const struct store_game *row,
                         const struct store_move *moves, size_t n,
                         int64_t heartbeat_ms, int64_t now)
{
    int64_t since = n == 0 ? row->started_ms : moves[n - 1].wall_ms;

    g->pause_until = now;
    if (n < 2 && since > 0 && heartbeat_ms > since) {
        int64_t used = heartbeat_ms - since, full = game_first_move_ms(g);
        g->first_used_ms = used < full ? used : full;
    }
}

/* The end of an ended game's row onto g: its ending, clocks and rating
 * change. Returns 0, or -1 when the row's result and reason are no
 * ending. */
static int restore_end(struct game *g, const struct store_game *row,
                       int64_t now)
{
    const struct ending *e = ending_find(row->reason);

    if (!e || ending_result_find(row->result, &g->result) < 0 ||
        !ending_result_fits(e->reason, g->result))
        return -1;
    g->reason = e->reason;
    g->status = GAME_ENDED;
    g->ended_wall = row->ended_ms;
    g->clock.left_ms[WHITE] = row->white_ms;
    g->clock.left_ms[BLACK] = row->black_ms;
    g->draw_offer = -1;
    g->actor = -1;
    g->linger_until = now + LIMIT_ENDED_LINGER_MS;
    if (g->rated && row->rd_before[0] > 0) {
        g->rated_end = true;
        for (int c = 0; c < 2; c++) {
            g->before[c] = row->rating_before[c];
            g->after[c] = row->rating_after[c];
            g->rd_before[c] = row->rd_before[c];
        }
    }
    return 0;
}

struct game *game_restore(const struct game_env *env,
                          const struct store_game *row,
                          const struct store_move *moves, size_t n,
                          int64_t heartbeat_ms, int64_t now, const char **why)
{
    struct clock_spec spec = {row->clock.per_move, row->clock.initial_s,
                              row->clock.increment_s, row->clock.per_move_s};
    struct board start;
    struct game *g;
    int64_t wall = env->wall_ms(env->ctx);
    const char *cause = "out of memory";
    int err = board_from_fen(&start, row->initial_fen);

    if (err != FEN_OK) {
        if (why)
            *why = board_fen_strerror(err);
        return NULL;
    }
    g = game_alloc(env, row->gid, &spec, &start);
    if (!g)
        goto fail;
    snprintf(g->seat[0].pid, sizeof g->seat[0].pid, "%s", row->white_pid);
    snprintf(g->seat[0].name, sizeof g->seat[0].name, "%s", row->white_name);
    snprintf(g->seat[1].pid, sizeof g->seat[1].pid, "%s", row->black_pid);
    snprintf(g->seat[1].name, sizeof g->seat[1].name, "%s", row->black_name);
    snprintf(g->creator, sizeof g->creator, "%s", row->creator_pid);
    g->created_wall = row->created_ms;
    g->started_wall = row->started_ms;
    g->rated = row->rated != 0;
    if (!heartbeat_ms && clock_spec_correspondence(&spec))
        heartbeat_ms = wall; /* unknown: the days a move are not given
                                back for a downtime of minutes */
    if (replay(g, moves, n, heartbeat_ms, &cause) < 0)
        goto fail;
    if (!strcmp(row->draw_offer, "white"))
        g->draw_offer = WHITE;
    else if (!strcmp(row->draw_offer, "black"))
        g->draw_offer = BLACK;
    if (!strcmp(row->status, "ended")) {
        if (restore_end(g, row, now) < 0) {
            cause = "the stored result and reason are not an ending";
            goto fail;
        }
    } else if (!strcmp(row->status, "waiting")) {
        int64_t left = row->created_ms + LIMIT_INVITE_MS - wall;
        g->status = GAME_WAITING;
        g->invite_deadline = now + (left > 0 ? left : 0);
    } else {
        g->status = GAME_STARTED;
        g->paused = true;
        g->pause_until = now + env->grace_ms;
        g->seat[0].gone_since = g->seat[1].gone_since = now;
        if (game_corr(g))
            restore_corr(g, row, moves, n, heartbeat_ms, now);
    }
    game_rearm(g);
    return g;
fail:
    if (why)
        *why = cause;
    game_free(g);
    return NULL;
}

/* ---- moves and claims -------------------------------------------------- */

/* The clock nc (a copy of the game's) after the mover's move at now:
 * the mover's press, charged only the time beyond its lag credit
 * (returned; 0 unless its own clock ran). *next is whose clock starts
 * with the next turn (-1: none), *first whether it is a first move. */
static int64_t press(const struct game *g, struct clock *nc, int mover,
                     int64_t lag_est, int64_t now, int *next, bool *first)
{
    int64_t lag = 0;

    assert(mover == side_to_move(g) && g->status == GAME_STARTED &&
           g->flagged < 0);
    *next = -1;
    *first = false;
    if (g->rec.n == 0) {
        *first = true;
    } else if (g->rec.n == 1) {
        if (!g->paused)
            *next = 1 - mover;
    } else {
        if (nc->running != mover) /* paused, or its turn still held */
            clock_start(nc, mover, now);
        else if (!nc->spec.per_move)
            lag = lag_credit(lag_quota_now(g, mover), lag_est,
                             now - nc->since_ms);
        nc->since_ms += lag; /* charged only the time beyond the credit */
        clock_press(nc, now);
        clock_pause(nc, now); /* the opponent's turn begins in play */
        if (!g->paused)
            *next = 1 - mover;
    }
    return lag;
}

/* Journals legal move m (one of before[0..n_before-1]) with the clock nc
 * after it and its lag credit, its row in *sm, and pushes it onto the
 * record. Returns 0, or -1 when the store is full or out of memory (the
 * game unchanged then). */
static int journal_move(struct game *g, const move_t *before, int n_before,
                        move_t m, const struct clock *nc, int64_t lag,
                        int64_t now, struct store_move *sm)
{
    uint64_t seq;

    memset(sm, 0, sizeof *sm);
    sm->ply = (int)g->rec.n + 1;
    notation_uci(m, sm->uci);
    notation_san_in(&g->rec.cur, before, n_before, m, sm->san);
    sm->white_ms = clock_left(nc, WHITE, now);
    sm->black_ms = clock_left(nc, BLACK, now);
    sm->wall_ms = g->env.wall_ms(g->env.ctx);
    sm->lag_ms = lag;
    seq = g->env.put_move(g->env.ctx, g->gid, sm);
    if (!seq || record_push(&g->rec, m) < 0)
        return -1;
    assert(g->rec.n == (size_t)sm->ply);
    game_set_seq(g, seq);
    return 0;
}

/* The move journaled as *sm (the record's last) is played: the game takes
 * its clock nc, its ply and the opening it reached (opening_after: one
 * lookup); the mover's lag quota and draw-offer rights renew, and the
 * opponent's pending offer lapses. */
static void take_move(struct game *g, int mover, const struct clock *nc,
                      const struct store_move *sm, int64_t now)
{
    /* journal_move pushed it: the record's last move, with a ply */
    assert(g->rec.n >= 1 && g->rec.n <= g->cap && sm->ply == (int)g->rec.n);
    g->clock = *nc;
    g->first_deadline = CLOCK_NEVER;
    ply_of_row(&g->plies[g->rec.n - 1], sm);
    g->opening = opening_after(&g->rec, g->opening);
    g->last_lag = sm->lag_ms;
    if (g->rec.n > 2)
        lag_spend(g, mover, sm->lag_ms);
    g->declined[mover] = false;
    g->offered[mover] = false;
    g->takeback = -1; /* a move lets a request lapse, and renews it */
    g->tb_declined[WHITE] = g->tb_declined[BLACK] = false;
    if (g->draw_offer == 1 - mover) { /* the offerer's opponent moved */
        g->draw_offer = -1;
        game_put_row(g, now);
    }
}

/* After the move journaled as *sm: the legal moves of the new position
 * (kept for the next move), its outcome (returned) and `moved` to every
 * subscriber, without the lists, the running clock and the offer once
 * the game is over (by the outcome, or by `claim`, the draw claimed with
 * the move), with the game's opening when it is not `opening_before`,
 * the opening before the move. */
static enum outcome send_moved(struct game *g, const struct store_move *sm,
                               enum claim claim, int opening_before,
                               int64_t now)
{
    bool new_opening = g->opening != opening_before;

    struct movelist legal;        /* of the position after the move */
    move_t with_claim[MOVES_MAX]; /* the legal moves a claim may go with */
    int n_claim = 0;
    bool claimable = false;
    enum outcome outcome;

    movegen_legal(&g->rec.cur, &legal);
    outcome = record_outcome_n(&g->rec, legal.n);
    notation_sort_uci(legal.moves, legal.n);
    keep_legal(g, legal.moves, legal.n);
    if (outcome == OUTCOME_NONE && claim == CLAIM_NONE)
        n_claim = claim_moves(g, legal.moves, legal.n, with_claim,
                              &claimable);
    else
        legal.n = 0; /* no list once the game is over */
    struct proto_moved mv = {
        .game = g->gid,
        .ply = (int)g->rec.n,
        .uci = sm->uci,
        .san = sm->san,
        .board = &g->rec.cur,
        .check = board_in_check(&g->rec.cur),
        .clocks = game_clocks_at(g, now),
        .first_move_ms = game_first_move_left(g, now),
        .lag_ms = sm->lag_ms,
        .rtt_ms = g->seat[1 - side_to_move(g)].rtt_ms,
        .draw_offer = g->draw_offer,
        .legal = legal.moves,
        .n_legal = (size_t)legal.n,
        .claimable = claimable,
        .claim_moves = with_claim,
        .n_claim = (size_t)n_claim,
        .opening_eco = new_opening ? opening_eco(g->opening) : NULL,
        .opening_name = new_opening ? opening_name(g->opening) : NULL,
    };
    if (outcome != OUTCOME_NONE || claim != CLAIM_NONE) {
        mv.clocks.running = -1;
        mv.first_move_ms = -1;
        mv.draw_offer = -1;
    }
    game_broadcast_moved(g, &mv);
    return outcome;
}

/* The ending of an upheld draw claim. */
static enum ending_reason claim_ending(enum claim claim)
{
    return claim == CLAIM_THREEFOLD ? ENDING_THREEFOLD : ENDING_FIFTY_MOVES;
}

/* Ends the game the mover's move decided: by its outcome, or by the draw
 * `claim` it was played with (CLAIM_NONE: none). Only a mate gives a
 * win: the mover's (game_conclude takes a winner only for a win). */
static void end_by(struct game *g, enum outcome outcome, enum claim claim,
                   int mover, int64_t now)
{
    static const enum ending_reason by_outcome[] = {
        [OUTCOME_CHECKMATE] = ENDING_CHECKMATE,
        [OUTCOME_STALEMATE] = ENDING_STALEMATE,
        [OUTCOME_DEAD] = ENDING_DEAD_POSITION,
        [OUTCOME_FIVEFOLD] = ENDING_FIVEFOLD,
        [OUTCOME_SEVENTY_FIVE] = ENDING_SEVENTY_FIVE_MOVES,
    };

    assert((size_t)outcome < sizeof by_outcome / sizeof by_outcome[0]);
    if (outcome != OUTCOME_NONE)
        game_conclude(g, by_outcome[outcome], mover, now);
    else if (claim != CLAIM_NONE)
        game_conclude(g, claim_ending(claim), mover, now);
}

/* Plays legal move m for the side to move, one of before[0..n_before-1]
 * (legal_now's); `claim` is the draw that a claim with this move
 * asked for (CLAIM_NONE for a plain move). */
static int play(struct game *g, const move_t *before, int n_before, move_t m,
                enum claim claim, int64_t lag_est, int64_t now,
                struct proto_error *err)
{
    int mover = side_to_move(g);
    struct clock nc = g->clock;
    int next;   /* whose clock starts with the next turn */
    bool first; /* the next turn is a first move */
    struct store_move sm;
    int64_t lag;
    int opening = g->opening;

    if (reserve(g) < 0)
        return game_busy(err);
    lag = press(g, &nc, mover, lag_est, now, &next, &first);
    if (journal_move(g, before, n_before, m, &nc, lag, now, &sm) < 0)
        return game_busy(err);
    take_move(g, mover, &nc, &sm, now);
    game_begin_turn(g, next, first, now);
    /* before is not used below: it may be the kept list, replaced here */
    end_by(g, send_moved(g, &sm, claim, opening, now), claim, mover, now);
    return 0;
}

/* The legal move of the side to move that uci names, with all its legal
 * moves in *legal (*n of them: legal_now's, scratch its room). Returns 0,
 * or -1 with the error. */
static inline int parse_move(struct game *g, const char *uci,
                             struct movelist *scratch, const move_t **legal,
                             int *n, move_t *m, struct proto_error *err)
{
    if (!notation_uci_well_formed(uci))
        return game_set_err(err, PROTO_BAD_FIELD, "uci: malformed");
    *legal = legal_now(g, scratch, n);
    if (notation_uci_in(*legal, *n, uci, m) < 0)
        return game_set_err(err, PROTO_ILLEGAL_MOVE,
                            "that move is not legal");
    return 0;
}

int game_move(struct game *g, const char *pid, const char *uci, int ply,
              int64_t now, struct proto_error *err)
{
    return game_move_lag(g, pid, uci, ply, 0, now, err);
}

int64_t game_last_lag_ms(const struct game *g)
{
    return g->last_lag;
}

int game_move_lag(struct game *g, const char *pid, const char *uci, int ply,
                  int64_t rtt_ms, int64_t now, struct proto_error *err)
{
    struct movelist scratch;    /* touched only when the list is not kept */
    const move_t *legal = NULL; /* (parse_move sets both: for gcc -O2) */
    move_t m;
    int c, n = 0, rc;

    game_tick(g, now);
    if (game_check_player(g, pid, &c, err) < 0)
        return -1;
    if (ply != (int)g->rec.n)
        return game_set_err(err, PROTO_STALE_PLY,
                            "ply does not match the moves played so far");
    if (c != side_to_move(g))
        return game_set_err(err, PROTO_NOT_YOUR_TURN, "it is not your turn");
    if (parse_move(g, uci, &scratch, &legal, &n, &m, err) < 0)
        return -1;
    if (rtt_ms > 0) /* what moved shows of the mover's connection */
        g->seat[c].rtt_ms = rtt_ms;
    rc = play(g, legal, n, m, CLAIM_NONE, rtt_ms / 2, now, err);
    game_rearm(g);
    return rc;
}

int game_claim(struct game *g, const char *pid, const char *uci, int ply,
               int64_t now, struct proto_error *err)
{
    struct movelist scratch;
    const move_t *legal = NULL;
    enum claim claim;
    move_t m;
    int c, n = 0, rc;

    game_tick(g, now);
    if (game_check_player(g, pid, &c, err) < 0)
        return -1;
    if (ply >= 0 && ply != (int)g->rec.n)
        return game_set_err(err, PROTO_STALE_PLY,
                            "ply does not match the moves played so far");
    if (c != side_to_move(g))
        return game_set_err(err, PROTO_NOT_YOUR_TURN,
                            "only the player to move may claim");
    if (uci[0]) {
        if (parse_move(g, uci, &scratch, &legal, &n, &m, err) < 0)
            return -1;
        claim = record_claim_with(&g->rec, m);
        if (claim == CLAIM_NONE)
            return game_set_err(err, PROTO_CLAIM_REJECTED,
                                "that move completes neither threefold "
                                "repetition nor 50 moves");
        rc = play(g, legal, n, m, claim, 0, now, err);
        game_rearm(g);
        return rc;
    }
    claim = record_claim_now(&g->rec);
    if (claim == CLAIM_NONE)
        return game_set_err(err, PROTO_CLAIM_REJECTED,
                            "no threefold repetition and fewer than 50 moves "
                            "without capture or pawn move");
    game_conclude(g, claim_ending(claim), -1, now);
    game_rearm(g);
    return 0;
}
