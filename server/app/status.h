/*
 * status.h - the process's status pages: /healthz (200 when the loop,
 * the database and its writer are well, else 503), /readyz (200 when
 * the node should be sent new clients, ready.h) and /metrics (the
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

/* Answers GET path when it is a status page (true: *r filled), else
 * leaves it to the HTTP API (false). */
bool status_handle(struct hub *h, const char *path, int64_t now,
                   struct http_reply *r);

/* /readyz: 200 {"status":"ready"} when why is NULL, else 503
 * {"status":"not_ready","why":WHY} (app/ready.h's reasons). */
void status_readyz(const char *why, struct http_reply *r);

#endif
