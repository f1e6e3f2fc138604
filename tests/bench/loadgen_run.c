/*
 * loadgen_run.c - one load-generator process (see loadgen_run.h).
 *
 * Objects. A `pair` is one game slot: two players (A invites, B joins)
 * and its spectators, each a `conn` with its own WebSocket. A slot plays
 * one game after another on the same connections, so the load stays
 * constant. When anything goes wrong (an error, a close, no progress) the
 * slot closes all its connections and starts again from new players.
 *
 * Moves. The side to move picks a move at random (the slot's own seeded
 * generator) from the `legal` list of the message that gave it the turn.
 * Closed loop: it sends at once. Open loop: each slot keeps a schedule,
 * one move every move_interval_ms on average (uniform in 0.5x..1.5x); a
 * move whose time has passed when the turn arrives goes at once and is
 * counted late. Latency runs from the moment the move frame is written
 * to the moment a `moved` of that ply is read, per recipient kind. With
 * --plies a slot stops (silent, connected) once it has chosen that many
 * moves over its games, and the window ends when the last slot stops:
 * the moves played are then the same in every run with the same seed.
 *
 * Timers: every timer (one per slot, the window's end, the control-pipe
 * poll that also runs the watchdog, the start of queued attempts) is in
 * one min-heap (common/timerq) driven by a single lws_sul, or a single
 * ev_timer when libev runs the loop. Every outbound message is queued on
 * its connection and written one per WRITEABLE callback.
 */
#include "loadgen_run.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libwebsockets.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "fifo.h"
#include "sysclock.h"
#include "timerq.h"

#include <ev.h>

#define QSLOTS 6
#define QBYTES 224
#define RESTART_US 200000       /* a failed slot reconnects after this */
#define RETRY_US 250000         /* a rate-limited move is sent again */
#define UNANSWERED_US 5000000   /* a move unanswered that long: lost */
#define SETUP_STALL_US 30000000 /* a slot stuck before its game starts */
#define CTL_POLL_US 20000
#define RESYNC_US 5000000   /* --resume: a move this long without moved */
#define RECONNECT_TRIES 100 /* --resume: attempts before the slot resets */

enum role { ROLE_A, ROLE_B, ROLE_SPEC, ROLE_PROBE };

enum pstate {
    PS_CONNECTING, /* connections opening, hello sent */
    PS_INVITING,   /* A sent invite */
    PS_WATCHING,   /* spectators sent watch */
    PS_JOINING,    /* B sent join, waiting for both states */
    PS_PLAYING,
    PS_ENDING,    /* last move played, waiting for game_end */
    PS_IDLE,      /* idle mode: first moves made, nothing more */
    PS_RESETTING, /* closing every connection, then reconnect */
};

struct out_msg {
    uint16_t len;
    bool is_move;
    long ply; /* a move: the ply it is played at */
    unsigned char buf[LWS_PRE + QBYTES];
};

struct conn {
    struct run *run;
    struct pair *pair; /* NULL for a probe (connect mode) */
    struct lws *wsi;   /* non-NULL while open or opening */
    enum role role;
    int gindex; /* global connection number */
    bool white; /* players: the colour of this game */
    bool open;  /* attempted, its close not yet handled */
    bool established, closing, pending;
    struct conn *next_pending;
    int64_t t_start_us; /* when the attempt began */
    int64_t t_echo_us;  /* echo mode: when the message was sent */
    unsigned echo_n;    /* echo mode: messages sent */
    unsigned qhead, qn;
    struct out_msg q[QSLOTS];
    char *rx;
    size_t rx_len, rx_cap;
    /* --resume */
    char token[64]; /* from its welcome */
    int port_i;     /* index in cfg->ports */
    bool resuming;  /* reconnecting or resyncing: a `state` is due */
    int tries;      /* reconnect attempts since it was last in play */
    long seen;      /* the highest ply of the game it read (moved, state) */
    int64_t est_us; /* when it was last established */
};

#define SENT_RING 4

struct pair {
    struct run *run;
    int index;          /* global game-slot number */
    struct conn *conns; /* [0] A, [1] B, then spectators */
    int nconn, open;
    enum pstate st;
    char gid[LG_MSG_GID_MAX + 1];
    int welcomed, watching, joined, ended;
    long ply;    /* plies played */
    long acked;  /* the highest ply any of its connections read */
    char uci[6]; /* the next move, chosen on receipt */
    struct conn *mover;
    int64_t sent_us[SENT_RING]; /* write time by ply % SENT_RING */
    long sent_ply[SENT_RING];
    int64_t due_us;      /* open loop: when the next move is due */
    int64_t progress_us; /* last progress, for the watchdog */
    uint64_t rng;
    long played;  /* moves chosen by this slot, all its games */
    bool done;    /* --plies: played them all, silent since */
    bool ready;   /* counted in run->ready */
    bool restart; /* the timer restarts the slot */
    struct timerq_timer timer;
};

struct run {
    const struct lg_config *cfg;
    struct lws_context *ctx;
    void *ev_loop; /* libev's loop, or NULL: lws polls */
    struct pair *pairs;
    struct conn *probes;
    int npairs, nprobes;
    struct {
        struct conn *head, *tail;
    } pend;
    int connecting, established, ready, live;
    int done; /* slots that played --plies moves */
    bool in_start_pending;
    struct timerq tq;
    lws_sorted_usec_list_t tq_sul; /* drives tq with lws's poll() loop */
    ev_timer tq_ev;                /* drives tq with libev */
    int64_t tq_armed_us;           /* INT64_MAX when nothing drives tq */
    struct timerq_timer ctl_timer, end_timer, kick_timer;
    int64_t t_begin_us, t_go_us, ramp_deadline_us, last_watchdog_us;
    bool sent_ready, going, reported, stopping;
    int ramp_ticks;
    int64_t cpu_go_us;
    struct lg_stats st;
    struct lg_msg msg;
    const char *text; /* the message being handled, text_len bytes */
    size_t text_len;
    char hostport[300];
};

static int64_t now_us(void)
{
    return sysclock_us(CLOCK_MONOTONIC);
}

static int64_t cpu_us(void)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
           ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

