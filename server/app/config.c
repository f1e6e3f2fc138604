/*
 * config.c - settings from defaults, a JSON file and the command line
 * (see config.h).
 *
 * One table describes every setting: its key, its command-line flag, its
 * kind, where it lives in struct config, its range, its default and its
 * help. config_init, the file loader, config_set_text, main.c's flags and
 * --help all go through it, so a key has one default and is checked by
 * the same rule wherever it comes from; a unit test holds the table of
 * settings in docs/operator.md to it.
 */
#include "app/config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/errtext.h"
#include "lib/log.h"
#include "net/trust.h"

enum kind {
    K_INT,     /* integer in [lo, hi] */
    K_PATH,    /* non-empty string (or empty when lo == 0) */
    K_ADDR,    /* "" or an IPv4/IPv6 address */
    K_ORIGINS, /* list of origins */
    K_PROXIES, /* list of IPv4/IPv6 addresses */
    K_LEVEL,   /* log level word */
    K_TLSVER,  /* "1.2" or "1.3" */
    K_CIPHERS, /* an OpenSSL cipher list (checked by OpenSSL in main.c) */
    K_NODE,    /* a node id: 1-CONFIG_NODE_ID_MAX of [A-Za-z0-9_-] */
    K_REDIS,   /* "" or "host:port" ("[v6]:port") or a socket path */
};

/* One row of the table: what the command line and the docs see (pub,
 * first, so that a pointer to it is a pointer to its row), then how the
 * value is checked and stored. */
struct key {
    struct config_setting pub;
    enum kind kind;
    size_t off;          /* of the field in struct config */
    long lo, hi;         /* K_INT: the range; strings: lo 1: not empty */
    long def;            /* K_INT's default */
    const char *def_str; /* the default of a string or log level; lists
                            have none (empty) */
    const char *shown;   /* the default in words when its text is too long
                            for --help and operator.md's table; NULL: its
                            text */
};

