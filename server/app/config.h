/*
 * config.h - the server's settings: defaults, the JSON config file
 * (--config PATH, read with jansson) and command-line overrides.
 *
 * Every setting has one key and one row in config_keys.c's table, from which
 * its default, its checks, its flag and its --help line are derived; the
 * file is one JSON object of keys. An
 * unknown key, a duplicate key or a value of the wrong type or range is
 * an error naming the key and what is wrong, and nothing is started.
 * Command-line flags are applied after the file, through config_set_text,
 * so they override it and are checked by the same rules.
 *
 * Ownership: a struct config owns every string and the origin list;
 * config_clear frees them. Not thread-safe; main.c uses it before the
 * server starts.
 */
#ifndef SERVER_CONFIG_H
#define SERVER_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#define CONFIG_MAX_ORIGINS 64
/* The longest node_id (store.h's STORE_NODE_ID_MAX). */
#define CONFIG_NODE_ID_MAX 32
#define CONFIG_MAX_PROXIES 64
/* The shortest cluster key (sign.h's SIGN_KEY_MIN). */
#define CONFIG_CLUSTER_KEY_MIN 32
/* The most Redis instances `redis` lists (bus.h's BUS_SHARDS_MAX), and
 * the longest address. */
#define CONFIG_REDIS_MAX 16
#define CONFIG_REDIS_ADDR_MAX 256
/* The longest username (proto.h's PROTO_USERNAME_MAX): tourney_creators'
 * names. */
#define CONFIG_USERNAME_MAX 20

/* The default tls_ciphers: forward secrecy (ECDHE) and AEAD (AES-GCM,
 * ChaCha20-Poly1305) only, for ECDSA and RSA certificates. */
#define CONFIG_TLS_CIPHERS_DEFAULT                               \
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:" \
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:" \
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

struct config {
    char *listen_address; /* IP address to bind; "": every interface */
    int port;             /* HTTP(S) and the WebSocket at /ws */
    char *database;       /* SQLite file; its folder is created */
    char *postgres;       /* libpq connection string; "": SQLite */
    char *node_id;        /* 1-32 of [A-Za-z0-9_-]: this node's name */
    char *redis;      /* "host:port" or a socket path, or several separated
                    by commas (the shards); "": none */
    char *redis_user; /* Redis ACL user; "": none */
    char *redis_password_file; /* its password's file; "": no AUTH */
    char *redis_tls_ca_file;   /* "": plain TCP to Redis */
    char *redis_tls_cert_file; /* client certificate, or "" */
    char *redis_tls_key_file;
    char *redis_tls_server_name;    /* "": the host of redis */
    char *cluster_key_file;         /* the nodes' shared signing key */
    int balance_games_per_s;        /* a cluster's balance: games handed over
                                    a second; 0: none */
    int cluster_trace;              /* 1: a log line per command's step */
    int store_read_timeout_ms;      /* a store read's deadline */
    int postgres_connect_timeout_s; /* libpq's connect_timeout */
    int postgres_statement_timeout_ms;  /* SET statement_timeout; 0: none */
    int postgres_tcp_user_timeout_ms;   /* libpq's; 0: the kernel's */
    int postgres_keepalives_idle_s;     /* TCP keepalives of an idle */
    int postgres_keepalives_interval_s; /* connection: after, between, */
    int postgres_keepalives_count;      /* and how many unanswered */
    char *web_root;                     /* the browser client's files */
    int grace_s;            /* a disconnected player keeps a game */
    int first_move_s;       /* each side's first move */
    char *tls_cert;         /* PEM certificate chain; "": plain HTTP */
    char *tls_key;          /* PEM private key; "" with tls_cert "" */
    int http_redirect_port; /* plain-HTTP listener redirecting to https;
                                0: none (needs TLS) */
    char *tls_min_version;  /* "1.2" or "1.3" */
    char *tls_ciphers;      /* OpenSSL cipher list for TLS 1.2 (TLS 1.3
                                suites are OpenSSL's, all AEAD) */
    int hsts_max_age_s;     /* Strict-Transport-Security max-age sent
                                with every HTTPS response; 0: none */
    char **allowed_origins; /* "scheme://host[:port]", lowercase; none:
                                any Origin may open a WebSocket */
    size_t n_allowed_origins;
    int max_connections;        /* open WebSockets in all */
    int max_connections_per_ip; /* WebSockets per client address; TCP
                                   connections per socket address: this
                                   plus LIMIT_HTTP_CONNS_PER_IP */
    int request_timeout_s;      /* a TCP connection's request (or the next
                                one on a kept-alive connection) complete
                                within this, else it is closed */
    int send_buffer_bytes;      /* SO_SNDBUF of every accepted socket;
                                   0: the kernel's autotuning */
    char **trusted_proxies;     /* numeric addresses, as inet_ntop writes
                                them, whose X-Forwarded-For is believed */
    size_t n_trusted_proxies;
    int ipv6_limit_prefix; /* an IPv6 client is its first N bits for the
                              per-address limits (lib/addrkey.h) */
    int move_rate_per_s;   /* token bucket for move messages */
    int move_burst;
    int msg_rate_per_s; /* token bucket for every other message */
    int msg_burst;
    int max_games_per_player; /* live games + invitations + seek */
    int max_invites_per_ip;   /* open invitations from one address */
    int max_games_per_ip;     /* started games of one address */
    int max_live_games;       /* games not ended on this node */
    int max_seeks_per_ip;     /* open seeks of one address's players */
    int seek_idle_s;          /* a seek's life with no message */
    int lag_rtt_margin_ms;    /* pings' round trip over the kernel's */
    int rated_games_per_pair_per_day; /* rated games of two accounts, 24 h */
    int guests_per_ip_per_min;        /* new guests from one address */
    int logins_per_ip_per_min;        /* login attempts from one address */
    int logins_per_user_per_min;      /* login attempts for one username */
    int registers_per_ip_per_min;     /* register attempts from one address */
    int unknown_logins_per_s; /* logins for unknown usernames, in all */
    int password_threads;     /* Argon2id worker threads */
    int password_queue;       /* hashes queued or running, at most */
    char *engine_path;        /* the UCI engine; "": no computer games */
    int engines;              /* engine processes at most (0: per core) */
    int engine_queue;         /* engine requests waiting, at most */
    int max_computer_games_per_player; /* live games against it */
    int max_computer_games_per_ip;     /* ... of one address's players */
    int max_challenges_out;  /* pending challenges a player has sent */
    int max_challenges_in;   /* ... and has received */
    int challenge_lapse_s;   /* a challenge outlives its challenger's last
                               connection so long */
    int bot_rated_vs_humans; /* 1: rated games between a bot and a human */
    int bot_max_games;       /* a bot's live games at once */
    int bot_games_per_day;   /* a bot's games against bots a day */
    int analysis_nodes;      /* nodes per position analysed */
    int analysis_queue;      /* analyses that may wait */
    int analyses_per_day;    /* one player's analyses in 24 h */
    int analyses_per_week;   /* and in 7 days */
    int arena_create;        /* 0 nobody, 1 accounts, 2 anyone */
    int max_arenas;          /* tournaments open or running */
    int max_swiss;           /* Swiss tournaments open or running */
    int swiss_players;       /* players of one Swiss tournament */
    /* with arena_create 1: the days an account must be old to create a
     * tournament, and "" or the usernames that may, separated by commas;
     * then the players of one arena */
    int tourney_account_days;
    char *tourney_creators;
    int arena_players;
    int chat_guests, chat_per_min, chat_burst, chat_mute_s; /* chat.c */
    int lobby_chat;                                         /* rooms.c */
    int playban;          /* hub/playban.c */
    char *playban_guests; /* "off", "token" or "address" */
    int chat_room_per_s;
    int http_rate_per_s; /* HTTP API requests per address a second */
    int http_burst;
    int ping_interval_s; /* WebSocket ping this long after the last
                                pong (or the opening) */
    int ping_timeout_s;  /* no pong this long after it: hang up */
    int drain_s;         /* SIGTERM: not ready this long, then the stop */
    int log_level;       /* enum log_level */
    char *log_file;      /* "": standard error */
};

