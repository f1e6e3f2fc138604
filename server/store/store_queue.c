/*
 * store_queue.c - the store core's queued writes (store_internal.h): each
 * store_put_* and the other writes of store.h checks its arguments,
 * copies them into an op (a move's into a spare op of a committed move
 * when there is one) and appends it to the queue under `mu` with the
 * next sequence number; the writer thread (store_writer.c) commits it.
 */
#include "store/store_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ending.h"
#include "strcopy.h"
#include "sysclock.h"

/* ---- enqueue ---------------------------------------------------------- */

/* enqueue under s->mu: the op's sequence number, or 0 when the queue is
 * full or closing (op is then still the caller's). */
static uint64_t enqueue_locked(struct store *s, struct op *op)
{
    uint64_t seq;

    /* the loop's: on_commit, on the writer, must not write */
    assert(!store__on_writer(s));
    assert(!s->reader); /* no writer would ever commit it */
    if (s->q_n >= STORE_QUEUE_CAP || s->stopping)
        return 0;
    seq = op->seq = s->next_seq++;
    /* handed out one by one, under mu */
    assert(seq == atomic_load(&s->queued) + 1);
    op->queued_us = sysclock_us(CLOCK_MONOTONIC);
    s->q[s->q_n++] = op;
    atomic_store(&s->queued, seq);
    if (s->q_n == 1)
        pthread_cond_signal(&s->cv);
    return seq;
}

static uint64_t enqueue(struct store *s, struct op *op)
{
    uint64_t seq;

    if (!op)
        return 0;
    pthread_mutex_lock(&s->mu);
    seq = enqueue_locked(s, op);
    pthread_mutex_unlock(&s->mu);
    if (!seq)
        store__op_free(op);
    return seq;
}

static struct op *op_new(enum op_kind kind)
{
    struct op *op = calloc(1, sizeof *op);

    if (op)
        op->kind = kind;
    return op;
}

void store__op_free(struct op *op)
{
    if (op) {
        free(op->pgn);
        free(op->moves);
        free(op->ratings);
        free(op->keep);
        free(op->text);
        free(op);
    }
}

static bool valid_status(const char *st)
{
    return !strcmp(st, "waiting") || !strcmp(st, "started") ||
           !strcmp(st, "ended");
}

/* Copies g into op with every string terminated; false when g is not a
 * game row the schema would accept. */
static bool copy_game(struct op *op, const struct store_game *g)
{
    struct store_game *c = &op->u.game;

    *c = *g;
    STORE_TERMINATE(c->gid);
    STORE_TERMINATE(c->white_pid);
    STORE_TERMINATE(c->white_name);
    STORE_TERMINATE(c->black_pid);
    STORE_TERMINATE(c->black_name);
    STORE_TERMINATE(c->creator_pid);
    STORE_TERMINATE(c->initial_fen);
    STORE_TERMINATE(c->status);
    STORE_TERMINATE(c->result);
    STORE_TERMINATE(c->reason);
    STORE_TERMINATE(c->final_fen);
    STORE_TERMINATE(c->draw_offer);
    return c->gid[0] && c->initial_fen[0] &&
           (c->clock.per_move == 0 || c->clock.per_move == 1) &&
           c->lag_ms[0] >= 0 && c->lag_ms[1] >= 0 &&
           (!c->result[0] || ending_result_find(c->result, NULL) == 0) &&
           (!c->reason[0] || ending_find(c->reason)) &&
           (!c->draw_offer[0] || !strcmp(c->draw_offer, "white") ||
            !strcmp(c->draw_offer, "black"));
}

uint64_t store_put_player(struct store *s, const struct store_player *p)
{
    struct op *op;

    if (!s || !p)
        return 0;
    if (!(op = op_new(OP_PLAYER)))
        return 0;
    op->u.player = *p;
    STORE_TERMINATE(op->u.player.pid);
    STORE_TERMINATE(op->u.player.name);
    if (!op->u.player.pid[0]) {
        store__op_free(op);
        return 0;
    }
    return enqueue(s, op);
}