/* xorshift64*: fast, seeded, good enough to pick moves. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* Uniform in [0, 1). */
static double rng_unit(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) / 9007199254740992.0;
}

static void write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        len -= (size_t)w;
    }
}

/* ---- timers ------------------------------------------------------------ */

static void tq_sul_fire(lws_sorted_usec_list_t *sul);
static void tq_ev_fire(struct ev_loop *loop, ev_timer *w, int revents);

/* Arms the heap's driver at its earliest deadline when that moved: an
 * lws_sul with lws's own loop, an ev_timer with libev (lws 4.1's libev
 * glue does not shorten its wait for an lws_sul scheduled from a
 * callback: such a timer fired only at the next unrelated wake-up). */
static void tq_rearm(struct run *r)
{
    int64_t next = timerq_next(&r->tq), now;

    if (next == r->tq_armed_us)
        return;
    r->tq_armed_us = next;
    now = now_us();
    if (r->ev_loop) {
        ev_timer_stop(r->ev_loop, &r->tq_ev);
        if (next != INT64_MAX) {
            ev_now_update(r->ev_loop);
            ev_timer_set(&r->tq_ev,
                         next > now ? (double)(next - now) / 1e6 : 0.0, 0.0);
            ev_timer_start(r->ev_loop, &r->tq_ev);
        }
        return;
    }
    if (next == INT64_MAX) {
        lws_sul_cancel(&r->tq_sul);
        return;
    }
    lws_sul_schedule(r->ctx, 0, &r->tq_sul, tq_sul_fire,
                     next > now ? next - now : 0);
}

/* Runs every timer that is due, then re-arms the driver. */
static void tq_service(struct run *r)
{
    int64_t now = now_us();
    struct timerq_timer *t;

    r->tq_armed_us = INT64_MAX;
    while ((t = timerq_pop_due(&r->tq, now)))
        t->cb(t);
    tq_rearm(r);
}

static void tq_sul_fire(lws_sorted_usec_list_t *sul)
{
    tq_service(lws_container_of(sul, struct run, tq_sul));
}

static void tq_ev_fire(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    tq_service(w->data);
}

static void run_arm(struct run *r, struct timerq_timer *t, int64_t at_us)
{
    timerq_arm(&r->tq, t, at_us);
    tq_rearm(r);
}

static void pair_arm(struct pair *p, int64_t at_us, bool restart)
{
    p->restart = restart;
    timerq_arm(&p->run->tq, &p->timer, at_us);
    tq_rearm(p->run);
}

/* ---- outbound ---------------------------------------------------------- */

/* Queues one text message on c, written by a later WRITEABLE callback. */
static void __attribute__((format(printf, 4, 5)))
conn_send(struct conn *c, bool is_move, long ply, const char *fmt, ...)
{
    struct out_msg *m;
    va_list ap;
    int n;

    if (!c->established || c->closing)
        return;
    if (c->qn == QSLOTS) {
        c->run->st.queue_full++;
        return;
    }
    m = &c->q[(c->qhead + c->qn) % QSLOTS];
    va_start(ap, fmt);
    n = vsnprintf((char *)m->buf + LWS_PRE, QBYTES, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= QBYTES)
        return;
    m->len = (uint16_t)n;
    m->is_move = is_move;
    m->ply = ply;
    if (c->qn++ == 0)
        lws_callback_on_writable(c->wsi);
}

static int conn_writeable(struct conn *c)
{
    struct out_msg *m;

    if (c->closing) {
        lws_close_reason(c->wsi, LWS_CLOSE_STATUS_NORMAL, NULL, 0);
        return -1;
    }
    if (!c->qn)
        return 0;
    m = &c->q[c->qhead];
    if (m->is_move && c->pair) {
        struct pair *p = c->pair;
        p->sent_us[(m->ply + 1) % SENT_RING] = now_us();
        p->sent_ply[(m->ply + 1) % SENT_RING] = m->ply + 1;
    }
    if (lws_write(c->wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT) <
        (int)m->len)
        return -1;
    c->qhead = (c->qhead + 1) % QSLOTS;
    if (--c->qn)
        lws_callback_on_writable(c->wsi);
    return 0;
}

/* Closes c from our side (a normal close, not counted as unexpected). */
static void conn_close(struct conn *c)
{
    if (c->pending) {
        /* not yet attempted: drop it from the queue of attempts */
        struct conn *prev = NULL, *p = c->run->pend.head;
        while (p && p != c) {
            prev = p;
            p = p->next_pending;
        }
        if (p)
            FIFO_UNLINK(&c->run->pend, prev, c, next_pending);
        c->pending = false;
        c->pair->open--;
        return;
    }
    if (!c->open || c->closing)
        return;
    c->closing = true;
    if (c->established)
        lws_callback_on_writable(c->wsi);
    /* else: closed as soon as it is established, or lws gives up on it
     * (lws_set_timeout on a client still connecting crashed lws 4.1
     * inside its timer list) */
}

/* ---- connections ------------------------------------------------------- */

static void conn_closed(struct conn *c);

static void conn_attempt(struct conn *c)
{
    struct run *r = c->run;
    const struct lg_config *cfg = r->cfg;
    struct lws_client_connect_info i;
    char iface[INET_ADDRSTRLEN];
    struct lws *wsi;

    memset(&i, 0, sizeof i);
    i.context = r->ctx;
    i.address = cfg->host;
    i.port = cfg->n_ports ? cfg->ports[c->port_i] : cfg->port;
    i.path = cfg->path;
    i.host = r->hostport;
    i.origin = r->hostport;
    i.protocol = "chess.v1";
    i.userdata = c;
    i.opaque_user_data = c;
    if (cfg->src_addrs > 1) {
        struct in_addr a;
        a.s_addr = htonl(0x7f000001u +
                         (uint32_t)(c->gindex % cfg->src_addrs));
        inet_ntop(AF_INET, &a, iface, sizeof iface);
        i.iface = iface;
    }
    c->t_start_us = now_us();
    c->wsi = NULL;
    c->open = true;
    i.pwsi = &c->wsi;
    r->connecting++;
    wsi = lws_client_connect_via_info(&i);
    if (!c->open)
        return; /* CONNECTION_ERROR already ran */
    if (wsi)
        c->wsi = wsi;
    else
        conn_closed(c);
}

