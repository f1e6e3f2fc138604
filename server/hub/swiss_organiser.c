/*
 * swiss_organiser.c - what the organiser of a Swiss event (its creator)
 * may do to it (PROTOCOL.md "Swiss tournaments"): pause and resume its
 * pairing, list the pairs that must not meet, pair the next round by
 * hand, remove a player, end it. Each is a call of the event's journal
 * (swiss_director.c's list), journaled before it is answered; anyone
 * else but a moderator (the operator's role) gets not_organiser. Only the
 * event-loop thread calls it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/swiss_tourney.h"
#include "lib/log.h"

/* m's event when s's player organises it; else NULL, the error sent. */
static struct swiss_tourney *
organised(struct session *s, const struct proto_msg *m, const char *what)
{
    struct swiss_tourney *e = swiss_tourney_of(s, m);
    char msg[PROTO_MSG_MAX];
    int organiser = e ? tourney_organiser(&e->head, s, m) : 1;

    if (organiser < 0)
        return NULL;
    if (!organiser) {
        snprintf(msg, sizeof msg,
                 "only the tournament's organiser (its creator) may %s",
                 what);
        hub_send_error(s, PROTO_NOT_ORGANISER, msg, &m->id);
        return NULL;
    }
    return e;
}

int swiss_apply_organiser(struct swiss_tourney *e, const char *line)
{
    int x, used, v[2 * PROTO_SWISS_PAIRS_MAX], n = 0;
    int64_t t;

    if (sscanf(line, "pause %" SCNd64, &t) == 1 ||
        sscanf(line, "resume %" SCNd64, &t) == 1) {
        e->paused = line[1] == 'a';
        return 1;
    }
    if (sscanf(line, "remove %d %" SCNd64, &x, &t) == 2) {
        if (x < 0 || x >= (int)e->np)
            return -1;
        tour_withdraw(&e->t, x, true);
        e->players[x].removed = true;
        return 1;
    }
    if (sscanf(line, "forbid %" SCNd64 "%n", &t, &used) == 1) {
        line += used;
        while (n < 2 * PROTO_SWISS_PAIRS_MAX &&
               sscanf(line, "%d%n", &v[n], &used) == 1) {
            n++;
            line += used;
        }
        return n % 2 == 0 && tour_forbid(&e->t, v, n / 2) == TOUR_OK ? 1 : -1;
    }
    return 0;
}

void swiss_do_pause(struct session *s, const struct proto_msg *m, int64_t now)
{
    bool pause = m->type == PROTO_T_SWISS_PAUSE;
    struct swiss_tourney *e = organised(s, m,
                                        pause ? "pause it" : "resume it");
    char line[64];

    (void)now;
    if (!e)
        return;
    if (e->paused == pause) { /* (nothing to journal) */
        tourney_send(s,
                     json_pack("{s:s,s:s}", "t",
                               pause ? "swiss_paused" : "swiss_resumed",
                               "event", e->head.id),
                     &m->id, e->head.seq);
        return;
    }
    snprintf(line, sizeof line, "%s %" PRId64, pause ? "pause" : "resume",
             hub_wall_ms(s->hub));
    log_info("event=swiss_%s swiss=%s", pause ? "paused" : "resumed",
             e->head.id);
    swiss_answer_call(s, m, e, line,
                      pause ? "swiss_paused" : "swiss_resumed");
}

void swiss_do_terminate(struct session *s, const struct proto_msg *m,
                        int64_t now)
{
    struct swiss_tourney *e = organised(s, m, "end it");
    char line[64];

    (void)now;
    if (!e)
        return;
    snprintf(line, sizeof line, "finish %" PRId64, hub_wall_ms(s->hub));
    log_info("event=swiss_terminated swiss=%s rounds=%d", e->head.id,
             e->t.rounds);
    swiss_answer_call(s, m, e, line, "swiss_terminated");
}

/* The index of the player m names (a PID, else a name) in e, or -1 with
 * the error sent: "WHERE: X has not joined this tournament". */
static int named(struct session *s, const struct proto_msg *m,
                 const struct swiss_tourney *e, const char *who,
                 const char *where, enum proto_code code)
{
    char msg[PROTO_MSG_MAX];
    int p = swiss_entrant_of(e, who);

    for (size_t i = 0; p < 0 && i < e->np; i++)
        if (!strcmp(e->players[i].name, who))
            p = (int)i;
    if (p < 0) {
        snprintf(msg, sizeof msg, "%s%s has not joined this tournament",
                 where, who);
        hub_send_error(s, code, msg, &m->id);
    }
    return p;
}