uint64_t store_put_game(struct store *s, const struct store_game *g)
{
    struct op *op;

    if (!s || !g)
        return 0;
    if (!(op = op_new(OP_GAME)))
        return 0;
    if (!copy_game(op, g) || !valid_status(op->u.game.status)) {
        store__op_free(op);
        return 0;
    }
    return enqueue(s, op);
}

/* A move op's contents: every field the writer or a backend reads (a
 * spare op keeps the last move's bytes elsewhere, and its flags). */
static void fill_move(struct op *op, const char *gid,
                      const struct store_move *m)
{
    strcopy(op->u.move.gid, sizeof op->u.move.gid, gid);
    op->u.move.m = *m;
    STORE_TERMINATE(op->u.move.m.uci);
    STORE_TERMINATE(op->u.move.m.san);
    op->epoch = 0;
    op->dropped = false;
    op->fence = false;
}

uint64_t store_put_move(struct store *s, const char *gid,
                        const struct store_move *m)
{
    struct op *op;
    uint64_t seq;

    if (!s || !gid || !*gid || !m || m->ply < 1 || !m->uci[0])
        return 0;
    pthread_mutex_lock(&s->mu);
    if ((op = s->spare)) { /* a committed move's, all of it rewritten */
        s->spare = op->next_spare;
        s->n_spare--;
        fill_move(op, gid, m);
        if ((seq = enqueue_locked(s, op)) == 0) {
            op->next_spare = s->spare;
            s->spare = op;
            s->n_spare++;
        }
        pthread_mutex_unlock(&s->mu);
        return seq;
    }
    pthread_mutex_unlock(&s->mu);
    if (!(op = op_new(OP_MOVE)))
        return 0;
    fill_move(op, gid, m);
    return enqueue(s, op);
}

/* True for a category's name as the ratings table's CHECK has it. */
static bool valid_category(const char *c)
{
    static const char *const names[] = {"bullet", "blitz", "rapid",
                                        "classical", "per_move"};

    for (size_t i = 0; i < STORE_N_OF(names); i++)
        if (!strcmp(c, names[i]))
            return true;
    return false;
}

/* Copies the two ratings of a rated end into op; false when one is not
 * usable (an empty pid, an unknown category, a pid not in its seat). */
static bool copy_ratings(struct op *op, const struct store_rating *r)
{
    const char *seat[2] = {op->u.game.white_pid, op->u.game.black_pid};

    op->ratings = malloc(2 * sizeof *op->ratings);
    if (!op->ratings)
        return false;
    memcpy(op->ratings, r, 2 * sizeof *op->ratings);
    for (int c = 0; c < 2; c++) {
        struct store_rating *x = &op->ratings[c];
        STORE_TERMINATE(x->pid);
        STORE_TERMINATE(x->category);
        if (!x->pid[0] || strcmp(x->pid, seat[c]) ||
            !valid_category(x->category))
            return false;
    }
    return true;
}

uint64_t store_finish_game(struct store *s, const struct store_game *g,
                           const struct store_move *moves, size_t n_moves,
                           const char *pgn,
                           const struct store_rating *ratings)
{
    struct op *op;

    if (!s || !g || !pgn || (n_moves && !moves))
        return 0;
    if (!(op = op_new(OP_FINISH)))
        return 0;
    if (n_moves) {
        op->moves = malloc(n_moves * sizeof *op->moves);
        if (!op->moves) {
            store__op_free(op);
            return 0;
        }
        op->n_moves = n_moves;
        for (size_t i = 0; i < n_moves; i++) {
            op->moves[i] = moves[i];
            STORE_TERMINATE(op->moves[i].uci);
            STORE_TERMINATE(op->moves[i].san);
            if (!op->moves[i].uci[0] || op->moves[i].ply < 1) {
                store__op_free(op);
                return 0;
            }
        }
    }
    if (!copy_game(op, g) || !op->u.game.result[0] ||
        !(op->pgn = strdup(pgn)) ||
        (ratings && (!op->u.game.rated || !copy_ratings(op, ratings)))) {
        store__op_free(op);
        return 0;
    }
    strcopy(op->u.game.status, sizeof op->u.game.status, "ended");
    return enqueue(s, op);
}

