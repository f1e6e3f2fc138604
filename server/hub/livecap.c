/*
 * livecap.c - the caps on live games (PROTOCOL.md section 5, "Live games
 * per address"): max_live_games in all on this node, and
 * max_games_per_ip started games per address. A started game counts
 * against each distinct address of its two players (a player's address:
 * that of its latest connection here), from its start to its end; its
 * host record (struct game_host) names the addresses it is counted in.
 * A game restored at a restart counts in all at once, and against a
 * player's address when the player comes back (the store keeps no
 * address). Only the event-loop thread calls these functions.
 */
#include "hub/hub_internal.h"

#include <stdio.h>
#include <string.h>

#include "lib/log.h"

/* The address record of p (NULL: none known, or out of memory). */
static struct addr *player_addr(struct hub *h, const struct player *p)
{
    return p && p->ip[0] ? hub_addr_get(h, p->ip) : NULL;
}

/* True when a (if any) holds max_games_per_ip started games: s was
 * answered address_full then, yours saying whose address it is. */
static bool addr_full(struct session *s, const struct addr *a, bool yours,
                      const struct proto_id *id)
{
    char msg[128];

    if (!a || a->games < s->hub->cfg.max_games_per_ip)
        return false;
    snprintf(msg, sizeof msg,
             "%s address holds %d live games: the most there may be",
             yours ? "your" : "your opponent's",
             s->hub->cfg.max_games_per_ip);
    hub_send_error(s, PROTO_ADDRESS_FULL, msg, id);
    return true;
}

bool hub_games_refused(struct session *s, const char *other, bool fresh,
                       const struct proto_id *id)
{
    struct hub *h = s->hub;
    struct addr *mine = player_addr(h, s->player), *theirs;
    struct player *o = other && other[0] ? table_get(&h->players, other)
                                         : NULL;

    if (hub_playban_refused(s, id))
        return true;
    if (fresh && h->nlive >= (size_t)h->cfg.max_live_games) {
        log_warn("event=live_games_full live=%zu", h->nlive);
        hub_send_error(s, PROTO_SERVER_FULL,
                       "the server holds as many live games as it may; "
                       "try again later",
                       id);
        return true;
    }
    if (addr_full(s, mine, true, id))
        return true;
    theirs = player_addr(h, o);
    return theirs != mine && addr_full(s, theirs, false, id);
}

/* Counts g against the address of its seat c's player, unless it is
 * counted there already (the other seat's address) or none is known. */
static void charge_seat(struct hub *h, struct game_host *gh, int c)
{
    struct player *p = table_get(&h->players, game_seat_pid(gh->game, c));
    struct addr *a;

    if (gh->addr_of[c][0] || !(a = player_addr(h, p)))
        return;
    snprintf(gh->addr_of[c], sizeof gh->addr_of[c], "%s", a->ip);
    if (!strcmp(gh->addr_of[c], gh->addr_of[1 - c]))
        return; /* (one address, one count: addr_charged[c] stays false) */
    gh->addr_charged[c] = true;
    a->games++;
}

void hub_games_charge(struct hub *h, struct game *g)
{
    struct game_host *gh = game_user(g);

    if (!gh || game_status(g) != GAME_STARTED)
        return;
    for (int c = 0; c < 2; c++)
        charge_seat(h, gh, c);
}

int hub_games_live(struct hub *h, struct game *g)
{
    struct game_host *gh = hub_host_get(h, g);

    if (!gh)
        return -1;
    if (!gh->live) {
        gh->live = true;
        h->nlive++;
    }
    return 0;
}

void hub_games_release(struct hub *h, struct game *g)
{
    struct game_host *gh = game_user(g);

    if (!gh)
        return;
    for (int c = 0; c < 2; c++) {
        struct addr *a = gh->addr_charged[c]
                             ? table_get(&h->addrs, gh->addr_of[c])
                             : NULL;
        if (a && a->games > 0)
            a->games--;
        gh->addr_charged[c] = false;
        gh->addr_of[c][0] = '\0';
    }
    if (gh->live) {
        gh->live = false;
        h->nlive--;
    }
}
