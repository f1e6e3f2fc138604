/*
 * config.c - settings from defaults, a JSON file and the command line
 * (see config.h).
 *
 * One table describes every setting (config_keys.c): its key, its
 * command-line flag, its kind, where it lives in struct config, its range,
 * its default and its help. config_init, the file loader, config_set_text, main.c's flags and
 * --help all go through it, so a key has one default and is checked by
 * the same rule wherever it comes from; a unit test holds the table of
 * settings in docs/operator.md to it.
 */
#include "app/config.h"
#include "app/config_internal.h"

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
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/errtext.h"
#include "lib/log.h"
#include "net/trust.h"

#define PATH_BYTES 4096
#define NODE_ID_CHARS                                      \
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" \
    "0123456789_-"

static const struct key *find_key(const char *name)
{
    for (size_t i = 0; i < config__nkeys; i++)
        if (!strcmp(config__keys[i].pub.key, name))
            return &config__keys[i];
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
           k->kind == K_GUESTS || k->kind == K_CIPHERS || k->kind == K_NODE ||
           k->kind == K_REDIS || k->kind == K_NAMES;
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
    for (size_t i = 0; i < config__nkeys; i++)
        if (is_str(&config__keys[i])) {
            free(*str_at(c, &config__keys[i]));
            *str_at(c, &config__keys[i]) = NULL;
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
    for (size_t i = 0; i < config__nkeys; i++) {
        const struct key *k = &config__keys[i];
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
        case K_GUESTS:
        case K_CIPHERS:
        case K_REDIS:
        case K_NAMES:
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
    return i < config__nkeys ? &config__keys[i].pub : NULL;
}

const struct config_setting *config_setting_find(const char *name)
{
    for (size_t i = 0; i < config__nkeys; i++)
        if (!strcmp(config__keys[i].pub.key, name) ||
            (config__keys[i].pub.flag &&
             !strcmp(config__keys[i].pub.flag, name)))
            return &config__keys[i].pub;
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

    for (size_t i = 0; i < config__nkeys; i++) {
        const struct key *k = &config__keys[i];
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
    for (size_t i = 0; i < config__nkeys; i++)
        left += !config__keys[i].pub.flag;
    for (size_t i = 0; i < config__nkeys; i++) {
        const struct key *k = &config__keys[i];
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

/* Usernames separated by commas (tourney_creators): each 2 to
 * CONFIG_USERNAME_MAX of A-Z a-z 0-9 _ -, none twice in any case. */
static int check_names(const char *s, char *err, size_t errlen)
{
    size_t item = 1;

    for (const char *p = s;; item++) {
        size_t len = strcspn(p, ",");
        if (len < 2 || len > CONFIG_USERNAME_MAX ||
            strspn(p, NODE_ID_CHARS) < len) {
            errtext_set(err, errlen,
                        "must be usernames (2 to %d of A-Z a-z 0-9 _ -) "
                        "separated by commas, not '%.*s' (item %zu)",
                        CONFIG_USERNAME_MAX, (int)len, p, item);
            return -1;
        }
        for (const char *q = s; q < p; q += strcspn(q, ",") + 1)
            if (strcspn(q, ",") == len && !strncasecmp(q, p, len)) {
                errtext_set(err, errlen, "names '%.*s' twice (item %zu)",
                            (int)len, p, item);
                return -1;
            }
        p += len;
        if (!*p++)
            return 0;
    }
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
    if (k->kind == K_GUESTS && strcmp(s, "off") && strcmp(s, "token") &&
        strcmp(s, "address")) {
        errtext_set(err, errlen,
                    "must be \"off\", \"token\" or \"address\", not '%s'", s);
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
    if (k->kind == K_NAMES && *s && check_names(s, err, errlen) != 0)
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
    case K_GUESTS:
    case K_CIPHERS:
    case K_NODE:
    case K_REDIS:
    case K_NAMES:
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
    case K_GUESTS:
    case K_CIPHERS:
    case K_NODE:
    case K_REDIS:
    case K_NAMES:
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

/* Who creates tournaments: an account's age and the list of creators
 * narrow arena_create 1 (accounts); with 2 (anyone, guests too) they
 * would contradict it, and the list leaves no place for the age. */
static int validate_creators(const struct config *c, char *err, size_t errlen)
{
    const char *key = c->tourney_creators[0]    ? "tourney_creators"
                      : c->tourney_account_days ? "tourney_account_days"
                                                : NULL;

    if (key && c->arena_create == 2) {
        errtext_set(err, errlen,
                    "key '%s': narrows 'arena_create' 1 (accounts), not 2 "
                    "(anyone, guests too): set arena_create to 1, or %s to "
                    "%s",
                    key, key, c->tourney_creators[0] ? "\"\"" : "0");
        return -1;
    }
    if (c->tourney_creators[0] && c->tourney_account_days) {
        errtext_set(err, errlen,
                    "key 'tourney_account_days': must be 0 when "
                    "'tourney_creators' names who creates tournaments (the "
                    "accounts named are trusted whatever their age)");
        return -1;
    }
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
    if (validate_cluster(c, err, errlen) < 0 ||
        validate_creators(c, err, errlen) < 0)
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
