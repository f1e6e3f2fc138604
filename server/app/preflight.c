/*
 * preflight.c - --check-config's checks of the host and of the servers
 * the settings name (preflight.h).
 */
#include "app/preflight.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/clusterconf.h"
#include "app/config.h"
#include "cluster/redis.h"
#include "store/store.h"

/* How long a probe of Redis waits for its connections and PONG. */
#define PREFLIGHT_REDIS_MS 2000

static int web_root_ok(const char *dir, char *err, size_t errlen)
{
    struct stat st;

    if (stat(dir, &st) < 0) {
        snprintf(err, errlen, "key 'web_root': %s: %s", dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "key 'web_root': %s is not a folder", dir);
        return -1;
    }
    return 0;
}

/* path's folder in place of path ("." for a bare name, "/" for the
 * root's). */
static void parent(char *path, size_t cap)
{
    char *slash = strrchr(path, '/');

    if (!slash)
        snprintf(path, cap, ".");
    else if (slash == path)
        path[1] = '\0';
    else
        *slash = '\0';
}

/* The database file's folder exists and the server may create its files
 * there, or the nearest folder above it that exists lets the server make
 * the rest (as main.c's make_parent will, 0700). */
static int database_folder_ok(const char *db, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    struct stat st;

    if (snprintf(dir, sizeof dir, "%s", db) >= (int)sizeof dir) {
        snprintf(err, errlen, "key 'database': the path is too long");
        return -1;
    }
    parent(dir, sizeof dir);
    for (;;) {
        if (stat(dir, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                snprintf(err, errlen,
                         "key 'database': %s is not a folder: the "
                         "database's folder cannot be made",
                         dir);
                return -1;
            }
            if (access(dir, W_OK | X_OK) < 0) {
                snprintf(err, errlen,
                         "key 'database': cannot create the database "
                         "or its folder in %s: %s",
                         dir, strerror(errno));
                return -1;
            }
            return 0;
        }
        if (errno != ENOENT) {
            snprintf(err, errlen, "key 'database': %s: %s", dir,
                     strerror(errno));
            return -1;
        }
        if (!strcmp(dir, "/") || !strcmp(dir, "."))
            return 0; /* (nothing above to look at: the start says) */
        parent(dir, sizeof dir);
    }
}

/* listen_address is an address of this host: a socket binds to it (on a
 * port the kernel picks, so a server already on the port changes
 * nothing). */
static int listen_address_ok(const char *addr, char *err, size_t errlen)
{
    struct sockaddr_in a4 = {.sin_family = AF_INET};
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6};
    bool v4 = inet_pton(AF_INET, addr, &a4.sin_addr) == 1;
    int fd, rc;

    if (!*addr)
        return 0; /* every address */
    if (!v4 && inet_pton(AF_INET6, addr, &a6.sin6_addr) != 1)
        return 0; /* (config_validate refused it already) */
    fd = socket(v4 ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0; /* (no such family here: the start says so) */
    rc = v4 ? bind(fd, (struct sockaddr *)&a4, sizeof a4)
            : bind(fd, (struct sockaddr *)&a6, sizeof a6);
    if (rc < 0 && errno == EADDRNOTAVAIL) {
        snprintf(err, errlen,
                 "key 'listen_address': %s is not an address of this "
                 "host (%s)",
                 addr, strerror(errno));
        close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

int preflight_host(const struct config *cfg, char *err, size_t errlen)
{
    if (web_root_ok(cfg->web_root, err, errlen) < 0 ||
        (!cfg->postgres[0] &&
         database_folder_ok(cfg->database, err, errlen) < 0) ||
        listen_address_ok(cfg->listen_address, err, errlen) < 0)
        return -1;
    return 0;
}

int preflight_redis(const struct config *cfg, bool *refused, char *err,
                    size_t errlen)
{
    struct clusterconf cc;
    char why[512], addrs[CONFIG_REDIS_MAX][CONFIG_REDIS_ADDR_MAX];
    int rc = 0, n = config_redis_split(cfg->redis, addrs, CONFIG_REDIS_MAX);

    *refused = true;
    if (n < 1) {
        snprintf(err, errlen, "key 'redis': not a list of addresses");
        return -1;
    }
    if (clusterconf_load(&cc, cfg, err, errlen) < 0)
        return -1;
    for (int i = 0; i < n && rc == 0; i++) { /* (each shard) */
        cc.redis.address = addrs[i];
        rc = redis_check(&cc.redis, PREFLIGHT_REDIS_MS, refused, why,
                         sizeof why);
        if (rc < 0)
            snprintf(err, errlen, "key 'redis': Redis at %.*s %s: %.300s",
                     100, addrs[i],
                     *refused ? "refused this node" : "does not answer", why);
    }
    clusterconf_clear(&cc);
    return rc;
}

void preflight_pg_options(const struct config *cfg,
                          struct store_pg_options *opt)
{
    *opt = (struct store_pg_options){
        .connect_timeout_s = cfg->postgres_connect_timeout_s,
        .statement_timeout_ms = cfg->postgres_statement_timeout_ms,
        .tcp_user_timeout_ms = cfg->postgres_tcp_user_timeout_ms,
        .keepalives_idle_s = cfg->postgres_keepalives_idle_s,
        .keepalives_interval_s = cfg->postgres_keepalives_interval_s,
        .keepalives_count = cfg->postgres_keepalives_count,
    };
}

int preflight_servers(const struct config *cfg, char *err, size_t errlen)
{
    struct store_pg_options po;
    bool refused;
    int rc;

    preflight_pg_options(cfg, &po);
    if (cfg->postgres[0] &&
        (rc = store_check_pg(cfg->postgres, &po, err, errlen)) != 0)
        return rc == -2 ? -2 : -1;
    if (cfg->redis[0] && preflight_redis(cfg, &refused, err, errlen) != 0)
        return refused ? -2 : -1;
    return 0;
}
