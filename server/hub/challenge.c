/*
 * challenge.c - challenges to a named player (see challenge.h,
 * PROTOCOL.md "Challenges").
 *
 * A challenge lives in this module's memory only: it is pending, then
 * it is gone (accepted, declined, canceled or expired), and both
 * players hear that once, in a `challenge` message with its last status.
 * Nothing is stored: a restart forgets the pending ones, as lichess's
 * real-time challenges (the challenger's page keeps them) are forgotten
 * when the page goes.
 *
 * Each challenge is named by its id in `byid` and listed with both of
 * its players in `parties` (pid -> struct party), which count what
 * each player has sent and received (the caps) and list their
 * challenges for `challenges` and for the lapse. A challenge's lapse is
 * armed when its challenger's last connection goes (player_gone) and,
 * when it rings, ends the challenge unless the challenger is back.
 *
 * In a cluster (the router's challenge ops, router.h) a challenge is
 * held by the node where it was made (`home`), which runs its lapse,
 * and told to its two players' other nodes (router_ops.tell, tag
 * CHALLENGE_TELL: 'O' and its record, then 'E' and how it ended), which
 * keep a copy to show, list and answer. The caps are counted across the
 * nodes and a challenge is ended once by the router (Redis's
 * challenge.lua): any node that holds a copy, or reads one (fetch),
 * accepts, declines or cancels it, and an accept starts the game there.
 * The steps that wait for the router are ops (struct op); a WebSocket
 * command waits with its session held (s->waiting), as for a read
 * (docs/cluster.md, "Challenges across nodes").
 */
#include "hub/challenge.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hub/botaccount.h"
#include "hub/challenge_internal.h"
#include "hub/hub_internal.h"
#include "hub/reads.h"
#include "hub/relation.h"
#include "game/lobby.h"
#include "lib/grow.h"
#include "lib/ids.h"
#include "lib/log.h"
#include "lib/msgbuf.h"
#include "lib/ratelimit.h"
#include "lib/tunables.h"

/* The random bytes of an id: a GID's (its game has its id, as
 * lichess's; lib/tunables.h). */
#define CHALLENGE_ID_BYTES LIMIT_GID_BYTES
/* Challenges one player may ask for a minute, refused or not, beyond
 * the cap on pending ones: a make and cancel loop would put a notice on
 * every page of the challenged player's, and a name is looked up through
 * every player in memory. */
#define CHALLENGE_RATE_PER_MIN 20
#define CHALLENGE_BURST 10
/* Players the rate remembers (each a bucket). */
#define CHALLENGE_RATE_KEYS 100000

/* A player's side of the challenges: those it sent and received. */
struct party {
    char pid[PROTO_KEY_MAX + 1];
    struct challenge **v;
    size_t n, cap;
    int out, in;
};

static struct challenges *C(struct hub *h)
{
    return hub_module_state(h, &hub_challenge_module);
}

static struct party *party_get(struct challenges *cs, const char *pid)
{
    struct party *p = table_get(&cs->parties, pid);

    if (p)
        return p;
    p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    snprintf(p->pid, sizeof p->pid, "%s", pid);
    if (table_put(&cs->parties, p->pid, p) < 0) {
        free(p);
        return NULL;
    }
    return p;
}

static int party_add(struct party *p, struct challenge *c)
{
    struct challenge **v = grow_array(p->v, &p->cap, p->n, sizeof *v, 4);

    if (!v)
        return -1;
    p->v = v;
    p->v[p->n++] = c;
    return 0;
}

/* c leaves pid's side; the party goes with its last challenge. */
static void party_drop(struct challenges *cs, const char *pid,
                       struct challenge *c)
{
    struct party *p = table_get(&cs->parties, pid);

    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        if (p->v[i] == c) {
            memmove(&p->v[i], &p->v[i + 1], (p->n - i - 1) * sizeof *p->v);
            p->n--;
            break;
        }
    if (!strcmp(c->from, pid))
        p->out--;
    else
        p->in--;
    if (p->n == 0) {
        table_del(&cs->parties, p->pid);
        free(p->v);
        free(p);
    }
}

