/*
 * tunables.h - the fixed limits and timings of connections, sessions and
 * games (those the protocol, the docs or the tests name), each with the
 * reason for its value; an operator cannot change them. Times are
 * milliseconds unless the name ends in _S. Every limit here is enforced
 * where its name is used.
 *
 * Not here: the settings an operator can change (their defaults, ranges
 * and reasons are the table in config_keys.c), and a module's own mechanics
 * (the store's queue and WAL sizes, net.c's timer ticks), which stay
 * beside their code.
 * (Not named limits.h: server/ is on the include path, and that name would
 * shadow the C library's <limits.h> for every file built here.)
 */
#ifndef SERVER_TUNABLES_H
#define SERVER_TUNABLES_H

/* Largest client message after reassembly (protocol: larger closes 1009).
 * The longest legitimate message, an invite with a FEN, is ~250 bytes. */
#define LIMIT_MSG_BYTES 4096

/* Bytes a connection may have queued for sending before it is considered
 * a client that stopped reading and is disconnected. A `state` of a long
 * game is ~10 KiB; 256 KiB holds a reconnect burst of many games with room
 * to spare while bounding memory per connection. */
#define LIMIT_OUT_QUEUE_BYTES (256 * 1024)

/* Messages rejected with rate_limited (the token buckets of the settings
 * move_rate_per_s, move_burst, msg_rate_per_s, msg_burst) before the
 * connection is closed with 1008: a client that ignores the first few
 * errors is flooding. */
#define LIMIT_RATE_STRIKES 20

/* TCP connections one socket address may hold beyond
 * max_connections_per_ip WebSockets: page loads and handshakes in
 * progress (a browser opens up to 6 per host), so a household at its
 * WebSocket cap still loads pages and is refused an upgrade with 429.
 * Every accepted connection counts, whether it ever sends a request or
 * not; more are closed at once. A trusted proxy (trusted_proxies) is
 * exempt: its clients are counted by their X-Forwarded-For address. */
#define LIMIT_HTTP_CONNS_PER_IP 16

/* Descriptors kept beyond max_connections WebSockets: the server's own
 * files (standard streams, log, lock, database, WAL and shared memory,
 * lws's pipe and listeners: about 15), HTTP requests and WebSocket
 * handshakes in progress, and handshakes being refused with 503 while
 * the server is full. At start-up the soft descriptor limit is raised to
 * max_connections plus this; when the hard limit does not allow it,
 * max_connections is lowered to fit, so a full server refuses upgrades
 * with 503 instead of failing accept() with EMFILE. */
#define LIMIT_FD_RESERVE 128

/* Addresses the HTTP API's rate limit keeps a bucket for at once (about
 * 100 bytes each): beyond this, new addresses are refused until buckets
 * refill (server/lib/ratelimit.h), which bounds memory under a flood from
 * many addresses. */
#define LIMIT_HTTP_ADDRS 65536

/* The gzip copies of the static files kept in memory (server/net/gzcache.h):
 * at most this many files and this many compressed bytes (the client is
 * about 20 files and 40 KB compressed); the file least recently asked for
 * makes room. With the copy each gzip answer makes for its connection
 * (at most GZCACHE_MAX_FILE), that bounds what compression costs. */
#define WEB_GZIP_FILES 64
#define WEB_GZIP_BYTES (2 * 1024 * 1024)

/* TCP connections in all (WebSockets, HTTP, handshakes, silent ones):
 * max_connections plus this share of LIMIT_FD_RESERVE. More are closed
 * at accept, so connections never use up the descriptors: the rest of
 * the reserve holds the server's own files and the files being sent. */
#define LIMIT_TCP_EXTRA (LIMIT_FD_RESERVE / 2)

