/*
 * relation.c - blocks and reports between accounts (see relation.h and
 * PROTOCOL.md "Blocks and reports").
 *
 * A block is lila's relation Block: the blocker sees no chat line of the
 * blocked (chat.c asks relation_blocks), neither challenges the other
 * (challenge.c), and the lobby pairs them never (the lobby's apart, and
 * accept: seeks.c). An account holds at most LIMIT_BLOCKS.
 *
 * A report is one of lila's report atoms: its score is lila's
 * ReportScore, simplified (relation_report_score); the moderators' queue
 * (store_report_queue) sums the open atoms of a suspect and reason, as
 * lila's Report sums its atoms, capped at 100, the worst first. A
 * reporter names a player once a day (already_reported after) and at
 * most LIMIT_REPORTS_PER_DAY players a day (rate_limited after): the
 * store's rows of the last day the read found count, and with them this
 * node's reports (struct reporter) whose rows it did not find (a write
 * not committed when it ran): each once, whether or not its write
 * committed while the read ran (count_day).
 *
 * What a client costs. block and report are one read each (the target's
 * account row; a report also reads the reporter's rows of the day, one
 * index range, LIMIT_REPORTS_PER_DAY rows at most) within the
 * connection's read budget, and one write; an unblock one write; blocks
 * nothing but its answer. Writes are LIMIT_RELATION_WRITES_* per account
 * (shared by a cluster's nodes). In memory: the blocks of each account
 * here with its facts (64 bytes each, LIMIT_BLOCKS at most), and the
 * day's reports made here (a reporter's at most LIMIT_REPORTS_PER_DAY,
 * swept after a day).
 */
#include "hub/relation.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "game/lobby.h"
#include "hub/hub_internal.h"
#include "hub/lobbyfeed.h"
#include "hub/reads.h"
#include "lib/log.h"
#include "lib/msgbuf.h"
#include "lib/ratelimit.h"
#include "lib/tunables.h"

/* The tag of this module's tells (module.h): "+PID\tNAME\tAT_MS" (a
 * block) or "-PID" (an unblock) of the told player. */
#define RELATION_TELL 'K'

/* A report made here in the last day (its row: reporter, suspect,
 * at_ms; one a suspect a day), not yet surely seen by a read. */
struct made {
    char suspect[PROTO_KEY_MAX + 1];
    int64_t at_ms; /* wall: its row's */
    uint64_t seq;  /* its write */
};

/* An account that reported here in the last day. */
struct reporter {
    char pid[PROTO_KEY_MAX + 1];
    struct made v[LIMIT_REPORTS_PER_DAY];
    size_t n;
};

/* The lobby's seekers of the last snapshot seen (lobby_filter), those
 * of them who block someone apart: only they, and a watcher who blocks
 * someone, make a watcher's snapshot its own. */
struct seekers {
    struct msgbuf *snap; /* the snapshot (a reference held) */
    char (*pids)[PROTO_KEY_MAX + 1];
    size_t n;
    size_t blockers; /* of them, with blocks here */
};

struct relation {
    struct ratelimit *writes; /* blocks, unblocks, reports per account */
    struct table reporters;   /* pid -> struct reporter */
    struct seekers seekers;   /* lobby_filter's */
};

extern const struct hub_module hub_relation_module; /* (below) */

static struct relation *R(struct hub *h)
{
    struct relation *r = hub_module_state(h, &hub_relation_module);

    assert(r); /* (its init ran) */
    return r;
}

/* lila's ReportScore: a base of 20, plus the reporter's accuracy (its
 * past reports' verdicts: none here yet, no moderators), less 30 for a
 * reporter marked lame or troll (no marks here yet), plus 25 for an
 * automatic report (none); a report of a username is 50. The report's
 * score in the queue is its atoms' sum, within lila's 5-100. */
int relation_report_score(int reason)
{
    return reason == PROTO_REPORT_USERNAME ? 50 : 20;
}

