/*
 * playban_guest.c - the guests' playbans (PROTOCOL.md "Playban",
 * docs/operator.md `playban_guests`): the same rules, ladder and
 * refusals as an account's (playban.c), with the record kept by the
 * guest's player id (its token's: `token`) and, with `address`, by the
 * address key of each guest seat too (hub_addr_key: an IPv6 /64 is one
 * address), so that a fresh token from a banned address is refused as
 * well. An address's record judges and refuses guests only: an
 * account is judged and refused by its own record, wherever it plays
 * from.
 *
 * The records live in this node's memory only, in two tables of at
 * most LIMIT_GUESTBANS records each: a record moves to the back when it
 * changes, and a new one in a full table evicts the front (the record
 * changed least recently). A restart forgets them. In a cluster every
 * change goes to every other node at once (router.h's tell_all: Redis),
 * which keeps it in its tables too: a ban holds everywhere within the
 * publish's round trip, and a guest's games hosted on several nodes add
 * up. A game's host knows the address of a seat whose connection is
 * there (struct game_host's addr_of); a seat playing from another
 * node's connection is judged by token only.
 *
 * A new ban is told to the guests it holds for: the token's connections,
 * or every guest connected from the address (one pass over the players
 * here, once per ban given).
 *
 * What travels (tag PLAYBAN_TELL through told_all): "t PID\nRECORD" or
 * "a KEY\nRECORD", RECORD as playban_encode writes it. Only the
 * event-loop thread runs this file.
 */
#include "hub/hub_internal.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/lru.h"
#include "lib/table.h"
#include "lib/tunables.h"

/* One guest's or one address's record. */
struct guestban {
    char key[ADDRKEY_MAX]; /* a PID, or an address key */
    struct playban_record r;
    struct lru_node used; /* in its table's order, by last change */
};

/* A bounded table of records. */
struct bans {
    struct table by_key; /* key -> struct guestban */
    struct lru order;    /* least recently changed first */
    size_t n, max;
};

/* The module's state (playban.c's init makes it). */
struct guestbans {
    struct bans token, address;
};

_Static_assert(PROTO_KEY_MAX + 1 <= ADDRKEY_MAX, "a PID fits a key");

static struct guestbans *state(struct hub *h)
{
    return hub_module_state(h, &hub_playban_module);
}

static void bans_clear(struct bans *b)
{
    while (b->order.head) {
        struct guestban *e = lru_container(b->order.head, struct guestban,
                                           used);
        lru_remove(&b->order, &e->used);
        free(e);
    }
    table_clear(&b->by_key);
}

int hub_guestbans_init(struct hub *h)
{
    struct guestbans *g = calloc(1, sizeof *g);
    int max = h->cfg.playban_guests_max;

    if (!g)
        return -1;
    table_init(&g->token.by_key);
    table_init(&g->address.by_key);
    g->token.max = g->address.max = max > 0 ? (size_t)max : LIMIT_GUESTBANS;
    hub_module_set_state(h, &hub_playban_module, g);
    return 0;
}

void hub_guestbans_free(struct hub *h)
{
    struct guestbans *g = state(h);

    if (!g)
        return;
    bans_clear(&g->token);
    bans_clear(&g->address);
    free(g);
    hub_module_set_state(h, &hub_playban_module, NULL);
}

static const struct playban_record *get(const struct bans *b, const char *key)
{
    const struct guestban *e = key[0] ? table_get(&b->by_key, key) : NULL;

    return e ? &e->r : NULL;
}

/* r becomes key's record, the newest: 0, or -1 when out of memory. */
static int put(struct bans *b, const char *key,
               const struct playban_record *r)
{
    struct guestban *e = table_get(&b->by_key, key);

    if (e) {
        e->r = *r;
        lru_touch(&b->order, &e->used);
        return 0;
    }
    if (b->n >= b->max) { /* (the one changed least recently goes) */
        assert(b->order.head);
        e = lru_container(b->order.head, struct guestban, used);
        log_info("event=playban_guest_evicted key=%s", e->key);
        lru_remove(&b->order, &e->used);
        table_del(&b->by_key, e->key);
        b->n--;
        free(e);
    }
    if (!(e = calloc(1, sizeof *e)))
        return -1;
    snprintf(e->key, sizeof e->key, "%s", key);
    e->r = *r;
    if (table_put(&b->by_key, e->key, e) < 0) {
        free(e);
        return -1;
    }
    lru_push(&b->order, &e->used);
    b->n++;
    return 0;
}

/* The address key of seat c of g, whose player is p ("" when the host
 * knows none). */
static void seat_address(struct hub *h, struct game *g, int c,
                         const struct player *p, char key[ADDRKEY_MAX])
{
    const struct game_host *gh = game_user(g);

    key[0] = '\0';
    if (gh && gh->addr_of[c][0])
        snprintf(key, ADDRKEY_MAX, "%s", gh->addr_of[c]);
    else if (p->ip[0])
        hub_addr_key(h, p->ip, key);
}

/* Logs outcome o (PLAYBAN_NONE: none) and ban (mins, 0: none) of g
 * recorded under key (kind 't': a guest's PID, 'a': an address). */
static void log_change(char kind, const char *key, const struct game *g,
                       int o, int mins, int64_t until)
{
    const char *name = playban_outcome_name(o);

    if (kind == 't') {
        if (name)
            log_info("event=playban_outcome guest=%s game=%s outcome=%s", key,
                     game_gid(g), name);
        if (mins)
            log_info("event=playban guest=%s game=%s minutes=%d "
                     "until_ms=%" PRId64,
                     key, game_gid(g), mins, until);
        return;
    }
    if (name)
        log_info("event=playban_outcome address=%s game=%s outcome=%s", key,
                 game_gid(g), name);
    if (mins)
        log_info("event=playban address=%s game=%s minutes=%d "
                 "until_ms=%" PRId64,
                 key, game_gid(g), mins, until);
}