#define INT_KEY(n, flag, lo, hi, def, help)                               \
    {                                                                     \
        {#n, flag, "N", help}, K_INT, offsetof(struct config, n), lo, hi, \
            def, NULL, NULL                                               \
    }
#define STR_KEY(n, flag, arg, k, empty_ok, def, help)         \
    {                                                         \
        {#n, flag, arg, help}, k, offsetof(struct config, n), \
            empty_ok ? 0 : 1, 0, 0, def, NULL                 \
    }
#define LIST_KEY(n, flag, k, help)                                        \
    {                                                                     \
        {#n, flag, "LIST", help}, k, offsetof(struct config, n), 0, 0, 0, \
            NULL, NULL                                                    \
    }

/* Every setting, in the order of docs/operator.md's table, which a unit
 * test holds to these keys, flags and defaults. Each default's reason is
 * beside it; config_init sets each through the same checks as a file. */
static const struct key keys[] = {
    STR_KEY(listen_address, "--listen", "ADDR", K_ADDR, true, "",
            "IP address to listen on; \"\": every address, IPv4 and IPv6"),
    INT_KEY(port, "--port", 1, 65535, 8080,
            "TCP port for HTTP(S) and the WebSocket at /ws"),
    STR_KEY(tls_cert, NULL, "PATH", K_PATH, true, "",
            "PEM certificate chain; \"\": plain HTTP"),
    STR_KEY(tls_key, NULL, "PATH", K_PATH, true, "",
            "PEM private key, set with tls_cert"),
    STR_KEY(tls_min_version, NULL, "V", K_TLSVER, false, "1.2",
            "oldest TLS version accepted, \"1.2\" or \"1.3\""),
    {{"tls_ciphers", NULL, "LIST", "OpenSSL cipher list for TLS 1.2"},
     K_CIPHERS,
     offsetof(struct config, tls_ciphers),
     1,
     0,
     0,
     CONFIG_TLS_CIPHERS_DEFAULT,
     "forward-secret AEAD suites"},
    /* a year, as Mozilla's server-side TLS guidance and nginx.conf; at
     * most two years: the longest the HSTS preload list asks for */
    INT_KEY(hsts_max_age_s, NULL, 0, 63072000, 31536000,
            "Strict-Transport-Security max-age with TLS; 0: none"),
    INT_KEY(http_redirect_port, NULL, 0, 65535, 0,
            "plain-HTTP port redirecting to https; 0: none"),
    LIST_KEY(allowed_origins, NULL, K_ORIGINS,
             "origins whose pages may open a WebSocket; []: any"),
    STR_KEY(database, "--db", "PATH", K_PATH, false, "./data/chess.db",
            "SQLite database file; its folder is created"),
    /* One node on SQLite unless told otherwise: nothing to install. A
     * password in it is better in a config file (or ~/.pgpass) than on
     * a command line others can read in ps. */
    STR_KEY(postgres, "--postgres", "DSN", K_PATH, true, "",
            "libpq connection string of the PostgreSQL database; \"\": "
            "the SQLite file of database"),
    /* The host name (to its first character that a node id cannot
     * hold: "web1" of web1.example.org) is unique on a LAN and stable
     * across restarts, which a node id must be; "node1" without one. */
    {{"node_id", "--node-id", "ID", "this node's name among the nodes"},
     K_NODE,
     offsetof(struct config, node_id),
     1,
     0,
     0,
     NULL,
     "the host name, cut to fit"},
    /* A command that needs a read waits this long at most (a frozen
     * database: it is answered busy and the read is given up); a read
     * takes microseconds (SQLite) to a few round trips (PostgreSQL). */
    INT_KEY(store_read_timeout_ms, NULL, 100, 600000, 3000,
            "ms a command waits for a database read before it is answered "
            "busy"),
    /* The client's timeouts on every PostgreSQL connection: a database
     * gone silent (its host down, a link cut) must fail the writer's
     * batch and the reader's read within seconds, not when TCP gives up
     * after 15 minutes. A statement that runs half a minute is a
     * runaway (a batch of moves takes milliseconds; the restore at start
     * reads every live game, a few seconds at 100,000). */
    INT_KEY(postgres_connect_timeout_s, NULL, 1, 3600, 2,
            "seconds a connection to PostgreSQL may take to open"),
    INT_KEY(postgres_statement_timeout_ms, NULL, 0, 3600000, 30000,
            "ms a statement may run on PostgreSQL; 0: no limit"),
    INT_KEY(postgres_tcp_user_timeout_ms, NULL, 0, 3600000, 10000,
            "ms data sent to PostgreSQL may wait for TCP's "
            "acknowledgement; 0: the kernel's"),
    INT_KEY(postgres_keepalives_idle_s, NULL, 1, 86400, 10,
            "seconds an idle PostgreSQL connection waits before its "
            "first TCP keepalive"),
    INT_KEY(postgres_keepalives_interval_s, NULL, 1, 3600, 3,
            "seconds between TCP keepalives"),
    INT_KEY(postgres_keepalives_count, NULL, 1, 100, 3,
            "TCP keepalives unanswered before a connection is given up"),
    /* Set: this node is one of a cluster (with `postgres`); unset: it
     * runs alone, as it always did. */
    STR_KEY(redis, "--redis", "ADDR", K_REDIS, true, "",
            "Redis as host:port or a unix socket path, or several "
            "separated by commas (shards); \"\": none"),
    /* Secrets live in files of their own (systemd's LoadCredential=, a
     * Kubernetes secret, a file only the service reads), never in the
     * JSON that config management copies around. */
    STR_KEY(redis_user, "--redis-user", "NAME", K_PATH, true, "",
            "Redis ACL user of the nodes; \"\": AUTH with the password "
            "alone (the default user)"),
    STR_KEY(redis_password_file, "--redis-password-file", "PATH", K_PATH,
            true, "", "file holding the Redis password; \"\": no AUTH"),
    STR_KEY(redis_tls_ca_file, "--redis-tls-ca-file", "PATH", K_PATH, true,
            "",
            "PEM CAs trusted for Redis's certificate: TLS to Redis; "
            "\"\": plain TCP"),
    STR_KEY(redis_tls_cert_file, "--redis-tls-cert-file", "PATH", K_PATH,
            true, "", "PEM client certificate shown to Redis; \"\": none"),
    STR_KEY(redis_tls_key_file, "--redis-tls-key-file", "PATH", K_PATH, true,
            "", "PEM key of redis_tls_cert_file"),
    STR_KEY(redis_tls_server_name, "--redis-tls-server-name", "NAME", K_PATH,
            true, "",
            "name (or address) Redis's certificate must carry; \"\": the "
            "host of redis"),
    /* Required with redis: an unsigned cluster obeys whoever can
     * PUBLISH to its Redis. */
    STR_KEY(cluster_key_file, "--cluster-key-file", "PATH", K_PATH, true, "",
            "file holding the key the nodes sign their messages with"),
    /* A handover is a few Redis round trips and a game's read from the
     * store on the new host: 10 a second is nothing to either, and
     * evens out a node that rejoined with 1,000 games to take in under
     * two minutes. */
    INT_KEY(balance_games_per_s, NULL, 0, 1000, 10,
            "games a node of a cluster hands over a second to balance the "
            "load; 0: none"),
    STR_KEY(web_root, "--web", "DIR", K_PATH, false, "./web",
            "static files of the browser client"),
    INT_KEY(grace_s, "--grace-s", 1, 86400, 60,
            "seconds a disconnected player keeps a game"),
    INT_KEY(first_move_s, "--first-move-s", 1, 86400, 30,
            "seconds for each side's first move"),
    /* The descriptor budget of these machines is 20,000 a process; half
     * leaves room for HTTP requests, the database and lws itself. */
    INT_KEY(max_connections, NULL, 1, 1000000, 10000,
            "open WebSockets in all"),
    /* A household or office behind one NAT address, each person with a
     * few tabs. */
    INT_KEY(max_connections_per_ip, NULL, 1, 1000000, 256,
            "open WebSockets from one address"),
    /* A browser sends its request at once; a phone on a poor network
     * within a few seconds. A connection that has sent no complete
     * request by then holds a descriptor for nothing. */
    INT_KEY(request_timeout_s, "--request-timeout-s", 1, 300, 10,
            "seconds a connection has to send a complete request"),
    /* Linux grows a socket's send buffer up to tcp_wmem's maximum (4
     * MiB): a client that stops reading would hold that much kernel
     * memory, unseen by the output cap. 64 KiB (the kernel doubles it for
     * its bookkeeping) holds a dozen snapshots of the lobby and carries
     * 1.3 MB/s at a 100 ms round trip, ample for the client's files. */
    INT_KEY(send_buffer_bytes, NULL, 0, 4194304, 65536,
            "a connection's kernel send buffer (SO_SNDBUF); 0: the "
            "kernel's"),
    LIST_KEY(trusted_proxies, "--trusted-proxies", K_PROXIES,
             "comma-separated proxy addresses whose X-Forwarded-For is "
             "believed"),
    /* One machine, one home or one customer of a host is usually given
     * a /64 of IPv6 and may use any of its 2^64 addresses: counted per
     * address, it would escape every per-address limit. */
    INT_KEY(ipv6_limit_prefix, "--ipv6-limit-prefix", 16, 128, 64,
            "leading bits of an IPv6 address that name one client for "
            "the per-address limits"),
    /* A human plays at most a few moves a second (premoves included);
     * 10/s with a burst of 20 leaves ample room. Moves are counted apart
     * from everything else so that chatty clients (ping, sync) cannot
     * starve play; other messages burst on a reconnect that syncs every
     * live game at once. */
    INT_KEY(move_rate_per_s, NULL, 1, 100000, 10,
            "move messages a connection may send a second"),
    INT_KEY(move_burst, NULL, 1, 100000, 20, "move messages in one burst"),
    INT_KEY(msg_rate_per_s, NULL, 1, 100000, 20,
            "other messages a connection may send a second"),
    INT_KEY(msg_burst, NULL, 1, 100000, 60, "other messages in one burst"),
    /* Generous for correspondence play; small enough that one client
     * cannot fill memory and the database (an open invitation is 6-7 KB
     * and lives a day). */
    INT_KEY(max_games_per_player, "--max-games-per-player", 1, 100000, 100,
            "live games, open invitations and seek one player may hold"),
    /* By all the players of one address (a script can make a new guest
     * per hundred); room for a household or office behind one NAT
     * address. */
    INT_KEY(max_invites_per_ip, "--max-invites-per-ip", 1, 10000000, 500,
            "open invitations from one address"),
    /* Started games counting against one address (either player's),
     * correspondence games included: twice a player's own cap, room for
     * a household or a club behind one NAT address; a script with fresh
     * guests stops there (issue 25: 1,500 games in 18 s before). */
    INT_KEY(max_games_per_ip, "--max-games-per-ip", 1, 10000000, 200,
            "started games counting against one address"),
    /* Games not ended on this node (invitations included), about 4 KB
     * each in memory and in the database and replayed at every start:
     * 50,000 is ~200 MB and a few seconds of restore. */
    INT_KEY(max_live_games, "--max-live-games", 1, 10000000, 50000,
            "games not ended on this node, invitations included"),
    /* Ten rated games a day between the same two accounts is a long
     * evening between rivals (ten 5+3 blitz games, about two hours),
     * and past it two people's results say little more of their
     * strength; a farmer with a puppet account gains at most ten wins a
     * day from it instead of hundreds (issue 25: 300 in 35 s, 1500 ->
     * 2104). Later games between them that day are played casual. */
    INT_KEY(rated_games_per_pair_per_day, "--rated-games-per-pair-per-day", 1,
            1000000, 10,
            "rated games between the same two accounts counted in 24 h"),
    /* A player has one seek; an address's players (a household, an
     * office) seldom seek more at once. 100 guests of one address once
     * filled the lobby. */
    INT_KEY(max_seeks_per_ip, NULL, 1, 10000000, 10,
            "open seeks of one address's players"),
    /* A seek of a connection that sent nothing but pings that long goes
     * (an abandoned tab); a person waiting seeks again. */
    INT_KEY(seek_idle_s, NULL, 1, 86400, 600,
            "seconds a seek lives with no message from its connection"),
    /* A ping's round trip is believed up to the kernel's own (from the
     * ACKs) plus this: a client that holds its pongs back claims no
     * more. Behind a proxy that ends TCP the kernel's is the proxy's:
     * raise it there to compensate the players' lines. */
    INT_KEY(lag_rtt_margin_ms, NULL, 1, 100000, 10,
            "ms a ping's round trip may exceed the kernel's for lag credit"),
    /* A token bucket: that many at once, refilled over a minute. A person
     * creates one guest per browser. */
    INT_KEY(guests_per_ip_per_min, "--guests-per-ip-per-min", 1, 10000000, 30,
            "new guests (hello without a token) one address may create "
            "a minute"),
    /* Login attempts (right or wrong), token buckets of that many
     * refilled over a minute: per address, room for a household behind
     * one NAT address; per username, room for a person's devices and
     * typos, while a guesser gets 10 passwords a minute per account. */
    INT_KEY(logins_per_ip_per_min, "--logins-per-ip-per-min", 1, 10000000, 30,
            "login attempts one address may make a minute"),
    INT_KEY(logins_per_user_per_min, "--logins-per-user-per-min", 1, 10000000,
            10, "login attempts for one username a minute"),
    /* A person registers once and may try a few names; each attempt
     * tells whether a name is taken. */
    INT_KEY(registers_per_ip_per_min, "--registers-per-ip-per-min", 1,
            10000000, 10, "register attempts one address may make a minute"),
    /* Logins for a username nobody has, from everyone together: a
     * person mistypes a name now and then; a flood of made-up names
     * would otherwise keep the password threads busy (each attempt
     * costs a hash, ~50 ms of a core). */
    INT_KEY(unknown_logins_per_s, "--unknown-logins-per-s", 1, 100000, 5,
            "login attempts for unknown usernames a second, in all"),
    /* Argon2id takes 19 MiB and tens of milliseconds of a core per
     * password: one thread leaves the other cores to the event loop and
     * the database; the queue is what a login storm may make wait (64
     * at ~50 ms: about 3 s), beyond it logins are refused as busy. */
    INT_KEY(password_threads, NULL, 1, 64, 1,
            "threads hashing passwords (logins, registrations)"),
    INT_KEY(password_queue, NULL, 1, 100000, 64,
            "password hashes that may wait or run at once"),
    /* Debian's stockfish package (a build dependency): the computer's
     * levels are calibrated on its 15.1. "" turns computer games off. */
    STR_KEY(engine_path, "--engine-path", "PATH", K_PATH, true,
            "/usr/games/stockfish",
            "the UCI engine the computer plays with (\"\": none)"),
    /* One engine per core (0) keeps every core thinking for the
     * computer's games; they run niced, so the event loop still wins a
     * core when it needs one. Fewer leaves cores to other work. */
    INT_KEY(engines, "--engines", 0, 256, 0,
            "engine processes at most, each one thread (0: one per core)"),
    /* A level-8 move thinks a second, so 64 waiting moves are seconds of
     * wait with a few engines; past half of it, new computer games are
     * refused (busy), and a move refused is asked again shortly. */
    INT_KEY(engine_queue, NULL, 2, 100000, 64,
            "engine requests that may wait for an engine"),
    /* As lichess: one game against the computer at a time (each costs a
     * core for up to a second a move). */
    INT_KEY(max_computer_games_per_player, NULL, 1, 100000, 1,
            "live games one player may play against the computer"),
    /* A class in a room behind one address plays together; a script
     * with fresh guests does not take every engine for itself (each
     * game's moves want an engine a second at level 8). */
    INT_KEY(max_computer_games_per_ip, NULL, 1, 100000, 16,
            "live games against the computer of one address's players"),
    /* Challenges (PROTOCOL.md, "Challenges"): a few out per player, as
     * lichess allows; more in, so that a popular player is not silenced,
     * but bounded, since each is a notice on every page of theirs. */
    INT_KEY(max_challenges_out, NULL, 1, 1000, 3,
            "pending challenges one player may have sent"),
    INT_KEY(max_challenges_in, NULL, 1, 1000, 20,
            "pending challenges one player may have received"),
    INT_KEY(challenge_lapse_s, NULL, 1, 3600, 20,
            "seconds a challenge outlives its challenger's last connection"),
    /* Computer analysis (hub/analysis.c): each position of a game is
     * searched this many nodes on one thread (docs/performance.md: about
     * a fifth of a second with Debian's Stockfish); a game's analysis
     * takes a player's turn in a queue of analysis_queue; a player asks
     * for analyses_per_day in 24 hours (lichess allows a few dozen). */
    INT_KEY(analysis_nodes, NULL, 1000, 100000000, 200000,
            "engine nodes searched per position of an analysis"),
    INT_KEY(analysis_queue, NULL, 1, 100000, 32,
            "game analyses that may wait for the engines"),
    INT_KEY(analyses_per_day, NULL, 1, 100000, 25,
            "game analyses one player may ask for in 24 hours"),
    /* Arena tournaments (arena_director.c): who may create one, and how
     * many may be open or running at once (each pairs every second). */
    INT_KEY(arena_create, NULL, 0, 2, 1,
            "who creates arena tournaments: 0 nobody, 1 accounts, 2 anyone"),
    INT_KEY(max_arenas, NULL, 1, 100, 10,
            "arena tournaments open or running at once"),
    /* Chat (hub/chat.c). A guest costs nothing to make: off by default,
     * as lichess keeps anonymous players out of its chats. */
    INT_KEY(chat_guests, NULL, 0, 1, 0, "1: guests may chat too"),
    /* About one line every 5 s, after a burst of 5: a conversation, not
     * a flood. */
    INT_KEY(chat_per_min, NULL, 1, 6000, 12,
            "chat lines one player may send a minute"),
    INT_KEY(chat_burst, NULL, 1, 1000, 5, "chat lines in one burst"),
    /* 200 spectators cannot make a room unreadable, nor its fan-out cost
     * a game more than this; a room takes 4 s of it in one burst. */
    INT_KEY(chat_room_per_s, NULL, 1, 10000, 5,
            "chat lines one game's rooms take a second"),
    /* Long enough to cool a flood, short enough to forgive one. */
    INT_KEY(chat_mute_s, NULL, 1, 86400, 300,
            "seconds a player who flooded a chat is muted"),
    /* A page asks for a game or a page of history at a time; a script
     * scraping every game, or a flood, is held to this. */
    INT_KEY(http_rate_per_s, NULL, 1, 100000, 10,
            "HTTP API requests from one address a second"),
    INT_KEY(http_burst, NULL, 1, 100000, 30,
            "HTTP API requests in one burst"),
    /* Keepalive: a connection is pinged 30 s after its last pong (or its
     * opening; browsers answer by themselves); one that has not answered
     * 60 s after that mark is dead or half-open (a laptop lid closed, a
     * NAT entry dropped) and is closed, which starts its player's grace
     * period. Well under the few minutes after which NATs and proxies
     * drop idle flows. */
    INT_KEY(ping_interval_s, NULL, 1, 3600, 30,
            "seconds after the last pong before a ping"),
    INT_KEY(ping_timeout_s, NULL, 2, 7200, 60,
            "seconds after the last pong before a close"),
    /* A load balancer that checks /readyz needs its interval times its
     * failures to notice a node stopping; none by default: nginx (the
     * setup shipped) checks nothing, and a stop should not wait for
     * nothing. At most 5 minutes: systemd's TimeoutStopSec must hold it
     * and the handover. */
    INT_KEY(drain_s, "--drain-s", 0, 300, 0,
            "seconds a stop reports not ready before it shuts down"),
    {{"log_level", "--log-level", "L", "error, warn, info or debug"},
     K_LEVEL,
     offsetof(struct config, log_level),
     0,
     0,
     0,
     "info",
     NULL},
    STR_KEY(log_file, "--log-file", "PATH", K_PATH, true, "",
            "append the log to this file; \"\": standard error"),
};

#define NKEYS (sizeof keys / sizeof keys[0])
#define PATH_BYTES 4096
#define NODE_ID_CHARS                                      \
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" \
    "0123456789_-"

static const struct key *find_key(const char *name)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (!strcmp(keys[i].pub.key, name))
            return &keys[i];
    return NULL;
}

static int *int_at(struct config *c, const struct key *k)
{
    return (int *)((char *)c + k->off);
}

static char **str_at(struct config *c, const struct key *k)
{
    return (char **)((char *)c + k->off);
}

/* Keys whose value is a string struct config owns. */
static bool is_str(const struct key *k)
{
    return k->kind == K_PATH || k->kind == K_ADDR || k->kind == K_TLSVER ||
           k->kind == K_CIPHERS || k->kind == K_NODE || k->kind == K_REDIS;
}

/* Frees a list setting's entries and array and empties it. */
static void free_list(char ***v, size_t *n)
{
    for (size_t i = 0; i < *n; i++)
        free((*v)[i]);
    free(*v);
    *v = NULL;
    *n = 0;
}

void config_clear(struct config *c)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (is_str(&keys[i])) {
            free(*str_at(c, &keys[i]));
            *str_at(c, &keys[i]) = NULL;
        }
    free_list(&c->allowed_origins, &c->n_allowed_origins);
    free_list(&c->trusted_proxies, &c->n_trusted_proxies);
}

static int set_int(struct config *c, const struct key *k, long v, char *err,
                   size_t errlen);
static int set_str(struct config *c, const struct key *k, const char *s,
                   char *err, size_t errlen);
static int set_level(struct config *c, const char *s, char *err,
                     size_t errlen);

/* node_id's default: the host name up to its first character a node id
 * cannot hold, at most CONFIG_NODE_ID_MAX of it; "node1" when that
 * leaves nothing. */
static void default_node_id(char *out, size_t len)
{
    char host[256] = "";
    size_t n;

    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    n = strspn(host, NODE_ID_CHARS);
    if (n > CONFIG_NODE_ID_MAX)
        n = CONFIG_NODE_ID_MAX;
    if (n == 0)
        snprintf(out, len, "node1");
    else
        snprintf(out, len, "%.*s", (int)n, host);
}

int config_init(struct config *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < NKEYS; i++) {
        const struct key *k = &keys[i];
        char node[CONFIG_NODE_ID_MAX + 1];
        int rc = 0;
        switch (k->kind) {
        case K_INT:
            rc = set_int(c, k, k->def, NULL, 0);
            break;
        case K_NODE:
            default_node_id(node, sizeof node);
            rc = set_str(c, k, node, NULL, 0);
            break;
        case K_PATH:
        case K_ADDR:
        case K_TLSVER:
        case K_CIPHERS:
        case K_REDIS:
            rc = set_str(c, k, k->def_str, NULL, 0);
            break;
        case K_LEVEL:
            rc = set_level(c, k->def_str, NULL, 0);
            break;
        case K_ORIGINS:
        case K_PROXIES:
            break; /* empty */
        }
        if (rc < 0) {
            config_clear(c);
            return -1;
        }
    }
    return 0;
}

