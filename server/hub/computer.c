/*
 * computer.c - playing the computer (PROTOCOL.md, "Playing the
 * computer"): the `computer` command starts a casual game against the
 * engine pool (engine/pool.h) at one of the levels of engine/levels.h,
 * and the module plays the computer's seat.
 *
 * The computer is a player without a connection: its seat holds the
 * PID and name proto_ai_player gives (proto.h: "stockfish-L", "Stockfish
 * level L"), with a row in the store's players like a guest's, so the
 * game is stored, listed, exported and restored as any other. Its moves
 * take a human's path: game_move_lag on the loop, journaled, on its
 * clock, with every ending; it gets no lag credit. Nothing marks a game
 * as the computer's but that PID in a seat.
 *
 * When its turn begins (game_env's turn, through the module's hook: the
 * move before it released, so its clock runs) the module asks the pool
 * for a move, on the next tick of its alarm (never inside the game's
 * call). The request carries the position (the start FEN and the
 * moves), the level's options and limits, both clocks, and the moment
 * its clock would run out as its deadline: the time the engine takes,
 * queue included, is charged to the computer's clock. Its move time is
 * the level's, cut to what its clock allows (clock_budget), so that it
 * does not lose on time by design, except at the shortest clocks.
 *
 * The answer comes back on the loop (the module's wake collects the
 * pool's answers) and is played when the game still waits for it: the
 * same game, started, the computer to move at the ply it was asked.
 * A failed answer (the pool tried twice) is asked again; after
 * COMPUTER_FAILURES_MAX in a row the computer resigns, so a broken
 * engine never hangs a game, even on a day-long per-move clock. A
 * request the queue refuses is asked again COMPUTER_RETRY_MS later.
 *
 * Restarts and clusters. A game restored from the store, adopted from a
 * dead node or handed over (the module's game_hosted) has the
 * computer's seat present again at once; when its player comes back the
 * game resumes and, if it is the computer's move, its turn begins and
 * the engine of this node is asked: a request in flight on a node that
 * died is asked again by the new host.
 */
#include "hub/hub_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/levels.h"
#include "engine/pool.h"
#include "lib/addrkey.h"
#include "lib/ids.h"
#include "lib/log.h"

/* Failed answers in a row (each two tries on fresh engines) before the
 * computer resigns: its engine is broken, and the game ends. */
#define COMPUTER_FAILURES_MAX 3
/* A move the engines' queue refused is asked again this much later. */
#define COMPUTER_RETRY_MS 100
/* The fewest milliseconds of thinking asked for: below this Stockfish's
 * `go movetime` answers from its first iteration anyway. */
#define COMPUTER_MOVETIME_MIN 10

/* A game of the computer's that waits for something of the module's. */
struct pending {
    char gid[PROTO_KEY_MAX + 1];
    int asked;        /* the ply asked for (-1: nothing in flight) */
    bool due;         /* its turn began: ask at the next tick */
    int64_t retry_at; /* the queue was full: ask again then */
    int failures;     /* failed answers in a row */
};

/* A live game against the computer started here, and the address it
 * counts against (max_computer_games_per_ip) until it ends. */
struct counted {
    char gid[PROTO_KEY_MAX + 1];
    char addr[ADDRKEY_MAX];
};

/* An address's live games against the computer. */
struct per_addr {
    char key[ADDRKEY_MAX];
    int games;
};

struct computer {
    struct hub *h;
    struct table pending; /* gid -> struct pending */
    struct table counted; /* gid -> struct counted */
    struct table addrs;   /* address key -> struct per_addr */
    struct hub_alarm *tick;
    int64_t tick_at; /* when it is armed (CLOCK_NEVER: not) */
};

const struct hub_module hub_computer_module;

static struct computer *state(struct hub *h)
{
    return hub_module_state(h, &hub_computer_module);
}

