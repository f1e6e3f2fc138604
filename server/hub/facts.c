/*
 * facts.c - what the hub reads about a player from the store, kept with
 * its record (struct player_facts): whether it is an account, its name,
 * its ratings and, in a cluster, its live games on every node. Read off
 * the loop (reads.h) when a record lacks them: with hello's and login's
 * own read, for the seats of a restored or adopted game, and for the
 * commands that start a game, which need both players' (a rating to
 * show and to start from, the live games to count). Such a command runs
 * again once they are read (hub_facts_want): every check is made again
 * on the state of then, never on a state kept from before the read.
 *
 * A node alone writes every rating and account there is, and keeps the
 * facts of its players current as it writes (hub_facts_rated); in a
 * cluster other nodes do too, so a command reads them again when they
 * are older than LIMIT_FACTS_FRESH_MS. The ratings a rated game's end
 * starts from are the seats' facts overlaid by the rows of this node's
 * ends not committed yet (ratings.c).
 */
#include "hub/hub_internal.h"

#include <assert.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/reads.h"
#include "lib/log.h"
#include "lib/tunables.h"

/* ---- the reader's side ------------------------------------------------- */

void hub_facts_read(struct store *st, const char *pid, size_t max_live,
                    struct facts_row *row)
{
    struct store_player sp;
    struct store_account_marks marks;
    size_t n = 0;
    int rc;

    if (pid != row->pid) /* (a job's row names its player already) */
        snprintf(row->pid, sizeof row->pid, "%s", pid);
    row->rc = -1;
    row->blocks = NULL;
    row->n_blocks = 0;
    row->with_blocks = false;
    rc = store_find_player(st, pid, &sp);
    if (rc < 0)
        return;
    row->known = rc == 1;
    if (row->known)
        snprintf(row->name, sizeof row->name, "%s", sp.name);
    rc = store_account_role(st, pid, &marks);
    row->chat_muted_until = marks.chat_muted_until;
    row->engine = marks.engine;
    row->closed = marks.closed;
    if (rc < 0 || store_player_ratings(st, pid, row->ratings,
                                       RATING_CATEGORIES, &n) < 0)
        return;
    row->account = rc >= 1;
    row->moderator = rc == 2;
    row->n_ratings = n;
    row->bot = false;
    row->account_ms = 0;
    if (row->account) { /* (its name is its username) */
        struct store_account a;
        if ((rc = store_find_account(st, sp.name, &a)) < 0)
            return;
        row->bot = rc == 1 && a.bot;
        if (rc == 1)
            row->account_ms = a.created_ms;
    }
    if (row->account && hub_playban_read(st, pid, &row->playban) < 0)
        return;
    if (max_live) { /* (a cluster's: every node's live games) */
        row->live = malloc(max_live * sizeof *row->live);
        if (!row->live || store_player_live_games(st, pid, row->live,
                                                  max_live, &row->n_live) < 0)
            return;
        row->with_live = true;
    }
    if (row->account && hub_relation_read(st, pid, row) < 0)
        return;
    row->rc = 0;
}

void hub_facts_row_clear(struct facts_row *row)
{
    free(row->live);
    row->live = NULL;
    free(row->blocks);
    row->blocks = NULL;
}

/* ---- the loop's side --------------------------------------------------- */

size_t hub_facts_max_live(struct hub *h)
{
    /* (a node alone has every live game in memory: none to read) */
    return h->router.ops->shared_store(h->router.ctx)
               ? (size_t)h->cfg.max_games_per_player + 8
               : 0;
}

/* The facts' clock (hub_facts_since, player_facts.at): microseconds on
 * the monotonic clock, read when asked, not the loop's cached
 * millisecond: a read asked earlier in the same millisecond as a command
 * (before what the command's client saw had committed) must not pass for
 * one asked after it. */