static int cmp_pid(const void *a, const void *b)
{
    return strcmp(a, b);
}

uint64_t store_purge_guests(struct store *s, int64_t before_ms,
                            const char *const *keep, size_t n_keep)
{
    struct op *op;

    if (!s || (n_keep && !keep))
        return 0;
    if (!(op = op_new(OP_PURGE)))
        return 0;
    op->u.purge.before_ms = before_ms;
    op->u.purge.n_keep = n_keep;
    if (n_keep) {
        op->keep = malloc(n_keep * sizeof *op->keep);
        if (!op->keep) {
            store__op_free(op);
            return 0;
        }
        for (size_t i = 0; i < n_keep; i++)
            strcopy(op->keep[i], sizeof op->keep[i], keep[i]);
        qsort(op->keep, n_keep, sizeof *op->keep, cmp_pid);
    }
    return enqueue(s, op);
}

uint64_t store_register(struct store *s, const struct store_account *a,
                        const uint8_t dead_hash[32],
                        const uint8_t token_hash[32])
{
    struct op *op;

    if (!s || !a || !dead_hash || !token_hash)
        return 0;
    if (!(op = op_new(OP_REGISTER)))
        return 0;
    op->u.reg.a = *a;
    STORE_TERMINATE(op->u.reg.a.pid);
    STORE_TERMINATE(op->u.reg.a.username);
    STORE_TERMINATE(op->u.reg.a.password_hash);
    memcpy(op->u.reg.dead, dead_hash, 32);
    memcpy(op->u.reg.token, token_hash, 32);
    if (!op->u.reg.a.pid[0] || !op->u.reg.a.username[0] ||
        !op->u.reg.a.password_hash[0]) {
        store__op_free(op);
        return 0;
    }
    return enqueue(s, op);
}

/* A token op with what its kind needs (pid, hash, ms; NULL: unused). */
static uint64_t token_op(struct store *s, enum op_kind kind, const char *pid,
                         const uint8_t *hash, int64_t ms)
{
    struct op *op;

    if (!s || (pid && !*pid))
        return 0;
    if (!(op = op_new(kind)))
        return 0;
    if (pid)
        strcopy(op->u.token.pid, sizeof op->u.token.pid, pid);
    if (hash)
        memcpy(op->u.token.hash, hash, 32);
    op->u.token.ms = ms;
    return enqueue(s, op);
}

uint64_t store_put_token(struct store *s, const char *pid,
                         const uint8_t hash[32], int64_t now_ms)
{
    return pid && hash ? token_op(s, OP_TOKEN_PUT, pid, hash, now_ms) : 0;
}

uint64_t store_touch_token(struct store *s, const uint8_t hash[32],
                           int64_t now_ms)
{
    return hash ? token_op(s, OP_TOKEN_TOUCH, NULL, hash, now_ms) : 0;
}

uint64_t store_revoke_token(struct store *s, const uint8_t hash[32])
{
    return hash ? token_op(s, OP_TOKEN_REVOKE, NULL, hash, 0) : 0;
}

uint64_t store_revoke_tokens(struct store *s, const char *pid)
{
    return pid ? token_op(s, OP_TOKENS_REVOKE, pid, NULL, 0) : 0;
}

uint64_t store_put_bot(struct store *s, const char *pid)
{
    return pid && *pid ? token_op(s, OP_BOT, pid, NULL, 0) : 0;
}

uint64_t store_expire_tokens(struct store *s, int64_t before_ms)
{
    return token_op(s, OP_TOKENS_EXPIRE, NULL, NULL, before_ms);
}

