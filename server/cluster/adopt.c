/*
 * adopt.c - adoption: a game nobody hosts is taken here (in Redis, then its
 * epoch in the store), restored from the store, and the commands that
 * waited for it run; commands sent again while another node adopts it (cluster.h, cluster_internal.h).
 */
#include "cluster/cluster_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "lib/log.h"

/* ---- adoption ---------------------------------------------------------- */

void adopt_pending_free(struct pending *p)
{
    while (p) {
        struct pending *n = p->next;
        free(p);
        p = n;
    }
}

static struct pending *pending_of(struct fwd *f)
{
    struct pending *p = malloc(sizeof *p + f->len + 1);

    if (!p)
        return NULL;
    p->next = NULL;
    p->sid = f->sid;
    p->kind = f->kind;
    p->len = f->len;
    memcpy(p->text, f->text, f->len + 1);
    return p;
}

static void adoption_free(struct cluster *c, struct adoption *a)
{
    table_del(&c->adopting, a->gid);
    adopt_pending_free(a->head);
    free(a);
}

/* An adoption given up: the commands that waited for it are refused
 * busy (the client tries again), and it is freed. */
static void adoption_refuse(struct cluster *c, struct adoption *a)
{
    for (struct pending *p = a->head; p; p = p->next) {
        TRACE_CMD(c, "adopt_refused", a->gid, NULL, p->sid, p->text, p->len,
                  NULL);
        edge_busy(c, p->sid, p->kind, p->text, p->len);
    }
    adoption_free(c, a);
}

static void retry_later(struct cluster *c, struct fwd *f)
{
    struct retry *r, **pp;

    TRACE_CMD(c, "edge_retry", f->gid, NULL, f->sid, f->text, f->len,
              "tries=%d", f->tries + 1);
    if (++f->tries > CLUSTER_RETRIES || !(r = malloc(sizeof *r))) {
        edge_busy(c, f->sid, f->kind, f->text, f->len);
        free(f);
        return;
    }
    r->f = f;
    r->at = cluster_now(c) + CLUSTER_RETRY_MS;
    r->next = NULL;
    for (pp = &c->retries; *pp; pp = &(*pp)->next)
        ;
    *pp = r;
    hub_alarm_arm(c->h, c->retry_alarm, c->retries->at);
}

void adopt_on_retry(void *arg)
{
    struct cluster *c = arg;
    int64_t now = cluster_now(c);

    while (c->retries && c->retries->at <= now) {
        struct retry *r = c->retries;
        c->retries = r->next;
        edge_send(c, r->f);
        free(r);
    }
    if (c->retries)
        hub_alarm_arm(c->h, c->retry_alarm, c->retries->at);
}

/* The pending commands of a adoption that failed go to the game's other
 * host again (again: another node took the game). */
static void adoption_resend(struct cluster *c, struct adoption *a)
{
    for (struct pending *p = a->head; p; p = p->next) {
        struct session *s = cluster_local_session(c, p->sid);
        struct fwd *f;
        TRACE_CMD(c, "adopt_resend", a->gid, NULL, p->sid, p->text, p->len,
                  "session=%d", s != NULL);
        if (!s)
            continue;
        f = edge_fwd_new(c, s, a->gid, p->kind, p->text, p->len);
        if (f)
            retry_later(c, f);
        else
            edge_busy(c, p->sid, p->kind, p->text, p->len);
    }
}

static void adoption_run_here(struct cluster *c, struct adoption *a)
{
    for (struct pending *p = a->head; p; p = p->next)
        if (p->kind == CODEC_COMMAND)
            edge_run_here(c, p->sid, p->text, p->len);
        else
            TRACE_CMD(c, "adopt_pending_dropped", a->gid, NULL, p->sid, NULL,
                      0, "kind=%d", (int)p->kind);
}

/* A read of the cluster's about one game (its epoch; its row and
 * journal; a page of live games), answered on the loop: the adoption or
 * the command it is for is looked up again by its GID then (it may have
 * gone: cluster.c frees them), never kept by pointer. */
struct game_read {
    struct hub_read r;
    char gid[PROTO_KEY_MAX + 1];
    int epoch_rc;
    int64_t epoch;
    int rc;
    struct store_game row;
    struct store_move *moves;
    size_t n;
    struct fwd *f; /* adopt_no_host's command (owned) */
};

static void game_read_clear(struct hub_read *r)
{
    struct game_read *q = (struct game_read *)r;

    free(q->moves);
    free(q->f);
}

static struct game_read *
game_read_new(const char *gid, int (*run)(struct store *, struct hub_read *),
              void (*answer)(struct hub_read *, int))
{
    struct game_read *q = calloc(1, sizeof *q);

    if (!q)
        return NULL;
    q->r.run = run;
    q->r.answer = answer;
    q->r.clear = game_read_clear;
    snprintf(q->gid, sizeof q->gid, "%s", gid);
    return q;
}

