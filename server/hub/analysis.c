/*
 * analysis.c - the computer analysis of a finished game (PROTOCOL.md,
 * "Computer analysis"): the commands `analyse` (ask for one) and
 * `analysis` (read it, and hear its progress), run on the engine pool
 * (engine/pool.h) at ENGINE_PRIO_ANALYSIS, behind the computer's moves.
 *
 * A job is one game: every position of it (the start and the one after
 * each ply, up to ANALYSIS_PLY_MAX) is searched with a fixed node budget
 * (the setting analysis_nodes) on a fresh hash (a `ucinewgame` before
 * each position: the pool sends one when the tag changes) with fixed
 * options, so that anyone with the same engine gets the same figures;
 * the engine's name, the budget and the options are kept with the
 * result. A position the game ended in (checkmate, stalemate) is scored
 * without the engine. The figures (common/analysis.h: lichess's win
 * percentages, accuracies and judgements) are computed when the last
 * position is in.
 *
 * One job runs at a time, with as many positions in flight as the pool
 * has engines; the others wait in a queue of analysis_queue jobs, the
 * requester's own games first (a player's game before a spectator's),
 * then the oldest. A full queue answers busy. A player, and an address,
 * has one job at a time, and a player analyses_per_day a day (counted in
 * the store, so a restart forgets nothing). A game is analysed once:
 * asked again, the stored analysis (or the job under way) answers.
 *
 * The store keeps a row per game (migrations/0011_analysis.sql): written
 * "queued" when the job is made, "done" with the result at its end; the
 * rows still "queued" at start are read back and their jobs queued
 * again, from their first position (a restart re-queues). Each
 * position's answer is pushed to the connections that asked for the
 * game's analysis (`analyse` or `analysis`) as `analysis_progress`;
 * the end, as `analysis`. A position whose engine failed twice (the
 * pool's retry) or whose deadline passed is reported failed: the job
 * never hangs.
 *
 * In a cluster the queue is the cluster's (analysis_shared.c): a request
 * is put there, and this node runs the jobs it takes from it; progress
 * and ends reach the other nodes' connections through the relay
 * (analysis_relay.c). A job's own data and messages are analysis_job.c's.
 * Loop thread only, but the reads' run (the reader).
 */
#include "hub/hub_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "analysis.h"
#include "engine/pool.h"
#include "hub/analysis_job.h"
#include "hub/analysis_pgn.h"
#include "hub/analysis_relay.h"
#include "hub/analysis_shared.h"
#include "hub/reads.h"
#include "lib/addrkey.h"
#include "lib/log.h"
#include "movegen.h"
#include "notation.h"

/* A request the pool's queue refused is asked again this much later. */
#define ANALYSIS_RETRY_MS 200
/* How long one position may take, its wait in the pool's queue included. */
#define ANALYSIS_POSITION_MS (120LL * 1000)
/* 24 hours, for analyses_per_day. */
#define ANALYSIS_DAY_MS (24LL * 3600 * 1000)

struct analyses {
    struct hub *h;
    struct analysis_relay *relay;
    struct analysis_shared *shared; /* (used in a cluster) */
    struct job **q; /* the queue, the running one included, in order */
    int nq, capq;
    uint64_t serial;
    struct hub_alarm *tick;
    bool restarted; /* the queued rows were read back */
};

const struct hub_module hub_analysis_module;

static struct analyses *state(struct hub *h)
{
    return hub_module_state(h, &hub_analysis_module);
}

/* ---- messages ------------------------------------------------------- */

/* Adds s to j's listeners (nothing when it is one, or when they are
 * ANALYSIS_SUBS_MAX: it reads the end with `analysis`). */
static void subscribe(struct job *j, struct session *s)
{
    for (int i = 0; i < j->nsubs; i++)
        if (j->subs[i] == s)
            return;
    if (j->nsubs < ANALYSIS_SUBS_MAX)
        j->subs[j->nsubs++] = s;
}

/* Sends o (a reference taken per listener) to j's listeners, and to
 * the other nodes' (done: o is the end). */
static void broadcast(struct analyses *a, struct job *j, json_t *o, bool done)
{
    char *text = json_dumps(o, JSON_COMPACT);

    for (int i = 0; text && i < j->nsubs; i++) {
        char *copy = strdup(text);
        if (copy)
            hub_send_text(j->subs[i], copy, 0);
    }
    if (text)
        analysis_relay_tell(a->relay, j->gid, text, done);
    free(text);
}

