/*
 * stall.c - turns held for the store (game.h's env.hold): a turn waits
 * until the write it follows has committed, and a wait longer than
 * LIMIT_STALL_NOTICE_MS is told to every connected player, with its end.
 */
#include "hub/hub_internal.h"

#include "lib/log.h"
#include "lib/msgbuf.h"
#include "lib/tunables.h"

/* ---- turns held for the store ------------------------------------------ */

/* Tells every connected player that the store stalls (or resumed after
 * ms), ahead of the messages the stall holds back. */
static void notice_all(struct hub *h, bool resumed, int64_t ms)
{
    struct msgbuf *b = msgbuf_take(proto_render_store_stall(resumed, ms));

    if (!b)
        return;
    hub_notice_all(h, b);
    msgbuf_unref(b);
}

/* Arms the stall timer for when the oldest held turn will have waited
 * LIMIT_STALL_NOTICE_MS (unless it fires earlier anyway, or a stall is
 * being reported). */
static void stall_watch(struct hub *h)
{
    const struct hold *o = holds_oldest(&h->holds);
    int64_t at;

    if (!o || h->stalled || !h->stall_timer)
        return;
    at = o->since + LIMIT_STALL_NOTICE_MS;
    if (h->stall_timer_at <= at)
        return; /* it fires first and looks again */
    h->stall_timer_at = at;
    hub_alarm_arm(h, h->stall_timer, at);
}

void hub_stall_check(void *arg)
{
    struct hub *h = arg;
    const struct hold *o = holds_oldest(&h->holds);
    int64_t now = hub_now_ms(h);

    h->stall_timer_at = CLOCK_NEVER;
    if (!o || h->stalled)
        return;
    if (now - o->since < LIMIT_STALL_NOTICE_MS) {
        stall_watch(h);
        return;
    }
    h->stalled = true;
    h->stall_seq = o->seq;
    h->stall_since = o->since;
    log_warn("event=store_stall waited_ms=%lld held_turns=%zu",
             (long long)(now - o->since), h->holds.n);
    notice_all(h, false, now - o->since);
}

/* env.hold: the turn begins at once when seq has committed, else when
 * hub_wake sees the commit. */
bool hub_env_hold(void *ctx, struct game *g, uint64_t seq)
{
    struct hub *h = ctx;

    if (seq <= store_committed(h->store))
        return true;
    if (holds_push(&h->holds, game_gid(g), seq, hub_now_ms(h)) < 0)
        return true; /* out of memory: as if released */
    stall_watch(h);
    return false;
}

/* The store committed: begins the turns its commit released (net.c has
 * just released their messages, on the same wake-up). */
void hub_release_held(struct hub *h)
{
    uint64_t committed = store_committed(h->store);
    const struct hold *o = holds_oldest(&h->holds);
    struct hold e;
    int64_t now;

    if ((!o || o->seq > committed) && !h->stalled)
        return;
    now = hub_now_ms(h);
    while (holds_pop_committed(&h->holds, committed, &e)) {
        struct game *g = table_get(&h->games, e.gid);
        if (g)
            game_released(g, e.seq, now);
    }
    if (h->stalled && committed >= h->stall_seq) {
        h->stalled = false;
        log_info("event=store_resumed stalled_ms=%lld",
                 (long long)(now - h->stall_since));
        notice_all(h, true, now - h->stall_since);
    }
    stall_watch(h);
}
