/*
 * lwslog.c - libwebsockets' log lines through log.h, repeats collapsed
 * (see net_internal.h).
 */
#include "net/net_internal.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"

/* Writes how often the last lws line repeated, if it did. */
static void lws_flush_repeats(void)
{
    char q[700];

    if (!net.lws_last.repeats)
        return;
    log_write(net.lws_last.level, "event=lws_repeated count=%lu msg=%s",
              net.lws_last.repeats, log_quote(q, sizeof q, net.lws_last.msg));
    net.lws_last.repeats = 0;
}

/* Warnings of lws's that any client causes at will, which tell an
 * operator nothing: a load balancer's TCP probe, a port scanner or a
 * stray newline is "Missing URI in HTTP request". Debug, not warn. */
static const char *const noise[] = {
    "Missing URI in HTTP request",
};

static bool is_noise(const char *line)
{
    for (size_t i = 0; i < sizeof noise / sizeof noise[0]; i++)
        if (strstr(line, noise[i]))
            return true;
    return false;
}

/* lws's lines go through the logger: errors and warnings as such, the
 * rest as debug (its libev glue writes a notice on every change of a
 * socket's events: several lines per message). Some lws errors repeat on every turn of the
 * loop (accept() failing with EMFILE while the descriptors are used up:
 * thousands a second, gigabytes of log in minutes), so a line equal to
 * the previous one is counted, and the count written at most once a
 * second and before the next different line. */
static void lws_emit(int level, const char *line)
{
    enum log_level l = LOG_DEBUG;
    char msg[600], q[700];
    int64_t now = net_now_ms();
    size_t n;

    if (level & LLL_ERR) {
        l = LOG_ERROR;
        tcp_starved_note(line);
    } else if (level & LLL_WARN) {
        l = is_noise(line) ? LOG_DEBUG : LOG_WARN;
    } else if (level & LLL_USER) {
        l = LOG_INFO;
    }
    snprintf(msg, sizeof msg, "%s", line);
    n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    pthread_mutex_lock(&net.lws_last_mu);
    if (l == net.lws_last.level && !strcmp(msg, net.lws_last.msg)) {
        net.lws_last.repeats++;
        if (now - net.lws_last.written_ms >= 1000) {
            lws_flush_repeats();
            net.lws_last.written_ms = now;
        }
    } else {
        lws_flush_repeats();
        memcpy(net.lws_last.msg, msg, n + 1);
        net.lws_last.level = l;
        net.lws_last.written_ms = now;
        log_write(l, "event=lws msg=%s", log_quote(q, sizeof q, msg));
    }
    pthread_mutex_unlock(&net.lws_last_mu);
}

void lwslog_flush(int64_t now)
{
    pthread_mutex_lock(&net.lws_last_mu);
    if (net.lws_last.repeats && now - net.lws_last.written_ms >= 1000) {
        lws_flush_repeats();
        net.lws_last.written_ms = now;
    }
    pthread_mutex_unlock(&net.lws_last_mu);
    log_flush();
}

static int lws_levels(void)
{
    switch (log_get_level()) {
    case LOG_ERROR:
        return LLL_ERR;
    case LOG_WARN:
        return LLL_ERR | LLL_WARN;
    case LOG_INFO:
        return LLL_ERR | LLL_WARN | LLL_USER;
    default:
        return LLL_ERR | LLL_WARN | LLL_NOTICE | LLL_USER | LLL_INFO |
               LLL_DEBUG;
    }
}

void lwslog_start(void)
{
    lws_set_log_level(lws_levels(), lws_emit);
}