struct challenge *const *challenge_party(struct hub *h, const char *pid,
                                         size_t *n)
{
    struct party *p = table_get(&C(h)->parties, pid);

    *n = p ? p->n : 0;
    return p ? p->v : NULL;
}

const struct challenge *challenge_find(struct hub *h, const char *id)
{
    return table_get(&C(h)->byid, id);
}

size_t challenge_count(struct hub *h)
{
    return C(h)->byid.n;
}

void challenge_view(struct hub *h, const struct challenge *c,
                    struct proto_challenge *out)
{
    (void)h;
    *out = (struct proto_challenge){
        .id = c->id,
        .status = "created",
        .challenger = {.id = c->from,
                       .name = c->from_name,
                       .has_account = true,
                       .account = c->from_account,
                       .bot = c->from_bot},
        .dest = {.id = c->to,
                 .name = c->to_name,
                 .has_account = true,
                 .account = c->to_account,
                 .bot = c->to_bot},
        .clock = c->clock,
        .color = c->color,
        .rated = c->rated,
        .decline = -1,
        .expires_ms = c->lapse_wall,
    };
}

/* b to every connection of pid here (none: nothing). */
static void send_player(struct hub *h, const char *pid, struct msgbuf *b,
                        const struct session *except)
{
    struct player *p = table_get(&h->players, pid);

    for (size_t i = 0; p && i < p->nconns; i++)
        if (p->conns[i] != except)
            hub_session_send(p->conns[i], b, 0);
    for (size_t i = 0; p && i < p->nremotes; i++)
        if (p->remotes[i] != except)
            hub_session_send(p->remotes[i], b, 0);
}

/* Both players hear c as v shows it; s (NULL: none) gets it with the id
 * of its command, its player's other connections without. */
void challenge_tell(struct hub *h, const struct challenge *c,
                    const struct proto_challenge *v, struct session *s,
                    const struct proto_id *id)
{
    struct msgbuf *b = msgbuf_take(proto_render_challenge(v, NULL));

    if (!b)
        return;
    send_player(h, c->from, b, s);
    send_player(h, c->to, b, s);
    msgbuf_unref(b);
    if (s)
        hub_send_text(s, proto_render_challenge(v, id), 0);
}

/* c joins the pending ones (byid, both parties): 0, or -1 when out of
 * memory (c freed). */
int challenge_list_add(struct hub *h, struct challenge *c)
{
    struct challenges *cs = C(h);
    struct party *mine = party_get(cs, c->from);
    struct party *theirs = mine ? party_get(cs, c->to) : NULL;

    if (!theirs || table_put(&cs->byid, c->id, c) < 0)
        goto oom;
    if (party_add(mine, c) < 0) {
        table_del(&cs->byid, c->id);
        goto oom;
    }
    mine->out++;
    if (party_add(theirs, c) < 0) {
        table_del(&cs->byid, c->id);
        mine->n--;
        mine->out--;
        goto oom;
    }
    theirs->in++;
    return 0;
oom:
    /* (an empty party made here goes with the next challenge's end) */
    hub_alarm_free(h, c->lapse);
    free(c);
    return -1;
}

/* c leaves this node's memory, nobody told. */
void challenge_forget(struct hub *h, struct challenge *c)
{
    struct challenges *cs = C(h);

    table_del(&cs->byid, c->id);
    party_drop(cs, c->from, c);
    party_drop(cs, c->to, c);
    hub_alarm_free(h, c->lapse);
    free(c);
}

/* c ends here with status (and the reason of a decline, the game of an
 * accept): its players' connections here hear it, and it is freed. */
void challenge_end_here(struct hub *h, struct challenge *c,
                        const char *status, int decline, const char *game,
                        struct session *s, const struct proto_id *id)
{
    struct proto_challenge v;

    challenge_view(h, c, &v);
    v.status = status;
    v.decline = decline;
    v.game = game;
    v.expires_ms = 0;
    challenge_tell(h, c, &v, s, id);
    challenge_forget(h, c);
}

/* c ends with status (and the reason of a decline, the game of an
 * accept): both players hear it, on every node, and it is freed. */