static int64_t facts_clock(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void hub_facts_apply(struct hub *h, struct player *p,
                     const struct facts_row *row)
{
    struct player_facts *f = p->facts;

    (void)h;
    assert(row->rc == 0 && !strcmp(row->pid, p->pid));
    if (!f && !(f = p->facts = calloc(1, sizeof *f)))
        return;
    f->at = facts_clock();
    for (int c = 0; c < RATING_CATEGORIES; c++) {
        const char *cat = rating_category_name((enum rating_category)c);
        for (size_t i = 0; i < row->n_ratings; i++) {
            const struct store_rating *r = &row->ratings[i];
            /* a row of this node's newer than the read (an end it wrote
             * while the read was on its way) stays: a rating only gains
             * games */
            if (!strcmp(r->category, cat) &&
                (!f->has[c] || r->games >= f->ratings[c].games)) {
                f->ratings[c] = *r;
                f->has[c] = true;
            }
        }
    }
    free(f->live);
    f->live = NULL;
    f->n_live = 0;
    f->with_live = false;
    if (row->with_live && row->n_live &&
        (f->live = malloc(row->n_live * sizeof *f->live))) {
        memcpy(f->live, row->live, row->n_live * sizeof *f->live);
        f->n_live = row->n_live;
    }
    f->with_live = row->with_live && (f->live || !row->n_live);
    if (row->with_blocks)
        hub_relation_apply(f, row);
    if (row->account)
        p->account = true;
    f->bot = f->bot || row->bot; /* (irreversible: a read never unsets it) */
    f->moderator = row->moderator;
    f->chat_muted_until = row->chat_muted_until;
    f->engine = row->engine;
    f->closed = row->closed;
    if (row->account_ms) /* (a read before its register committed: 0) */
        f->account_ms = row->account_ms;
    /* a record only gains versions: one of this node's newer than the
     * read (an end it wrote meanwhile) stays */
    if (row->playban.version >= f->playban.version)
        f->playban = row->playban;
    /* a record nobody speaks for (a seat, a pin) takes the stored name */
    if (row->known && !hub_player_present(p))
        snprintf(p->name, sizeof p->name, "%s", row->name);
}

void hub_facts_new_player(struct hub *h, struct player *p)
{
    struct facts_row row;

    memset(&row, 0, sizeof row);
    snprintf(row.pid, sizeof row.pid, "%s", p->pid);
    row.with_live = hub_facts_max_live(h) > 0; /* (none: it is new) */
    hub_facts_apply(h, p, &row);
}

void hub_facts_game_gone(struct player *p, const char *gid)
{
    struct player_facts *f = p->facts;

    for (size_t i = 0; f && i < f->n_live; i++)
        if (!strcmp(f->live[i], gid)) {
            memmove(&f->live[i], &f->live[i + 1],
                    (f->n_live - i - 1) * sizeof *f->live);
            f->n_live--;
            return;
        }
}

void hub_facts_free(struct player *p)
{
    if (p->facts) {
        free(p->facts->live);
        free(p->facts->blocks);
    }
    free(p->facts);
    p->facts = NULL;
}

bool hub_facts_fresh(struct hub *h, const struct player *p, int64_t since)
{
    if (!p || !p->facts)
        return false;
    if (!h->router.ops->shared_store(h->router.ctx))
        return true; /* every change is this node's, and kept */
    return p->facts->with_live && p->facts->at >= since;
}

int64_t hub_facts_since(struct hub *h, bool rated, int64_t now)
{
    /* a start reads the ratings it starts from and the live games it
     * counts (another node may have ended one a moment ago: the caps
     * would refuse, or a rated end be missed), once: a command run
     * again after its read asks since it first asked */
    (void)rated; /* (both, so far: the caps as the ratings) */
    (void)now;   /* (the facts' own, finer clock) */
    return h->rerun_since ? h->rerun_since : facts_clock();
}

void hub_facts_rated(struct hub *h, const struct store_rating *r)
{
    struct player *p = table_get(&h->players, r->pid);
    enum rating_category c;

    if (!p || !p->facts || !rating_category_parse(r->category, &c))
        return;
    p->facts->ratings[c] = *r;
    p->facts->has[c] = true;
}

/* ---- reading them ------------------------------------------------------ */

/* One read of the facts of up to two players, and what then: m run
 * again for the session that sent it (want), or cb (then), or nothing
 * but the facts kept (background). The players' records are pinned
 * while it is in flight, so the facts have a record to go to. */
struct facts_job {
    struct hub_read r;
    size_t n, max_live;
    struct facts_row rows[2];
    /* want: the message to run again (its text: a command may be
     * forwarded from there) */
    struct proto_msg m;
    char *text;
    size_t len;
    bool rerun;
    int64_t since; /* what it asked (hub_facts_since): its rerun's */
    int64_t asked; /* facts_clock when it was asked: its facts' at */
    /* then */
    void (*cb)(struct hub *h, void *who, void *arg, bool ok);
    void *arg;
};

static int facts_run(struct store *st, struct hub_read *r)
{
    struct facts_job *j = (struct facts_job *)r;
    int rc = 0;

    for (size_t i = 0; i < j->n; i++) {
        hub_facts_read(st, j->rows[i].pid, j->max_live, &j->rows[i]);
        if (j->rows[i].rc < 0)
            rc = -1;
    }
    return rc;
}

static void facts_clear(struct hub_read *r)
{
    struct facts_job *j = (struct facts_job *)r;

    for (size_t i = 0; i < j->n; i++)
        hub_facts_row_clear(&j->rows[i]);
    free(j->text);
}

/* The records of j's players: unpinned, and freed if nothing else
 * holds them. */
static void unpin(struct hub *h, struct facts_job *j)
{
    for (size_t i = 0; i < j->n; i++) {
        struct player *p = table_get(&h->players, j->rows[i].pid);
        if (p) {
            assert(p->pins > 0);
            p->pins--;
            hub_player_release(h, p);
        }
    }
}

static void linger(struct hub *h, struct facts_job *j, bool read);

static void facts_answer(struct hub_read *r, int rc)
{
    struct facts_job *j = (struct facts_job *)r;
    struct hub *h = r->h;

    for (size_t i = 0; i < j->n; i++) {
        struct player *p = table_get(&h->players, j->rows[i].pid);
        if (p)
            p->facts_loading = false;
        if (p && rc == 0) {
            hub_facts_apply(h, p, &j->rows[i]);
            /* (as of when the read was asked: it may have begun before
             * a commit that was seen before its answer) */
            if (p->facts)
                p->facts->at = j->asked;
            hub_facts_reshow(h, p);
        }
    }
    if (rc < 0)
        log_warn("event=player_facts_unread players=%zu why=%s", j->n,
                 r->sr.end == STORE_READ_LATE ? "late" : "database");
    if (j->rerun) {
        struct session *s = r->who;
        s->waiting = false; /* (the command runs on: no longer held) */
        if (rc < 0) {
            hub_busy(s, &j->m.id);
        } else { /* (its facts are read since it asked: no second read) */
            h->rerun_since = j->since;
            hub_redispatch(s, &j->m, j->text, j->len, hub_now_ms(h));
            h->rerun_since = 0;
        }
        if (!s->waiting) /* (unless it waits again) */
            hub_session_replay(s);
    } else if (j->cb) {
        j->cb(h, r->who, j->arg, rc == 0);
    }
    linger(h, j, rc == 0);
}

/* The facts of pids[0..n) not read since `since`, into a new job (NULL
 * when all are, or out of memory: *oom). */
static struct facts_job *job_for(struct hub *h, const char *const *pids,
                                 size_t n, int64_t since, bool *oom)
{
    struct facts_job *j = NULL;

    *oom = false;
    assert(n <= 2);
    for (size_t i = 0; i < n; i++) {
        struct player *p;
        if (!pids[i] || !pids[i][0])
            continue;
        p = table_get(&h->players, pids[i]);
        if (hub_facts_fresh(h, p, since))
            continue;
        if (j && !strcmp(j->rows[0].pid, pids[i]))
            continue; /* (the same player twice) */
        if (!j && !(j = calloc(1, sizeof *j))) {
            *oom = true;
            return NULL;
        }
        snprintf(j->rows[j->n++].pid, sizeof j->rows[0].pid, "%s", pids[i]);
    }
    if (j) {
        j->r.run = facts_run;
        j->r.answer = facts_answer;
        j->r.clear = facts_clear;
        j->max_live = hub_facts_max_live(h);
        j->since = since;
        j->asked = facts_clock();
    }
    return j;
}

/* The records of j's players stay a while (LIMIT_FACTS_FRESH_MS) with
 * the facts read (read: a command that runs on after another round trip,
 * a cluster's accept, finds them), or go as unpin does. The job's pin
 * becomes the linger's (one a record); hub_facts_sweep lets them go. */
static void linger(struct hub *h, struct facts_job *j, bool read)
{
    int64_t until = hub_now_ms(h) + LIMIT_FACTS_FRESH_MS;

    if (!read) {
        unpin(h, j);
        return;
    }
    for (size_t i = 0; i < j->n; i++) {
        struct player *p = table_get(&h->players, j->rows[i].pid);
        if (!p)
            continue;
        assert(p->pins > 0);
        if (p->linger_until) /* (pinned for a linger already) */
            p->pins--;
        p->linger_until = until;
    }
}

/* Pins the records of j's players (created when missing: the facts need
 * a record to go to). -1 when out of memory (nothing pinned). */
static int pin(struct hub *h, struct facts_job *j)
{
    for (size_t i = 0; i < j->n; i++) {
        struct player *p = hub_player_get(h, j->rows[i].pid, "?");
        if (!p) {
            j->n = i;
            unpin(h, j);
            return -1;
        }
        p->pins++;
    }
    return 0;
}

/* j submitted as a read of s's (s NULL: owner's): 0, or -1 (j freed,
 * nothing pinned; s answered when it was for s). */
static int submit(struct hub *h, struct facts_job *j, struct session *s,
                  const struct proto_id *id, struct hub_reads *owner,
                  void *who)
{
    if (pin(h, j) < 0) {
        facts_clear(&j->r);
        free(j);
        if (s)
            hub_busy(s, id);
        return -1;
    }
    /* (on a refusal the job is freed: unpin first, from a copy) */
    {
        char pids[2][PROTO_KEY_MAX + 1];
        size_t n = j->n;
        int rc;
        for (size_t i = 0; i < n; i++)
            memcpy(pids[i], j->rows[i].pid, sizeof pids[i]);
        rc = s ? hub_read_submit_for(s, &j->r, id, 0)
               : hub_read_submit(h, &j->r, owner, who);
        if (rc < 0)
            for (size_t i = 0; i < n; i++) {
                struct player *p = table_get(&h->players, pids[i]);
                if (p) {
                    p->pins--;
                    hub_player_release(h, p);
                }
            }
        return rc;
    }
}

bool hub_facts_want(struct session *s, const struct proto_msg *m,
                    const char *const *pids, size_t n, int64_t since)
{
    struct hub *h = s->hub;
    const char *all[2] = {s->player ? s->player->pid : NULL,
                          n ? pids[0] : NULL};
    bool oom;
    struct facts_job *j;

    assert(n <= 1); /* (s's player and one other) */
    j = job_for(h, all, 2, since, &oom);

    if (!j) {
        if (oom)
            hub_busy(s, &m->id);
        return !oom;
    }
    j->rerun = true;
    j->m = *m;
    if (h->cur_text && !(j->text = malloc(h->cur_len + 1))) {
        free(j);
        hub_busy(s, &m->id);
        return false;
    }
    if (j->text) {
        memcpy(j->text, h->cur_text, h->cur_len);
        j->text[h->cur_len] = '\0';
        j->len = h->cur_len;
    }
    if (submit(h, j, s, &m->id, NULL, NULL) == 0)
        s->waiting = true; /* (what s sends next waits for the rerun) */
    return false;
}

int hub_facts_then(struct hub *h, const char *const *pids, size_t n,
                   int64_t since, struct hub_reads *owner, void *who,
                   void (*cb)(struct hub *h, void *who, void *arg, bool ok),
                   void *arg)
{
    bool oom;
    struct facts_job *j = job_for(h, pids, n, since, &oom);

    if (!j)
        return oom ? -1 : 1;
    j->cb = cb;
    j->arg = arg;
    j->r.always = true; /* (cb frees arg: who NULL if the owner went) */
    return submit(h, j, NULL, NULL, owner, who);
}

void hub_facts_background(struct hub *h, const char *pid)
{
    const char *pids[1] = {pid};
    bool oom;
    struct facts_job *j;
    struct player *p = table_get(&h->players, pid);

    if ((p && p->facts_loading) || h->restoring)
        return; /* (one is on its way; or the sweep reads it later) */
    if (!(j = job_for(h, pids, 1, hub_facts_since(h, false, hub_now_ms(h)),
                      &oom)))
        return;
    if (submit(h, j, NULL, NULL, NULL, NULL) == 0 &&
        (p = table_get(&h->players, pid)))
        p->facts_loading = true;
}

void hub_facts_sweep(struct hub *h)
{
    int64_t now = hub_now_ms(h);

    for (size_t i = 0; i < h->players.cap; i++) {
        struct player *p = h->players.slots[i].value;
        if (p && p->linger_until && now >= p->linger_until) {
            p->linger_until = 0;
            p->pins--;
            hub_player_release(h, p); /* (a tombstone: the slots stay) */
            continue;
        }
        if (p && p->ngames && !p->facts && !p->facts_loading)
            hub_facts_background(h, p->pid);
    }
}

int hub_facts_now(struct hub *h, struct player *p)
{
    struct facts_row row;

    memset(&row, 0, sizeof row);
    hub_facts_read(h->store, p->pid, hub_facts_max_live(h), &row);
    if (row.rc == 0)
        hub_facts_apply(h, p, &row);
    hub_facts_row_clear(&row);
    return row.rc;
}
