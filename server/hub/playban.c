/*
 * playban.c - lichess's playban (PROTOCOL.md "Playban"): the outcome of
 * each ended game for each account seated in it, the record of recent
 * outcomes and bans, and the refusal of new games while a ban holds.
 * The rules are common/playban.c's (lila's modules/playban).
 *
 * What counts (lila's PlaybanApi.blameable, adapted): a game with a live
 * clock between two people. Correspondence games are exempt (lila's have
 * no clock) and so are games against the computer (lila's source AI).
 * lila also exempts games between friends (source Friend); here
 * invitations and challenges are how clubs and strangers alike meet, so
 * they count as lobby games do (an abort only counts when the opponent
 * was there, and a won or drawn game never counts against anyone).
 *
 * Guests are judged as `playban_guests` says (playban_guest.c: by
 * token, and by address too), with records in memory only.
 *
 * An account's record lives with the player's facts (facts.c): read
 * with them at hello and login and for a game's seats, so every node
 * has it; this node updates it at a game's end, writes it through the
 * store's writer (migration 0015) and tells the player's other nodes
 * (router tell), and a facts read of an older version never replaces
 * it. A player whose
 * connection dropped and who came back within the grace period has lost
 * nothing: only a grace period run out (abandoned) is a rage quit.
 * Only the event-loop thread runs this file, but hub_playban_read (the
 * reader thread, inside a read's run).
 */
#include "hub/hub_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "lib/log.h"
#include "lib/msgbuf.h"

/* An account's age counts as more than 3 days (lila's multipliers and
 * stricter rules for new accounts need the account's creation time,
 * which the facts do not carry yet). */
#define ACCOUNT_AGE_DAYS 4

int hub_playban_read(struct store *st, const char *pid,
                     struct playban_record *r)
{
    char *text = NULL;
    int rc = store_get_playban(st, pid, &text);

    memset(r, 0, sizeof *r);
    if (rc < 0)
        return -1;
    if (rc == 1 && playban_decode(text, r) < 0)
        log_warn("event=playban_unreadable player=%s", pid);
    free(text);
    return 0;
}

/* {"t":"playban","until":MS,"minutes":N}: the ban until MS (Unix ms), N
 * minutes long. Malloc'ed. */
static char *render(int64_t until, int mins)
{
    char *text = malloc(64);

    if (text)
        snprintf(text, 64,
                 "{\"t\":\"playban\",\"until\":%" PRId64 ",\"minutes\":%d}",
                 until, mins);
    return text;
}

/* p's ban holding at wall, p acting from ip (NULL: its latest address):
 * its end, 0 when none (or playbans are off). */
static int64_t ban_end(struct hub *h, const struct player *p, const char *ip,
                       int64_t wall, int *mins)
{
    const struct playban_record *r;
    int64_t end;

    if (!h->cfg.playban || !p)
        return 0;
    if (!p->account)
        return hub_guestbans_end(h, p, ip, wall, mins);
    if (!p->facts)
        return 0;
    r = &p->facts->playban;
    end = playban_ends(r, wall);
    if (end && mins)
        *mins = r->ban[r->nbans - 1].mins;
    return end;
}

void hub_playban_tell(struct hub *h, struct player *p, int64_t until,
                      int mins, uint64_t seq)
{
    struct msgbuf *b = msgbuf_take(render(until, mins));

    if (!b)
        return;
    for (size_t i = 0; i < p->nconns; i++)
        h->env.send(p->conns[i]->conn, b, seq);
    msgbuf_unref(b);
}

/* hub_playban_until for p acting from ip (NULL: its latest address). */
static int64_t until_from(struct hub *h, const struct player *p,
                          const char *ip, char *msg, size_t len, int *mins)
{
    int64_t wall = hub_wall_ms(h), end;
    char at[32];
    time_t t;
    struct tm tm;

    if (!p || !(end = ban_end(h, p, ip, wall, mins)))
        return 0;
    t = (time_t)(end / 1000);
    gmtime_r(&t, &tm);
    strftime(at, sizeof at, "%Y-%m-%d %H:%M:%S UTC", &tm);
    snprintf(msg, len,
             "you aborted or left too many games: no new game for %lld "
             "min, until %s",
             (long long)((end - wall + 59999) / 60000), at);
    return end;
}

int64_t hub_playban_until(struct hub *h, const struct player *p, char *msg,
                          size_t len)
{
    int mins = 0;

    return until_from(h, p, NULL, msg, len, &mins);
}

bool hub_playban_refused(struct session *s, const struct proto_id *id)
{
    struct hub *h = s->hub;
    int64_t end;
    int mins = 0;
    char msg[160];

    if (!(end = until_from(h, s->player, s->ip, msg, sizeof msg, &mins)))
        return false;
    hub_send_error(s, PROTO_PLAYBAN, msg, id);
    hub_send_text(s, render(end, mins), 0);
    log_info("event=playban_refused player=%s until_ms=%" PRId64,
             s->player->pid, end);
    return true;
}

