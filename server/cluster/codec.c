/*
 * codec.c - the cluster's messages as text and back (see codec.h).
 */
#include "cluster/codec.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most tokens a header has (the envelope's eight). */
#define TOKENS_MAX 8
/* Room for a header without its connection list. */
#define HEADER_MAX (TOKENS_MAX * (CODEC_KEY + 24))

static const char *const kind_names[CODEC_KINDS] = {
    [CODEC_COMMAND] = "command",   [CODEC_ATTACH] = "attach",
    [CODEC_RESYNC] = "resync",     [CODEC_START] = "start",
    [CODEC_DETACH] = "detach",     [CODEC_DELIVER] = "deliver",
    [CODEC_UNFOLLOW] = "unfollow", [CODEC_KILL] = "kill",
    [CODEC_HANDOVER] = "handover", [CODEC_PAIRED] = "paired",
    [CODEC_NEW_GAME] = "new_game", [CODEC_TOLD] = "told",
    [CODEC_HOSTED] = "hosted",     [CODEC_LIMIT] = "limit",
    [CODEC_ALL] = "all",           [CODEC_ROOM] = "room",
};

/* The envelope's letters, CODEC_COMMAND .. CODEC_DETACH in order. */
static const char envelope_letters[] = "MAYSD";

const char *codec_kind_name(enum codec_kind k)
{
    return (unsigned)k < CODEC_KINDS ? kind_names[k] : "?";
}

void codec_channel(const struct codec_msg *m, char *out, size_t cap)
{
    if (m->kind <= CODEC_DETACH)
        snprintf(out, cap, "cmd:%s", m->gid);
    else if (m->kind <= CODEC_PAIRED)
        snprintf(out, cap, "node:%s", m->to);
    else if (m->kind <= CODEC_TOLD)
        snprintf(out, cap, "player:%s", m->pid);
    else if (m->kind == CODEC_HOSTED)
        snprintf(out, cap, "game:%s", m->gid);
    else if (m->kind == CODEC_ROOM)
        snprintf(out, cap, "rooms:all");
    else
        snprintf(out, cap, "limits:all");
}

/* ---- encoding ----------------------------------------------------------- */

/* A shared limit's key: 1 to CODEC_LIMIT_KEY_MAX printable ASCII bytes
 * (an address key, a username, "PID ADDRKEY"). */
static bool limit_key_valid(const char *key, size_t len)
{
    if (!key || len == 0 || len > CODEC_LIMIT_KEY_MAX)
        return false;
    for (size_t i = 0; i < len; i++)
        if (key[i] < ' ' || key[i] > '~')
            return false;
    return true;
}

/* The header of m (not a list's connections) into out; its length, or
 * -1 when a key is not one. */