/* ---- the table as the command line and the docs see it ----------------- */

const struct config_setting *config_setting_at(size_t i)
{
    return i < NKEYS ? &keys[i].pub : NULL;
}

const struct config_setting *config_setting_find(const char *name)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (!strcmp(keys[i].pub.key, name) ||
            (keys[i].pub.flag && !strcmp(keys[i].pub.flag, name)))
            return &keys[i].pub;
    return NULL;
}

int config_default_text(const struct config_setting *s, char *out, size_t len)
{
    const struct key *k = (const struct key *)s;

    if (k->shown)
        snprintf(out, len, "%s", k->shown);
    else if (k->kind == K_INT)
        snprintf(out, len, "%ld", k->def);
    else if (k->kind == K_ORIGINS || k->kind == K_PROXIES)
        snprintf(out, len, "[]");
    else /* (no default needs JSON escapes) */
        snprintf(out, len, "\"%s\"", k->def_str);
    return !k->shown;
}

/* Writes text to f from column col, breaking lines before column 80 at
 * spaces (or, when `whole`, only before text); a new line starts with
 * indent spaces. Returns the column where it ended. */
static size_t wrap(FILE *f, size_t col, size_t indent, const char *text,
                   bool whole)
{
    while (*text) {
        size_t n = whole ? strlen(text) : strcspn(text, " ");
        if (col > indent && col + 1 + n >= 80) {
            fprintf(f, "\n%*s", (int)indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", (int)n, text);
        col += n;
        text += n;
        text += strspn(text, " ");
    }
    return col;
}

void config_help(FILE *f)
{
    char line[512], def[160];
    size_t col, left = 0;

    for (size_t i = 0; i < NKEYS; i++) {
        const struct key *k = &keys[i];
        if (!k->pub.flag)
            continue;
        config_default_text(&k->pub, def, sizeof def);
        /* the help in column 21, or two spaces after a longer flag */
        col = (size_t)fprintf(f, "  %s %s ", k->pub.flag, k->pub.arg);
        if (col < 21) {
            fprintf(f, "%*s", (int)(21 - col), "");
            col = 21;
        }
        if (k->kind == K_INT)
            snprintf(line, sizeof line, "%s (%ld-%ld, default %s)",
                     k->pub.help, k->lo, k->hi, def);
        else
            snprintf(line, sizeof line, "%s (default %s)", k->pub.help, def);
        wrap(f, col, 21, line, false);
        fputc('\n', f);
    }
    col = wrap(f, 0, 0,
               "Settings only in the --config file (defaults in "
               "brackets; docs/operator.md says more of each):",
               false);
    for (size_t i = 0; i < NKEYS; i++)
        left += !keys[i].pub.flag;
    for (size_t i = 0; i < NKEYS; i++) {
        const struct key *k = &keys[i];
        if (k->pub.flag)
            continue;
        config_default_text(&k->pub, def, sizeof def);
        snprintf(line, sizeof line, "%s [%s]%s", k->pub.key, def,
                 --left ? "," : ".");
        col = wrap(f, col, 0, line, true);
    }
    fputc('\n', f);
}

/* ---- single values ----------------------------------------------------- */

static int set_int(struct config *c, const struct key *k, long v, char *err,
                   size_t errlen)
{
    if (v < k->lo || v > k->hi) {
        errtext_set(err, errlen,
                    "must be an integer from %ld to %ld, not %ld", k->lo,
                    k->hi, v);
        return -1;
    }
    *int_at(c, k) = (int)v;
    return 0;
}

/* A Redis address: a unix socket's path (anything with a '/'), or
 * host:port with a port of 1-65535 and a host ("[v6]" for IPv6). */
static bool redis_address_ok(const char *s)
{
    const char *colon = strrchr(s, ':');
    char *end;
    long port;

    if (strchr(s, '/'))
        return true;
    if (colon && colon != s) {
        errno = 0;
        port = strtol(colon + 1, &end, 10);
        if (!errno && end != colon + 1 && !*end && port >= 1 &&
            port <= 65535 &&
            (s[0] != '[' || (colon - s >= 3 && colon[-1] == ']')))
            return true;
    }
    return false;
}

int config_redis_split(const char *list, char (*out)[CONFIG_REDIS_ADDR_MAX],
                       int max)
{
    int n = 0;

    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        if (n == max || len == 0 || len >= CONFIG_REDIS_ADDR_MAX)
            return -1;
        memcpy(out[n], p, len);
        out[n][len] = '\0';
        if (!redis_address_ok(out[n]))
            return -1;
        n++;
        p += len;
        if (!*p)
            return n;
    }
}

/* One Redis address, or several separated by commas (the shards: the
 * first holds what every node shares). */
static int check_redis(const char *s, char *err, size_t errlen)
{
    char(*addrs)[CONFIG_REDIS_ADDR_MAX] = malloc(CONFIG_REDIS_MAX *
                                                 sizeof *addrs);
    int n = addrs ? config_redis_split(s, addrs, CONFIG_REDIS_MAX) : -1;

    free(addrs);
    if (n > 0)
        return 0;
    errtext_set(err, errlen,
                "must be host:port (a port of 1-65535; [addr]:port for "
                "IPv6) or a unix socket's path, or 1 to %d of them "
                "separated by commas, not '%s'",
                CONFIG_REDIS_MAX, s);
    return -1;
}

static int set_str(struct config *c, const struct key *k, const char *s,
                   char *err, size_t errlen)
{
    char *copy;
    unsigned char buf[sizeof(struct in6_addr)];

    if (strlen(s) >= PATH_BYTES) {
        errtext_set(err, errlen, "must be shorter than %d bytes", PATH_BYTES);
        return -1;
    }
    if ((k->kind == K_PATH || k->kind == K_CIPHERS) && k->lo && !*s) {
        errtext_set(err, errlen, "must not be empty");
        return -1;
    }
    if (k->kind == K_TLSVER && strcmp(s, "1.2") && strcmp(s, "1.3")) {
        errtext_set(err, errlen, "must be \"1.2\" or \"1.3\", not '%s'", s);
        return -1;
    }
    if (k->kind == K_CIPHERS &&
        s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                    "0123456789-_:+!@=.,")]) {
        errtext_set(err, errlen,
                    "must be an OpenSSL cipher list (names joined "
                    "by ':'), not '%s'",
                    s);
        return -1;
    }
    if (k->kind == K_NODE && (!*s || strlen(s) > CONFIG_NODE_ID_MAX ||
                              s[strspn(s, NODE_ID_CHARS)])) {
        errtext_set(err, errlen,
                    "must be 1 to %d of A-Z a-z 0-9 _ -, not '%s'",
                    CONFIG_NODE_ID_MAX, s);
        return -1;
    }
    if (k->kind == K_REDIS && *s && check_redis(s, err, errlen) != 0)
        return -1;
    if (k->kind == K_ADDR && *s && inet_pton(AF_INET, s, buf) != 1 &&
        inet_pton(AF_INET6, s, buf) != 1) {
        errtext_set(err, errlen,
                    "must be an IPv4 or IPv6 address (or \"\" "
                    "for every interface), not '%s'",
                    s);
        return -1;
    }
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20) {
            errtext_set(err, errlen, "must not contain control characters");
            return -1;
        }
    copy = strdup(s);
    if (!copy) {
        errtext_set(err, errlen, "out of memory");
        return -1;
    }
    free(*str_at(c, k));
    *str_at(c, k) = copy;
    return 0;
}

