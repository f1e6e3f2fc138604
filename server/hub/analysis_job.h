/*
 * analysis_job.h - one job of the computer analysis (analysis_job.c): a
 * finished game's positions, what the engine said of each, and the job
 * as the messages of PROTOCOL.md's "Computer analysis" show it. The
 * queue that runs jobs on the engine pool is analysis.c's.
 *
 * Pure but for the allocations: any thread (the loop's, in practice).
 */
#ifndef SERVER_HUB_ANALYSIS_JOB_H
#define SERVER_HUB_ANALYSIS_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "analysis.h"
#include "engine/pool.h"
#include "hub/analysis_relay.h"
#include "lib/addrkey.h"
#include "proto.h"

struct session;
struct store_game;
struct store_move;

/* The positions of a game analysed at most: the start and this many
 * plies (a longer game's last ones are left out). */
#define ANALYSIS_PLY_MAX 600
/* One position of a job. */
struct pos {
    struct analysis_score s;
    bool have;                 /* s is known */
    bool failed;               /* the engine did not answer it */
    bool asked;                /* sent to the pool, or known without it */
    char best[6];              /* the engine's best move there ("" none) */
    char san[10];              /* ... in SAN */
    enum analysis_judgement j; /* of the move that led here */
};

struct job {
    char gid[PROTO_KEY_MAX + 1];
    char pid[PROTO_KEY_MAX + 1]; /* who asked */
    char addr[ADDRKEY_MAX];      /* its address ("": re-queued) */
    bool own;                    /* the requester plays in it */
    uint64_t serial;             /* the pool's cookies name it */
    int64_t requested_ms;        /* wall */
    char fen[94];                /* the start position */
    int start;                   /* 0 White moves first, 1 Black */
    int n;                       /* positions: plies + 1 */
    char (*uci)[6];              /* the plies, [n - 1] */
    char (*san)[10];
    struct pos *pos; /* [n] */
    int next;        /* the first position not asked */
    int done, inflight;
    bool running;
    bool shared; /* the cluster's queue gave it to this node */
    char engine[UCI_NAME_MAX];
    struct session *subs[ANALYSIS_SUBS_MAX];
    int nsubs;
};

/* The options every position is searched with (engine_ask's and the
 * result's): one thread, a small hash, full strength, one line. */
extern const struct engine_option analysis_options[ENGINE_OPTIONS_MAX];

/* A job for a stored game (row, its moves[0..n)) asked by pid at
 * requested_ms (Unix): its plies replayed from its start (those the
 * rules refuse, and any past ANALYSIS_PLY_MAX, end it), and the
 * positions it ended in scored. NULL when out of memory or its start is
 * unusable. analysis_job_free frees one (NULL: nothing). */
struct job *analysis_job_new(const struct store_game *row,
                             const struct store_move *moves, size_t n,
                             const char *pid, int64_t requested_ms);
void analysis_job_free(struct job *j);

/* The engine's answer for position i of j: its score into White's point
 * of view and its best move into SAN; or the position failed (logged). */
void analysis_job_take(struct job *j, int i, const struct engine_answer *ans);

/* Position i as PROTOCOL.md's POSITION (a new reference). */
json_t *analysis_pos_json(const struct job *j, int i);

/* j as an `analysis` message (a new reference): status, the positions
 * known so far (null for those not yet), the engine, nodes (the budget)
 * and the options. */
json_t *analysis_job_json(const struct job *j, const char *status,
                          int64_t nodes);

/* Each move of j judged (once every position is in: lichess's Advice). */
void analysis_job_judge(struct job *j);

/* The end's figures of j (judged) into o: each side's accuracy (null
 * when a side made no move, or a position failed) and its counts of
 * inaccuracies, mistakes and blunders. */
void analysis_job_figures(json_t *o, const struct job *j);

#endif