static int header(const struct codec_msg *m, char *out, size_t cap)
{
    switch (m->kind) {
    case CODEC_COMMAND:
    case CODEC_ATTACH:
    case CODEC_RESYNC:
    case CODEC_START:
    case CODEC_DETACH:
        if (!proto_key_valid(m->node) || !proto_key_valid(m->inc) ||
            !proto_key_valid(m->pid) || !proto_name_valid(m->name) ||
            !proto_key_valid(m->gid) || m->rtt_ms < 0)
            return -1;
        return snprintf(
            out, cap, "%c %s %s %" PRIu64 " %" PRId64 " %d %s %s",
            envelope_letters[m->kind], m->node, m->inc, m->conn, m->rtt_ms,
            (m->account ? 1 : 0) | (m->moderator ? 2 : 0), m->pid, m->name);
    case CODEC_DELIVER:
    case CODEC_KILL:
        return m->nconns && proto_key_valid(m->to)
                   ? snprintf(out, cap, "%c ",
                              m->kind == CODEC_DELIVER ? 'T' : 'K')
                   : -1;
    case CODEC_UNFOLLOW:
        return proto_key_valid(m->to) && proto_key_valid(m->gid)
                   ? snprintf(out, cap, "U %" PRIu64 " %s", m->conn, m->gid)
                   : -1;
    case CODEC_HANDOVER:
        return proto_key_valid(m->to) && proto_key_valid(m->gid) &&
                       proto_key_valid(m->node) && m->epoch > 0 &&
                       m->wall_ms >= 0
                   ? snprintf(out, cap, "H %s %" PRId64 " %" PRId64 " %s",
                              m->gid, m->epoch, m->wall_ms, m->node)
                   : -1;
    case CODEC_PAIRED:
        return proto_key_valid(m->to) && proto_key_valid(m->gid) &&
                       proto_key_valid(m->pid)
                   ? snprintf(out, cap, "N %s %s", m->gid, m->pid)
                   : -1;
    case CODEC_NEW_GAME:
        return proto_key_valid(m->pid) && proto_key_valid(m->gid)
                   ? snprintf(out, cap, "N %s", m->gid)
                   : -1;
    case CODEC_TOLD:
        return proto_key_valid(m->pid) && proto_key_valid(m->node) &&
                       m->tag > ' ' && m->tag != 'N' && m->tag <= '~'
                   ? snprintf(out, cap, "%c %s", m->tag, m->node)
                   : -1;
    case CODEC_HOSTED:
        return proto_key_valid(m->gid) && proto_key_valid(m->node)
                   ? snprintf(out, cap, "M %s", m->node)
                   : -1;
    case CODEC_LIMIT:
        return proto_key_valid(m->limit) && proto_key_valid(m->node) &&
                       limit_key_valid(m->body, m->len)
                   ? snprintf(out, cap, "L %s %s", m->limit, m->node)
                   : -1;
    case CODEC_ALL:
        return proto_key_valid(m->node) && m->tag > ' ' && m->tag != 'L' &&
                       m->tag <= '~'
                   ? snprintf(out, cap, "%c %s", m->tag, m->node)
                   : -1;
    case CODEC_ROOM:
        return proto_key_valid(m->node) && m->body && m->len
                   ? snprintf(out, cap, "R %s", m->node)
                   : -1;
    case CODEC_KINDS:
        break;
    }
    return -1;
}

/* True for the kinds whose header line ends with a '\n' (a body may
 * follow): the envelopes, a delivery, a tell. */
static bool has_body(enum codec_kind k)
{
    return k <= CODEC_DETACH || k == CODEC_DELIVER || k == CODEC_TOLD ||
           k == CODEC_LIMIT || k == CODEC_ALL || k == CODEC_ROOM;
}

char *codec_encode(const struct codec_msg *m, size_t *len)
{
    char head[HEADER_MAX];
    int n = header(m, head, sizeof head);
    size_t cap, at;
    char *out;

    if (n < 0 || (size_t)n >= sizeof head)
        return NULL;
    cap = (size_t)n + m->nconns * 21 + 1 + (m->body ? m->len : 0) + 1;
    out = malloc(cap);
    if (!out)
        return NULL;
    memcpy(out, head, (size_t)n);
    at = (size_t)n;
    if (m->kind == CODEC_DELIVER || m->kind == CODEC_KILL)
        for (size_t i = 0; i < m->nconns; i++)
            at += (size_t)snprintf(out + at, cap - at, "%s%" PRIu64,
                                   i ? "," : "", m->conns[i]);
    if (has_body(m->kind)) {
        out[at++] = '\n';
        if (m->body && m->len) {
            memcpy(out + at, m->body, m->len);
            at += m->len;
        }
    }
    assert(at < cap);
    out[at] = '\0';
    *len = at;
    return out;
}

/* ---- decoding ----------------------------------------------------------- */

struct span {
    const char *p;
    size_t n;
};

/* Copies tok into out (room CODEC_KEY) when it is a key. */
static bool key(struct span tok, char *out)
{
    if (tok.n == 0 || tok.n > PROTO_KEY_MAX)
        return false;
    memcpy(out, tok.p, tok.n);
    out[tok.n] = '\0';
    return proto_key_valid(out);
}

