/*
 * wiring.c - the hub over the network and the network over the hub (see
 * wiring.h): the hub talks out through struct hub_env, filled in here
 * with net's functions, and net hands its events to struct
 * net_handlers, filled in here with the hub's, the status pages' and
 * the HTTP API's. The hub's timers are net's. net and hub never include
 * each other: these few adapters are where they meet.
 */
#include "app/wiring.h"

#include <string.h>

#include "app/ready.h"
#include "app/status.h"
#include "hub/botapi.h"
#include "hub/http.h"
#include "hub/hub.h"
#include "net/net.h"
#include "store/store.h"

/* ---- wiring: the hub over the network, the network over the hub -------
 *
 * main.c is the one module that knows both: the hub talks out through
 * struct hub_env (filled in here over net.h) and net.c hands its events
 * to struct net_handlers (filled in here over hub.h and http.h). */

/* A hub_alarm is a net_timer. */
static struct hub_alarm *env_alarm_new(void *ctx, void (*cb)(void *arg),
                                       void *arg)
{
    (void)ctx;
    return (struct hub_alarm *)net_timer_new(cb, arg);
}

static void env_alarm_arm(void *ctx, struct hub_alarm *a, int64_t at)
{
    (void)ctx;
    net_timer_arm((struct net_timer *)a, at);
}

static void env_alarm_free(void *ctx, struct hub_alarm *a)
{
    (void)ctx;
    net_timer_free((struct net_timer *)a);
}

static void *on_open(void *ctx, struct conn *c, const char *ip)
{
    return hub_open(ctx, c, ip);
}

static void on_text(void *ctx, void *owner, const char *text, size_t len,
                    int64_t now)
{
    hub_on_text(ctx, owner, text, len, now);
}

static uint64_t on_committed(void *ctx)
{
    return store_committed(hub_store(ctx));
}

static void on_binary(void *ctx, void *owner, int64_t now)
{
    hub_on_binary(ctx, owner, now);
}

static void on_control(void *ctx, void *owner, int64_t now)
{
    hub_on_control(ctx, owner, now);
}

static void on_closed(void *ctx, void *owner, int64_t now)
{
    hub_close(ctx, owner, now);
}

static void on_wake(void *ctx)
{
    hub_wake(ctx);
}

static void on_shutdown(void *ctx)
{
    hub_shutdown(ctx);
}

static bool on_stoppable(void *ctx)
{
    return hub_stoppable(ctx);
}

static bool on_http_wants(const char *path)
{
    return http_wants(path);
}

static int on_http_route(const char *path)
{
    return (int)http_route(path);
}

static void to_net_reply(const struct http_reply *hr, struct net_reply *r)
{
    *r = (struct net_reply){hr->status, hr->type, hr->body, hr->len};
}

static void on_http(void *ctx, const struct net_request *nq, int64_t now,
                    uint64_t later, struct net_reply *r)
{
    const struct http_request q = {nq->method,   nq->path,   nq->args,
                                   nq->nargs,    nq->bearer, nq->body,
                                   nq->body_len, nq->addr};
    struct http_reply hr;

    if (!strcmp(q.path, "/readyz"))
        status_readyz(ready_why(now), &hr);
    else if (!status_handle(ctx, q.path, now, &hr))
        http_handle(ctx, &q, now, later, &hr);
    to_net_reply(&hr, r); /* (status 0: NET_REPLY_LATER) */
}

static void env_http_answer(uint64_t later, int status, const char *type,
                            char *body, size_t len)
{
    struct net_reply r = {status, type, body, len};

    net_http_answer(later, &r);
}

static void *env_stream_open(uint64_t later, const char *account, void *owner,
                             int *status)
{
    return net_stream_open(later, account, owner, status);
}

static void env_stream_send(void *stream, struct msgbuf *b, uint64_t seq)
{
    net_stream_send(stream, b, seq);
}

static void env_stream_close(void *stream)
{
    net_stream_close(stream);
}

static void on_stream_closed(void *ctx, void *owner)
{
    botapi_stream_closed(ctx, owner);
}

static void on_http_too_many(struct net_reply *r)
{
    struct http_reply hr;

    http_too_many(&hr);
    to_net_reply(&hr, r);
}

struct hub *wiring_start_hub(struct store *st, struct engine_pool *engines,
                             const struct hub_config *hc)
{
    const struct hub_env env = {
        .ctx = NULL,
        .store = st,
        .engines = engines,
        .send = net_send,
        .send_now = net_send_now,
        .close = net_close,
        .drop = net_drop,
        .alarm_new = env_alarm_new,
        .alarm_arm = env_alarm_arm,
        .alarm_free = env_alarm_free,
        .rtt_ms = net_conn_rtt_ms,
        .tcp_rtt_us = net_conn_tcp_rtt_us,
        .now_ms = net_now_ms,
        .now_us = net_now_us,
        .wall_ms = net_wall_ms,
        .wake = net_wake,
        .http_answer = env_http_answer,
        .stream_open = env_stream_open,
        .stream_send = env_stream_send,
        .stream_close = env_stream_close,
    };
    struct hub *h = hub_new(&env, hc);
    const struct net_handlers hd = {
        .ctx = h,
        .open = on_open,
        .text = on_text,
        .committed = on_committed,
        .binary = on_binary,
        .control = on_control,
        .closed = on_closed,
        .wake = on_wake,
        .shutdown = on_shutdown,
        .stoppable = on_stoppable,
        .http_wants = on_http_wants,
        .http_route = on_http_route,
        .http = on_http,
        .http_too_many = on_http_too_many,
        .stream_closed = on_stream_closed,
    };

    if (h)
        net_attach(&hd, &hub_metrics(h)->net);
    return h;
}
