/*
 * prefs.c - an account's preferences, the protocol's `settings` (see
 * prefs.h).
 */
#include "hub/prefs.h"

#include <assert.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/hub_internal.h"
#include "hub/reads.h"
#include "lib/log.h"
#include "lib/msgbuf.h"
#include "lib/ratelimit.h"
#include "store/store.h"
#include "lib/table.h"
#include "lib/tunables.h"

/* A save queued for the store, until it has committed. */
struct saved {
    char pid[PROTO_KEY_MAX + 1];
    uint64_t seq;
    char *text; /* the JSON object, owned */
};

struct prefs {
    struct table saved;      /* pid -> struct saved */
    struct ratelimit *saves; /* per account, by pid */
};

extern const struct hub_module hub_prefs_module; /* (below) */

static struct prefs *P(struct hub *h)
{
    struct prefs *pf = hub_module_state(h, &hub_prefs_module);

    assert(pf); /* (its init ran) */
    return pf;
}

static struct prefs *prefs_new(void)
{
    struct prefs *pf = calloc(1, sizeof *pf);

    if (!pf)
        return NULL;
    pf->saves = ratelimit_new(LIMIT_SETTINGS_PER_MIN / 60.0,
                              LIMIT_SETTINGS_BURST, LIMIT_SETTINGS_KEYS);
    if (!pf->saves) {
        free(pf);
        return NULL;
    }
    table_init(&pf->saved);
    return pf;
}

static void saved_free(struct saved *e)
{
    if (e) {
        free(e->text);
        free(e);
    }
}

static void prefs_free(struct prefs *pf)
{
    if (!pf)
        return;
    for (size_t i = 0; i < pf->saved.cap; i++)
        saved_free(pf->saved.slots[i].value);
    table_clear(&pf->saved);
    ratelimit_free(pf->saves);
    free(pf);
}

/* Remembers text, queued for pid at seq, until it commits. */
static void remember(struct prefs *pf, const char *pid, const char *text,
                     uint64_t seq)
{
    struct saved *e = table_get(&pf->saved, pid);
    char *copy = strdup(text);

    if (!copy)
        goto oom;
    if (!e) {
        e = calloc(1, sizeof *e);
        if (!e)
            goto oom;
        snprintf(e->pid, sizeof e->pid, "%s", pid);
        if (table_put(&pf->saved, e->pid, e) < 0) {
            free(e);
            goto oom;
        }
    }
    free(e->text);
    e->text = copy;
    e->seq = seq;
    return;
oom: /* a welcome before the commit may show the settings replaced */
    free(copy);
    log_warn("event=settings_unrecorded player=%s what=out_of_memory", pid);
}

void prefs_command(struct session *s, const struct proto_msg *m, int64_t now)
{
    struct hub *h = s->hub;
    struct player *p = s->player;
    uint64_t seq;

    if (!p->account) {
        hub_send_error(s, PROTO_NEEDS_ACCOUNT,
                       "settings are stored for accounts: register or log "
                       "in (a guest's stay in its browser)",
                       &m->id);
        return;
    }
    if (!ratelimit_take(P(h)->saves, p->pid, now)) {
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "too many settings saves; try again in a minute",
                       &m->id);
        return;
    }
    seq = store_put_settings(h->store, p->pid, m->settings, hub_wall_ms(h));
    if (!seq) {
        hub_busy(s, &m->id);
        return;
    }
    remember(P(h), p->pid, m->settings, seq);
    hub_send_text(s, proto_render_settings_saved(&m->id), seq);
    prefs_tell(h, p, s, m->settings, seq);
    /* the other nodes' connections of the account */
    h->router.ops->tell(h->router.ctx, p->pid, PREFS_TELL_SETTINGS,
                        m->settings, strlen(m->settings), seq);
}

void prefs_tell(struct hub *h, struct player *p, struct session *except,
                const char *json, uint64_t seq)
{
    struct msgbuf *b = msgbuf_take(proto_render_settings_changed(json));

    prefs_note(p, json);
    if (!b)
        return;
    for (size_t i = 0; i < p->nconns; i++)
        if (p->conns[i] != except)
            h->env.send(p->conns[i]->conn, b, seq);
    msgbuf_unref(b);
}

void prefs_note(struct player *p, const char *json)
{
    json_t *o = json ? json_loads(json, 0, NULL) : NULL;
    const char *v = json_string_value(json_object_get(o, "chat"));

    p->chat_off = v && !strcmp(v, "off");
    json_decref(o);
}

char *prefs_get(struct hub *h, const char *pid, const char *stored,
                uint64_t seen)
{
    struct saved *e = table_get(&P(h)->saved, pid);

    if (e && e->seq > seen)
        return strdup(e->text);
    return stored ? strdup(stored) : NULL;
}

/* Forgets the saves every read in flight has seen committed. */
static void prefs_sweep(struct hub *h, int64_t now)
{
    (void)now;
    struct table *t = &P(h)->saved;
    uint64_t committed = hub_reads_horizon(h);

    for (size_t i = 0; i < t->cap; i++) {
        struct saved *e = t->slots[i].value;
        if (e && e->seq <= committed)
            saved_free(table_del(t, e->pid));
    }
}

/* ---- the module ---------------------------------------------------------- */

static int init(struct hub *h)
{
    struct prefs *pf = prefs_new();

    hub_module_set_state(h, &hub_prefs_module, pf);
    return pf ? 0 : -1;
}

static void fini(struct hub *h)
{
    prefs_free(hub_module_state(h, &hub_prefs_module));
    hub_module_set_state(h, &hub_prefs_module, NULL);
}

/* Another node saved the account's settings (payload: the JSON). */
static void told(struct hub *h, struct player *p, const char *payload,
                 size_t len, int64_t now)
{
    char *json;

    (void)now;
    if (len == 0 || len > STORE_SETTINGS_MAX || !(json = malloc(len + 1)))
        return;
    memcpy(json, payload, len);
    json[len] = '\0';
    prefs_tell(h, p, NULL, json, 0);
    free(json);
}

static const struct hub_command commands[] = {
    {PROTO_T_SETTINGS, prefs_command, false},
    {PROTO_T_NONE, NULL, false},
};

const struct hub_module hub_prefs_module = {
    .name = "prefs",
    .init = init,
    .free = fini,
    .sweep = prefs_sweep,
    .tell_tag = PREFS_TELL_SETTINGS,
    .told = told,
    .commands = commands,
};