/* An account's text (OP_SETTINGS, OP_PLAYBAN) of lo to hi bytes. */
static uint64_t account_text(struct store *s, enum op_kind k, const char *pid,
                             const char *json, size_t lo, size_t hi,
                             int64_t now_ms)
{
    struct op *op;
    size_t n = json ? strlen(json) : 0;

    if (!s || !pid || !*pid || n < lo || n > hi)
        return 0;
    if (!(op = op_new(k)))
        return 0;
    strcopy(op->u.settings.pid, sizeof op->u.settings.pid, pid);
    op->u.settings.ms = now_ms;
    if (!(op->text = strdup(json))) {
        store__op_free(op);
        return 0;
    }
    return enqueue(s, op);
}

uint64_t store_put_settings(struct store *s, const char *pid,
                            const char *json, int64_t now_ms)
{
    return account_text(s, OP_SETTINGS, pid, json, 2, STORE_SETTINGS_MAX,
                        now_ms);
}

uint64_t store_put_playban(struct store *s, const char *pid, const char *text,
                           int64_t now_ms)
{
    return account_text(s, OP_PLAYBAN, pid, text, 5, STORE_PLAYBAN_MAX,
                        now_ms);
}

uint64_t store_put_analysis(struct store *s, const struct store_analysis *a,
                            const char *result)
{
    struct op *op;
    size_t n = result ? strlen(result) : 0;

    if (!s || !a || !*a->gid || !*a->pid || n < 2 || n > STORE_ANALYSIS_MAX ||
        (strcmp(a->status, "queued") && strcmp(a->status, "done")))
        return 0;
    if (!(op = op_new(OP_ANALYSIS)))
        return 0;
    op->u.analysis = *a;
    STORE_TERMINATE(op->u.analysis.gid);
    STORE_TERMINATE(op->u.analysis.pid);
    STORE_TERMINATE(op->u.analysis.status);
    if (!(op->text = strdup(result))) {
        store__op_free(op);
        return 0;
    }
    return enqueue(s, op);
}

uint64_t store_put_chat(struct store *s, const struct store_chat_line *l)
{
    struct op *op;

    if (!s || !l || !*l->gid || !*l->room || !*l->text)
        return 0;
    if (!(op = op_new(OP_CHAT)))
        return 0;
    strcopy(op->u.chat.gid, sizeof op->u.chat.gid, l->gid);
    strcopy(op->u.chat.room, sizeof op->u.chat.room, l->room);
    strcopy(op->u.chat.pid, sizeof op->u.chat.pid, l->pid);
    strcopy(op->u.chat.name, sizeof op->u.chat.name, l->name);
    op->u.chat.at_ms = l->at_ms;
    if (!(op->text = strdup(l->text))) {
        store__op_free(op);
        return 0;
    }
    return enqueue(s, op);
}

static uint64_t put_call(struct store *s, bool swiss, const char *event,
                         int64_t seq, const char *call, int64_t at_ms)
{
    struct op *op;
    size_t n = call ? strlen(call) : 0;

    if (!s || !event || !*event || strlen(event) > 32 || seq < 0 || n < 1 ||
        n > STORE_ARENA_CALL_MAX)
        return 0;
    if (!(op = op_new(OP_ARENA)))
        return 0;
    strcopy(op->u.arena.event, sizeof op->u.arena.event, event);
    op->u.arena.seq = seq;
    op->u.arena.ms = at_ms;
    op->u.arena.swiss = swiss;
    if (!(op->text = strdup(call))) {
        store__op_free(op);
        return 0;
    }
    return enqueue(s, op);
}

uint64_t store_put_arena(struct store *s, const char *event, int64_t seq,
                         const char *call, int64_t at_ms)
{
    return put_call(s, false, event, seq, call, at_ms);
}

uint64_t store_put_swiss(struct store *s, const char *event, int64_t seq,
                         const char *call, int64_t at_ms)
{
    return put_call(s, true, event, seq, call, at_ms);
}

