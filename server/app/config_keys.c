/*
 * config_keys.c - the table of settings (config_internal.h): for each, its
 * key, its command-line flag, its kind, where it lives in struct config,
 * its range, its default with its reason, and its help. config.c reads,
 * checks and documents every setting through it.
 */
#include "app/config_internal.h"

#include <stdbool.h>
#include <stddef.h>

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
const struct key config__keys[] = {
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
    INT_KEY(balance_games_per_s, "--balance-games-per-s", 0, 1000, 10,
            "games a node of a cluster hands over a second to balance the "
            "load; 0: none"),
    INT_KEY(cluster_trace, "--cluster-trace", 0, 1, 0,
            "1: a log line per step of each command about a game of the "
            "cluster (event=cmd_trace)"),
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
    /* Bot accounts (hub/botaccount.c): a rated game between a bot and a
     * human only where the operator allows it. */
    INT_KEY(bot_rated_vs_humans, NULL, 0, 1, 0,
            "1: a bot and a human may play rated games"),
    /* lichess: 100 games between bots a day for each bot (lila's
     * BotLimit); games at once are each bot's choice there, a cap here */
    INT_KEY(bot_max_games, NULL, 1, 1000, 10,
            "live games one bot account may play at once"),
    INT_KEY(bot_games_per_day, NULL, 1, 100000, 100,
            "games against bots one bot account may start a day"),
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
    INT_KEY(analyses_per_week, NULL, 1, 1000000, 125,
            "game analyses one player may ask for in 7 days"),
    /* Arena tournaments (arena_director.c): who may create one, and how
     * many may be open or running at once (each pairs every second). */
    INT_KEY(arena_create, NULL, 0, 2, 1,
            "who creates arena tournaments: 0 nobody, 1 accounts, 2 anyone"),
    /* Any account by default, as before; lichess asks an account of a
     * few days for some of its creations. Ten years at most. */
    INT_KEY(tourney_account_days, NULL, 0, 3650, 0,
            "days an account must be old to create a tournament "
            "(arena_create 1); 0: any account"),
    /* Nobody listed: every account (of tourney_account_days) creates. */
    STR_KEY(tourney_creators, NULL, "NAMES", K_NAMES, true, "",
            "usernames separated by commas that alone (and moderators) "
            "create tournaments (arena_create 1); \"\": any account"),
    INT_KEY(max_arenas, NULL, 1, 100, 10,
            "arena tournaments open or running at once"),
    /* A tick pairs 2,000 waiting players in about 50 ms on the loop; at
     * most 5,000 (about 100 ms): more would need the pairing off the
     * loop (docs/performance.md, "Arena pairings"). */
    INT_KEY(arena_players, NULL, 2, 5000, 2000,
            "players one arena tournament takes"),
    /* Swiss tournaments (swiss_director.c): arena_create says who may
     * create one too. */
    INT_KEY(max_swiss, NULL, 1, 100, 10,
            "Swiss tournaments open or running at once"),
    /* Paired off the loop (a round of 1,000 in about a second of one
     * worker's CPU: docs/performance.md). */
    INT_KEY(swiss_players, NULL, 2, 5000, 1000,
            "players one Swiss tournament takes"),
    /* Chat (hub/chat.c). A guest costs nothing to make: off by default,
     * as lichess keeps anonymous players out of its chats. */
    INT_KEY(chat_guests, NULL, 0, 1, 0, "1: guests may chat too"),
    /* The lobby's room (hub/rooms.c): off, as the issue asks (a room
     * everyone reads is the operator's to open). */
    INT_KEY(lobby_chat, NULL, 0, 1, 0, "1: the lobby has a chat room"),
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
    /* lichess's playban (hub/playban.c): on, as lichess has it. */
    INT_KEY(playban, NULL, 0, 1, 1,
            "1: players who abort or leave games get lichess's playbans"),
    /* A guest who aborts or leaves game after game is banned on its
     * token: nobody else pays for it (an address's ban would keep a whole
     * school behind one NAT out). */
    STR_KEY(playban_guests, NULL, "WHO", K_GUESTS, false, "token",
            "guests' playbans: off, token, or address (token and address)"),
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

const size_t config__nkeys = sizeof config__keys / sizeof config__keys[0];
