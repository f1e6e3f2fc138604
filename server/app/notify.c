/*
 * notify.c - sd_notify(3)'s protocol over $NOTIFY_SOCKET (notify.h).
 */
#include "app/notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int fd = -1;
static struct sockaddr_un addr;
static socklen_t addr_len;

int notify_open(char *err, size_t errlen)
{
    const char *name = getenv("NOTIFY_SOCKET");
    size_t n;

    notify_close();
    if (!name || !*name)
        return 0;
    n = strlen(name);
    if ((name[0] != '/' && name[0] != '@') || n >= sizeof addr.sun_path) {
        snprintf(err, errlen,
                 "NOTIFY_SOCKET=%s: not a socket path or an abstract "
                 "socket (@NAME) of at most %zu bytes",
                 name, sizeof addr.sun_path - 1);
        return -1;
    }
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path, name, n);
    if (name[0] == '@') /* abstract: a NUL first, no NUL after */
        addr.sun_path[0] = '\0';
    addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n +
                           (name[0] == '@' ? 0 : 1));
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        snprintf(err, errlen, "NOTIFY_SOCKET: socket: %s", strerror(errno));
        return -1;
    }
    return 1;
}

void notify_send(const char *msg)
{
    int saved = errno; /* (a signal handler's caller keeps its errno) */

    if (fd >= 0)
        (void)sendto(fd, msg, strlen(msg), MSG_NOSIGNAL,
                     (const struct sockaddr *)&addr, addr_len);
    errno = saved;
}

int64_t notify_watchdog_ms(void)
{
    const char *usec = getenv("WATCHDOG_USEC");
    const char *pid = getenv("WATCHDOG_PID");
    char *end;
    long long us;

    if (!usec || !*usec)
        return 0;
    if (pid && *pid && strtoll(pid, NULL, 10) != (long long)getpid())
        return 0; /* (meant for another process) */
    errno = 0;
    us = strtoll(usec, &end, 10);
    if (errno || *end || us <= 0)
        return 0;
    return us / 1000 > 0 ? us / 1000 : 1;
}

void notify_close(void)
{
    if (fd >= 0)
        close(fd);
    fd = -1;
}
