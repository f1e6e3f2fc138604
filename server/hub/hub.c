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
 * (env_ratings), and hands the new rows to the store with the game's end
 * (one transaction). The hub gives the store's rows overlaid by the
 * `rated` table: the rows of rated ends queued and not committed yet, by
 * "PID/CATEGORY". The loop is the only writer of ratings and the store
 * applies writes in order, so this overlay is always the newest value: a
 * player whose two rated games end a moment apart (or while the database
 * stalls) has the second computed from the first's result, never from a
 * stale row; and each stored row is an absolute value, so the same end
 * applied twice would leave the same rows.
 */
#include "hub/hub.h"
#include "hub/hub_internal.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/account.h"
#include "cluster/cluster.h"
#include "game/game.h"
#include "game/holds.h"
#include "lib/ids.h"
#include "hub/passwd.h"
#include "hub/prefs.h"
#include "lib/ratelimit.h"
#include "game/rating.h"
#include "hub/rematch.h"
#include "lib/tunables.h"
#include "game/lobby.h"
#include "hub/lobbyfeed.h"
#include "lib/log.h"
#include "movegen.h"
#include "lib/msgbuf.h"
#include "hub/session.h"
#include "store/store.h"
#include "lib/bucket.h"
#include "lib/table.h"
#include "game/verdict.h"

/* One IP address: its open invitations and its new guests' bucket. */
struct addr {
    char ip[64];
    int invites;
    struct bucket guests;
};

/* A rating row queued with a rated game's end, until it commits. */
struct rated_row {
    char key[48];
    uint64_t seq;
    struct store_rating r;
};

/* ---- helpers ----------------------------------------------------------- */

/* The environment's functions, for brevity. */
int64_t hub_now_ms(struct hub *h)
{
    return h->env.now_ms(h->env.ctx);
}
int64_t hub_wall_ms(struct hub *h)
{
    return h->env.wall_ms(h->env.ctx);
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

static void conn_send(struct hub *h, struct conn *c, struct msgbuf *b,
                      uint64_t seq)
{
    h->env.send(h->env.ctx, c, b, seq);
}

/* Makes room for one more of n items of size bytes in *arr (capacity
 * *cap), doubling from one: most players have one connection and one or
 * two live games, and 18,000 idle players' arrays are counted in bytes
 * per connection. Returns 0, or -1 when out of memory (*arr unchanged). */
static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
    size_t c;
    void *a;

    if (n < *cap)
        return 0;
    c = *cap ? 2 * *cap : 1;
    a = realloc(*arr, c * size);
    if (!a)
        return -1;
    *arr = a;
    *cap = c;
    return 0;
}

/* A message sent to a session whose welcome is held, kept behind it. */
struct held_msg {
    struct held_msg *next;
    struct msgbuf *b;
    uint64_t seq;
};

void hub_session_send(struct session *s, struct msgbuf *b, uint64_t seq)
{
    if (s->welcome) { /* nothing before the welcome */
        struct held_msg *m = malloc(sizeof *m);
        if (!m)
            return;
        *m = (struct held_msg){NULL, msgbuf_ref(b), seq};
        if (!s->held)
            s->held_tail = &s->held;
        *s->held_tail = m;
        s->held_tail = &m->next;
        return;
    }
    if (s->remote)
        cluster_send(s->hub->cluster, s, b, seq);
    else
        conn_send(s->hub, s->conn, b, seq);
}

void hub_session_release_welcome(struct session *s)
{
    struct msgbuf *w = s->welcome;
    struct held_msg *m = s->held;

    if (!w)
        return;
    s->welcome = NULL;
    s->held = NULL;
    hub_session_send(s, w, s->welcome_seq);
    msgbuf_unref(w);
    while (m) {
        struct held_msg *next = m->next;
        hub_session_send(s, m->b, m->seq);
        msgbuf_unref(m->b);
        free(m);
        m = next;
    }
}

void hub_session_free_welcome(struct session *s)
{
    msgbuf_unref(s->welcome);
    s->welcome = NULL;
    while (s->held) {
        struct held_msg *m = s->held;
        s->held = m->next;
        msgbuf_unref(m->b);
        free(m);
    }
}

void hub_session_close(struct session *s, int code, const char *reason)
{
    if (s->conn)
        s->hub->env.drop(s->hub->env.ctx, s->conn, code, reason);
}

void hub_send_text(struct session *s, char *text, uint64_t seq)
{
    struct msgbuf *b = msgbuf_take(text);

    if (!b)
        return;
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

/* ---- players ----------------------------------------------------------- */

struct player *hub_player_get(struct hub *h, const char *pid,
                              const char *name)
{
    struct player *p = table_get(&h->players, pid);

    if (p)
        return p;
    p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    snprintf(p->pid, sizeof p->pid, "%s", pid);
    snprintf(p->name, sizeof p->name, "%s", name);
    session_init(&p->fan, h, NULL, NULL, &h->limits);
    p->fan.player = p;
    if (table_put(&h->players, p->pid, p) < 0) {
        free(p);
        return NULL;
    }
    return p;
}

static void player_set_token(struct hub *h, struct player *p,
                             const uint8_t hash[32])
{
    if (p->token_key[0])
        return;
    hub_hex(hash, 32, p->token_key);
    if (table_put(&h->tokens, p->token_key, p) < 0)
        p->token_key[0] = '\0';
}

/* Frees p when nothing refers to it any more. */
void hub_player_release(struct hub *h, struct player *p)
{
    if (p->nconns || p->nremotes || p->ngames || p->pins)
        return;
    table_del(&h->players, p->pid);
    if (p->token_key[0])
        table_del(&h->tokens, p->token_key);
    free(p->conns);
    free(p->remotes);
    free(p->games);
    free(p->offers);
    free(p);
}

bool hub_player_present(const struct player *p)
{
    return p->nconns + p->nremotes > 0;
}

/* Adds gid to the array *refs of *n (capacity *cap) unless it is there.
 * Returns 0, or -1 when out of memory. */
int hub_refs_add(struct game_ref **refs, size_t *n, size_t *cap,
                 const char *gid)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*refs)[i].gid, gid))
            return 0;
    if (grow((void **)refs, cap, *n, sizeof **refs))
        return -1;
    snprintf((*refs)[(*n)++].gid, sizeof(*refs)->gid, "%s", gid);
    return 0;
}

/* Removes gid from the array *refs of *n, keeping the order. */
void hub_refs_drop(struct game_ref *refs, size_t *n, const char *gid)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(refs[i].gid, gid)) {
            memmove(&refs[i], &refs[i + 1], (*n - i - 1) * sizeof *refs);
            (*n)--;
            return;
        }
}

static int player_add_game(struct player *p, const char *gid)
{
    return hub_refs_add(&p->games, &p->ngames, &p->gamecap, gid);
}

static void player_drop_game(struct player *p, const char *gid)
{
    hub_refs_drop(p->games, &p->ngames, gid);
}

/* ---- subscriptions ----------------------------------------------------- */

/* Subscribes s to g as a spectator (idempotent). */
static void watch_add(struct session *s, struct game *g)
{
    if (session_watch(s, game_gid(g)) == 1 &&
        game_subscribe(g, s, GAME_SPECTATOR) < 0)
        session_unwatch(s, game_gid(g));
}

/* Ends s's watch of g, if it watches it. */
static void watch_drop(struct session *s, struct game *g)
{
    if (session_unwatch(s, game_gid(g)))
        game_unsubscribe(g, s);
}

struct unwatch_ctx {
    struct hub *h;
    struct session *s;
};

static void unwatch_one(void *arg, const char *gid)
{
    struct unwatch_ctx *u = arg;
    struct game *g = table_get(&u->h->games, gid);

    if (g)
        game_unsubscribe(g, u->s);
}

/* Unsubscribes s from every game it watches and forgets them. */
static void watch_clear(struct hub *h, struct session *s)
{
    struct unwatch_ctx u = {h, s};

    session_unwatch_all(s, unwatch_one, &u);
}

/* Subscribes the game's players (their fans) with their colour. A
 * connection of theirs that watched the game as a spectator (the joiner
 * of an invitation, usually) now gets its messages through the fan. */
static void subscribe_players(struct hub *h, struct game *g)
{
    for (int c = 0; c < 2; c++) {
        struct player *p = table_get(&h->players, game_seat_pid(g, c));
        if (!p)
            continue;
        game_subscribe(g, &p->fan, (enum game_role)c);
        for (size_t i = 0; i < p->nconns; i++)
            watch_drop(p->conns[i], g);
    }
}

/* ---- addresses --------------------------------------------------------- */

/* The record of ip, created when missing (NULL when out of memory). */
static struct addr *addr_get(struct hub *h, const char *ip)
{
    struct addr *a = table_get(&h->addrs, ip);

    if (a)
        return a;
    a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    snprintf(a->ip, sizeof a->ip, "%s", ip);
    bucket_init(&a->guests, h->cfg.guests_per_ip_per_min);
    if (table_put(&h->addrs, a->ip, a) < 0) {
        free(a);
        return NULL;
    }
    return a;
}

