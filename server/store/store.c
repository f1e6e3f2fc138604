/*
 * store.c - the store's shared core (store_internal.h) over one of two
 * backends, SQLite (sqlite/) or PostgreSQL (pg/): opening and closing a
 * store, the helpers every part shares, and the counters the loop reads.
 * See store.h for the contract. The core's other files: store_queue.c
 * (the writes queued, their sequence numbers), store_writer.c (the
 * writer thread, its retries and the fencing of games), store_read.c
 * (the reads, their arguments checked, then the backend's).
 */
#include "store/store_internal.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/errtext.h"
#include "lib/tunables.h"

/* ---- small helpers ---------------------------------------------------- */

const char *store__op_gid(const struct op *op)
{
    switch (op->kind) {
    case OP_GAME:
    case OP_FINISH:
        return op->u.game.gid;
    case OP_MOVE:
        return op->u.move.gid;
    case OP_EPOCH:
        return op->u.take.gid;
    default:
        return NULL;
    }
}

const char *store__op_name(enum op_kind k)
{
    static const char *const names[] = {
        "player",       "game",          "move",          "finish",
        "purge",        "register",      "token_put",     "token_touch",
        "token_revoke", "tokens_revoke", "tokens_expire", "settings",
        "epoch",        "analysis",      "api_token_put", "api_token_revoke",
        "arena",        "chat",          "playban",       "block",
        "report",       "bot",           "moderator",     "mod_action"};
    _Static_assert(sizeof names / sizeof *names == OP_KINDS,
                   "a name for every op kind");
    assert((unsigned)k < OP_KINDS);
    return names[k];
}

void store__sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

bool store__stopping(struct store *s)
{
    bool stop;

    pthread_mutex_lock(&s->mu);
    stop = s->stopping;
    pthread_mutex_unlock(&s->mu);
    return stop;
}

/* ---- open / close ----------------------------------------------------- */

/* Allocates the core (queue, mutex, condition variable) with backend be
 * and on_commit. NULL with a sentence in err. */
static struct store *new_store(const struct store_backend *be,
                               void (*on_commit)(void *arg), void *arg,
                               char *err, size_t errlen)
{
    struct store *s = calloc(1, sizeof *s);
    pthread_condattr_t ca;

    /* every operation but those the seam allows to be NULL */
    assert(be && be->name && be->commit && be->close && be->location);
    assert(be->find_player_by_token && be->find_player && be->find_account &&
           be->find_account_token && be->get_rating && be->player_ratings &&
           be->get_settings && be->get_playban && be->is_account &&
           be->maintenance && be->mod_history && be->rating_history &&
           be->leaderboard && be->rated_ends && be->get_game &&
           be->load_live && be->list_player_games && be->player_live_games &&
           be->live_gids && be->get_analysis && be->analyses_by &&
           be->queued_analyses && be->api_token && be->api_tokens &&
           be->load_arena && be->chat_lines && be->blocks && be->moderators &&
           be->open_reports && be->reports_by && be->report_queue);
    if (!s) {
        errtext_set(err, errlen, "out of memory");
        return NULL;
    }
    s->be = be;
    s->on_commit = on_commit;
    s->arg = arg;
    s->next_seq = 1;
    table_init(&s->epochs);
    if (pthread_condattr_init(&ca) != 0) {
        errtext_set(err, errlen, "cannot create a condition variable");
        free(s);
        return NULL;
    }
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_mutex_init(&s->mu, NULL) != 0) {
        pthread_condattr_destroy(&ca);
        errtext_set(err, errlen, "cannot create a mutex");
        free(s);
        return NULL;
    }
    if (pthread_cond_init(&s->cv, &ca) != 0) {
        pthread_condattr_destroy(&ca);
        pthread_mutex_destroy(&s->mu);
        errtext_set(err, errlen, "cannot create a condition variable");
        free(s);
        return NULL;
    }
    pthread_condattr_destroy(&ca);
    s->q = malloc(STORE_QUEUE_CAP * sizeof *s->q);
    s->batch = malloc(STORE_QUEUE_CAP * sizeof *s->batch);
    if (!s->q || !s->batch) {
        errtext_set(err, errlen, "out of memory");
        store_close(s);
        return NULL;
    }
    return s;
}

