/* netstats.c - see netstats.h. */
#include "lib/netstats.h"

/* The close codes counted one by one (RFC 6455 7.4.1); the rest are
 * "other". */
const int netstats_close_codes[NETSTATS_CLOSE_CODES - 1] = {
    1000, 1001, 1002, 1003, 1005, 1006, 1007, 1008, 1009, 1011,
};

const int netstats_http_statuses[NETSTATS_HTTP_STATUSES - 1] = {
    200, 301, 304, 400, 403, 404, 429, 500, 503,
};

const char *const netstats_routes[NETSTATS_ROUTES] = {
    "api_game", "pgn",    "player_games", "player",   "leaderboard", "static",
    "healthz",  "readyz", "metrics",      "redirect", "other",
};

void netstats_ws_close(struct net_stats *s, int code)
{
    int i = 0;

    while (i < NETSTATS_CLOSE_CODES - 1 && netstats_close_codes[i] != code)
        i++;
    s->ws_closes[i]++;
}

void netstats_http(struct net_stats *s, enum netstats_route route, int status)
{
    int i = 0;

    if ((unsigned)route >= NETSTATS_ROUTES)
        route = NETSTATS_ROUTE_OTHER;
    while (i < NETSTATS_HTTP_STATUSES - 1 &&
           netstats_http_statuses[i] != status)
        i++;
    s->http[route][i]++;
}