/* ---- the games' environment -------------------------------------------- */

/* To a connection, or through a player's fan to all its connections. */
void hub_env_send(void *ctx, struct session *to, struct msgbuf *b,
                  uint64_t seq)
{
    struct hub *h = ctx;

    lobbyfeed_touch(h->feed); /* a game changed: the lobby's list may */
    if (to->conn || to->remote) {
        hub_session_send(to, b, seq);
        return;
    }
    for (size_t i = 0; i < to->player->nconns; i++)
        conn_send(h, to->player->conns[i]->conn, b, seq);
    for (size_t i = 0; i < to->player->nremotes; i++)
        cluster_send(h->cluster, to->player->remotes[i], b, seq);
}

static void env_timer_cb(void *arg);

/* g's host record, created when missing (NULL when out of memory). */
struct game_host *hub_host_get(struct hub *h, struct game *g)
{
    struct game_host *gh = game_user(g);

    if (gh)
        return gh;
    gh = calloc(1, sizeof *gh);
    if (!gh)
        return NULL;
    gh->hub = h;
    gh->game = g;
    gh->rematch_by = -1;
    gh->t = hub_alarm_new(h, env_timer_cb, gh);
    if (!gh->t) {
        free(gh);
        return NULL;
    }
    game_set_user(g, gh);
    return gh;
}

static void host_free(struct game_host *gh)
{
    if (gh) {
        hub_alarm_free(gh->hub, gh->t);
        hub_alarm_free(gh->hub, gh->rematch_t);
        free(gh);
    }
}

/* g is no longer an open invitation: its address may create another. */
static void invite_closed(struct hub *h, struct game *g)
{
    struct game_host *gh = game_user(g);
    struct addr *a;

    if (!gh || !gh->invite_ip[0])
        return;
    a = table_get(&h->addrs, gh->invite_ip);
    if (a && a->invites > 0)
        a->invites--;
    gh->invite_ip[0] = '\0';
}

static void env_arm(void *ctx, struct game *g, int64_t at)
{
    struct game_host *gh = game_user(g);

    if (!gh) {
        if (at == CLOCK_NEVER)
            return;
        gh = hub_host_get(ctx, g);
        if (!gh)
            return;
    }
    hub_alarm_arm(gh->hub, gh->t, at);
}

static void env_timer_cb(void *arg)
{
    struct game_host *gh = arg;

    game_on_timer(gh->game, hub_now_ms(gh->hub));
}

static uint64_t env_put_game(void *ctx, const struct store_game *row)
{
    struct hub *h = ctx;
    uint64_t seq = store_put_game(h->store, row);

    if (!seq)
        log_warn("event=store_queue_full game=%s what=game_row", row->gid);
    return seq;
}

static uint64_t env_put_move(void *ctx, const char *gid,
                             const struct store_move *m)
{
    struct hub *h = ctx;
    uint64_t seq = store_put_move(h->store, gid, m);

    if (seq)
        h->metrics.moves++;
    else
        log_warn("event=store_queue_full game=%s what=move", gid);
    return seq;
}

/* ---- ratings ----------------------------------------------------------- */

static void rated_key(const char *pid, const char *category, char *key,
                      size_t len)
{
    snprintf(key, len, "%s/%s", pid, category);
}

/* Remembers r, queued at seq, until the store has committed it. */
static void rated_put(struct hub *h, const struct store_rating *r,
                      uint64_t seq)
{
    char key[48];
    struct rated_row *e;

    rated_key(r->pid, r->category, key, sizeof key);
    e = table_get(&h->rated, key);
    if (!e) {
        e = calloc(1, sizeof *e);
        if (!e) {
            log_error("event=rating_unrecorded player=%s", r->pid);
            return;
        }
        snprintf(e->key, sizeof e->key, "%s", key);
        if (table_put(&h->rated, e->key, e) < 0) {
            free(e);
            log_error("event=rating_unrecorded player=%s", r->pid);
            return;
        }
    }
    e->seq = seq;
    e->r = *r;
}

/* Forgets the rows the store has committed (its reads have them). */
static void rated_sweep(struct hub *h)
{
    uint64_t committed = store_committed(h->store);

    for (size_t i = 0; i < h->rated.cap; i++) {
        struct rated_row *e = h->rated.slots[i].value;
        if (e && e->seq <= committed)
            free(table_del(&h->rated, e->key));
    }
}

/* pid's current rating in category: a row queued and not committed yet,
 * else the store's, else a new player's (rating_start, no games). 0, or
 * -1 when the store cannot be read. */
static int rating_of(struct hub *h, const char *pid, const char *category,
                     struct store_rating *out)
{
    char key[48];
    struct rated_row *e;
    struct rating start = rating_start();
    int rc;

    rated_key(pid, category, key, sizeof key);
    e = table_get(&h->rated, key);
    if (e && e->seq > store_committed(h->store)) {
        *out = e->r;
        return 0;
    }
    rc = store_get_rating(h->store, pid, category, out);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        memset(out, 0, sizeof *out);
        snprintf(out->pid, sizeof out->pid, "%s", pid);
        snprintf(out->category, sizeof out->category, "%s", category);
        out->rating = start.rating;
        out->rd = start.rd;
        out->vol = start.vol;
    }
    return 0;
}

/* Shows pid's rating in g's category with g (a rated game). */
static void show_rating(struct hub *h, struct game *g, int color)
{
    struct store_rating r;
    const char *cat = rating_category_name(
        rating_category(game_clock_spec(g)));

    if (!game_rated(g) || !game_seat_pid(g, color)[0])
        return;
    if (rating_of(h, game_seat_pid(g, color), cat, &r) == 0)
        game_set_rating(g, color, r.rating, r.rd);
}

/* Every category pid has played rated, in the categories' order, as
 * welcome (results false) or the API's profile (true) shows them, into
 * out[0..RATING_CATEGORIES): one read of the store, overlaid by the rows
 * not committed yet. How many. */
size_t hub_ratings_shown(struct hub *h, const char *pid,
                         struct proto_rating out[RATING_CATEGORIES],
                         bool results)
{
    struct store_rating rows[RATING_CATEGORIES], r;
    size_t nrows = 0, n = 0;

    if (store_player_ratings(h->store, pid, rows, RATING_CATEGORIES, &nrows) <
        0)
        nrows = 0;
    for (int c = 0; c < RATING_CATEGORIES; c++) {
        const char *cat = rating_category_name((enum rating_category)c);
        char key[48];
        struct rated_row *e;
        bool found = false;
        rated_key(pid, cat, key, sizeof key);
        e = table_get(&h->rated, key);
        if (e && e->seq > store_committed(h->store)) {
            r = e->r;
            found = true;
        }
        for (size_t i = 0; !found && i < nrows; i++)
            if (!strcmp(rows[i].category, cat)) {
                r = rows[i];
                found = true;
            }
        if (!found || r.games == 0)
            continue;
        out[n++] = (struct proto_rating){
            .category = cat,
            .rating = rating_round(r.rating),
            .rd = rating_round(r.rd),
            .games = r.games,
            .provisional = r.rd > RATING_RD_PROVISIONAL,
            .results = results,
            .wins = r.wins,
            .draws = r.draws,
            .losses = r.losses,
        };
    }
    return n;
}

static int env_ratings(void *ctx, const struct game *g, const char *category,
                       struct store_rating out[2])
{
    struct hub *h = ctx;

    for (int c = 0; c < 2; c++)
        if (rating_of(h, game_seat_pid(g, c), category, &out[c]) < 0) {
            log_error("event=rating_unreadable game=%s", game_gid(g));
            return -1;
        }
    return 0;
}

static uint64_t env_finish(void *ctx, const struct store_game *row,
                           const struct store_move *moves, size_t n,
                           const char *pgn,
                           const struct store_rating *ratings)
{
    struct hub *h = ctx;
    uint64_t seq = store_finish_game(h->store, row, moves, n, pgn, ratings);

    if (!seq)
        log_error("event=store_queue_full game=%s what=game_end", row->gid);
    else if (ratings)
        for (int c = 0; c < 2; c++)
            rated_put(h, &ratings[c], seq);
    return seq;
}

static int64_t env_wall_ms(void *ctx)
{
    return hub_wall_ms(ctx);
}

static void env_ended(void *ctx, struct game *g)
{
    struct hub *h = ctx;

    log_info("event=game_end game=%s reason=%s white=%s black=%s",
             game_gid(g), game_reason(g), game_seat_pid(g, 0),
             game_seat_pid(g, 1));
    if (h->cluster)
        cluster_game_ended(h->cluster, game_gid(g));
    metrics_finished(&h->metrics, game_ending(g));
    invite_closed(h, g);
    for (int c = 0; c < 2; c++) {
        struct player *p = table_get(&h->players, game_seat_pid(g, c));
        if (p) {
            /* nothing more is broadcast: the fan may go with p */
            game_unsubscribe(g, &p->fan);
            player_drop_game(p, game_gid(g));
            hub_player_release(h, p);
        }
    }
}

