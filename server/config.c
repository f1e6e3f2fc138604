/*
 * config.c - settings from defaults, a JSON file and the command line
 * (see config.h).
 *
 * One table describes every key: its kind, where it lives in struct
 * config and its range. The file loader and config_set_text both go
 * through it, so a key is checked by the same rule wherever it comes from.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "tunables.h"

enum kind {
    K_INT,     /* integer in [lo, hi] */
    K_PATH,    /* non-empty string (or empty when lo == 0) */
    K_ADDR,    /* "" or an IPv4/IPv6 address */
    K_ORIGINS, /* list of origins */
    K_PROXIES, /* list of IPv4/IPv6 addresses */
    K_LEVEL,   /* log level word */
    K_TLSVER,  /* "1.2" or "1.3" */
    K_CIPHERS, /* an OpenSSL cipher list (checked by OpenSSL in main.c) */
};

struct key {
    const char *name;
    enum kind kind;
    size_t off;
    long lo, hi;
};

#define INT_KEY(n, lo, hi) {#n, K_INT, offsetof(struct config, n), lo, hi}
#define STR_KEY(n, k, empty_ok) \
    {#n, k, offsetof(struct config, n), empty_ok ? 0 : 1, 0}

static const struct key keys[] = {
    STR_KEY(listen_address, K_ADDR, true),
    INT_KEY(port, 1, 65535),
    STR_KEY(database, K_PATH, false),
    STR_KEY(web_root, K_PATH, false),
    INT_KEY(grace_s, 1, 86400),
    INT_KEY(first_move_s, 1, 86400),
    STR_KEY(tls_cert, K_PATH, true),
    STR_KEY(tls_key, K_PATH, true),
    INT_KEY(http_redirect_port, 0, 65535),
    STR_KEY(tls_min_version, K_TLSVER, false),
    STR_KEY(tls_ciphers, K_CIPHERS, false),
    /* two years: the longest the HSTS preload list asks for */
    INT_KEY(hsts_max_age_s, 0, 63072000),
    {"allowed_origins", K_ORIGINS, 0, 0, 0},
    INT_KEY(max_connections, 1, 1000000),
    INT_KEY(max_connections_per_ip, 1, 1000000),
    INT_KEY(request_timeout_s, 1, 300),
    {"trusted_proxies", K_PROXIES, 0, 0, 0},
    INT_KEY(move_rate_per_s, 1, 100000),
    INT_KEY(move_burst, 1, 100000),
    INT_KEY(msg_rate_per_s, 1, 100000),
    INT_KEY(msg_burst, 1, 100000),
    INT_KEY(max_games_per_player, 1, 100000),
    INT_KEY(max_invites_per_ip, 1, 10000000),
    INT_KEY(guests_per_ip_per_min, 1, 10000000),
    INT_KEY(http_rate_per_s, 1, 100000),
    INT_KEY(http_burst, 1, 100000),
    INT_KEY(ping_interval_s, 1, 3600),
    INT_KEY(ping_timeout_s, 2, 7200),
    {"log_level", K_LEVEL, offsetof(struct config, log_level), 0, 0},
    STR_KEY(log_file, K_PATH, true),
};

#define NKEYS (sizeof keys / sizeof keys[0])
#define PATH_BYTES 4096

static void set_err(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;

    if (!err || !len)
        return;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

static const struct key *find_key(const char *name)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (!strcmp(keys[i].name, name))
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
    return k->kind == K_PATH || k->kind == K_ADDR || k->kind == K_TLSVER
        || k->kind == K_CIPHERS;
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

int config_init(struct config *c)
{
    memset(c, 0, sizeof *c);
    c->port = 8080;
    c->grace_s = 60;
    c->first_move_s = 30;
    /* The descriptor budget of these machines is 20,000 a process; half
     * leaves room for HTTP requests, the database and lws itself. */
    c->max_connections = 10000;
    /* A household or office behind one NAT address, each person with a
     * few tabs. */
    c->max_connections_per_ip = 256;
    /* A browser sends its request at once; a phone on a poor network
     * within a few seconds. A connection that has sent no complete
     * request by then holds a descriptor for nothing. */
    c->request_timeout_s = LIMIT_REQUEST_TIMEOUT_S;
    /* A human plays at most a few moves a second (premoves included);
     * other messages burst on a reconnect that syncs every game. */
    c->move_rate_per_s = 10;
    c->move_burst = 20;
    c->msg_rate_per_s = 20;
    c->msg_burst = 60;
    /* Per player and per address: see tunables.h. */
    c->max_games_per_player = LIMIT_GAMES_PER_PLAYER;
    c->max_invites_per_ip = LIMIT_INVITES_PER_IP;
    c->guests_per_ip_per_min = LIMIT_GUESTS_PER_IP_PER_MIN;
    /* HTTP API requests from one address: a page asks for a game or a
     * page of history at a time; a script scraping every game, or a
     * flood, is held to this. */
    c->http_rate_per_s = 10;
    c->http_burst = 30;
    /* Keepalive: a connection is pinged 30 s after its last pong (or its
     * opening; browsers answer by themselves); one that has not answered
     * 60 s after that mark is dead or half-open (a laptop lid closed, a
     * NAT entry dropped) and is closed, which starts its player's grace
     * period. Well under the few minutes after which NATs and proxies
     * drop idle flows. */
    c->ping_interval_s = 30;
    c->ping_timeout_s = 60;
    c->log_level = LOG_INFO;
    /* a year, as Mozilla's server-side TLS guidance and nginx.conf */
    c->hsts_max_age_s = 31536000;
    c->tls_min_version = strdup("1.2");
    c->tls_ciphers = strdup(CONFIG_TLS_CIPHERS_DEFAULT);
    c->listen_address = strdup("");
    c->database = strdup("./data/chess.db");
    c->web_root = strdup("./web");
    c->tls_cert = strdup("");
    c->tls_key = strdup("");
    c->log_file = strdup("");
    if (!c->listen_address || !c->database || !c->web_root || !c->tls_cert
        || !c->tls_key || !c->log_file || !c->tls_min_version
        || !c->tls_ciphers) {
        config_clear(c);
        return -1;
    }
    return 0;
}

/* ---- single values ----------------------------------------------------- */

static int set_int(struct config *c, const struct key *k, long v,
                   char *err, size_t errlen)
{
    if (v < k->lo || v > k->hi) {
        set_err(err, errlen, "must be an integer from %ld to %ld, not %ld",
                k->lo, k->hi, v);
        return -1;
    }
    *int_at(c, k) = (int)v;
    return 0;
}

static int set_str(struct config *c, const struct key *k, const char *s,
                   char *err, size_t errlen)
{
    char *copy;
    unsigned char buf[sizeof(struct in6_addr)];

    if (strlen(s) >= PATH_BYTES) {
        set_err(err, errlen, "must be shorter than %d bytes", PATH_BYTES);
        return -1;
    }
    if ((k->kind == K_PATH || k->kind == K_CIPHERS) && k->lo && !*s) {
        set_err(err, errlen, "must not be empty");
        return -1;
    }
    if (k->kind == K_TLSVER && strcmp(s, "1.2") && strcmp(s, "1.3")) {
        set_err(err, errlen, "must be \"1.2\" or \"1.3\", not '%s'", s);
        return -1;
    }
    if (k->kind == K_CIPHERS
        && s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                    "0123456789-_:+!@=.,")]) {
        set_err(err, errlen, "must be an OpenSSL cipher list (names joined "
                "by ':'), not '%s'", s);
        return -1;
    }
    if (k->kind == K_ADDR && *s && inet_pton(AF_INET, s, buf) != 1
        && inet_pton(AF_INET6, s, buf) != 1) {
        set_err(err, errlen, "must be an IPv4 or IPv6 address (or \"\" "
                "for every interface), not '%s'", s);
        return -1;
    }
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20) {
            set_err(err, errlen, "must not contain control characters");
            return -1;
        }
    copy = strdup(s);
    if (!copy) {
        set_err(err, errlen, "out of memory");
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
        set_err(err, errlen, "must be one of \"error\", \"warn\", \"info\", "
                "\"debug\", not '%s'", s);
        return -1;
    }
    c->log_level = level;
    return 0;
}

