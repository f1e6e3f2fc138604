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
 * On one node only: in a cluster the two players may be on different
 * nodes, and the challenge would need the nodes' bus (router.h's tell)
 * both ways; `challenge` is answered challenge_unavailable there
 * (docs/cluster.md).
 */
#include "hub/challenge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hub/botaccount.h"
#include "hub/hub_internal.h"
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

struct challenge {
    struct hub *h;
    char id[PROTO_KEY_MAX + 1];
    char from[PROTO_KEY_MAX + 1], from_name[PROTO_NAME_MAX + 1];
    char to[PROTO_KEY_MAX + 1], to_name[PROTO_NAME_MAX + 1];
    bool from_account, to_account;
    bool from_bot, to_bot; /* bot accounts ("bot", "title":"BOT") */
    struct clock_spec clock;
    int color; /* enum proto_color: the challenger's wish */
    bool rated;
    struct hub_alarm *lapse; /* armed while the challenger is away */
    int64_t lapse_wall;      /* then: when it lapses (Unix ms), else 0 */
};

/* A player's side of the challenges: those it sent and received. */
struct party {
    char pid[PROTO_KEY_MAX + 1];
    struct challenge **v;
    size_t n, cap;
    int out, in;
};

struct challenges {
    struct table byid;    /* id -> struct challenge */
    struct table parties; /* pid -> struct party */
    struct ratelimit *made;
};

extern const struct hub_module hub_challenge_module;

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
static void tell(struct hub *h, const struct challenge *c,
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

/* c ends with status (and the reason of a decline, the game of an
 * accept): both players hear it, and it is freed. */
static void finish(struct hub *h, struct challenge *c, const char *status,
                   int decline, const char *game, struct session *s,
                   const struct proto_id *id)
{
    struct challenges *cs = C(h);
    struct proto_challenge v;

    challenge_view(h, c, &v);
    v.status = status;
    v.decline = decline;
    v.game = game;
    v.expires_ms = 0;
    log_info("event=challenge_ended challenge=%s status=%s from=%s to=%s%s%s",
             c->id, status, c->from, c->to, decline >= 0 ? " reason=" : "",
             decline >= 0 ? proto_decline_name(decline) : "");
    tell(h, c, &v, s, id);
    table_del(&cs->byid, c->id);
    party_drop(cs, c->from, c);
    party_drop(cs, c->to, c);
    hub_alarm_free(h, c->lapse);
    free(c);
}

/* The lapse rang: the challenger is still away (else it is kept). */
static void lapse(void *arg)
{
    struct challenge *c = arg;
    struct hub *h = c->h;
    struct player *p = table_get(&h->players, c->from);

    if (p && hub_player_present(p)) {
        c->lapse_wall = 0;
        return;
    }
    finish(h, c, "expired", -1, NULL, NULL, NULL);
}

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

/* True (s answered `blocked`) when a block keeps me and other apart:
 * me's own block is named; other's is not (as lichess, which says only
 * that the challenge cannot be: relation.h). */
static bool blocked(struct session *s, const struct player *me,
                    const struct player *other, const struct proto_id *id)
{
    char msg[PROTO_MSG_MAX];

    if (!other)
        return false;
    if (relation_blocks(me, other->pid))
        snprintf(msg, sizeof msg,
                 "you have blocked %s: unblock them to play them",
                 other->name);
    else if (relation_blocks(other, me->pid))
        snprintf(msg, sizeof msg, "you cannot challenge %s", other->name);
    else
        return false;
    hub_send_error(s, PROTO_BLOCKED, msg, id);
    return true;
}

/* The caps on pending challenges, then the challenge is made (*out);
 * nobody is told yet. 0, or an enum proto_error with msg (PROTO_BUSY:
 * out of memory). */
/* Whether pid's record here knows it a bot account (its facts). */
static bool player_bot(struct hub *h, const char *pid)
{
    struct player *p = table_get(&h->players, pid);

    return p && p->facts && p->facts->bot;
}

static int make(struct hub *h, const struct challenge_who *from,
                const struct challenge_who *to,
                const struct clock_spec *clock, int color, bool rated,
                const struct challenge **out, char *msg, size_t len)
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
    if (mine && mine->out >= h->cfg.max_challenges_out) {
        snprintf(msg, len,
                 "you have %d pending challenges: the most there may be",
                 h->cfg.max_challenges_out);
        return PROTO_TOO_MANY_CHALLENGES;
    }
    if (theirs && theirs->in >= h->cfg.max_challenges_in) {
        snprintf(msg, len,
                 "%s has %d pending challenges: the most there may be",
                 to->name, h->cfg.max_challenges_in);
        return PROTO_TOO_MANY_CHALLENGES;
    }
    c = calloc(1, sizeof *c);
    if (!c || ids_random(c->id, CHALLENGE_ID_BYTES) < 0)
        goto oom;
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
    c->lapse = hub_alarm_new(h, lapse, c);
    mine = party_get(cs, from->pid);
    theirs = mine ? party_get(cs, to->pid) : NULL;
    if (!c->lapse || !theirs || table_put(&cs->byid, c->id, c) < 0)
        goto oom;
    if (party_add(mine, c) < 0) {
        table_del(&cs->byid, c->id);
        goto oom;
    }
    mine->out++;
    if (party_add(theirs, c) < 0) {
        theirs->in++; /* (party_drop counts it back) */
        finish(h, c, "canceled", -1, NULL, NULL, NULL);
        return PROTO_BUSY;
    }
    theirs->in++;
    log_info("event=challenge_created challenge=%s from=%s to=%s", c->id,
             c->from, c->to);
    *out = c;
    return 0;
oom:
    if (c)
        hub_alarm_free(h, c->lapse);
    free(c);
    /* (an empty party made here goes with the next challenge's end) */
    return PROTO_BUSY;
}

