/*
 * redisproc.h - a real redis-server for a test: started on a unix socket
 * in a temporary folder, without persistence (redis-test.conf, the
 * settings of fixture.py's Redis too), stopped (and restarted) by the
 * test. The program is $REDIS_SERVER (the meson tests set it), else
 * redis-server on PATH. The server gets PR_SET_PDEATHSIG: it dies with
 * the test process even when that one is killed.
 */
#ifndef TESTS_CLUSTER_REDISPROC_H
#define TESTS_CLUSTER_REDISPROC_H

#include <stdbool.h>
#include <sys/types.h>

/* The nodes' user of the shipped ACL (deploy/redis-chess.acl). */
#define REDISPROC_USER "chess"

/* How a server is started (redisproc_start_with). */
struct redisproc_opts {
    const char *password; /* requirepass, or NULL */
    bool tcp;             /* also on a free loopback TCP port */
    /* The shipped ACL with this password for REDISPROC_USER (and the
     * default user kept for the test's own tools), or NULL: none. */
    const char *acl_password;
    /* The TCP port speaks TLS only (tcp implied), with tls_dir's
     * redis.crt, redis.key and ca.crt; clients must show a certificate
     * of that CA when tls_clients. NULL: plain. */
    const char *tls_dir;
    bool tls_clients;
    /* A Redis Cluster of this one server (cluster-enabled, every slot
     * its own): a script that reads or writes keys of two hash slots is
     * refused, as a real Redis Cluster would refuse it (the nodes'
     * scripts each keep to one: docs/cluster.md, "Shards"). */
    bool cluster;
};

struct redisproc {
    pid_t pid;         /* 0 when not running */
    char dir[64];      /* the temporary folder */
    char socket[128];  /* dir/redis.sock (plain, whatever opts say) */
    char password[32]; /* requirepass, or "" */
    int port;          /* also on 127.0.0.1:port, or 0 */
    char tls_dir[160]; /* opts.tls_dir, or "" */
    bool tls_clients;
    bool acl;         /* dir/users.acl */
    bool cluster;     /* opts.cluster */
    int cluster_port; /* ... its cluster bus's loopback port */
};

/* Creates the folder and starts the server (with requirepass when
 * password is not NULL; also on a free loopback TCP port when tcp),
 * waiting until it answers PING. Returns 0, or -1 with a message on
 * stderr (nothing left running). */
int redisproc_start(struct redisproc *p, const char *password, bool tcp);

/* The same with every option. */
int redisproc_start_with(struct redisproc *p, const struct redisproc_opts *o);

/* Stops the server: SIGTERM (or SIGKILL when kill9) and waits for it.
 * The folder and socket path stay for redisproc_restart. */
void redisproc_stop(struct redisproc *p, bool kill9);

/* Starts the server again on the same socket (after redisproc_stop).
 * Returns 0 or -1 as redisproc_start. */
int redisproc_restart(struct redisproc *p);

/* Stops the server if it runs and removes the folder. */
void redisproc_cleanup(struct redisproc *p);

#endif