/* tok as a number of at most 19 digits. */
static bool number(struct span tok, uint64_t *out)
{
    uint64_t v = 0;

    if (tok.n == 0 || tok.n > 19)
        return false;
    for (size_t i = 0; i < tok.n; i++) {
        if (tok.p[i] < '0' || tok.p[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(tok.p[i] - '0');
    }
    *out = v;
    return true;
}

static bool signed_number(struct span tok, int64_t *out)
{
    uint64_t v;

    if (!number(tok, &v) || v > INT64_MAX)
        return false;
    *out = (int64_t)v;
    return true;
}

/* "ID[,ID...]": at least one, each a number. */
static bool conn_list(struct span tok)
{
    size_t start = 0;
    uint64_t v;

    for (size_t i = 0; i <= tok.n; i++)
        if (i == tok.n || tok.p[i] == ',') {
            if (!number((struct span){tok.p + start, i - start}, &v))
                return false;
            start = i + 1;
        }
    return true;
}

/* Splits the header (msg up to '\n') on single spaces into at most
 * TOKENS_MAX tokens; -1 when there are more, or an empty one. The body
 * follows the '\n' (none without one: *body NULL). */
static int tokens(const char *msg, size_t len, struct span *tok,
                  const char **body, size_t *blen)
{
    const char *nl = memchr(msg, '\n', len);
    size_t hl = nl ? (size_t)(nl - msg) : len, start = 0;
    int n = 0;

    *body = nl ? nl + 1 : NULL;
    *blen = nl ? len - hl - 1 : 0;
    for (size_t i = 0; i <= hl; i++)
        if (i == hl || msg[i] == ' ') {
            if (i == start || n == TOKENS_MAX)
                return -1;
            tok[n++] = (struct span){msg + start, i - start};
            start = i + 1;
        }
    return n;
}

static int fail(const char **why, const char *what)
{
    *why = what;
    return -1;
}

/* cmd:G's envelope: K NODE INC CONN RTT ACCT PID NAME. */
static int decode_command(struct span *t, int n, struct codec_msg *m,
                          const char **why)
{
    const char *k;
    uint64_t acct;

    if (n != 8 || t[0].n != 1 ||
        !(k = memchr(envelope_letters, t[0].p[0], 5)))
        return fail(why, "not an envelope");
    m->kind = (enum codec_kind)(k - envelope_letters);
    if (!key(t[1], m->node) || !key(t[2], m->inc) ||
        !number(t[3], &m->conn) || !signed_number(t[4], &m->rtt_ms) ||
        !number(t[5], &acct) || acct > 3 || !key(t[6], m->pid) ||
        t[7].n > PROTO_NAME_MAX || !key(t[7], m->name))
        return fail(why, "a bad envelope field");
    m->account = acct & 1;
    m->moderator = acct & 2;
    if (m->kind != CODEC_COMMAND && m->len)
        return fail(why, "a body after an envelope without one");
    return 0;
}

static int decode_node(struct span *t, int n, struct codec_msg *m,
                       const char **why)
{
    if (t[0].n != 1)
        return fail(why, "not a kind");
    switch (t[0].p[0]) {
    case 'T':
    case 'K':
        m->kind = t[0].p[0] == 'T' ? CODEC_DELIVER : CODEC_KILL;
        if (n != 2 || !conn_list(t[1]) ||
            (m->kind == CODEC_DELIVER ? !m->body : m->len > 0))
            return fail(why, "a bad connection list");
        m->conn_list = t[1].p;
        m->conn_list_len = t[1].n;
        return 0;
    case 'U':
        m->kind = CODEC_UNFOLLOW;
        return n == 3 && number(t[1], &m->conn) && key(t[2], m->gid)
                   ? 0
                   : fail(why, "a bad unfollow");
    case 'H':
        m->kind = CODEC_HANDOVER;
        return n == 5 && key(t[1], m->gid) &&
                       signed_number(t[2], &m->epoch) && m->epoch > 0 &&
                       signed_number(t[3], &m->wall_ms) && key(t[4], m->node)
                   ? 0
                   : fail(why, "a bad handover");
    case 'N':
        m->kind = CODEC_PAIRED;
        return n == 3 && key(t[1], m->gid) && key(t[2], m->pid)
                   ? 0
                   : fail(why, "a bad pairing");
    default:
        return fail(why, "an unknown kind");
    }
}

static int decode_player(struct span *t, int n, struct codec_msg *m,
                         const char **why)
{
    if (n != 2 || t[0].n != 1)
        return fail(why, "not a player message");
    if (t[0].p[0] == 'N') {
        m->kind = CODEC_NEW_GAME;
        return key(t[1], m->gid) && !m->len ? 0 : fail(why, "a bad game");
    }
    m->kind = CODEC_TOLD;
    m->tag = t[0].p[0];
    return m->tag > ' ' && m->tag <= '~' && key(t[1], m->node)
               ? 0
               : fail(why, "a bad tell");
}

int codec_decode(const char *channel, const char *msg, size_t len,
                 struct codec_msg *out, const char **why)
{
    struct span t[TOKENS_MAX];
    const char *colon = strchr(channel, ':');
    struct span ck;
    int n;

    memset(out, 0, sizeof *out);
    if (!colon)
        return fail(why, "an unknown channel");
    ck = (struct span){colon + 1, strlen(colon + 1)};
    n = tokens(msg, len, t, &out->body, &out->len);
    if (n < 1)
        return fail(why, "a bad header");
    if (!strncmp(channel, "cmd:", 4))
        return key(ck, out->gid) ? decode_command(t, n, out, why)
                                 : fail(why, "a bad game");
    if (!strncmp(channel, "node:", 5))
        return key(ck, out->to) ? decode_node(t, n, out, why)
                                : fail(why, "a bad node");
    if (!strncmp(channel, "player:", 7))
        return key(ck, out->pid) ? decode_player(t, n, out, why)
                                 : fail(why, "a bad player");
    if (!strcmp(channel, "limits:all") && n == 2 && t[0].n == 1 &&
        t[0].p[0] != 'L') {
        out->kind = CODEC_ALL;
        out->tag = t[0].p[0];
        return out->tag > ' ' && out->tag <= '~' && key(t[1], out->node)
                   ? 0
                   : fail(why, "a bad word to every node");
    }
    if (!strcmp(channel, "limits:all")) {
        out->kind = CODEC_LIMIT;
        return n == 3 && t[0].n == 1 && t[0].p[0] == 'L' &&
                       key(t[1], out->limit) && key(t[2], out->node) &&
                       limit_key_valid(out->body, out->len)
                   ? 0
                   : fail(why, "a bad limit message");
    }
    if (!strcmp(channel, "rooms:all")) {
        out->kind = CODEC_ROOM;
        return n == 2 && t[0].n == 1 && t[0].p[0] == 'R' &&
                       key(t[1], out->node) && out->len
                   ? 0
                   : fail(why, "a bad room message");
    }
    if (!strncmp(channel, "game:", 5)) {
        out->kind = CODEC_HOSTED;
        return key(ck, out->gid) && n == 2 && t[0].n == 1 &&
                       t[0].p[0] == 'M' && key(t[1], out->node) && !out->len
                   ? 0
                   : fail(why, "a bad host message");
    }
    return fail(why, "an unknown channel");
}

bool codec_next_conn(const struct codec_msg *m, size_t *pos, uint64_t *id)
{
    size_t i = *pos;
    uint64_t v = 0;

    if (i >= m->conn_list_len)
        return false;
    while (i < m->conn_list_len && m->conn_list[i] != ',')
        v = v * 10 + (uint64_t)(m->conn_list[i++] - '0');
    *id = v;
    *pos = i + 1;
    return true;
}
