/*
 * notify.h - systemd's notify protocol (sd_notify(3)), spoken directly:
 * one datagram per message on the unix socket $NOTIFY_SOCKET names (a
 * path, or an abstract socket when it begins with '@'). READY=1 when the
 * node is first ready, STOPPING=1 at the stop, STATUS= lines, and
 * WATCHDOG=1 while the loop turns ($WATCHDOG_USEC). No libsystemd.
 *
 * notify_open and notify_close run on the main thread; notify_send is
 * async-signal-safe (a signal handler sends STOPPING=1).
 */
#ifndef SERVER_APP_NOTIFY_H
#define SERVER_APP_NOTIFY_H

#include <stddef.h>
#include <stdint.h>

/* Opens the socket $NOTIFY_SOCKET names. 1 when it did, 0 when the
 * variable is unset (not under systemd: every send does nothing), -1
 * with a sentence in err when it names no usable socket. */
int notify_open(char *err, size_t errlen);

/* Sends msg ("READY=1", "STATUS=...", several lines at once) as one
 * datagram; nothing when not open. Async-signal-safe. */
void notify_send(const char *msg);

/* How often systemd wants WATCHDOG=1 ($WATCHDOG_USEC, for this process
 * when $WATCHDOG_PID says so), in ms; 0: no watchdog. */
int64_t notify_watchdog_ms(void);

void notify_close(void);

#endif
