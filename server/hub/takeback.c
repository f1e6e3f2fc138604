/*
 * takeback.c - takeback requests and time given, the commands
 * `takeback`, `takeback_accept`, `takeback_decline` and `give_time`
 * (PROTOCOL.md "Takebacks and time given"). The game's rules for them are
 * game_takeback.c's; this module adds what only the hub knows: both
 * players' takeback preference, the `takeback` key of their account
 * settings (prefs.h): "never", "casual" (the default, and every guest's)
 * or "always". A casual game allows a request when neither player says
 * never; a rated game only when both say always.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hub/hub_internal.h"
#include "hub/prefs.h"

enum takeback_pref { PREF_NEVER, PREF_CASUAL, PREF_ALWAYS };

/* Player pid's preference: its settings' "takeback", else casual. One
 * read of the store for an account (a request is rare: the command
 * bucket meters it). */
static enum takeback_pref pref_of(struct hub *h, const char *pid)
{
    enum takeback_pref p = PREF_CASUAL;
    char *text = prefs_get(h, pid);
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
static bool takebacks_allowed(struct hub *h, const struct game *g)
{
    for (int c = 0; c < 2; c++) {
        enum takeback_pref p = pref_of(h, game_seat_pid(g, c));
        if (p == PREF_NEVER || (game_rated(g) && p != PREF_ALWAYS))
            return false;
    }
    return true;
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
    bool allowed;
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
        allowed = game_color_of(g, pid) < 0 ||
                  game_status(g) != GAME_STARTED ||
                  takebacks_allowed(s->hub, g);
        rc = game_takeback(g, pid, allowed, now, &err);
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
