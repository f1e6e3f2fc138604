/*
 * moderation.c - the moderators' commands (see moderation.h and
 * PROTOCOL.md "Moderation").
 *
 * mod_reports answers the report queue, the worst first
 * (store_report_queue: lila's score order). mod_action acts on an
 * account: warn (the player is told the moderator's text), mute for
 * duration_s (its chat lines refused until then, the player told),
 * unmute, close (its open reports, of one reason or all), engine and
 * unengine (its new games casual, off the leaderboards: hosting.c and
 * the store's leaderboard read the mark), close_account and
 * reopen_account (login refuses it, its tokens deleted, its connections
 * end), disconnect (its connections end). Never on the moderator's own
 * account. Each action is
 * a row of mod_actions (who, on whom, what, why, when), a log line
 * (event=mod_action) and a mod_notice to the player's connections here
 * and, through the router's tell, on its other nodes.
 *
 * What a client costs. Each command is one read (the asker's role; then
 * the queue, at most MOD_QUEUE_MAX entries, and the newest
 * MOD_TEXTS_MAX open reports for their texts, about 1 MB for the read's
 * time; or the target's account row) within the connection's read budget, and an action one write;
 * both are held to LIMIT_MOD_PER_MIN a minute per account (shared by a
 * cluster's nodes), moderators or not, so a non-moderator's tries cost a
 * read each at most that often.
 */
#include "hub/moderation.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hub/chat.h"
#include "hub/hub_internal.h"
#include "hub/maintenance.h"
#include "hub/reads.h"
#include "lib/log.h"
#include "lib/msgbuf.h"
#include "lib/ratelimit.h"

/* The tag of this module's tells (module.h): "ACTION\tUNTIL\tAT\tBY\tTEXT"
 * to the target's nodes. */
#define MOD_TELL 'O'
#define MOD_QUEUE_MAX 50  /* entries of mod_reports */
#define MOD_TEXTS_MAX 500 /* open reports read for their texts */
#define LIMIT_MOD_PER_MIN 30
#define LIMIT_MOD_BURST 10
#define LIMIT_MOD_KEYS 1024
#define MOD_HISTORY_MAX 20 /* mod_player: chat lines, and actions */

struct moderation {
    struct ratelimit *rate; /* commands per account */
};

extern const struct hub_module hub_moderation_module; /* (below) */

static struct moderation *M(struct hub *h)
{
    struct moderation *m = hub_module_state(h, &hub_moderation_module);

    assert(m); /* (its init ran) */
    return m;
}

/* "YYYY-MM-DD HH:MM:SS UTC" of Unix ms. */
static void utc(int64_t ms, char *out, size_t len)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

bool moderation_chat_refused(struct session *s, const struct proto_msg *m)
{
    const struct player *p = s->player;
    int64_t until = p->facts ? p->facts->chat_muted_until : 0;
    char msg[PROTO_MSG_MAX], at[40];

    if (until <= hub_wall_ms(s->hub))
        return false;
    utc(until, at, sizeof at);
    snprintf(msg, sizeof msg, "muted by a moderator until %s", at);
    hub_send_error(s, PROTO_MUTED, msg, &m->id);
    hub_send_text(s, proto_render_chat_muted(until), 0);
    return true;
}

/* ---- the player told ------------------------------------------------------ */

/* An action's mark on p's facts here. */
static void mark(struct player_facts *f, int action, int64_t until)
{
    switch (action) {
    case PROTO_MOD_MUTE:
    case PROTO_MOD_UNMUTE:
        f->chat_muted_until = until;
        break;
    case PROTO_MOD_ENGINE:
    case PROTO_MOD_UNENGINE:
        f->engine = action == PROTO_MOD_ENGINE;
        break;
    case PROTO_MOD_CLOSE_ACCOUNT:
    case PROTO_MOD_REOPEN_ACCOUNT:
        f->closed = action == PROTO_MOD_CLOSE_ACCOUNT;
        break;
    default:
        break;
    }
}

/* An action's effect on p here, and its notice to p's connections here
 * (behind seq); a disconnect or a close then ends them (net.c's staged
 * close: the notice first). */
