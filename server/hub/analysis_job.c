/*
 * analysis_job.c - one job of the computer analysis (analysis_job.h).
 */
#include "hub/analysis_job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "movegen.h"
#include "notation.h"
#include "store/store.h"

/* A position's object: its score ({"cp":N}, {"mate":N} or
 * {"checkmate":true}, White's point of view), or {"failed":true}; its
 * best move; the judgement of the move that led to it. */
void analysis_job_judge(struct job *j)
{
    for (int i = 1; i < j->n; i++)
        if (j->pos[i - 1].have && j->pos[i].have)
            j->pos[i].j = analysis_judge(j->pos[i - 1].s, j->pos[i].s,
                                         (j->start + i - 1) % 2);
}

json_t *analysis_pos_json(const struct job *j, int i)
{
    const struct pos *p = &j->pos[i];
    json_t *o = json_object();

    if (p->failed)
        json_object_set_new(o, "failed", json_true());
    else if (p->s.kind == ANALYSIS_CP)
        json_object_set_new(o, "cp", json_integer(p->s.value));
    else if (p->s.kind == ANALYSIS_MATE)
        json_object_set_new(o, "mate", json_integer(p->s.value));
    else
        json_object_set_new(o, "checkmate", json_true());
    if (p->best[0]) {
        json_object_set_new(o, "best", json_string(p->best));
        json_object_set_new(o, "best_san", json_string(p->san));
    }
    if (p->j != ANALYSIS_GOOD)
        json_object_set_new(o, "judgement",
                            json_string(analysis_judgement_name(p->j)));
    return o;
}

/* The options every position is searched with (engine_ask's and the
 * result's): one thread, a small hash, full strength, one line. */
const struct engine_option analysis_options[ENGINE_OPTIONS_MAX] = {
    {"Threads", "1"},
    {"Hash", "16"},
    {"Skill Level", "20"},
    {"MultiPV", "1"},
};

/* The job as an `analysis` message: status, the positions known so far
 * (null for those not yet), and when done the accuracies and counts. */
json_t *analysis_job_json(const struct job *j, const char *status,
                          int64_t nodes)
{
    json_t *o = json_object(), *v = json_array(), *opt = json_object();

    json_object_set_new(o, "t", json_string("analysis"));
    json_object_set_new(o, "game", json_string(j->gid));
    json_object_set_new(o, "status", json_string(status));
    json_object_set_new(o, "done", json_integer(j->done));
    json_object_set_new(o, "total", json_integer(j->n));
    json_object_set_new(o, "engine", json_string(j->engine));
    json_object_set_new(o, "nodes", json_integer(nodes));
    for (int i = 0; i < ENGINE_OPTIONS_MAX; i++)
        json_object_set_new(opt, analysis_options[i].name,
                            json_string(analysis_options[i].value));
    json_object_set_new(o, "options", opt);
    for (int i = 0; i < j->n; i++)
        json_array_append_new(v, j->pos[i].have || j->pos[i].failed
                                     ? analysis_pos_json(j, i)
                                     : json_null());
    json_object_set_new(o, "positions", v);
    return o;
}

void analysis_job_figures(json_t *o, const struct job *j)
{
    static const char *const side[2] = {"white", "black"};
    struct analysis_score s[ANALYSIS_PLY_MAX];
    json_t *acc = json_object(), *counts = json_object();
    double a[2];
    int c[2][4] = {{0}}, ok = 1;

    for (int i = 1; i < j->n; i++) {
        s[i - 1] = j->pos[i].s;
        ok &= j->pos[i].have;
        c[(j->start + i - 1) % 2][j->pos[i].j]++;
    }
    ok = ok && analysis_game_accuracy(s, j->n - 1, j->start, a) == 0;
    for (int k = 0; k < 2; k++) {
        json_t *ck = json_object();
        json_object_set_new(acc, side[k], ok ? json_real(a[k]) : json_null());
        for (int x = ANALYSIS_INACCURACY; x <= ANALYSIS_BLUNDER; x++)
            json_object_set_new(ck, analysis_judgement_name(x),
                                json_integer(c[k][x]));
        json_object_set_new(counts, side[k], ck);
    }
    json_object_set_new(o, "accuracy", acc);
    json_object_set_new(o, "counts", counts);
}

