/*
 * takeback.c - takeback requests and time given, the commands
 * `takeback`, `takeback_accept`, `takeback_decline` and `give_time`
 * (PROTOCOL.md "Takebacks and time given"). The game's rules for them are
 * game_takeback.c's; this module adds what only the hub knows: both
 * players' takeback preference, the `takeback` key of their account
 * settings (prefs.h): "never", "casual" (the default, and every guest's)
 * or "always". A casual game allows a request when neither player says
 * never; a rated game only when both say always. The preferences are
 * read off the loop (reads.h): a player's request waits for that read,
 * and what the connection sends next waits behind it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hub/hub_internal.h"
#include "hub/prefs.h"
#include "hub/reads.h"

enum takeback_pref { PREF_NEVER, PREF_CASUAL, PREF_ALWAYS };

/* A request's read of both players' stored settings. */
struct pref_read {
    struct hub_read r;
    struct proto_msg m;
    char pid[2][PROTO_KEY_MAX + 1]; /* the seats' (white, black) */
    char *stored[2];                /* their settings' JSON, or NULL */
};

static int pref_run(struct store *st, struct hub_read *r)
{
    struct pref_read *q = (struct pref_read *)r;

    for (int c = 0; c < 2; c++)
        if (store_get_settings(st, q->pid[c], &q->stored[c]) < 0)
            return -1;
    return 0;
}

static void pref_clear(struct hub_read *r)
{
    struct pref_read *q = (struct pref_read *)r;

    free(q->stored[0]);
    free(q->stored[1]);
}

/* Seat c's preference: its settings' "takeback" (a save of this node's
 * the read may have missed first), else casual. */
static enum takeback_pref pref_of(struct hub *h, const struct pref_read *q,
                                  int c)
{
    enum takeback_pref p = PREF_CASUAL;
    char *text = prefs_get(h, q->pid[c], q->stored[c], q->r.seen);
    json_t *o = text ? json_loads(text, 0, NULL) : NULL;
    const char *v = json_string_value(json_object_get(o, "takeback"));

    if (v && !strcmp(v, "never"))
        p = PREF_NEVER;
    else if (v && !strcmp(v, "always"))
        p = PREF_ALWAYS;
    json_decref(o);
    free(text);
    return p;
}

/* Whether both players' preferences allow takebacks in g. */
static bool takebacks_allowed(struct hub *h, const struct game *g,
                              const struct pref_read *q)
{
    for (int c = 0; c < 2; c++) {
        enum takeback_pref p = pref_of(h, q, c);
        if (p == PREF_NEVER || (game_rated(g) && p != PREF_ALWAYS))
            return false;
    }
    return true;
}

/* The preferences read: the request goes on, on its game if it is still
 * here with the same players (else busy: the client asks again). */
static void pref_answer(struct hub_read *r, int rc)
{
    struct pref_read *q = (struct pref_read *)r;
    struct session *s = r->who;
    struct hub *h = r->h;
    struct game *g = table_get(&h->games, q->m.game);
    struct proto_error err = {PROTO_OK, ""};

    s->waiting = false; /* (the command runs on: no longer held) */
    if (rc < 0 || !g || !s->player || !h->router.ops->leased(h->router.ctx) ||
        strcmp(game_seat_pid(g, 0), q->pid[0]) ||
        strcmp(game_seat_pid(g, 1), q->pid[1]))
        hub_busy(s, &q->m.id);
    else if (game_takeback(g, s->player->pid, takebacks_allowed(h, g, q),
                           hub_now_ms(h), &err) < 0)
        hub_send_error(s, err.code, err.msg, &q->m.id);
    if (!s->waiting) /* (unless it waits again) */
        hub_session_replay(s);
}

/* A player's request in a live game: its players' preferences are read
 * first (pref_answer goes on). */
static void pref_read(struct session *s, const struct game *g,
                      const struct proto_msg *m)
{
    struct pref_read *q = calloc(1, sizeof *q);

    if (!q) {
        hub_busy(s, &m->id);
        return;
    }
    q->r.run = pref_run;
    q->r.answer = pref_answer;
    q->r.clear = pref_clear;
    q->m = *m;
    for (int c = 0; c < 2; c++)
        snprintf(q->pid[c], sizeof q->pid[c], "%s", game_seat_pid(g, c));
    if (hub_read_submit_for(s, &q->r, &m->id, 0) == 0)
        s->waiting = true; /* (what s sends next waits for its answer) */
}

/* Whether a seat of g is the computer's (hub/computer.c). */
static bool against_computer(const struct game *g)
{
    return proto_ai_level(game_seat_pid(g, 0)) > 0 ||
           proto_ai_level(game_seat_pid(g, 1)) > 0;
}

static void run(struct session *s, struct game *g, const struct proto_msg *m,
                int64_t now)
{
    const char *pid = s->player->pid;
    struct proto_error err = {PROTO_OK, ""};
    int rc = 0;

    if (game_color_of(g, pid) >= 0 && against_computer(g) &&
        (m->type == PROTO_T_TAKEBACK || m->type == PROTO_T_GIVE_TIME)) {
        /* the computer answers no request and needs no time */
        hub_send_error(s,
                       m->type == PROTO_T_TAKEBACK
                           ? PROTO_TAKEBACK_NOT_ALLOWED
                           : PROTO_GIVE_TIME_NOT_ALLOWED,
                       "not in a game against the computer", &m->id);
        return;
    }
    switch (m->type) {
    case PROTO_T_TAKEBACK:
        /* the preferences are read only for a player of a live game */
        if (game_color_of(g, pid) >= 0 && game_status(g) == GAME_STARTED) {
            pref_read(s, g, m);
            return;
        }
        rc = game_takeback(g, pid, true, now, &err);
        break;
    case PROTO_T_TAKEBACK_ACCEPT:
        rc = game_takeback_accept(g, pid, now, &err);
        break;
    case PROTO_T_TAKEBACK_DECLINE:
        rc = game_takeback_decline(g, pid, now, &err);
        break;
    case PROTO_T_GIVE_TIME:
        rc = game_give_time(g, pid, now, &err);
        break;
    default:
        break;
    }
    if (rc < 0)
        hub_send_error(s, err.code, err.msg, &m->id);
}

static void takeback_command(struct session *s, const struct proto_msg *m,
                             int64_t now)
{
    hub_run_game_command(s, m, now, run);
}

static const struct hub_command commands[] = {
    {PROTO_T_TAKEBACK, takeback_command, true},
    {PROTO_T_TAKEBACK_ACCEPT, takeback_command, true},
    {PROTO_T_TAKEBACK_DECLINE, takeback_command, true},
    {PROTO_T_GIVE_TIME, takeback_command, true},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_takeback_module = {
    .name = "takeback",
    .commands = commands,
};
