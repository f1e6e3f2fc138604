/*
 * echo_server - a bare libwebsockets WebSocket echo server, set up as
 * chess-server's loop is (lws 4.1 on a libev loop, one thread, 512-byte
 * receive buffers, a frame written in one send(), subprotocol chess.v1
 * and the default one): it replies to each text message with the same
 * text. The closed-loop benchmark measures its round trips a second
 * with chess-loadgen --mode echo over the same number of connections as
 * the games use, so that moves a second can be given as a fraction of
 * what lws itself can do on the same machine in the same run
 * (tests/bench/loadgen_bench.sh closed).
 *
 * With --relay BYTES it plays a game's message pattern without the game
 * (chess-loadgen --mode relay): connections come in pairs, each first
 * sends {"t":"join","pair":K,"side":0|1}; once both sides of pair K
 * joined, side 0 gets {"t":"go","side":1}. Every other message is sent
 * back to its sender and to the partner, padded with spaces to BYTES
 * (a `moved` frame's size), so each message in costs two frames out, as a
 * move does: what is left of chess-server's time a move above this is the
 * game's own work (tests/bench/loadgen_bench.sh closed).
 *
 *   echo_server --port PORT [--relay BYTES]
 *
 * Runs until SIGTERM or SIGINT. Every connection holds up to ECHO_SLOTS
 * replies not yet written; a message that finds them full is dropped (a
 * closed-loop client never has more than two in flight).
 */
#include <ev.h>
#include <libwebsockets.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ECHO_SLOTS 4
#define ECHO_MAX 1024 /* longest message echoed */
#define RELAY_PAIRS 65536

struct slot {
    size_t len;
    unsigned char buf[LWS_PRE + ECHO_MAX + 1];
};

/* Per connection, allocated by lws (per_session_data_size). */
struct echo_conn {
    unsigned head, n; /* replies queued: slots[head..head+n) */
    size_t rx_len;    /* a message arriving in pieces */
    int pair, side;   /* relay: its place in relay_pairs, pair -1 if none */
    struct slot rx;   /* the message being received */
    struct slot slots[ECHO_SLOTS];
};

static struct ev_loop *loop;
static ev_signal sig_term, sig_int;
static size_t relay_bytes; /* 0: echo, else relay replies' length */
static struct lws *relay_pairs[RELAY_PAIRS][2];

/* Queues LEN bytes of TEXT, padded with spaces to PAD, for WSI. */
static void put(struct lws *wsi, const unsigned char *text, size_t len,
                size_t pad)
{
    struct echo_conn *c = lws_wsi_user(wsi);
    struct slot *s;

    if (c->n == ECHO_SLOTS)
        return; /* dropped */
    s = &c->slots[(c->head + c->n) % ECHO_SLOTS];
    if (pad > ECHO_MAX)
        pad = ECHO_MAX;
    memcpy(s->buf + LWS_PRE, text, len);
    if (pad > len)
        memset(s->buf + LWS_PRE + len, ' ', pad - len);
    s->len = pad > len ? pad : len;
    if (c->n++ == 0)
        lws_callback_on_writable(wsi);
}