/* Starts queued attempts while fewer than max_connecting are in flight. */
static void start_pending(struct run *r)
{
    if (r->in_start_pending)
        return;
    r->in_start_pending = true;
    while (r->pend.head && r->connecting < r->cfg->max_connecting &&
           !r->stopping) {
        struct conn *c;
        FIFO_POP(&r->pend, c, next_pending);
        c->pending = false;
        c->next_pending = NULL;
        conn_attempt(c);
    }
    r->in_start_pending = false;
}

static void kick_fire(struct timerq_timer *t)
{
    start_pending(lws_container_of(t, struct run, kick_timer));
}

/* Starts pending attempts soon, outside any connection's callback (so a
 * close callback never re-enters lws to open another connection). */
static void kick(struct run *r)
{
    if (r->pend.head && !r->stopping)
        run_arm(r, &r->kick_timer, now_us());
}

static void conn_queue_attempt(struct conn *c)
{
    struct run *r = c->run;

    c->established = c->closing = false;
    c->qhead = c->qn = 0;
    c->rx_len = 0;
    c->pending = true;
    FIFO_PUSH(&r->pend, c, next_pending);
    if (c->pair)
        c->pair->open++;
}

/* ---- game slots -------------------------------------------------------- */

static void pair_set_ready(struct pair *p)
{
    if (!p->ready) {
        p->ready = true;
        p->run->ready++;
    }
}

static bool live_state(enum pstate st)
{
    return st == PS_PLAYING || st == PS_ENDING || st == PS_IDLE;
}

static void pair_set_live(struct pair *p, bool live)
{
    bool was = live_state(p->st);

    if (was != live)
        p->run->live += live ? 1 : -1;
}

static void pair_set_state(struct pair *p, enum pstate st)
{
    pair_set_live(p, live_state(st));
    p->st = st;
    p->progress_us = now_us();
}

/* --acked: the slot's game and the highest ply it was shown, once. */
static void acked_flush(struct pair *p)
{
    char line[LG_MSG_GID_MAX + 32];
    int n;

    if (p->run->cfg->acked_fd >= 0 && p->gid[0] && p->acked > 0) {
        n = snprintf(line, sizeof line, "%s %ld\n", p->gid, p->acked);
        /* (O_APPEND, one short write: the processes' lines stay whole) */
        if (write(p->run->cfg->acked_fd, line, (size_t)n) != n)
            fprintf(stderr, "E: --acked: %s\n", strerror(errno));
    }
    p->acked = 0;
    for (int k = 0; k < p->nconn; k++)
        p->conns[k].seen = 0;
}

/* c read game p at ply (a moved or a state). */
static void acked_note(struct pair *p, struct conn *c, long ply)
{
    if (ply > p->acked)
        p->acked = ply;
    if (ply > c->seen)
        c->seen = ply;
}

/* Closes every connection of p; the slot restarts once all are closed. */
static void pair_reset(struct pair *p)
{
    if (p->st == PS_RESETTING)
        return;
    pair_set_state(p, PS_RESETTING);
    timerq_cancel(&p->run->tq, &p->timer);
    for (int k = 0; k < p->nconn; k++)
        conn_close(&p->conns[k]);
    if (!p->open)
        pair_arm(p, now_us() + RESTART_US, true);
}

/* p gives up its game (an error, a close, a stall): counted, reset. */
static void pair_fail(struct pair *p)
{
    if (p->st != PS_RESETTING)
        p->run->st.resets++;
    pair_reset(p);
}

static void pair_connect(struct pair *p)
{
    acked_flush(p);
    pair_set_state(p, PS_CONNECTING);
    p->welcomed = 0;
    p->gid[0] = '\0';
    for (int k = 0; k < p->nconn; k++) { /* new players */
        p->conns[k].token[0] = '\0';
        p->conns[k].resuming = false;
        p->conns[k].tries = 0;
        conn_queue_attempt(&p->conns[k]);
    }
    start_pending(p->run);
}

static void pair_new_game(struct pair *p)
{
    acked_flush(p);
    p->gid[0] = '\0'; /* (the last game's late messages are not this one's) */
    pair_set_state(p, PS_INVITING);
    p->watching = p->joined = p->ended = 0;
    p->mover = NULL;
    for (int k = 0; k < SENT_RING; k++)
        p->sent_ply[k] = -1;
    conn_send(&p->conns[0], false, 0,
              "{\"t\":\"invite\",\"clock\":{\"type\":\"fischer\","
              "\"initial_s\":10800,\"increment_s\":0},\"color\":\"random\"}");
}

static void pair_send_move(struct pair *p)
{
    conn_send(p->mover, true, p->ply,
              "{\"t\":\"move\",\"game\":\"%s\",\"uci\":\"%s\",\"ply\":%ld,"
              "\"id\":%ld}",
              p->gid, p->uci, p->ply, p->ply);
}

static void window_end(struct timerq_timer *t);
static void stall_report(const struct pair *p, int64_t now);

/* --plies: p has played its moves and goes silent; the window ends with
 * the last slot's. */
static void pair_done(struct pair *p)
{
    struct run *r = p->run;

    pair_set_state(p, PS_IDLE);
    if (p->done)
        return;
    p->done = true;
    if (++r->done == r->npairs && r->going && !r->reported) {
        timerq_cancel(&r->tq, &r->end_timer);
        window_end(&r->end_timer);
    }
}

/* It is p->mover's turn and p->uci is chosen: send now or when due. */
static void pair_turn(struct pair *p, bool first)
{
    const struct lg_config *cfg = p->run->cfg;
    int64_t now = now_us(), interval = (int64_t)cfg->move_interval_ms * 1000;

    if (cfg->mode == LG_MODE_IDLE && p->ply >= 2) {
        pair_set_state(p, PS_IDLE);
        pair_set_ready(p);
        return;
    }
    if (cfg->plies && p->played >= cfg->plies) {
        pair_done(p);
        return;
    }
    p->played++;
    if (!interval || cfg->mode == LG_MODE_IDLE) {
        pair_send_move(p);
        return;
    }
    if (first)
        p->due_us = now + (int64_t)(rng_unit(&p->rng) * (double)interval);
    else
        p->due_us += (int64_t)((0.5 + rng_unit(&p->rng)) * (double)interval);
    if (p->due_us <= now) {
        if (!first)
            p->run->st.late_moves++;
        p->due_us = now;
        pair_send_move(p);
        return;
    }
    pair_arm(p, p->due_us, false);
}