/* Lag compensation (PROTOCOL.md, "Lag compensation"): a Fischer move is
 * credited back at most the one-way delay the server measured on the
 * mover's connection (half its smoothed ping round trip), at most
 * LAG_CREDIT_MAX_MS, at most the time the move took on the server's
 * clock, and at most what is left of the player's quota in the game. The
 * quota starts at LAG_QUOTA_START_MS (the first moves of a bullet game
 * are where lag hurts most), grows LAG_QUOTA_GAIN_MS with each of the
 * player's clocked moves and never holds more than LAG_QUOTA_MAX_MS. So
 * a steady 100 ms one-way delay is compensated in full on every move, a
 * 500 ms spike once, and over a game of n clocked moves a player gains at
 * most LAG_QUOTA_START_MS + n * LAG_QUOTA_GAIN_MS, whatever its pongs
 * claim: a client that delays its pongs on purpose gets no more than a
 * player on a 100 ms line (a tenth of a second a move, a few percent of
 * a 3+0 game). */
#define LAG_CREDIT_MAX_MS 500
#define LAG_QUOTA_START_MS 300
#define LAG_QUOTA_GAIN_MS 100
#define LAG_QUOTA_MAX_MS 1000

/* An invitation stays open this long (protocol: 24 hours). */
#define LIMIT_INVITE_MS (24LL * 3600 * 1000)

/* An ended game stays in memory this long so that late commands about it
 * (a resign crossing the checkmate) are answered from memory, not the
 * database, and its final messages are not raced by a store read. */
#define LIMIT_ENDED_LINGER_MS (5LL * 60 * 1000)

/* A rematch offer lapses this long after it was made (protocol: 60 s).
 * Offers are made only on ended games still in memory (within
 * LIMIT_ENDED_LINGER_MS of their end): an offer that the game's linger
 * cuts short lapses then. */
#define LIMIT_REMATCH_MS (60LL * 1000)

/* Rematch offers each player may make on one ended game, however the
 * last one ended (declined, lapsed, its connection closed): a close and
 * reconnect loop delivered 200 offers in 0.4 s before (issue 25). */
#define LIMIT_REMATCH_OFFERS 3

/* Random bytes in identifiers: GIDs must be unguessable (>= 64 bits, the
 * protocol); PIDs need only be unique; tokens carry >= 128 bits. */
#define LIMIT_GID_BYTES 12 /* 16 base64url characters, 96 bits */
#define LIMIT_PID_BYTES 12
#define LIMIT_SID_BYTES 6
#define LIMIT_TOKEN_BYTES 32 /* 43 characters, 256 bits */

/* A guest that never played (no game names it: seat, creator, any status)
 * is deleted from the database this long after its creation, unless it
 * is connected or has a live game then. Checked every LIMIT_SWEEP_MS,
 * which also forgets idle addresses' counters. */
#define LIMIT_GUEST_UNPLAYED_MS (24LL * 3600 * 1000)
#define LIMIT_SWEEP_MS (10LL * 1000)

/* The guests' playban records a node keeps, in each of its two tables
 * (by token, by address: hub/playban_guest.c), about 650 bytes each with
 * its table slot: at most about 11 MB in all. A new one when full evicts the one changed
 * least recently; each takes a game that counts, so filling a table
 * takes thousands of games. */
#define LIMIT_GUESTBANS 8192

/* /healthz fails when the store's writer has committed nothing (not even
 * its once-a-second heartbeat) for this long: the database refuses writes
 * (locked, disk full), so no move can be confirmed. Above the writer's
 * 5 s busy timeout, so one slow lock does not flap the health check. */
#define LIMIT_HEALTH_WRITER_STALL_MS 8000

/* /healthz fails too when the store's reader has been in one read this
 * long (store_read_stats' busy_since): the database answers no read, so
 * no player can log in or come back with a token. Reads are answered
 * late after store_read_timeout_ms meanwhile; above a slow query's
 * seconds, so one does not flap the check. */
#define LIMIT_HEALTH_READER_STALL_MS 8000