static void apply(struct hub *h, struct player *p, int action, int64_t until,
                  int64_t at, const char *by, const char *text, uint64_t seq)
{
    struct msgbuf *b;
    const char *why;

    if (p->facts)
        mark(p->facts, action, until);
    if (action == PROTO_MOD_CLOSE) /* (a player is not told of a close) */
        return;
    b = msgbuf_take(proto_render_mod_notice(proto_mod_action_name(action),
                                            text, by, until, at));
    if (!b)
        return;
    for (size_t i = 0; i < p->nconns; i++)
        h->env.send(p->conns[i]->conn, b, seq);
    msgbuf_unref(b);
    if (action != PROTO_MOD_DISCONNECT && action != PROTO_MOD_CLOSE_ACCOUNT)
        return;
    why = action == PROTO_MOD_DISCONNECT ? "disconnected by a moderator"
                                         : "the account is closed";
    for (size_t i = p->nconns; i-- > 0;) { /* (from the end: hub_detach) */
        struct session *s = p->conns[i];
        if (s->conn) /* (staged: what is queued first, the notice too) */
            h->env.close(s->conn, 1008, why);
        else
            hub_session_close(s, 1008, why);
    }
}

static void told(struct hub *h, struct player *p, const char *payload,
                 size_t len, int64_t now)
{
    char buf[PROTO_REPORT_BYTES + 128], *f[5];
    int n = 0, action = 0;

    (void)now;
    if (len >= sizeof buf)
        return;
    memcpy(buf, payload, len);
    buf[len] = '\0';
    f[n++] = buf;
    for (char *c = buf; *c && n < 5; c++)
        if (*c == '\t') {
            *c = '\0';
            f[n++] = c + 1;
        }
    while (n == 5 && action < PROTO_MOD_ACTIONS &&
           strcmp(f[0], proto_mod_action_name(action)))
        action++;
    if (n == 5 && action < PROTO_MOD_ACTIONS)
        apply(h, p, action, atoll(f[1]), atoll(f[2]), f[3], f[4], 0);
}

/* ---- the commands --------------------------------------------------------- */

/* A command's read: the asker's role, then the queue or the target. */
struct mod_read {
    struct hub_read r;
    struct proto_msg m;
    char pid[PROTO_KEY_MAX + 1]; /* the asker's */
    int role;                    /* store_account_role's */
    bool found;                  /* mod_action: `to` is an account */
    char to_pid[PROTO_KEY_MAX + 1], to_name[PROTO_NAME_MAX + 1];
    struct store_report_entry v[MOD_QUEUE_MAX];
    size_t n;
    struct store_report *texts; /* the open reports, newest first */
    size_t n_texts;
    /* mod_player's: the target's marks, chat lines and past actions */
    struct store_account_marks marks;
    struct store_chat_line *lines; /* MOD_HISTORY_MAX, malloc'ed */
    struct store_mod_action acts[MOD_HISTORY_MAX];
    size_t n_lines, n_acts;
};

static void mod_clear(struct hub_read *r)
{
    free(((struct mod_read *)r)->texts);
    free(((struct mod_read *)r)->lines);
}

/* mod_player's reads of the target q->to_pid. */
static int history_run(struct store *st, struct mod_read *q)
{
    if (store_account_role(st, q->to_pid, &q->marks) < 0 ||
        !(q->lines = malloc(MOD_HISTORY_MAX * sizeof *q->lines)))
        return -1;
    return store_mod_history(st, q->to_pid, q->lines, MOD_HISTORY_MAX,
                             &q->n_lines, q->acts, MOD_HISTORY_MAX,
                             &q->n_acts);
}

static int mod_run(struct store *st, struct hub_read *r)
{
    struct mod_read *q = (struct mod_read *)r;
    struct store_account a;
    struct store_player p;
    int rc;

    if ((q->role = store_account_role(st, q->pid, NULL)) < 0)
        return -1;
    if (q->role != 2 || q->m.type == PROTO_T_MOD_MAINTENANCE ||
        q->m.type == PROTO_T_MOD_GAME)
        return 0;
    if (q->m.type == PROTO_T_MOD_REPORTS) {
        if (store_report_queue(st, q->v, MOD_QUEUE_MAX, &q->n) < 0 ||
            !(q->texts = malloc(MOD_TEXTS_MAX * sizeof *q->texts)))
            return -1;
        return store_open_reports(st, q->texts, MOD_TEXTS_MAX, &q->n_texts);
    }
    if ((rc = store_find_account(st, q->m.to, &a)) < 0)
        return -1;
    if (rc == 0) { /* (or a PID) */
        if ((rc = store_find_player(st, q->m.to, &p)) < 0 ||
            (rc == 1 && (rc = store_is_account(st, p.pid)) < 0))
            return -1;
        snprintf(a.pid, sizeof a.pid, "%s", p.pid);
        snprintf(a.username, sizeof a.username, "%s", p.name);
    }
    if ((q->found = rc == 1)) {
        snprintf(q->to_pid, sizeof q->to_pid, "%s", a.pid);
        snprintf(q->to_name, sizeof q->to_name, "%s", a.username);
    }
    return q->found && q->m.type == PROTO_T_MOD_PLAYER ? history_run(st, q)
                                                       : 0;
}