void challenge_finish(struct hub *h, struct challenge *c, const char *status,
                      int decline, const char *game, struct session *s,
                      const struct proto_id *id)
{
    char *text = NULL;

    log_info("event=challenge_ended challenge=%s status=%s from=%s to=%s%s%s",
             c->id, status, c->from, c->to, decline >= 0 ? " reason=" : "",
             decline >= 0 ? proto_decline_name(decline) : "");
    if (challenge_clustered(h) &&
        asprintf(&text, "E %s %s %d %s", c->id, status, decline,
                 game ? game : "-") < 0)
        text = NULL;
    challenge_tell_nodes(h, c, text);
    free(text);
    challenge_end_here(h, c, status, decline, game, s, id);
}

/* ---- the WebSocket's commands ------------------------------------------- */

/* The present player that `to` names: its PID, else its name (any case;
 * an account first; NULL when several guests share it, or nobody). */
static struct player *find_dest(struct hub *h, const char *to)
{
    struct player *p = table_get(&h->players, to), *found = NULL;
    int guests = 0;

    if (p && hub_player_present(p))
        return p;
    for (size_t i = 0; i < h->players.cap; i++) {
        struct player *q = h->players.slots[i].value;
        if (!q || !hub_player_present(q) || strcasecmp(q->name, to))
            continue;
        if (q->account)
            return q;
        found = q;
        guests++;
    }
    return guests == 1 ? found : NULL;
}

/* True (s answered `blocked`) when a block keeps me and other (its PID
 * and name; its record here, or NULL) apart: me's own block is named;
 * other's is not (as lichess, which says only that the challenge cannot
 * be: relation.h). */
static bool blocked(struct session *s, const struct player *me,
                    const char *pid, const char *name,
                    const struct player *other, const struct proto_id *id)
{
    char msg[PROTO_MSG_MAX];

    if (relation_blocks(me, pid))
        snprintf(msg, sizeof msg,
                 "you have blocked %s: unblock them to play them", name);
    else if (other && relation_blocks(other, me->pid))
        snprintf(msg, sizeof msg, "you cannot challenge %s", name);
    else
        return false;
    hub_send_error(s, PROTO_BLOCKED, msg, id);
    return true;
}

/* Whether pid's record here knows it a bot account (its facts). */
static bool player_bot(struct hub *h, const char *pid)
{
    struct player *p = table_get(&h->players, pid);

    return p && p->facts && p->facts->bot;
}

/* The checks of a challenge's players, then the challenge is made (*out,
 * not listed: propose opens it); nobody is told yet. 0, or an enum
 * proto_error with msg (PROTO_BUSY: out of memory). The caps on pending
 * challenges are checked here on a node alone, by the router in a
 * cluster. */
int challenge_make(struct hub *h, const struct challenge_who *from,
                   const struct challenge_who *to,
                   const struct clock_spec *clock, int color, bool rated,
                   struct challenge **out, char *msg, size_t len)
{
    struct challenges *cs = C(h);
    struct party *mine = table_get(&cs->parties, from->pid);
    struct party *theirs = table_get(&cs->parties, to->pid);
    struct challenge *c;
    bool from_bot = from->bot || player_bot(h, from->pid),
         to_bot = to->bot || player_bot(h, to->pid);