/* ---- jobs ------------------------------------------------------------ */

/* The job of gid in the queue, or NULL. */
static struct job *job_of(struct analyses *a, const char *gid)
{
    for (int i = 0; i < a->nq; i++)
        if (!strcmp(a->q[i]->gid, gid))
            return a->q[i];
    return NULL;
}

/* Takes j into the queue (its row is written "queued" by the caller).
 * 0, or -1 when out of memory. */
static int enqueue(struct analyses *a, struct job *j)
{
    if (a->nq == a->capq) {
        int cap = a->capq ? 2 * a->capq : 8;
        struct job **q = realloc(a->q, (size_t)cap * sizeof *q);
        if (!q)
            return -1;
        a->q = q;
        a->capq = cap;
    }
    j->serial = ++a->serial;
    a->q[a->nq++] = j;
    return 0;
}

static void dequeue(struct analyses *a, struct job *j)
{
    for (int i = 0; i < a->nq; i++)
        if (a->q[i] == j) {
            memmove(&a->q[i], &a->q[i + 1],
                    (size_t)(a->nq - i - 1) * sizeof *a->q);
            a->nq--;
            return;
        }
}

/* The job to run: the one running, else the first of a player's own
 * games, else the oldest. NULL: none queued. */
static struct job *job_to_run(struct analyses *a)
{
    struct job *first = a->nq ? a->q[0] : NULL;

    for (int i = 0; i < a->nq; i++)
        if (a->q[i]->running)
            return a->q[i];
    for (int i = 0; i < a->nq; i++)
        if (a->q[i]->own)
            return a->q[i];
    return first;
}

static void on_answer(void *arg, const struct engine_answer *ans);
static void finish(struct analyses *a, struct job *j);

/* Asks the pool for position i of j. 0, or -1 when it refused (full). */
static int ask(struct analyses *a, struct job *j, int i, int64_t now)
{
    struct hub *h = a->h;
    struct engine_ask q = {
        .cookie = (j->serial << 20) | (uint64_t)i,
        .fen = j->fen,
        .n_options = ENGINE_OPTIONS_MAX,
        .deadline_ms = now + ANALYSIS_POSITION_MS,
        .prio = ENGINE_PRIO_ANALYSIS,
        .done = on_answer,
        .arg = a,
    };
    char tag[40], *moves = malloc((size_t)i * 6 + 1), *p = moves;
    int rc;

    if (!moves)
        return -1;
    *p = '\0';
    for (int k = 0; k < i; k++)
        p += sprintf(p, "%s%s", k ? " " : "", j->uci[k]);
    /* a tag of its own per position: a fresh hash for each */
    snprintf(tag, sizeof tag, "a%d.%.20s", i & 0xfffff, j->gid);
    q.tag = tag;
    q.moves = moves;
    memcpy(q.options, analysis_options, sizeof q.options);
    q.budget.nodes = h->cfg.analysis_nodes;
    rc = engine_pool_ask(h->env.engines, &q);
    free(moves);
    return rc;
}

/* Runs the queue: the job to run gets positions asked up to the pool's
 * engines; a refusal is asked again ANALYSIS_RETRY_MS later. */
static void pump(struct analyses *a, int64_t now)
{
    struct job *j = job_to_run(a);
    struct engine_pool_stats st;
    int slots;

    if (!j || !a->h->env.engines)
        return;
    engine_pool_stats(a->h->env.engines, &st);
    slots = st.engines > 0 ? st.engines : 1;
    if (!j->running) {
        j->running = true;
        log_info("event=analysis_start game=%s positions=%d requester=%s",
                 j->gid, j->n, j->pid);
    }
    if (j->done >= j->n) { /* (every position known without the engine) */
        finish(a, j);
        pump(a, now);
        return;
    }
    while (j->inflight < slots && j->next < j->n) {
        if (j->pos[j->next].asked) {
            j->next++;
            continue;
        }
        if (ask(a, j, j->next, now) < 0) {
            hub_alarm_arm(a->h, a->tick, now + ANALYSIS_RETRY_MS);
            return;
        }
        j->pos[j->next++].asked = true;
        j->inflight++;
    }
}

