/*
 * reads.c - the hub's store reads off the loop (see reads.h): the
 * owners' lists, the budgets, the answers on the loop, the timer at the
 * store's next deadline.
 *
 * Every read in flight is on the hub's list (so hub_free can let them
 * all go) and, when it has one, on its owner's. The store calls
 * read_done exactly once on the loop; that takes the read off both
 * lists before the answer runs (an answer may submit again). The store calls read_release once, after,
 * on whichever thread lets go last: it only frees.
 */
#include "hub/reads.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "game/game.h"
#include "hub/hub_internal.h"
#include "lib/log.h"
#include "lib/tunables.h"

/* The hub's part (h->mod_state is the modules'; this is the core's). */
struct hub_reads_state {
    struct hub_read *head; /* every read in flight */
    size_t n;
    struct hub_alarm *alarm; /* at the store's next deadline */
    int64_t alarm_at;
};

static void list_unlink(struct hub_reads *o, struct hub_read *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        o->head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    r->prev = r->next = NULL;
    assert(o->n > 0);
    o->n--;
}

static void hub_unlink(struct hub_reads_state *st, struct hub_read *r)
{
    if (r->hprev)
        r->hprev->hnext = r->hnext;
    else
        st->head = r->hnext;
    if (r->hnext)
        r->hnext->hprev = r->hprev;
    r->hprev = r->hnext = NULL;
    assert(st->n > 0);
    st->n--;
}

static void arm(struct hub *h)
{
    struct hub_reads_state *st = h->reads;
    int64_t at = store_read_next_deadline(h->store);

    if (at == st->alarm_at)
        return;
    st->alarm_at = at;
    hub_alarm_arm(h, st->alarm, at == INT64_MAX ? CLOCK_NEVER : at);
}

static void read_done(struct store_read *sr)
{
    struct hub_read *r = (struct hub_read *)sr;
    struct hub *h = r->h;
    bool gone;

    if (!h) /* the hub went: nobody to answer */
        return;
    hub_unlink(h->reads, r);
    gone = r->owned && !r->owner && !r->always;
    if (r->owner)
        list_unlink(r->owner, r);
    r->owner = NULL;
    r->h = NULL;
    if (sr->end == STORE_READ_LATE)
        h->metrics.reads_late++;
    if (gone || sr->end == STORE_READ_CLOSED)
        return;
    r->h = h; /* (the answer may look at it) */
    r->answer(r, sr->end == STORE_READ_RAN ? sr->rc : -1);
    r->h = NULL;
}

static void read_release(struct store_read *sr)
{
    struct hub_read *r = (struct hub_read *)sr;

    if (r->clear)
        r->clear(r);
    free(r);
}

static int read_run(struct store *s, struct store_read *sr)
{
    struct hub_read *r = (struct hub_read *)sr;

    return r->run(s, r);
}

int hub_read_submit(struct hub *h, struct hub_read *r,
                    struct hub_reads *owner, void *who)
{
    struct hub_reads_state *st = h->reads;

    assert(r->run && r->answer);
    r->sr.run = read_run;
    r->sr.done = read_done;
    r->sr.release = read_release;
    r->h = h;
    r->owner = owner;
    r->owned = owner != NULL;
    r->who = owner ? who : NULL;
    r->seen = store_committed(h->store);
    if (store_read_submit(h->store, &r->sr, hub_now_ms(h)) < 0) {
        h->metrics.reads_refused++;
        read_release(&r->sr);
        return -1;
    }
    h->metrics.reads++;
    r->hnext = st->head;
    if (st->head)
        st->head->hprev = r;
    st->head = r;
    st->n++;
    if (owner) {
        r->next = owner->head;
        if (owner->head)
            owner->head->prev = r;
        owner->head = r;
        owner->n++;
    }
    arm(h);
    return 0;
}

/* True when s may have one more read now: its connection's reads in
 * flight, and for a metered one a token of its address's bucket (given
 * back when the read finds its game: hub_read_refund; so the bucket
 * bounds the address's metered reads in flight too), then named in
 * r->metered. */
static bool admit(struct session *s, struct hub_read *r, unsigned flags)
{
    struct hub *h = s->hub;
    struct addr *a;

    if (s->reads.n >= LIMIT_READS_PER_CONN && !(flags & HUB_READ_UNCAPPED))
        return false;
    /* (a hello, a login: one a connection at a time, and connections
     * per address are capped; another node's connection: its node
     * counts it) */
    if (!(flags & HUB_READ_METERED) || !s->ip[0])
        return true;
    a = hub_addr_get(h, s->ip);
    if (!a)
        return false;
    if (!bucket_take(&a->read_rate, LIMIT_GAME_READS_PER_ADDR_PER_S,
                     LIMIT_GAME_READS_PER_ADDR_BURST, hub_now_ms(h)))
        return false;
    memcpy(r->metered, a->ip, sizeof r->metered);
    return true;
}

