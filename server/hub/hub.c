/*
 * hub.c - the hub: players, games, routing, presence (see hub.h).
 *
 * A player (struct player) exists in memory while it has a connection or a
 * seat in a live game; its `games` lists those games by GID (never by
 * pointer: all the hub keeps of a game outside its table of games is its
 * GID, so a game may later live elsewhere). A player's
 * connections are not subscribed to its games one by one: the player's
 * `fan`, a session without a connection, is subscribed in their place
 * (with the player's colour), and a message to it goes to every
 * connection of the player. So starting a game costs nothing per
 * connection, and a new connection of the player receives its games'
 * messages from its hello on. Sessions subscribe themselves only as
 * spectators; they remember those GIDs (not pointers), so a game that is
 * freed leaves nothing dangling behind.
 *
 * Per IP address (struct addr) the hub counts the open invitations
 * created from it and meters the new guests it creates; a periodic sweep
 * forgets idle addresses and asks the store to purge guests that never
 * played.
 *
 * Accounts (register, login, logout and their tokens) are account.c's,
 * rematch offers rematch.c's; both share the hub's records through
 * hub_internal.h.
 *
 * Ratings (PROTOCOL.md, "Rated games"). A rated game computes its rating
 * change when it ends (game.c), from the ratings the hub gives it
 * (hub_env_ratings), and hands the new rows to the store with the game's end
 * (one transaction). The hub gives the seats' facts (facts.c: read from
 * the store when the game started or was adopted, and kept current by
 * this node's own ends) overlaid by the `rated` table: the rows of rated
 * ends queued and not committed yet, by "PID/CATEGORY". This node's loop
 * is the only writer of its games' ratings and the store applies writes
 * in order, so this is always the newest value this node knows: a player
 * whose two rated games here end a moment apart (or while the database
 * stalls) has the second computed from the first's result, never from a
 * stale row; and each stored row is an absolute value, so the same end
 * applied twice would leave the same rows. (In a cluster, a rated game
 * of the same player that another node hosts and that ends while this
 * one is played is not seen here: this end starts from the rating read
 * at this game's start. docs/cluster.md says so.)
 */
#include "hub/hub.h"

#include <assert.h>
#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

#include "game/lobby.h"
#include "game/verdict.h"
#include "hub/botaccount.h"
#include "hub/hub_internal.h"
#include "hub/lobbyfeed.h"
#include "hub/reads.h"
#include "lib/log.h"
#include "lib/msgbuf.h"
#include "lib/ratelimit.h"
#include "lib/recent.h"
#include "lib/tunables.h"
#include "store/store.h"

/* ---- helpers ----------------------------------------------------------- */

/* The environment's functions, for brevity. */
int64_t hub_now_ms(struct hub *h)
{
    return h->env.now_ms();
}
int64_t hub_wall_ms(struct hub *h)
{
    return h->env.wall_ms();
}

struct hub_alarm *hub_alarm_new(struct hub *h, void (*cb)(void *arg),
                                void *arg)
{
    return h->env.alarm_new(h->env.ctx, cb, arg);
}

void hub_alarm_arm(struct hub *h, struct hub_alarm *a, int64_t at)
{
    h->env.alarm_arm(h->env.ctx, a, at);
}

void hub_alarm_free(struct hub *h, struct hub_alarm *a)
{
    h->env.alarm_free(h->env.ctx, a);
}

static size_t modules_count(void);
static int modules_init(struct hub *h);
static enum proto_type on_text(struct hub *h, struct session *s,
                               const char *text, size_t len, int64_t now,
                               bool admit);
static bool hold_input(struct session *s, const char *text, size_t len,
                       const struct proto_id *id);
static void moves_committed(struct hub *h);

/* ---- a local connection's session_ops --------------------------------- */

static void local_send(struct session *s, struct msgbuf *b, uint64_t seq)
{
    struct hub *h = s->hub;

    h->env.send(s->conn, b, seq);
}

/* The round trip of a local connection as lag credit believes it: its
 * pings' smoothed one, at most the kernel's (from the ACKs, which no
 * program can hold back as it can a pong) plus lag_rtt_margin_ms; a
 * connection whose kernel tells none is believed the margin at most. */
