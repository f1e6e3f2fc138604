/*
 * test_config.c - the settings: defaults, a good file with every key,
 * unknown keys, wrong types and ranges, malformed JSON, command-line
 * overrides, the checks across keys, the Origin allow-list and the
 * trusted proxies (as the network layer reads them), and the table
 * of settings: consistent, in --help, and in docs/operator.md's table
 * with the same keys, flags and defaults.
 */
#include <check.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/config.h"
#include "lib/log.h"
#include "net/trust.h"

static struct config cfg;
static char err[600];
static char dir[] = "/tmp/test_config_XXXXXX";
static char cert[64], key[64];

static void setup(void)
{
    ck_assert_int_eq(config_init(&cfg), 0);
    err[0] = '\0';
}

static void teardown(void)
{
    config_clear(&cfg);
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

static int load(const char *text)
{
    return config_load_text(&cfg, text, "test.json", err, sizeof err);
}

/* err holds every one of the words (NULL-terminated). */
static void err_has(const char *first, ...)
{
    va_list ap;

    va_start(ap, first);
    for (const char *w = first; w; w = va_arg(ap, const char *))
        ck_assert_msg(strstr(err, w), "'%s' not in: %s", w, err);
    va_end(ap);
}

/* Whether the network layer believes ip's X-Forwarded-For with cfg's
 * trusted_proxies, parsed as main.c hands them to it (net_config_of). */
static bool proxy_trusted(const char *ip)
{
    struct in6_addr list[CONFIG_MAX_PROXIES];

    ck_assert_uint_le(cfg.n_trusted_proxies, CONFIG_MAX_PROXIES);
    for (size_t i = 0; i < cfg.n_trusted_proxies; i++)
        ck_assert_int_eq(trust_addr_parse(cfg.trusted_proxies[i], &list[i]),
                         0);
    return trust_proxy(list, cfg.n_trusted_proxies, ip);
}

/* Whether the network layer lets a page from origin open a WebSocket
 * with cfg's allowed_origins. */
static bool origin_allowed(const char *origin)
{
    return trust_origin((const char *const *)cfg.allowed_origins,
                        cfg.n_allowed_origins, origin);
}

START_TEST(defaults)
{
    ck_assert_int_eq(cfg.port, 8080);
    ck_assert_str_eq(cfg.database, "./data/chess.db");
    ck_assert_str_eq(cfg.web_root, "./web");
    ck_assert_str_eq(cfg.listen_address, "");
    ck_assert_str_eq(cfg.tls_cert, "");
    ck_assert_str_eq(cfg.log_file, "");
    ck_assert_int_eq(cfg.grace_s, 60);
    ck_assert_int_eq(cfg.first_move_s, 30);
    ck_assert_int_eq(cfg.http_redirect_port, 0);
    ck_assert_int_eq(cfg.max_connections_per_ip, 256);
    ck_assert_int_eq(cfg.request_timeout_s, 10);
    ck_assert_uint_eq(cfg.n_trusted_proxies, 0);
    ck_assert(!proxy_trusted("127.0.0.1"));
    ck_assert_int_eq(cfg.move_rate_per_s, 10);
    ck_assert_int_eq(cfg.msg_burst, 60);
    ck_assert_int_eq(cfg.max_games_per_player, 100);
    ck_assert_int_eq(cfg.max_invites_per_ip, 500);
    ck_assert_int_eq(cfg.max_games_per_ip, 200);
    ck_assert_int_eq(cfg.max_live_games, 50000);
    ck_assert_int_eq(cfg.guests_per_ip_per_min, 30);
    ck_assert_int_eq(cfg.http_rate_per_s, 10);
    ck_assert_int_eq(cfg.http_burst, 30);
    ck_assert_int_eq(cfg.chat_guests, 0);
    ck_assert_int_eq(cfg.chat_per_min, 12);
    ck_assert_int_eq(cfg.chat_burst, 5);
    ck_assert_int_eq(cfg.chat_room_per_s, 5);
    ck_assert_int_eq(cfg.chat_mute_s, 300);
    ck_assert_int_eq(cfg.ping_interval_s, 30);
    ck_assert_int_eq(cfg.ping_timeout_s, 60);
    ck_assert_int_eq(cfg.log_level, LOG_INFO);
    ck_assert_uint_eq(cfg.n_allowed_origins, 0);
    ck_assert_str_eq(cfg.tls_min_version, "1.2");
    ck_assert_str_eq(cfg.playban_guests, "token");
    ck_assert_str_eq(cfg.tls_ciphers, CONFIG_TLS_CIPHERS_DEFAULT);
    /* forward secrecy (ECDHE) and AEAD (GCM, ChaCha20-Poly1305) only */
    for (const char *p = cfg.tls_ciphers; *p;) {
        size_t n = strcspn(p, ":");
        char name[64];
        ck_assert_uint_lt(n, sizeof name);
        memcpy(name, p, n);
        name[n] = '\0';
        ck_assert_msg(!strncmp(name, "ECDHE-", 6), "%s", name);
        ck_assert_msg(strstr(name, "-GCM-") || strstr(name, "-CHACHA20-"),
                      "%s", name);
        p += n + (p[n] == ':');
    }
    ck_assert_int_eq(cfg.hsts_max_age_s, 31536000);
    ck_assert_str_eq(cfg.postgres, "");
    ck_assert_str_eq(cfg.redis, "");
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), 0);
}
END_TEST

/* node_id's default: the host name up to its first character a node id
 * cannot hold (at most 32), or node1. */
