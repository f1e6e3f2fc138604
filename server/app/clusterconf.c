/*
 * clusterconf.c - a cluster node's Redis settings and secrets (see
 * clusterconf.h).
 */
#include "app/clusterconf.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/errtext.h"
#include "lib/log.h"

/* The secret in path into out (room CLUSTERCONF_SECRET_MAX + 1, NUL
 * ended); its length, or -1 with a sentence in err. */
static int read_secret(const char *key, const char *path, char *out,
                       char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    ssize_t n = 0, got;
    char q[300];

    if (fd < 0 || fstat(fd, &st) < 0) {
        errtext_set(err, errlen, "key '%s': cannot read %s: %s", key, path,
                    strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    while ((got = read(fd, out + n,
                       (size_t)(CLUSTERCONF_SECRET_MAX + 1 - n))) > 0)
        n += got;
    close(fd);
    if (got < 0 || n > CLUSTERCONF_SECRET_MAX) {
        OPENSSL_cleanse(out, CLUSTERCONF_SECRET_MAX + 1);
        errtext_set(err, errlen, "key '%s': %s: %s", key, path,
                    got < 0 ? strerror(errno) : "longer than 1024 bytes");
        return -1;
    }
    if (n && out[n - 1] == '\n')
        n--;
    if (n && out[n - 1] == '\r')
        n--;
    out[n] = '\0';
    if (!n || memchr(out, '\n', (size_t)n) || strlen(out) != (size_t)n) {
        OPENSSL_cleanse(out, CLUSTERCONF_SECRET_MAX + 1);
        errtext_set(err, errlen,
                    "key '%s': %s must hold one line (the secret)", key,
                    path);
        return -1;
    }
    if (st.st_mode & 077)
        log_warn("event=secret_file_readable key=%s path=%s mode=%04o "
                 "hint=\"chmod 600 it: others on this host may read it\"",
                 key, log_quote(q, sizeof q, path),
                 (unsigned)(st.st_mode & 07777));
    return (int)n;
}

int clusterconf_load(struct clusterconf *out, const struct config *cfg,
                     char *err, size_t errlen)
{
    int n;

    memset(out, 0, sizeof *out);
    out->redis.address = cfg->redis;
    if (cfg->redis_user[0])
        out->redis.user = cfg->redis_user;
    if (cfg->redis_password_file[0]) {
        if (read_secret("redis_password_file", cfg->redis_password_file,
                        out->password, err, errlen) < 0)
            return -1;
        out->redis.password = out->password;
    }
    if (cfg->redis_tls_ca_file[0]) {
        out->tls.ca_file = cfg->redis_tls_ca_file;
        if (cfg->redis_tls_cert_file[0]) {
            out->tls.cert_file = cfg->redis_tls_cert_file;
            out->tls.key_file = cfg->redis_tls_key_file;
        }
        if (cfg->redis_tls_server_name[0])
            out->tls.server_name = cfg->redis_tls_server_name;
        out->redis.tls = &out->tls;
    }
    n = read_secret("cluster_key_file", cfg->cluster_key_file, out->key, err,
                    errlen);
    if (n < 0) {
        clusterconf_clear(out);
        return -1;
    }
    if (n < CONFIG_CLUSTER_KEY_MIN) {
        errtext_set(err, errlen,
                    "key 'cluster_key_file': %s holds %d bytes: a key has "
                    "at least %d (openssl rand -hex 32 > FILE)",
                    cfg->cluster_key_file, n, CONFIG_CLUSTER_KEY_MIN);
        clusterconf_clear(out);
        return -1;
    }
    out->redis.key = out->key;
    out->redis.key_len = (size_t)n;
    return 0;
}

void clusterconf_clear(struct clusterconf *c)
{
    OPENSSL_cleanse(c->password, sizeof c->password);
    OPENSSL_cleanse(c->key, sizeof c->key);
}