void analysis_job_free(struct job *j)
{
    if (!j)
        return;
    free(j->uci);
    free(j->san);
    free(j->pos);
    free(j);
}

/* Position i's board into *b (replaying j's plies from its start). */
static void board_at(const struct job *j, int i, struct board *b)
{
    struct board_undo u;
    move_t m;

    board_from_fen(b, j->fen);
    for (int k = 0; k < i; k++)
        if (notation_parse_uci(b, j->uci[k], &m) == 0)
            board_make(b, m, &u);
}

/* A job for a stored game: its plies replayed from its start (those
 * the rules refuse, and any past ANALYSIS_PLY_MAX, end it), and the
 * positions it ended in scored. NULL when out of memory or its start is
 * unusable. */
struct job *analysis_job_new(const struct store_game *row,
                             const struct store_move *moves, size_t n,
                             const char *pid, int64_t requested_ms)
{
    struct job *j = calloc(1, sizeof *j);
    struct board b;
    struct board_undo u;
    size_t plies = n < ANALYSIS_PLY_MAX ? n : ANALYSIS_PLY_MAX;
    move_t m;

    if (!j || board_from_fen(&b, row->initial_fen) != 0) {
        free(j);
        return NULL;
    }
    snprintf(j->gid, sizeof j->gid, "%s", row->gid);
    snprintf(j->pid, sizeof j->pid, "%s", pid);
    snprintf(j->fen, sizeof j->fen, "%s", row->initial_fen);
    j->own = !strcmp(pid, row->white_pid) || !strcmp(pid, row->black_pid);
    j->requested_ms = requested_ms;
    j->start = b.side == WHITE ? 0 : 1;
    j->uci = calloc(plies + 1, sizeof *j->uci);
    j->san = calloc(plies + 1, sizeof *j->san);
    j->pos = calloc(plies + 1, sizeof *j->pos);
    if (!j->uci || !j->san || !j->pos) {
        analysis_job_free(j);
        return NULL;
    }
    for (j->n = 1; (size_t)j->n <= plies; j->n++) {
        const struct store_move *mv = &moves[j->n - 1];
        if (notation_parse_uci(&b, mv->uci, &m) != 0)
            break;
        snprintf(j->uci[j->n - 1], sizeof j->uci[0], "%s", mv->uci);
        snprintf(j->san[j->n - 1], sizeof j->san[0], "%s", mv->san);
        board_make(&b, m, &u);
    }
    if (!movegen_has_legal(&b)) { /* the game ended in it */
        struct pos *p = &j->pos[j->n - 1];
        p->s.kind = board_in_check(&b) ? ANALYSIS_MATED : ANALYSIS_CP;
        p->s.value = p->s.kind == ANALYSIS_CP ? 0 : b.side == WHITE ? -1 : 1;
        p->have = p->asked = true;
        j->done = 1;
    }
    return j;
}

/* The engine's score of position i (the side to move's point of view)
 * into White's, and its best move into SAN. */
void analysis_job_take(struct job *j, int i, const struct engine_answer *ans)
{
    struct pos *p = &j->pos[i];
    int pov = (j->start + i) % 2 == 0 ? 1 : -1;
    struct board b;
    move_t m;

    if (ans->status != ENGINE_OK || !ans->info.has_score) {
        p->failed = true;
        log_warn("event=analysis_position_failed game=%s position=%d "
                 "status=%d fault=%s",
                 j->gid, i, (int)ans->status, engine_fault_name(ans->fault));
        return;
    }
    p->s.kind = ans->info.mate ? ANALYSIS_MATE : ANALYSIS_CP;
    p->s.value = ans->info.score * pov;
    p->have = true;
    snprintf(p->best, sizeof p->best, "%s", ans->bestmove);
    board_at(j, i, &b);
    if (notation_parse_uci(&b, p->best, &m) == 0)
        notation_san(&b, m, p->san);
    if (ans->engine && ans->engine[0])
        snprintf(j->engine, sizeof j->engine, "%s", ans->engine);
}