START_TEST(node_id_defaults_to_the_host_name)
{
    char host[256] = "", want[40];
    size_t n;

    ck_assert_int_eq(gethostname(host, sizeof host - 1), 0);
    n = strspn(host, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789_-");
    snprintf(want, sizeof want, "%.*s", (int)(n > 32 ? 32 : n), host);
    ck_assert_str_eq(cfg.node_id, n ? want : "node1");
    ck_assert_uint_ge(strlen(cfg.node_id), 1);
    ck_assert_uint_le(strlen(cfg.node_id), CONFIG_NODE_ID_MAX);
}
END_TEST

START_TEST(every_key)
{
    char text[2048];

    snprintf(
        text, sizeof text,
        "{\"listen_address\": \"127.0.0.1\", \"port\": 8443,\n"
        " \"database\": \"/srv/chess/db.sqlite\", \"web_root\": \"/w\",\n"
        " \"grace_s\": 120, \"first_move_s\": 15,\n"
        " \"tls_cert\": \"%s\", \"tls_key\": \"%s\",\n"
        " \"http_redirect_port\": 8080,\n"
        " \"tls_min_version\": \"1.3\",\n"
        " \"playban_guests\": \"address\",\n"
        " \"tls_ciphers\": \"ECDHE-ECDSA-AES256-GCM-SHA384\",\n"
        " \"hsts_max_age_s\": 0,\n"
        " \"allowed_origins\": [\"https://Chess.Example.org\",\n"
        "                       \"http://localhost:8080\"],\n"
        " \"max_connections\": 5000, \"max_connections_per_ip\": 16,\n"
        " \"request_timeout_s\": 3,\n"
        " \"trusted_proxies\": [\"127.0.0.1\", \"::1\"],\n"
        " \"move_rate_per_s\": 5, \"move_burst\": 8,\n"
        " \"msg_rate_per_s\": 7, \"msg_burst\": 9,\n"
        " \"max_games_per_player\": 12, \"max_invites_per_ip\": 34,\n"
        " \"guests_per_ip_per_min\": 56,\n"
        " \"http_rate_per_s\": 3, \"http_burst\": 4,\n"
        " \"ping_interval_s\": 4, \"ping_timeout_s\": 11,\n"
        " \"postgres\": \"host=/run/postgresql dbname=chess\",\n"
        " \"node_id\": \"web-1\", \"redis\": \"/run/redis/redis.sock\",\n"
        " \"redis_user\": \"chess\", \"redis_password_file\": \"%s\",\n"
        " \"cluster_key_file\": \"%s\",\n"
        " \"log_level\": \"debug\", \"log_file\": \"%s/x.log\"}",
        cert, key, key, cert, dir);
    ck_assert_msg(load(text) == 0, "%s", err);
    ck_assert_str_eq(cfg.listen_address, "127.0.0.1");
    ck_assert_int_eq(cfg.port, 8443);
    ck_assert_str_eq(cfg.database, "/srv/chess/db.sqlite");
    ck_assert_str_eq(cfg.web_root, "/w");
    ck_assert_int_eq(cfg.grace_s, 120);
    ck_assert_int_eq(cfg.first_move_s, 15);
    ck_assert_str_eq(cfg.tls_cert, cert);
    ck_assert_str_eq(cfg.tls_key, key);
    ck_assert_int_eq(cfg.http_redirect_port, 8080);
    ck_assert_str_eq(cfg.tls_min_version, "1.3");
    ck_assert_str_eq(cfg.playban_guests, "address");
    ck_assert_str_eq(cfg.tls_ciphers, "ECDHE-ECDSA-AES256-GCM-SHA384");
    ck_assert_int_eq(cfg.hsts_max_age_s, 0);
    ck_assert_uint_eq(cfg.n_allowed_origins, 2);
    ck_assert_str_eq(cfg.allowed_origins[0], "https://chess.example.org");
    ck_assert_str_eq(cfg.allowed_origins[1], "http://localhost:8080");
    ck_assert_int_eq(cfg.max_connections, 5000);
    ck_assert_int_eq(cfg.max_connections_per_ip, 16);
    ck_assert_int_eq(cfg.request_timeout_s, 3);
    ck_assert_uint_eq(cfg.n_trusted_proxies, 2);
    ck_assert_str_eq(cfg.trusted_proxies[0], "127.0.0.1");
    ck_assert_str_eq(cfg.trusted_proxies[1], "::1");
    ck_assert_int_eq(cfg.move_rate_per_s, 5);
    ck_assert_int_eq(cfg.move_burst, 8);
    ck_assert_int_eq(cfg.msg_rate_per_s, 7);
    ck_assert_int_eq(cfg.msg_burst, 9);
    ck_assert_int_eq(cfg.max_games_per_player, 12);
    ck_assert_int_eq(cfg.max_invites_per_ip, 34);
    ck_assert_int_eq(cfg.guests_per_ip_per_min, 56);
    ck_assert_int_eq(cfg.http_rate_per_s, 3);
    ck_assert_int_eq(cfg.http_burst, 4);
    ck_assert_int_eq(cfg.ping_interval_s, 4);
    ck_assert_int_eq(cfg.ping_timeout_s, 11);
    ck_assert_int_eq(cfg.log_level, LOG_DEBUG);
    ck_assert_str_eq(cfg.postgres, "host=/run/postgresql dbname=chess");
    ck_assert_str_eq(cfg.node_id, "web-1");
    ck_assert_str_eq(cfg.redis, "/run/redis/redis.sock");
    ck_assert_str_eq(cfg.redis_user, "chess");
    ck_assert_str_eq(cfg.redis_password_file, key);
    ck_assert_str_eq(cfg.cluster_key_file, cert);
    ck_assert_msg(config_validate(&cfg, err, sizeof err) == 0, "%s", err);
}
END_TEST

START_TEST(example_file_is_valid)
{
    /* deploy/config.example.json (behind nginx) and
     * config.tls.example.json (TLS itself): every key, and they load */
    char path[4096];
    const char *data = getenv("CHESS_TEST_DATA"); /* SOURCE/tests/data */

    ck_assert_ptr_nonnull(data);
    snprintf(path, sizeof path, "%s/../../deploy/config.example.json", data);
    ck_assert_msg(config_load_file(&cfg, path, err, sizeof err) == 0, "%s",
                  err);
    ck_assert_str_eq(cfg.listen_address, "127.0.0.1");
    ck_assert_str_eq(cfg.tls_cert, "");
    ck_assert_uint_gt(cfg.n_allowed_origins, 0);
    /* behind nginx on the same host (deploy/nginx.conf), whose
     * X-Forwarded-For names each player's address */
    ck_assert(proxy_trusted("127.0.0.1"));
    config_clear(&cfg);
    ck_assert_int_eq(config_init(&cfg), 0);
    snprintf(path, sizeof path, "%s/../../deploy/config.tls.example.json",
             data);
    ck_assert_msg(config_load_file(&cfg, path, err, sizeof err) == 0, "%s",
                  err);
    ck_assert_str_ne(cfg.tls_cert, "");
    ck_assert_uint_gt(cfg.n_allowed_origins, 0);
}
END_TEST

START_TEST(unknown_key)
{
    ck_assert_int_eq(load("{\"port\": 9000, \"prot\": 9001}"), -1);
    err_has("test.json", "unknown key", "'prot'", NULL);
}
END_TEST

START_TEST(wrong_types)
{
    static const struct {
        const char *text, *key, *what;
    } cases[] = {
        {"{\"port\": \"80\"}", "'port'", "not a string"},
        {"{\"port\": 80.5}", "'port'", "fraction"},
        {"{\"grace_s\": true}", "'grace_s'", "boolean"},
        {"{\"database\": 5}", "'database'", "must be a string"},
        {"{\"log_file\": null}", "'log_file'", "not null"},
        {"{\"allowed_origins\": \"https://a.org\"}", "'allowed_origins'",
         "list of strings"},
        {"{\"allowed_origins\": [1]}", "'allowed_origins'", "item 1"},
        {"{\"trusted_proxies\": \"127.0.0.1\"}", "'trusted_proxies'",
         "list of strings"},
        {"{\"trusted_proxies\": [\"::1\", 2]}", "'trusted_proxies'",
         "item 2"},
        {"{\"request_timeout_s\": \"5\"}", "'request_timeout_s'",
         "not a string"},
        {"{\"tls_cert\": [\"a\"]}", "'tls_cert'", "not a list"},
        {"{\"tls_min_version\": 1.2}", "'tls_min_version'", "fraction"},
        {"{\"tls_ciphers\": [\"A\"]}", "'tls_ciphers'", "not a list"},
        {"{\"hsts_max_age_s\": \"1\"}", "'hsts_max_age_s'", "string"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        config_clear(&cfg);
        config_init(&cfg);
        ck_assert_int_eq(load(cases[i].text), -1);
        err_has("test.json", cases[i].key, cases[i].what, NULL);
    }
}
END_TEST

START_TEST(bad_values)
{
    static const struct {
        const char *text, *key, *what;
    } cases[] = {
        {"{\"port\": 0}", "'port'", "from 1 to 65535, not 0"},
        {"{\"port\": 65536}", "'port'", "not 65536"},
        {"{\"port\": 99999999999999}", "'port'", "not 99999999999999"},
        {"{\"grace_s\": -1}", "'grace_s'", "not -1"},
        {"{\"first_move_s\": 86401}", "'first_move_s'", "86400"},
        {"{\"http_redirect_port\": -1}", "'http_redirect_port'", "0 to"},
        {"{\"max_connections\": 0}", "'max_connections'", "not 0"},
        {"{\"move_burst\": 0}", "'move_burst'", "not 0"},
        {"{\"max_games_per_player\": 0}", "'max_games_per_player'",
         "from 1 to 100000, not 0"},
        {"{\"max_games_per_player\": 100001}", "'max_games_per_player'",
         "not 100001"},
        {"{\"max_invites_per_ip\": 0}", "'max_invites_per_ip'", "not 0"},
        {"{\"max_games_per_ip\": 0}", "'max_games_per_ip'", "not 0"},
        {"{\"max_live_games\": 10000001}", "'max_live_games'",
         "not 10000001"},
        {"{\"rated_games_per_pair_per_day\": 0}",
         "'rated_games_per_pair_per_day'", "from 1 to 1000000, not 0"},
        {"{\"registers_per_ip_per_min\": 0}", "'registers_per_ip_per_min'",
         "not 0"},
        {"{\"unknown_logins_per_s\": 100001}", "'unknown_logins_per_s'",
         "not 100001"},
        {"{\"ipv6_limit_prefix\": 15}", "'ipv6_limit_prefix'",
         "from 16 to 128, not 15"},
        {"{\"ipv6_limit_prefix\": 129}", "'ipv6_limit_prefix'", "not 129"},
        {"{\"send_buffer_bytes\": -1}", "'send_buffer_bytes'",
         "from 0 to 4194304, not -1"},
        {"{\"send_buffer_bytes\": 4194305}", "'send_buffer_bytes'",
         "not 4194305"},
        {"{\"max_seeks_per_ip\": 0}", "'max_seeks_per_ip'", "not 0"},
        {"{\"seek_idle_s\": 86401}", "'seek_idle_s'",
         "from 1 to 86400, not 86401"},
        {"{\"lag_rtt_margin_ms\": 0}", "'lag_rtt_margin_ms'",
         "from 1 to 100000, not 0"},
        {"{\"store_read_timeout_ms\": 99}", "'store_read_timeout_ms'",
         "from 100 to 600000, not 99"},
        {"{\"postgres_connect_timeout_s\": 0}",
         "'postgres_connect_timeout_s'", "from 1 to 3600, not 0"},
        {"{\"postgres_statement_timeout_ms\": -1}",
         "'postgres_statement_timeout_ms'", "from 0 to 3600000, not -1"},
        {"{\"postgres_tcp_user_timeout_ms\": 3600001}",
         "'postgres_tcp_user_timeout_ms'", "not 3600001"},
        {"{\"postgres_keepalives_idle_s\": 0}",
         "'postgres_keepalives_idle_s'", "from 1 to 86400, not 0"},
        {"{\"postgres_keepalives_interval_s\": 3601}",
         "'postgres_keepalives_interval_s'", "from 1 to 3600, not 3601"},
        {"{\"postgres_keepalives_count\": 101}",
         "'postgres_keepalives_count'", "from 1 to 100, not 101"},
        {"{\"engines\": -1}", "'engines'", "from 0 to 256, not -1"},
        {"{\"engines\": 257}", "'engines'", "not 257"},
        {"{\"engine_queue\": 1}", "'engine_queue'",
         "from 2 to 100000, not 1"},
        {"{\"max_computer_games_per_player\": 0}",
         "'max_computer_games_per_player'", "from 1 to 100000, not 0"},
        {"{\"max_computer_games_per_ip\": 100001}",
         "'max_computer_games_per_ip'", "not 100001"},
        {"{\"chat_guests\": 2}", "'chat_guests'", "from 0 to 1, not 2"},
        {"{\"chat_per_min\": 0}", "'chat_per_min'", "from 1 to 6000, not 0"},
        {"{\"chat_burst\": 1001}", "'chat_burst'", "not 1001"},
        {"{\"chat_room_per_s\": 0}", "'chat_room_per_s'", "not 0"},
        {"{\"chat_mute_s\": 86401}", "'chat_mute_s'", "not 86401"},
        {"{\"max_invites_per_ip\": \"9\"}", "'max_invites_per_ip'",
         "not a string"},
        {"{\"guests_per_ip_per_min\": -5}", "'guests_per_ip_per_min'",
         "not -5"},
        {"{\"http_rate_per_s\": 0}", "'http_rate_per_s'", "1 to 100000"},
        {"{\"http_burst\": 100001}", "'http_burst'", "not 100001"},
        {"{\"ping_interval_s\": 0}", "'ping_interval_s'", "1 to 3600"},
        {"{\"ping_timeout_s\": 1}", "'ping_timeout_s'", "2 to 7200"},
        {"{\"ping_timeout_s\": 7201}", "'ping_timeout_s'", "not 7201"},
        {"{\"database\": \"\"}", "'database'", "empty"},
        {"{\"listen_address\": \"localhost\"}", "'listen_address'",
         "IPv4 or IPv6"},
        {"{\"listen_address\": \"300.1.1.1\"}", "'listen_address'",
         "'300.1.1.1'"},
        {"{\"log_level\": \"verbose\"}", "'log_level'", "'verbose'"},
        {"{\"allowed_origins\": [\"chess.example.org\"]}",
         "'allowed_origins'", "not an origin"},
        {"{\"allowed_origins\": [\"https://a.org/\"]}", "'allowed_origins'",
         "no path"},
        {"{\"allowed_origins\": [\"ftp://a.org\"]}", "'allowed_origins'",
         "http or https"},
        {"{\"allowed_origins\": [\"https://a.org:0\"]}", "'allowed_origins'",
         "not an origin"},
        {"{\"allowed_origins\": [\"https://a.org:99999\"]}",
         "'allowed_origins'", "not an origin"},
        {"{\"allowed_origins\": [\"https://\"]}", "'allowed_origins'",
         "not an origin"},
        {"{\"web_root\": \"a\\nb\"}", "'web_root'", "control"},
        {"{\"tls_min_version\": \"1.1\"}", "'tls_min_version'",
         "\"1.2\" or \"1.3\", not '1.1'"},
        {"{\"tls_min_version\": \"TLSv1.2\"}", "'tls_min_version'",
         "'TLSv1.2'"},
        {"{\"tls_ciphers\": \"\"}", "'tls_ciphers'", "empty"},
        {"{\"playban_guests\": \"ip\"}", "'playban_guests'",
         "\"off\", \"token\" or \"address\", not 'ip'"},
        {"{\"playban_guests\": 1}", "'playban_guests'", "string"},
        {"{\"tls_ciphers\": \"AES128 SHA\"}", "'tls_ciphers'", "cipher list"},
        {"{\"hsts_max_age_s\": -1}", "'hsts_max_age_s'", "0 to 63072000"},
        {"{\"hsts_max_age_s\": 63072001}", "'hsts_max_age_s'",
         "not 63072001"},
        {"{\"request_timeout_s\": 0}", "'request_timeout_s'",
         "from 1 to 300, not 0"},
        {"{\"request_timeout_s\": 301}", "'request_timeout_s'", "not 301"},
        {"{\"trusted_proxies\": [\"localhost\"]}", "'trusted_proxies'",
         "'localhost' is not an IPv4 or IPv6 address"},
        {"{\"trusted_proxies\": [\"127.0.0.1:80\"]}", "'trusted_proxies'",
         "no port"},
        {"{\"trusted_proxies\": [\"10.0.0.0/8\"]}", "'trusted_proxies'",
         "no range"},
        {"{\"trusted_proxies\": [\"\"]}", "'trusted_proxies'", "not an IPv4"},
        {"{\"postgres\": \"host=db\\ndbname=x\"}", "'postgres'", "control"},
        {"{\"postgres\": 5432}", "'postgres'", "must be a string"},
        {"{\"node_id\": \"\"}", "'node_id'",
         "1 to 32 of A-Z a-z 0-9 _ -, not ''"},
        {"{\"node_id\": \"web1.example.org\"}", "'node_id'",
         "not 'web1.example.org'"},
        {"{\"node_id\": \"node 1\"}", "'node_id'", "not 'node 1'"},
        {"{\"node_id\": \"abcdefghijklmnopqrstuvwxyz0123456\"}", "'node_id'",
         "1 to 32"},
        {"{\"node_id\": \"n\u00e9\"}", "'node_id'", "A-Z a-z"},
        {"{\"redis\": \"localhost\"}", "'redis'",
         "host:port (a port of 1-65535; [addr]:port for IPv6) or a unix "
         "socket's path, or 1 to 16 of them separated by commas, not "
         "'localhost'"},
        /* several (the shards): each an address, none empty, 16 at most */
        {"{\"redis\": \"a:1,localhost\"}", "'redis'", "not 'a:1,localhost'"},
        {"{\"redis\": \"a:1,,b:2\"}", "'redis'", "not 'a:1,,b:2'"},
        {"{\"redis\": \"a:1,\"}", "'redis'", "not 'a:1,'"},
        {"{\"redis\": \",a:1\"}", "'redis'", "not ',a:1'"},
        {"{\"redis\": \"a:1,a:2,a:3,a:4,a:5,a:6,a:7,a:8,a:9,a:10,a:11,a:12,"
         "a:13,a:14,a:15,a:16,a:17\"}",
         "'redis'", "1 to 16"},
        {"{\"redis\": \"localhost:0\"}", "'redis'", "not 'localhost:0'"},
        {"{\"redis\": \"localhost:65536\"}", "'redis'", "65535"},
        {"{\"redis\": \":6379\"}", "'redis'", "not ':6379'"},
        {"{\"redis\": \"host:63x9\"}", "'redis'", "not 'host:63x9'"},
        {"{\"redis\": \"[::1:6379\"}", "'redis'", "[addr]:port"},
        {"{\"redis\": 6379}", "'redis'", "must be a string"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        config_clear(&cfg);
        config_init(&cfg);
        ck_assert_msg(load(cases[i].text) == -1, "%s", cases[i].text);
        err_has("test.json", cases[i].key, cases[i].what, NULL);
    }
}
END_TEST

START_TEST(good_edge_values)
{
    ck_assert_int_eq(load("{\"port\": 1, \"grace_s\": 86400, "
                          "\"listen_address\": \"::1\", "
                          "\"allowed_origins\": [\"http://[::1]:8080\", "
                          "\"https://192.0.2.7\"], "
                          "\"log_file\": \"\", \"log_level\": \"error\"}"),
                     0);
    ck_assert_int_eq(cfg.port, 1);
    ck_assert_int_eq(cfg.grace_s, 86400);
    ck_assert_str_eq(cfg.listen_address, "::1");
    ck_assert_str_eq(cfg.allowed_origins[0], "http://[::1]:8080");
    ck_assert_int_eq(cfg.log_level, LOG_ERROR);
    /* an empty list: any origin again */
    ck_assert_int_eq(load("{\"allowed_origins\": []}"), 0);
    ck_assert_uint_eq(cfg.n_allowed_origins, 0);
    ck_assert_int_eq(load("{}"), 0);
    /* the cluster's: a node id of 1 and of 32, Redis by name, address,
     * IPv6 address and socket, PostgreSQL as a URI */
    ck_assert_int_eq(load("{\"node_id\": \"a\", \"redis\": "
                          "\"redis.internal:6379\", \"postgres\": "
                          "\"postgresql://chess@db/chess?sslmode=require\"}"),
                     0);
    ck_assert_str_eq(cfg.node_id, "a");
    ck_assert_str_eq(cfg.redis, "redis.internal:6379");
    ck_assert_str_eq(cfg.postgres,
                     "postgresql://chess@db/chess?sslmode=require");
    ck_assert_int_eq(load("{\"node_id\": "
                          "\"ABCDEFGHIJKLMNOPQRSTUVWXYZ_-0129\", "
                          "\"redis\": \"[::1]:1\"}"),
                     0);
    ck_assert_uint_eq(strlen(cfg.node_id), 32);
    ck_assert_int_eq(load("{\"redis\": \"127.0.0.1:65535\"}"), 0);
    ck_assert_int_eq(load("{\"redis\": \"./redis.sock\"}"), 0);
    ck_assert_int_eq(
        load("{\"redis\": \"10.0.0.5:6379,[::1]:6380,/r.sock\"}"), 0);
    {
        char a[CONFIG_REDIS_MAX][CONFIG_REDIS_ADDR_MAX];
        ck_assert_int_eq(config_redis_split(cfg.redis, a, CONFIG_REDIS_MAX),
                         3);
        ck_assert_str_eq(a[0], "10.0.0.5:6379");
        ck_assert_str_eq(a[1], "[::1]:6380");
        ck_assert_str_eq(a[2], "/r.sock");
        ck_assert_int_eq(config_redis_split(cfg.redis, a, 2), -1);
    }
    ck_assert_int_eq(load("{\"redis\": \"\", \"postgres\": \"\"}"), 0);
    ck_assert_str_eq(cfg.redis, "");
    ck_assert_str_eq(cfg.postgres, "");
}
END_TEST

START_TEST(malformed_json)
{
    ck_assert_int_eq(load("{\"port\": 80,\n \"grace_s\": }"), -1);
    err_has("test.json", "line 2", NULL);
    ck_assert_int_eq(load("[1, 2]"), -1);
    err_has("one JSON object", "a list", NULL);
    ck_assert_int_eq(load("{\"port\": 80, \"port\": 81}"), -1);
    err_has("duplicate", NULL);
    ck_assert_int_eq(load(""), -1);
}
END_TEST

START_TEST(missing_file)
{
    char path[128];

    snprintf(path, sizeof path, "%s/nope.json", dir);
    ck_assert_int_eq(config_load_file(&cfg, path, err, sizeof err), -1);
    err_has(path, "No such file", NULL);
}
END_TEST

START_TEST(load_file_and_override)
{
    char path[128];

    snprintf(path, sizeof path, "%s/c.json", dir);
    ck_assert_int_eq(write_file(path, "{\"port\": 9000, \"grace_s\": 10, "
                                      "\"database\": \"/a/b.db\"}\n"),
                     0);
    ck_assert_msg(config_load_file(&cfg, path, err, sizeof err) == 0, "%s",
                  err);
    ck_assert_int_eq(cfg.port, 9000);
    /* the command line comes after the file and wins */
    ck_assert_int_eq(config_set_text(&cfg, "port", "9100", err, sizeof err),
                     0);
    ck_assert_int_eq(
        config_set_text(&cfg, "database", "/c.db", err, sizeof err), 0);
    ck_assert_int_eq(cfg.port, 9100);
    ck_assert_int_eq(cfg.grace_s, 10);
    ck_assert_str_eq(cfg.database, "/c.db");
    ck_assert_int_eq(config_set_text(&cfg, "allowed_origins",
                                     "https://a.org,http://b.org:81", err,
                                     sizeof err),
                     0);
    ck_assert_uint_eq(cfg.n_allowed_origins, 2);
    ck_assert_str_eq(cfg.allowed_origins[1], "http://b.org:81");
    ck_assert_int_eq(
        config_set_text(&cfg, "log_level", "warn", err, sizeof err), 0);
    ck_assert_int_eq(cfg.log_level, LOG_WARN);
    /* the limits' flags (--max-games-per-player ...) */
    ck_assert_int_eq(
        config_set_text(&cfg, "max_games_per_player", "7", err, sizeof err),
        0);
    ck_assert_int_eq(
        config_set_text(&cfg, "max_invites_per_ip", "8", err, sizeof err), 0);
    ck_assert_int_eq(
        config_set_text(&cfg, "guests_per_ip_per_min", "9", err, sizeof err),
        0);
    ck_assert_int_eq(cfg.max_games_per_player, 7);
    ck_assert_int_eq(cfg.max_invites_per_ip, 8);
    ck_assert_int_eq(cfg.guests_per_ip_per_min, 9);
    ck_assert_int_eq(
        config_set_text(&cfg, "guests_per_ip_per_min", "0", err, sizeof err),
        -1);
    err_has("from 1 to", NULL);
    ck_assert_int_eq(cfg.guests_per_ip_per_min, 9);
}
END_TEST

START_TEST(bad_override_changes_nothing)
{
    ck_assert_int_eq(config_set_text(&cfg, "port", "abc", err, sizeof err),
                     -1);
    err_has("from 1 to 65535", "'abc'", NULL);
    ck_assert_int_eq(config_set_text(&cfg, "port", "", err, sizeof err), -1);
    ck_assert_int_eq(config_set_text(&cfg, "port", "80x", err, sizeof err),
                     -1);
    ck_assert_int_eq(cfg.port, 8080);
    ck_assert_int_eq(config_set_text(&cfg, "database", "", err, sizeof err),
                     -1);
    ck_assert_str_eq(cfg.database, "./data/chess.db");
    ck_assert_int_eq(config_set_text(&cfg, "node_id", "x", err, sizeof err),
                     0);
    ck_assert_int_eq(config_set_text(&cfg, "node_id", "a/b", err, sizeof err),
                     -1);
    ck_assert_str_eq(cfg.node_id, "x");
    ck_assert_int_eq(
        config_set_text(&cfg, "redis", "nowhere", err, sizeof err), -1);
    ck_assert_str_eq(cfg.redis, "");
    ck_assert_int_eq(config_set_text(&cfg, "allowed_origins",
                                     "https://a.org,nope", err, sizeof err),
                     -1);
    ck_assert_uint_eq(cfg.n_allowed_origins, 0);
    ck_assert_int_eq(config_set_text(&cfg, "nosuch", "1", err, sizeof err),
                     -1);
    err_has("unknown key", "'nosuch'", NULL);
    /* a bad file value after good ones: the error names the bad key */
    ck_assert_int_eq(load("{\"grace_s\": 5, \"first_move_s\": 0}"), -1);
    err_has("'first_move_s'", NULL);
}
END_TEST

START_TEST(cross_key_checks)
{
    char missing[128];

    snprintf(missing, sizeof missing, "%s/missing.pem", dir);
    config_set_text(&cfg, "tls_cert", cert, err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'tls_cert'", "'tls_key'", NULL);
    config_set_text(&cfg, "tls_key", missing, err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'tls_key'", missing, NULL);
    config_set_text(&cfg, "tls_key", key, err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), 0);
    config_set_text(&cfg, "tls_cert", dir, err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("not a file", NULL);
    config_set_text(&cfg, "tls_cert", cert, err, sizeof err);
    config_set_text(&cfg, "http_redirect_port", "8080", err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'http_redirect_port'", "differ", NULL);
    config_set_text(&cfg, "http_redirect_port", "8081", err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), 0);
    config_set_text(&cfg, "tls_cert", "", err, sizeof err);
    config_set_text(&cfg, "tls_key", "", err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'http_redirect_port'", "needs TLS", NULL);
    config_set_text(&cfg, "http_redirect_port", "0", err, sizeof err);
    config_set_text(&cfg, "log_file", "/no/such/folder/x.log", err,
                    sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'log_file'", "/no/such/folder", NULL);
    config_set_text(&cfg, "log_file", "", err, sizeof err);
    /* the engine: an executable file, or "" (none) */
    config_set_text(&cfg, "engine_path", dir, err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'engine_path'", "not a file", NULL);
    config_set_text(&cfg, "engine_path", cert, err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'engine_path'", "not executable", "\"\"", NULL);
    config_set_text(&cfg, "engine_path", missing, err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'engine_path'", missing, NULL);
    config_set_text(&cfg, "engine_path", "/bin/sh", err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), 0);
    config_set_text(&cfg, "engine_path", "", err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), 0);
    /* a ping must have time to be answered before the hang-up */
    config_set_text(&cfg, "ping_interval_s", "60", err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'ping_timeout_s'", "greater", "'ping_interval_s' (60)", NULL);
    config_set_text(&cfg, "ping_timeout_s", "61", err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), 0);
    /* a cluster (redis) shares its games' journal: PostgreSQL */
    config_set_text(&cfg, "redis", "/run/redis/redis.sock", err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'redis'", "'postgres'", NULL);
    config_set_text(&cfg, "postgres", "dbname=chess", err, sizeof err);
    /* ... and signs its messages with a key every node has */
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'redis'", "'cluster_key_file'", "32 bytes", NULL);
    config_set_text(&cfg, "cluster_key_file", missing, err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'cluster_key_file'", missing, NULL);
    config_set_text(&cfg, "cluster_key_file", key, err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), 0);
    /* a user needs a password; TLS is on with its CAs, for host:port */
    config_set_text(&cfg, "redis_user", "chess", err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'redis_user'", "'redis_password_file'", NULL);
    config_set_text(&cfg, "redis_password_file", key, err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), 0);
    config_set_text(&cfg, "redis_tls_cert_file", cert, err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'redis_tls_cert_file'", "'redis_tls_key_file'", NULL);
    config_set_text(&cfg, "redis_tls_key_file", key, err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'redis_tls_cert_file'", "'redis_tls_ca_file'", NULL);
    config_set_text(&cfg, "redis_tls_ca_file", cert, err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'redis_tls_ca_file'", "host:port", NULL);
    config_set_text(&cfg, "redis", "redis.internal:6380", err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), 0);
    /* none of them without redis */
    config_set_text(&cfg, "redis", "", err, sizeof err);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("'redis_user'", "only with 'redis'", NULL);
}
END_TEST

START_TEST(origins)
{
    ck_assert(origin_allowed("https://anything.example"));
    ck_assert_int_eq(load("{\"allowed_origins\": [\"https://chess.example."
                          "org\", \"http://localhost:8080\"]}"),
                     0);
    ck_assert(origin_allowed("https://chess.example.org"));
    ck_assert(origin_allowed("HTTPS://Chess.Example.ORG"));
    ck_assert(origin_allowed("http://localhost:8080"));
    ck_assert(!origin_allowed("http://chess.example.org"));
    ck_assert(!origin_allowed("https://chess.example.org:443"));
    ck_assert(!origin_allowed("https://evil.example"));
    ck_assert(!origin_allowed("http://localhost:8081"));
    ck_assert(!origin_allowed("http://localhost"));
    ck_assert(!origin_allowed("null"));
    ck_assert(!origin_allowed(""));
}
END_TEST

START_TEST(trusted_proxies)
{
    const char *many[CONFIG_MAX_PROXIES + 1];
    char text[8192], *p = text;

    ck_assert_int_eq(load("{\"trusted_proxies\": [\"::ffff:127.0.0.2\", "
                          "\"2001:DB8:0::1\", \"10.0.0.1\"]}"),
                     0);
    /* stored as inet_ntop writes them, an IPv4-mapped one as IPv4 */
    ck_assert_str_eq(cfg.trusted_proxies[0], "127.0.0.2");
    ck_assert_str_eq(cfg.trusted_proxies[1], "2001:db8::1");
    ck_assert(proxy_trusted("127.0.0.2"));
    ck_assert(proxy_trusted("::ffff:127.0.0.2"));
    ck_assert(proxy_trusted("2001:db8::0:1"));
    ck_assert(proxy_trusted("::ffff:10.0.0.1"));
    ck_assert(!proxy_trusted("127.0.0.1"));
    ck_assert(!proxy_trusted("2001:db8::2"));
    ck_assert(!proxy_trusted("?"));
    ck_assert(!proxy_trusted(""));
    /* from the command line: comma-separated; a bad one changes nothing */
    ck_assert_int_eq(config_set_text(&cfg, "trusted_proxies", "::1,1.2.3.4",
                                     err, sizeof err),
                     0);
    ck_assert_uint_eq(cfg.n_trusted_proxies, 2);
    ck_assert(proxy_trusted("1.2.3.4"));
    ck_assert_int_eq(
        config_set_text(&cfg, "trusted_proxies", "::1,x", err, sizeof err),
        -1);
    ck_assert_uint_eq(cfg.n_trusted_proxies, 2);
    ck_assert_int_eq(
        config_set_text(&cfg, "request_timeout_s", "0", err, sizeof err), -1);
    /* at most CONFIG_MAX_PROXIES */
    p += sprintf(p, "{\"trusted_proxies\": [");
    for (int i = 0; i <= CONFIG_MAX_PROXIES; i++) {
        many[i] = "127.0.0.1";
        p += sprintf(p, "%s\"%s\"", i ? "," : "", many[i]);
    }
    sprintf(p, "]}");
    ck_assert_int_eq(load(text), -1);
    err_has("'trusted_proxies'", "at most 64 addresses", NULL);
    ck_assert_int_eq(load("{\"trusted_proxies\": []}"), 0);
    ck_assert_uint_eq(cfg.n_trusted_proxies, 0);
}
END_TEST

START_TEST(quote)
{
    char b[32];

    ck_assert_str_eq(log_quote(b, sizeof b, "plain"), "plain");
    ck_assert_str_eq(log_quote(b, sizeof b, ""), "\"\"");
    ck_assert_str_eq(log_quote(b, sizeof b, "a b"), "\"a b\"");
    ck_assert_str_eq(log_quote(b, sizeof b, "say \"hi\""),
                     "\"say \\\"hi\\\"\"");
    ck_assert_str_eq(log_quote(b, sizeof b, "k=v"), "\"k=v\"");
    ck_assert_str_eq(log_quote(b, 8, "a long value"), "\"a lo\"");
}
END_TEST

/* ---- the table of settings, --help and docs/operator.md ----------------- */

/* Reads a whole file into a malloc'ed string (NULL on failure). */
static char *read_all(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t len = 0;

    if (!f)
        return NULL;
    FILE *m = open_memstream(&text, &len);
    if (m) {
        int ch;
        while ((ch = getc(f)) != EOF)
            putc(ch, m);
        fclose(m);
    }
    fclose(f);
    return text;
}

static char *readme_text(void)
{
    char path[4096];
    const char *data = getenv("CHESS_TEST_DATA"); /* SOURCE/tests/data */

    ck_assert_ptr_nonnull(data);
    snprintf(path, sizeof path, "%s/../../docs/operator.md", data);
    char *text = read_all(path);
    ck_assert_msg(text, "cannot read %s", path);
    return text;
}

/* Copies the n characters at p into out without the spaces around. */
static void trim_cell(const char *p, size_t n, char *out, size_t len)
{
    while (n && *p == ' ')
        p++, n--;
    while (n && p[n - 1] == ' ')
        n--;
    snprintf(out, len, "%.*s", (int)n, p);
}

/* Compares docs/operator.md's table of settings (the rows under the header
 * "| key | flag | default | meaning |") with config_keys.c's table: the same
 * keys, each once, with the same flag and default. Returns how many
 * differences; the first few are described in why. */
static int readme_diff(const char *text, char *why, size_t len)
{
    static const char head[] = "\n| key | flag | default | meaning |\n";
    const char *p = strstr(text, head);
    bool seen[128] = {false};
    size_t used = 0;
    int diffs = 0;

#define DIFF(...)                                                          \
    do {                                                                   \
        diffs++;                                                           \
        if (used < len)                                                    \
            used += (size_t)snprintf(why + used, len - used, __VA_ARGS__); \
    } while (0)

    why[0] = '\0';
    if (!p) {
        DIFF("no table of settings; ");
        return diffs;
    }
    p = strchr(p + sizeof head - 1, '\n'); /* past "| --- | ..." */
    for (p = p ? p + 1 : ""; *p == '|'; p = strchr(p, '\n') + 1) {
        const char *end = strchr(p, '\n'), *c = p + 1;
        char cell[3][256], want[300], def[256];
        const struct config_setting *st = NULL;
        size_t i;

        ck_assert_ptr_nonnull(end);
        for (int k = 0; k < 3; k++) {
            const char *bar = memchr(c, '|', (size_t)(end - c));
            if (!bar)
                bar = end;
            trim_cell(c, (size_t)(bar - c), cell[k], sizeof cell[k]);
            c = bar < end ? bar + 1 : end;
        }
        for (i = 0; (st = config_setting_at(i)); i++) {
            snprintf(want, sizeof want, "`%s`", st->key);
            if (!strcmp(cell[0], want))
                break;
        }
        if (!st) {
            DIFF("operator.md key %s is no setting; ", cell[0]);
            continue;
        }
        if (i < sizeof seen && seen[i])
            DIFF("operator.md lists %s twice; ", cell[0]);
        if (i < sizeof seen)
            seen[i] = true;
        snprintf(want, sizeof want, st->flag ? "`%s`" : "%s",
                 st->flag ? st->flag : "");
        if (strcmp(cell[1], want))
            DIFF("%s: operator.md flag '%s', the server's '%s'; ", st->key,
                 cell[1], want);
        if (config_default_text(st, def, sizeof def))
            snprintf(want, sizeof want, "`%s`", def);
        else
            snprintf(want, sizeof want, "%s", def);
        if (strcmp(cell[2], want))
            DIFF("%s: operator.md default '%s', the server's '%s'; ", st->key,
                 cell[2], want);
    }
    for (size_t i = 0; config_setting_at(i); i++)
        if (i >= sizeof seen || !seen[i])
            DIFF("setting %s is not in operator.md; ",
                 config_setting_at(i)->key);
#undef DIFF
    return diffs;
}

START_TEST(table_is_consistent)
{
    /* keys and flags unique, flags spelled --word, every setting has help,
     * and each default shown as a value is one a file may hold */
    const struct config_setting *a, *b;
    size_t n = 0;

    for (size_t i = 0; (a = config_setting_at(i)); i++, n++) {
        char def[256], text[400];
        ck_assert_msg(a->help && *a->help, "%s", a->key);
        ck_assert_ptr_eq(config_setting_find(a->key), a);
        if (a->flag) {
            ck_assert_msg(!strncmp(a->flag, "--", 2) && a->flag[2], "%s",
                          a->flag);
            ck_assert_ptr_eq(config_setting_find(a->flag), a);
            ck_assert_msg(a->arg && *a->arg, "%s", a->key);
        }
        for (size_t j = 0; j < i; j++) {
            b = config_setting_at(j);
            ck_assert_str_ne(a->key, b->key);
            ck_assert(!a->flag || !b->flag || strcmp(a->flag, b->flag));
        }
        if (config_default_text(a, def, sizeof def)) {
            snprintf(text, sizeof text, "{\"%s\": %s}", a->key, def);
            ck_assert_msg(load(text) == 0, "%s: %s", text, err);
        }
    }
    ck_assert_uint_gt(n, 0);
    ck_assert_ptr_null(config_setting_find("no_such_key"));
    ck_assert_ptr_null(config_setting_find("--no-such-flag"));
}
END_TEST

START_TEST(help_lists_every_setting)
{
    char *text = NULL, def[256], want[300];
    size_t len = 0;
    const struct config_setting *st;
    FILE *f = open_memstream(&text, &len);

    ck_assert_ptr_nonnull(f);
    config_help(f);
    fclose(f);
    for (size_t i = 0; (st = config_setting_at(i)); i++) {
        config_default_text(st, def, sizeof def);
        if (st->flag)
            snprintf(want, sizeof want, "  %s %s ", st->flag, st->arg);
        else
            snprintf(want, sizeof want, "%s [%s]", st->key, def);
        ck_assert_msg(strstr(text, want), "'%s' not in:\n%s", want, text);
    }
    /* lines fit a terminal of 80 columns */
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        ck_assert_msg(n < 80, "%.*s", (int)n, p);
        p += n + (p[n] == '\n');
    }
    free(text);
}
END_TEST

START_TEST(readme_lists_every_setting)
{
    char *text = readme_text();
    char why[2048];

    ck_assert_msg(readme_diff(text, why, sizeof why) == 0, "%s", why);
    /* the default too long for the table is in its row */
    ck_assert(strstr(text, "`" CONFIG_TLS_CIPHERS_DEFAULT "`"));
    free(text);
}
END_TEST

/* An operator.md that drifted from the table in one way, and what readme_diff
 * must say about it. */
static void drifted(const char *text, const char *from, const char *to,
                    const char *says)
{
    char *p = strstr(text, from), *copy, why[2048];
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;

    ck_assert_msg(p, "'%s' not in operator.md", from);
    copy = malloc(n);
    ck_assert_ptr_nonnull(copy);
    snprintf(copy, n, "%.*s%s%s", (int)(p - text), text, to,
             p + strlen(from));
    ck_assert_int_gt(readme_diff(copy, why, sizeof why), 0);
    ck_assert_msg(strstr(why, says), "'%s' not in: %s", says, why);
    free(copy);
}

START_TEST(readme_check_sees_drift)
{
    char *text = readme_text();

    drifted(text, "| `grace_s` | `--grace-s` | `60` |",
            "| `grace_s` | `--grace-s` | `61` |",
            "grace_s: operator.md default '`61`'");
    drifted(text, "| `port` | `--port` |", "| `port` | `--prot` |",
            "port: operator.md flag '`--prot`'");
    drifted(text, "| `move_burst` | |", "| `move_burst` | `--move-burst` |",
            "move_burst: operator.md flag");
    drifted(text, "| `log_file` |", "| `log_files` |",
            "setting log_file is not in operator.md");
    drifted(text, "| `log_file` |", "| `log_files` |",
            "operator.md key `log_files` is no setting");
    drifted(text, "| `tls_ciphers` | | forward-secret AEAD suites |",
            "| `tls_ciphers` | | `\"ECDHE\"` |",
            "tls_ciphers: operator.md default");
    drifted(text, "| `log_file` |", "| `port` |", "twice");
    free(text);
}
END_TEST

int main(void)
{
    if (!mkdtemp(dir))
        return EXIT_FAILURE;
    snprintf(cert, sizeof cert, "%s/cert.pem", dir);
    snprintf(key, sizeof key, "%s/key.pem", dir);
    if (write_file(cert, "not really a certificate\n") < 0 ||
        write_file(key, "not really a key\n") < 0)
        return EXIT_FAILURE;

    Suite *s = suite_create("config");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, node_id_defaults_to_the_host_name);
    tcase_add_test(tc, every_key);
    tcase_add_test(tc, example_file_is_valid);
    tcase_add_test(tc, unknown_key);
    tcase_add_test(tc, wrong_types);
    tcase_add_test(tc, bad_values);
    tcase_add_test(tc, good_edge_values);
    tcase_add_test(tc, malformed_json);
    tcase_add_test(tc, missing_file);
    tcase_add_test(tc, load_file_and_override);
    tcase_add_test(tc, bad_override_changes_nothing);
    tcase_add_test(tc, cross_key_checks);
    tcase_add_test(tc, origins);
    tcase_add_test(tc, trusted_proxies);
    tcase_add_test(tc, quote);
    tcase_add_test(tc, table_is_consistent);
    tcase_add_test(tc, help_lists_every_setting);
    tcase_add_test(tc, readme_lists_every_setting);
    tcase_add_test(tc, readme_check_sees_drift);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    unlink(cert);
    unlink(key);
    rmdir(dir);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