static int set_level(struct config *c, const char *s, char *err,
                     size_t errlen)
{
    int level = log_level_parse(s);

    if (level < 0) {
        errtext_set(err, errlen,
                    "must be one of \"error\", \"warn\", \"info\", "
                    "\"debug\", not '%s'",
                    s);
        return -1;
    }
    c->log_level = level;
    return 0;
}

static bool host_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
           ch == '-' || ch == '.';
}

/* Checks "http[s]://host[:port]" (host a name, an IPv4 address or an
 * [IPv6] address) and returns it lowercased in out (malloc'ed), or -1. */
static int parse_origin(const char *s, char **out, char *err, size_t errlen)
{
    char *o = strdup(s), *p, *host;
    size_t n;

    if (!o) {
        errtext_set(err, errlen, "out of memory");
        return -1;
    }
    for (p = o; *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    if (!strncmp(o, "https://", 8))
        host = o + 8;
    else if (!strncmp(o, "http://", 7))
        host = o + 7;
    else
        goto bad;
    p = host;
    if (*p == '[') {
        p = strchr(p, ']');
        if (!p || p == host + 1)
            goto bad;
        for (char *q = host + 1; q < p; q++)
            if (!(host_char(*q) || *q == ':'))
                goto bad;
        p++;
    } else {
        while (host_char(*p))
            p++;
        if (p == host)
            goto bad;
    }
    if (*p == ':') {
        n = strspn(p + 1, "0123456789");
        if (n == 0 || n > 5 || p[1 + n] || atol(p + 1) < 1 ||
            atol(p + 1) > 65535)
            goto bad;
    } else if (*p) {
        goto bad;
    }
    if (strlen(o) > 255)
        goto bad;
    *out = o;
    return 0;
bad:
    errtext_set(err, errlen,
                "'%s' is not an origin: write scheme://host or "
                "scheme://host:port with scheme http or https, no path",
                s);
    free(o);
    return -1;
}

/* The address in canonical text (inet_ntop's; an IPv4-mapped IPv6
 * address as IPv4, which is how an IPv4 client of a dual-stack socket
 * appears), or -1. Parsed as the network layer parses it (trust.h), so
 * main.c's copy into struct net_config cannot fail. */
static int canonical_addr(const char *s, char *out, size_t len)
{
    struct in6_addr a6;

    if (trust_addr_parse(s, &a6) < 0)
        return -1;
    if (IN6_IS_ADDR_V4MAPPED(&a6))
        return inet_ntop(AF_INET, &a6.s6_addr[12], out, (socklen_t)len) ? 0
                                                                        : -1;
    return inet_ntop(AF_INET6, &a6, out, (socklen_t)len) ? 0 : -1;
}

/* A trusted proxy: an address in canonical text (malloc'ed in *out). */
static int parse_proxy(const char *s, char **out, char *err, size_t errlen)
{
    char text[INET6_ADDRSTRLEN];

    if (canonical_addr(s, text, sizeof text) < 0) {
        errtext_set(err, errlen,
                    "'%s' is not an IPv4 or IPv6 address "
                    "(numeric, no port, no range)",
                    s);
        return -1;
    }
    if (!(*out = strdup(text))) {
        errtext_set(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* Replaces the list setting of key k with n entries of list, each parsed
 * (checked and made canonical) by the setting's own parser. */
static int set_list(struct config *c, const struct key *k,
                    const char *const *list, size_t n, char *err,
                    size_t errlen)
{
    bool proxies = k->kind == K_PROXIES;
    size_t max = proxies ? CONFIG_MAX_PROXIES : CONFIG_MAX_ORIGINS;
    int (*parse)(const char *, char **, char *,
                 size_t) = proxies ? parse_proxy : parse_origin;
    char ***field = proxies ? &c->trusted_proxies : &c->allowed_origins;
    size_t *count = proxies ? &c->n_trusted_proxies : &c->n_allowed_origins;
    char **v;
    size_t i;

    if (n > max) {
        errtext_set(err, errlen, "at most %zu %s", max,
                    proxies ? "addresses" : "origins");
        return -1;
    }
    v = calloc(n ? n : 1, sizeof *v);
    if (!v) {
        errtext_set(err, errlen, "out of memory");
        return -1;
    }
    for (i = 0; i < n; i++)
        if (parse(list[i], &v[i], err, errlen) < 0)
            goto fail;
    free_list(field, count);
    *field = v;
    *count = n;
    return 0;
fail:
    while (i > 0)
        free(v[--i]);
    free(v);
    return -1;
}

/* Splits a comma-separated list (a command-line value) into at most max
 * + 1 pieces of copy, which the caller frees. Returns how many. */
static size_t split_list(char *copy, const char **list, size_t max)
{
    char *save = NULL, *tok;
    size_t n = 0;

    for (tok = strtok_r(copy, ",", &save); tok && n <= max;
         tok = strtok_r(NULL, ",", &save))
        list[n++] = tok;
    return n;
}

int config_set_text(struct config *c, const char *key, const char *text,
                    char *err, size_t errlen)
{
    const struct key *k = find_key(key);
    char *end;
    long v;

    if (!k) {
        errtext_set(err, errlen, "unknown key '%s'", key);
        return -1;
    }
    switch (k->kind) {
    case K_INT:
        errno = 0;
        v = strtol(text, &end, 10);
        if (errno || !*text || *end || v < k->lo || v > k->hi) {
            errtext_set(err, errlen,
                        "must be an integer from %ld to %ld, not "
                        "'%s'",
                        k->lo, k->hi, text);
            return -1;
        }
        return set_int(c, k, v, err, errlen);
    case K_PATH:
    case K_ADDR:
    case K_TLSVER:
    case K_CIPHERS:
    case K_NODE:
    case K_REDIS:
        return set_str(c, k, text, err, errlen);
    case K_LEVEL:
        return set_level(c, text, err, errlen);
    case K_ORIGINS:
    case K_PROXIES: {
        char *copy = strdup(text);
        const char *list[CONFIG_MAX_ORIGINS + CONFIG_MAX_PROXIES + 1];
        size_t n;
        int rc;
        if (!copy) {
            errtext_set(err, errlen, "out of memory");
            return -1;
        }
        n = split_list(copy, list,
                       k->kind == K_ORIGINS ? CONFIG_MAX_ORIGINS
                                            : CONFIG_MAX_PROXIES);
        rc = set_list(c, k, list, n, err, errlen);
        free(copy);
        return rc;
    }
    }
    return -1;
}

/* ---- the file ---------------------------------------------------------- */

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "a list";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a number with a fraction";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

static int set_json(struct config *c, const struct key *k, const json_t *v,
                    char *err, size_t errlen)
{
    switch (k->kind) {
    case K_INT:
        if (!json_is_integer(v)) {
            errtext_set(err, errlen,
                        "must be an integer from %ld to %ld, not "
                        "%s",
                        k->lo, k->hi, json_kind(v));
            return -1;
        }
        if (json_integer_value(v) < k->lo || json_integer_value(v) > k->hi) {
            errtext_set(err, errlen,
                        "must be an integer from %ld to %ld, not "
                        "%" JSON_INTEGER_FORMAT,
                        k->lo, k->hi, json_integer_value(v));
            return -1;
        }
        return set_int(c, k, (long)json_integer_value(v), err, errlen);
    case K_PATH:
    case K_ADDR:
    case K_TLSVER:
    case K_CIPHERS:
    case K_NODE:
    case K_REDIS:
    case K_LEVEL:
        if (!json_is_string(v)) {
            errtext_set(err, errlen, "must be a string, not %s",
                        json_kind(v));
            return -1;
        }
        if (k->kind == K_LEVEL)
            return set_level(c, json_string_value(v), err, errlen);
        return set_str(c, k, json_string_value(v), err, errlen);
    case K_ORIGINS:
    case K_PROXIES: {
        const char *list[CONFIG_MAX_ORIGINS + CONFIG_MAX_PROXIES];
        size_t n = json_is_array(v) ? json_array_size(v) : 0;
        size_t max = k->kind == K_ORIGINS ? CONFIG_MAX_ORIGINS
                                          : CONFIG_MAX_PROXIES;
        if (!json_is_array(v)) {
            errtext_set(err, errlen, "must be a list of strings, not %s",
                        json_kind(v));
            return -1;
        }
        if (n > max) {
            errtext_set(err, errlen, "at most %zu %s", max,
                        k->kind == K_ORIGINS ? "origins" : "addresses");
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            const json_t *e = json_array_get(v, i);
            if (!json_is_string(e)) {
                errtext_set(err, errlen, "item %zu must be a string, not %s",
                            i + 1, json_kind(e));
                return -1;
            }
            list[i] = json_string_value(e);
        }
        return set_list(c, k, list, n, err, errlen);
    }
    }
    return -1;
}

static int load_json(struct config *c, json_t *root, const char *name,
                     char *err, size_t errlen)
{
    const char *key;
    json_t *v;
    char why[512];

    if (!json_is_object(root)) {
        errtext_set(err, errlen,
                    "%s: must hold one JSON object of settings, "
                    "not %s",
                    name, json_kind(root));
        return -1;
    }
    json_object_foreach(root, key, v)
    {
        const struct key *k = find_key(key);
        if (!k) {
            errtext_set(err, errlen, "%s: unknown key '%s'", name, key);
            return -1;
        }
        if (set_json(c, k, v, why, sizeof why) < 0) {
            errtext_set(err, errlen, "%s: key '%s': %s", name, key, why);
            return -1;
        }
    }
    return 0;
}

int config_load_text(struct config *c, const char *text, const char *name,
                     char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    int rc;

    if (!root) {
        errtext_set(err, errlen, "%s: line %d, column %d: %s", name, je.line,
                    je.column, je.text);
        return -1;
    }
    rc = load_json(c, root, name, err, errlen);
    json_decref(root);
    return rc;
}

int config_load_file(struct config *c, const char *path, char *err,
                     size_t errlen)
{
    json_error_t je;
    json_t *root;
    FILE *f = fopen(path, "re");
    int rc;

    if (!f) {
        errtext_set(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (!root) {
        errtext_set(err, errlen, "%s: line %d, column %d: %s", path, je.line,
                    je.column, je.text);
        return -1;
    }
    rc = load_json(c, root, path, err, errlen);
    json_decref(root);
    return rc;
}

/* ---- the whole --------------------------------------------------------- */

static int readable_file(const char *key, const char *path, char *err,
                         size_t errlen)
{
    struct stat st;

    if (stat(path, &st) < 0 || access(path, R_OK) < 0) {
        errtext_set(err, errlen, "key '%s': cannot read %s: %s", key, path,
                    strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        errtext_set(err, errlen, "key '%s': %s is not a file", key, path);
        return -1;
    }
    return 0;
}

/* The settings of a cluster's node: Redis's credentials and TLS, the
 * cluster's key. Their files are read at start (app/clusterconf.c). */
static int validate_cluster(const struct config *c, char *err, size_t errlen)
{
    const char *files[] = {"redis_password_file", "redis_tls_ca_file",
                           "redis_tls_cert_file", "redis_tls_key_file",
                           "cluster_key_file"};
    const char *paths[] = {c->redis_password_file, c->redis_tls_ca_file,
                           c->redis_tls_cert_file, c->redis_tls_key_file,
                           c->cluster_key_file};
    const char *only = NULL;

    if (!c->redis[0]) {
        only = c->redis_user[0]              ? "redis_user"
               : c->redis_tls_server_name[0] ? "redis_tls_server_name"
                                             : NULL;
        for (size_t i = 0; !only && i < sizeof files / sizeof *files; i++)
            if (paths[i][0])
                only = files[i];
        if (only) {
            errtext_set(err, errlen, "key '%s': set only with 'redis'", only);
            return -1;
        }
        return 0;
    }
    if (!c->postgres[0]) {
        /* the nodes of a cluster share their games' journal */
        errtext_set(err, errlen,
                    "key 'redis': a cluster's nodes need a shared "
                    "database: set 'postgres' too");
        return -1;
    }
    if (!c->cluster_key_file[0]) {
        errtext_set(err, errlen,
                    "key 'redis': a cluster's nodes sign their messages: "
                    "set 'cluster_key_file' (a file of %d bytes or more, "
                    "the same on every node: openssl rand -hex 32)",
                    CONFIG_CLUSTER_KEY_MIN);
        return -1;
    }
    if (c->redis_user[0] && !c->redis_password_file[0]) {
        errtext_set(err, errlen,
                    "key 'redis_user': needs 'redis_password_file'");
        return -1;
    }
    if (!c->redis_tls_cert_file[0] != !c->redis_tls_key_file[0]) {
        bool cert = c->redis_tls_cert_file[0] != '\0';
        errtext_set(err, errlen, "key '%s': must be set together with '%s'",
                    cert ? "redis_tls_cert_file" : "redis_tls_key_file",
                    cert ? "redis_tls_key_file" : "redis_tls_cert_file");
        return -1;
    }
    only = c->redis_tls_cert_file[0]     ? "redis_tls_cert_file"
           : c->redis_tls_server_name[0] ? "redis_tls_server_name"
                                         : NULL;
    if (only && !c->redis_tls_ca_file[0]) {
        errtext_set(err, errlen,
                    "key '%s': TLS to Redis is on with "
                    "'redis_tls_ca_file': set it too",
                    only);
        return -1;
    }
    if (c->redis_tls_ca_file[0] && strchr(c->redis, '/')) {
        errtext_set(err, errlen,
                    "key 'redis_tls_ca_file': TLS needs 'redis' as "
                    "host:port, not a unix socket");
        return -1;
    }
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        if (paths[i][0] && readable_file(files[i], paths[i], err, errlen) < 0)
            return -1;
    return 0;
}

int config_validate(const struct config *c, char *err, size_t errlen)
{
    bool tls = c->tls_cert[0] != '\0';

    if (tls != (c->tls_key[0] != '\0')) {
        errtext_set(err, errlen, "key '%s': must be set together with '%s'",
                    tls ? "tls_cert" : "tls_key",
                    tls ? "tls_key" : "tls_cert");
        return -1;
    }
    if (tls && (readable_file("tls_cert", c->tls_cert, err, errlen) < 0 ||
                readable_file("tls_key", c->tls_key, err, errlen) < 0))
        return -1;
    if (c->http_redirect_port && !tls) {
        errtext_set(err, errlen,
                    "key 'http_redirect_port': needs TLS "
                    "(tls_cert and tls_key)");
        return -1;
    }
    if (validate_cluster(c, err, errlen) < 0)
        return -1;
    if (c->ping_timeout_s <= c->ping_interval_s) {
        errtext_set(err, errlen,
                    "key 'ping_timeout_s': must be greater than "
                    "'ping_interval_s' (%d), or no ping could be answered in "
                    "time",
                    c->ping_interval_s);
        return -1;
    }
    if (c->http_redirect_port == c->port) {
        errtext_set(err, errlen,
                    "key 'http_redirect_port': must differ from "
                    "'port' (%d)",
                    c->port);
        return -1;
    }
    if (c->engine_path[0] &&
        readable_file("engine_path", c->engine_path, err, errlen) < 0)
        return -1;
    if (c->engine_path[0] && access(c->engine_path, X_OK) < 0) {
        errtext_set(err, errlen,
                    "key 'engine_path': %s is not executable (\"\" turns "
                    "computer games off)",
                    c->engine_path);
        return -1;
    }
    if (c->log_file[0]) {
        char dir[PATH_BYTES];
        char *slash;
        struct stat st;
        snprintf(dir, sizeof dir, "%s", c->log_file);
        slash = strrchr(dir, '/');
        if (slash) {
            *(slash == dir ? slash + 1 : slash) = '\0';
            if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
                errtext_set(err, errlen,
                            "key 'log_file': folder %s does not "
                            "exist",
                            dir);
                return -1;
            }
        }
    }
    return 0;
}
