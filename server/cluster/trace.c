/*
 * trace.c - the command trace (cluster_trace = 1): one line per step of
 * each client command about a game of the cluster, on the node where the
 * step happens (cluster_internal.h, docs/cluster.md "Tracing a command").
 *
 * A command is named by the connection that sent it (from: its node,
 * conn: the number its node gave it) and what it says (t, and a move's
 * ply, the client's id): the same on every node it crosses, so the
 * nodes' logs merged by time follow it from edge to host and back.
 * Off, each step costs one test of a flag (TRACE_CMD).
 */
#include "cluster/cluster_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"

void cluster_set_trace(struct cluster *c, bool on)
{
    c->trace = on;
}

void trace_cmd(const struct cluster *c, const char *step, const char *gid,
               const char *from, uint64_t conn, const char *text, size_t len,
               const char *fmt, ...)
{
    struct proto_msg m;
    struct proto_error e;
    char id[32] = "-", more[160] = "";
    const char *type = "-";

    if (text && len) {
        memset(&m, 0, sizeof m);
        (void)proto_parse(text, len, true, &m, &e);
        type = proto_type_name(m.type);
        if (m.id.kind == 2)
            snprintf(id, sizeof id, "%lld", (long long)m.id.num);
        else if (m.id.kind == 1)
            snprintf(id, sizeof id, "\"%.*s\"", (int)(sizeof id - 3),
                     m.id.str);
    }
    if (fmt) {
        va_list ap;
        more[0] = ' ';
        va_start(ap, fmt);
        vsnprintf(more + 1, sizeof more - 1, fmt, ap);
        va_end(ap);
    }
    log_info("event=cmd_trace node=%s step=%s game=%s from=%s conn=%llu "
             "t=%s ply=%d id=%s%s",
             c->node, step,
             gid && gid[0]              ? gid
             : text && len && m.game[0] ? m.game
                                        : "-",
             from && from[0] ? from : c->node, (unsigned long long)conn, type,
             text && len ? m.ply : -1, id, more);
}