/* The computer's colour in g, or -1 when it plays no seat. */
static int computer_color(const struct game *g)
{
    for (int c = 0; c < 2; c++)
        if (proto_ai_level(game_seat_pid(g, c)))
            return c;
    return -1;
}

static struct pending *pending_get(struct computer *c, const char *gid)
{
    struct pending *p = table_get(&c->pending, gid);

    if (p)
        return p;
    p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    snprintf(p->gid, sizeof p->gid, "%s", gid);
    p->asked = -1;
    p->retry_at = CLOCK_NEVER;
    if (table_put(&c->pending, p->gid, p) < 0) {
        free(p);
        return NULL;
    }
    return p;
}

static void pending_drop(struct computer *c, struct pending *p)
{
    table_del(&c->pending, p->gid);
    free(p);
}

/* The level's move time, cut to what the clock allows: a thirtieth of
 * the time left and most of the increment (a per-move clock: a
 * quarter of the move's time). */
static int64_t clock_budget(const struct engine_level *l,
                            const struct clock_spec *spec, int64_t left)
{
    int64_t cap = spec->per_move
                      ? left / 4
                      : left / 30 + (int64_t)spec->increment_s * 750;
    int64_t t = l->movetime_ms < cap ? l->movetime_ms : cap;

    return t > COMPUTER_MOVETIME_MIN ? t : COMPUTER_MOVETIME_MIN;
}

static void on_answer(void *arg, const struct engine_answer *a);

/* The moves of g from its start, in UCI, separated by spaces
 * (malloc'ed; NULL when out of memory). */
static char *moves_of(const struct game *g)
{
    int n = game_ply(g);
    char *text = malloc((size_t)n * UCI_MAX + 1), *p = text;

    if (!text)
        return NULL;
    *p = '\0';
    for (int i = 0; i < n; i++)
        p += sprintf(p, "%s%s", i ? " " : "", game_move_uci(g, i));
    return text;
}

/* Asks the pool for the computer's move in g (its turn). */
static void ask(struct computer *c, struct pending *p, struct game *g,
                int64_t now)
{
    int color = game_side_to_move(g);
    const struct engine_level *l = engine_level(
        proto_ai_level(game_seat_pid(g, color)));
    const struct clock_spec *spec = game_clock_spec(g);
    int64_t left = game_time_left(g, color, now);
    struct engine_ask q = {
        .tag = game_gid(g),
        .cookie = (uint64_t)game_ply(g),
        .deadline_ms = now + (left > 1 ? left : 1),
        .prio = ENGINE_PRIO_PLAY,
        .done = on_answer,
        .arg = c,
    };
    char *moves = moves_of(g);

    q.fen = strcmp(game_initial_fen(g), FEN_START) ? game_initial_fen(g)
                                                   : NULL;
    q.moves = moves;
    engine_level_ask(l, &q);
    q.budget.movetime_ms = clock_budget(l, spec, left);
    q.budget.clock = !spec->per_move;
    q.budget.wtime_ms = game_time_left(g, 0, now);
    q.budget.btime_ms = game_time_left(g, 1, now);
    q.budget.winc_ms = q.budget.binc_ms = (int64_t)spec->increment_s * 1000;
    p->due = false;
    if (moves && engine_pool_ask(c->h->env.engines, &q) == 0) {
        p->asked = game_ply(g);
        p->retry_at = CLOCK_NEVER;
    } else {
        log_warn("event=computer_queue_full game=%s", p->gid);
        p->retry_at = now + COMPUTER_RETRY_MS;
    }
    free(moves);
}

/* g waits for the computer's move now: started, not over on time, the
 * computer to move. */
static bool computer_to_move(struct game *g)
{
    return game_status(g) == GAME_STARTED &&
           game_side_to_move(g) == computer_color(g);
}

/* The alarm rings at `at` at the latest. */
static void arm(struct computer *c, int64_t at)
{
    if (at < c->tick_at) {
        c->tick_at = at;
        hub_alarm_arm(c->h, c->tick, at);
    }
}