static void game_destroy(struct hub *h, struct game *g)
{
    table_del(&h->games, game_gid(g));
    host_free(game_user(g));
    game_free(g);
}

static void env_expired(void *ctx, struct game *g)
{
    struct game_host *gh = game_user(g);

    if (gh) /* the game leaves memory: its rematch offer with it */
        rematch_clear(ctx, gh, -1, "expired");
    if (((struct hub *)ctx)->cluster)
        cluster_unhost(((struct hub *)ctx)->cluster, game_gid(g));
    game_destroy(ctx, g);
}

static int env_ask_verdict(void *ctx, struct game *g, const struct board *b,
                           int color)
{
    struct hub *h = ctx;

    return verdicts_ask(h->verdicts, game_gid(g), b, color);
}

/* A verdict for a game that has gone meanwhile (a shutdown) is dropped. */
static void on_verdict(void *arg, const struct verdict *a)
{
    struct hub *h = arg;
    struct game *g = table_get(&h->games, a->gid);

    if (a->cut_short) /* unproven: "can mate" */
        log_info("event=verdict_cut_short game=%s budget=%ld", a->gid,
                 a->budget);
    if (g)
        game_verdict(g, a->can_mate, hub_now_ms(h));
}

/* ---- turns held for the store ------------------------------------------ */

/* Tells every connected player that the store stalls (or resumed after
 * ms), ahead of the messages the stall holds back. */
static void notice_all(struct hub *h, bool resumed, int64_t ms)
{
    struct msgbuf *b = msgbuf_take(proto_render_store_stall(resumed, ms));

    if (!b)
        return;
    for (size_t i = 0; i < h->players.cap; i++) {
        struct player *p = h->players.slots[i].value;
        for (size_t j = 0; p && j < p->nconns; j++)
            h->env.send_now(h->env.ctx, p->conns[j]->conn, b);
    }
    msgbuf_unref(b);
}

/* Arms the stall timer for when the oldest held turn will have waited
 * LIMIT_STALL_NOTICE_MS (unless it fires earlier anyway, or a stall is
 * being reported). */
static void stall_watch(struct hub *h)
{
    const struct hold *o = holds_oldest(&h->holds);
    int64_t at;

    if (!o || h->stalled || !h->stall_timer)
        return;
    at = o->since + LIMIT_STALL_NOTICE_MS;
    if (h->stall_timer_at <= at)
        return; /* it fires first and looks again */
    h->stall_timer_at = at;
    hub_alarm_arm(h, h->stall_timer, at);
}

static void stall_check(void *arg)
{
    struct hub *h = arg;
    const struct hold *o = holds_oldest(&h->holds);
    int64_t now = hub_now_ms(h);

    h->stall_timer_at = CLOCK_NEVER;
    if (!o || h->stalled)
        return;
    if (now - o->since < LIMIT_STALL_NOTICE_MS) {
        stall_watch(h);
        return;
    }
    h->stalled = true;
    h->stall_seq = o->seq;
    h->stall_since = o->since;
    log_warn("event=store_stall waited_ms=%lld held_turns=%zu",
             (long long)(now - o->since), h->holds.n);
    notice_all(h, false, now - o->since);
}

/* env.hold: the turn begins at once when seq has committed, else when
 * hub_wake sees the commit. */
static bool env_hold(void *ctx, struct game *g, uint64_t seq)
{
    struct hub *h = ctx;

    if (seq <= store_committed(h->store))
        return true;
    if (holds_push(&h->holds, game_gid(g), seq, hub_now_ms(h)) < 0)
        return true; /* out of memory: as if released */
    stall_watch(h);
    return false;
}

/* The store committed: begins the turns its commit released (net.c has
 * just released their messages, on the same wake-up). */
static void release_held(struct hub *h)
{
    uint64_t committed = store_committed(h->store);
    const struct hold *o = holds_oldest(&h->holds);
    struct hold e;
    int64_t now;

    if ((!o || o->seq > committed) && !h->stalled)
        return;
    now = hub_now_ms(h);
    while (holds_pop_committed(&h->holds, committed, &e)) {
        struct game *g = table_get(&h->games, e.gid);
        if (g)
            game_released(g, e.seq, now);
    }
    if (h->stalled && committed >= h->stall_seq) {
        h->stalled = false;
        log_info("event=store_resumed stalled_ms=%lld",
                 (long long)(now - h->stall_since));
        notice_all(h, true, now - h->stall_since);
    }
    stall_watch(h);
}

void hub_wake(struct hub *h)
{
    if (h->cluster) /* (fenced games first: they release nothing) */
        cluster_wake(h->cluster);
    release_held(h);
    verdicts_collect(h->verdicts, on_verdict, h);
    passwd_collect(h->passwd, account_on_password, h);
}

/* ---- hub --------------------------------------------------------------- */

