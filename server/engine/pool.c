/*
 * pool.c - the engine pool (see pool.h): lib/workers.h's threads and
 * bounded queue, one engine process per worker at most, and the UCI
 * exchange of one request.
 *
 * The exchange. A fresh engine hears `uci` (and answers its `id name`
 * and `uciok`), then `isready` (`readyok`). Each request then sends the
 * options that engine was not told yet, `ucinewgame` when its tag
 * differs from the engine's last, and `isready` after either; then
 * `position ...` and `go ...`, and reads until `bestmove`, keeping the
 * last `info` with a score (of the first principal variation). At the
 * search's limit (its move time and ENGINE_SLACK_MS, or the request's
 * deadline) it sends `stop`; a `bestmove` within ENGINE_STOP_MS still
 * answers, else the engine is hung.
 *
 * Faults. Each way an engine can fail ends its try with a fault
 * (enum engine_fault): the engine is killed (uciproc_kill: `quit`, then
 * SIGKILL), the restart counted and logged, and the request tried once
 * more on a fresh engine (started as above), unless its deadline has
 * passed. The best move is checked against the position with the rules
 * core: an engine that names an illegal move (or none, in a position
 * with moves) is faulty, and the loop only ever sees legal moves.
 *
 * Engines. The workers share the engines (engines[], each taken by one
 * worker at a time under mu): there are as many of both, so a worker
 * always finds one free. An engine is started on the first request
 * that finds it not running, and dies with the thread that started it
 * (uciproc.h): at engine_pool_stop, when the workers are joined.
 */
#include "engine/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "engine/uciproc.h"
#include "lib/log.h"
#include "lib/workers.h"
#include "movegen.h"
#include "notation.h"

/* Lines one search may write before it counts as garbage (a flood):
 * Stockfish writes a few per depth, a few hundred at depth 22. */
#define SEARCH_LINES_MAX 20000
/* How often a wait looks whether the pool is stopping. */
#define STOP_POLL_MS 100

struct engine {
    int index;
    bool busy;    /* a worker holds it (under the pool's mu) */
    bool started; /* counted in running */
    struct uciproc proc;
    struct engine_option told[ENGINE_OPTIONS_MAX * 2]; /* as last set */
    int n_told;
    char tag[33]; /* the last request's ("": none since it started) */
};

struct request {
    struct workers_job job;
    struct engine_pool *pool;
    char tag[33];
    char fen[FEN_MAX];
    char *moves; /* owned, never NULL */
    struct engine_option options[ENGINE_OPTIONS_MAX];
    int n_options;
    struct uci_budget budget;
    int64_t deadline;
    void (*done)(void *arg, const struct engine_answer *a);
    void *arg;
    struct engine_answer a; /* filled by the worker */
    char engine_name[UCI_NAME_MAX];
};

struct engine_pool {
    struct workers *w;
    char *path;
    size_t queue;
    int64_t start_ms, slack_ms, stop_ms; /* (config's, defaults filled) */
    pthread_mutex_t mu;
    struct engine *engines;
    int n;
    atomic_bool stopping;
    atomic_int running;
    atomic_size_t queued;
    atomic_uint_least64_t restarts[ENGINE_FAULTS];
    uint64_t answers[3]; /* the loop's */
    struct hist think;   /* the loop's */
};

static const char *const fault_names[ENGINE_FAULTS] = {
    [ENGINE_FAULT_NONE] = "none",       [ENGINE_FAULT_CRASH] = "crash",
    [ENGINE_FAULT_HANG] = "hang",       [ENGINE_FAULT_ILLEGAL] = "illegal",
    [ENGINE_FAULT_GARBAGE] = "garbage", [ENGINE_FAULT_START] = "start",
};