/* p's game, if its time has come (its turn began, or its request is to
 * be asked again): asked. False when p was dropped (nothing to wait
 * for). */
static bool tick_one(struct computer *c, struct pending *p, int64_t now)
{
    struct game *g;

    if (!p->due && p->retry_at > now)
        return true;
    g = hub_game(c->h, p->gid);
    if (!g || !computer_to_move(g)) {
        if (p->asked < 0) {
            pending_drop(c, p);
            return false;
        }
        p->due = false;
        p->retry_at = CLOCK_NEVER;
    } else if (p->asked != game_ply(g)) {
        ask(c, p, g, now);
    } else {
        p->due = false;
    }
    return true;
}

/* The alarm: the games whose turn began are asked, and those whose
 * request the queue refused when their time has come; then it is armed
 * at the next retry. */
static void tick(void *arg)
{
    struct computer *c = arg;
    int64_t now = hub_now_ms(c->h);

    c->tick_at = CLOCK_NEVER;
    for (size_t i = 0; i < c->pending.cap; i++) {
        struct pending *p = c->pending.slots[i].value;
        if (p && tick_one(c, p, now) && p->retry_at != CLOCK_NEVER)
            arm(c, p->retry_at);
    }
}

/* The computer's move: played if its game still waits for it. */
static void play(struct computer *c, struct pending *p, struct game *g,
                 const struct engine_answer *a, int64_t now)
{
    struct hub *h = c->h;
    int color = game_side_to_move(g);
    const char *pid = game_seat_pid(g, color);
    struct proto_error err;

    if (a->status == ENGINE_OK) {
        if (!h->router.ops->leased(h->router.ctx)) {
            p->retry_at = now + COMPUTER_RETRY_MS; /* (router.h) */
            arm(c, p->retry_at);
            return;
        }
        p->failures = 0;
        if (game_move_lag(g, pid, a->bestmove, (int)a->cookie, 0, now, &err) <
            0)
            log_warn("event=computer_move_refused game=%s move=%s code=%s",
                     p->gid, a->bestmove, proto_code_name(err.code));
        return;
    }
    if (a->status == ENGINE_EXPIRED)
        return; /* (its clock ran out: the game's timer ends it) */
    if (++p->failures < COMPUTER_FAILURES_MAX) {
        p->due = true;
        arm(c, now);
        return;
    }
    log_error("event=computer_resigned game=%s failures=%d reason=%s", p->gid,
              p->failures, engine_fault_name(a->fault));
    game_resign(g, pid, now, &err);
}

static void on_answer(void *arg, const struct engine_answer *a)
{
    struct computer *c = arg;
    struct pending *p = table_get(&c->pending, a->tag);
    struct game *g = hub_game(c->h, a->tag);
    int64_t now = hub_now_ms(c->h);

    if (!p || p->asked != (int)a->cookie)
        return; /* (asked again since, or the game went) */
    p->asked = -1;
    if (!g || !computer_to_move(g) || game_ply(g) != (int)a->cookie) {
        pending_drop(c, p);
        return;
    }
    play(c, p, g, a, now);
    if (p->asked < 0 && !p->due && p->retry_at == CLOCK_NEVER)
        pending_drop(c, p);
}

/* ---- the games of an address ------------------------------------------ */

/* The live games against the computer of the address key. */
static int addr_games(struct computer *c, const char *key)
{
    struct per_addr *a = table_get(&c->addrs, key);

    return a ? a->games : 0;
}

/* g, started for address key, counts against it. 0, or -1 when out of
 * memory (then it does not count). */
static int addr_count(struct computer *c, const struct game *g,
                      const char *key)
{
    struct per_addr *a = table_get(&c->addrs, key);
    struct counted *k = calloc(1, sizeof *k);

    if (!k)
        return -1;
    snprintf(k->gid, sizeof k->gid, "%s", game_gid(g));
    snprintf(k->addr, sizeof k->addr, "%s", key);
    if (!a && (a = calloc(1, sizeof *a)) != NULL) {
        snprintf(a->key, sizeof a->key, "%s", key);
        if (table_put(&c->addrs, a->key, a) < 0) {
            free(a);
            a = NULL;
        }
    }
    if (!a || table_put(&c->counted, k->gid, k) < 0) {
        free(k);
        return -1;
    }
    a->games++;
    return 0;
}

