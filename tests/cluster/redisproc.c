/*
 * redisproc.c - a real redis-server for a test (see redisproc.h).
 */
#include "redisproc.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* True when the server answers PING (authenticated when it has one). */
static bool answers(const struct redisproc *p)
{
    redisContext *c = redisConnectUnix(p->socket);
    bool ok = false;

    if (c && !c->err) {
        redisReply *r = p->password[0]
                            ? redisCommand(c, "AUTH %s", p->password)
                            : NULL;
        freeReplyObject(r);
        r = redisCommand(c, "PING");
        ok = r && r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "PONG");
        freeReplyObject(r);
    }
    redisFree(c);
    return ok;
}

/* A Redis Cluster of one server: every slot assigned to it, then
 * waits until the cluster says ok. 0, or -1. */
static int cluster_up(struct redisproc *p)
{
    redisContext *c = redisConnectUnix(p->socket);
    redisReply *r;
    int ok = -1;

    if (!c || c->err) {
        redisFree(c);
        return -1;
    }
    r = redisCommand(c, "CLUSTER ADDSLOTSRANGE 0 16383");
    if (r && r->type == REDIS_REPLY_STATUS)
        for (int i = 0; i < 500 && ok < 0; i++) { /* 5 s */
            freeReplyObject(r);
            r = redisCommand(c, "CLUSTER INFO");
            if (r && r->type == REDIS_REPLY_STRING &&
                strstr(r->str, "cluster_state:ok"))
                ok = 0;
            else
                sleep_ms(10);
        }
    freeReplyObject(r);
    redisFree(c);
    if (ok < 0)
        fprintf(stderr, "redisproc: the cluster of one is not ok\n");
    return ok;
}

/* A loopback TCP port free now (the kernel's choice), or 0. */
static int free_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = 0;

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

static int spawn(struct redisproc *p)
{
    char port[16], log[96], acl[96], cert[192], key[192], ca[192], nodes[96],
        bus[16];
    const char *prog = getenv("REDIS_SERVER");
    pid_t parent = getpid();

    if (!prog || !*prog)
        prog = "redis-server";
    snprintf(log, sizeof log, "%s/redis.log", p->dir);
    snprintf(acl, sizeof acl, "%s/users.acl", p->dir);
    snprintf(port, sizeof port, "%d", p->port);
    snprintf(cert, sizeof cert, "%s/redis.crt", p->tls_dir);
    snprintf(key, sizeof key, "%s/redis.key", p->tls_dir);
    snprintf(ca, sizeof ca, "%s/ca.crt", p->tls_dir);
    snprintf(nodes, sizeof nodes, "%s/nodes.conf", p->dir);
    snprintf(bus, sizeof bus, "%d", p->cluster_port);
    unlink(nodes); /* (a restart is a new cluster of one) */
    p->pid = fork();
    if (p->pid < 0) {
        perror("fork");
        p->pid = 0;
        return -1;
    }
    if (p->pid == 0) {
        const char *argv[40];
        int n = 0;
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        argv[n++] = prog;
        argv[n++] = REDIS_TEST_CONF; /* the settings every test's has */
        if (p->port) {
            argv[n++] = p->tls_dir[0] ? "--tls-port" : "--port";
            argv[n++] = port;
        }
        argv[n++] = "--unixsocket";
        argv[n++] = p->socket;
        argv[n++] = "--dir";
        argv[n++] = p->dir;
        argv[n++] = "--logfile";
        argv[n++] = log;
        if (p->password[0]) {
            argv[n++] = "--requirepass";
            argv[n++] = p->password;
        }
        if (p->acl) {
            argv[n++] = "--aclfile";
            argv[n++] = acl;
        }
        if (p->tls_dir[0]) {
            argv[n++] = "--tls-cert-file";
            argv[n++] = cert;
            argv[n++] = "--tls-key-file";
            argv[n++] = key;
            argv[n++] = "--tls-ca-cert-file";
            argv[n++] = ca;
            argv[n++] = "--tls-auth-clients";
            argv[n++] = p->tls_clients ? "yes" : "no";
        }
        if (p->cluster) {
            argv[n++] = "--cluster-enabled";
            argv[n++] = "yes";
            argv[n++] = "--cluster-config-file";
            argv[n++] = nodes;
            argv[n++] = "--cluster-port"; /* (its own: tests run at once) */
            argv[n++] = bus;
        }
        argv[n] = NULL;
        execvp(prog, (char *const *)argv);
        fprintf(stderr, "redisproc: cannot run %s: %s\n", prog,
                strerror(errno));
        _exit(127);
    }
    for (int i = 0; i < 1000; i++) { /* 10 s */
        int status;
        if (waitpid(p->pid, &status, WNOHANG) == p->pid) {
            fprintf(stderr, "redisproc: redis-server exited (see %s)\n", log);
            p->pid = 0;
            return -1;
        }
        if (answers(p))
            return p->cluster ? cluster_up(p) : 0;
        sleep_ms(10);
    }
    fprintf(stderr, "redisproc: redis-server does not answer on %s\n",
            p->socket);
    redisproc_stop(p, true);
    return -1;
}