static void send_queue(struct session *s, struct mod_read *q)
{
    struct proto_mod_report v[MOD_QUEUE_MAX];

    for (size_t i = 0; i < q->n; i++) {
        struct proto_mod_report *e = &v[i];
        memset(e, 0, sizeof *e);
        e->pid = q->v[i].suspect;
        e->name = q->v[i].name;
        e->reason = q->v[i].reason;
        e->score = q->v[i].score;
        e->atoms = q->v[i].atoms;
        e->last_ms = q->v[i].last_ms;
        for (size_t k = 0; k < q->n_texts && e->n_texts < PROTO_MOD_TEXTS;
             k++) {
            const struct store_report *t = &q->texts[k];
            if (!strcmp(t->suspect, e->pid) && !strcmp(t->reason, e->reason))
                e->texts[e->n_texts++] = (struct proto_mod_text){
                    t->reporter, t->text, t->at_ms};
        }
    }
    hub_send_text(s, proto_render_mod_reports(v, q->n, &q->m.id), 0);
}

static void do_action(struct hub *h, struct session *s, struct mod_read *q)
{
    const struct proto_msg *m = &q->m;
    struct player *p = s->player, *target;
    struct store_mod_action row = {0};
    const char *action = proto_mod_action_name(m->action);
    char tell[sizeof row.text + 128], why[2 * sizeof row.text + 3];
    uint64_t seq;
    int len;

    if (m->action == PROTO_MOD_MUTE && m->duration_s <= 0) {
        hub_send_error(s, PROTO_BAD_FIELD,
                       "duration_s: a mute needs its length, 10 to 86400 s",
                       &m->id);
        return;
    }
    snprintf(row.moderator, sizeof row.moderator, "%s", p->pid);
    snprintf(row.target, sizeof row.target, "%s", q->to_pid);
    snprintf(row.action, sizeof row.action, "%s", action);
    if (m->action == PROTO_MOD_CLOSE && m->reason >= 0)
        snprintf(row.reason, sizeof row.reason, "%s",
                 proto_report_reason_name(m->reason));
    snprintf(row.text, sizeof row.text, "%s", m->text);
    row.at_ms = hub_wall_ms(h);
    if (m->action == PROTO_MOD_MUTE)
        row.until_ms = row.at_ms + (int64_t)m->duration_s * 1000;
    if (m->action == PROTO_MOD_CHAT_DELETE) { /* (game: the room's key) */
        snprintf(row.game, sizeof row.game, "%s",
                 m->room == PROTO_ROOM_LOBBY   ? "lobby"
                 : m->room == PROTO_ROOM_EVENT ? m->event
                                               : m->game);
        snprintf(row.room, sizeof row.room, "%s", proto_room_name(m->room));
        row.line_ms = m->at_ms;
    }
    if (!(seq = store_put_mod_action(h->store, &row))) {
        hub_busy(s, &m->id);
        return;
    }
    if (m->action == PROTO_MOD_CHAT_DELETE &&
        (m->room == PROTO_ROOM_LOBBY || m->room == PROTO_ROOM_EVENT))
        rooms_delete_line(h, m->room, row.game, row.target, m->at_ms, seq);
    else if (m->action == PROTO_MOD_CHAT_DELETE) /* (this node hosts it) */
        chat_delete_line(h, m->game, m->room, row.target, m->at_ms, seq);
    if ((target = hub_player(h, row.target)) != NULL)
        apply(h, target, m->action, row.until_ms, row.at_ms, p->name,
              row.text, seq);
    len = snprintf(tell, sizeof tell, "%s\t%lld\t%lld\t%s\t%s", action,
                   (long long)row.until_ms, (long long)row.at_ms, p->name,
                   row.text);
    if (len > 0 && (size_t)len < sizeof tell)
        h->router.ops->tell(h->router.ctx, row.target, MOD_TELL, tell,
                            (size_t)len, seq);
    hub_send_text(s,
                  proto_render_mod_done(action, q->to_pid, q->to_name,
                                        row.until_ms, &m->id),
                  seq);
    log_info("event=mod_action moderator=%s target=%s action=%s reason=%s "
             "until_ms=%lld at_ms=%lld why=%s",
             p->pid, row.target, action, row.reason[0] ? row.reason : "-",
             (long long)row.until_ms, (long long)row.at_ms,
             log_quote(why, sizeof why, row.text));
}