/* ---- the blocks kept with the facts ------------------------------------- */

static int by_pid(const void *a, const void *b)
{
    return strcmp(((const struct store_block *)a)->pid,
                  ((const struct store_block *)b)->pid);
}

static int by_time(const void *a, const void *b)
{
    const struct store_block *x = a, *y = b;

    return x->at_ms < y->at_ms ? -1 : x->at_ms > y->at_ms ? 1 : by_pid(a, b);
}

int hub_relation_read(struct store *st, const char *pid,
                      struct facts_row *row)
{
    struct store_block *v = malloc(LIMIT_BLOCKS * sizeof *v), *w;
    size_t n = 0;

    if (!v || store_list_blocks(st, pid, v, LIMIT_BLOCKS, &n) < 0) {
        free(v);
        return -1;
    }
    qsort(v, n, sizeof *v, by_pid);
    if (n && (w = realloc(v, n * sizeof *v)) != NULL)
        v = w;
    if (!n) {
        free(v);
        v = NULL;
    }
    row->blocks = v;
    row->n_blocks = n;
    row->with_blocks = true;
    return 0;
}

void hub_relation_apply(struct player_facts *f, const struct facts_row *row)
{
    struct store_block *v = NULL;

    if (row->n_blocks && !(v = malloc(row->n_blocks * sizeof *v)))
        return; /* (the old list stays) */
    if (v)
        memcpy(v, row->blocks, row->n_blocks * sizeof *v);
    free(f->blocks);
    f->blocks = v;
    f->n_blocks = row->n_blocks;
}

static struct store_block *find(const struct player_facts *f, const char *pid)
{
    struct store_block key;

    if (!f || !f->n_blocks)
        return NULL;
    snprintf(key.pid, sizeof key.pid, "%s", pid);
    return bsearch(&key, f->blocks, f->n_blocks, sizeof key, by_pid);
}

bool relation_blocks(const struct player *p, const char *pid)
{
    return p && pid && find(p->facts, pid) != NULL;
}

bool relation_apart(struct hub *h, const char *a, const char *b)
{
    return relation_blocks(table_get(&h->players, a), b) ||
           relation_blocks(table_get(&h->players, b), a);
}

char *relation_block_list(const struct player *p)
{
    const struct player_facts *f = p ? p->facts : NULL;
    size_t n = f ? f->n_blocks : 0, at = 0;
    char *out = malloc(n * (PROTO_KEY_MAX + 1) + 1);

    for (size_t i = 0; out && i < n; i++)
        at += (size_t)sprintf(out + at, "%s%s", i ? " " : "",
                              f->blocks[i].pid);
    if (out)
        out[at] = '\0';
    return out;
}

/* The lobby's apart (lobby.h): two seeks whose players are apart never
 * pair. */
static bool lobby_apart(void *ctx, const char *a, const char *b)
{
    return relation_apart(ctx, a, b);
}

static bool hidden(void *ctx, const char *pid)
{
    return relation_blocks(ctx, pid);
}

bool hub_relation_filter(const struct session *s, struct msgbuf *b,
                         struct msgbuf **out)
{
    const struct player *p = s->player;
    char *text;

    *out = NULL;
    if (!p || !p->facts || !p->facts->n_blocks || s->ops != s->hub->local_ops)
        return false;
    switch (proto_chat_filter(b->data, b->len, hidden, (void *)p, &text)) {
    case 1:
        return true;
    case 2:
        *out = msgbuf_take(text); /* (NULL: dropped, out of memory) */
        return true;
    default:
        return false;
    }
}

static void seekers_clear(struct seekers *k)
{
    msgbuf_unref(k->snap);
    free(k->pids);
    memset(k, 0, sizeof *k);
}