/* The checks of `challenge` in PROTOCOL.md's order, then the challenge
 * is made and both players hear it. */
static void do_challenge(struct session *s, const struct proto_msg *m,
                         int64_t now)
{
    struct hub *h = s->hub;
    struct challenges *cs = C(h);
    struct player *me = s->player, *dest;
    struct proto_challenge v;
    char msg[PROTO_MSG_MAX];

    if (h->router.ops != &hub_local_router) {
        hub_send_error(s, PROTO_CHALLENGE_UNAVAILABLE,
                       "challenges are not served in a cluster yet: send an "
                       "invitation link",
                       &m->id);
        return;
    }
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
    if (!dest) {
        snprintf(msg, sizeof msg,
                 "no player named %s (or with that PID) is online", m->to);
        hub_send_error(s, PROTO_NO_SUCH_PLAYER, msg, &m->id);
        return;
    }
    if (dest == me) { /* (a guest named as its own PID) */
        hub_send_error(s, PROTO_OWN_GAME, "you cannot challenge yourself",
                       &m->id);
        return;
    }
    if (blocked(s, me, dest, &m->id))
        return;
    if (m->rated && hub_rated_refused(s, &m->id))
        return;
    if (m->rated && !dest->account) {
        snprintf(msg, sizeof msg,
                 "%s is a guest: rated games are for accounts", dest->name);
        hub_send_error(s, PROTO_RATED_NEEDS_ACCOUNT, msg, &m->id);
        return;
    }
    struct challenge_who from = {me->pid, me->name, me->account, false};
    struct challenge_who to = {dest->pid, dest->name, dest->account, false};
    const struct challenge *made;
    int code = make(h, &from, &to, &m->clock, m->color, m->rated, &made, msg,
                    sizeof msg);

    if (code == PROTO_BUSY)
        hub_busy(s, &m->id);
    else if (code)
        hub_send_error(s, code, msg, &m->id);
    else {
        challenge_view(h, made, &v);
        tell(h, made, &v, s, &m->id);
    }
}

/* The pending challenge m->challenge whose `role` (its challenger, or
 * the challenged) s's player is, or NULL when s was answered
 * no_such_challenge. */
static struct challenge *mine(struct session *s, const struct proto_msg *m,
                              bool challenger)
{
    struct challenge *c = table_get(&C(s->hub)->byid, m->challenge);

    if (c && !strcmp(challenger ? c->from : c->to, s->player->pid))
        return c;
    hub_send_error(s, PROTO_NO_SUCH_CHALLENGE,
                   challenger ? "you have sent no pending challenge with "
                                "that id"
                              : "you have received no pending challenge "
                                "with that id",
                   &m->id);
    return NULL;
}

/* c accepted by its challenged player (pid, name): its game starts and
 * both players hear it (s, NULL for none, with id). The game's GID, or
 * NULL when the server is busy (c stays pending; s answered). */