    if (rated && from_bot != to_bot && !h->cfg.bot_rated_vs_humans) {
        snprintf(msg, len,
                 "rated games between a bot and a human are off on this "
                 "server: challenge casual");
        return PROTO_BOT_RATED;
    }
    int code = botaccount_may_play(h, from->pid, from_bot, to->pid, to_bot,
                                   hub_now_ms(h), msg, len);
    if (code)
        return code;
    if (!challenge_clustered(h) && mine &&
        mine->out >= h->cfg.max_challenges_out) {
        snprintf(msg, len,
                 "you have %d pending challenges: the most there may be",
                 h->cfg.max_challenges_out);
        return PROTO_TOO_MANY_CHALLENGES;
    }
    if (!challenge_clustered(h) && theirs &&
        theirs->in >= h->cfg.max_challenges_in) {
        snprintf(msg, len,
                 "%s has %d pending challenges: the most there may be",
                 to->name, h->cfg.max_challenges_in);
        return PROTO_TOO_MANY_CHALLENGES;
    }
    c = calloc(1, sizeof *c);
    if (!c || ids_random(c->id, CHALLENGE_ID_BYTES) < 0 ||
        !(c->lapse = hub_alarm_new(h, challenge_lapse, c))) {
        free(c);
        return PROTO_BUSY;
    }
    c->h = h;
    snprintf(c->from, sizeof c->from, "%s", from->pid);
    snprintf(c->from_name, sizeof c->from_name, "%s", from->name);
    snprintf(c->to, sizeof c->to, "%s", to->pid);
    snprintf(c->to_name, sizeof c->to_name, "%s", to->name);
    c->from_account = from->account;
    c->to_account = to->account;
    c->from_bot = from_bot;
    c->to_bot = to_bot;
    c->clock = *clock;
    c->color = color;
    c->rated = rated;
    *out = c;
    return 0;
}

/* The checks of `challenge` once its challenged player is known (to; its
 * record here, or NULL), then the challenge is made and both players
 * hear it. */
static void challenge_checked(struct session *s, const struct proto_msg *m,
                              const struct challenge_who *to,
                              const struct player *dest)
{
    struct hub *h = s->hub;
    struct player *me = s->player;
    struct challenge *made_one;
    char msg[PROTO_MSG_MAX];

    if (!strcmp(to->pid, me->pid)) { /* (a guest named as its own PID) */
        hub_send_error(s, PROTO_OWN_GAME, "you cannot challenge yourself",
                       &m->id);
        return;
    }
    if (blocked(s, me, to->pid, to->name, dest, &m->id))
        return;
    if (m->rated && hub_rated_refused(s, &m->id))
        return;
    if (m->rated && !to->account) {
        snprintf(msg, sizeof msg,
                 "%s is a guest: rated games are for accounts", to->name);
        hub_send_error(s, PROTO_RATED_NEEDS_ACCOUNT, msg, &m->id);
        return;
    }
    struct challenge_who from = {me->pid, me->name, me->account, false};
    int code = challenge_make(h, &from, to, &m->clock, m->color, m->rated,
                              &made_one, msg, sizeof msg);

    if (code == PROTO_BUSY)
        hub_busy(s, &m->id);
    else if (code)
        hub_send_error(s, code, msg, &m->id);
    else
        challenge_propose(h, made_one, s, &m->id, NULL, 0);
}

/* A challenge waiting for its players' facts (a cluster: their blocks,
 * their games on every node, read from the store). */
struct facts_wait {
    struct proto_msg m;
    char pid[PROTO_KEY_MAX + 1], name[PROTO_NAME_MAX + 1];
    bool account, bot;
};

static void facts_read(struct hub *h, void *who, void *arg, bool ok)
{
    struct facts_wait *w = arg;
    struct session *s = who;
    struct challenge_who to = {w->pid, w->name, w->account, w->bot};

    if (s) {
        s->waiting = false;
        if (!ok)
            hub_busy(s, &w->m.id);
        else
            challenge_checked(s, &w->m, &to, table_get(&h->players, w->pid));
        if (!s->waiting)
            hub_session_replay(s);
    }
    free(w);
}

/* challenge_checked, after a read of both players' facts in a cluster
 * (their records here then know their blocks and every node's games). */
static void challenge_to(struct session *s, const struct proto_msg *m,
                         const struct challenge_who *to,
                         const struct player *dest)
{
    struct hub *h = s->hub;
    const char *pids[2] = {s->player->pid, to->pid};
    struct facts_wait *w;
    int rc;

    if (!challenge_clustered(h)) {
        challenge_checked(s, m, to, dest);
        return;
    }
    if (!(w = calloc(1, sizeof *w))) {
        hub_busy(s, &m->id);
        return;
    }
    w->m = *m;
    snprintf(w->pid, sizeof w->pid, "%s", to->pid);
    snprintf(w->name, sizeof w->name, "%s", to->name);
    w->account = to->account;
    w->bot = to->bot;
    rc = hub_facts_then(h, pids, 2, hub_facts_since(h, true, hub_now_ms(h)),
                        &s->reads, s, facts_read, w);
    if (rc == 0) {
        s->waiting = true;
        return;
    }
    free(w);
    if (rc > 0)
        challenge_checked(s, m, to, table_get(&h->players, to->pid));
    else
        hub_busy(s, &m->id);
}