/* The adoption of gid at stage (NULL: gone, or at another step). */
static struct adoption *adoption_at(struct cluster *c, const char *gid,
                                    enum adopt_stage stage)
{
    struct adoption *a = table_get(&c->adopting, gid);

    return a && a->stage == stage ? a : NULL;
}

static int floor_run(struct store *st, struct hub_read *r)
{
    struct game_read *q = (struct game_read *)r;

    return store_get_epoch(st, q->gid, &q->epoch);
}

static void on_taken(void *arg, const struct bus_value *v, const char *err);

/* The store's epoch of the game (0 when unread: Redis's counter then
 * decides, and a stale take is fenced by the store anyway): the take. */
static void floor_answer(struct hub_read *r, int rc)
{
    struct game_read *q = (struct game_read *)r;
    struct cluster *c = r->who;
    struct adoption *a = adoption_at(c, q->gid, ADOPT_FLOOR);

    if (!a)
        return;
    a->stage = ADOPT_TAKE;
    if (cluster_take(c, a->gid, rc < 0 ? 0 : q->epoch,
                     a->from[0] ? a->from : NULL, on_taken, a) < 0)
        adoption_refuse(c, a);
}

/* Reads a's floor (the first step of an adoption without an epoch). 0,
 * or -1 (the queue full, out of memory). */
static int floor_read(struct cluster *c, struct adoption *a)
{
    struct game_read *q = game_read_new(a->gid, floor_run, floor_answer);

    return q ? hub_read_submit(c->h, &q->r, &c->reads, c) : -1;
}

/* Adopts gid: with epoch 0, takes it in Redis first (it has no live
 * host); with an epoch (a handover), the lease is already this node's.
 * seen_ms: when the previous host was last alive (wall), or 0. p (taken)
 * waits for the adoption. */
/* adopt_game, the game listed in from's set of games (NULL: none). */
static void adopt(struct cluster *c, const char *gid, int64_t epoch,
                  int64_t seen_ms, struct pending *p, const char *from)
{
    struct adoption *a = table_get(&c->adopting, gid);

    if (a) {
        if (p)
            TRACE_CMD(c, "adopt_pending", gid, NULL, p->sid, p->text, p->len,
                      "stage=%d handover=%d", (int)a->stage,
                      (int)a->handover);
        if (p) {
            if (a->tail)
                a->tail->next = p;
            else
                a->head = p;
            a->tail = p;
        }
        return;
    }
    a = calloc(1, sizeof *a);
    if (a)
        snprintf(a->gid, sizeof a->gid, "%s", gid);
    if (!a || table_put(&c->adopting, a->gid, a) < 0) {
        free(a);
        if (p)
            edge_busy(c, p->sid, p->kind, p->text, p->len);
        free(p);
        return;
    }
    a->c = c;
    a->head = a->tail = p;
    a->seen_ms = seen_ms;
    TRACE_CMD(c, "adopt_start", gid, NULL, p ? p->sid : 0, p ? p->text : NULL,
              p ? p->len : 0, "epoch=%lld from=%s", (long long)epoch,
              from && from[0] ? from : "-");
    if (epoch > 0) {
        a->handover = true;
        a->epoch = epoch;
        a->seq = store_take_epoch(c->store, gid, epoch);
        a->stage = ADOPT_EPOCH;
        if (!a->seq) {
            log_warn("event=cluster_adopt_failed game=%s why=store_full",
                     gid);
            c->m.take_failed[1]++;
            adoption_refuse(c, a);
        }
        return;
    }
    a->stage = ADOPT_FLOOR;
    snprintf(a->from, sizeof a->from, "%s", from ? from : "");
    if (floor_read(c, a) < 0)
        adoption_refuse(c, a);
}

void adopt_game(struct cluster *c, const char *gid, int64_t epoch,
                int64_t seen_ms, struct pending *p)
{
    adopt(c, gid, epoch, seen_ms, p, NULL);
}

void adopt_game_from(struct cluster *c, const char *gid, const char *from)
{
    adopt(c, gid, 0, 0, NULL, from);
}

/* game_take's answer: {epoch, host[, seen]}; epoch 0: a live node hosts
 * it. */