static const char *start(struct hub *h, struct challenge *c, const char *pid,
                         const char *name, struct session *s,
                         const struct proto_id *id, int64_t now)
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
    finish(h, c, "accepted", -1, game_gid(g), s, id);
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
    if (blocked(s, s->player, from, &m->id))
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
    start(h, c, s->player->pid, s->player->name, s, &m->id, now);
}

static void do_decline(struct session *s, const struct proto_msg *m,
                       int64_t now)
{
    struct challenge *c = mine(s, m, false);

    (void)now;
    if (c)
        finish(s->hub, c, "declined", m->reason, NULL, s, &m->id);
}

static void do_cancel(struct session *s, const struct proto_msg *m,
                      int64_t now)
{
    struct challenge *c = mine(s, m, true);

    (void)now;
    if (c)
        finish(s->hub, c, "canceled", -1, NULL, s, &m->id);
}

/* challenges: those pending to and from s's player, oldest first. */
static void do_list(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;
    struct party *p = table_get(&C(h)->parties, s->player->pid);
    size_t n = p ? p->n : 0, nin = 0, nout = 0;
    struct proto_challenge *in = calloc(n + 1, sizeof *in);
    struct proto_challenge *out = calloc(n + 1, sizeof *out);

    (void)now;
    if (!in || !out) {
        free(in);
        free(out);
        hub_busy(s, &m->id);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        bool sent = !strcmp(p->v[i]->from, p->pid);
        challenge_view(h, p->v[i], sent ? &out[nout++] : &in[nin++]);
    }
    hub_send_text(s, proto_render_challenges(in, nin, out, nout, &m->id), 0);
    free(in);
    free(out);
}

/* ---- the HTTP API's ways in (lichessapi.c) ------------------------------ */

/* The checks of a new game between pid (asking) and other that the
 * WebSocket's paths make through the session: pid's playban, then a block
 * either way (of the players in memory: a stream or page keeps one
 * there). 0, or an enum proto_code with msg. */
static int api_may_play(struct hub *h, const char *pid, const char *other,
                        const char *other_name, char *msg, size_t len)
{
    const struct player *me = table_get(&h->players, pid);
    const struct player *them = table_get(&h->players, other);

    if (hub_playban_until(h, me, msg, len))
        return PROTO_PLAYBAN;
    if ((me && relation_blocks(me, other)) ||
        (them && relation_blocks(them, pid))) {
        snprintf(msg, len, "you cannot challenge %s", other_name);
        return PROTO_BLOCKED;
    }
    return 0;
}

int challenge_api_create(struct hub *h, const struct challenge_who *from,
                         const struct challenge_who *to,
                         const struct clock_spec *clock, int color,
                         bool rated, int64_t now, char **json, char *msg,
                         size_t len)
{
    struct player *p;
    const struct challenge *made;
    struct proto_challenge v;
    int code;

    *json = NULL;
    if (h->router.ops != &hub_local_router) {
        snprintf(msg, len, "challenges are not served in a cluster yet");
        return PROTO_CHALLENGE_UNAVAILABLE;
    }
    if (!ratelimit_take(C(h)->made, from->pid, now)) {
        snprintf(msg, len, "too many challenges; try again in a minute");
        return PROTO_RATE_LIMITED;
    }
    if (!strcmp(from->pid, to->pid)) {
        snprintf(msg, len, "you cannot challenge yourself");
        return PROTO_OWN_GAME;
    }
    if ((code = api_may_play(h, from->pid, to->pid, to->name, msg, len)))
        return code;
    code = make(h, from, to, clock, color, rated, &made, msg, len);
    if (code)
        return code;
    /* a challenger with no page open here: it lapses as one whose last
     * page went (lichess: 20 s unless kept alive) */
    p = table_get(&h->players, from->pid);
    if (!p || !hub_player_present(p)) {
        struct challenge *c = (struct challenge *)made;
        c->lapse_wall = hub_wall_ms(h) + h->cfg.challenge_lapse_ms;
        hub_alarm_arm(h, c->lapse, now + h->cfg.challenge_lapse_ms);
    }
    challenge_view(h, made, &v);
    tell(h, made, &v, NULL, NULL);
    *json = proto_render_challenge_lichess(&v, "", false, -1);
    if (!*json) {
        snprintf(msg, len, "out of memory");
        return PROTO_BUSY;
    }
    return 0;
}

/* Appends text to *out (n bytes long): 0, or -1 when out of memory
 * (*out freed and NULL). */
