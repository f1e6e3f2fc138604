/*
 * clusterconf.h - a cluster node's settings for Redis as redis.h's
 * struct redis_config: the address, the user, TLS, and the secrets read
 * from their files (redis_password_file, cluster_key_file). A secret
 * file holds one line (its final newline is not part of the secret); a
 * file others may read is used, with a warning.
 *
 * Main thread, before the loop runs; the secrets are wiped by
 * clusterconf_clear.
 */
#ifndef SERVER_APP_CLUSTERCONF_H
#define SERVER_APP_CLUSTERCONF_H

#include <stddef.h>

#include "app/config.h"
#include "cluster/redis.h"

/* The longest secret a file may hold. */
#define CLUSTERCONF_SECRET_MAX 1024

struct clusterconf {
    struct redis_config redis; /* points into this struct and the config */
    struct stream_tls_config tls;
    char password[CLUSTERCONF_SECRET_MAX + 1];
    char key[CLUSTERCONF_SECRET_MAX + 1];
};

/* Fills out from cfg (config_validate passed, redis set; cfg outlives
 * out). 0, or -1 with a sentence naming the key in err (a file that
 * cannot be read, is empty, too long, of several lines, or a key
 * shorter than CONFIG_CLUSTER_KEY_MIN). */
int clusterconf_load(struct clusterconf *out, const struct config *cfg,
                     char *err, size_t errlen);

/* Wipes the secrets. */
void clusterconf_clear(struct clusterconf *c);

#endif
