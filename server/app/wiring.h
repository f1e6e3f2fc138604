/*
 * wiring.h - the one place where the hub meets the network (app/).
 */
#ifndef SERVER_APP_WIRING_H
#define SERVER_APP_WIRING_H

struct engine_pool;
struct hub;
struct hub_config;
struct store;

/* A hub over net.h (store and engines not owned: they outlive the hub;
 * engines NULL: no computer games), and net attached to it. NULL when
 * out of memory. Loop thread, after net_start. */
struct hub *wiring_start_hub(struct store *st, struct engine_pool *engines,
                             const struct hub_config *hc);

#endif