static bool collect(void *ctx, const char *pid)
{
    struct seekers *k = ctx;
    char(*v)[PROTO_KEY_MAX + 1] = realloc(k->pids,
                                          (k->n + 1) * sizeof *k->pids);

    if (v && proto_key_valid(pid)) {
        k->pids = v;
        snprintf(k->pids[k->n++], sizeof *k->pids, "%s", pid);
    } else if (v) {
        k->pids = v;
    }
    return false;
}

struct lobby_reader {
    struct hub *h;
    const struct player *p;
};

static bool apart_from(void *ctx, const char *pid)
{
    const struct lobby_reader *r = ctx;

    return relation_apart(r->h, pid, r->p->pid);
}

static struct msgbuf *lobby_filter(void *ctx, const struct session *s,
                                   struct msgbuf *snap, bool *cut)
{
    struct hub *h = ctx;
    struct seekers *k = &R(h)->seekers;
    const struct player *p = s->player;
    struct lobby_reader r = {h, p};
    bool any = false;
    char *text;

    *cut = false;
    if (k->snap != snap) { /* a new snapshot: its seekers, once */
        seekers_clear(k);
        k->snap = msgbuf_ref(snap);
        free(proto_lobby_filter(snap->data, snap->len, collect, k));
        for (size_t i = 0; i < k->n; i++) {
            const struct player *q = table_get(&h->players, k->pids[i]);
            k->blockers += q && q->facts && q->facts->n_blocks;
        }
    }
    if (!p || (!k->blockers && !(p->facts && p->facts->n_blocks)))
        return NULL;
    for (size_t i = 0; i < k->n && !any; i++)
        any = relation_apart(h, k->pids[i], p->pid);
    if (!any)
        return NULL;
    text = proto_lobby_filter(snap->data, snap->len, apart_from, &r);
    *cut = !text;
    return text ? msgbuf_take(text) : NULL;
}

/* Adds (on) or removes pid's block in f. 0, or -1 when out of memory. */
static int edit(struct player_facts *f, bool on, const char *pid,
                const char *name, int64_t at_ms)
{
    struct store_block *b = find(f, pid), *v;

    if (!on) {
        if (b) {
            size_t i = (size_t)(b - f->blocks);
            memmove(b, b + 1, (f->n_blocks - i - 1) * sizeof *b);
            f->n_blocks--;
        }
        return 0;
    }
    if (b)
        return 0;
    if (!(v = realloc(f->blocks, (f->n_blocks + 1) * sizeof *v)))
        return -1;
    f->blocks = v;
    b = &v[f->n_blocks++];
    memset(b, 0, sizeof *b);
    snprintf(b->pid, sizeof b->pid, "%s", pid);
    snprintf(b->name, sizeof b->name, "%s", name);
    b->at_ms = at_ms;
    qsort(v, f->n_blocks, sizeof *v, by_pid);
    return 0;
}

/* The block of f that `to` names: its PID or its name (any case). */
static struct store_block *named(const struct player_facts *f, const char *to)
{
    struct store_block *b = find(f, to);

    for (size_t i = 0; !b && f && i < f->n_blocks; i++)
        if (!strcasecmp(f->blocks[i].name, to))
            b = &f->blocks[i];
    return b;
}

/* s's player's blocks, oldest first. */
static void send_blocks(struct session *s, const struct proto_id *id,
                        uint64_t seq)
{
    const struct player_facts *f = s->player->facts;
    size_t n = f ? f->n_blocks : 0;
    struct store_block *v = n ? malloc(n * sizeof *v) : NULL;
    struct proto_block *out = n ? malloc(n * sizeof *out) : NULL;

    if (n && (!v || !out)) {
        free(v);
        free(out);
        hub_busy(s, id);
        return;
    }
    if (n) { /* (qsort takes no NULL, even of 0 blocks) */
        memcpy(v, f->blocks, n * sizeof *v);
        qsort(v, n, sizeof *v, by_time);
    }
    for (size_t i = 0; i < n; i++)
        out[i] = (struct proto_block){v[i].pid, v[i].name, v[i].at_ms};
    hub_send_text(s, proto_render_blocks(out, n, id), seq);
    free(v);
    free(out);
}