/* The game gid no longer counts against its address (it ended or left
 * memory); nothing when it did not. */
static void addr_release(struct computer *c, const char *gid)
{
    struct counted *k = table_del(&c->counted, gid);
    struct per_addr *a = k ? table_get(&c->addrs, k->addr) : NULL;

    if (a && --a->games <= 0)
        free(table_del(&c->addrs, a->key));
    free(k);
}

/* ---- the module's hooks ------------------------------------------------ */

static void turn(struct hub *h, struct game *g, int64_t now)
{
    struct computer *c = state(h);
    struct pending *p;

    if (!h->env.engines || game_side_to_move(g) != computer_color(g))
        return;
    p = pending_get(c, game_gid(g));
    if (!p) {
        log_error("event=computer_out_of_memory game=%s", game_gid(g));
        return;
    }
    p->due = true;
    arm(c, now);
}

/* A restored or adopted game: the computer is back in its seat at once
 * (its turn, if it is its move, begins when its player is back too). */
static void game_hosted(struct hub *h, struct game *g, int64_t now)
{
    int color = computer_color(g);

    (void)h;
    if (color >= 0)
        game_player_back(g, color, now);
}

static void wake(struct hub *h)
{
    engine_pool_collect(h->env.engines);
}

/* Forgets the games that left memory without a word (handed over). */
static void sweep(struct hub *h, int64_t now)
{
    struct computer *c = state(h);

    (void)now;
    for (size_t i = 0; i < c->pending.cap; i++) {
        struct pending *p = c->pending.slots[i].value;
        if (p && !hub_game(h, p->gid))
            pending_drop(c, p);
    }
    for (size_t i = 0; i < c->counted.cap; i++) {
        struct counted *k = c->counted.slots[i].value;
        if (k && !hub_game(h, k->gid))
            addr_release(c, k->gid);
    }
}

static void game_ended(struct hub *h, struct game *g)
{
    addr_release(state(h), game_gid(g));
}

static void game_gone(struct hub *h, struct game *g)
{
    struct computer *c = state(h);
    struct pending *p = table_get(&c->pending, game_gid(g));

    if (p)
        pending_drop(c, p);
    addr_release(c, game_gid(g));
}

static int init(struct hub *h)
{
    struct computer *c = calloc(1, sizeof *c);

    if (!c)
        return -1;
    c->h = h;
    table_init(&c->pending);
    table_init(&c->counted);
    table_init(&c->addrs);
    c->tick = hub_alarm_new(h, tick, c);
    c->tick_at = CLOCK_NEVER;
    if (!c->tick) {
        free(c);
        return -1;
    }
    hub_module_set_state(h, &hub_computer_module, c);
    return 0;
}

static void free_state(struct hub *h)
{
    struct computer *c = state(h);

    if (!c)
        return;
    for (size_t i = 0; i < c->pending.cap; i++)
        free(c->pending.slots[i].value);
    for (size_t i = 0; i < c->counted.cap; i++)
        free(c->counted.slots[i].value);
    for (size_t i = 0; i < c->addrs.cap; i++)
        free(c->addrs.slots[i].value);
    table_clear(&c->pending);
    table_clear(&c->counted);
    table_clear(&c->addrs);
    hub_alarm_free(h, c->tick);
    free(c);
}

/* ---- the command ------------------------------------------------------- */

/* The live games of p against the computer, in this node's memory. */
static int computer_games(struct hub *h, const struct player *p)
{
    int n = 0;

    for (size_t i = 0; i < p->ngames; i++) {
        struct game *g = hub_game(h, p->games[i].gid);
        if (g && game_status(g) != GAME_ENDED && computer_color(g) >= 0)
            n++;
    }
    return n;
}