/* In a cluster: the player `to` names, not connected here, read from the
 * store (its PID, else an account's name). */
struct dest_read {
    struct hub_read r;
    struct proto_msg m;
    struct store_player pl;
    struct store_account acct;
    int found, account;
};

static int dest_run(struct store *st, struct hub_read *r)
{
    struct dest_read *d = (struct dest_read *)r;
    int rc = store_find_player(st, d->m.to, &d->pl);

    if (rc == 1) {
        d->account = store_is_account(st, d->pl.pid);
        if (d->account == 1 &&
            store_find_account(st, d->pl.name, &d->acct) < 0)
            return -1;
        d->found = 1;
        return d->account < 0 ? -1 : 0;
    }
    if (rc < 0 || (rc = store_find_account(st, d->m.to, &d->acct)) < 0)
        return -1;
    if (rc == 1) {
        snprintf(d->pl.pid, sizeof d->pl.pid, "%s", d->acct.pid);
        snprintf(d->pl.name, sizeof d->pl.name, "%s", d->acct.username);
        d->account = 1;
        d->found = 1;
    }
    return 0;
}

static void dest_answer(struct hub_read *r, int rc)
{
    struct dest_read *d = (struct dest_read *)r;
    struct session *s = r->who;
    char msg[PROTO_MSG_MAX];

    s->waiting = false;
    if (rc < 0) {
        hub_busy(s, &d->m.id);
    } else if (!d->found) {
        snprintf(msg, sizeof msg, "no player named %s (or with that PID)",
                 d->m.to);
        hub_send_error(s, PROTO_NO_SUCH_PLAYER, msg, &d->m.id);
    } else {
        struct challenge_who to = {d->pl.pid, d->pl.name, d->account == 1,
                                   d->account == 1 && d->acct.bot};
        challenge_to(s, &d->m, &to, table_get(&r->h->players, d->pl.pid));
    }
    if (!s->waiting)
        hub_session_replay(s);
}

/* The checks of `challenge` in PROTOCOL.md's order, then the challenge
 * is made and both players hear it. */
static void do_challenge(struct session *s, const struct proto_msg *m,
                         int64_t now)
{
    struct hub *h = s->hub;
    struct challenges *cs = C(h);
    struct player *me = s->player, *dest;
    char msg[PROTO_MSG_MAX];

    /* (first: a name is looked up through every player here) */
    if (!ratelimit_take(cs->made, me->pid, now)) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "too many challenges; try again in a minute", &m->id);
        return;
    }
    if (!strcmp(m->to, me->pid) || !strcasecmp(m->to, me->name)) {
        hub_send_error(s, PROTO_OWN_GAME, "you cannot challenge yourself",
                       &m->id);
        return;
    }
    if (hub_playban_refused(s, &m->id))
        return;
    dest = find_dest(h, m->to);
    if (!dest &&
        challenge_clustered(h)) { /* (connected to another node, maybe) */
        struct dest_read *d = calloc(1, sizeof *d);
        if (!d) {
            hub_busy(s, &m->id);
            return;
        }
        d->m = *m;
        d->r.run = dest_run;
        d->r.answer = dest_answer;
        if (hub_read_submit_for(s, &d->r, &m->id, 0) == 0)
            s->waiting = true;
        return;
    }
    if (!dest) {
        snprintf(msg, sizeof msg,
                 "no player named %s (or with that PID) is online", m->to);
        hub_send_error(s, PROTO_NO_SUCH_PLAYER, msg, &m->id);
        return;
    }
    struct challenge_who to = {dest->pid, dest->name, dest->account, false};
    challenge_to(s, m, &to, dest);
}

/* The pending challenge m->challenge whose `role` (its challenger, or
 * the challenged) s's player is, or NULL when s was answered
 * no_such_challenge, or waits for it (another node's: fetch). */