/* The figures once every position is in: the judgements, then the
 * result stored "done" and sent to the listeners; the job ends. */
static void finish(struct analyses *a, struct job *j)
{
    struct hub *h = a->h;
    struct store_analysis row = {.requested_ms = j->requested_ms};
    uint64_t seq = 0;
    json_t *o;
    char *text;

    analysis_job_judge(j);
    o = analysis_job_json(j, "done", h->cfg.analysis_nodes);
    analysis_job_figures(o, j);
    text = json_dumps(o, JSON_COMPACT);
    snprintf(row.gid, sizeof row.gid, "%s", j->gid);
    snprintf(row.pid, sizeof row.pid, "%s", j->pid);
    snprintf(row.status, sizeof row.status, "done");
    if (!text || !(seq = store_put_analysis(h->store, &row, text)))
        log_error("event=analysis_not_stored game=%s", j->gid);
    broadcast(a, j, o, true);
    json_decref(o);
    if (seq) /* (kept until the row is committed) */
        analysis_relay_done(a->relay, j->gid, j->pid, j->requested_ms, seq,
                            text);
    else
        free(text);
    log_info("event=analysis_done game=%s positions=%d engine=\"%s\"", j->gid,
             j->n, j->engine);
    dequeue(a, j);
    if (j->shared) /* (this node is free: it takes the next) */
        analysis_shared_done(a->shared, j->gid);
    analysis_job_free(j);
}

static void on_answer(void *arg, const struct engine_answer *ans)
{
    struct analyses *a = arg;
    uint64_t serial = ans->cookie >> 20;
    int i = (int)(ans->cookie & 0xfffff);
    struct job *j = NULL;
    json_t *o;

    for (int k = 0; k < a->nq && !j; k++)
        if (a->q[k]->serial == serial)
            j = a->q[k];
    if (!j || i >= j->n)
        return;
    j->inflight--;
    analysis_job_take(j, i, ans);
    j->done++;
    o = json_object();
    json_object_set_new(o, "t", json_string("analysis_progress"));
    json_object_set_new(o, "game", json_string(j->gid));
    json_object_set_new(o, "position", json_integer(i));
    json_object_set_new(o, "done", json_integer(j->done));
    json_object_set_new(o, "total", json_integer(j->n));
    json_object_set_new(o, "score", analysis_pos_json(j, i));
    broadcast(a, j, o, false);
    json_decref(o);
    if (j->done >= j->n)
        finish(a, j);
    pump(a, hub_now_ms(a->h));
}

/* ---- requests -------------------------------------------------------- */

/* A command's read: the game's row and moves, its analysis row, and the
 * requester's analyses of the last 7 days (their rows: which games the
 * read saw, for analysis_relay_uncounted). */
struct req_read {
    struct hub_read r;
    struct proto_msg m;
    char pid[PROTO_KEY_MAX + 1];
    char addr[ADDRKEY_MAX];
    int64_t since_ms;
    struct store_game row;
    struct store_move *moves;
    size_t n;
    int found;
    struct store_analysis arow;
    char *result;
    int64_t today, week; /* the requester's analyses in 24 h, in 7 days */
    struct store_analysis *mine; /* their rows, newest first */
    size_t nmine, maxmine;       /* (at most analyses_per_week) */
    int delay_ms;                /* tests only: before the count's query */
};

/* pid's analyses of the last 7 days read, and counted into q. At most
 * maxmine rows are read: with that many the week's limit is reached
 * whatever the rest. 0, or -1. */