static int append(char **out, size_t *n, const char *text)
{
    size_t k = strlen(text);
    char *p = realloc(*out, *n + k + 1);

    if (!p) {
        free(*out);
        *out = NULL;
        return -1;
    }
    memcpy(p + *n, text, k + 1);
    *n += k;
    *out = p;
    return 0;
}

char *challenge_api_list(struct hub *h, const char *pid)
{
    struct party *p = table_get(&C(h)->parties, pid);
    char *out = NULL, *text;
    size_t n = 0;
    struct proto_challenge v;

    for (int sent = 0; sent < 2; sent++) {
        bool first = true;
        if (append(&out, &n, sent ? "],\"out\":[" : "{\"in\":[") < 0)
            return NULL;
        for (size_t i = 0; p && i < p->n; i++) {
            if ((strcmp(p->v[i]->from, pid) == 0) != sent)
                continue;
            challenge_view(h, p->v[i], &v);
            text = proto_render_challenge_lichess(&v, "", !sent, -1);
            if (!text || (!first && append(&out, &n, ",") < 0) ||
                append(&out, &n, text) < 0) {
                free(text);
                free(out);
                return NULL;
            }
            free(text);
            first = false;
        }
    }
    return append(&out, &n, "]}") < 0 ? NULL : out;
}

/* The pending challenge id sent (challenger) or received by pid. */
static struct challenge *api_mine(struct hub *h, const char *id,
                                  const char *pid, bool challenger)
{
    struct challenge *c = table_get(&C(h)->byid, id);

    return c && !strcmp(challenger ? c->from : c->to, pid) ? c : NULL;
}

/* True when pid holds as many live games and seeks as it may. */
static bool api_full(struct hub *h, const char *pid)
{
    struct player *p = table_get(&h->players, pid);

    return p && p->ngames + (size_t)lobby_has(h->lobby, p->pid) >=
                    (size_t)h->cfg.max_games_per_player;
}

int challenge_api_accept(struct hub *h, const char *id,
                         const struct challenge_who *me, int64_t now,
                         char *msg, size_t len)
{
    struct challenge *c = api_mine(h, id, me->pid, false);
    int code;

    if (!c) {
        snprintf(msg, len, "Not found.");
        return PROTO_NO_SUCH_CHALLENGE;
    }
    if ((code = api_may_play(h, me->pid, c->from, c->from_name, msg, len)))
        return code;
    if (api_full(h, c->to) || api_full(h, c->from)) {
        snprintf(msg, len,
                 "%s holds as many live games and seeks as there may be",
                 api_full(h, c->to) ? "you" : "the challenger");
        return PROTO_TOO_MANY_GAMES;
    }
    if (h->nlive >= (size_t)h->cfg.max_live_games) {
        snprintf(msg, len, "the server holds as many live games as it may");
        return PROTO_SERVER_FULL;
    }
    if ((code = botaccount_may_play(h, c->from, c->from_bot, c->to, c->to_bot,
                                    now, msg, len)))
        return code;
    if (!start(h, c, me->pid, me->name, NULL, NULL, now)) {
        snprintf(msg, len, "the server is busy; try again");
        return PROTO_BUSY;
    }
    return 0;
}

int challenge_api_end(struct hub *h, const char *id, const char *pid,
                      int decline)
{
    struct challenge *c = api_mine(h, id, pid, decline < 0);

    if (!c)
        return PROTO_NO_SUCH_CHALLENGE;
    if (decline < 0)
        finish(h, c, "canceled", -1, NULL, NULL, NULL);
    else
        finish(h, c, "declined", decline, NULL, NULL, NULL);
    return 0;
}

/* ---- the module ---------------------------------------------------------- */

/* p's last connection went: its challenges lapse challenge_lapse_ms
 * later unless it comes back. */
static void player_gone(struct hub *h, struct player *p)
{
    struct party *pa = table_get(&C(h)->parties, p->pid);
    int64_t now = hub_now_ms(h), wall = hub_wall_ms(h);

    for (size_t i = 0; pa && i < pa->n; i++) {
        struct challenge *c = pa->v[i];
        if (strcmp(c->from, p->pid))
            continue;
        c->lapse_wall = wall + h->cfg.challenge_lapse_ms;
        hub_alarm_arm(h, c->lapse, now + h->cfg.challenge_lapse_ms);
    }
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
    .commands = commands,
};
