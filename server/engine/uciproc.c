/*
 * uciproc.c - a UCI engine as a child process (see uciproc.h).
 */
#include "engine/uciproc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sysclock.h"

int64_t uciproc_now_ms(void)
{
    return sysclock_ms(CLOCK_MONOTONIC);
}

void uciproc_block_sigpipe(void)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

void uciproc_init(struct uciproc *p)
{
    memset(p, 0, sizeof *p);
    p->to_fd = p->from_fd = -1;
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void child(const char *path, int in_fd, int out_fd, pid_t parent)
{
    struct sigaction dfl;
    sigset_t none;
    int null_fd;

    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
        _exit(127); /* (the server died before the prctl) */
    null_fd = open("/dev/null", O_RDWR);
    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 ||
        (null_fd >= 0 && dup2(null_fd, 2) < 0))
        _exit(127);
    /* none of the server's descriptors (its sockets, its database) */
    if (syscall(SYS_close_range, 3U, ~0U, 0) < 0)
        for (int fd = 3; fd < 65536; fd++)
            close(fd);
    setpriority(PRIO_PROCESS, 0, UCIPROC_NICE);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGPIPE, &dfl, NULL);
    execl(path, path, (char *)NULL);
    _exit(127);
}

int uciproc_spawn(struct uciproc *p, const char *path)
{
    int in[2], out[2], e;
    pid_t parent = getpid(), pid;

    uciproc_init(p);
    if (pipe2(in, O_CLOEXEC) < 0)
        return -1;
    if (pipe2(out, O_CLOEXEC) < 0) {
        e = errno;
        close(in[0]);
        close(in[1]);
        errno = e;
        return -1;
    }
    pid = fork();
    if (pid == 0)
        child(path, in[0], out[1], parent);
    e = errno;
    close(in[0]);
    close(out[1]);
    if (pid < 0) {
        close(in[1]);
        close(out[0]);
        errno = e;
        return -1;
    }
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    p->pid = pid;
    p->to_fd = in[1];
    p->from_fd = out[0];
    return 0;
}

/* Waits for fd to be ready for events until the deadline: 1 ready (or
 * hung up: the read or write says which), 0 timed out. */
static int wait_fd(int fd, short events, int64_t deadline_ms)
{
    struct pollfd pfd = {fd, events, 0};

    for (;;) {
        int64_t left = deadline_ms - uciproc_now_ms();
        int rc;
        if (left <= 0)
            return 0;
        rc = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
        if (rc > 0)
            return 1;
        if (rc < 0 && errno != EINTR)
            return 1; /* (the read or write then fails too) */
    }
}

/* Writes the n bytes at s before the deadline: 0, or -1. */
static int write_all(struct uciproc *p, const char *s, size_t n,
                     int64_t deadline_ms)
{
    size_t off = 0;

    while (off < n) {
        ssize_t w = write(p->to_fd, s + off, n - off);
        if (w > 0) {
            off += (size_t)w;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && errno == EAGAIN) {
            if (!wait_fd(p->to_fd, POLLOUT, deadline_ms))
                return -1; /* it does not read */
        } else {
            return -1; /* EPIPE: it died */
        }
    }
    return 0;
}

int uciproc_send(struct uciproc *p, const char *line, int64_t deadline_ms)
{
    if (p->pid <= 0)
        return -1;
    return write_all(p, line, strlen(line), deadline_ms) < 0 ||
                   write_all(p, "\n", 1, deadline_ms) < 0
               ? -1
               : 0;
}

/* A line's bytes are text: no NUL, no control byte but a tab (and the
 * '\r' of a CRLF, which the parser drops). */
static bool text_line(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 32 && c != '\t' && !(c == '\r' && i == n - 1)) || c == 127)
            return false;
    }
    return true;
}

enum uciproc_read uciproc_read(struct uciproc *p, const char **line,
                               int64_t deadline_ms)
{
    if (p->consumed) { /* the line handed out last goes */
        memmove(p->buf, p->buf + p->consumed, p->len - p->consumed);
        p->len -= p->consumed;
        p->consumed = 0;
    }
    for (;;) {
        char *nl = memchr(p->buf, '\n', p->len);
        ssize_t r;
        if (nl) {
            size_t n = (size_t)(nl - p->buf);
            *nl = '\0';
            p->consumed = n + 1;
            if (!text_line(p->buf, n))
                return UCIPROC_GARBAGE;
            *line = p->buf;
            return UCIPROC_LINE;
        }
        if (p->len >= UCIPROC_LINE_MAX)
            return UCIPROC_GARBAGE;
        if (p->pid <= 0)
            return UCIPROC_EOF;
        r = read(p->from_fd, p->buf + p->len, UCIPROC_LINE_MAX - p->len);
        if (r > 0) {
            p->len += (size_t)r;
        } else if (r == 0) {
            return UCIPROC_EOF;
        } else if (errno == EAGAIN) {
            if (!wait_fd(p->from_fd, POLLIN, deadline_ms))
                return UCIPROC_TIMEOUT;
        } else if (errno != EINTR) {
            return UCIPROC_EOF;
        }
    }
}

void uciproc_kill(struct uciproc *p, int64_t quit_ms)
{
    int64_t until = uciproc_now_ms() + quit_ms;
    bool reaped = false;
    int st;

    if (p->pid <= 0)
        return;
    if (quit_ms > 0)
        uciproc_send(p, "quit", until);
    close(p->to_fd); /* (end of input: quit, too) */
    while (!reaped) {
        pid_t r = waitpid(p->pid, &st, WNOHANG);
        if (r == p->pid || (r < 0 && errno == ECHILD))
            reaped = true;
        else if (uciproc_now_ms() >= until)
            break;
        else
            nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
    }
    if (!reaped) {
        kill(p->pid, SIGKILL);
        while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    close(p->from_fd);
    uciproc_init(p);
}