/* Records v's outcome for seat c in table b under key (kind 't' or 'a'
 * for the log and the other nodes): the ban's minutes (0: none). */
static int judge_key(struct hub *h, struct game *g,
                     const struct playban_game *v, int c, struct bans *b,
                     char kind, const char *key)
{
    const struct playban_record *old = get(b, key);
    struct playban_record r;
    char text[PLAYBAN_TEXT_MAX + ADDRKEY_MAX + 4];
    int o, mins, n;

    if (old)
        r = *old;
    else
        memset(&r, 0, sizeof r);
    if ((mins = hub_playban_note(&r, v, c, &o)) < 0)
        return 0;
    if (put(b, key, &r) < 0) {
        log_warn("event=playban_unrecorded key=%s game=%s", key, game_gid(g));
        return 0;
    }
    log_change(kind, key, g, o, mins, v->now_ms + (int64_t)mins * 60000);
    n = snprintf(text, sizeof text, "%c %s\n", kind, key);
    n += (int)playban_encode(&r, text + n, sizeof text - (size_t)n);
    if (h->router.ops->tell_all)
        h->router.ops->tell_all(h->router.ctx, PLAYBAN_TELL, text, (size_t)n);
    return mins;
}

/* Tells the guests connected here from address key (their latest
 * connection's), but skip, the address's ban (until, mins). */
static void tell_address(struct hub *h, const char *key,
                         const struct player *skip, int64_t until, int mins)
{
    char k[ADDRKEY_MAX];

    for (size_t i = 0; i < h->players.cap; i++) {
        struct player *q = h->players.slots[i].value;
        if (!q || q == skip || q->account || !q->nconns || !q->ip[0])
            continue;
        hub_addr_key(h, q->ip, k);
        if (!strcmp(k, key))
            hub_playban_tell(h, q, until, mins, 0);
    }
}

void hub_guestbans_judge(struct hub *h, struct game *g,
                         const struct playban_game *v, int c,
                         struct player *p)
{
    struct guestbans *gb = state(h);
    char key[ADDRKEY_MAX];
    int mins, amins = 0;

    if (!gb || h->cfg.playban_guests == HUB_GUESTBAN_OFF)
        return;
    mins = judge_key(h, g, v, c, &gb->token, 't', p->pid);
    if (h->cfg.playban_guests == HUB_GUESTBAN_ADDRESS) {
        seat_address(h, g, c, p, key);
        if (key[0] &&
            (amins = judge_key(h, g, v, c, &gb->address, 'a', key)) != 0)
            tell_address(h, key, p, v->now_ms + (int64_t)amins * 60000,
                         amins);
    }
    if (amins > mins)
        mins = amins;
    if (mins)
        hub_playban_tell(h, p, v->now_ms + (int64_t)mins * 60000, mins, 0);
}

/* The later of the ban in effect in r (if any) and *end: *end, *mins. */
static void later(const struct playban_record *r, int64_t wall, int64_t *end,
                  int *mins)
{
    int64_t e = r ? playban_ends(r, wall) : 0;

    if (e > *end) {
        *end = e;
        *mins = r->ban[r->nbans - 1].mins;
    }
}

int64_t hub_guestbans_end(struct hub *h, const struct player *p,
                          const char *ip, int64_t wall, int *mins)
{
    struct guestbans *gb = state(h);
    char key[ADDRKEY_MAX];
    int64_t end = 0;
    int m = 0;

    if (!gb || h->cfg.playban_guests == HUB_GUESTBAN_OFF)
        return 0;
    later(get(&gb->token, p->pid), wall, &end, &m);
    if (!ip || !ip[0])
        ip = p->ip;
    if (h->cfg.playban_guests == HUB_GUESTBAN_ADDRESS && ip[0]) {
        hub_addr_key(h, ip, key);
        later(get(&gb->address, key), wall, &end, &m);
    }
    if (end && mins)
        *mins = m;
    return end;
}

void hub_guestbans_told(struct hub *h, const char *payload, size_t len)
{
    struct guestbans *gb = state(h);
    char text[PLAYBAN_TEXT_MAX + ADDRKEY_MAX + 4], *nl;
    const struct playban_record *old;
    struct playban_record r;
    struct bans *b;
    struct player *p;
    int64_t end, wall = hub_wall_ms(h), was;

    if (!gb || len < 3 || len >= sizeof text)
        return;
    memcpy(text, payload, len);
    text[len] = '\0';
    if ((text[0] != 't' && text[0] != 'a') || text[1] != ' ' ||
        !(nl = strchr(text + 2, '\n')) || nl == text + 2 ||
        nl - (text + 2) >= ADDRKEY_MAX)
        return;
    *nl = '\0';
    b = text[0] == 't' ? &gb->token : &gb->address;
    old = get(b, text + 2);
    was = old ? playban_ends(old, wall) : 0;
    if (playban_decode(nl + 1, &r) < 0 || (old && r.version < old->version) ||
        put(b, text + 2, &r) < 0)
        return;
    /* a new ban: the guests it holds for here hear it */
    if (!(end = playban_ends(&r, wall)) || end == was)
        return;
    if (text[0] == 'a')
        tell_address(h, text + 2, NULL, end, r.ban[r.nbans - 1].mins);
    else if ((p = table_get(&h->players, text + 2)))
        hub_playban_tell(h, p, end, r.ban[r.nbans - 1].mins, 0);
}