/* dir/users.acl: the shipped ACL (REDIS_ACL) with the SHA-256 of
 * password for REDISPROC_USER, and the default user on, without a
 * password, for the test's own connections. 0, or -1. */
static int write_acl(const struct redisproc *p, const char *password)
{
    static const char placeholder[] = "#CHESS_PASSWORD_SHA256";
    char line[4096], path[96], hex[65], *at;
    unsigned char md[32];
    unsigned int mdlen = 0;
    FILE *in = fopen(REDIS_ACL, "r"), *out;

    snprintf(path, sizeof path, "%s/users.acl", p->dir);
    out = fopen(path, "w");
    if (!in || !out ||
        !EVP_Digest(password, strlen(password), md, &mdlen, EVP_sha256(),
                    NULL)) {
        fprintf(stderr, "redisproc: cannot write %s from %s\n", path,
                REDIS_ACL);
        if (in)
            fclose(in);
        if (out)
            fclose(out);
        return -1;
    }
    for (unsigned i = 0; i < mdlen; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    while (fgets(line, sizeof line, in)) {
        if (!strncmp(line, "user default ", 13))
            fputs("user default on nopass ~* &* +@all\n", out);
        else if ((at = strstr(line, placeholder)))
            fprintf(out, "%.*s#%s%s", (int)(at - line), line, hex,
                    at + sizeof placeholder - 1);
        else
            fputs(line, out);
    }
    fclose(in);
    return fclose(out) == 0 ? 0 : -1;
}

int redisproc_start_with(struct redisproc *p, const struct redisproc_opts *o)
{
    memset(p, 0, sizeof *p);
    snprintf(p->dir, sizeof p->dir, "/tmp/chess_redis_XXXXXX");
    if (!mkdtemp(p->dir)) {
        perror("mkdtemp");
        return -1;
    }
    snprintf(p->socket, sizeof p->socket, "%s/redis.sock", p->dir);
    if (o->password)
        snprintf(p->password, sizeof p->password, "%s", o->password);
    if (o->tls_dir)
        snprintf(p->tls_dir, sizeof p->tls_dir, "%s", o->tls_dir);
    p->tls_clients = o->tls_clients;
    p->cluster = o->cluster;
    if (o->cluster && !(p->cluster_port = free_port())) {
        fprintf(stderr, "redisproc: no free port\n");
        redisproc_cleanup(p);
        return -1;
    }
    if ((o->tcp || o->tls_dir) && !(p->port = free_port())) {
        fprintf(stderr, "redisproc: no free port\n");
        redisproc_cleanup(p);
        return -1;
    }
    if (o->acl_password) {
        p->acl = true;
        if (write_acl(p, o->acl_password) != 0) {
            redisproc_cleanup(p);
            return -1;
        }
    }
    if (spawn(p) != 0) {
        redisproc_cleanup(p);
        return -1;
    }
    return 0;
}

int redisproc_start(struct redisproc *p, const char *password, bool tcp)
{
    struct redisproc_opts o = {.password = password, .tcp = tcp};

    return redisproc_start_with(p, &o);
}

void redisproc_stop(struct redisproc *p, bool kill9)
{
    int status;

    if (!p->pid)
        return;
    kill(p->pid, kill9 ? SIGKILL : SIGTERM);
    while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
        ;
    p->pid = 0;
    unlink(p->socket); /* a SIGKILLed server leaves it */
}

int redisproc_restart(struct redisproc *p)
{
    return p->pid ? 0 : spawn(p);
}

void redisproc_cleanup(struct redisproc *p)
{
    char path[160];

    redisproc_stop(p, false);
    if (!p->dir[0])
        return;
    unlink(p->socket);
    snprintf(path, sizeof path, "%s/redis.log", p->dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/users.acl", p->dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/nodes.conf", p->dir);
    unlink(path);
    rmdir(p->dir);
    p->dir[0] = '\0';
}