static void pair_timer(struct timerq_timer *t)
{
    struct pair *p = lws_container_of(t, struct pair, timer);

    if (p->restart)
        pair_connect(p);
    else if (p->st == PS_PLAYING && p->mover)
        pair_send_move(p);
}

static void pick_move(struct pair *p, const struct lg_msg *m)
{
    int i = (int)(rng_next(&p->rng) % (uint64_t)m->nlegal);

    memcpy(p->uci, m->legal[i], sizeof p->uci);
}

static void on_moved(struct pair *p, struct conn *c, const struct lg_msg *m,
                     int64_t now)
{
    struct run *r = p->run;
    long slot = m->ply % SENT_RING;
    bool known = m->ply > 0 && p->sent_ply[slot] == m->ply;
    uint64_t lat = known ? (uint64_t)(now - p->sent_us[slot]) : 0;

    acked_note(p, c, m->ply);
    if (c->role == ROLE_SPEC) {
        if (known)
            lg_hist_record(&r->st.spec, lat);
        return;
    }
    if (p->st != PS_PLAYING)
        return;
    /* a move that ended in an odd ply was white's (games start at ply 0) */
    if (c->white == (m->ply % 2 == 1)) {
        if (known) {
            lg_hist_record(&r->st.own, lat);
            r->st.moves++;
        }
        return;
    }
    if (known)
        lg_hist_record(&r->st.opp, lat);
    if (m->ply != p->ply + 1)
        return;
    p->ply = m->ply;
    p->progress_us = now;
    if (!m->nlegal) {
        pair_set_state(p, PS_ENDING);
        return;
    }
    p->mover = c;
    pick_move(p, m);
    pair_turn(p, false);
}

/* True when the move for the ply after p->ply was written on mv's
 * current connection (not on one that has gone since) less than
 * RESYNC_US ago: its moved may still come. */
static bool move_on_its_way(const struct pair *p, const struct conn *mv)
{
    long next = p->ply + 1, slot = next % SENT_RING;

    return p->sent_ply[slot] == next && p->sent_us[slot] >= mv->est_us &&
           now_us() - p->sent_us[slot] < RESYNC_US;
}

/* --resume: the `state` a reconnected (or resyncing) connection asked
 * for; the side to move moves now unless its move is already on its way.
 * A state behind what this connection itself read before (seen) lacks
 * acknowledged moves: lost (unless --acked's check finds them stored).
 * A state behind only what the other player's connection read is news
 * overtaken: a move sent on the connection that was cut can reach the
 * host after this connection's sync, and a watchdog's sync can be
 * answered just before the move it waited for is played, whose `moved`
 * the other connection reads first. It is left alone; the slot's next
 * news (that `moved`, or the watchdog again) carries it on. */
static void on_resume(struct pair *p, struct conn *c, const struct lg_msg *m,
                      long seen)
{
    struct run *r = p->run;
    struct conn *mv;

    c->resuming = false;
    c->tries = 0;
    if (c->role == ROLE_SPEC || (p->st != PS_PLAYING && p->st != PS_ENDING))
        return;
    if (m->ply < seen) {
        r->st.lost_moves += (uint64_t)(seen - m->ply);
        if (r->cfg->verbose)
            fprintf(stderr,
                    "I: lost: game %s: ply %ld read on %s, the state of "
                    "its resync has %ld\n",
                    p->gid, seen, c == &p->conns[0] ? "A" : "B", m->ply);
    }
    if (m->ply < p->ply) {
        r->st.stale_states++;
        return;
    }
    if (!m->started) { /* it ended while this side was away */
        if (p->st == PS_ENDING) {
            r->st.games_ended++; /* by its last move, as expected */
        } else {
            r->st.ended_away++;
            static const char key[] = "\"reason\":\"abandoned\"";
            if (memmem(r->text, r->text_len, key, sizeof key - 1))
                r->st.abandoned++;
        }
        pair_reset(p);
        return;
    }
    if (p->st == PS_ENDING)
        return;
    if (m->white_to_move < 0 || !m->nlegal) {
        pair_fail(p);
        return;
    }
    p->ply = m->ply;
    p->progress_us = now_us();
    mv = p->conns[0].white == (m->white_to_move == 1) ? &p->conns[0]
                                                      : &p->conns[1];
    if (p->mover == mv && move_on_its_way(p, mv))
        return; /* on its way: its moved will come */
    p->mover = mv;
    timerq_cancel(&r->tq, &p->timer);
    pick_move(p, m);
    pair_send_move(p);
}

static void on_state(struct pair *p, struct conn *c, const struct lg_msg *m)
{
    long seen = c->seen;

    if (strcmp(m->game, p->gid))
        return;
    acked_note(p, c, m->ply);
    if (c->resuming) {
        on_resume(p, c, m, seen);
        return;
    }
    if (c->role == ROLE_SPEC) {
        if (p->st == PS_WATCHING && ++p->watching == p->nconn - 2) {
            pair_set_state(p, PS_JOINING);
            conn_send(&p->conns[1], false, 0,
                      "{\"t\":\"join\",\"game\":\"%s\"}", p->gid);
        }
        return;
    }
    if (p->st == PS_PLAYING && m->started && m->ply > p->ply &&
        m->white_to_move >= 0 && m->nlegal) {
        /* a state ahead of the moveds this pair read: a connection that
         * attached to the game's new host after a move there (a
         * handover) is sent the game as it is, not the moved it missed
         * (PROTOCOL.md: a state replaces what the client knew) */
        p->ply = m->ply;
        p->progress_us = now_us();
        p->mover = p->conns[0].white == (m->white_to_move == 1)
                       ? &p->conns[0]
                       : &p->conns[1];
        timerq_cancel(&p->run->tq, &p->timer);
        pick_move(p, m);
        pair_turn(p, false);
        return;
    }
    if (p->st != PS_JOINING || ++p->joined < 2)
        return;
    if (!m->started || !m->nlegal || m->white_to_move < 0) {
        pair_fail(p);
        return;
    }
    pair_set_state(p, PS_PLAYING);
    if (p->run->cfg->mode == LG_MODE_PLAY)
        pair_set_ready(p);
    p->run->st.games_started++;
    p->ply = m->ply;
    p->mover = p->conns[0].white == (m->white_to_move == 1) ? &p->conns[0]
                                                            : &p->conns[1];
    pick_move(p, m);
    pair_turn(p, true);
}