/* The integer after KEY in the NUL-terminated TEXT, or -1. */
static long field(const char *text, const char *key)
{
    const char *p = strstr(text, key);

    return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* Relay mode: a whole message from C on WSI. */
static void relay(struct lws *wsi, struct echo_conn *c,
                  const unsigned char *text, size_t len)
{
    static const char go[] = "{\"t\":\"go\",\"side\":1}";
    struct lws *partner;

    if (!strncmp((const char *)text, "{\"t\":\"join\"", 11)) {
        long k = field((const char *)text, "\"pair\":");
        long side = field((const char *)text, "\"side\":");
        if (k < 0 || k >= RELAY_PAIRS || (side != 0 && side != 1) ||
            c->pair >= 0)
            return;
        c->pair = (int)k;
        c->side = (int)side;
        relay_pairs[k][side] = wsi;
        if (relay_pairs[k][0] && relay_pairs[k][1])
            put(relay_pairs[k][0], (const unsigned char *)go,
                sizeof go - 1, 0);
        return;
    }
    if (c->pair < 0)
        return;
    put(wsi, text, len, relay_bytes);
    partner = relay_pairs[c->pair][!c->side];
    if (partner)
        put(partner, text, len, relay_bytes);
}

static int callback_echo(struct lws *wsi, enum lws_callback_reasons reason,
                         void *user, void *in, size_t len)
{
    struct echo_conn *c = user;
    struct slot *s;

    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED:
        memset(c, 0, sizeof *c);
        c->pair = -1;
        break;
    case LWS_CALLBACK_CLOSED:
        if (c->pair >= 0 && relay_pairs[c->pair][c->side] == wsi)
            relay_pairs[c->pair][c->side] = NULL;
        break;
    case LWS_CALLBACK_RECEIVE:
        if (c->rx_len + len > ECHO_MAX)
            return -1;
        memcpy(c->rx.buf + LWS_PRE + c->rx_len, in, len);
        c->rx_len += len;
        if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi))
            break;
        len = c->rx_len;
        c->rx_len = 0;
        c->rx.buf[LWS_PRE + len] = 0;
        if (relay_bytes)
            relay(wsi, c, c->rx.buf + LWS_PRE, len);
        else
            put(wsi, c->rx.buf + LWS_PRE, len, 0);
        break;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        if (!c->n)
            break;
        s = &c->slots[c->head];
        if (lws_write(wsi, s->buf + LWS_PRE, s->len, LWS_WRITE_TEXT) <
            (int)s->len)
            return -1;
        c->head = (c->head + 1) % ECHO_SLOTS;
        if (--c->n)
            lws_callback_on_writable(wsi);
        break;
    default:
        break;
    }
    return 0;
}

static const struct lws_protocols protocols[] = {
    /* tx_packet_size as chess-server's: a frame goes out in one send() */
    {"chess.v1", callback_echo, sizeof(struct echo_conn), 512, 0, NULL,
     LWS_PRE + ECHO_MAX},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* A client naming no subprotocol binds to chess.v1, as in chess-server. */
static const struct lws_protocol_vhost_options pvo_default = {NULL, NULL,
                                                              "default", "1"};
static const struct lws_protocol_vhost_options pvo = {NULL, &pvo_default,
                                                      "chess.v1", ""};

static void on_signal(struct ev_loop *l, ev_signal *w, int revents)
{
    (void)w;
    (void)revents;
    ev_break(l, EVBREAK_ALL);
}

int main(int argc, char **argv)
{
    struct lws_context_creation_info info;
    struct lws_context *ctx;
    int port = 0;

    if ((argc == 3 || argc == 5) && !strcmp(argv[1], "--port"))
        port = atoi(argv[2]);
    if (argc == 5 && !strcmp(argv[3], "--relay"))
        relay_bytes = (size_t)atol(argv[4]);
    if (port < 1 || port > 65535 || (argc == 5 && !relay_bytes) ||
        relay_bytes > ECHO_MAX || (argc != 3 && argc != 5)) {
        fprintf(stderr, "usage: echo_server --port PORT [--relay BYTES]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    lws_set_log_level(LLL_ERR, NULL);
    loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
    if (!loop)
        return 1;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.options = LWS_SERVER_OPTION_EXPLICIT_VHOSTS |
                   LWS_SERVER_OPTION_LIBEV;
    info.foreign_loops = (void **)&loop;
    ctx = lws_create_context(&info);
    if (!ctx) {
        fprintf(stderr, "cannot create the lws context\n");
        return 1;
    }
    memset(&info, 0, sizeof info);
    info.vhost_name = "echo";
    info.port = port;
    info.protocols = protocols;
    info.pvo = &pvo;
    if (!lws_create_vhost(ctx, &info)) {
        fprintf(stderr, "cannot listen on port %d\n", port);
        lws_context_destroy(ctx);
        return 1;
    }
    ev_signal_init(&sig_term, on_signal, SIGTERM);
    ev_signal_start(loop, &sig_term);
    ev_signal_init(&sig_int, on_signal, SIGINT);
    ev_signal_start(loop, &sig_int);
    ev_run(loop, 0);
    lws_context_destroy(ctx);
    ev_loop_destroy(loop);
    return 0;
}
