/*
 * bus.c - the bus's script names and the readers of its results (see
 * bus.h).
 */
#include "cluster/bus.h"

#include <stdint.h>
#include <stdlib.h>

static const char *const names[BUS_SCRIPTS] = {
    [BUS_NODE_UP] = "node_up",
    [BUS_NODE_RENEW] = "node_renew",
    [BUS_GAME_TAKE] = "game_take",
    [BUS_GAME_HANDOVER] = "game_handover",
    [BUS_GAME_RELEASE] = "game_release",
    [BUS_NODES_DEAD] = "nodes_dead",
    [BUS_LOBBY_SNAPSHOT] = "lobby_snapshot",
    [BUS_GAME_CARD] = "game_card",
    [BUS_SEEK_PLACE] = "seek_place",
    [BUS_SEEK_CANCEL] = "seek_cancel",
    [BUS_NODE_ALIVE] = "node_alive",
    [BUS_NODES] = "nodes",
    [BUS_GAMES_TOP] = "games_top",
    [BUS_GAME_UNCARD] = "game_uncard",
    [BUS_SEEK_READ] = "seek_read",
    [BUS_NODE_GAMES] = "node_games",
    [BUS_NODE_FORGET] = "node_forget",
    [BUS_SHARD_MARK] = "shard_mark",
    [BUS_ANALYSIS_QUEUE] = "analysis_queue",
    [BUS_CHALLENGE] = "challenge",
    [BUS_EVENT_LEASE] = "event_lease",
    [BUS_EVENT_COUNT] = "event_count",
};

const char *bus_script_name(enum bus_script s)
{
    return (unsigned)s < BUS_SCRIPTS ? names[s] : "";
}

int bus_shard(const struct bus *b, const char *key)
{
    uint32_t h = 2166136261u;

    if (b->shards <= 1)
        return 0;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 16777619u;
    return (int)(h % (uint32_t)b->shards);
}

bool bus_is(const struct bus_value *v, enum bus_type t)
{
    return v && v->type == t;
}

const struct bus_value *bus_at(const struct bus_value *v, size_t i)
{
    return bus_is(v, BUS_ARRAY) && i < v->n ? &v->v[i] : NULL;
}

long long bus_int(const struct bus_value *v, long long def)
{
    char *end;
    long long n;

    if (bus_is(v, BUS_INT))
        return v->integer;
    if (!bus_is(v, BUS_STR) || !v->len)
        return def;
    n = strtoll(v->str, &end, 10);
    return *end ? def : n;
}

const char *bus_str(const struct bus_value *v, const char *def)
{
    return bus_is(v, BUS_STR) ? v->str : def;
}