static struct challenge *mine(struct session *s, const struct proto_msg *m,
                              bool challenger)
{
    struct challenge *c = table_get(&C(s->hub)->byid, m->challenge);

    if (c && !strcmp(challenger ? c->from : c->to, s->player->pid))
        return c;
    if (!c && challenge_fetch_for(s->hub, m->challenge, s, m, NULL, NULL))
        return NULL;
    hub_send_error(s, PROTO_NO_SUCH_CHALLENGE,
                   challenger ? "you have sent no pending challenge with "
                                "that id"
                              : "you have received no pending challenge "
                                "with that id",
                   &m->id);
    return NULL;
}

/* c accepted by its challenged player (pid, name): its game starts here
 * and both players hear it (s, NULL for none, with id). The game's GID,
 * or NULL when the server is busy (c stays pending; s answered). */
const char *challenge_start(struct hub *h, struct challenge *c,
                            const char *pid, const char *name,
                            struct session *s, const struct proto_id *id,
                            int64_t now)
{
    struct game_seat_init seats[2];
    struct board board;
    struct game *g;
    int color;

    /* colour: the challenger's wish, else the coin its id names (the
     * finalColor its ChallengeJson told both players) */
    color = proto_challenge_side(
        &(struct proto_challenge){.id = c->id, .color = c->color});
    seats[color] = (struct game_seat_init){c->from, c->from_name};
    seats[1 - color] = (struct game_seat_init){pid, name};
    board_from_fen(&board, FEN_START);
    g = hub_start_game_as(h, c->id, &c->clock, &board, seats, NULL, c->rated,
                          now);
    if (!g) {
        if (s)
            hub_send_error(s, PROTO_RATE_LIMITED,
                           "the server is busy; try again", id);
        return NULL;
    }
    botaccount_started(h, c->from, c->from_bot, c->to, c->to_bot, now);
    challenge_finish(h, c, "accepted", -1, game_gid(g), s, id);
    game_announce_start(g, now);
    return game_gid(g);
}

/* The game of an accepted challenge: the checks a paired seek's taker
 * has (PROTOCOL.md's order), then it starts. */
static void do_accept(struct session *s, const struct proto_msg *m,
                      int64_t now)
{
    struct hub *h = s->hub;
    struct challenge *c = mine(s, m, false);
    struct player *from;
    const char *pid;

    if (!c)
        return;
    pid = c->from;
    /* both players' facts (their games): read, and m runs again then */
    if (!hub_facts_want(s, m, &pid, 1, hub_facts_since(h, c->rated, now)))
        return;
    from = table_get(&h->players, c->from);
    if (blocked(s, s->player, c->from, c->from_name, from, &m->id))
        return;
    if (c->rated && hub_rated_refused(s, &m->id))
        return;
    if (hub_player_full(s, false, &m->id))
        return;
    if (from && from->ngames + (size_t)lobby_has(h->lobby, from->pid) >=
                    (size_t)h->cfg.max_games_per_player) {
        hub_send_error(s, PROTO_TOO_MANY_GAMES,
                       "the challenger holds as many live games, "
                       "invitations and seeks as there may be",
                       &m->id);
        return;
    }
    if (hub_games_refused(s, c->from, true, &m->id))
        return;
    char msg[160];
    int code = botaccount_may_play(h, c->from, c->from_bot, c->to, c->to_bot,
                                   now, msg, sizeof msg);
    if (code) {
        hub_send_error(s, code, msg, &m->id);
        return;
    }
    challenge_end_ask(h, c, "accepted", -1, s->player->pid, s->player->name,
                      s, m, NULL, 0);
}

static void do_decline(struct session *s, const struct proto_msg *m,
                       int64_t now)
{
    struct challenge *c = mine(s, m, false);

    (void)now;
    if (c)
        challenge_end_ask(s->hub, c, "declined", m->reason, NULL, NULL, s, m,
                          NULL, 0);
}

