/*
 * held.c - the commands a host holds while its lease is in doubt
 * (cluster_internal.h).
 *
 * A host whose lease may have lapsed (this process was paused, Redis is
 * slow or restarted) must not run a command on its games: another node
 * may have taken them and got the same command. It must not drop it
 * either: the client would wait for an answer that never comes (a move
 * unanswered while its clock runs). So the command waits here, in
 * order, until the lease is known:
 *
 *   - renewed (nobody could have taken the games): every held command
 *     runs, in the order it came;
 *   - found lost, and each game taken back (lease.c's reclaim): the
 *     game's commands run; a game another node took meanwhile is fenced
 *     and its commands are refused `rate_limited` ("busy"): the new host
 *     may have run them too, so they are not sent on;
 *   - neither within CLUSTER_HOLD_MS (Redis still away): refused busy.
 *
 * A command that comes for a game with commands held is held behind
 * them, so a game's commands keep their order. The list is short (only
 * the commands of a lease in doubt, at most CLUSTER_HELD_MAX; beyond,
 * refused at once).
 */
#include "cluster/cluster_internal.h"

#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

struct held {
    struct held *next;
    int64_t at; /* when it came (monotonic ms) */
    struct codec_msg m;
    char body[]; /* m.len bytes, NUL-terminated: m.body points here */
};

bool held_has(const struct cluster *c, const char *gid)
{
    for (const struct held *h = c->held; h; h = h->next)
        if (!strcmp(h->m.gid, gid))
            return true;
    return false;
}

void held_add(struct cluster *c, const struct codec_msg *m)
{
    struct held *h, **pp;

    if (c->n_held >= CLUSTER_HELD_MAX ||
        !(h = malloc(sizeof *h + m->len + 1))) {
        log_warn("event=cluster_command_refused game=%s why=%s", m->gid,
                 c->n_held >= CLUSTER_HELD_MAX ? "held_full"
                                               : "out_of_memory");
        host_refuse(c, m);
        return;
    }
    TRACE_CMD(c, "host_held", m->gid, m->node, m->conn,
              m->kind == CODEC_COMMAND ? m->body : NULL, m->len, "n=%zu",
              c->n_held);
    h->next = NULL;
    h->at = cluster_now(c);
    h->m = *m;
    if (m->len)
        memcpy(h->body, m->body, m->len);
    h->body[m->len] = '\0';
    h->m.body = h->body;
    h->m.conns = NULL;
    h->m.conn_list = NULL;
    for (pp = &c->held; *pp; pp = &(*pp)->next)
        ;
    *pp = h;
    c->m.held++;
    if (c->n_held++ == 0)
        log_info("event=cluster_commands_held game=%s why=lease", m->gid);
}

/* Takes the held commands of gid (NULL: all) off the list, in order. */
static struct held *take(struct cluster *c, const char *gid)
{
    struct held *out = NULL, **tail = &out, **pp = &c->held;

    while (*pp) {
        struct held *h = *pp;
        if (gid && strcmp(h->m.gid, gid)) {
            pp = &h->next;
            continue;
        }
        *pp = h->next;
        h->next = NULL;
        *tail = h;
        tail = &h->next;
        c->n_held--;
    }
    return out;
}

void held_run(struct cluster *c, const char *gid)
{
    struct held *h = take(c, gid);

    while (h) {
        struct held *next = h->next;
        host_on_command(c, &h->m); /* (held again if the lease is not) */
        free(h);
        h = next;
    }
}

void held_refuse(struct cluster *c, const char *gid)
{
    struct held *h = take(c, gid);

    while (h) {
        struct held *next = h->next;
        host_refuse(c, &h->m);
        free(h);
        h = next;
    }
}

void held_expire(struct cluster *c, int64_t now)
{
    size_t n = 0;

    while (c->held && now - c->held->at >= CLUSTER_HOLD_MS) {
        struct held *h = c->held; /* (the oldest first) */
        c->held = h->next;
        c->n_held--;
        host_refuse(c, &h->m);
        free(h);
        n++;
    }
    if (n)
        log_warn("event=cluster_command_refused why=lease_unknown "
                 "refused=%zu held_ms=%d",
                 n, CLUSTER_HOLD_MS);
}

void held_free(struct cluster *c)
{
    struct held *h = take(c, NULL);

    while (h) {
        struct held *next = h->next;
        free(h);
        h = next;
    }
}