void hub_playban_welcomed(struct session *s)
{
    int mins = 0;
    int64_t end = ban_end(s->hub, s->player, s->ip, hub_wall_ms(s->hub),
                          &mins);

    if (end)
        hub_send_text(s, render(end, mins), 0);
}

/* The game counts: a live clock, two people (the top of this file). */
static bool counts(const struct game *g)
{
    if (clock_spec_correspondence(game_clock_spec(g)) ||
        game_ending(g) == ENDING_CANCELLED)
        return false;
    for (int c = 0; c < 2; c++)
        if (proto_ai_level(game_seat_pid(g, c)) > 0)
            return false;
    return true;
}

int hub_playban_note(struct playban_record *r, const struct playban_game *v,
                     int c, int *o)
{
    int64_t forgiven = r->forgiven_ms;

    *o = playban_judge(v, c, &r->forgiven_ms);
    if (*o == PLAYBAN_NONE && r->forgiven_ms == forgiven)
        return -1;
    if (*o == PLAYBAN_NONE) {
        r->version++;
        return 0;
    }
    return playban_add(r, *o, v->now_ms, ACCOUNT_AGE_DAYS);
}

/* Records what v says of seat c of g: an account's in its facts and the
 * store, a guest's in playban_guest.c's tables. */
static void judge_seat(struct hub *h, struct game *g,
                       const struct playban_game *v, int c)
{
    struct player *p = table_get(&h->players, game_seat_pid(g, c));
    struct playban_record r;
    char text[PLAYBAN_TEXT_MAX];
    int o, mins;
    uint64_t seq;

    if (!p)
        return;
    if (!p->facts) { /* (a seat's facts are read before its game starts) */
        log_warn("event=playban_unjudged player=%s game=%s", p->pid,
                 game_gid(g));
        return;
    }
    if (!p->account) {
        hub_guestbans_judge(h, g, v, c, p);
        return;
    }
    r = p->facts->playban;
    if ((mins = hub_playban_note(&r, v, c, &o)) < 0)
        return;
    if (!playban_encode(&r, text, sizeof text) ||
        !(seq = store_put_playban(h->store, p->pid, text, v->now_ms))) {
        log_warn("event=playban_unrecorded player=%s game=%s", p->pid,
                 game_gid(g));
        return;
    }
    p->facts->playban = r;
    if (o != PLAYBAN_NONE)
        log_info("event=playban_outcome player=%s game=%s outcome=%s", p->pid,
                 game_gid(g), playban_outcome_name(o));
    if (!mins)
        return;
    log_info("event=playban player=%s game=%s minutes=%d until_ms=%" PRId64,
             p->pid, game_gid(g), mins, v->now_ms + (int64_t)mins * 60000);
    hub_playban_tell(h, p, v->now_ms + (int64_t)mins * 60000, mins, seq);
    h->router.ops->tell(h->router.ctx, p->pid, PLAYBAN_TELL, text,
                        strlen(text), seq);
}

static void game_ended(struct hub *h, struct game *g)
{
    struct playban_game v;

    if (!h->cfg.playban || !counts(g))
        return;
    game_playban_view(g, hub_now_ms(h), hub_wall_ms(h), &v);
    for (int c = 0; c < 2; c++)
        judge_seat(h, g, &v, c);
}

/* Another node changed p's record (payload: its text): a newer one
 * replaces this node's, and a ban it gave is told here. */
static void told(struct hub *h, struct player *p, const char *payload,
                 size_t len, int64_t now)
{
    char text[PLAYBAN_TEXT_MAX];
    struct playban_record r;
    int64_t end, wall = hub_wall_ms(h);

    (void)now;
    if (!p->facts || len == 0 || len >= sizeof text)
        return;
    memcpy(text, payload, len);
    text[len] = '\0';
    if (playban_decode(text, &r) < 0 || r.version < p->facts->playban.version)
        return;
    p->facts->playban = r;
    if ((end = playban_ends(&r, wall)) != 0)
        hub_playban_tell(h, p, end, r.ban[r.nbans - 1].mins, 0);
}

static void told_all(struct hub *h, const char *payload, size_t len,
                     int64_t now)
{
    (void)now;
    hub_guestbans_told(h, payload, len);
}

static const struct hub_command commands[] = {
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_playban_module = {
    .name = "playban",
    .init = hub_guestbans_init,
    .free = hub_guestbans_free,
    .game_ended = game_ended,
    .tell_tag = PLAYBAN_TELL,
    .told = told,
    .told_all = told_all,
    .commands = commands,
};