/* p's block of pid changed here (written as seq): its other nodes. */
static void tell_nodes(struct hub *h, const struct player *p, bool on,
                       const struct store_block *b, uint64_t seq)
{
    char payload[128];
    int len = on ? snprintf(payload, sizeof payload, "+%s\t%s\t%lld", b->pid,
                            b->name, (long long)b->at_ms)
                 : snprintf(payload, sizeof payload, "-%s", b->pid);

    h->router.ops->tell(h->router.ctx, p->pid, RELATION_TELL, payload,
                        (size_t)len, seq);
}

static void told(struct hub *h, struct player *p, const char *payload,
                 size_t len, int64_t now)
{
    char buf[128], *pid, *name = "", *at = "0", *tab;

    (void)h;
    (void)now;
    if (!p->facts || len < 2 || len >= sizeof buf)
        return;
    memcpy(buf, payload, len);
    buf[len] = '\0';
    pid = buf + 1;
    if ((tab = strchr(pid, '\t')) != NULL) {
        *tab = '\0';
        name = tab + 1;
        if ((tab = strchr(name, '\t')) != NULL) {
            *tab = '\0';
            at = tab + 1;
        }
    }
    if (proto_key_valid(pid))
        (void)edit(p->facts, buf[0] == '+', pid, name, atoll(at));
}

/* ---- the commands --------------------------------------------------------- */

/* A command's read: the account `to` names, and for a report the
 * reporter's reports of the day (their rows: which of them the read saw,
 * for count_day). */
struct cmd_read {
    struct hub_read r;
    struct proto_msg m;
    char pid[PROTO_KEY_MAX + 1]; /* the asker's */
    int64_t since_ms;            /* report: the day began then */
    int delay_ms;                /* tests only: before the day's query */
    bool found;                  /* `to` is an account: */
    char to_pid[PROTO_KEY_MAX + 1], to_name[PROTO_NAME_MAX + 1];
    /* report: the reporter's rows of the day, to_pid's first, then the
     * newest (at most the limit's: with that many it is reached) */
    struct store_reported day[LIMIT_REPORTS_PER_DAY];
    size_t nday;
};

