/*
 * session.c - one connection's state (see session.h).
 */
#include "hub/session.h"

#include "hub/reads.h"
#include "lib/msgbuf.h"

#include <assert.h>
#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

void session_init(struct session *s, struct hub *h, struct conn *conn,
                  const char *ip, const struct session_limits *limits,
                  const struct session_ops *ops)
{
    memset(s, 0, sizeof *s);
    s->hub = h;
    s->conn = conn;
    s->ip = ip ? ip : "";
    s->limits = limits;
    s->ops = ops;
    bucket_init(&s->moves, limits->move_burst);
    bucket_init(&s->msgs, limits->msg_burst);
    table_init(&s->subs);
}

void session_clear(struct session *s)
{
    hub_reads_orphan(&s->reads); /* (their answers would find it gone) */
    while (s->held_in) {
        struct held_in *in = s->held_in;
        s->held_in = in->next;
        OPENSSL_cleanse(in->text, in->len); /* (a login's password) */
        free(in);
    }
    s->n_held_in = 0;
    s->held_in_bytes = 0;
    session_unwatch_all(s, NULL, NULL);
    msgbuf_unref(s->hold);
    s->hold = NULL;
    while (s->held) {
        struct held_msg *m = s->held;
        s->held = m->next;
        msgbuf_unref(m->b);
        free(m);
    }
}

enum session_admit session_admit(struct session *s, bool move, int64_t now)
{
    const struct session_limits *l = s->limits;

    assert(l && s->strikes >= 0);
    bool ok = move ? bucket_take(&s->moves, l->move_rate_per_s, l->move_burst,
                                 now)
                   : bucket_take(&s->msgs, l->msg_rate_per_s, l->msg_burst,
                                 now);

    if (ok) {
        s->strikes = 0;
        return SESSION_ADMIT;
    }
    return ++s->strikes > l->strikes ? SESSION_FLOOD : SESSION_LIMITED;
}

bool session_watches(const struct session *s, const char *gid)
{
    return table_get(&s->subs, gid) != NULL;
}

int session_watch(struct session *s, const char *gid)
{
    char *key;

    if (table_get(&s->subs, gid))
        return 0;
    key = strdup(gid);
    if (!key)
        return -1;
    if (table_put(&s->subs, key, key) < 0) {
        free(key);
        return -1;
    }
    return 1;
}

bool session_unwatch(struct session *s, const char *gid)
{
    char *key = table_del(&s->subs, gid);

    free(key);
    return key != NULL;
}

void session_unwatch_all(struct session *s,
                         void (*each)(void *arg, const char *gid), void *arg)
{
    for (size_t i = 0; i < s->subs.cap; i++) {
        char *gid = s->subs.slots[i].value;
        if (gid) {
            if (each)
                each(arg, gid);
            free(gid);
        }
    }
    table_clear(&s->subs);
}
