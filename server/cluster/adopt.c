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
    for (struct pending *p = a->head; p; p = p->next)
        edge_busy(c, p->sid, p->kind, p->text, p->len);
    adoption_free(c, a);
}

static void retry_later(struct cluster *c, struct fwd *f)
{
    struct retry *r, **pp;

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
}

/* Adopts gid: with epoch 0, takes it in Redis first (it has no live
 * host); with an epoch (a handover), the lease is already this node's.
 * seen_ms: when the previous host was last alive (wall), or 0. p (taken)
 * waits for the adoption. */
static void on_taken(void *arg, const struct bus_value *v, const char *err);

/* adopt_game, the game listed in from's set of games (NULL: none). */
static void adopt(struct cluster *c, const char *gid, int64_t epoch,
                  int64_t seen_ms, struct pending *p, const char *from)
{
    struct adoption *a = table_get(&c->adopting, gid);
    int64_t floor = 0;

    if (a) {
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
    a->stage = ADOPT_TAKE;
    if (store_get_epoch(c->store, gid, &floor) < 0)
        floor = 0;
    if (cluster_take(c, gid, floor, from, on_taken, a) < 0)
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

/* The epoch of a has committed: the game is read from the store and
 * restored here. */
void adopt_finish(struct cluster *c, struct adoption *a)
{
    assert(a->stage == ADOPT_EPOCH && a->seq <= store_committed(c->store));
    struct store_game row;
    struct store_move *moves = NULL;
    size_t n = 0;
    int64_t now_epoch = 0;
    struct game *g = NULL;
    int rc;

    /* (a store that keeps no epochs, SQLite's, answers 0: nothing to
     * compare; with PostgreSQL the take committed its row) */
    rc = store_get_epoch(c->store, a->gid, &now_epoch);
    if (rc < 0 || (rc == 1 && now_epoch != a->epoch)) {
        log_warn("event=cluster_adopt_failed game=%s why=epoch_moved "
                 "epoch=%lld now=%lld",
                 a->gid, (long long)a->epoch, (long long)now_epoch);
        c->m.take_failed[1]++;
        adoption_resend(c, a);
        adoption_free(c, a);
        return;
    }
    rc = store_get_game(c->store, a->gid, &row, &moves, &n, NULL);
    if (rc == 1 && strcmp(row.status, "ended") != 0)
        g = hub_adopt_game(c->h, &row, moves, n, a->seen_ms, cluster_now(c));
    free(moves);
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

/* A command reached no host: the game is adopted here when the store
 * has it live, else it is answered here from the store. */
void adopt_no_host(struct cluster *c, struct fwd *f)
{
    struct store_game row;
    int rc;

    if (cluster_handing_over(c, f->gid)) { /* to its new host, soon */
        retry_later(c, f);
        return;
    }
    if (hub_game(c->h, f->gid)) { /* adopted meanwhile */
        if (f->kind == CODEC_COMMAND)
            edge_run_here(c, f->sid, f->text, f->len);
        free(f);
        return;
    }
    rc = store_get_game(c->store, f->gid, &row, NULL, NULL, NULL);
    if (rc == 1 && strcmp(row.status, "ended") != 0 &&
        hub_wall_ms(c->h) - row.created_ms < CLUSTER_LEASE_MS &&
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
    if (rc == 1 && strcmp(row.status, "ended") != 0) {
        struct pending *p = pending_of(f);
        free(f);
        if (p)
            adopt_game(c, row.gid, 0, 0, p);
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
    if (rc < 0) {
        edge_busy(c, f->sid, f->kind, f->text, f->len);
    } else {
        struct session *s = cluster_local_session(c, f->sid);
        if (s)
            edge_follow_drop(c, s, f->gid);
        if (f->kind == CODEC_COMMAND)
            edge_run_here(c, f->sid, f->text, f->len);
    }
    free(f);
}

void adopt_handed_over(struct cluster *c, const struct codec_msg *m)
{
    if (!hub_game(c->h, m->gid))
        adopt_game(c, m->gid, m->epoch, m->wall_ms, NULL);
}