/* Every LIMIT_SWEEP_MS: forgets the addresses that have nothing to
 * remember (no open invitation, a full guest bucket), and queues a pass
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
        if (a && !a->invites &&
            (a->guests.last_ms < 0 || now - a->guests.last_ms >= 60000))
            free(table_del(&h->addrs, a->ip));
    }
    if (h->shutting_down)
        return;
    account_sweep(h);
    prefs_sweep(h);
    rated_sweep(h);
    if (hub_wall_ms(h) - h->tokens_expired_at >= LIMIT_TOKEN_EXPIRE_MS &&
        store_expire_tokens(h->store,
                            hub_wall_ms(h) - LIMIT_ACCOUNT_TOKEN_IDLE_MS))
        h->tokens_expired_at = hub_wall_ms(h);
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
    h->verdicts = verdicts_start(env->wake, 0);
    h->passwd = passwd_start(env->wake, cfg->password_threads,
                             cfg->password_queue);
    h->login_ips = ratelimit_new(cfg->logins_per_ip_per_min / 60.0,
                                 cfg->logins_per_ip_per_min,
                                 LIMIT_LOGIN_KEYS);
    h->login_users = ratelimit_new(cfg->logins_per_user_per_min / 60.0,
                                   cfg->logins_per_user_per_min,
                                   LIMIT_LOGIN_KEYS);
    h->prefs = prefs_new();
    h->sweep = hub_alarm_new(h, sweep, h);
    h->stall_timer = hub_alarm_new(h, stall_check, h);
    h->stall_timer_at = CLOCK_NEVER;
    holds_init(&h->holds);
    table_init(&h->games);
    h->feed = h->lobby ? lobbyfeed_new(&h->env, h->lobby, &h->games,
                                       &h->metrics.lobby_watchers)
                       : NULL;
    if (!h->lobby || !h->feed || !h->verdicts || !h->passwd ||
        !h->login_ips || !h->login_users || !h->prefs || !h->sweep ||
        !h->stall_timer) {
        lobbyfeed_free(h->feed);
        lobby_free(h->lobby);
        verdicts_stop(h->verdicts);
        passwd_stop(h->passwd);
        ratelimit_free(h->login_ips);
        ratelimit_free(h->login_users);
        prefs_free(h->prefs);
        hub_alarm_free(h, h->sweep);
        hub_alarm_free(h, h->stall_timer);
        free(h);
        return NULL;
    }
    hub_alarm_arm(h, h->sweep, hub_now_ms(h) + LIMIT_SWEEP_MS);
    table_init(&h->players);
    table_init(&h->tokens);
    table_init(&h->addrs);
    table_init(&h->names);
    table_init(&h->revoked);
    table_init(&h->rated);
    h->game_env = (struct game_env){
        .ctx = h,
        .grace_ms = cfg->grace_ms,
        .first_move_ms = cfg->first_move_ms,
        .send = hub_env_send,
        .arm = env_arm,
        .put_game = env_put_game,
        .put_move = env_put_move,
        .finish = env_finish,
        .ratings = env_ratings,
        .wall_ms = env_wall_ms,
        .ask_verdict = env_ask_verdict,
        .ended = env_ended,
        .expired = env_expired,
        .hold = env_hold,
    };
    if (env->redis) {
        h->cluster = cluster_new(h, env->redis, cfg->node_id);
        if (!h->cluster) {
            hub_free(h);
            return NULL;
        }
        lobbyfeed_set_source(h->feed, cluster_lobby_fetch, h->cluster);
    }
    return h;
}

void hub_free(struct hub *h)
{
    if (!h)
        return;
    verdicts_stop(h->verdicts); /* before the games it could answer */
    passwd_stop(h->passwd);     /* its answers name jobs freed below */
    cluster_free(h->cluster);   /* its remote sessions: the players' */
    account_free_all(h);
    ratelimit_free(h->login_ips);
    ratelimit_free(h->login_users);
    prefs_free(h->prefs);
    for (size_t i = 0; i < h->rated.cap; i++)
        free(h->rated.slots[i].value);
    table_clear(&h->rated);
    hub_alarm_free(h, h->sweep);
    /* (deleting leaves a tombstone: the slots do not move) */
    for (size_t i = 0; i < h->games.cap; i++)
        if (h->games.slots[i].value)
            game_destroy(h, h->games.slots[i].value);
    for (size_t i = 0; i < h->addrs.cap; i++)
        free(h->addrs.slots[i].value);
    for (size_t i = 0; i < h->players.cap; i++) {
        struct player *p = h->players.slots[i].value;
        if (p) {
            session_clear(&p->fan);
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
    holds_clear(&h->holds);
    hub_alarm_free(h, h->stall_timer);
    free(h);
}

struct restore_ctx {
    struct hub *h;
    int64_t heartbeat, now;
    int n;
};

/* Rebuilds a stored live game in the table, its players subscribed
 * (those with a connection here back in it at once). NULL when it
 * cannot be rebuilt (logged) or out of memory. */
static struct game *restore_game(struct hub *h, const struct store_game *row,
                                 const struct store_move *moves, size_t n,
                                 int64_t heartbeat, int64_t now)
{
    const char *why = "";
    struct game *g = game_restore(&h->game_env, row, moves, n, heartbeat, now,
                                  &why);
    char q1[80], q2[40], q3[256];

    if (!g) { /* skipped: the other games are restored, the server starts */
        log_error("event=restore_failed game=%s status=%s reason=%s",
                  log_quote(q1, sizeof q1, row->gid),
                  log_quote(q2, sizeof q2, row->status),
                  log_quote(q3, sizeof q3, why));
        return NULL;
    }
    if (table_put(&h->games, game_gid(g), g) < 0) {
        game_destroy(h, g);
        return NULL;
    }
    for (int c = 0; c < 2; c++) {
        const char *pid = game_seat_pid(g, c);
        struct player *p;
        if (!pid[0])
            continue;
        p = hub_player_get(h, pid, game_seat_name(g, c));
        if (p && player_add_game(p, game_gid(g)) == 0)
            game_subscribe(g, &p->fan, (enum game_role)c);
        show_rating(h, g, c);
        if (p && hub_player_present(p))
            game_player_back(g, c, now);
    }
    return g;
}

static int restore_one(void *arg, const struct store_game *row,
                       const struct store_move *moves, size_t n)
{
    struct restore_ctx *rc = arg;

    if (restore_game(rc->h, row, moves, n, rc->heartbeat, rc->now))
        rc->n++;
    return 0;
}

struct game *hub_adopt_game(struct hub *h, const struct store_game *row,
                            const struct store_move *moves, size_t n,
                            int64_t seen_ms, int64_t now)
{
    return restore_game(h, row, moves, n, seen_ms, now);
}

void hub_drop_game(struct hub *h, struct game *g, bool cut)
{
    size_t n = game_subscriptions(g);
    struct session **subs = cut ? malloc((n ? n : 1) * sizeof *subs) : NULL;
    char pids[2][PROTO_KEY_MAX + 1];

    n = subs ? game_subscribers(g, subs, n) : 0;
    for (size_t i = 0; i < n; i++) {
        struct session *s = subs[i];
        if (s->conn) {
            hub_session_close(s, 1012, "the game moved; reconnect");
        } else if (!s->remote && s->player) { /* a fan */
            for (size_t j = 0; j < s->player->nconns; j++)
                hub_session_close(s->player->conns[j], 1012,
                                  "the game moved; reconnect");
        }
    }
    free(subs);
    for (int c = 0; c < 2; c++) {
        struct player *p = table_get(&h->players, game_seat_pid(g, c));
        snprintf(pids[c], sizeof pids[c], "%s", game_seat_pid(g, c));
        if (p) {
            game_unsubscribe(g, &p->fan);
            player_drop_game(p, game_gid(g));
        }
    }
    log_info("event=game_dropped game=%s cut=%d", game_gid(g), cut ? 1 : 0);
    invite_closed(h, g);
    game_destroy(h, g);
    for (int c = 0; c < 2; c++) { /* (after: the game named them) */
        struct player *p = pids[c][0] ? table_get(&h->players, pids[c])
                                      : NULL;
        if (p)
            hub_player_release(h, p);
    }
}

int hub_restore(struct hub *h, int64_t now)
{
    struct restore_ctx rc = {h, store_last_heartbeat_ms(h->store), now, 0};

    if (h->cluster) /* the live games are every node's: adopted once the
                       node joined, where nobody hosts them (cluster.c) */
        return 0;

    if (store_load_live(h->store, restore_one, &rc) < 0)
        return -1;
    return rc.n;
}

struct metrics *hub_metrics(struct hub *h)
{
    return &h->metrics;
}
struct store *hub_store(struct hub *h)
{
    return h->store;
}
size_t hub_auth_pending(const struct hub *h)
{
    return account_jobs(h);
}
void hub_hold_passwords(struct hub *h, int hold)
{
    passwd_hold(h->passwd, hold);
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
size_t hub_open_seeks(const struct hub *h)
{
    return lobby_count(h->lobby);
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

/* ---- stand-ins: games rebuilt from the store for one answer ------------ */

static void mute_send(void *ctx, struct session *to, struct msgbuf *b,
                      uint64_t seq)
{
    (void)ctx;
    (void)to;
    (void)b;
    (void)seq;
}

static void mute_arm(void *ctx, struct game *g, int64_t at)
{
    (void)ctx;
    (void)g;
    (void)at;
}

static uint64_t mute_put_game(void *ctx, const struct store_game *row)
{
    (void)ctx;
    (void)row;
    return 0;
}

static uint64_t mute_put_move(void *ctx, const char *gid,
                              const struct store_move *m)
{
    (void)ctx;
    (void)gid;
    (void)m;
    return 0;
}

static uint64_t mute_finish(void *ctx, const struct store_game *row,
                            const struct store_move *moves, size_t n,
                            const char *pgn,
                            const struct store_rating *ratings)
{
    (void)ctx;
    (void)row;
    (void)moves;
    (void)n;
    (void)pgn;
    (void)ratings;
    return 0;
}

static void mute_game(void *ctx, struct game *g)
{
    (void)ctx;
    (void)g;
}

/* The environment of a stand-in: a game rebuilt from the store to render
 * its state or to check a command against it, freed at once. It sends,
 * stores and schedules nothing. */
static struct game_env mute_env(struct hub *h)
{
    return (struct game_env){
        .ctx = h,
        .grace_ms = h->game_env.grace_ms,
        .first_move_ms = h->game_env.first_move_ms,
        .send = mute_send,
        .arm = mute_arm,
        .put_game = mute_put_game,
        .put_move = mute_put_move,
        .finish = mute_finish,
        .wall_ms = env_wall_ms,
        .ask_verdict = NULL,
        .ended = mute_game,
        .expired = mute_game,
        .hold = NULL,
    };
}

/* The state of a game that is not in memory, from the store: a finished
 * one straight from its row and moves (no replay on the loop). Any other
 * is one whose restore failed, over for every command (see
 * stored_game_command): it is not replayed, and its journal, which has
 * no index by game, is not scanned on the loop for it. Returns a
 * malloc'ed text, or NULL with *found 0 (absent), -1 (a database error)
 * or 1 (out of memory, a game not finished). */
static char *render_stored(struct hub *h, const char *gid,
                           const struct proto_id *id, bool api, int *found)
{
    struct store_move *moves = NULL;
    struct store_game row;
    char *text = NULL;
    size_t n = 0;

    *found = store_get_game(h->store, gid, &row, NULL, NULL, NULL);
    if (*found != 1 || strcmp(row.status, "ended"))
        return NULL;
    *found = store_get_game(h->store, gid, &row, &moves, &n, NULL);
    if (*found == 1)
        text = game_render_stored(&row, moves, n, id, api);
    free(moves);
    return text;
}

/* In a cluster: a live game another node hosts, as its journal has it
 * (PostgreSQL's journal is indexed by game): rebuilt with the mute
 * environment, its state rendered for the HTTP API (its clocks as of its
 * last move). NULL with *found 0 when the store does not have it live,
 * -1 on a database error. */
static char *render_live_elsewhere(struct hub *h, const char *gid,
                                   int64_t now, int *found)
{
    struct game_env env = mute_env(h);
    struct store_move *moves = NULL;
    struct store_game row;
    struct game *g = NULL;
    char *text = NULL;
    size_t n = 0;

    *found = store_get_game(h->store, gid, &row, &moves, &n, NULL);
    if (*found == 1 && strcmp(row.status, "ended"))
        g = game_restore(&env, &row, moves, n, 0, now, NULL);
    if (g) {
        text = game_render_state(g, NULL, true, now);
        game_free(g);
    }
    free(moves);
    return text;
}

char *hub_game_json(struct hub *h, const char *gid, int64_t now, int *status)
{
    struct game *g = proto_key_valid(gid) ? table_get(&h->games, gid) : NULL;
    char *body;
    int found;

    *status = 200;
    if (g)
        return game_render_state(g, NULL, true, now);
    if (!proto_key_valid(gid)) {
        *status = 404;
        return NULL;
    }
    body = render_stored(h, gid, NULL, true, &found);
    if (!body && found == 1 && h->cluster)
        body = render_live_elsewhere(h, gid, now, &found);
    if (!body)
        *status = found < 0 ? 500 : found == 0 ? 404 : 500;
    return body;
}

char *hub_game_pgn(struct hub *h, const char *gid)
{
    struct game *g = table_get(&h->games, gid);

    return g ? game_pgn(g) : NULL;
}

void hub_shutdown(struct hub *h)
{
    h->shutting_down = true;
    if (h->cluster)
        cluster_begin_handover(h->cluster);
}

bool hub_stoppable(const struct hub *h)
{
    return !h->cluster || cluster_handed_over(h->cluster);
}

void hub_leave_cluster(struct hub *h)
{
    cluster_stop(h->cluster);
}

/* ---- sessions ---------------------------------------------------------- */

struct session *hub_open(struct hub *h, struct conn *c, const char *ip)
{
    struct session *s = malloc(sizeof *s);

    if (!s)
        return NULL;
    session_init(s, h, c, ip, &h->limits);
    if (h->cluster && cluster_session_opened(h->cluster, s) < 0) {
        free(s);
        return NULL;
    }
    h->metrics.connections++;
    h->metrics.connections_total++;
    return s;
}

/* Copies a player's live games so that callbacks ending a game (which
 * edit p->games) cannot disturb the iteration; each is looked up by GID
 * when its turn comes. Malloc'ed (NULL with *n 0 when out of memory). */
static struct game_ref *games_snapshot(const struct player *p, size_t *n)
{
    struct game_ref *a = malloc((p->ngames ? p->ngames : 1) * sizeof *a);

    *n = a ? p->ngames : 0;
    if (a && p->ngames)
        memcpy(a, p->games, p->ngames * sizeof *a);
    return a;
}

/* s no longer speaks for its player (it closes, logs out, or logs in as
 * another): its seeks and watches end and, when it was the player's last
 * connection, the player is gone from its games (their grace periods
 * start) and may be freed. s->player is NULL after. */
/* p's last connection here (local or mirrored) is gone: its games and
 * rematch offers learn it, and p may be freed. */
static void player_gone(struct hub *h, struct player *p, int64_t now)
{
    size_t n;
    struct game_ref *gs;

    rematch_player_gone(h, p);
    gs = games_snapshot(p, &n);
    p->pins++; /* a game ending below may drop p's last game */
    for (size_t i = 0; i < n; i++) {
        struct game *g = table_get(&h->games, gs[i].gid);
        if (g)
            game_player_gone(g, game_color_of(g, p->pid), now);
    }
    p->pins--;
    free(gs);
    hub_player_release(h, p);
}

void hub_detach(struct hub *h, struct session *s, int64_t now)
{
    struct player *p = s->player;

    lobby_drop_owner(h->lobby, s);
    lobbyfeed_unwatch(h->feed, s);
    watch_clear(h, s);
    if (!p)
        return;
    if (h->cluster)
        cluster_session_detached(h->cluster, s);
    for (size_t i = 0; i < p->nconns; i++)
        if (p->conns[i] == s) {
            p->conns[i] = p->conns[--p->nconns];
            break;
        }
    s->player = NULL;
    if (h->cluster)
        cluster_player_left(h->cluster, p);
    if (hub_player_present(p))
        return;
    player_gone(h, p, now);
}

int hub_remote_attach(struct session *s, struct player *p)
{
    if (grow((void **)&p->remotes, &p->remotecap, p->nremotes,
             sizeof *p->remotes))
        return -1;
    p->remotes[p->nremotes++] = s;
    s->player = p;
    if (p->nremotes == 1 && p->nconns == 0)
        hub_player_back(s->hub, p, hub_now_ms(s->hub));
    return 0;
}

void hub_remote_detach(struct hub *h, struct session *s, int64_t now)
{
    struct player *p = s->player;

    watch_clear(h, s);
    if (!p)
        return;
    for (size_t i = 0; i < p->nremotes; i++)
        if (p->remotes[i] == s) {
            p->remotes[i] = p->remotes[--p->nremotes];
            break;
        }
    s->player = NULL;
    if (!hub_player_present(p))
        player_gone(h, p, now);
}

void hub_close(struct hub *h, struct session *s, int64_t now)
{
    struct player *p = s->player;

    h->metrics.connections--;
    account_clear_session(s); /* a job in flight is dropped when it answers */
    if (h->cluster)
        cluster_session_closed(h->cluster, s);
    if (h->shutting_down) {
        lobby_drop_owner(h->lobby, s);
        lobbyfeed_unwatch(h->feed, s);
        if (p)
            for (size_t i = 0; i < p->nconns; i++)
                if (p->conns[i] == s) {
                    p->conns[i] = p->conns[--p->nconns];
                    break;
                }
        watch_clear(h, s); /* (tells no one: a spectator) */
        session_clear(s);
        free(s);
        return;
    }
    hub_detach(h, s, now);
    session_clear(s);
    free(s);
}

/* ---- commands ---------------------------------------------------------- */

/* Sorts a player's games oldest first, stably: games created in the same
 * millisecond keep the order in which the player got them (creation
 * order), not an order of their random GIDs. n is at most
 * max_games_per_player (or what a restart restored). */
static void sort_created(struct game **gs, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct game *g = gs[i];
        size_t j = i;
        while (j > 0 && game_created_ms(gs[j - 1]) > game_created_ms(g)) {
            gs[j] = gs[j - 1];
            j--;
        }
        gs[j] = g;
    }
}

/* In a cluster: attaches s at the hosts of its player's live games on
 * other nodes, then sends s its welcome with every live game of its
 * player on any node (the store's list). */
static void cluster_welcome(struct session *s, struct proto_me *pp,
                            const char *token, const struct proto_id *id,
                            uint64_t seq)
{
    struct hub *h = s->hub;
    size_t max = (size_t)h->cfg.max_games_per_player + 8, n = 0;
    char(*live)[PROTO_KEY_MAX + 1] = malloc(max * sizeof *live);
    const char **gids = malloc(max * sizeof *gids);

    if (!live || !gids ||
        store_player_live_games(h->store, s->player->pid, live, max, &n) <
            0) {
        hub_busy(s, id);
    } else {
        for (size_t i = 0; i < n; i++)
            gids[i] = live[i];
        cluster_welcome_after_attach(
            h->cluster, s, gids, n,
            proto_render_welcome(pp, token, gids, n, id), seq);
    }
    free(gids);
    free(live);
}

void hub_welcome(struct session *s, const char *token,
                 const struct proto_id *id, uint64_t seq)
{
    struct player *p = s->player;
    struct proto_rating ratings[RATING_CATEGORIES];
    struct proto_me pp = {p->pid, p->name, p->account, ratings, 0, NULL};
    char *settings = NULL;
    size_t n, k = 0;
    struct game_ref *refs = NULL;
    struct game **gs = NULL;
    const char **gids = NULL;

    if (p->account) {
        pp.n_ratings = hub_ratings_shown(s->hub, p->pid, ratings, false);
        pp.settings = settings = prefs_get(s->hub, p->pid);
    }
    if (s->hub->cluster) {
        cluster_welcome(s, &pp, token, id, seq);
        free(settings);
        return;
    }
    refs = games_snapshot(p, &n);
    gs = malloc((n ? n : 1) * sizeof *gs);
    gids = malloc((n ? n : 1) * sizeof *gids);
    for (size_t i = 0; refs && gs && i < n; i++)
        if ((gs[k] = table_get(&s->hub->games, refs[i].gid)) != NULL)
            k++;
    n = k;
    if (refs && gs && gids) {
        sort_created(gs, n);
        for (size_t i = 0; i < n; i++)
            gids[i] = game_gid(gs[i]);
        hub_send_text(s, proto_render_welcome(&pp, token, gids, n, id), seq);
    }
    free(settings);
    free(gids);
    free(gs);
    free(refs);
}

int hub_attach(struct session *s, struct player *p)
{
    if (grow((void **)&p->conns, &p->conncap, p->nconns, sizeof *p->conns))
        return -1;
    p->conns[p->nconns++] = s;
    s->player = p;
    if (s->hub->cluster)
        cluster_player_joined(s->hub->cluster, p);
    return 0;
}

/* p's first connection is back: its games learn it. */
void hub_player_back(struct hub *h, struct player *p, int64_t now)
{
    size_t n;
    struct game_ref *gs = games_snapshot(p, &n);

    for (size_t i = 0; i < n; i++) {
        struct game *g = table_get(&h->games, gs[i].gid);
        if (g)
            game_player_back(g, game_color_of(g, p->pid), now);
    }
    free(gs);
}

static void do_hello(struct session *s, const struct proto_msg *m,
                     int64_t now)
{
    struct hub *h = s->hub;
    struct player *p;
    uint8_t hash[32];
    char key[65];

    if (s->player) {
        hub_send_error(s, PROTO_BAD_FIELD, "hello: already said", &m->id);
        return;
    }
    if (m->token[0]) {
        struct store_player sp;
        uint64_t seq = 0;
        int64_t last = 0;
        bool account = false;
        int rc = 1;
        ids_token_hash(m->token, hash);
        hub_hex(hash, 32, key);
        p = account_revoked(h, key) ? NULL : table_get(&h->tokens, key);
        if (!p)
            rc = account_revoked(h, key)
                     ? 0
                     : account_find_by_token(h, hash, &sp, &account, &last);
        if (rc <= 0) {
            hub_send_error(s, PROTO_BAD_TOKEN,
                           rc < 0 ? "the player database did not answer"
                                  : "unknown token",
                           &m->id);
            return;
        }
        if (!p) {
            p = hub_player_get(h, sp.pid, sp.name);
            if (!p)
                return;
            if (account) {
                p->account = true;
                snprintf(p->name, sizeof p->name, "%s", sp.name);
            } else {
                player_set_token(h, p, hash);
                /* A guest purge queued before p was in memory may delete
                 * the row just read: put it back, behind the purge. */
                if (h->purge_seq > store_committed(h->store))
                    seq = store_put_player(h->store, &sp);
            }
        }
        bool was_gone = !hub_player_present(p);
        if (hub_attach(s, p) < 0) {
            hub_player_release(h, p);
            return;
        }
        if (account) {
            account_set_token(s, hash);
            if (hub_wall_ms(h) - last >= LIMIT_TOKEN_TOUCH_MS)
                store_touch_token(h->store, hash, hub_wall_ms(h));
        }
        /* subscribed to p's games from here on, through p->fan */
        hub_welcome(s, m->token, &m->id, seq);
        if (was_gone)
            hub_player_back(h, p, now);
        log_info("event=player_resumed player=%s", p->pid);
        return;
    }

    struct store_player sp;
    char token[2 * LIMIT_TOKEN_BYTES];
    uint64_t seq;
    struct addr *a = addr_get(h, s->ip);
    if (a && !bucket_take(&a->guests, h->cfg.guests_per_ip_per_min / 60.0,
                          h->cfg.guests_per_ip_per_min, now)) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "too many new players from your "
                       "address; try again in a minute",
                       &m->id);
        return;
    }
    memset(&sp, 0, sizeof sp);
    if (ids_random(sp.pid, LIMIT_PID_BYTES) < 0 ||
        ids_random(token, LIMIT_TOKEN_BYTES) < 0) {
        hub_send_error(s, PROTO_RATE_LIMITED, "no randomness available",
                       &m->id);
        return;
    }
    if (m->name[0]) {
        snprintf(sp.name, sizeof sp.name, "%s", m->name);
    } else {
        char r[16];
        ids_random(r, 6);
        r[6] = '\0';
        snprintf(sp.name, sizeof sp.name, "Guest-%.6s", r);
    }
    ids_token_hash(token, sp.token_hash);
    sp.created_ms = hub_wall_ms(h);
    seq = store_put_player(h->store, &sp);
    if (!seq) {
        hub_send_error(s, PROTO_RATE_LIMITED, "the server is busy; try again",
                       &m->id);
        return;
    }
    p = hub_player_get(h, sp.pid, sp.name);
    if (!p)
        return;
    player_set_token(h, p, sp.token_hash);
    if (hub_attach(s, p) < 0) {
        hub_player_release(h, p);
        return;
    }
    hub_welcome(s, token, &m->id, seq);
    char q[2 * PROTO_NAME_MAX + 8];
    log_info("event=player_new player=%s name=%s", p->pid,
             log_quote(q, sizeof q, p->name));
}