/* The store reads one connection may have waiting at once (hub/reads.c:
 * a command that needs a read is answered rate_limited past them). The
 * reads of commands about games not in memory (a finished game's
 * sync...) are metered by address too: each takes a token of a bucket
 * of LIMIT_GAME_READS_PER_ADDR_PER_S a second up to
 * LIMIT_GAME_READS_PER_ADDR_BURST, given back when the read finds its
 * game (a school behind one address resyncing after a node's restart is
 * not held to it): the address's reads in flight are at most the burst
 * (max_connections_per_ip's default: a sync each),
 * and 4,000 syncs a second of games nobody has from one address cost 50
 * reads a second at most, not 4,000, and leave the reader's queue
 * (STORE_READ_QUEUE) to the others. A hello or a login is not metered:
 * one a connection at a time, and the connections of an address are
 * capped. Another node's connection (a remote session) has no address
 * here: its own node counts it. */
#define LIMIT_READS_PER_CONN 4
/* Messages (and their bytes) a connection's commands may have waiting
 * behind one of its commands that waits for a read (a hello with a
 * token, a finished game's sync, a cluster's seek): they run in order
 * after it. Its message budget admits about 120 in a read's 3 s at most
 * (a burst of 60, then 20 a second); a burst of seeks and cancels fits. */
#define LIMIT_HELD_INPUT 128
#define LIMIT_HELD_INPUT_BYTES 65536
#define LIMIT_GAME_READS_PER_ADDR_PER_S 50
#define LIMIT_GAME_READS_PER_ADDR_BURST 256

/* A game the store did not have, remembered this long (at most
 * LIMIT_UNKNOWN_GAMES of them, the oldest forgotten first): a command
 * about it meanwhile is answered no_such_game without a read. GIDs are
 * random and unguessable, so a game that becomes known within this
 * time was never asked about by a client that had seen it. */
#define LIMIT_UNKNOWN_GAME_MS (10LL * 1000)
#define LIMIT_UNKNOWN_GAMES 4096

/* What the hub read about a player that has no connection or game here
 * (hub/facts.c: the other player of an accept, a pairing) is kept this
 * long with a record of its own: a command that goes on after another
 * round trip (a cluster's accept) finds it. */
#define LIMIT_FACTS_FRESH_MS (5LL * 1000)

/* After a close the server decided on, it half-closes the socket and
 * reads and drops what the client still sends until the client closes
 * its side, at most this long (closing with unread input would reset the
 * connection and lose the close frame). A client sees the close frame
 * within a round trip and closes at once; a flooder that keeps sending
 * costs only reads for this long. */
#define LIMIT_CLOSE_DRAIN_MS 2000
/* An account's token lapses when it has not been used for this long
 * (a hello with it, or the login that made it). A use is recorded when
 * the last one recorded is LIMIT_TOKEN_TOUCH_MS old or more, so that a
 * player reconnecting all day does not cost a write per hello; tokens
 * that lapsed are deleted every LIMIT_TOKEN_EXPIRE_MS. */
#define LIMIT_ACCOUNT_TOKEN_IDLE_MS (30LL * 24 * 3600 * 1000)
#define LIMIT_TOKEN_TOUCH_MS (3600LL * 1000)
#define LIMIT_TOKEN_EXPIRE_MS (3600LL * 1000)

/* Address keys and usernames the login and register rate limits keep a
 * bucket for at once (server/lib/ratelimit.h): beyond this, a new one
 * takes the place of the one used least recently. */
#define LIMIT_LOGIN_KEYS 65536

/* Logins (and registrations) that succeeded, by account and address
 * key, remembered for LIMIT_RECENT_LOGIN_MS (at most LIMIT_RECENT_LOGINS
 * at once, the oldest forgotten first; ~200 bytes each): such a pair's
 * next login goes ahead of the password queue, into places kept for
 * it, with a username bucket of its own (hub/account.c). */
#define LIMIT_RECENT_LOGINS 16384
#define LIMIT_RECENT_LOGIN_MS (30LL * 24 * 3600 * 1000)