static void on_taken(void *arg, const struct bus_value *v, const char *err)
{
    struct adoption *a = arg;
    struct cluster *c = a->c;

    assert(a->stage == ADOPT_TAKE); /* (the take is its first step) */
    if (err || !bus_at(v, 1) || !bus_is(bus_at(v, 0), BUS_INT)) {
        log_warn("event=cluster_adopt_failed game=%s why=\"%s\"", a->gid,
                 err ? err : "unexpected reply");
        c->m.take_failed[1]++;
        adoption_resend(c, a);
        adoption_free(c, a);
        return;
    }
    if (bus_int(bus_at(v, 0), 0) == 0) { /* a live node hosts it */
        adoption_resend(c, a);
        adoption_free(c, a);
        return;
    }
    a->epoch = bus_int(bus_at(v, 0), 0);
    if (!a->seen_ms)
        a->seen_ms = bus_int(bus_at(v, 2), 0);
    a->seq = store_take_epoch(c->store, a->gid, a->epoch);
    if (!a->seq) {
        log_warn("event=cluster_adopt_failed game=%s why=store_full", a->gid);
        c->m.take_failed[1]++;
        adoption_resend(c, a);
        adoption_free(c, a);
        return;
    }
    a->stage = ADOPT_EPOCH;
    if (a->seq <= store_committed(c->store))
        cluster_wake(c);
}

int adopt_epoch_set(struct cluster *c, const char *gid, int64_t epoch)
{
    int64_t *e = table_get(&c->epochs, gid);
    char *key;

    if (e) {
        *e = epoch;
        return 0;
    }
    e = malloc(sizeof *e + strlen(gid) + 1);
    if (!e)
        return -1;
    *e = epoch;
    key = (char *)(e + 1);
    strcpy(key, gid);
    if (table_put(&c->epochs, key, e) < 0) {
        free(e);
        return -1;
    }
    return 0;
}

void adopt_epoch_drop(struct cluster *c, const char *gid)
{
    free(table_del(&c->epochs, gid));
}

static int finish_run(struct store *st, struct hub_read *r)
{
    struct game_read *q = (struct game_read *)r;

    q->epoch_rc = store_get_epoch(st, q->gid, &q->epoch);
    if (q->epoch_rc < 0)
        return -1;
    q->rc = store_get_game(st, q->gid, &q->row, &q->moves, &q->n, NULL);
    return q->rc < 0 ? -1 : 0;
}

/* The game as the store has it, its epoch ours: restored here. */
static void finish_answer(struct hub_read *r, int rc)
{
    struct game_read *q = (struct game_read *)r;
    struct cluster *c = r->who;
    struct adoption *a = adoption_at(c, q->gid, ADOPT_READ);
    struct game *g = NULL;

    if (!a)
        return;
    /* (a store that keeps no epochs, SQLite's, answers 0: nothing to
     * compare; with PostgreSQL the take committed its row) */
    if (rc < 0 || (q->epoch_rc == 1 && q->epoch != a->epoch)) {
        log_warn("event=cluster_adopt_failed game=%s why=%s epoch=%lld "
                 "now=%lld",
                 a->gid, rc < 0 ? "unread" : "epoch_moved",
                 (long long)a->epoch, (long long)q->epoch);
        c->m.take_failed[1]++;
        adoption_resend(c, a);
        adoption_free(c, a);
        return;
    }
    if (q->rc == 1 && strcmp(q->row.status, "ended") != 0 &&
        !hub_game(c->h, a->gid))
        g = hub_adopt_game(c->h, &q->row, q->moves, q->n, a->seen_ms,
                           cluster_now(c));
    if (!g) { /* over, unknown, or not restorable: answered as such */
        cluster_release_game(c, a->gid);
        cluster_game_ended(c, a->gid); /* (a card its dead host left) */
        adoption_run_here(c, a);
        adoption_free(c, a);
        return;
    }
    log_info("event=cluster_adopted game=%s epoch=%lld handover=%d", a->gid,
             (long long)a->epoch, a->handover ? 1 : 0);
    c->m.adopted[a->handover]++;
    host_hosting(c, g, a->epoch);
    adoption_run_here(c, a);
    adoption_free(c, a);
}

/* The epoch of a has committed: the game is read from the store (off the
 * loop), then restored here (finish_answer). */
void adopt_finish(struct cluster *c, struct adoption *a)
{
    struct game_read *q;

    assert(a->stage == ADOPT_EPOCH && a->seq <= store_committed(c->store));
    a->stage = ADOPT_READ;
    q = game_read_new(a->gid, finish_run, finish_answer);
    if (!q || hub_read_submit(c->h, &q->r, &c->reads, c) < 0) {
        log_warn("event=cluster_adopt_failed game=%s why=busy", a->gid);
        c->m.take_failed[1]++;
        adoption_resend(c, a);
        adoption_free(c, a);
    }
}

static int no_host_run(struct store *st, struct hub_read *r)
{
    struct game_read *q = (struct game_read *)r;

    return store_get_game(st, q->gid, &q->row, NULL, NULL, NULL);
}