static bool host_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-'
        || ch == '.';
}

/* Checks "http[s]://host[:port]" (host a name, an IPv4 address or an
 * [IPv6] address) and returns it lowercased in out (malloc'ed), or -1. */
static int parse_origin(const char *s, char **out, char *err, size_t errlen)
{
    char *o = strdup(s), *p, *host;
    size_t n;

    if (!o) {
        set_err(err, errlen, "out of memory");
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
        if (n == 0 || n > 5 || p[1 + n] || atol(p + 1) < 1
            || atol(p + 1) > 65535)
            goto bad;
    } else if (*p) {
        goto bad;
    }
    if (strlen(o) > 255)
        goto bad;
    *out = o;
    return 0;
bad:
    set_err(err, errlen, "'%s' is not an origin: write scheme://host or "
            "scheme://host:port with scheme http or https, no path", s);
    free(o);
    return -1;
}

/* The address in canonical text (inet_ntop's; an IPv4-mapped IPv6
 * address as IPv4, which is how an IPv4 client of a dual-stack socket
 * appears), or -1. */
static int canonical_addr(const char *s, char *out, size_t len)
{
    struct in6_addr a6;
    unsigned char a4[4];

    if (inet_pton(AF_INET, s, a4) == 1)
        return inet_ntop(AF_INET, a4, out, (socklen_t)len) ? 0 : -1;
    if (inet_pton(AF_INET6, s, &a6) != 1)
        return -1;
    if (IN6_IS_ADDR_V4MAPPED(&a6))
        return inet_ntop(AF_INET, &a6.s6_addr[12], out, (socklen_t)len)
            ? 0 : -1;
    return inet_ntop(AF_INET6, &a6, out, (socklen_t)len) ? 0 : -1;
}