/* An account's settings saves (server/hub/prefs.h), each a database write:
 * LIMIT_SETTINGS_BURST at once, then LIMIT_SETTINGS_PER_MIN a minute
 * (a client saves a second or so after a change, so a person never
 * meets it), from all its connections together; the meter keeps a
 * bucket for at most LIMIT_SETTINGS_KEYS accounts at once. */
#define LIMIT_SETTINGS_BURST 10
#define LIMIT_SETTINGS_PER_MIN 20
#define LIMIT_SETTINGS_KEYS 65536

/* Personal API tokens (server/hub/apitoken.c). An account holds at most
 * LIMIT_API_TOKENS; creates and revokes, each a database write, are
 * LIMIT_API_TOKEN_WRITES_BURST at once then LIMIT_API_TOKEN_WRITES_PER_MIN
 * a minute per account. Every HTTP request with a token (a store read)
 * takes from the token's bucket, LIMIT_API_TOKEN_BURST at once then
 * LIMIT_API_TOKEN_PER_S a second (lichess's API allows one request at a
 * time per token and a few a second; a bot sends a move or two a
 * second), and every token an address names that opens nothing takes
 * from the address's bucket of failures, LIMIT_API_AUTH_FAILS_BURST then
 * LIMIT_API_AUTH_FAILS_PER_MIN a minute, past which the address's
 * requests with a token are 429 without a read. LIMIT_API_TOKEN_KEYS
 * buckets at most each (ratelimit.h). POST /api/token/test names at
 * most LIMIT_API_TOKEN_TEST tokens (lichess: 1000; a body of 2 KB). */
#define LIMIT_API_TOKENS 20
#define LIMIT_API_TOKEN_WRITES_BURST 10
#define LIMIT_API_TOKEN_WRITES_PER_MIN 20
#define LIMIT_API_TOKEN_BURST 20
#define LIMIT_API_TOKEN_PER_S 8
#define LIMIT_API_AUTH_FAILS_BURST 10
#define LIMIT_API_AUTH_FAILS_PER_MIN 30
#define LIMIT_API_TOKEN_KEYS 65536
/* Bot accounts (hub/botaccount.c): the bots whose games of the day one
 * node counts (a bucket each, the oldest dropped past it). */
#define LIMIT_BOT_DAY_KEYS 65536
#define LIMIT_API_TOKEN_TEST 50

/* A turn held this long for the store's commit of the move that begins
 * it (the database is locked or slow) is a stall: every connected player
 * is told (store_stall), and told again when the store commits it
 * (store_resumed). Commits normally take milliseconds; a second is far
 * beyond a slow disk's fsync and short enough to explain a frozen board. */
#define LIMIT_STALL_NOTICE_MS 1000
/* A stall is over once no held turn has waited LIMIT_STALL_NOTICE_MS for
 * this long: a disk whose commits take about a second each (0.8-1.2 s)
 * would otherwise stall and resume every second (hysteresis). */
#define LIMIT_STALL_RESUME_MS 3000

/* The HTTP API's rating answers: the last this many points of a rating
 * history (years of daily play, a few tens of KB), and the best this
 * many of a leaderboard. Each is one bounded read (the reader's). */
#define LIMIT_RATING_HISTORY 500
#define LIMIT_LEADERBOARD 100

/* A filtered page of a player's games (hub/history.c) looks at this many
 * of its games at most: ten reads of 100 rows on the reader; the page
 * then ends short, with the cursor to go on from. */
#define LIMIT_HISTORY_SCAN 1000

/* Rating farming (hub/fairplay.c). An account's last this many rated
 * games counted are its window; once full, it is flagged for
 * moderators when at least LIMIT_SUSPECT_MOSTLY of them (80 %) were
 * shorter than LIMIT_SUSPECT_SHORT_PLIES plies (ten moves a side: a
 * resignation or a draw agreed in the opening, which a farmer's
 * puppet gives and real games seldom are) or were against one
 * opponent. Ten games is a day of the pair limit's default. At start
 * the hub reads at most LIMIT_FAIR_LOAD of the last day's rating
 * changes (the newest; 74 bytes each, 7 MB at most, once). */