void hub_read_refund(struct hub_read *r)
{
    struct addr *a = r->metered[0] ? table_get(&r->h->addrs, r->metered)
                                   : NULL;

    if (a)
        bucket_give(&a->read_rate, LIMIT_GAME_READS_PER_ADDR_BURST);
    r->metered[0] = '\0';
}

int hub_read_submit_for(struct session *s, struct hub_read *r,
                        const struct proto_id *id, unsigned flags)
{
    struct hub *h = s->hub;

    if (!admit(s, r, flags)) {
        h->metrics.reads_limited++;
        read_release(&r->sr);
        hub_send_error(s, PROTO_RATE_LIMITED,
                       "too many requests waiting for the database; try "
                       "again",
                       id);
        return -1;
    }
    if (hub_read_submit(h, r, &s->reads, s) < 0) {
        hub_busy(s, id);
        return -1;
    }
    return 0;
}

void hub_reads_orphan(struct hub_reads *o)
{
    while (o->head) {
        struct hub_read *r = o->head;
        list_unlink(o, r);
        r->owner = NULL; /* (owned stays: its answer is dropped) */
        r->who = NULL;
    }
}

void hub_reads_collect(struct hub *h)
{
    if (!h->reads)
        return;
    store_read_collect(h->store, hub_now_ms(h));
    arm(h);
}

static void on_alarm(void *arg)
{
    struct hub *h = arg;

    h->reads->alarm_at = INT64_MAX; /* (fired) */
    hub_reads_collect(h);
}

int hub_reads_init(struct hub *h)
{
    h->reads = calloc(1, sizeof *h->reads);
    if (!h->reads)
        return -1;
    h->reads->alarm_at = INT64_MAX;
    h->reads->alarm = hub_alarm_new(h, on_alarm, h);
    return h->reads->alarm ? 0 : -1;
}

void hub_reads_free(struct hub *h)
{
    struct hub_reads_state *st = h->reads;

    if (!st)
        return;
    /* the store answers them later (or at its close): nobody hears */
    while (st->head) {
        struct hub_read *r = st->head;
        hub_unlink(st, r);
        if (r->owner)
            list_unlink(r->owner, r);
        r->owner = NULL;
        r->h = NULL;
    }
    hub_alarm_free(h, st->alarm);
    free(st);
    h->reads = NULL;
}

uint64_t hub_reads_horizon(const struct hub *h)
{
    uint64_t at = store_committed(h->store);

    for (const struct hub_read *r = h->reads ? h->reads->head : NULL; r;
         r = r->hnext)
        if (r->seen < at)
            at = r->seen;
    return at;
}

int hub_read_seats(struct store *st, const struct store_game *row,
                   bool account[2])
{
    for (int c = 0; c < 2; c++) {
        const char *pid = c ? row->black_pid : row->white_pid;
        int a = pid[0] ? store_is_account(st, pid) : 0;
        if (a < 0)
            return -1;
        account[c] = a == 1;
    }
    return 0;
}

int hub_live_games_load(struct store *st, struct hub_live_games *lg)
{
    char gids[HUB_LIVE_GAMES_MAX][33];
    size_t n = 0;

    if (store_player_live_games(st, lg->pid, gids, HUB_LIVE_GAMES_MAX, &n) <
        0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int rc = store_load_game(st, gids[i], &lg->rows[lg->n],
                                 &lg->moves[lg->n], &lg->nmoves[lg->n]);
        if (rc < 0)
            return -1;
        lg->n += rc == 1;
    }
    return 0;
}

void hub_live_games_clear(struct hub_live_games *lg)
{
    for (size_t i = 0; i < lg->n; i++)
        free(lg->moves[i]);
    lg->n = 0;
}

void hub_live_games_view(struct hub *h, const struct hub_live_games *lg,
                         struct game **gs, bool *stand_in)
{
    struct game_env env = hub_mute_env(h);

    for (size_t i = 0; i < lg->n; i++) {
        gs[i] = hub_game(h, lg->rows[i].gid);
        stand_in[i] = !gs[i] && !strcmp(lg->rows[i].status, "started");
        if (stand_in[i])
            gs[i] = game_restore(&env, &lg->rows[i], lg->moves[i],
                                 lg->nmoves[i], hub_wall_ms(h), hub_now_ms(h),
                                 NULL);
    }
}

size_t hub_reads_pending(const struct hub *h)
{
    return h->reads ? h->reads->n : 0;
}