/* A trusted proxy: an address in canonical text (malloc'ed in *out). */
static int parse_proxy(const char *s, char **out, char *err, size_t errlen)
{
    char text[INET6_ADDRSTRLEN];

    if (canonical_addr(s, text, sizeof text) < 0) {
        set_err(err, errlen, "'%s' is not an IPv4 or IPv6 address "
                "(numeric, no port, no range)", s);
        return -1;
    }
    if (!(*out = strdup(text))) {
        set_err(err, errlen, "out of memory");
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
    int (*parse)(const char *, char **, char *, size_t) =
        proxies ? parse_proxy : parse_origin;
    char ***field = proxies ? &c->trusted_proxies : &c->allowed_origins;
    size_t *count = proxies ? &c->n_trusted_proxies : &c->n_allowed_origins;
    char **v;
    size_t i;

    if (n > max) {
        set_err(err, errlen, "at most %zu %s", max,
                proxies ? "addresses" : "origins");
        return -1;
    }
    v = calloc(n ? n : 1, sizeof *v);
    if (!v) {
        set_err(err, errlen, "out of memory");
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
        set_err(err, errlen, "unknown key '%s'", key);
        return -1;
    }
    switch (k->kind) {
    case K_INT:
        errno = 0;
        v = strtol(text, &end, 10);
        if (errno || !*text || *end || v < k->lo || v > k->hi) {
            set_err(err, errlen, "must be an integer from %ld to %ld, not "
                    "'%s'", k->lo, k->hi, text);
            return -1;
        }
        return set_int(c, k, v, err, errlen);
    case K_PATH:
    case K_ADDR:
    case K_TLSVER:
    case K_CIPHERS:
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
            set_err(err, errlen, "out of memory");
            return -1;
        }
        n = split_list(copy, list, k->kind == K_ORIGINS
                                       ? CONFIG_MAX_ORIGINS
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
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "a list";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number with a fraction";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

static int set_json(struct config *c, const struct key *k, const json_t *v,
                    char *err, size_t errlen)
{
    switch (k->kind) {
    case K_INT:
        if (!json_is_integer(v)) {
            set_err(err, errlen, "must be an integer from %ld to %ld, not "
                    "%s", k->lo, k->hi, json_kind(v));
            return -1;
        }
        if (json_integer_value(v) < k->lo || json_integer_value(v) > k->hi) {
            set_err(err, errlen, "must be an integer from %ld to %ld, not %"
                    JSON_INTEGER_FORMAT, k->lo, k->hi, json_integer_value(v));
            return -1;
        }
        return set_int(c, k, (long)json_integer_value(v), err, errlen);
    case K_PATH:
    case K_ADDR:
    case K_TLSVER:
    case K_CIPHERS:
    case K_LEVEL:
        if (!json_is_string(v)) {
            set_err(err, errlen, "must be a string, not %s", json_kind(v));
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
            set_err(err, errlen, "must be a list of strings, not %s",
                    json_kind(v));
            return -1;
        }
        if (n > max) {
            set_err(err, errlen, "at most %zu %s", max,
                    k->kind == K_ORIGINS ? "origins" : "addresses");
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            const json_t *e = json_array_get(v, i);
            if (!json_is_string(e)) {
                set_err(err, errlen, "item %zu must be a string, not %s",
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
        set_err(err, errlen, "%s: must hold one JSON object of settings, "
                "not %s", name, json_kind(root));
        return -1;
    }
    json_object_foreach(root, key, v) {
        const struct key *k = find_key(key);
        if (!k) {
            set_err(err, errlen, "%s: unknown key '%s'", name, key);
            return -1;
        }
        if (set_json(c, k, v, why, sizeof why) < 0) {
            set_err(err, errlen, "%s: key '%s': %s", name, key, why);
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
        set_err(err, errlen, "%s: line %d, column %d: %s", name, je.line,
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
        set_err(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (!root) {
        set_err(err, errlen, "%s: line %d, column %d: %s", path, je.line,
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
        set_err(err, errlen, "key '%s': cannot read %s: %s", key, path,
                strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        set_err(err, errlen, "key '%s': %s is not a file", key, path);
        return -1;
    }
    return 0;
}

int config_validate(const struct config *c, char *err, size_t errlen)
{
    bool tls = c->tls_cert[0] != '\0';

    if (tls != (c->tls_key[0] != '\0')) {
        set_err(err, errlen, "key '%s': must be set together with '%s'",
                tls ? "tls_cert" : "tls_key", tls ? "tls_key" : "tls_cert");
        return -1;
    }
    if (tls && (readable_file("tls_cert", c->tls_cert, err, errlen) < 0
                || readable_file("tls_key", c->tls_key, err, errlen) < 0))
        return -1;
    if (c->http_redirect_port && !tls) {
        set_err(err, errlen, "key 'http_redirect_port': needs TLS "
                "(tls_cert and tls_key)");
        return -1;
    }
    if (c->ping_timeout_s <= c->ping_interval_s) {
        set_err(err, errlen, "key 'ping_timeout_s': must be greater than "
                "'ping_interval_s' (%d), or no ping could be answered in "
                "time", c->ping_interval_s);
        return -1;
    }
    if (c->http_redirect_port == c->port) {
        set_err(err, errlen, "key 'http_redirect_port': must differ from "
                "'port' (%d)", c->port);
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
                set_err(err, errlen, "key 'log_file': folder %s does not "
                        "exist", dir);
                return -1;
            }
        }
    }
    return 0;
}

int config_origin_allowed(const struct config *c, const char *origin)
{
    size_t n = strlen(origin);

    if (!c->n_allowed_origins)
        return 1;
    for (size_t i = 0; i < c->n_allowed_origins; i++) {
        const char *a = c->allowed_origins[i];
        if (strlen(a) != n)
            continue;
        size_t j = 0;
        while (j < n) {
            char ch = origin[j];
            if (ch >= 'A' && ch <= 'Z')
                ch = (char)(ch - 'A' + 'a');
            if (ch != a[j])
                break;
            j++;
        }
        if (j == n)
            return 1;
    }
    return 0;
}

int config_proxy_trusted(const struct config *c, const char *ip)
{
    char text[INET6_ADDRSTRLEN];

    if (!c->n_trusted_proxies || canonical_addr(ip, text, sizeof text) < 0)
        return 0;
    for (size_t i = 0; i < c->n_trusted_proxies; i++)
        if (!strcmp(c->trusted_proxies[i], text))
            return 1;
    return 0;
}