static void on_error(struct pair *p, struct conn *c, const struct lg_msg *m)
{
    p->run->st.errors[m->error]++;
    if (m->error == lg_msg_error_index("rate_limited") && m->has_id &&
        c == p->mover && m->id == p->ply && p->st == PS_PLAYING) {
        pair_arm(p, now_us() + RETRY_US, false);
        return;
    }
    /* --resume: a move sent again after a reconnect whose first copy
     * (on the connection that was cut) got there after all */
    if (p->run->cfg->resume &&
        (m->error == lg_msg_error_index("stale_ply") ||
         m->error == lg_msg_error_index("not_your_turn")) &&
        m->has_id && m->id <= p->ply && p->st == PS_PLAYING)
        return;
    pair_fail(p);
}

static void pair_on_message(struct pair *p, struct conn *c,
                            const struct lg_msg *m, int64_t now)
{
    switch (m->type) {
    case LG_MSG_WELCOME:
        if (c->resuming) { /* back: ask for the game as it is now */
            conn_send(c, false, 0, "{\"t\":\"%s\",\"game\":\"%s\"}",
                      c->role == ROLE_SPEC ? "watch" : "sync", p->gid);
            break;
        }
        if (p->st == PS_CONNECTING && ++p->welcomed == p->nconn)
            pair_new_game(p);
        break;
    case LG_MSG_INVITED:
        if (c->role != ROLE_A || p->st != PS_INVITING)
            break;
        snprintf(p->gid, sizeof p->gid, "%s", m->game);
        if (p->nconn > 2) {
            pair_set_state(p, PS_WATCHING);
            for (int k = 2; k < p->nconn; k++)
                conn_send(&p->conns[k], false, 0,
                          "{\"t\":\"watch\",\"game\":\"%s\"}", p->gid);
        } else {
            pair_set_state(p, PS_JOINING);
            conn_send(&p->conns[1], false, 0,
                      "{\"t\":\"join\",\"game\":\"%s\"}", p->gid);
        }
        break;
    case LG_MSG_GAME_START:
        if (c->role != ROLE_SPEC && !strcmp(m->game, p->gid))
            c->white = m->you_white == 1;
        break;
    case LG_MSG_STATE:
        on_state(p, c, m);
        break;
    case LG_MSG_MOVED:
        if (!strcmp(m->game, p->gid))
            on_moved(p, c, m, now);
        break;
    case LG_MSG_GAME_END:
        if (strcmp(m->game, p->gid))
            break;
        if (c->role == ROLE_SPEC) {
            conn_send(c, false, 0, "{\"t\":\"unwatch\",\"game\":\"%s\"}",
                      p->gid);
            break;
        }
        if ((p->st == PS_PLAYING || p->st == PS_ENDING) && ++p->ended == 2) {
            p->run->st.games_ended++;
            timerq_cancel(&p->run->tq, &p->timer);
            pair_new_game(p);
        }
        break;
    case LG_MSG_ERROR:
        on_error(p, c, m);
        break;
    case LG_MSG_SHUTDOWN:
        p->run->st.shutdowns++;
        break;
    default:
        break;
    }
}

/* ---- connect mode ------------------------------------------------------ */

/* Echo mode: one move-sized message in flight per connection. */
static void echo_send(struct conn *c)
{
    conn_send(c, false, 0,
              "{\"t\":\"move\",\"game\":"
              "\"AP-UOcQiOeFhG8mK\",\"uci\":\"e2e4\",\"id\":%u}",
              c->echo_n++);
}

static void echo_on_message(struct conn *c, int64_t now)
{
    struct run *r = c->run;

    if (c->t_echo_us) {
        lg_hist_record(&r->st.echo, (uint64_t)(now - c->t_echo_us));
        r->st.echoes++;
    }
    c->t_echo_us = now;
    echo_send(c);
}

/* Relay mode: connection gindex 2K+S is side S of pair K. Each move goes
 * back to both sides; the side that did not send it moves next. */
static void relay_send(struct conn *c)
{
    conn_send(c, false, 0,
              "{\"t\":\"move\",\"game\":"
              "\"AP-UOcQiOeFhG8mK\",\"uci\":\"e2e4\",\"id\":%u,"
              "\"pair\":%d,\"side\":%d}",
              c->echo_n++, c->gindex / 2, c->gindex % 2);
}

static void relay_on_message(struct conn *c, const char *text, size_t len,
                             int64_t now)
{
    static const char key[] = "\"side\":";
    struct run *r = c->run;
    const char *p = memmem(text, len, key, sizeof key - 1);

    if (!p || p + sizeof key > text + len)
        return;
    if (p[sizeof key - 1] - '0' == c->gindex % 2) { /* its own move back */
        if (c->t_echo_us) {
            lg_hist_record(&r->st.echo, (uint64_t)(now - c->t_echo_us));
            r->st.echoes++;
        }
        c->t_echo_us = 0;
        return;
    }
    c->t_echo_us = now;
    relay_send(c);
}

static void probe_on_message(struct conn *c, const struct lg_msg *m,
                             int64_t now)
{
    struct run *r = c->run;

    if (m->type == LG_MSG_WELCOME) {
        lg_hist_record(&r->st.welcome, (uint64_t)(now - c->t_start_us));
        r->st.connects++;
        c->closing = true;
        lws_callback_on_writable(c->wsi);
    } else if (m->type == LG_MSG_ERROR) {
        r->st.errors[m->error]++;
    }
}