/* The store's answer about a command's game that reached no host. */
static void no_host_answer(struct hub_read *r, int rc)
{
    struct game_read *q = (struct game_read *)r;
    struct fwd *f = q->f;
    struct cluster *c = f->c;
    struct session *s;

    q->f = NULL; /* (f is this function's now) */
    TRACE_CMD(c, "edge_store", f->gid, NULL, f->sid, f->text, f->len,
              "rc=%d status=%s age_ms=%lld tries=%d hosted=%d handing=%d", rc,
              rc == 1 ? q->row.status : "-",
              rc == 1 ? (long long)(hub_wall_ms(c->h) - q->row.created_ms)
                      : -1LL,
              f->tries, hub_game(c->h, f->gid) != NULL,
              cluster_handing_over(c, f->gid));
    if (rc != 0) /* (only a game nobody has spends the address's rate) */
        hub_read_refund(r);
    if (hub_game(c->h, f->gid) || cluster_handing_over(c, f->gid)) {
        adopt_no_host(c, f); /* (adopted, or handed over, meanwhile) */
        return;
    }
    if (rc == 1 && strcmp(q->row.status, "ended") != 0 &&
        hub_wall_ms(c->h) - q->row.created_ms < CLUSTER_LEASE_MS &&
        f->tries < CLUSTER_RETRIES) {
        /* stored a moment ago: its creator takes it in the bus just
         * after storing it, and its take and subscription may reach the
         * bus after this command (under load 15 new games of 400 were
         * adopted from under their creators, who found them fenced);
         * sent again, and adopted only once it is a lease old: its
         * creator died then */
        retry_later(c, f);
        return;
    }
    if (rc == 1 && strcmp(q->row.status, "ended") != 0) {
        struct pending *p = pending_of(f);
        free(f);
        if (p)
            adopt_game(c, q->row.gid, 0, 0, p);
        return;
    }
    if (rc == 0 && f->kind == CODEC_START && f->tries < CLUSTER_RETRIES) {
        /* a new game of the player's, told by its host before its row
         * committed and, sometimes, before Redis had its host's
         * subscription to cmd:G (another connection of the host's): 1 of
         * 1,000 paired seekers lost its game_start so */
        retry_later(c, f);
        return;
    }
    s = cluster_local_session(c, f->sid);
    if (rc < 0) {
        edge_busy(c, f->sid, f->kind, f->text, f->len);
    } else {
        if (rc == 0 && f->kind == CODEC_COMMAND)
            hub_unknown_game_note(c->h, f->gid);
        if (s)
            edge_follow_drop(c, s, f->gid);
        if (f->kind == CODEC_COMMAND)
            edge_run_here(c, f->sid, f->text, f->len);
    }
    free(f);
}

/* A command reached no host: the game is adopted here when the store
 * has it live, else it is answered here from the store (a read off the
 * loop first: no_host_answer). */
void adopt_no_host(struct cluster *c, struct fwd *f)
{
    struct game_read *q;
    struct session *s;
    bool command = f->kind == CODEC_COMMAND;

    TRACE_CMD(c, "edge_no_host", f->gid, NULL, f->sid, f->text, f->len,
              "kind=%d hosted=%d handing=%d", (int)f->kind,
              hub_game(c->h, f->gid) != NULL,
              cluster_handing_over(c, f->gid));

    if (cluster_handing_over(c, f->gid) || relay_was_handed(c, f->gid)) {
        retry_later(c, f); /* (to its new host, which adopts it now) */
        return;
    }
    if (hub_game(c->h, f->gid)) { /* adopted meanwhile */
        if (f->kind == CODEC_COMMAND)
            edge_run_here(c, f->sid, f->text, f->len);
        free(f);
        return;
    }
    if (!(q = game_read_new(f->gid, no_host_run, no_host_answer))) {
        edge_busy(c, f->sid, f->kind, f->text, f->len);
        free(f);
        return;
    }
    q->f = f;
    /* a local connection's command: its budget pays (a flood of commands
     * about games nobody has is metered as on one node), and the answer
     * comes even if it closes (f to free) */
    s = command ? cluster_local_session(c, f->sid) : NULL;
    if (s) {
        struct proto_id id;

        edge_command_id(f->text, f->len, &id);
        q->r.always = true;
        hub_read_submit_for(s, &q->r, &id,
                            HUB_READ_METERED | HUB_READ_UNCAPPED);
        return; /* (refused: s answered, q and f freed) */
    }
    /* (refused: q and f freed; no local connection's command waits) */
    (void)hub_read_submit(c->h, &q->r, &c->reads, c);
}

void adopt_handed_over(struct cluster *c, const struct codec_msg *m)
{
    TRACE_CMD(c, "handover_in", m->gid, m->node, 0, NULL, 0,
              "epoch=%lld hosted=%d adopting=%d", (long long)m->epoch,
              hub_game(c->h, m->gid) != NULL,
              table_get(&c->adopting, m->gid) != NULL);
    if (!hub_game(c->h, m->gid))
        adopt_game(c, m->gid, m->epoch, m->wall_ms, NULL);
}
