/*
 * redissync.c - waiting for server/cluster/redis.c in the tests (see redissync.h).
 */
#include "redissync.h"

#include "redis_scripts.h"

#include <check.h>
#include <ev.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void timeout_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)revents;
    *(bool *)w->data = true;
}

bool redissync_run_until(struct ev_loop *loop, const bool *flag,
                         double timeout_s)
{
    bool expired = false;
    ev_timer t;

    ev_timer_init(&t, timeout_cb, timeout_s, 0.0);
    t.data = &expired;
    ev_timer_start(loop, &t);
    while (!*flag && !expired)
        ev_run(loop, EVRUN_ONCE);
    ev_timer_stop(loop, &t);
    return *flag;
}

/* Appends s to the growing text *buf (length *len). */
static void append(char **buf, size_t *len, const char *s, size_t n)
{
    char *grown = realloc(*buf, *len + n + 1);

    if (!grown)
        abort();
    memcpy(grown + *len, s, n);
    *len += n;
    grown[*len] = '\0';
    *buf = grown;
}

static void text(char **buf, size_t *len, const struct bus_value *r)
{
    char num[32];

    switch (r->type) {
    case BUS_STR:
        append(buf, len, r->str, r->len);
        break;
    case BUS_ERROR:
        append(buf, len, "!", 1);
        append(buf, len, r->str, r->len);
        break;
    case BUS_INT:
        snprintf(num, sizeof num, "%lld", r->integer);
        append(buf, len, num, strlen(num));
        break;
    case BUS_NIL:
        append(buf, len, "nil", 3);
        break;
    case BUS_ARRAY:
        append(buf, len, "[", 1);
        for (size_t i = 0; i < r->n; i++) {
            if (i)
                append(buf, len, ",", 1);
            text(buf, len, &r->v[i]);
        }
        append(buf, len, "]", 1);
        break;
    }
}

char *redissync_text(const struct bus_value *reply, const char *err)
{
    char *buf = NULL;
    size_t len = 0;

    append(&buf, &len, "", 0);
    if (reply)
        text(&buf, &len, reply);
    else {
        append(&buf, &len, "!", 1);
        append(&buf, &len, err, strlen(err));
    }
    return buf;
}

struct wait {
    bool done;
    char *text;
};

static void got(void *arg, const struct bus_value *reply, const char *err)
{
    struct wait *w = arg;

    w->text = redissync_text(reply, err);
    w->done = true;
}

static char *finish(struct ev_loop *loop, struct wait *w, int rc)
{
    if (rc != 0)
        return strdup("!not sent");
    if (!redissync_run_until(loop, &w->done, 10.0))
        return strdup("!timeout");
    return w->text;
}

/* One wait at a time: a test that timed out fails, and the reply that
 * may come later still finds this. */
static struct wait pending;

char *redissync_command(struct ev_loop *loop, struct redis *r,
                        const char *format, ...)
{
    va_list ap;
    int rc;

    memset(&pending, 0, sizeof pending);
    va_start(ap, format);
    rc = redis_vcommand(r, got, &pending, format, ap);
    va_end(ap);
    return finish(loop, &pending, rc);
}

char *redissync_eval(struct ev_loop *loop, struct redis *r, int script,
                     int nkeys, const char *const *keys, int nargs,
                     const char *const *args)
{
    int rc;

    memset(&pending, 0, sizeof pending);
    rc = redis_eval(r, script, got, &pending, nkeys, keys, nargs, args);
    return finish(loop, &pending, rc);
}

void redissync_wait_numsub(struct ev_loop *loop, struct redis *r,
                           const char *channel, int n)
{
    char want[96], *got = NULL;
    bool never = false;

    snprintf(want, sizeof want, "[%s,%d]", channel, n);
    for (int i = 0; i < 500; i++) {
        free(got);
        got = redissync_command(loop, r, "PUBSUB NUMSUB %s", channel);
        if (!strcmp(got, want))
            break;
        redissync_run_until(loop, &never, 0.01);
    }
    ck_assert_str_eq(got, want);
    free(got);
}

struct redis *redissync_open_scripts(struct ev_loop *loop, const char *socket)
{
    return redissync_open_as(loop, socket, NULL, NULL);
}

struct redis *redissync_open_as(struct ev_loop *loop, const char *socket,
                                const char *user, const char *password)
{
    struct redis_config cfg = {
        .address = socket, .user = user, .password = password};
    char err[128];
    struct redis *r = redis_new(loop, &cfg, err, sizeof err);
    bool never = false;

    ck_assert_msg(r != NULL, "%s", err);
    for (int i = 0; i < REDIS_LUA_COUNT; i++)
        ck_assert_int_eq(redis_script_add(r, redis_lua[i].source), i);
    for (int i = 0; i < 1000 && !redis_is_up(r); i++)
        redissync_run_until(loop, &never, 0.01);
    ck_assert_msg(redis_is_up(r), "%s", redis_error(r));
    return r;
}