static int count_mine(struct store *st, struct req_read *q)
{
    if (q->delay_ms > 0) { /* (tests only: the reader's, not the loop's) */
        struct timespec ts = {q->delay_ms / 1000,
                              (long)(q->delay_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (store_analyses_by(st, q->pid, q->since_ms - 6 * ANALYSIS_DAY_MS,
                          q->maxmine, &q->mine, &q->nmine) < 0)
        return -1;
    q->week = (int64_t)q->nmine;
    for (size_t i = 0; i < q->nmine; i++)
        q->today += q->mine[i].requested_ms >= q->since_ms;
    return 0;
}

static int req_run(struct store *st, struct hub_read *r)
{
    struct req_read *q = (struct req_read *)r;
    int rc = store_get_analysis(st, q->m.game, &q->arow, &q->result);

    if (rc < 0)
        return -1;
    if (rc == 1 || q->m.type == PROTO_T_ANALYSIS)
        return rc;
    if (count_mine(st, q) < 0)
        return -1;
    q->found = store_get_game(st, q->m.game, &q->row, &q->moves, &q->n, NULL);
    return q->found < 0 ? -1 : 0;
}

static void req_clear(struct hub_read *r)
{
    struct req_read *q = (struct req_read *)r;

    free(q->moves);
    free(q->result);
    free(q->mine);
}

/* The stored result sent to s (with its id). */
static void send_stored(struct session *s, const struct req_read *q)
{
    json_t *o = json_loads(q->result, 0, NULL);

    if (!o) {
        hub_busy(s, &q->m.id);
        return;
    }
    analysis_send_json(s, o, &q->m.id);
}

/* A job's state to s (subscribed). */
static void send_job(struct session *s, struct job *j,
                     const struct proto_id *id)
{
    json_t *o = analysis_job_json(j, j->running ? "running" : "queued",
                                  s->hub->cfg.analysis_nodes);

    subscribe(j, s);
    analysis_relay_forget(state(s->hub)->relay, s, j->gid);
    analysis_send_json(s, o, id);
}

/* Why pid (at address addr) may not have another job now: a message, or
 * NULL. */
static const char *limited(struct analyses *a, const char *pid,
                           const char *addr)
{
    for (int i = 0; i < a->nq; i++) {
        if (!strcmp(a->q[i]->pid, pid))
            return ANALYSIS_MSG_PLAYER;
        if (addr[0] && !strcmp(a->q[i]->addr, addr))
            return ANALYSIS_MSG_ADDRESS;
    }
    return NULL;
}

/* `analyse` once read: the checks, then the job made and queued. */
static void request(struct session *s, struct req_read *q)
{
    struct hub *h = s->hub;
    struct analyses *a = state(h);
    struct store_analysis row = {.requested_ms = hub_wall_ms(h)};
    const char *why;
    struct job *j;
    char msg[96];

    if (!q->found) {
        hub_send_error(s, PROTO_NO_SUCH_GAME, "no such game", &q->m.id);
        return;
    }
    if (strcmp(q->row.status, "ended") || !strcmp(q->row.result, "*")) {
        hub_send_error(s, PROTO_NOT_FINISHED,
                       "only a finished game is analysed", &q->m.id);
        return;
    }
    if ((why = limited(a, q->pid, q->addr)) != NULL) {
        hub_send_error(s, PROTO_ANALYSIS_LIMIT, why, &q->m.id);
        return;
    }
    /* the requester's analyses finished here whose rows the read did not
     * find (not committed when it ran): counted once, in the windows they
     * were asked in */
    q->today += analysis_relay_uncounted(a->relay, q->pid, q->mine, q->nmine,
                                         q->since_ms);
    q->week += analysis_relay_uncounted(a->relay, q->pid, q->mine, q->nmine,
                                        q->since_ms - 6 * ANALYSIS_DAY_MS);
    switch (analysis_limit(q->today, q->week, h->cfg.analyses_per_day,
                           h->cfg.analyses_per_week)) {
    case ANALYSIS_LIMIT_OK:
        break;
    case ANALYSIS_LIMIT_DAY:
        snprintf(msg, sizeof msg,
                 "you have asked for %lld analyses in 24 hours: the most "
                 "there may be now",
                 (long long)q->today);
        hub_send_error(s, PROTO_ANALYSIS_LIMIT, msg, &q->m.id);
        return;
    case ANALYSIS_LIMIT_WEEK:
        snprintf(msg, sizeof msg,
                 "you have asked for %lld analyses in 7 days: the most there "
                 "may be",
                 (long long)q->week);
        hub_send_error(s, PROTO_ANALYSIS_LIMIT, msg, &q->m.id);
        return;
    }
    if (analysis_shared_on(h)) { /* (a cluster's: any node's pool) */
        int total = (int)(q->n < ANALYSIS_PLY_MAX ? q->n : ANALYSIS_PLY_MAX);
        analysis_shared_put(a->shared, s, &q->m.id, q->row.gid, q->pid,
                            q->addr,
                            !strcmp(q->pid, q->row.white_pid) ||
                                !strcmp(q->pid, q->row.black_pid),
                            row.requested_ms, total + 1);
        return;
    }
    if (a->nq > h->cfg.analysis_queue) {
        hub_send_error(s, PROTO_BUSY, ANALYSIS_MSG_FULL, &q->m.id);
        return;
    }
    j = analysis_job_new(&q->row, q->moves, q->n, q->pid, row.requested_ms);
    if (!j || enqueue(a, j) < 0) {
        analysis_job_free(j);
        hub_busy(s, &q->m.id);
        return;
    }
    snprintf(j->addr, sizeof j->addr, "%s", q->addr);
    snprintf(row.gid, sizeof row.gid, "%s", j->gid);
    snprintf(row.pid, sizeof row.pid, "%s", j->pid);
    snprintf(row.status, sizeof row.status, "queued");
    if (!store_put_analysis(h->store, &row, "{}"))
        log_error("event=analysis_not_stored game=%s", j->gid);
    log_info("event=analysis_queued game=%s requester=%s own=%d queued=%d",
             j->gid, j->pid, (int)j->own, a->nq);
    send_job(s, j, &q->m.id);
    pump(a, hub_now_ms(h));
}

static void req_answer(struct hub_read *r, int rc)
{
    struct req_read *q = (struct req_read *)r;
    struct session *s = r->who;
    struct analyses *a = state(r->h);
    struct job *j = job_of(a, q->m.game);
    json_t *o;

    if (rc == 1 || q->found == 1)
        hub_read_refund(r);
    if (j) { /* (made meanwhile) */
        send_job(s, j, &q->m.id);
    } else if (analysis_relay_send(a->relay, s, q->m.game, &q->m.id)) {
        /* (finished meanwhile: its row not committed yet) */
    } else if (rc < 0) {
        hub_busy(s, &q->m.id);
    } else if (rc == 1 && !strcmp(q->arow.status, "done")) {
        send_stored(s, q);
    } else if (rc == 1 || q->m.type == PROTO_T_ANALYSIS) {
        /* none, or queued in the store: on another node, or not yet back
         * in the queue (its progress and end come as they are told) */
        if (rc == 1)
            analysis_relay_listen(a->relay, s, q->m.game);
        o = json_object();
        json_object_set_new(o, "t", json_string("analysis"));
        json_object_set_new(o, "game", json_string(q->m.game));
        json_object_set_new(o, "status",
                            json_string(rc == 1 ? "queued" : "none"));
        analysis_send_json(s, o, &q->m.id);
    } else {
        request(s, q);
    }
}

/* analyse and analysis: the job under way answers at once; else the
 * store is read (req_answer goes on). */
static void do_analysis(struct session *s, const struct proto_msg *m,
                        int64_t now)
{
    struct hub *h = s->hub;
    struct analyses *a = state(h);
    struct job *j = job_of(a, m->game);
    struct game *g = hub_game(h, m->game);
    struct req_read *q;
    const char *why;
    char addr[ADDRKEY_MAX];

    (void)now;
    if (j) {
        send_job(s, j, &m->id);
        return;
    }
    if (analysis_relay_send(a->relay, s, m->game, &m->id))
        return;
    hub_addr_key(h, s->ip, addr);
    if (m->type == PROTO_T_ANALYSE) {
        if (!h->env.engines && !analysis_shared_on(h)) {
            hub_send_error(s, PROTO_NO_ENGINE,
                           "this server runs no engine: no analysis", &m->id);
            return;
        }
        if (g && game_status(g) != GAME_ENDED) {
            hub_send_error(s, PROTO_NOT_FINISHED,
                           "only a finished game is analysed", &m->id);
            return;
        }
        if ((why = limited(a, s->player->pid, addr)) != NULL) {
            hub_send_error(s, PROTO_ANALYSIS_LIMIT, why, &m->id);
            return;
        }
    }
    if (!(q = calloc(1, sizeof *q))) {
        hub_busy(s, &m->id);
        return;
    }
    q->r.run = req_run;
    q->r.answer = req_answer;
    q->r.clear = req_clear;
    q->m = *m;
    snprintf(q->pid, sizeof q->pid, "%s", s->player->pid);
    snprintf(q->addr, sizeof q->addr, "%s", addr);
    q->since_ms = hub_wall_ms(h) - ANALYSIS_DAY_MS;
    q->maxmine = (size_t)h->cfg.analyses_per_week;
    q->delay_ms = h->cfg.analysis_count_delay_ms;
    /* (metered as a read of a game not in memory: given back when found) */
    hub_read_submit_for(s, &q->r, &m->id, HUB_READ_METERED);
}

/* ---- a restart: the queued rows read back ----------------------------- */

struct requeue_read {
    struct hub_read r;
    struct store_analysis *rows;
    struct store_game *games;
    struct store_move **moves;
    size_t *nmoves;
    size_t n, max;
};

static int requeue_run(struct store *st, struct hub_read *r)
{
    struct requeue_read *q = (struct requeue_read *)r;

    if (store_queued_analyses(st, q->rows, q->max, &q->n) < 0)
        return -1;
    for (size_t i = 0; i < q->n; i++)
        if (store_get_game(st, q->rows[i].gid, &q->games[i], &q->moves[i],
                           &q->nmoves[i], NULL) < 0)
            return -1;
    return 0;
}

static void requeue_clear(struct hub_read *r)
{
    struct requeue_read *q = (struct requeue_read *)r;

    for (size_t i = 0; i < q->n; i++)
        free(q->moves[i]);
    free(q->rows);
    free(q->games);
    free(q->moves);
    free(q->nmoves);
}

static void requeue_answer(struct hub_read *r, int rc)
{
    struct requeue_read *q = (struct requeue_read *)r;
    struct analyses *a = r->h ? state(r->h) : NULL;

    if (!a)
        return;
    if (rc < 0) {
        log_error("event=analysis_requeue_failed");
        a->restarted = false; /* (read again at the next sweep) */
        return;
    }
    for (size_t i = 0; i < q->n; i++) {
        const struct store_game *g = &q->games[i];
        struct job *j;
        if (job_of(a, q->rows[i].gid) || !g->gid[0])
            continue;
        if (analysis_shared_on(r->h)) { /* (into the cluster's queue) */
            analysis_shared_put(a->shared, NULL, NULL, g->gid, q->rows[i].pid,
                                "",
                                !strcmp(q->rows[i].pid, g->white_pid) ||
                                    !strcmp(q->rows[i].pid, g->black_pid),
                                q->rows[i].requested_ms, 0);
            continue;
        }
        j = analysis_job_new(&q->games[i], q->moves[i], q->nmoves[i],
                             q->rows[i].pid, q->rows[i].requested_ms);
        if (!j || enqueue(a, j) < 0) {
            analysis_job_free(j);
            continue;
        }
        log_info("event=analysis_requeued game=%s requester=%s", j->gid,
                 j->pid);
    }
    pump(a, hub_now_ms(r->h));
}

/* Reads the rows still "queued" (a previous run's jobs) once. */
static void requeue(struct analyses *a)
{
    struct hub *h = a->h;
    struct requeue_read *q;
    size_t max = (size_t)h->cfg.analysis_queue + 1;

    if (a->restarted || !h->env.engines || !h->store)
        return;
    a->restarted = true;
    q = calloc(1, sizeof *q);
    if (q) {
        q->max = max;
        q->rows = calloc(max, sizeof *q->rows);
        q->games = calloc(max, sizeof *q->games);
        q->moves = calloc(max, sizeof *q->moves);
        q->nmoves = calloc(max, sizeof *q->nmoves);
    }
    if (!q || !q->rows || !q->games || !q->moves || !q->nmoves) {
        if (q)
            requeue_clear(&q->r);
        free(q);
        a->restarted = false;
        return;
    }
    q->r.run = requeue_run;
    q->r.answer = requeue_answer;
    q->r.clear = requeue_clear;
    q->r.always = true;
    if (hub_read_submit(h, &q->r, NULL, NULL) < 0)
        a->restarted = false;
}

/* ---- what the PGN export asks (analysis_pgn.h) ------------------------ */

const char *hub_analysis_recent(struct hub *h, const char *gid)
{
    struct analyses *a = state(h);

    return a ? analysis_relay_result(a->relay, gid) : NULL;
}

/* ---- what the shared queue asks (analysis_shared.h) ------------------- */

struct analysis_relay *analysis_relay_of(struct hub *h)
{
    return state(h)->relay;
}

struct analysis_shared *analysis_shared_of(struct hub *h)
{
    struct analyses *a = state(h);

    return a ? a->shared : NULL;
}

int analysis_jobs_here(struct hub *h)
{
    return state(h)->nq;
}

int analysis_run_shared(struct hub *h, const struct store_game *row,
                        const struct store_move *moves, size_t n,
                        const char *pid, const char *addr,
                        int64_t requested_ms)
{
    struct analyses *a = state(h);
    struct job *j;

    if (job_of(a, row->gid))
        return 0;
    j = analysis_job_new(row, moves, n, pid, requested_ms);
    if (!j || enqueue(a, j) < 0) {
        analysis_job_free(j);
        return -1;
    }
    j->shared = true;
    snprintf(j->addr, sizeof j->addr, "%s", addr);
    pump(a, hub_now_ms(h));
    return 0;
}

int analysis_shared_jobs(struct hub *h, const char **gids, const char **pids,
                         const char **addrs, int max)
{
    struct analyses *a = state(h);
    int n = 0;

    for (int i = 0; i < a->nq && n < max; i++)
        if (a->q[i]->shared) {
            gids[n] = a->q[i]->gid;
            pids[n] = a->q[i]->pid;
            addrs[n++] = a->q[i]->addr;
        }
    return n;
}

void analysis_drop_job(struct hub *h, const char *gid)
{
    struct analyses *a = state(h);
    struct job *j = job_of(a, gid);

    if (j) {
        dequeue(a, j);
        analysis_job_free(j);
    }
}

void analysis_requeue_soon(struct hub *h)
{
    state(h)->restarted = false;
}

/* ---- the module's hooks ------------------------------------------------ */

static void tick(void *arg)
{
    struct analyses *a = arg;

    requeue(a);
    pump(a, hub_now_ms(a->h));
}

static void sweep(struct hub *h, int64_t now)
{
    struct analyses *a = state(h);

    requeue(a);
    analysis_relay_sweep(a->relay, now);
    pump(a, now);
}

static void wake(struct hub *h)
{
    engine_pool_collect(h->env.engines);
}

static void session_closed(struct hub *h, struct session *s)
{
    struct analyses *a = state(h);

    for (int i = 0; i < a->nq; i++) {
        struct job *j = a->q[i];
        for (int k = 0; k < j->nsubs; k++)
            if (j->subs[k] == s)
                j->subs[k--] = j->subs[--j->nsubs];
    }
    analysis_relay_closed(a->relay, s);
    analysis_shared_closed(a->shared, s);
}

static void told_all(struct hub *h, const char *payload, size_t len,
                     int64_t now)
{
    analysis_relay_told(state(h)->relay, payload, len, now);
}

static int init(struct hub *h)
{
    struct analyses *a = calloc(1, sizeof *a);

    if (!a)
        return -1;
    a->h = h;
    a->tick = hub_alarm_new(h, tick, a);
    a->relay = analysis_relay_new(h);
    a->shared = analysis_shared_new(h);
    if (!a->tick || !a->relay || !a->shared) {
        if (a->tick)
            hub_alarm_free(h, a->tick);
        analysis_relay_free(a->relay);
        analysis_shared_free(a->shared);
        free(a);
        return -1;
    }
    hub_module_set_state(h, &hub_analysis_module, a);
    hub_alarm_arm(h, a->tick, hub_now_ms(h)); /* the restart's read */
    return 0;
}

static void free_state(struct hub *h)
{
    struct analyses *a = state(h);

    if (!a)
        return;
    for (int i = 0; i < a->nq; i++)
        analysis_job_free(a->q[i]);
    free(a->q);
    analysis_relay_free(a->relay);
    analysis_shared_free(a->shared);
    hub_alarm_free(h, a->tick);
    free(a);
}

static const struct hub_command commands[] = {
    {PROTO_T_ANALYSE, do_analysis, false},
    {PROTO_T_ANALYSIS, do_analysis, false},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_analysis_module = {
    .name = "analysis",
    .init = init,
    .free = free_state,
    .wake = wake,
    .sweep = sweep,
    .session_closed = session_closed,
    .tell_tag = ANALYSIS_TELL,
    .told_all = told_all,
    .commands = commands,
};