struct game *hub_start_game(struct hub *h, const struct clock_spec *clock,
                            const struct board *start,
                            const struct game_seat_init seats[2],
                            const char *creator, bool rated, int64_t now)
{
    char gid[PROTO_KEY_MAX + 1];
    struct game *g;

    if (ids_random(gid, LIMIT_GID_BYTES) < 0)
        return NULL;
    /* in a cluster the game's epoch is taken before its row is written */
    if (h->cluster && cluster_host_new(h->cluster, gid) < 0)
        return NULL;
    g = game_new(&h->game_env, gid, clock, start, seats, creator, rated, now);
    if (!g || table_put(&h->games, game_gid(g), g) < 0) {
        if (g)
            game_destroy(h, g);
        if (h->cluster)
            cluster_unhost(h->cluster, gid);
        return NULL;
    }
    for (int c = 0; c < 2; c++)
        show_rating(h, g, c);
    for (int c = 0; c < 2; c++) {
        /* (a seat of another node's connection has no record here yet
         * in a cluster: its connections attach to it later) */
        struct player *p = seats[c].pid
                               ? (h->cluster
                                      ? hub_player_get(h, seats[c].pid,
                                                       seats[c].name)
                                      : table_get(&h->players, seats[c].pid))
                               : NULL;
        if (p)
            player_add_game(p, game_gid(g));
    }
    subscribe_players(h, g);
    if (h->cluster)
        cluster_tell_players(h->cluster, g);
    log_info("event=game_created game=%s", gid);
    return g;
}