static int64_t local_rtt_ms(const struct session *s)
{
    const struct hub_env *env = &s->hub->env;
    int64_t rtt = env->rtt_ms ? env->rtt_ms(s->conn) : 0, tcp_us, cap;

    if (rtt <= 0 || !env->tcp_rtt_us)
        return rtt;
    tcp_us = env->tcp_rtt_us(s->conn);
    cap = (tcp_us > 0 ? (tcp_us + 999) / 1000 : 0) +
          s->hub->cfg.lag_rtt_margin_ms;
    return rtt < cap ? rtt : cap;
}

static void local_close(struct session *s, int code, const char *reason)
{
    s->hub->env.drop(s->conn, code, reason);
}

static const struct session_ops local_ops = {local_send, local_rtt_ms,
                                             local_close};

static void session_send(struct session *s, struct msgbuf *b, uint64_t seq);

/* What a connection's player blocked is left out where it is delivered
 * (relation.c): on the node of the connection, which keeps the blocks
 * of its player current, whichever node hosts the game. */
void hub_session_send(struct session *s, struct msgbuf *b, uint64_t seq)
{
    struct msgbuf *own;

    assert(s->ops); /* a fan's messages go to its player's sessions */
    if (!hub_relation_filter(s, b, &own)) {
        session_send(s, b, seq);
    } else if (own) {
        session_send(s, own, seq);
        msgbuf_unref(own);
    }
}

static void session_send(struct session *s, struct msgbuf *b, uint64_t seq)
{
    if (s->hold) { /* nothing before the held first message */
        struct held_msg *m = malloc(sizeof *m);
        if (!m) { /* a message lost: the client must not go on without it */
            log_error("event=send_dropped why=out_of_memory what=held");
            hub_session_close(s, 1011, "out of memory");
            return;
        }
        *m = (struct held_msg){NULL, msgbuf_ref(b), seq};
        if (!s->held)
            s->held_tail = &s->held;
        *s->held_tail = m;
        s->held_tail = &m->next;
        return;
    }
    s->ops->send(s, b, seq);
}

void hub_session_hold(struct session *s, struct msgbuf *b, uint64_t seq)
{
    if (s->hold) /* (a second hold's: the first goes first) */
        hub_session_release(s);
    s->hold = msgbuf_ref(b);
    s->hold_seq = seq;
}

void hub_session_release(struct session *s)
{
    struct msgbuf *w = s->hold;
    struct held_msg *m = s->held;

    if (!w)
        return;
    s->hold = NULL;
    s->held = NULL;
    hub_session_send(s, w, s->hold_seq);
    msgbuf_unref(w);
    while (m) {
        struct held_msg *next = m->next;
        hub_session_send(s, m->b, m->seq);
        msgbuf_unref(m->b);
        free(m);
        m = next;
    }
}

void hub_session_close(struct session *s, int code, const char *reason)
{
    if (s->ops && s->ops->close)
        s->ops->close(s, code, reason);
}

void hub_send_text(struct session *s, char *text, uint64_t seq)
{
    struct msgbuf *b = msgbuf_take(text);

    if (!b) { /* a reply lost: the client must not go on without it */
        log_error("event=send_dropped why=out_of_memory what=reply");
        hub_session_close(s, 1011, "out of memory");
        return;
    }
    hub_session_send(s, b, seq);
    msgbuf_unref(b);
}

void hub_send_error(struct session *s, enum proto_code code, const char *msg,
                    const struct proto_id *id)
{
    s->hub->metrics.rejected[code]++;
    hub_send_text(s, proto_render_error(code, msg, id), 0);
}

void hub_busy(struct session *s, const struct proto_id *id)
{
    hub_send_error(s, PROTO_RATE_LIMITED, "the server is busy; try again",
                   id);
}