/* mod_player: what the moderators know of the target. */
static void send_player(struct session *s, struct mod_read *q)
{
    struct proto_mod_line c[MOD_HISTORY_MAX];
    struct proto_mod_past a[MOD_HISTORY_MAX];

    for (size_t i = 0; i < q->n_lines; i++)
        c[i] = (struct proto_mod_line){q->lines[i].gid, q->lines[i].room,
                                       q->lines[i].text, q->lines[i].at_ms};
    for (size_t i = 0; i < q->n_acts; i++)
        a[i] = (struct proto_mod_past){
            q->acts[i].action, q->acts[i].moderator, q->acts[i].reason,
            q->acts[i].text,   q->acts[i].until_ms,  q->acts[i].at_ms};
    hub_send_text(s,
                  proto_render_mod_player(q->to_pid, q->to_name,
                                          q->marks.chat_muted_until >
                                                  hub_wall_ms(s->hub)
                                              ? q->marks.chat_muted_until
                                              : 0,
                                          q->marks.engine, q->marks.closed, c,
                                          q->n_lines, a, q->n_acts, &q->m.id),
                  0);
}

/* mod_game, once g (in this node's memory) is found: the moderator
 * ends it with m->result, then the row and the log line. */
static void end_game(struct session *s, struct game *g,
                     const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    struct store_mod_action row = {0};
    struct proto_error err = {0};
    char why[2 * sizeof row.text + 3];
    uint64_t seq;

    if (game_color_of(g, p->pid) >= 0) {
        hub_send_error(s, PROTO_BAD_FIELD,
                       "game: a moderator may not end their own game",
                       &m->id);
        return;
    }
    if (game_adjudicate(g, (enum ending_result)m->result, now, &err) < 0) {
        hub_send_error(s, err.code, err.msg, &m->id);
        return;
    }
    snprintf(row.moderator, sizeof row.moderator, "%s", p->pid);
    snprintf(row.action, sizeof row.action, "game_end");
    snprintf(row.reason, sizeof row.reason, "%s",
             ending_result_name((enum ending_result)m->result));
    snprintf(row.game, sizeof row.game, "%s", m->game);
    snprintf(row.text, sizeof row.text, "%s", m->text);
    row.at_ms = hub_wall_ms(h);
    if (!(seq = store_put_mod_action(h->store, &row))) {
        hub_busy(s, &m->id);
        return;
    }
    hub_send_text(s, proto_render_mod_done("game_end", NULL, NULL, 0, &m->id),
                  seq);
    log_info("event=mod_action moderator=%s target=- action=game_end "
             "reason=%s game=%s until_ms=0 at_ms=%lld why=%s",
             p->pid, row.reason, m->game, (long long)row.at_ms,
             log_quote(why, sizeof why, row.text));
}

/* mod_maintenance: a maintenance in start_in_s (-1: the last one
 * cancelled) with its banner, stored, shown everywhere. */
static void do_maintenance(struct hub *h, struct session *s,
                           const struct proto_msg *m)
{
    struct player *p = s->player;
    struct store_mod_action row = {0};
    struct store_maintenance b = {0};
    char why[2 * sizeof row.text + 3];
    uint64_t seq;

    snprintf(row.moderator, sizeof row.moderator, "%s", p->pid);
    snprintf(row.action, sizeof row.action, "%s",
             m->start_in_s < 0 ? "maintenance_cancel" : "maintenance");
    snprintf(row.text, sizeof row.text, "%s", m->text);
    row.at_ms = hub_wall_ms(h);
    if (m->start_in_s >= 0)
        row.until_ms = row.at_ms + (int64_t)m->start_in_s * 1000;
    if (!(seq = store_put_mod_action(h->store, &row))) {
        hub_busy(s, &m->id);
        return;
    }
    b.cancelled = m->start_in_s < 0;
    b.at_ms = row.until_ms;
    b.made_ms = row.at_ms;
    snprintf(b.by, sizeof b.by, "%s", p->name);
    snprintf(b.text, sizeof b.text, "%s", row.text);
    hub_maintenance_set(h, &b, seq);
    hub_send_text(
        s,
        proto_render_mod_done(row.action, NULL, NULL, row.until_ms, &m->id),
        seq);
    log_info("event=mod_action moderator=%s target=- action=%s reason=- "
             "until_ms=%lld at_ms=%lld why=%s",
             p->pid, row.action, (long long)row.until_ms,
             (long long)row.at_ms, log_quote(why, sizeof why, row.text));
}