#define LIMIT_SUSPECT_WINDOW 10
#define LIMIT_SUSPECT_MOSTLY 8
#define LIMIT_SUSPECT_SHORT_PLIES 20
#define LIMIT_FAIR_LOAD 100000

/* The lobby feed (PROTOCOL.md section 5, "Watching the lobby"): a
 * snapshot lists at most LOBBY_SEEKS_MAX open seeks (the oldest, the
 * order they pair in) and LOBBY_GAMES_MAX live games, so one is at most
 * about 33 KB (a seek ~200 bytes, a game ~250; measured: 32,783 bytes
 * with 20-character names, rated seeks with ranges, 3-hour clocks); watchers get a fresh one
 * at most every LOBBY_TICK_MS, rendered once for all of them, so a
 * watcher costs at most ~33 KB/s of output and one queue entry a second.
 * A page shows no more than this anyway; a second between updates is
 * live enough to click a seek and few enough messages for a phone. */
#define LOBBY_SEEKS_MAX 100
#define LOBBY_GAMES_MAX 30
#define LOBBY_TICK_MS 1000

/* A game's count of spectators (PROTOCOL.md section 6, "Watchers"):
 * announced to everyone in the game at most once every this many ms,
 * after it changed, as the lobby feed is. Each announcement is one
 * render of ~50 bytes and a queue entry per subscriber, so a game with
 * thousands of spectators joining and leaving costs each of them at most
 * one small message a second, however fast they come and go. */
#define LIMIT_WATCHERS_EVERY_MS 1000

/* How long a planned shutdown waits for queued messages to drain. */
#define LIMIT_SHUTDOWN_DRAIN_MS 500
/* How long a shutdown waits for the hub after the connections closed: a
 * cluster node handing its games to the others (each waits for its last
 * writes to commit, then one Redis round trip), a few milliseconds a
 * game; past it the node exits and the others adopt what is left after
 * its lease lapses, as after a crash. */
#define LIMIT_SHUTDOWN_HANDOVER_MS 5000

/* Blocks and reports (server/hub/relation.c). An account blocks at most
 * LIMIT_BLOCKS others (lichess's relation maxBlock; lichess then drops
 * the oldest, this server refuses the next). Blocks, unblocks and
 * reports, each a database write, are LIMIT_RELATION_WRITES_BURST at
 * once then LIMIT_RELATION_WRITES_PER_MIN a minute per account
 * (LIMIT_RELATION_KEYS buckets at most). An account reports a given
 * player once in LIMIT_REPORT_WINDOW_MS and at most
 * LIMIT_REPORTS_PER_DAY players in that window. */
#define LIMIT_BLOCKS 500
#define LIMIT_RELATION_WRITES_BURST 10
#define LIMIT_RELATION_WRITES_PER_MIN 20
#define LIMIT_RELATION_KEYS 65536
#define LIMIT_REPORT_WINDOW_MS (24LL * 3600 * 1000)
#define LIMIT_REPORTS_PER_DAY 20
/* The HTTP API's NDJSON streams (server/net/ndjson.c): bytes one stream
 * may have queued beyond what its socket took before its reader is taken
 * for one that stopped reading and cut (a lichess line is at most a few
 * KB: a gameState of a long game); streams open at once per account
 * (lichess-bot: an event stream and one per game it plays) and per
 * client address (an IPv6 /64 is one), each at most LIMIT_HTTP_CONNS_PER_IP
 * so that the cap answers 429 before the TCP cap cuts; and the empty
 * keep-alive line an idle stream gets (lichess: every 7 s). */
#define LIMIT_STREAM_QUEUE_BYTES (64 * 1024)
#define LIMIT_STREAMS_PER_ACCOUNT 8
#define LIMIT_STREAMS_PER_IP 12
#define LIMIT_STREAM_KEEPALIVE_MS 7000

#endif