/* The reporter's rows of the day read into q. 0, or -1. */
static int read_day(struct store *st, struct cmd_read *q)
{
    if (q->delay_ms > 0) { /* (tests only: the reader's, not the loop's) */
        struct timespec ts = {q->delay_ms / 1000,
                              (long)(q->delay_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    return store_reports_by(st, q->pid, q->to_pid, q->since_ms, q->day,
                            LIMIT_REPORTS_PER_DAY, &q->nday);
}

static int cmd_run(struct store *st, struct hub_read *r)
{
    struct cmd_read *q = (struct cmd_read *)r;
    struct store_account a;
    struct store_player p;
    int rc = store_find_account(st, q->m.to, &a);

    if (rc < 0)
        return -1;
    if (rc == 1) {
        snprintf(q->to_pid, sizeof q->to_pid, "%s", a.pid);
        snprintf(q->to_name, sizeof q->to_name, "%s", a.username);
    } else {
        if ((rc = store_find_player(st, q->m.to, &p)) < 0)
            return -1;
        if (rc == 1 && (rc = store_is_account(st, p.pid)) < 0)
            return -1;
        if (rc == 1) {
            snprintf(q->to_pid, sizeof q->to_pid, "%s", p.pid);
            snprintf(q->to_name, sizeof q->to_name, "%s", p.name);
        }
    }
    q->found = rc == 1;
    if (q->found && q->m.type == PROTO_T_REPORT && read_day(st, q) < 0)
        return -1;
    return 0;
}

/* True (answered) when `to` names s's own player. */
static bool own(struct session *s, const struct proto_msg *m, const char *pid)
{
    const struct player *p = s->player;

    if (strcmp(pid, p->pid) && strcasecmp(pid, p->name))
        return false;
    hub_send_error(s, PROTO_BAD_FIELD,
                   m->type == PROTO_T_REPORT
                       ? "to: you cannot report yourself"
                       : "to: you cannot block yourself",
                   &m->id);
    return true;
}

static void do_block(struct hub *h, struct session *s, struct cmd_read *q)
{
    struct player *p = s->player;
    struct store_block b = {0};
    uint64_t seq;

    if (own(s, &q->m, q->to_pid))
        return;
    if (!p->facts || p->facts->n_blocks >= LIMIT_BLOCKS) {
        if (p->facts)
            hub_send_error(s, PROTO_TOO_MANY_BLOCKS,
                           "an account blocks at most 500 players: unblock "
                           "one first",
                           &q->m.id);
        else
            hub_busy(s, &q->m.id);
        return;
    }
    if (find(p->facts, q->to_pid)) { /* (already: nothing to write) */
        send_blocks(s, &q->m.id, 0);
        return;
    }
    snprintf(b.pid, sizeof b.pid, "%s", q->to_pid);
    snprintf(b.name, sizeof b.name, "%s", q->to_name);
    b.at_ms = hub_wall_ms(h);
    if (!(seq = store_put_block(h->store, p->pid, b.pid, true, b.at_ms)) ||
        edit(p->facts, true, b.pid, b.name, b.at_ms) < 0) {
        hub_busy(s, &q->m.id);
        return;
    }
    tell_nodes(h, p, true, &b, seq);
    send_blocks(s, &q->m.id, seq);
    log_info("event=block player=%s blocked=%s", p->pid, b.pid);
}

/* True when m's row is among the rows q's read found. */
static bool row_found(const struct cmd_read *q, const struct made *m)
{
    for (size_t i = 0; i < q->nday; i++)
        if (q->day[i].at_ms == m->at_ms &&
            !strcmp(q->day[i].suspect, m->suspect))
            return true;
    return false;
}

/* The reporter's day: the rows q's read found, and its reports made here
 * whose rows the read did not find, into *total and *of_suspect (of
 * them, q->to_pid's). A read sees every write up to its `seen` and maybe
 * later ones, so a report written after `seen` may be among the rows or
 * not: only the rows tell, and it counts once either way. One written by
 * `seen` is among them, unless the read stopped at its bound (the limit
 * reached then anyway). */
static void count_day(struct hub *h, const struct cmd_read *q, int *total,
                      int *of_suspect)
{
    struct reporter *rp = table_get(&R(h)->reporters, q->pid);

    *total = (int)q->nday;
    *of_suspect = 0;
    for (size_t i = 0; i < q->nday; i++)
        *of_suspect += !strcmp(q->day[i].suspect, q->to_pid);
    for (size_t i = 0; rp && i < rp->n; i++) {
        const struct made *m = &rp->v[i];
        if (m->seq <= q->r.seen || m->at_ms < q->since_ms || row_found(q, m))
            continue;
        (*total)++;
        *of_suspect += !strcmp(m->suspect, q->to_pid);
    }
}

/* Remembers a report made here (a day's worth). */
static void remember(struct hub *h, const char *reporter, const char *suspect,
                     int64_t at_ms, uint64_t seq)
{
    struct relation *r = R(h);
    struct reporter *rp = table_get(&r->reporters, reporter);

    if (!rp) {
        if (!(rp = calloc(1, sizeof *rp)))
            return;
        snprintf(rp->pid, sizeof rp->pid, "%s", reporter);
        if (table_put(&r->reporters, rp->pid, rp) < 0) {
            free(rp);
            return;
        }
    }
    if (rp->n == LIMIT_REPORTS_PER_DAY) { /* (the oldest goes) */
        memmove(rp->v, rp->v + 1, (rp->n - 1) * sizeof *rp->v);
        rp->n--;
    }
    snprintf(rp->v[rp->n].suspect, sizeof rp->v[rp->n].suspect, "%s",
             suspect);
    rp->v[rp->n].at_ms = at_ms;
    rp->v[rp->n++].seq = seq;
}

static void do_report(struct hub *h, struct session *s, struct cmd_read *q)
{
    struct player *p = s->player;
    struct store_report row = {0};
    const char *reason = proto_report_reason_name(q->m.reason);
    char msg[PROTO_MSG_MAX];
    int total, of_suspect;
    uint64_t seq;

    if (own(s, &q->m, q->to_pid))
        return;
    count_day(h, q, &total, &of_suspect);
    if (of_suspect) {
        snprintf(msg, sizeof msg,
                 "you reported %s less than a day ago: a player may be "
                 "reported once a day",
                 q->to_name);
        hub_send_error(s, PROTO_ALREADY_REPORTED, msg, &q->m.id);
        return;
    }
    if (total >= LIMIT_REPORTS_PER_DAY) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "you made 20 reports in the last day: the most there "
                       "may be",
                       &q->m.id);
        return;
    }
    snprintf(row.reporter, sizeof row.reporter, "%s", p->pid);
    snprintf(row.suspect, sizeof row.suspect, "%s", q->to_pid);
    snprintf(row.reason, sizeof row.reason, "%s", reason);
    snprintf(row.text, sizeof row.text, "%s", q->m.text);
    row.score = relation_report_score(q->m.reason);
    row.at_ms = hub_wall_ms(h);
    if (!(seq = store_put_report(h->store, &row))) {
        hub_busy(s, &q->m.id);
        return;
    }
    remember(h, p->pid, q->to_pid, row.at_ms, seq);
    hub_send_text(
        s, proto_render_reported(q->to_pid, q->to_name, reason, &q->m.id),
        seq);
    log_info("event=report reporter=%s suspect=%s reason=%s score=%d", p->pid,
             q->to_pid, reason, row.score);
}

/* The read answered: the command goes on, for the same account. */
static void cmd_answer(struct hub_read *r, int rc)
{
    struct cmd_read *q = (struct cmd_read *)r;
    struct session *s = r->who;
    char msg[PROTO_MSG_MAX];

    s->waiting = false;
    if (rc < 0 || !s->player || !s->player->account ||
        strcmp(s->player->pid, q->pid)) {
        hub_busy(s, &q->m.id);
    } else if (!q->found) {
        snprintf(msg, sizeof msg, "no account named %s (or with that PID)",
                 q->m.to);
        hub_send_error(s, PROTO_NO_SUCH_PLAYER, msg, &q->m.id);
    } else if (q->m.type == PROTO_T_BLOCK) {
        do_block(r->h, s, q);
    } else {
        do_report(r->h, s, q);
    }
    hub_session_replay(s);
}

static void do_unblock(struct session *s, const struct proto_msg *m)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    struct store_block *b = named(p->facts, m->to), was;
    char msg[PROTO_MSG_MAX];
    uint64_t seq;

    if (!b) {
        snprintf(msg, sizeof msg, "you have not blocked %s", m->to);
        hub_send_error(s, PROTO_NO_SUCH_PLAYER, msg, &m->id);
        return;
    }
    was = *b;
    if (!(seq = store_put_block(h->store, p->pid, was.pid, false, 0))) {
        hub_busy(s, &m->id);
        return;
    }
    (void)edit(p->facts, false, was.pid, NULL, 0);
    tell_nodes(h, p, false, &was, seq);
    send_blocks(s, &m->id, seq);
    log_info("event=unblock player=%s blocked=%s", p->pid, was.pid);
}