/* ---- lws callbacks ----------------------------------------------------- */

static void conn_established(struct conn *c, struct lws *wsi)
{
    struct run *r = c->run;

    c->wsi = wsi;
    c->established = true;
    c->est_us = now_us();
    r->connecting--;
    r->established++;
    kick(r);
    if (c->closing) {
        lws_callback_on_writable(wsi);
        return;
    }
    if (r->cfg->relay)
        conn_send(c, false, 0, "{\"t\":\"join\",\"pair\":%d,\"side\":%d}",
                  c->gindex / 2, c->gindex % 2);
    else if (r->cfg->mode == LG_MODE_ECHO) {
        c->t_echo_us = now_us();
        echo_send(c);
    } else if (c->role == ROLE_PROBE)
        conn_send(c, false, 0, "{\"t\":\"hello\"}");
    else if (c->resuming)
        conn_send(c, false, 0, "{\"t\":\"hello\",\"token\":\"%s\"}",
                  c->token);
    else
        conn_send(c, false, 0, "{\"t\":\"hello\",\"name\":\"lg%d%c%d\"}",
                  c->pair->index, "abs"[c->role], (int)(c - c->pair->conns));
}

/* The connection is gone (closed, refused or cut). */
static void conn_closed(struct conn *c)
{
    struct run *r = c->run;
    struct pair *p = c->pair;

    if (!c->open)
        return;
    c->open = false;
    if (c->established)
        r->established--;
    else
        r->connecting--;
    if (!c->closing && !r->stopping) {
        if (c->established)
            r->st.unexpected_closes++;
        else
            r->st.connect_failures++;
    }
    bool cut = !c->closing;

    c->wsi = NULL;
    c->established = c->closing = false;
    c->qn = 0;
    c->rx_len = 0;
    if (!r->stopping) {
        if (!p) {
            conn_queue_attempt(c);
        } else if (cut && r->cfg->resume && c->token[0] &&
                   (p->st == PS_PLAYING || p->st == PS_ENDING) &&
                   c->tries++ < RECONNECT_TRIES) {
            /* back through another node, as a browser would */
            if (!c->resuming)
                r->st.reconnects++;
            c->resuming = true;
            if (r->cfg->n_ports)
                c->port_i = (c->port_i + 1) % r->cfg->n_ports;
            p->open--;
            conn_queue_attempt(c);
        } else {
            p->open--;
            if (p->st != PS_RESETTING)
                pair_fail(p);
            else if (!p->open)
                pair_arm(p, now_us() + RESTART_US, true);
        }
    }
    kick(r);
}

/* Keeps the token of a welcome (base64url: no escapes) for --resume. */
static void welcome_token(struct conn *c, const char *text, size_t len)
{
    static const char key[] = "\"token\":\"";
    const char *p = memmem(text, len, key, sizeof key - 1), *e;

    if (!p)
        return;
    p += sizeof key - 1;
    e = memchr(p, '"', len - (size_t)(p - text));
    if (e && (size_t)(e - p) < sizeof c->token) {
        memcpy(c->token, p, (size_t)(e - p));
        c->token[e - p] = '\0';
    }
}

static void conn_message(struct conn *c, const char *text, size_t len)
{
    struct run *r = c->run;
    int64_t now = now_us();

    if (r->cfg->relay) {
        relay_on_message(c, text, len, now);
        return;
    }
    if (r->cfg->mode == LG_MODE_ECHO) {
        echo_on_message(c, now);
        return;
    }
    lg_msg_parse(text, len, &r->msg);
    r->text = text;
    r->text_len = len;
    if (c->pair && r->msg.type == LG_MSG_WELCOME && !c->token[0])
        welcome_token(c, text, len);
    if (c->pair && r->msg.type == LG_MSG_STATE && c->resuming &&
        !strcmp(r->msg.game, c->pair->gid))
        r->st.resumes++;
    if (c->pair)
        pair_on_message(c->pair, c, &r->msg, now);
    else
        probe_on_message(c, &r->msg, now);
}

static void conn_receive(struct conn *c, struct lws *wsi, const char *in,
                         size_t len)
{
    bool last = lws_is_final_fragment(wsi) &&
                !lws_remaining_packet_payload(wsi);

    if (c->closing)
        return;
    if (last && !c->rx_len) {
        conn_message(c, in, len);
        return;
    }
    if (c->rx_len + len > c->rx_cap) {
        size_t cap = c->rx_cap ? c->rx_cap : 4096;
        char *n;
        while (cap < c->rx_len + len)
            cap *= 2;
        n = realloc(c->rx, cap);
        if (!n)
            return;
        c->rx = n;
        c->rx_cap = cap;
    }
    memcpy(c->rx + c->rx_len, in, len);
    c->rx_len += len;
    if (last) {
        conn_message(c, c->rx, c->rx_len);
        c->rx_len = 0;
    }
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason,
                    void *user, void *in, size_t len)
{
    struct conn *c = user ? user : lws_get_opaque_user_data(wsi);

    /* a connection's callbacks all come before its close is handled, and
     * a new attempt starts only later (kick), so `open` tells them apart */
    if (!c || !c->open)
        return 0;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        conn_established(c, wsi);
        break;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        conn_receive(c, wsi, in, len);
        break;
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        return conn_writeable(c);
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
    case LWS_CALLBACK_CLIENT_CLOSED:
    case LWS_CALLBACK_CLOSED:
    case LWS_CALLBACK_WSI_DESTROY:
        /* the last one is the only word of a handshake that timed out */
        conn_closed(c);
        break;
    default:
        break;
    }
    return 0;
}