int store_open(struct store **out, const char *path,
               void (*on_commit)(void *arg), void *arg, char *err,
               size_t errlen)
{
    struct store *s;

    *out = NULL;
    if (!path || !*path) {
        errtext_set(err, errlen, "no database path given");
        return -1;
    }
    if (!(s = new_store(&store__sqlite, on_commit, arg, err, errlen)))
        return -1;
    if (store__sqlite_open(s, path, err, errlen) != 0 ||
        store__start(s, err, errlen) != 0 ||
        store__reader_start(s, err, errlen) != 0) {
        store_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

int store_open_pg(struct store **out, const char *conninfo,
                  const char *node_id, const struct store_pg_options *opt,
                  void (*on_commit)(void *arg), void *arg, char *err,
                  size_t errlen)
{
    struct store *s;

    *out = NULL;
    if (!conninfo || !*conninfo) {
        errtext_set(err, errlen, "no PostgreSQL connection string given");
        return -1;
    }
    if (!node_id || !*node_id || strlen(node_id) > STORE_NODE_ID_MAX) {
        errtext_set(err, errlen, "a node id of 1 to %d characters is needed",
                    STORE_NODE_ID_MAX);
        return -1;
    }
    if (!(s = new_store(&store__pg, on_commit, arg, err, errlen)))
        return -1;
    if (store__pg_open(s, conninfo, node_id, opt, err, errlen) != 0 ||
        store__start(s, err, errlen) != 0 ||
        store__reader_start(s, err, errlen) != 0) {
        store_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

int store__reader_schema(long long have, int newest, const char *where,
                         char *err, size_t errlen)
{
    if (have == newest)
        return 0;
    errtext_set(err, errlen,
                "%s: the database schema is version %lld and this "
                "chess-server's is %d: %s",
                where, have, newest,
                have < newest ? "start this chess-server on it once, which "
                                "migrates it"
                              : "use a newer chess-server");
    return -1;
}

int store_open_reader(struct store **out, const char *path,
                      const char *conninfo, char *err, size_t errlen)
{
    bool pg = conninfo && *conninfo;
    struct store *s;

    *out = NULL;
    if (!pg && (!path || !*path)) {
        errtext_set(err, errlen, "no database path given");
        return -1;
    }
    if (!(s = new_store(pg ? &store__pg : &store__sqlite, NULL, NULL, err,
                        errlen)))
        return -1;
    s->reader = true;
    /* (the reader thread too: its lock guards the reads' connection) */
    if ((pg ? store__pg_open_reader(s, conninfo, err, errlen)
            : store__sqlite_open_reader(s, path, err, errlen)) != 0 ||
        store__reader_start(s, err, errlen) != 0) {
        store_close(s);
        return -1;
    }
    *out = s;
    return 0;
}

void store_close(struct store *s)
{
    struct table_slot *slot;

    if (!s)
        return;
    /* the loop's: on the writer it would wait for itself */
    assert(!store__on_writer(s));
    /* the reads first: what their answers queue still gets written */
    store__reader_stop(s);
    pthread_mutex_lock(&s->mu);
    s->stopping = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (s->thread_started)
        pthread_join(s->thread, NULL);
    if (s->q)
        for (size_t i = 0; i < s->q_n; i++) /* only if the writer never ran */
            store__op_free(s->q[i]);
    if (s->be_state)
        s->be->close(s);
    for (size_t i = 0; i < s->epochs.cap; i++) {
        slot = &s->epochs.slots[i];
        if (slot->key && slot->value)
            free(slot->value);
    }
    table_clear(&s->epochs);
    free(s->fenced);
    while (s->spare) {
        struct op *o = s->spare;
        s->spare = o->next_spare;
        store__op_free(o);
    }
    free(s->q);
    free(s->batch);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

int store_schema_version(const struct store *s)
{
    return s->schema_version;
}

const char *store_backend_name(const struct store *s)
{
    return s->be->name;
}

void store_location(const struct store *s, char *buf, size_t len)
{
    s->be->location(s, buf, len);
}

/* ---- SQLite only ------------------------------------------------------ */

void store_hold_checkpoints(struct store *s, int hold)
{
    if (s->be->hold_checkpoints)
        s->be->hold_checkpoints(s, hold);
}

/* ---- counters --------------------------------------------------------- */

uint64_t store_committed(const struct store *s)
{
    return atomic_load(&s->committed);
}

uint64_t store_queued(const struct store *s)
{
    return atomic_load(&s->queued);
}

size_t store_queue_depth(const struct store *s)
{
    /* committed first: it only grows and never passes queued */
    uint64_t c = atomic_load(&s->committed);
    return (size_t)(atomic_load(&s->queued) - c);
}

int64_t store_last_commit_ms(const struct store *s)
{
    return atomic_load(&s->last_commit_ms);
}

const char *store_stalled(struct store *s, int64_t now)
{
    struct store_read_stats rd;

    store_read_stats(s, &rd);
    if (rd.busy_since && now - rd.busy_since >= LIMIT_HEALTH_READER_STALL_MS)
        return "reader";
    if (now - store_last_commit_ms(s) >= LIMIT_HEALTH_WRITER_STALL_MS)
        return "writer";
    return NULL;
}

uint64_t store_failures(const struct store *s, enum store_failure kind)
{
    assert((unsigned)kind < STORE_FAIL_KINDS);
    return atomic_load(&s->failures[kind]);
}

const char *store_failure_name(enum store_failure kind)
{
    static const char *const names[STORE_FAIL_KINDS] = {
        "commit", "write_dropped", "writes_lost",
        "read",   "checkpoint",    "fenced"};
    assert((unsigned)kind < STORE_FAIL_KINDS);
    return names[kind];
}

int64_t store_last_heartbeat_ms(const struct store *s)
{
    return s->last_heartbeat_ms;
}

void store_wal_stats(struct store *s, struct store_wal_stats *out)
{
    pthread_mutex_lock(&s->mu);
    *out = s->stats;
    pthread_mutex_unlock(&s->mu);
}

void store_pg_stats(const struct store *s, struct store_pg_stats *out)
{
    out->reconnects = atomic_load(&s->pg_reconnects);
    out->resolved[0] = atomic_load(&s->pg_resolved[0]);
    out->resolved[1] = atomic_load(&s->pg_resolved[1]);
}

void store_timing(struct store *s, struct store_timing *out)
{
    pthread_mutex_lock(&s->mu);
    *out = s->timing;
    pthread_mutex_unlock(&s->mu);
}
