/*
 * status.h - the process's status pages: /healthz (200 when the loop,
 * the database and its writer are well, else 503) and /metrics (the
 * Prometheus text of the whole process: the hub's counters, the
 * network's, the store's and the process's own). Every label takes
 * values from a fixed set (routes, status codes, close codes), so no
 * request can grow the number of series. Runs on the event-loop thread.
 */
#ifndef SERVER_APP_STATUS_H
#define SERVER_APP_STATUS_H

#include <stdbool.h>
#include <stdint.h>

#include "hub/http.h"

struct hub;
struct redis;

/* The Redis connection of a cluster's node, whose counters /metrics
 * shows (NULL: none, a node alone). It must outlive the status pages'
 * use: set it back to NULL before redis_free. */
void status_set_redis(const struct redis *r);

/* Answers GET path when it is a status page (true: *r filled), else
 * leaves it to the HTTP API (false). */
bool status_handle(struct hub *h, const char *path, int64_t now,
                   struct http_reply *r);

#endif