/* The computer's row in the store's players (a game's seat names a
 * player): written, or rewritten, with each new game, so the purge of
 * unplayed guests never finds it old and unplayed. */
static uint64_t put_computer(struct hub *h, int level)
{
    struct store_player sp;
    char token[64];

    memset(&sp, 0, sizeof sp);
    proto_ai_player(level, sp.pid, sp.name);
    if (ids_random(token, 32) < 0)
        return 0;
    ids_token_hash(token, sp.token_hash); /* (held by nobody) */
    sp.created_ms = hub_wall_ms(h);
    return store_put_player(h->store, &sp);
}

/* computer: checks in PROTOCOL.md's order, then the game starts at once
 * (game_start and state, as after a pairing). */
static void do_computer(struct session *s, const struct proto_msg *m,
                        int64_t now)
{
    struct hub *h = s->hub;
    struct computer *c = state(h);
    struct game_seat_init seats[2];
    char pid[PROTO_KEY_MAX + 1], name[PROTO_NAME_MAX + 1], msg[96];
    char key[ADDRKEY_MAX];
    struct board start;
    struct game *g;
    int color = m->color == PROTO_WHITE   ? 0
                : m->color == PROTO_BLACK ? 1
                                          : (int)(ids_random_byte() & 1);

    if (!h->env.engines) {
        hub_send_error(s, PROTO_NO_ENGINE,
                       "this server runs no engine: no computer games",
                       &m->id);
        return;
    }
    if (hub_player_full(s, false, &m->id))
        return;
    if (computer_games(h, s->player) >=
        h->cfg.max_computer_games_per_player) {
        snprintf(msg, sizeof msg,
                 "you are playing %d game(s) against the computer: the "
                 "most there may be",
                 h->cfg.max_computer_games_per_player);
        hub_send_error(s, PROTO_TOO_MANY_GAMES, msg, &m->id);
        return;
    }
    hub_addr_key(h, s->ip, key);
    if (addr_games(c, key) >= h->cfg.max_computer_games_per_ip) {
        snprintf(msg, sizeof msg,
                 "your address plays %d games against the computer: the "
                 "most there may be",
                 h->cfg.max_computer_games_per_ip);
        hub_send_error(s, PROTO_TOO_MANY_GAMES, msg, &m->id);
        return;
    }
    if (hub_games_refused(s, NULL, true, &m->id))
        return;
    if (engine_pool_saturated(h->env.engines)) {
        hub_send_error(s, PROTO_BUSY,
                       "the computer's engines are all busy: try again "
                       "in a moment",
                       &m->id);
        return;
    }
    if (!put_computer(h, m->level)) {
        hub_busy(s, &m->id);
        return;
    }
    proto_ai_player(m->level, pid, name);
    seats[color] = (struct game_seat_init){s->player->pid, s->player->name};
    seats[1 - color] = (struct game_seat_init){pid, name};
    if (m->fen[0])
        start = m->start;
    else
        board_from_fen(&start, FEN_START);
    g = hub_start_game(h, &m->clock, &start, seats, s->player->pid, false,
                       now);
    if (!g) {
        hub_busy(s, &m->id);
        return;
    }
    if (addr_count(c, g, key) < 0)
        log_error("event=computer_out_of_memory game=%s", game_gid(g));
    log_info("event=computer_game game=%s level=%d player=%s color=%s",
             game_gid(g), m->level, s->player->pid, proto_color_name(color));
    game_announce_start(g, now);
}

static const struct hub_command commands[] = {
    {PROTO_T_COMPUTER, do_computer, false},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_computer_module = {
    .name = "computer",
    .init = init,
    .free = free_state,
    .wake = wake,
    .sweep = sweep,
    .game_gone = game_gone,
    .game_ended = game_ended,
    .game_hosted = game_hosted,
    .turn = turn,
    .commands = commands,
};