void swiss_do_remove(struct session *s, const struct proto_msg *m,
                     int64_t now)
{
    struct swiss_tourney *e = organised(s, m, "remove a player");
    char line[64];
    int p;

    (void)now;
    if (!e || (p = named(s, m, e, m->to, "", PROTO_NOT_JOINED)) < 0)
        return;
    if (e->players[p].removed) {
        hub_send_error(s, PROTO_NOT_JOINED, "that player was removed already",
                       &m->id);
        return;
    }
    snprintf(line, sizeof line, "remove %d %" PRId64, p, hub_wall_ms(s->hub));
    log_info("event=swiss_removed swiss=%s player=%s", e->head.id,
             e->players[p].pid);
    swiss_answer_call(s, m, e, line, "swiss_removed");
}

/* m's pairs as player indices into v (2 * m->npairs; -1 for a bye), or
 * -1 with the error sent. */
static int indices(struct session *s, const struct proto_msg *m,
                   const struct swiss_tourney *e, int *v)
{
    char where[32];

    for (int i = 0; i < 2 * m->npairs; i++) {
        const char *who = m->pairs[i / 2][i % 2];
        snprintf(where, sizeof where, "pairs[%d]: ", i / 2);
        if (!*who)
            v[i] = -1;
        else if ((v[i] = named(s, m, e, who, where, PROTO_BAD_PAIRINGS)) < 0)
            return -1;
    }
    return 0;
}

void swiss_do_forbid(struct session *s, const struct proto_msg *m,
                     int64_t now)
{
    struct swiss_tourney *e = organised(s, m, "forbid pairs");
    int v[2 * PROTO_SWISS_PAIRS_MAX];
    char line[64 + 2 * PROTO_SWISS_PAIRS_MAX * 6];
    size_t len;

    (void)now;
    if (!e || indices(s, m, e, v) < 0)
        return;
    len = (size_t)snprintf(line, sizeof line, "forbid %" PRId64,
                           hub_wall_ms(s->hub));
    for (int i = 0; i < 2 * m->npairs; i++) {
        if (i % 2 && v[i] == v[i - 1]) {
            hub_send_error(s, PROTO_BAD_PAIRINGS,
                           "a pair of one player with himself", &m->id);
            return;
        }
        len += (size_t)snprintf(line + len, sizeof line - len, " %d", v[i]);
    }
    log_info("event=swiss_forbidden swiss=%s pairs=%d", e->head.id,
             m->npairs);
    swiss_answer_call(s, m, e, line, "swiss_forbidden");
}

void swiss_do_pair(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct swiss_tourney *e = organised(s, m, "pair a round");
    int v[2 * PROTO_SWISS_PAIRS_MAX], n = 0, bye = -1;
    struct tour_board b[PROTO_SWISS_PAIRS_MAX];
    char why[PROTO_MSG_MAX];
    int64_t wall = hub_wall_ms(s->hub);

    (void)now;
    if (!e || indices(s, m, e, v) < 0)
        return;
    if (!tour_round_over(&e->t) || e->t.rounds >= e->t.total_rounds) {
        hub_send_error(s, PROTO_BAD_PAIRINGS,
                       e->t.rounds >= e->t.total_rounds
                           ? "every round has been paired"
                           : "the round in play has games going on: pair "
                             "the next one when they have ended",
                       &m->id);
        return;
    }
    for (int i = 0; i < m->npairs; i++) /* (the bye last) */
        if (v[2 * i + 1] < 0 && bye < 0)
            bye = v[2 * i];
        else
            b[n++] = (struct tour_board){v[2 * i], v[2 * i + 1], 0};
    if (bye >= 0)
        b[n++] = (struct tour_board){bye, -1, 0};
    if (tour_check_manual(&e->t, b, n, why, sizeof why) != TOUR_OK) {
        hub_send_error(s, PROTO_BAD_PAIRINGS, why, &m->id);
        return;
    }
    if (swiss_journal_round(s->hub, e, b, n, wall) < 0) {
        hub_send_error(s, PROTO_RATE_LIMITED, "the server is busy", &m->id);
        return;
    }
    log_info("event=swiss_manual_pairing swiss=%s round=%d boards=%d",
             e->head.id, e->t.rounds, n);
    tourney_send(s,
                 json_pack("{s:s,s:s,s:i}", "t", "swiss_paired", "event",
                           e->head.id, "round", e->t.rounds),
                 &m->id, e->head.seq);
    swiss_start_boards(s->hub, e, wall);
}