/* The read answered: the command goes on, for the same account. */
static void mod_answer(struct hub_read *r, int rc)
{
    struct mod_read *q = (struct mod_read *)r;
    struct session *s = r->who;
    char msg[PROTO_MSG_MAX];

    s->waiting = false;
    if (rc < 0 || !s->player || strcmp(s->player->pid, q->pid)) {
        hub_busy(s, &q->m.id);
    } else if (q->role != 2) {
        hub_send_error(s, PROTO_NOT_MODERATOR,
                       "only a moderator may do this: the operator grants "
                       "the role",
                       &q->m.id);
    } else if (q->m.type == PROTO_T_MOD_REPORTS) {
        send_queue(s, q);
    } else if (q->m.type == PROTO_T_MOD_MAINTENANCE) {
        do_maintenance(r->h, s, &q->m);
    } else if (q->m.type == PROTO_T_MOD_GAME) {
        hub_run_game_command(s, &q->m, hub_now_ms(r->h), end_game);
    } else if (!q->found) {
        snprintf(msg, sizeof msg, "no account named %s (or with that PID)",
                 q->m.to);
        hub_send_error(s, PROTO_NO_SUCH_PLAYER, msg, &q->m.id);
    } else if (q->m.type == PROTO_T_MOD_PLAYER) {
        send_player(s, q);
    } else if (!strcmp(q->to_pid, q->pid)) {
        hub_send_error(s, PROTO_BAD_FIELD,
                       "to: a moderator may not act on their own account",
                       &q->m.id);
    } else {
        do_action(r->h, s, q);
    }
    hub_session_replay(s);
}

static void mod_command(struct session *s, const struct proto_msg *m,
                        int64_t now)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    struct mod_read *q;

    if (!p->account) {
        hub_send_error(s, PROTO_NOT_MODERATOR,
                       "only a moderator may do this: a guest is none",
                       &m->id);
        return;
    }
    if (!hub_limit_take(h, M(h)->rate, p->pid, now)) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "too many moderation commands; try again in a minute",
                       &m->id);
        return;
    }
    if (!(q = calloc(1, sizeof *q))) {
        hub_busy(s, &m->id);
        return;
    }
    q->r.run = mod_run;
    q->r.answer = mod_answer;
    q->r.clear = mod_clear;
    q->m = *m;
    snprintf(q->pid, sizeof q->pid, "%s", p->pid);
    if (hub_read_submit_for(s, &q->r, &m->id, 0) == 0)
        s->waiting = true; /* (what s sends next waits for its answer) */
}

/* ---- the module ------------------------------------------------------------ */

static void fini(struct hub *h)
{
    struct moderation *m = hub_module_state(h, &hub_moderation_module);

    if (!m)
        return;
    ratelimit_free(m->rate);
    free(m);
    hub_module_set_state(h, &hub_moderation_module, NULL);
}

static int init(struct hub *h)
{
    struct moderation *m = calloc(1, sizeof *m);

    hub_module_set_state(h, &hub_moderation_module, m);
    if (!m)
        return -1;
    m->rate = ratelimit_new(LIMIT_MOD_PER_MIN / 60.0, LIMIT_MOD_BURST,
                            LIMIT_MOD_KEYS);
    if (!m->rate || hub_limit_share(h, "mod_commands", m->rate) < 0) {
        fini(h);
        return -1;
    }
    return 0;
}

static const struct hub_command commands[] = {
    {PROTO_T_MOD_REPORTS, mod_command, false},
    {PROTO_T_MOD_ACTION, mod_command, false},
    {PROTO_T_MOD_MAINTENANCE, mod_command, false},
    {PROTO_T_MOD_PLAYER, mod_command, false},
    {PROTO_T_MOD_CHAT_DELETE, mod_command, true},
    {PROTO_T_MOD_GAME, mod_command, true},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_moderation_module = {
    .name = "moderation",
    .init = init,
    .free = fini,
    .tell_tag = MOD_TELL,
    .told = told,
    .commands = commands,
};
