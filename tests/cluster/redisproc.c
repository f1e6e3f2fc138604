/*
 * redisproc.c - a real redis-server for a test (see redisproc.h).
 */
#include "redisproc.h"

#include <errno.h>
#include <hiredis/hiredis.h>
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
    char port[16];

    const char *prog = getenv("REDIS_SERVER");
    char log[96];
    pid_t parent = getpid();

    if (!prog || !*prog)
        prog = "redis-server";
    snprintf(log, sizeof log, "%s/redis.log", p->dir);
    p->pid = fork();
    if (p->pid < 0) {
        perror("fork");
        p->pid = 0;
        return -1;
    }
    if (p->pid == 0) {
        const char *argv[32];
        int n = 0;
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        argv[n++] = prog;
        argv[n++] = REDIS_TEST_CONF; /* the settings every test's has */
        if (p->port) {
            snprintf(port, sizeof port, "%d", p->port);
            argv[n++] = "--port";
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
            return 0;
        sleep_ms(10);
    }
    fprintf(stderr, "redisproc: redis-server does not answer on %s\n",
            p->socket);
    redisproc_stop(p, true);
    return -1;
}

int redisproc_start(struct redisproc *p, const char *password, bool tcp)
{
    memset(p, 0, sizeof *p);
    snprintf(p->dir, sizeof p->dir, "/tmp/chess_redis_XXXXXX");
    if (!mkdtemp(p->dir)) {
        perror("mkdtemp");
        return -1;
    }
    snprintf(p->socket, sizeof p->socket, "%s/redis.sock", p->dir);
    if (password)
        snprintf(p->password, sizeof p->password, "%s", password);
    if (tcp && !(p->port = free_port())) {
        fprintf(stderr, "redisproc: no free port\n");
        redisproc_cleanup(p);
        return -1;
    }
    if (spawn(p) != 0) {
        redisproc_cleanup(p);
        return -1;
    }
    return 0;
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
    rmdir(p->dir);
    p->dir[0] = '\0';
}