uint64_t store_put_api_token(struct store *s, const struct store_api_token *t)
{
    struct op *op;

    if (!s || !t || !t->id[0] || !t->pid[0])
        return 0;
    if (!(op = op_new(OP_API_TOKEN_PUT)))
        return 0;
    op->u.api = *t;
    STORE_TERMINATE(op->u.api.id);
    STORE_TERMINATE(op->u.api.pid);
    STORE_TERMINATE(op->u.api.description);
    STORE_TERMINATE(op->u.api.scopes);
    op->u.api.username[0] = '\0';
    return enqueue(s, op);
}

uint64_t store_revoke_api_token(struct store *s, const char *id,
                                const char *pid)
{
    struct op *op;

    if (!s || !id || !*id)
        return 0;
    if (!(op = op_new(OP_API_TOKEN_REVOKE)))
        return 0;
    strcopy(op->u.api.id, sizeof op->u.api.id, id);
    strcopy(op->u.api.pid, sizeof op->u.api.pid, pid ? pid : "");
    return enqueue(s, op);
}

uint64_t store_put_block(struct store *s, const char *pid,
                         const char *blocked, bool on, int64_t at_ms)
{
    struct op *op;

    if (!s || !pid || !*pid || !blocked || !*blocked)
        return 0;
    if (!(op = op_new(OP_BLOCK)))
        return 0;
    strcopy(op->u.block.pid, sizeof op->u.block.pid, pid);
    strcopy(op->u.block.blocked, sizeof op->u.block.blocked, blocked);
    op->u.block.on = on;
    op->u.block.at_ms = at_ms;
    return enqueue(s, op);
}

uint64_t store_put_report(struct store *s, const struct store_report *r)
{
    struct op *op;

    if (!s || !r || !*r->reporter || !*r->suspect || !*r->text)
        return 0;
    if (!(op = op_new(OP_REPORT)))
        return 0;
    op->u.report = *r;
    STORE_TERMINATE(op->u.report.reporter);
    STORE_TERMINATE(op->u.report.suspect);
    STORE_TERMINATE(op->u.report.reason);
    STORE_TERMINATE(op->u.report.text);
    return enqueue(s, op);
}

uint64_t store_put_moderator(struct store *s, const char *pid, bool on)
{
    struct op *op;

    if (!s || !pid || !*pid)
        return 0;
    if (!(op = op_new(OP_MODERATOR)))
        return 0;
    strcopy(op->u.role.pid, sizeof op->u.role.pid, pid);
    op->u.role.on = on;
    return enqueue(s, op);
}

uint64_t store_put_mod_action(struct store *s,
                              const struct store_mod_action *a)
{
    struct op *op;

    if (!s || !a || !*a->moderator || !*a->text ||
        !*a->target != (!strncmp(a->action, "maintenance", 11) ||
                        !strcmp(a->action, "game_end")))
        return 0;
    if (!(op = op_new(OP_MOD_ACTION)))
        return 0;
    op->u.mod = *a;
    STORE_TERMINATE(op->u.mod.moderator);
    STORE_TERMINATE(op->u.mod.target);
    STORE_TERMINATE(op->u.mod.action);
    STORE_TERMINATE(op->u.mod.reason);
    STORE_TERMINATE(op->u.mod.text);
    STORE_TERMINATE(op->u.mod.game);
    STORE_TERMINATE(op->u.mod.room);
    return enqueue(s, op);
}

uint64_t store_take_epoch(struct store *s, const char *gid, int64_t epoch)
{
    struct op *op;

    if (!s || !gid || !*gid || strlen(gid) > 32 || epoch < 1)
        return 0;
    if (!(op = op_new(OP_EPOCH)))
        return 0;
    strcopy(op->u.take.gid, sizeof op->u.take.gid, gid);
    op->epoch = epoch;
    return enqueue(s, op);
}