const char *engine_fault_name(enum engine_fault f)
{
    return f >= 0 && f < ENGINE_FAULTS ? fault_names[f] : "?";
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* ---- one engine ------------------------------------------------------- */

/* The next line before `until`, waking every STOP_POLL_MS to look
 * whether the pool stops (then: a timeout). */
static enum uciproc_read read_line(struct engine_pool *pool, struct engine *e,
                                   const char **line, int64_t until)
{
    for (;;) {
        int64_t now = uciproc_now_ms();
        enum uciproc_read r;
        if (atomic_load(&pool->stopping) || now >= until)
            return UCIPROC_TIMEOUT;
        r = uciproc_read(&e->proc, line, min64(until, now + STOP_POLL_MS));
        if (r != UCIPROC_TIMEOUT)
            return r;
    }
}

/* Reads until a line of kind `want` (UCI_UCIOK, UCI_READYOK), noting the
 * engine's name on the way. 0, or the fault. */
static enum engine_fault await(struct engine_pool *pool, struct engine *e,
                               enum uci_kind want, int64_t until)
{
    struct uci_line l;
    const char *line;

    for (int n = 0; n < SEARCH_LINES_MAX; n++) {
        switch (read_line(pool, e, &line, until)) {
        case UCIPROC_LINE:
            if (uci_parse_line(line, &l) == want)
                return ENGINE_FAULT_NONE;
            if (l.kind == UCI_ID_NAME)
                snprintf(e->proc.name, sizeof e->proc.name, "%s", l.name);
            break;
        case UCIPROC_TIMEOUT:
            return ENGINE_FAULT_HANG;
        case UCIPROC_EOF:
            return ENGINE_FAULT_CRASH;
        case UCIPROC_GARBAGE:
            return ENGINE_FAULT_GARBAGE;
        }
    }
    return ENGINE_FAULT_GARBAGE;
}

/* Starts e's process through `uci` and the first `readyok`. */
static enum engine_fault start(struct engine_pool *pool, struct engine *e)
{
    int64_t until = uciproc_now_ms() + pool->start_ms;
    char q[80];

    if (uciproc_spawn(&e->proc, pool->path) < 0)
        return ENGINE_FAULT_START;
    if (uciproc_send(&e->proc, "uci", until) < 0 ||
        await(pool, e, UCI_UCIOK, until) != ENGINE_FAULT_NONE ||
        uciproc_send(&e->proc, "isready", until) < 0 ||
        await(pool, e, UCI_READYOK, until) != ENGINE_FAULT_NONE)
        return ENGINE_FAULT_START;
    e->started = true;
    e->n_told = 0;
    e->tag[0] = '\0';
    atomic_fetch_add(&pool->running, 1);
    log_info("event=engine_started engine=%d pid=%d name=%s", e->index,
             (int)e->proc.pid, log_quote(q, sizeof q, e->proc.name));
    return ENGINE_FAULT_NONE;
}

/* Kills e after a fault in request r's try `tries`: counted, logged. */
static void restart(struct engine_pool *pool, struct engine *e,
                    const struct request *r, enum engine_fault f, int tries)
{
    log_warn("event=engine_restart reason=%s engine=%d pid=%d tag=%s try=%d",
             engine_fault_name(f), e->index, (int)e->proc.pid, r->tag, tries);
    atomic_fetch_add(&pool->restarts[f], 1);
    uciproc_kill(&e->proc, ENGINE_QUIT_MS);
    if (e->started)
        atomic_fetch_sub(&pool->running, 1);
    e->started = false;
}

/* Tells e the options of r it was not told, and `ucinewgame` for a new
 * tag; then waits for `readyok` when it said anything. */
static enum engine_fault prepare(struct engine_pool *pool, struct engine *e,
                                 const struct request *r, int64_t until)
{
    char line[128];
    bool said = false;

    for (int i = 0; i < r->n_options; i++) {
        const struct engine_option *o = &r->options[i];
        int k = 0;
        while (k < e->n_told && strcmp(e->told[k].name, o->name))
            k++;
        if (k < e->n_told && !strcmp(e->told[k].value, o->value))
            continue;
        snprintf(line, sizeof line, "setoption name %s value %s", o->name,
                 o->value);
        if (uciproc_send(&e->proc, line, until) < 0)
            return ENGINE_FAULT_CRASH;
        said = true;
        if (k == ENGINE_OPTIONS_MAX * 2) /* (full: forget the others) */
            k = e->n_told = 0;
        e->told[k] = *o;
        if (k == e->n_told)
            e->n_told++;
    }
    if (strcmp(e->tag, r->tag)) {
        if (uciproc_send(&e->proc, "ucinewgame", until) < 0)
            return ENGINE_FAULT_CRASH;
        snprintf(e->tag, sizeof e->tag, "%s", r->tag);
        said = true;
    }
    if (said && (uciproc_send(&e->proc, "isready", until) < 0 ||
                 await(pool, e, UCI_READYOK, until) != ENGINE_FAULT_NONE))
        return ENGINE_FAULT_HANG;
    return ENGINE_FAULT_NONE;
}

/* The engine's answer to the search of r: the best move (checked on b),
 * the last scored info of the first line. */
static enum engine_fault search(struct engine_pool *pool, struct engine *e,
                                struct request *r, const struct board *b)
{
    int64_t t0 = uciproc_now_ms(), until = r->deadline;
    size_t cap = strlen(r->fen) + strlen(r->moves) + 32;
    char *text = malloc(cap), go[160];
    struct uci_line l;
    const char *line;
    bool stopped = false;
    int sent;
    move_t m;

    if (r->budget.movetime_ms > 0)
        until = min64(until, t0 + r->budget.movetime_ms + pool->slack_ms);
    sent = text && uci_position_text(r->fen, r->moves, text, cap) &&
           uci_go_text(&r->budget, go, sizeof go) &&
           uciproc_send(&e->proc, text, until) == 0 &&
           uciproc_send(&e->proc, go, until) == 0;
    free(text);
    if (!sent)
        return ENGINE_FAULT_CRASH;
    for (int n = 0; n < SEARCH_LINES_MAX; n++) {
        switch (read_line(pool, e, &line, until)) {
        case UCIPROC_LINE:
            break;
        case UCIPROC_TIMEOUT:
            if (stopped || atomic_load(&pool->stopping))
                return ENGINE_FAULT_HANG;
            stopped = true;
            until = uciproc_now_ms() + pool->stop_ms;
            if (uciproc_send(&e->proc, "stop", until) < 0)
                return ENGINE_FAULT_CRASH;
            continue;
        case UCIPROC_EOF:
            return ENGINE_FAULT_CRASH;
        case UCIPROC_GARBAGE:
            return ENGINE_FAULT_GARBAGE;
        }
        switch (uci_parse_line(line, &l)) {
        case UCI_INFO:
            if (l.info.has_score && l.info.multipv == 1)
                r->a.info = l.info;
            break;
        case UCI_BESTMOVE:
            if (!l.best[0] || notation_parse_uci(b, l.best, &m) < 0)
                return ENGINE_FAULT_ILLEGAL;
            memcpy(r->a.bestmove, l.best, UCI_MAX);
            r->a.think_ms = uciproc_now_ms() - t0;
            return ENGINE_FAULT_NONE;
        case UCI_BAD:
            if (!strncmp(line, "bestmove", 8))
                return ENGINE_FAULT_GARBAGE;
            break; /* (a malformed info: skipped) */
        default:
            break;
        }
    }
    return ENGINE_FAULT_GARBAGE;
}

/* One try of r on e (started first when it is not running). */
static enum engine_fault attempt(struct engine_pool *pool, struct engine *e,
                                 struct request *r, const struct board *b)
{
    enum engine_fault f = ENGINE_FAULT_NONE;

    if (e->proc.pid <= 0)
        f = start(pool, e);
    /* (after the start, which may take seconds on a loaded machine) */
    if (f == ENGINE_FAULT_NONE)
        f = prepare(pool, e, r,
                    uciproc_now_ms() + (r->budget.movetime_ms > 0
                                            ? pool->slack_ms
                                            : pool->start_ms));
    if (f == ENGINE_FAULT_NONE) {
        memset(&r->a.info, 0, sizeof r->a.info);
        f = search(pool, e, r, b);
    }
    return f;
}

/* ---- the workers ------------------------------------------------------ */

/* The position of r on *b: false when the FEN or a move is not valid
 * (the requester's mistake, answered FAILED without asking an engine). */
static bool position_of(const struct request *r, struct board *b)
{
    const char *p = r->moves;
    char tok[UCI_MAX + 1];

    if (board_from_fen(b, r->fen[0] ? r->fen : FEN_START) != FEN_OK)
        return false;
    while (*p) {
        size_t n = strcspn(p, " ");
        struct board_undo u;
        move_t m;
        if (n == 0 || n >= sizeof tok)
            return false;
        memcpy(tok, p, n);
        tok[n] = '\0';
        if (notation_parse_uci(b, tok, &m) < 0)
            return false;
        board_make(b, m, &u);
        p += n;
        p += *p == ' ';
    }
    return movegen_has_legal(b);
}

static struct engine *take_engine(struct engine_pool *pool)
{
    struct engine *e = NULL;

    pthread_mutex_lock(&pool->mu);
    for (int i = 0; i < pool->n && !e; i++)
        if (!pool->engines[i].busy)
            e = &pool->engines[i];
    if (e) /* (as many engines as workers: always one) */
        e->busy = true;
    pthread_mutex_unlock(&pool->mu);
    return e;
}

static void give_engine(struct engine_pool *pool, struct engine *e)
{
    pthread_mutex_lock(&pool->mu);
    e->busy = false;
    pthread_mutex_unlock(&pool->mu);
}

static void run(void *ctx, struct workers_job *j)
{
    struct engine_pool *pool = ctx;
    struct request *r = workers_container(j, struct request, job);
    enum engine_fault f = ENGINE_FAULT_NONE;
    struct engine *e;
    struct board b;

    uciproc_block_sigpipe();
    r->a.status = ENGINE_FAILED;
    if (uciproc_now_ms() >= r->deadline) {
        r->a.status = ENGINE_EXPIRED;
        return;
    }
    if (!position_of(r, &b) || !(e = take_engine(pool))) {
        log_warn("event=engine_bad_request tag=%s", r->tag);
        return;
    }
    while (r->a.tries < 2 && !atomic_load(&pool->stopping) &&
           uciproc_now_ms() < r->deadline) {
        r->a.tries++;
        f = attempt(pool, e, r, &b);
        if (f == ENGINE_FAULT_NONE) {
            r->a.status = ENGINE_OK;
            break;
        }
        if (atomic_load(&pool->stopping))
            break; /* (not a fault: stop cut it short) */
        restart(pool, e, r, f, r->a.tries);
    }
    r->a.fault = f;
    snprintf(r->engine_name, sizeof r->engine_name, "%s", e->proc.name);
    give_engine(pool, e);
    if (r->a.status != ENGINE_OK && !atomic_load(&pool->stopping))
        log_warn("event=engine_request_failed tag=%s reason=%s tries=%d",
                 r->tag, engine_fault_name(f), r->a.tries);
}

static void release(void *ctx, struct workers_job *j)
{
    struct request *r = workers_container(j, struct request, job);

    (void)ctx;
    free(r->moves);
    free(r);
}

static void queued(void *ctx, struct workers_job *j)
{
    struct engine_pool *pool = ctx;

    (void)j;
    atomic_fetch_add(&pool->queued, 1);
}

static void taken(void *ctx, struct workers_job *j,
                  struct workers_job *waiting)
{
    struct engine_pool *pool = ctx;

    (void)j;
    (void)waiting;
    atomic_fetch_sub(&pool->queued, 1);
}

/* ---- the loop's side -------------------------------------------------- */

struct engine_pool *engine_pool_start(const struct engine_pool_config *c)
{
    struct engine_pool *pool = calloc(1, sizeof *pool);

    if (!pool)
        return NULL;
    pool->n = c->engines;
    pool->queue = c->queue;
    pool->start_ms = c->start_ms > 0 ? c->start_ms : ENGINE_START_MS;
    pool->slack_ms = c->slack_ms > 0 ? c->slack_ms : ENGINE_SLACK_MS;
    pool->stop_ms = c->stop_ms > 0 ? c->stop_ms : ENGINE_STOP_MS;
    pool->path = strdup(c->path);
    pool->engines = calloc((size_t)(c->engines > 0 ? c->engines : 1),
                           sizeof *pool->engines);
    if (!pool->path || !pool->engines ||
        pthread_mutex_init(&pool->mu, NULL) != 0) {
        free(pool->path);
        free(pool->engines);
        free(pool);
        return NULL;
    }
    for (int i = 0; i < pool->n; i++) {
        pool->engines[i].index = i;
        uciproc_init(&pool->engines[i].proc);
    }
    pool->w = workers_start(&(struct workers_conf){
        .threads = c->engines,
        .cap = c->queue,
        .cap_waiting = true,
        .reserve = c->queue / 2,
        .ctx = pool,
        .wake = c->wake,
        .run = run,
        .release = release,
        .queued = queued,
        .taken = taken,
    });
    if (!pool->w) {
        engine_pool_stop(pool);
        return NULL;
    }
    return pool;
}

int engine_pool_ask(struct engine_pool *p, const struct engine_ask *q)
{
    struct request *r;

    if (!uci_budget_limited(&q->budget) || !q->tag || strlen(q->tag) > 32 ||
        (q->fen && strlen(q->fen) >= FEN_MAX) || q->n_options < 0 ||
        q->n_options > ENGINE_OPTIONS_MAX || !q->done)
        return -1;
    r = calloc(1, sizeof *r);
    if (!r)
        return -1;
    r->moves = strdup(q->moves ? q->moves : "");
    if (!r->moves) {
        free(r);
        return -1;
    }
    r->pool = p;
    snprintf(r->tag, sizeof r->tag, "%s", q->tag);
    snprintf(r->fen, sizeof r->fen, "%s", q->fen ? q->fen : "");
    memcpy(r->options, q->options, sizeof r->options);
    r->n_options = q->n_options;
    r->budget = q->budget;
    r->deadline = q->deadline_ms;
    r->done = q->done;
    r->arg = q->arg;
    r->a.tag = r->tag;
    r->a.cookie = q->cookie;
    r->a.engine = r->engine_name;
    return q->prio == ENGINE_PRIO_PLAY ? workers_submit_first(p->w, &r->job)
                                       : workers_submit(p->w, &r->job);
}

bool engine_pool_saturated(struct engine_pool *p)
{
    return atomic_load(&p->queued) >= p->queue / 2;
}

static void answer(void *arg, struct workers_job *j)
{
    struct engine_pool *pool = arg;
    struct request *r = workers_container(j, struct request, job);

    pool->answers[r->a.status]++;
    if (r->a.status == ENGINE_OK)
        hist_add(&pool->think, r->a.think_ms * 1000);
    r->done(r->arg, &r->a);
}

void engine_pool_collect(struct engine_pool *p)
{
    if (p)
        workers_collect(p->w, answer, p);
}

void engine_pool_stats(struct engine_pool *p, struct engine_pool_stats *out)
{
    memset(out, 0, sizeof *out);
    out->engines = p->n;
    out->running = atomic_load(&p->running);
    out->queued = atomic_load(&p->queued);
    for (int f = 0; f < ENGINE_FAULTS; f++)
        out->restarts[f] = atomic_load(&p->restarts[f]);
    memcpy(out->answers, p->answers, sizeof out->answers);
    out->think = p->think;
}

void engine_pool_stop(struct engine_pool *p)
{
    if (!p)
        return;
    atomic_store(&p->stopping, true);
    workers_stop(p->w); /* (the searches end within STOP_POLL_MS) */
    for (int i = 0; i < p->n; i++) /* (dead with their threads) */
        uciproc_kill(&p->engines[i].proc, 0);
    pthread_mutex_destroy(&p->mu);
    free(p->engines);
    free(p->path);
    free(p);
}