static void relation_command(struct session *s, const struct proto_msg *m,
                             int64_t now)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    struct cmd_read *q;

    if (!p->account) {
        hub_send_error(
            s, PROTO_NEEDS_ACCOUNT,
            m->type == PROTO_T_REPORT
                ? "reports are made by accounts: register or log in"
                : "blocks belong to accounts: register or log in",
            &m->id);
        return;
    }
    /* (the blocks read with the facts, and in a cluster fresh) */
    if (!hub_facts_want(s, m, NULL, 0, hub_facts_since(h, false, now)))
        return;
    if (m->type == PROTO_T_BLOCKS) {
        send_blocks(s, &m->id, 0);
        return;
    }
    if (own(s, m, m->to))
        return;
    if (!hub_limit_take(h, R(h)->writes, p->pid, now)) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "too many blocks and reports; try again in a minute",
                       &m->id);
        return;
    }
    if (m->type == PROTO_T_UNBLOCK) {
        do_unblock(s, m);
        return;
    }
    if (!(q = calloc(1, sizeof *q))) {
        hub_busy(s, &m->id);
        return;
    }
    q->r.run = cmd_run;
    q->r.answer = cmd_answer;
    q->m = *m;
    q->since_ms = hub_wall_ms(h) - LIMIT_REPORT_WINDOW_MS;
    if (m->type == PROTO_T_REPORT)
        q->delay_ms = h->cfg.report_count_delay_ms;
    snprintf(q->pid, sizeof q->pid, "%s", p->pid);
    if (hub_read_submit_for(s, &q->r, &m->id, 0) == 0)
        s->waiting = true; /* (what s sends next waits for its answer) */
}

