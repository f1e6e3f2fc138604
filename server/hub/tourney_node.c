/*
 * tourney_node.c - what both directors (arena_director.c,
 * swiss_director.c) do alike with an event on a node of a cluster
 * (tourney.h; docs/cluster.md "Tournaments in a cluster"): a command's
 * event found, or sent on to the node that directs it; a watch of
 * another node's event; a new event's first lease; which director runs
 * a command of cmd:E (hub_event_here); the events of the journals known
 * at a node's start (hub_tourney_known); a game's start told to its
 * player's connections on another node (tourney_told). tourney_cluster.c has the
 * lease, the relay, the copies and the takeover themselves.
 * Only the event-loop thread calls it.
 */
#include "hub/tourney.h"

#include <stdlib.h>
#include <string.h>

#include "hub/arena_director.h"
#include "lib/msgbuf.h"

struct tourney_event *tourney_event_of(struct tourney_director *d,
                                       struct session *s,
                                       const struct proto_msg *m)
{
    struct tourney_event *e = tourney_find(d, m->event);

    if (e && !tourney_directs(s->hub, e)) { /* (its lease in doubt) */
        hub_busy(s, &m->id);
        return NULL;
    }
    if (!e && !tourney_forward(d, s, m))
        hub_send_error(s, PROTO_NO_SUCH_EVENT, "no tournament has that id",
                       &m->id);
    return e;
}

bool tourney_reads(enum proto_type t)
{
    return t == PROTO_T_ARENA_WATCH || t == PROTO_T_SWISS_WATCH ||
           t == PROTO_T_SWISS_TRF || t == PROTO_T_ARENA_RESULTS ||
           t == PROTO_T_SWISS_RESULTS;
}

/* The answer to s's watch of a copy r of an event over (r->text: its
 * last standings), with "me" (s's row among them, or null); NULL when
 * out of memory. */
static char *copy_answer(const struct tourney_event *r, struct session *s,
                         const struct proto_id *id)
{
    json_t *o = json_loads(r->text, 0, NULL), *me = json_null(), *row;
    size_t i;

    json_array_foreach(json_object_get(o, "standings"), i, row)
    {
        const char *pid = json_string_value(json_object_get(row, "id"));
        if (pid && !strcmp(pid, s->player->pid)) {
            me = json_incref(row);
            break;
        }
    }
    if (o)
        json_object_set_new(o, "me", me);
    else
        json_decref(me);
    return tourney_finish(o, id);
}

bool tourney_watch_copy(struct tourney_director *d, struct session *s,
                        const struct proto_msg *m)
{
    struct tourney_event *r = tourney_remote(d, m->event);
    char *text;

    if (!r || !s->conn)
        return false;
    if (tourney_watch(d, r, s, m->page) < 0) {
        hub_send_error(s, PROTO_RATE_LIMITED, "out of memory", &m->id);
        return true;
    }
    /* (a copy not heard yet, known from the journal at start: its
     * director, once one takes it over, answers; its relay pushes) */
    if ((!r->finished || !r->text) && tourney_forward(d, s, m))
        return true;
    if (!r->text) {
        tourney_unwatch(d, s);
        return false;
    }
    if (!(text = copy_answer(r, s, &m->id))) {
        hub_busy(s, &m->id);
        return true;
    }
    hub_send_text(s, text, 0);
    return true;
}

void tourney_lease_new(struct tourney_director *d, struct tourney_event *e)
{
    /* (a cluster: a new id is nobody else's; its lease is taken at its
     * creation, before this first one runs out) */
    e->lease_until = tourney_clock_ms(d->hub) + TOURNEY_LEASE_MS * 2 / 3;
}

void tourney_created(struct tourney_director *d, struct tourney_event *e,
                     int64_t wall)
{
    tourney_leased(d, e);      /* (in a cluster: its lease asked now) */
    tourney_relay(d, e, wall); /* (... and the other nodes told) */
    tourney_arm(d->hub, d);
}

static bool here(struct tourney_director *d, struct hub *h, const char *eid)
{
    struct tourney_event *e = d ? tourney_find(d, eid) : NULL;

    return e && e->lease_until > 0 && tourney_directs(h, e);
}

bool hub_event_here(struct hub *h, const char *eid)
{
    return here(hub_arena_director(h), h, eid) ||
           here(hub_swiss_director(h), h, eid);
}

int hub_tourney_known(struct hub *h)
{
    if (!tourney_clustered(h))
        return 0;
    return hub_arena_known(h) < 0 || hub_swiss_known(h) < 0 ? -1 : 0;
}

void tourney_told(struct hub *h, struct player *p, const char *payload,
                  size_t len, int64_t now)
{
    char *text = malloc(len + 1);
    struct msgbuf *b;

    (void)h;
    (void)now;
    if (!text)
        return;
    memcpy(text, payload, len);
    text[len] = '\0';
    if ((b = msgbuf_take(text)) != NULL) { /* (its own connections) */
        for (size_t i = 0; i < p->nconns; i++)
            hub_session_send(p->conns[i], b, 0);
        msgbuf_unref(b);
    }
}