/* True when p may not take one more live game, open invitation or seek
 * (sends too_many_games then). A new seek replaces p's open one, so a
 * seek counts only the games. */
bool hub_player_full(struct session *s, bool seek, const struct proto_id *id)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    size_t held = p->ngames;
    char msg[96];

    if (h->cluster) {
        /* the games of every node (the store's, which lags the writes
         * queued here by a commit: those are in p->ngames), and the seek
         * of this connection */
        size_t max = (size_t)h->cfg.max_games_per_player + 1, n = 0;
        char(*gids)[PROTO_KEY_MAX + 1] = malloc(max * sizeof *gids);
        if (gids &&
            store_player_live_games(h->store, p->pid, gids, max, &n) == 0 &&
            n > held)
            held = n;
        free(gids);
        if (!seek && s->seek_sid[0])
            held++;
    } else if (!seek && held + 1 >= (size_t)h->cfg.max_games_per_player) {
        held += (size_t)lobby_has(h->lobby, p->pid);
    }
    if (held < (size_t)h->cfg.max_games_per_player)
        return false;
    snprintf(msg, sizeof msg,
             "you hold %d live games, invitations and "
             "seeks: the most there may be",
             h->cfg.max_games_per_player);
    hub_send_error(s, PROTO_TOO_MANY_GAMES, msg, id);
    return true;
}

/* True when s may not ask for a rated game (sends rated_needs_account
 * then): only accounts play rated games. */
static bool rated_refused(struct session *s, const struct proto_id *id)
{
    if (s->player->account)
        return false;
    hub_send_error(s, PROTO_RATED_NEEDS_ACCOUNT,
                   "rated games are for accounts: register or log in", id);
    return true;
}

static void do_seek(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;
    struct lobby_seek seek, match;
    struct board start;
    int color, rc;

    if (m->rated && rated_refused(s, &m->id))
        return;
    if (hub_player_full(s, true, &m->id))
        return;
    memset(&seek, 0, sizeof seek);
    ids_random(seek.sid, LIMIT_SID_BYTES);
    snprintf(seek.pid, sizeof seek.pid, "%s", s->player->pid);
    snprintf(seek.name, sizeof seek.name, "%s", s->player->name);
    seek.owner = s;
    seek.clock = m->clock;
    seek.color = m->color;
    if (m->rated) {
        struct store_rating r;
        if (rating_of(h, s->player->pid,
                      rating_category_name(rating_category(&m->clock)),
                      &r) < 0) {
            hub_busy(s, &m->id);
            return;
        }
        seek.rated = true;
        seek.rating = rating_round(r.rating);
        seek.provisional = r.rd > RATING_RD_PROVISIONAL;
        seek.has_range = m->has_range;
        seek.lo = m->range_lo;
        seek.hi = m->range_hi;
    }
    if (h->cluster) { /* the seeks of every node are in Redis */
        cluster_seek(h->cluster, s, m, seek.sid, seek.rating,
                     seek.provisional);
        return;
    }
    rc = lobby_seek(h->lobby, &seek, (int)(ids_random_byte() & 1), &match,
                    &color);
    if (rc < 0) {
        hub_send_error(s, PROTO_RATE_LIMITED, "out of memory", &m->id);
        return;
    }
    hub_send_text(s, proto_render_seeking(seek.sid, &m->id), 0);
    if (rc == 0)
        return;
    struct player *other = table_get(&h->players, match.pid);
    struct game_seat_init seats[2];
    seats[color] = (struct game_seat_init){s->player->pid, s->player->name};
    seats[1 - color] = (struct game_seat_init){match.pid,
                                               other ? other->name : "?"};
    board_from_fen(&start, FEN_START);
    struct game *g = hub_start_game(h, &m->clock, &start, seats, NULL,
                                    m->rated, now);
    if (g)
        game_announce_start(g, now);
}