void hub_hex(const uint8_t *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

void hub_wake(struct hub *h)
{
    moves_committed(h); /* (timed before the wake's own work) */
    /* (the router first: a game fenced there releases nothing) */
    h->router.ops->wake(h->router.ctx);
    hub_release_held(h);
    verdicts_collect(h->verdicts, hub_on_verdict, h);
    hub_reads_collect(h);
    for (size_t i = 0; hub_modules[i]; i++)
        if (hub_modules[i]->wake)
            hub_modules[i]->wake(h);
}

/* ---- hub --------------------------------------------------------------- */

/* Every LIMIT_SWEEP_MS: forgets the addresses that have nothing to
 * remember (no open invitation, no started game), and queues a pass
 * of the purge of guests that never played, keeping every player in
 * memory (connected, or seated in a live game). */
static void sweep(void *arg)
{
    struct hub *h = arg;
    int64_t now = hub_now_ms(h);
    const char **keep;
    size_t n = 0;
    uint64_t seq;

    hub_alarm_arm(h, h->sweep, now + LIMIT_SWEEP_MS);
    for (size_t i = 0; i < h->addrs.cap; i++) {
        struct addr *a = h->addrs.slots[i].value;
        if (a && !a->invites && !a->games &&
            (a->read_rate.last_ms < 0 || now - a->read_rate.last_ms >= 60000))
            free(table_del(&h->addrs, a->ip));
    }
    if (h->shutting_down)
        return;
    for (size_t i = 0; hub_modules[i]; i++)
        if (hub_modules[i]->sweep)
            hub_modules[i]->sweep(h, now);
    hub_rated_sweep(h);
    hub_facts_sweep(h);
    hub_fair_sweep(h, hub_wall_ms(h));
    keep = malloc((h->players.n ? h->players.n : 1) * sizeof *keep);
    if (!keep)
        return;
    for (size_t i = 0; i < h->players.cap; i++) {
        struct player *p = h->players.slots[i].value;
        if (p)
            keep[n++] = p->pid;
    }
    seq = store_purge_guests(
        h->store, hub_wall_ms(h) - LIMIT_GUEST_UNPLAYED_MS, keep, n);
    if (seq)
        h->purge_seq = seq;
    free(keep);
}

struct hub *hub_new(const struct hub_env *env, const struct hub_config *cfg)
{
    struct hub *h = calloc(1, sizeof *h);

    if (!h)
        return NULL;
    h->env = *env;
    h->store = env->store;
    h->cfg = *cfg;
    h->limits = (struct session_limits){
        h->cfg.move_rate_per_s, h->cfg.move_burst, h->cfg.msg_rate_per_s,
        h->cfg.msg_burst, LIMIT_RATE_STRIKES};
    h->lobby = lobby_new();
    h->unknown = recent_new(LIMIT_UNKNOWN_GAMES, LIMIT_UNKNOWN_GAME_MS);
    h->verdicts = verdicts_start(env->wake, 0);
    h->sweep = hub_alarm_new(h, sweep, h);
    h->stall_timer = hub_alarm_new(h, hub_stall_check, h);
    h->stall_timer_at = CLOCK_NEVER;
    holds_init(&h->holds);
    table_init(&h->games);
    h->feed = h->lobby ? lobbyfeed_new(&h->env, h->lobby, &h->games,
                                       &h->metrics.lobby_watchers)
                       : NULL;
    table_init(&h->players);
    table_init(&h->tokens);
    table_init(&h->addrs);
    table_init(&h->rated);
    hub_fair_init(h);
    hub_hosting_init(h);
    h->local_ops = &local_ops;
    hub_set_router(h, NULL);
    h->guests = ratelimit_new(cfg->guests_per_ip_per_min / 60.0,
                              cfg->guests_per_ip_per_min, LIMIT_LOGIN_KEYS);
    if (!h->lobby || !h->unknown || !h->feed || !h->verdicts || !h->sweep ||
        !h->stall_timer || !h->guests ||
        hub_limit_share(h, "guests", h->guests) < 0 ||
        hub_reads_init(h) < 0 || modules_init(h) < 0) {
        hub_free(h);
        return NULL;
    }
    hub_alarm_arm(h, h->sweep, hub_now_ms(h) + LIMIT_SWEEP_MS);
    return h;
}

void hub_free(struct hub *h)
{
    if (!h)
        return;
    hub_reads_free(h);          /* (their answers are nobody's from now on) */
    verdicts_stop(h->verdicts); /* before the games it could answer */
    for (size_t i = modules_count(); i-- > 0;) /* (in reverse) */
        if (hub_modules[i]->free)
            hub_modules[i]->free(h);
    for (size_t i = 0; i < h->rated.cap; i++)
        free(h->rated.slots[i].value);
    table_clear(&h->rated);
    hub_fair_free(h);
    ratelimit_free(h->guests);
    hub_alarm_free(h, h->sweep);
    /* (deleting leaves a tombstone: the slots do not move) */
    for (size_t i = 0; i < h->games.cap; i++)
        if (h->games.slots[i].value)
            hub_game_destroy(h, h->games.slots[i].value);
    for (size_t i = 0; i < h->addrs.cap; i++)
        free(h->addrs.slots[i].value);
    for (size_t i = 0; i < h->players.cap; i++) {
        struct player *p = h->players.slots[i].value;
        if (p) {
            session_clear(&p->fan);
            for (size_t j = 0; j < p->nremotes; j++) { /* (the hub's) */
                session_clear(p->remotes[j]);
                free(p->remotes[j]);
            }
            hub_facts_free(p);
            free(p->conns);
            free(p->remotes);
            free(p->games);
            free(p->offers);
            free(p);
        }
    }
    table_clear(&h->games);
    table_clear(&h->players);
    table_clear(&h->tokens);
    table_clear(&h->addrs);
    lobbyfeed_free(h->feed);
    lobby_free(h->lobby);
    recent_free(h->unknown);
    holds_clear(&h->holds);
    hub_alarm_free(h, h->stall_timer);
    free(h);
}

struct metrics *hub_metrics(struct hub *h)
{
    return &h->metrics;
}
struct store *hub_store(struct hub *h)
{
    return h->store;
}
struct engine_pool *hub_engines(struct hub *h)
{
    return h->env.engines;
}
size_t hub_live_games(const struct hub *h)
{
    size_t n = 0;

    for (size_t i = 0; i < h->games.cap; i++) {
        struct game *g = h->games.slots[i].value;
        if (g && game_status(g) != GAME_ENDED)
            n++;
    }
    return n;
}
bool hub_cluster_metrics(struct hub *h, struct cluster_metrics *out)
{
    if (!h->router.ops->metrics)
        return false;
    memset(out, 0, sizeof *out);
    h->router.ops->metrics(h->router.ctx, out);
    return true;
}
size_t hub_open_seeks(const struct hub *h)
{
    return h->seekbook.ops->count(h->seekbook.ctx);
}
size_t hub_subscriptions(const struct hub *h)
{
    size_t n = 0;

    for (size_t i = 0; i < h->games.cap; i++) {
        struct game *g = h->games.slots[i].value;
        if (g)
            n += game_subscriptions(g);
    }
    return n;
}

void hub_shutdown(struct hub *h)
{
    h->shutting_down = true;
    h->router.ops->shutdown(h->router.ctx);
}

bool hub_stoppable(const struct hub *h)
{
    return h->router.ops->stoppable(h->router.ctx);
}

void hub_set_router(struct hub *h, const struct router *r)
{
    h->router = r ? *r : (struct router){&hub_local_router, h};
    assert(h->router.ops && h->router.ctx);
}

void hub_set_seekbook(struct hub *h, const struct seekbook *b)
{
    h->seekbook = b ? *b : h->own_seekbook;
    assert(h->seekbook.ops); /* (the lobby module's, at least) */
    lobbyfeed_set_source(h->feed, h->seekbook.ops->fetch, h->seekbook.ctx);
}

void hub_own_seekbook(struct hub *h, const struct seekbook *b)
{
    h->own_seekbook = *b;
    hub_set_seekbook(h, NULL);
}

struct game *hub_game(struct hub *h, const char *gid)
{
    return table_get(&h->games, gid);
}

bool hub_unknown_game(struct hub *h, const char *gid)
{
    if (!recent_seen(h->unknown, gid, hub_now_ms(h)))
        return false;
    h->metrics.unknown_game_hits++;
    return true;
}

void hub_unknown_game_note(struct hub *h, const char *gid)
{
    if (recent_note(h->unknown, gid, hub_now_ms(h)) < 0)
        log_warn("event=unknown_game_unrecorded what=out_of_memory");
}

struct player *hub_player(struct hub *h, const char *pid)
{
    return table_get(&h->players, pid);
}

struct lobbyfeed *hub_lobbyfeed(struct hub *h)
{
    return h->feed;
}

static int64_t now_us(struct hub *h)
{
    return h->env.now_us();
}

/* Runs m from s, unless it is a command of a game the router takes
 * (forwarded: false). at_us: when the message arrived; a move run here
 * is timed from then (metrics.move; metrics.commit: hub_move_played). */
static bool dispatch(struct session *s, const struct proto_msg *m,
                     const char *text, size_t len, int64_t now,
                     bool local_only, int64_t at_us)
{
    struct hub *h = s->hub;
    const struct hub_command *cmd = h->commands[m->type];

    assert(cmd); /* (proto_parse knows only the types the table has) */
    /* (chat is a game's command only in a game's room) */
    bool game = cmd->game && m->game[0];
    /* a game the store did not have a moment ago: no read, no forward */
    if (game && !table_get(&h->games, m->game) &&
        hub_unknown_game(h, m->game)) {
        hub_send_error(s, PROTO_NO_SUCH_GAME, "no such game", &m->id);
        return true;
    }
    /* a game of another node's (or of none) is its host's to run: the
     * router's to forward (router.h) */
    if (game && !local_only && s->conn &&
        h->router.ops->forward(h->router.ctx, s, m, text, len, now))
        return false;
    /* a bot account starts its games through the API only */
    if (botaccount_refused(s, m))
        return true;
    const char *was_text = h->cur_text;
    size_t was_len = h->cur_len;
    h->msg_at_us = at_us;
    h->cur_text = text; /* (a command that reads keeps it: facts.c) */
    h->cur_len = len;
    cmd->run(s, m, now);
    h->cur_text = was_text;
    h->cur_len = was_len;
    if (m->type == PROTO_T_MOVE)
        hist_add(&h->metrics.move, now_us(h) - at_us);
    return true;
}

void hub_redispatch(struct session *s, const struct proto_msg *m,
                    const char *text, size_t len, int64_t now)
{
    /* (a local connection's command may be forwarded now: its game left
     * this node meanwhile) */
    dispatch(s, m, text ? text : "", text ? len : 0, now, !text,
             now_us(s->hub));
}

void hub_move_played(struct hub *h, uint64_t seq)
{
    size_t i;

    assert(h->moving_n <= HUB_MOVES_TIMED);
    if (!seq || h->moving_n == HUB_MOVES_TIMED)
        return;
    i = (h->moving_head + h->moving_n++) % HUB_MOVES_TIMED;
    h->moving[i].seq = seq;
    h->moving[i].at_us = h->msg_at_us;
}

/* The store committed: the moves it made durable are timed. */
static void moves_committed(struct hub *h)
{
    uint64_t committed = store_committed(h->store);
    int64_t t = h->moving_n ? now_us(h) : 0;

    while (h->moving_n && h->moving[h->moving_head].seq <= committed) {
        hist_add(&h->metrics.commit, t - h->moving[h->moving_head].at_us);
        h->moving_head = (h->moving_head + 1) % HUB_MOVES_TIMED;
        h->moving_n--;
    }
}

void hub_run(struct session *s, const struct proto_msg *m, const char *text,
             size_t len, int64_t now)
{
    /* (another node's connection: its commands in order too) */
    if (s->waiting && len) {
        hold_input(s, text, len, &m->id);
        return;
    }
    dispatch(s, m, text, len, now, true, now_us(s->hub));
}

void hub_notice_all(struct hub *h, struct msgbuf *b)
{
    for (size_t i = 0; i < h->players.cap; i++) {
        struct player *p = h->players.slots[i].value;
        for (size_t j = 0; p && j < p->nconns; j++)
            h->env.send_now(p->conns[j]->conn, b);
    }
}

void hub_told(struct hub *h, const char *pid, char tag, const char *payload,
              size_t len, int64_t now)
{
    struct player *p = table_get(&h->players, pid);

    for (size_t i = 0; p && hub_modules[i]; i++)
        if (hub_modules[i]->tell_tag == tag && hub_modules[i]->told)
            hub_modules[i]->told(h, p, payload, len, now);
}

void hub_told_all(struct hub *h, char tag, const char *payload, size_t len,
                  int64_t now)
{
    for (size_t i = 0; hub_modules[i]; i++)
        if (hub_modules[i]->tell_tag == tag && hub_modules[i]->told_all)
            hub_modules[i]->told_all(h, payload, len, now);
}

/* ---- the modules (module.h) ------------------------------------------- */

static size_t modules_count(void)
{
    size_t n = 0;

    while (hub_modules[n])
        n++;
    assert(n <= HUB_MODULES_MAX);
    return n;
}

static size_t module_index(const struct hub_module *m)
{
    size_t i = 0;

    while (hub_modules[i] && hub_modules[i] != m)
        i++;
    assert(hub_modules[i]); /* (a module of the table) */
    return i;
}

void *hub_module_state(struct hub *h, const struct hub_module *m)
{
    return h->mod_state[module_index(m)];
}

void hub_module_set_state(struct hub *h, const struct hub_module *m,
                          void *state)
{
    h->mod_state[module_index(m)] = state;
}

/* Each module's init, and the table of commands from theirs. 0, or -1
 * (an init failed: hub_free frees what the others made). */
static int modules_init(struct hub *h)
{
    for (size_t i = 0; hub_modules[i]; i++) {
        const struct hub_module *m = hub_modules[i];
        for (size_t j = 0; m->tell_tag && j < i; j++)
            assert(hub_modules[j]->tell_tag != m->tell_tag); /* (told once) */
        for (const struct hub_command *c = m->commands; c && c->type; c++) {
            assert(c->type < PROTO_T_COUNT && c->run);
            assert(!h->commands[c->type]); /* (one module's each) */
            h->commands[c->type] = c;
        }
        if (m->init && m->init(h) < 0)
            return -1;
    }
    return 0;
}

void hub_modules_game_gone(struct hub *h, struct game *g)
{
    for (size_t i = 0; hub_modules[i]; i++)
        if (hub_modules[i]->game_gone)
            hub_modules[i]->game_gone(h, g);
}

void hub_modules_game_ended(struct hub *h, struct game *g)
{
    for (size_t i = 0; hub_modules[i]; i++)
        if (hub_modules[i]->game_ended)
            hub_modules[i]->game_ended(h, g);
}

void hub_modules_game_hosted(struct hub *h, struct game *g, int64_t now)
{
    for (size_t i = 0; hub_modules[i]; i++)
        if (hub_modules[i]->game_hosted)
            hub_modules[i]->game_hosted(h, g, now);
}

void hub_modules_turn(struct hub *h, struct game *g, int64_t now)
{
    for (size_t i = 0; hub_modules[i]; i++)
        if (hub_modules[i]->turn)
            hub_modules[i]->turn(h, g, now);
}

void hub_modules_game_left(struct hub *h, struct game *g, const char *pid)
{
    for (size_t i = 0; hub_modules[i]; i++)
        if (hub_modules[i]->game_left)
            hub_modules[i]->game_left(h, g, pid);
}

void hub_modules_watched(struct hub *h, struct game *g, struct session *s)
{
    for (size_t i = 0; hub_modules[i]; i++)
        if (hub_modules[i]->watched)
            hub_modules[i]->watched(h, g, s);
}

void hub_modules_player_gone(struct hub *h, struct player *p)
{
    for (size_t i = 0; hub_modules[i]; i++)
        if (hub_modules[i]->player_gone)
            hub_modules[i]->player_gone(h, p);
}

void hub_modules_session_closed(struct hub *h, struct session *s)
{
    for (size_t i = 0; hub_modules[i]; i++)
        if (hub_modules[i]->session_closed)
            hub_modules[i]->session_closed(h, s);
}

/* The core's own command. */
static void do_ping(struct session *s, const struct proto_msg *m, int64_t now)
{
    (void)now;
    hub_send_text(s, proto_render_pong(&m->id), 0);
}

static const struct hub_command core_commands[] = {
    {PROTO_T_PING, do_ping, false},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_core_module = {
    .name = "core",
    .commands = core_commands,
};

/* Charges a message to s's budget: true when it may go on; else s was
 * answered rate_limited (with id, when `answer`) or closed for a flood. */
static bool admitted(struct hub *h, struct session *s, bool move, bool answer,
                     const char *msg, const struct proto_id *id, int64_t now)
{
    switch (session_admit(s, move, now)) {
    case SESSION_ADMIT:
        return true;
    case SESSION_FLOOD:
        h->metrics.closed_flood++;
        h->env.close(s->conn, 1008, "message flood");
        return false;
    case SESSION_LIMITED:
        if (answer)
            hub_send_error(s, PROTO_RATE_LIMITED, msg, id);
        return false;
    }
    return false;
}

/* Keeps text for s's replay: true, or false when s holds
 * LIMIT_HELD_INPUT already or out of memory (answered rate_limited). */
static bool hold_input(struct session *s, const char *text, size_t len,
                       const struct proto_id *id)
{
    struct held_in *in = s->n_held_in < LIMIT_HELD_INPUT &&
                                 s->held_in_bytes + len <=
                                     LIMIT_HELD_INPUT_BYTES
                             ? malloc(sizeof *in + len + 1)
                             : NULL;

    if (!in) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "too many messages waiting for the database; slow "
                       "down",
                       id);
        return false;
    }
    in->next = NULL;
    in->len = len;
    memcpy(in->text, text, len);
    in->text[len] = '\0';
    *(s->held_in ? s->held_in_tail : &s->held_in) = in;
    s->held_in_tail = &in->next;
    s->n_held_in++;
    s->held_in_bytes += len;
    return true;
}