/* One setting as the command line and the docs name it: a row of the
 * table in config_keys.c, which holds every setting (key, flag, kind, range,
 * default, help). Static storage, read-only. */
struct config_setting {
    const char *key;  /* the JSON key, "grace_s" */
    const char *flag; /* the command-line flag, "--grace-s"; NULL: the
                         setting is only in the file */
    const char *arg;  /* the flag's argument in --help: N, PATH, ... */
    const char *help; /* a short phrase for --help */
};

/* The i-th setting (in the order of docs/operator.md's table), or NULL past
 * the last. */
const struct config_setting *config_setting_at(size_t i);

/* The setting whose key or flag ("--db") is name, or NULL. */
const struct config_setting *config_setting_find(const char *name);

/* Writes s's default into out as --help and operator.md's table show it:
 * its JSON value (8080, "./web", [] for an empty list), and returns 1;
 * or words for a default too long to show (tls_ciphers), and returns 0. */
int config_default_text(const struct config_setting *s, char *out,
                        size_t len);

/* Writes the settings' part of --help to f: one line (wrapped) per flag
 * with its range and default, then the settings only in the file with
 * their defaults. */
void config_help(FILE *f);

/* Fills c with the defaults of the table, each set through the checks a
 * file's value gets. Returns 0, or -1 when out of memory (c is then
 * cleared). */
int config_init(struct config *c);

/* Frees what c owns. Safe on a cleared or zeroed struct. */
void config_clear(struct config *c);

/* Reads the JSON file at path over c's current values. Returns 0, or -1
 * with a sentence naming the file and the key in err (c may then be
 * partly updated: discard it). */
int config_load_file(struct config *c, const char *path, char *err,
                     size_t errlen);

/* Same from a JSON text (for tests); `name` prefixes error sentences. */
int config_load_text(struct config *c, const char *text, const char *name,
                     char *err, size_t errlen);

/* Sets one key from a command-line string (integers in decimal; an
 * origin list comma-separated). Returns 0, or -1 with what is wrong in
 * err (not naming the key: the caller knows how it was spelled). An
 * unknown key is -1 too. */
int config_set_text(struct config *c, const char *key, const char *text,
                    char *err, size_t errlen);

/* Checks what single keys cannot: tls_cert and tls_key together and
 * readable, http_redirect_port only with TLS and not the main port,
 * log_file's folder exists. Returns 0, or -1 with a sentence in err. */
int config_validate(const struct config *c, char *err, size_t errlen);

/* The addresses of a `redis` value (checked: config_validate), split
 * at its commas into out[0..n). n (1 .. max), or -1 when one is not an
 * address or there are more than max. */
int config_redis_split(const char *list, char (*out)[CONFIG_REDIS_ADDR_MAX],
                       int max);

#endif