struct game *hub_start_paired(struct session *s,
                              const struct clock_spec *clock, bool rated,
                              int color, const char *other, int64_t now)
{
    struct hub *h = s->hub;
    struct player *o = table_get(&h->players, other);
    struct store_player sp;
    struct game_seat_init seats[2];
    struct board start;
    struct game *g;

    if (!o && store_find_player(h->store, other, &sp) != 1)
        snprintf(sp.name, sizeof sp.name, "?");
    seats[color] = (struct game_seat_init){s->player->pid, s->player->name};
    seats[1 - color] = (struct game_seat_init){other, o ? o->name : sp.name};
    board_from_fen(&start, FEN_START);
    g = hub_start_game(h, clock, &start, seats, NULL, rated, now);
    if (g)
        game_announce_start(g, now);
    return g;
}

/* The checks of accept after no_such_seek, in the protocol's order:
 * own_game, rated_needs_account, rating_out_of_range (the seek's range,
 * against s's rating in its category), too_many_games (s's live games,
 * then the seeker's). True when one failed (it was answered). */
bool hub_accept_refused(struct session *s, const struct lobby_seek *k,
                        const struct proto_id *id)
{
    struct hub *h = s->hub;
    struct player *seeker;

    if (!strcmp(k->pid, s->player->pid)) {
        hub_send_error(s, PROTO_OWN_GAME, "this is your own seek", id);
        return true;
    }
    if (k->rated && rated_refused(s, id))
        return true;
    if (k->rated && k->has_range) {
        struct store_rating r;
        long mine;
        if (rating_of(h, s->player->pid,
                      rating_category_name(rating_category(&k->clock)),
                      &r) < 0) {
            hub_busy(s, id);
            return true;
        }
        mine = rating_round(r.rating);
        if (mine < k->lo || mine > k->hi) {
            char msg[96];
            snprintf(msg, sizeof msg,
                     "the seek is for ratings %d-%d; yours is %ld", k->lo,
                     k->hi, mine);
            hub_send_error(s, PROTO_RATING_OUT_OF_RANGE, msg, id);
            return true;
        }
    }
    if (hub_player_full(s, true, id))
        return true;
    seeker = table_get(&h->players, k->pid);
    if (h->cluster) { /* the seeker's games on every node */
        size_t max = (size_t)h->cfg.max_games_per_player, n = 0;
        char(*gids)[PROTO_KEY_MAX + 1] = malloc(max * sizeof *gids);
        int rc = gids ? store_player_live_games(h->store, k->pid, gids, max,
                                                &n)
                      : -1;
        free(gids);
        if (rc < 0) {
            hub_busy(s, id);
            return true;
        }
        if (n < max && (!seeker || seeker->ngames < max))
            return false;
    } else if (seeker &&
               seeker->ngames < (size_t)h->cfg.max_games_per_player) {
        return false;
    }
    hub_send_error(s, PROTO_TOO_MANY_GAMES,
                   "the seeker holds as many live games as there may be", id);
    return true;
}

struct game *hub_accept_start(struct session *s, const struct lobby_seek *k,
                              const struct proto_id *id, int64_t now)
{
    struct hub *h = s->hub;
    struct game_seat_init seats[2];
    struct board start;
    struct game *g;
    int color = lobby_taker_color(k, (int)(ids_random_byte() & 1));

    seats[color] = (struct game_seat_init){s->player->pid, s->player->name};
    seats[1 - color] = (struct game_seat_init){k->pid, k->name};
    board_from_fen(&start, FEN_START);
    g = hub_start_game(h, &k->clock, &start, seats, NULL, k->rated, now);
    if (!g)
        hub_send_error(s, PROTO_RATE_LIMITED, "the server is busy; try again",
                       id);
    return g;
}

/* accept (PROTOCOL.md section 5): s takes the open seek m->seek now,
 * in the colour its seeker did not ask for (hub_accept_refused's
 * checks after no_such_seek). s's own open seek ends with the game's
 * start. In a cluster the seek is Redis's (cluster_accept). */
static void do_accept(struct session *s, const struct proto_msg *m,
                      int64_t now)
{
    struct hub *h = s->hub;
    const struct lobby_seek *k;
    struct lobby_seek seek;
    struct game *g;

    if (h->cluster) {
        cluster_accept(h->cluster, s, m);
        return;
    }
    k = lobby_find(h->lobby, m->seek);
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
    lobby_cancel(h->lobby, s->player->pid); /* the game_start says it */
    log_info("event=seek_accepted seek=%s game=%s", seek.sid, game_gid(g));
    game_announce_start(g, now);
}

static void do_invite(struct session *s, const struct proto_msg *m,
                      int64_t now)
{
    struct hub *h = s->hub;
    struct game_seat_init seats[2] = {{NULL, NULL}, {NULL, NULL}};
    struct board start;
    struct game *g;
    struct game_host *gh;
    struct addr *a;
    int color = m->color == PROTO_WHITE   ? 0
                : m->color == PROTO_BLACK ? 1
                                          : (int)(ids_random_byte() & 1);

    if (m->rated && rated_refused(s, &m->id))
        return;
    if (hub_player_full(s, false, &m->id))
        return;
    a = addr_get(h, s->ip);
    if (a && a->invites >= h->cfg.max_invites_per_ip) {
        hub_send_error(s, PROTO_TOO_MANY_GAMES,
                       "too many open invitations "
                       "from your address",
                       &m->id);
        return;
    }
    if (m->fen[0])
        start = m->start;
    else
        board_from_fen(&start, FEN_START);
    seats[color] = (struct game_seat_init){s->player->pid, s->player->name};
    g = hub_start_game(h, &m->clock, &start, seats, s->player->pid, m->rated,
                       now);
    if (!g) {
        hub_send_error(s, PROTO_RATE_LIMITED, "the server is busy; try again",
                       &m->id);
        return;
    }
    if (a && (gh = hub_host_get(h, g)) != NULL) {
        snprintf(gh->invite_ip, sizeof gh->invite_ip, "%s", a->ip);
        a->invites++;
    }
    hub_send_text(s, proto_render_invited(game_gid(g), &m->id), game_seq(g));
}

static void do_join(struct session *s, struct game *g,
                    const struct proto_msg *m, int64_t now)
{
    struct proto_error err;
    bool joinable;

    /* rated_needs_account, then too_many_games, only where the join would
     * otherwise succeed, after the checks of game_join that come first in
     * the protocol's order */
    game_tick(g, now);
    joinable = game_status(g) == GAME_WAITING &&
               strcmp(game_creator(g), s->player->pid);
    if (joinable && game_rated(g) && rated_refused(s, &m->id))
        return;
    if (joinable &&
        (s->hub->cluster || /* (its games on other nodes: hub_player_full) */
         s->player->ngames + 1 >= (size_t)s->hub->cfg.max_games_per_player) &&
        hub_player_full(s, false, &m->id))
        return;
    if (game_join(g, s->player->pid, s->player->name, now, &err) < 0) {
        hub_send_error(s, err.code, err.msg, &m->id);
        return;
    }
    show_rating(s->hub, g, game_color_of(g, s->player->pid));
    invite_closed(s->hub, g);
    player_add_game(s->player, game_gid(g));
    subscribe_players(s->hub, g);
    if (s->hub->cluster)
        cluster_tell_players(s->hub->cluster, g);
    game_announce_start(g, now);
}

static void do_state(struct session *s, const struct proto_msg *m,
                     int64_t now, bool watch)
{
    struct hub *h = s->hub;
    struct game *g = table_get(&h->games, m->game);
    char *text;
    int found;

    if (g) {
        /* a player's connections get the game through the player's fan */
        if (watch && game_color_of(g, s->player->pid) < 0)
            watch_add(s, g);
        game_send_state(g, s, &m->id, now);
        return;
    }
    text = render_stored(h, m->game, &m->id, false, &found);
    if (!text) {
        hub_send_error(s, PROTO_NO_SUCH_GAME,
                       found < 0 ? "the game database did not answer"
                                 : "no such game",
                       &m->id);
        return;
    }
    hub_send_text(s, text, 0);
}

/* The one-way delay of s's connection: half its smoothed ping round trip
 * as the network layer measured it (never anything the client says). */
static int64_t lag_estimate(const struct session *s)
{
    const struct hub_env *env = &s->hub->env;

    if (s->remote) /* as the connection's node measured it */
        return s->rtt_ms / 2;
    if (!s->conn || !env->rtt_ms)
        return 0;
    return env->rtt_ms(env->ctx, s->conn) / 2;
}

/* Runs a player's command m on g; game.c checks it in the protocol's
 * order and the first failure is answered. */