static const struct lws_protocols protocols[] = {
    {"chess.v1", callback, 0, 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* ---- the window -------------------------------------------------------- */

/* The games whose move has waited UNANSWERED_US or more for its moved
 * as the window ends: a stall the watchdog, 20 s at a move every 2 s,
 * has not seen yet (a 15 s window never would). --verbose names them. */
static uint64_t unanswered(const struct run *r, int64_t now)
{
    uint64_t n = 0;

    for (int i = 0; i < r->npairs; i++) {
        const struct pair *p = &r->pairs[i];
        long next = p->ply + 1, slot = next % SENT_RING;
        if (p->st != PS_PLAYING || p->sent_ply[slot] != next ||
            now - p->sent_us[slot] < UNANSWERED_US)
            continue;
        n++;
        if (r->cfg->verbose && n <= 10)
            stall_report(p, now);
    }
    return n;
}

static void window_end(struct timerq_timer *t)
{
    struct run *r = lws_container_of(t, struct run, end_timer);

    if (r->reported)
        return;
    r->st.unanswered = unanswered(r, now_us());
    r->st.window_s = (double)(now_us() - r->t_go_us) / 1e6;
    r->st.cpu_us = (uint64_t)(cpu_us() - r->cpu_go_us);
    r->st.connections = (uint64_t)r->established;
    r->st.games_live = (uint64_t)r->live;
    write_all(r->cfg->out_fd, &r->st, sizeof r->st);
    r->reported = true;
}

static void window_go(struct run *r)
{
    double ramp = r->st.ramp_s;
    uint64_t ramp_games = r->st.ramp_games;

    memset(&r->st, 0, sizeof r->st);
    r->st.ramp_s = ramp;
    r->st.ramp_games = ramp_games;
    r->going = true;
    r->t_go_us = now_us();
    r->cpu_go_us = cpu_us();
    run_arm(r, &r->end_timer,
            r->t_go_us + (int64_t)(r->cfg->duration_s * 1e6));
    if (r->cfg->plies && r->done == r->npairs) { /* over before it began */
        timerq_cancel(&r->tq, &r->end_timer);
        window_end(&r->end_timer);
    }
}

static int pending_count(const struct run *r)
{
    int n = 0;

    for (const struct conn *c = r->pend.head; c; c = c->next_pending)
        n++;
    return n;
}

/* During the ramp (always with --verbose) says every few seconds how far
 * it got (stderr). */
static void ramp_progress(struct run *r)
{
    int n[PS_RESETTING + 1] = {0};

    for (int i = 0; i < r->npairs; i++)
        n[r->pairs[i].st]++;
    fprintf(stderr,
            "I: process %d: %d of %d games started; connections "
            "%d open, %d opening; slots connecting %d inviting %d watching "
            "%d joining %d playing %d ending %d idle %d resetting %d; "
            "attempts queued %d\n",
            r->cfg->proc_index, r->ready, r->npairs, r->established,
            r->connecting, n[PS_CONNECTING], n[PS_INVITING], n[PS_WATCHING],
            n[PS_JOINING], n[PS_PLAYING], n[PS_ENDING], n[PS_IDLE],
            n[PS_RESETTING], pending_count(r));
}

/* --verbose: what a stalled slot was waiting for (stderr). */
static void stall_report(const struct pair *p, int64_t now)
{
    long next = p->ply + 1, slot = next % SENT_RING;
    const struct conn *m = p->mover;

    fprintf(stderr,
            "I: stall: game %s slot %d state %d ply %ld, %.1f s "
            "without progress; mover %s (queued %u, open %d established %d "
            "closing %d); move for ply %ld %s%s\n",
            p->gid, p->index, p->st, p->ply,
            (double)(now - p->progress_us) / 1e6,
            !m                  ? "none"
            : m == &p->conns[0] ? "A"
                                : "B",
            m ? m->qn : 0, m ? m->open : 0, m ? m->established : 0,
            m ? m->closing : 0, next,
            p->sent_ply[slot] == next ? "written " : "not written",
            p->sent_ply[slot] == next ? "" : "");
    if (p->sent_ply[slot] == next)
        fprintf(stderr, "I: stall:   written %.1f s ago\n",
                (double)(now - p->sent_us[slot]) / 1e6);
    for (int k = 0; k < 2; k++) {
        const struct conn *c = &p->conns[k];
        int unread = -1;
        if (c->wsi && c->established)
            ioctl(lws_get_socket_fd(c->wsi), FIONREAD, &unread);
        fprintf(stderr, "I: stall:   %s: %d bytes unread in the socket\n",
                k ? "B" : "A", unread);
    }
}

/* Restarts slots that made no progress for too long. */
static void watchdog(struct run *r, int64_t now)
{
    int64_t play_stall = 10LL * r->cfg->move_interval_ms * 1000;

    if (play_stall < 15000000)
        play_stall = 15000000;
    for (int i = 0; i < r->npairs; i++) {
        struct pair *p = &r->pairs[i];
        int64_t limit;
        if (p->st == PS_IDLE || p->st == PS_RESETTING)
            continue;
        limit = p->st == PS_PLAYING || p->st == PS_ENDING ? play_stall
                                                          : SETUP_STALL_US;
        if (r->cfg->resume && p->st == PS_PLAYING && p->mover &&
            now - p->progress_us > RESYNC_US &&
            now - p->progress_us <= limit) {
            /* a move, or its moved, lost on the way: ask both sides */
            bool asked = false;
            for (int k = 0; k < 2; k++) {
                struct conn *c = &p->conns[k];
                if (c->established && !c->resuming) {
                    c->resuming = true;
                    asked = true;
                    conn_send(c, false, 0, "{\"t\":\"sync\",\"game\":\"%s\"}",
                              p->gid);
                }
            }
            if (asked)
                r->st.resyncs++;
            continue;
        }
        if (now - p->progress_us > limit) {
            r->st.stalls++;
            if (r->cfg->verbose && r->st.stalls <= 10)
                stall_report(p, now);
            pair_fail(p);
        }
    }
}

static void ctl_poll(struct timerq_timer *t)
{
    struct run *r = lws_container_of(t, struct run, ctl_timer);
    int64_t now = now_us();
    char b[16];
    ssize_t n;

    if (!r->sent_ready &&
        ((r->ready == r->npairs &&
          (r->cfg->mode != LG_MODE_ECHO || r->established == r->nprobes)) ||
         now >= r->ramp_deadline_us)) {
        r->st.ramp_s = (double)(now - r->t_begin_us) / 1e6;
        r->st.ramp_games = (uint64_t)r->ready;
        write_all(r->cfg->out_fd, "R", 1);
        r->sent_ready = true;
    }
    while ((n = read(r->cfg->ctl_fd, b, sizeof b)) > 0)
        for (ssize_t k = 0; k < n; k++)
            if (b[k] == 'G' && !r->going)
                window_go(r);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        r->stopping = true;
        if (r->ev_loop)
            ev_break(r->ev_loop, EVBREAK_ALL);
        lws_cancel_service(r->ctx);
        return;
    }
    if (now - r->last_watchdog_us >= 1000000) {
        r->last_watchdog_us = now;
        watchdog(r, now);
        if ((!r->sent_ready || r->cfg->verbose) && ++r->ramp_ticks % 5 == 0)
            ramp_progress(r);
    }
    run_arm(r, &r->ctl_timer, now + CTL_POLL_US);
}

/* ---- set-up ------------------------------------------------------------ */

static int build(struct run *r)
{
    const struct lg_config *cfg = r->cfg;
    int per = 2 + cfg->spectators, gi = cfg->first_game * per;

    if (cfg->mode == LG_MODE_CONNECT || cfg->mode == LG_MODE_ECHO) {
        r->nprobes = cfg->connections;
        r->probes = calloc((size_t)r->nprobes, sizeof *r->probes);
        if (!r->probes)
            return -1;
        for (int i = 0; i < r->nprobes; i++) {
            struct conn *c = &r->probes[i];
            c->run = r;
            c->role = ROLE_PROBE;
            c->gindex = cfg->first_game + i;
            conn_queue_attempt(c);
        }
        r->npairs = 0;
        return 0;
    }
    r->npairs = cfg->games;
    r->pairs = calloc((size_t)r->npairs, sizeof *r->pairs);
    if (!r->pairs)
        return -1;
    for (int i = 0; i < r->npairs; i++) {
        struct pair *p = &r->pairs[i];
        p->run = r;
        p->index = cfg->first_game + i;
        p->nconn = per;
        p->rng = cfg->seed * 0x9e3779b97f4a7c15ull + (uint64_t)p->index + 1;
        if (!p->rng)
            p->rng = 1;
        timerq_timer_init(&p->timer, pair_timer);
        p->conns = calloc((size_t)per, sizeof *p->conns);
        if (!p->conns)
            return -1;
        for (int k = 0; k < per; k++) {
            struct conn *c = &p->conns[k];
            c->run = r;
            c->pair = p;
            c->role = k == 0 ? ROLE_A : k == 1 ? ROLE_B : ROLE_SPEC;
            c->gindex = gi++;
            if (cfg->n_ports)
                c->port_i = (p->index + k) % cfg->n_ports;
        }
        pair_connect(p);
    }
    return 0;
}

static void teardown(struct run *r)
{
    timerq_free(&r->tq);
    for (int i = 0; i < r->npairs; i++) {
        if (!r->pairs[i].conns)
            continue;
        for (int k = 0; k < r->pairs[i].nconn; k++)
            free(r->pairs[i].conns[k].rx);
        free(r->pairs[i].conns);
    }
    free(r->pairs);
    for (int i = 0; i < r->nprobes; i++)
        free(r->probes[i].rx);
    free(r->probes);
}

int lg_run(const struct lg_config *cfg)
{
    struct lws_context_creation_info info;
    struct run *r = calloc(1, sizeof *r);
    int rc = 0;

    if (!r)
        return 1;
    r->cfg = cfg;
    r->tq_armed_us = INT64_MAX;
    snprintf(r->hostport, sizeof r->hostport, "%s:%d", cfg->host, cfg->port);
    lws_set_log_level(LLL_ERR, NULL);
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    /* no fd_limit_per_thread: below the process limit lws switches to a
     * linear search of its descriptor table (a fifth of the CPU time) */
    /* lws's own loop poll()s every descriptor on each turn: with
     * thousands of connections that was a fifth of the CPU time. libev
     * (epoll) through lws's event-lib support does not. */
    void *loops[1];
    if (cfg->use_libev) {
        r->ev_loop = ev_loop_new(EVFLAG_AUTO);
        if (!r->ev_loop) {
            fprintf(stderr, "E: cannot create a libev loop\n");
            free(r);
            return 1;
        }
        loops[0] = r->ev_loop;
        info.options |= LWS_SERVER_OPTION_LIBEV;
        info.foreign_loops = loops;
    }
    r->ctx = lws_create_context(&info);
    if (!r->ctx) {
        fprintf(stderr, "E: cannot create the client context\n");
        if (r->ev_loop)
            ev_loop_destroy(r->ev_loop);
        free(r);
        return 1;
    }
    timerq_timer_init(&r->ctl_timer, ctl_poll);
    timerq_timer_init(&r->end_timer, window_end);
    timerq_timer_init(&r->kick_timer, kick_fire);
    if (r->ev_loop) {
        ev_timer_init(&r->tq_ev, tq_ev_fire, 0.0, 0.0);
        r->tq_ev.data = r;
    }
    r->t_begin_us = now_us();
    r->ramp_deadline_us = r->t_begin_us +
                          (int64_t)(cfg->ramp_timeout_s * 1e6);
    if (build(r) < 0) {
        fprintf(stderr, "E: out of memory\n");
        rc = 1;
        goto done;
    }
    if (cfg->mode == LG_MODE_CONNECT || cfg->mode == LG_MODE_ECHO)
        r->ready = r->npairs; /* no games to ramp */
    start_pending(r);
    run_arm(r, &r->ctl_timer, now_us() + CTL_POLL_US);
    if (r->ev_loop)
        ev_run(r->ev_loop, 0); /* until ctl_poll breaks it */
    while (!r->stopping)
        if (lws_service(r->ctx, 0) < 0)
            break;
done:
    r->stopping = true;
    for (int i = 0; i < r->npairs; i++) /* (the games still in play) */
        acked_flush(&r->pairs[i]);
    lws_sul_cancel(&r->tq_sul);
    if (r->ev_loop)
        ev_timer_stop(r->ev_loop, &r->tq_ev);
    lws_context_destroy(r->ctx);
    if (r->ev_loop)
        ev_loop_destroy(r->ev_loop);
    teardown(r);
    free(r);
    return rc;
}