void hub_session_replay(struct session *s)
{
    struct hub *h = s->hub;

    while (s->held_in && !s->waiting) {
        struct held_in *in = s->held_in;
        s->held_in = in->next;
        s->n_held_in--;
        s->held_in_bytes -= in->len;
        on_text(h, s, in->text, in->len, hub_now_ms(h), false);
        OPENSSL_cleanse(in->text, in->len); /* (a login's password) */
        free(in);
    }
}

/* One message from s: parsed, charged to s's budget (unless admitted
 * already: a replay), then run, or kept while s's hello is read. */
static enum proto_type on_text(struct hub *h, struct session *s,
                               const char *text, size_t len, int64_t now,
                               bool admit)
{
    int64_t at_us = now_us(h);
    struct proto_msg m;
    struct proto_error e;
    int rc;

    rc = proto_parse(text, len, s->player != NULL, &m, &e);
    if (admit && !admitted(h, s, m.type == PROTO_T_MOVE, true,
                           "too many messages; slow down",
                           rc == 0 ? &m.id : NULL, now))
        rc = -2;
    else if (s->waiting) /* (a command's read first: in order after) */
        rc = hold_input(s, text, len, rc == 0 ? &m.id : NULL) ? -3 : -2;
    else if (rc != 0)
        hub_send_error(s, e.code, e.msg, &m.id);
    else {
        if (m.type != PROTO_T_PING) /* (a page's keepalive is no sign) */
            s->active_ms = now;
        dispatch(s, &m, text, len, now, false, at_us);
    }
    if (m.password_len) /* (the workers have their own copy) */
        OPENSSL_cleanse(m.password, sizeof m.password);
    return rc == 0 || rc == -3 ? m.type : PROTO_T_NONE;
}

enum proto_type hub_on_text(struct hub *h, struct session *s,
                            const char *text, size_t len, int64_t now)
{
    h->metrics.messages_in++;
    return on_text(h, s, text, len, now, true);
}

void hub_on_control(struct hub *h, struct session *s, int64_t now)
{
    admitted(h, s, false, false, NULL, NULL, now);
}

void hub_on_binary(struct hub *h, struct session *s, int64_t now)
{
    struct proto_id none = {0, 0, "", 0};

    if (admitted(h, s, false, true, "too many messages", &none, now))
        hub_send_error(s, PROTO_BAD_JSON,
                       "binary messages are not accepted: send JSON text",
                       &none);
}