static void game_command(struct session *s, struct game *g,
                         const struct proto_msg *m, int64_t now)
{
    const char *pid = s->player->pid;
    struct proto_error err = {PROTO_OK, ""};
    int rc = 0;

    switch (m->type) {
    case PROTO_T_JOIN:
        do_join(s, g, m, now);
        return;
    case PROTO_T_MOVE:
        rc = game_move_lag(g, pid, m->uci, m->ply, lag_estimate(s), now,
                           &err);
        if (rc == 0)
            hist_add(&s->hub->metrics.lag_credit, game_last_lag_ms(g) * 1000);
        break;
    case PROTO_T_RESIGN:
        rc = game_resign(g, pid, now, &err);
        break;
    case PROTO_T_LEAVE:
        rc = game_leave(g, pid, s, now, &err);
        if (game_color_of(g, pid) < 0)
            watch_drop(s, g);
        else if (rc == 0 && game_status(g) == GAME_ENDED)
            rematch_left(s->hub, g, pid);
        break;
    case PROTO_T_ABORT:
        rc = game_abort(g, pid, now, &err);
        break;
    case PROTO_T_DRAW_OFFER:
        rc = game_draw_offer(g, pid, now, &err);
        break;
    case PROTO_T_DRAW_ACCEPT:
        rc = game_draw_accept(g, pid, now, &err);
        break;
    case PROTO_T_DRAW_DECLINE:
        rc = game_draw_decline(g, pid, now, &err);
        break;
    case PROTO_T_DRAW_CLAIM:
        rc = game_claim(g, pid, m->uci, m->ply, now, &err);
        break;
    default:
        break;
    }
    if (rc < 0)
        hub_send_error(s, err.code, err.msg, &m->id);
}

/* A command to a game that is not in memory: the store knows it (it
 * ended long ago, or its restore failed: either way it is over) or nobody
 * does. The game is rebuilt from its row alone, as ended (no journal
 * replay on the loop), with the mute environment, and the command runs on
 * it: game.c answers in the same order as for a game in memory. */
static void stored_game_command(struct session *s, const struct proto_msg *m,
                                int64_t now)
{
    struct hub *h = s->hub;
    struct game_env env = mute_env(h);
    struct store_game row;
    struct game *g;

    if (store_get_game(h->store, m->game, &row, NULL, NULL, NULL) <= 0) {
        hub_send_error(s, PROTO_NO_SUCH_GAME, "no such game", &m->id);
        return;
    }
    snprintf(row.status, sizeof row.status, "ended");
    g = game_restore(&env, &row, NULL, 0, 0, now, NULL);
    if (!g) { /* a start position the rules core refuses: over too */
        hub_send_error(s, PROTO_GAME_OVER, "the game is over", &m->id);
        return;
    }
    game_command(s, g, m, now);
    game_free(g);
}

static void do_game_command(struct session *s, const struct proto_msg *m,
                            int64_t now)
{
    struct hub *h = s->hub;
    struct game *g = table_get(&h->games, m->game);

    if (g && h->cluster && !cluster_leased(h->cluster)) {
        hub_busy(s, &m->id); /* (its lease may have lapsed: cluster.h) */
        return;
    }
    if (g) {
        game_command(s, g, m, now);
    } else if (m->type == PROTO_T_LEAVE) { /* only unsubscribes: nothing */
        struct store_game row;
        if (store_get_game(h->store, m->game, &row, NULL, NULL, NULL) <= 0)
            hub_send_error(s, PROTO_NO_SUCH_GAME, "no such game", &m->id);
    } else {
        stored_game_command(s, m, now);
    }
}

/* True for the messages about one game (m->game). */
static bool about_a_game(enum proto_type t)
{
    switch (t) {
    case PROTO_T_JOIN:
    case PROTO_T_MOVE:
    case PROTO_T_RESIGN:
    case PROTO_T_LEAVE:
    case PROTO_T_ABORT:
    case PROTO_T_DRAW_OFFER:
    case PROTO_T_DRAW_ACCEPT:
    case PROTO_T_DRAW_DECLINE:
    case PROTO_T_DRAW_CLAIM:
    case PROTO_T_SYNC:
    case PROTO_T_WATCH:
    case PROTO_T_UNWATCH:
    case PROTO_T_REMATCH:
    case PROTO_T_REMATCH_DECLINE:
        return true;
    default:
        return false;
    }
}

static void dispatch(struct session *s, const struct proto_msg *m,
                     const char *text, size_t len, int64_t now,
                     bool local_only)
{
    struct hub *h = s->hub;

    /* in a cluster, a game of another node's (or of none) is its host's
     * to run (cluster.h) */
    if (h->cluster && !local_only && !s->remote && about_a_game(m->type) &&
        (!table_get(&h->games, m->game) ||
         cluster_handing_over(h->cluster, m->game))) {
        cluster_forward(h->cluster, s, m, text, len, now);
        return;
    }
    switch (m->type) {
    case PROTO_T_HELLO:
        do_hello(s, m, now);
        break;
    case PROTO_T_PING:
        hub_send_text(s, proto_render_pong(&m->id), 0);
        break;
    case PROTO_T_REGISTER:
        account_register(s, m);
        break;
    case PROTO_T_LOGIN:
        account_login(s, m, now);
        break;
    case PROTO_T_LOGOUT:
        account_logout(s, m, now);
        break;
    case PROTO_T_SETTINGS:
        prefs_command(s, m, now);
        break;
    case PROTO_T_SEEK:
        do_seek(s, m, now);
        break;
    case PROTO_T_CANCEL_SEEK:
        if (h->cluster)
            cluster_cancel_seek(h->cluster, s, &m->id);
        else if (lobby_cancel(h->lobby, s->player->pid))
            hub_send_text(s, proto_render_seek_cancelled(&m->id), 0);
        else
            hub_send_error(s, PROTO_NO_SEEK, "you have no open seek", &m->id);
        break;
    case PROTO_T_INVITE:
        do_invite(s, m, now);
        break;
    case PROTO_T_ACCEPT:
        do_accept(s, m, now);
        break;
    case PROTO_T_LOBBY_WATCH:
        if (lobbyfeed_watch(h->feed, s, now) < 0)
            hub_send_error(s, PROTO_RATE_LIMITED, "out of memory", &m->id);
        break;
    case PROTO_T_LOBBY_UNWATCH:
        lobbyfeed_unwatch(h->feed, s);
        break;
    case PROTO_T_SYNC:
        do_state(s, m, now, false);
        break;
    case PROTO_T_WATCH:
        do_state(s, m, now, true);
        break;
    case PROTO_T_REMATCH:
    case PROTO_T_REMATCH_DECLINE:
        rematch_command(s, m, now);
        break;
    case PROTO_T_UNWATCH: {
        struct game *g = table_get(&h->games, m->game);
        if (!g) {
            struct store_game row;
            if (store_get_game(h->store, m->game, &row, NULL, NULL, NULL) <=
                0)
                hub_send_error(s, PROTO_NO_SUCH_GAME, "no such game", &m->id);
        } else if (game_color_of(g, s->player->pid) < 0) {
            watch_drop(s, g);
        }
        break;
    }
    default:
        do_game_command(s, m, now);
        break;
    }
}

void hub_dispatch(struct session *s, const struct proto_msg *m,
                  const char *text, size_t len, int64_t now, bool local_only)
{
    dispatch(s, m, text, len, now, local_only);
}

void hub_watch(struct session *s, struct game *g, int64_t now)
{
    watch_add(s, g);
    game_send_state(g, s, NULL, now);
}

void hub_unwatch(struct session *s, struct game *g)
{
    watch_drop(s, g);
}

void hub_notice_cluster(struct hub *h, bool up)
{
    struct msgbuf *b = msgbuf_take(proto_render_cluster(up));

    if (!b)
        return;
    for (size_t i = 0; i < h->players.cap; i++) {
        struct player *p = h->players.slots[i].value;
        for (size_t j = 0; p && j < p->nconns; j++)
            h->env.send_now(h->env.ctx, p->conns[j]->conn, b);
    }
    msgbuf_unref(b);
}

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
        h->env.close(h->env.ctx, s->conn, 1008, "message flood");
        return false;
    case SESSION_LIMITED:
        if (answer)
            hub_send_error(s, PROTO_RATE_LIMITED, msg, id);
        return false;
    }
    return false;
}

enum proto_type hub_on_text(struct hub *h, struct session *s,
                            const char *text, size_t len, int64_t now)
{
    struct proto_msg m;
    struct proto_error e;
    int rc;

    h->metrics.messages_in++;
    rc = proto_parse(text, len, s->player != NULL, &m, &e);
    if (!admitted(h, s, m.type == PROTO_T_MOVE, true,
                  "too many messages; slow down", rc == 0 ? &m.id : NULL,
                  now))
        rc = -2;
    else if (rc != 0)
        hub_send_error(s, e.code, e.msg, &m.id);
    else
        dispatch(s, &m, text, len, now, false);
    if (m.password_len) /* (the workers have their own copy) */
        OPENSSL_cleanse(m.password, sizeof m.password);
    return rc == 0 ? m.type : PROTO_T_NONE;
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