static void do_cancel(struct session *s, const struct proto_msg *m,
                      int64_t now)
{
    struct challenge *c = mine(s, m, true);

    (void)now;
    if (c)
        challenge_end_ask(s->hub, c, "canceled", -1, NULL, NULL, s, m, NULL,
                          0);
}

/* pid's challenges v (n of them, both ways, oldest first) to s as our
 * protocol's `challenges`, with id. */
void challenge_send_list(struct hub *h, struct session *s, const char *pid,
                         struct challenge *const *v, size_t n,
                         const struct proto_id *id)
{
    struct proto_challenge *in = calloc(n + 1, sizeof *in);
    struct proto_challenge *out = calloc(n + 1, sizeof *out);
    size_t nin = 0, nout = 0;

    if (!in || !out) {
        free(in);
        free(out);
        hub_busy(s, id);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        bool sent = !strcmp(v[i]->from, pid);
        challenge_view(h, v[i], sent ? &out[nout++] : &in[nin++]);
    }
    hub_send_text(s, proto_render_challenges(in, nin, out, nout, id), 0);
    free(in);
    free(out);
}

/* challenges: those pending to and from s's player, oldest first (in a
 * cluster every node's, read from the router: s waits meanwhile). */
static void do_list(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;
    size_t n;
    struct challenge *const *v;

    (void)now;
    if (challenge_clustered(h)) {
        challenge_list_ask(h, s->player->pid, s, m, NULL, 0);
        return;
    }
    v = challenge_party(h, s->player->pid, &n);
    challenge_send_list(h, s, s->player->pid, v, n, &m->id);
}

/* ---- the module ---------------------------------------------------------- */

/* p's last connection went: its challenges lapse challenge_lapse_ms
 * later unless it comes back. */
static void player_gone(struct hub *h, struct player *p)
{
    struct party *pa = table_get(&C(h)->parties, p->pid);

    for (size_t i = 0; pa && i < pa->n; i++) {
        struct challenge *c = pa->v[i];
        if (strcmp(c->from, p->pid) || !c->home)
            continue;
        challenge_rearm(h, c, h->cfg.challenge_lapse_ms);
    }
}

/* s closes: the steps it waits for answer nobody. */
static void session_closed(struct hub *h, struct session *s)
{
    challenge_ops_closed(h, s);
}

static int init(struct hub *h)
{
    struct challenges *cs = calloc(1, sizeof *cs);

    if (!cs)
        return -1;
    table_init(&cs->byid);
    table_init(&cs->parties);
    cs->made = ratelimit_new(CHALLENGE_RATE_PER_MIN / 60.0, CHALLENGE_BURST,
                             CHALLENGE_RATE_KEYS);
    if (!cs->made) {
        free(cs);
        return -1;
    }
    hub_module_set_state(h, &hub_challenge_module, cs);
    return 0;
}

static void fini(struct hub *h)
{
    struct challenges *cs = C(h);

    if (!cs)
        return;
    for (size_t i = 0; i < cs->byid.cap; i++) {
        struct challenge *c = cs->byid.slots[i].value;
        if (c) {
            hub_alarm_free(h, c->lapse);
            free(c);
        }
    }
    for (size_t i = 0; i < cs->parties.cap; i++) {
        struct party *p = cs->parties.slots[i].value;
        if (p) {
            free(p->v);
            free(p);
        }
    }
    table_clear(&cs->byid);
    table_clear(&cs->parties);
    challenge_ops_free(h);
    ratelimit_free(cs->made);
    free(cs);
    hub_module_set_state(h, &hub_challenge_module, NULL);
}

static const struct hub_command commands[] = {
    {PROTO_T_CHALLENGE, do_challenge, false},
    {PROTO_T_CHALLENGE_ACCEPT, do_accept, false},
    {PROTO_T_CHALLENGE_DECLINE, do_decline, false},
    {PROTO_T_CHALLENGE_CANCEL, do_cancel, false},
    {PROTO_T_CHALLENGES, do_list, false},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_challenge_module = {
    .name = "challenge",
    .init = init,
    .free = fini,
    .player_gone = player_gone,
    .session_closed = session_closed,
    .tell_tag = CHALLENGE_TELL,
    .told = challenge_told,
    .commands = commands,
};