/* ---- the module ------------------------------------------------------------ */

/* Forgets the reports made here more than a day ago. */
static void sweep(struct hub *h, int64_t now)
{
    struct table *t = &R(h)->reporters;
    int64_t since = hub_wall_ms(h) - LIMIT_REPORT_WINDOW_MS;

    (void)now;
    for (size_t i = 0; i < t->cap; i++) {
        struct reporter *rp = t->slots[i].value;
        size_t k = 0;
        if (!rp)
            continue;
        while (k < rp->n && rp->v[k].at_ms < since)
            k++;
        memmove(rp->v, rp->v + k, (rp->n - k) * sizeof *rp->v);
        rp->n -= k;
        if (!rp->n)
            free(table_del(t, rp->pid));
    }
}

static void fini(struct hub *h)
{
    struct relation *r = hub_module_state(h, &hub_relation_module);

    if (!r)
        return;
    lobby_set_apart(h->lobby, NULL, NULL);
    lobbyfeed_set_filter(h->feed, NULL, NULL);
    seekers_clear(&r->seekers);
    for (size_t i = 0; i < r->reporters.cap; i++)
        free(r->reporters.slots[i].value);
    table_clear(&r->reporters);
    ratelimit_free(r->writes);
    free(r);
    hub_module_set_state(h, &hub_relation_module, NULL);
}

static int init(struct hub *h)
{
    struct relation *r = calloc(1, sizeof *r);

    hub_module_set_state(h, &hub_relation_module, r);
    if (!r)
        return -1;
    table_init(&r->reporters);
    r->writes = ratelimit_new(LIMIT_RELATION_WRITES_PER_MIN / 60.0,
                              LIMIT_RELATION_WRITES_BURST,
                              LIMIT_RELATION_KEYS);
    if (!r->writes || hub_limit_share(h, "relation_writes", r->writes) < 0) {
        fini(h);
        return -1;
    }
    lobby_set_apart(h->lobby, lobby_apart, h);
    lobbyfeed_set_filter(h->feed, lobby_filter, h);
    return 0;
}

static const struct hub_command commands[] = {
    {PROTO_T_BLOCK, relation_command, false},
    {PROTO_T_UNBLOCK, relation_command, false},
    {PROTO_T_BLOCKS, relation_command, false},
    {PROTO_T_REPORT, relation_command, false},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_relation_module = {
    .name = "relation",
    .init = init,
    .free = fini,
    .sweep = sweep,
    .tell_tag = RELATION_TELL,
    .told = told,
    .commands = commands,
};
