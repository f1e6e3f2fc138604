/*
 * stall.c - turns held for the store (game.h's env.hold): a turn waits
 * until the write it follows has committed, and a wait longer than
 * LIMIT_STALL_NOTICE_MS is told to every connected player, with its end
 * once no turn has waited that long for LIMIT_STALL_RESUME_MS.
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

/* Arms the stall timer for when the next change may come: the oldest
 * held turn will have waited LIMIT_STALL_NOTICE_MS (a stall begins, or
 * goes on), or, during a stall, LIMIT_STALL_RESUME_MS have passed with
 * no turn waiting that long (it ends). */
static void stall_watch(struct hub *h)
{
    const struct hold *o = holds_oldest(&h->holds);
    int64_t at = CLOCK_NEVER;

    if (!h->stall_timer)
        return;
    /* (a turn already waiting that long: its release ends nothing
     * before the resume's time, which looks at it again) */
    if (o && o->since + LIMIT_STALL_NOTICE_MS > hub_now_ms(h))
        at = o->since + LIMIT_STALL_NOTICE_MS;
    if (h->stalled && h->slow_at + LIMIT_STALL_RESUME_MS < at)
        at = h->slow_at + LIMIT_STALL_RESUME_MS;
    if (at == CLOCK_NEVER || h->stall_timer_at <= at)
        return; /* it fires first and looks again */
    h->stall_timer_at = at;
    hub_alarm_arm(h, h->stall_timer, at);
}

/* A held turn waited a stall's time (now, or when it was released at
 * now): a stall begins, or goes on. */
static void stall_seen(struct hub *h, int64_t since, int64_t now)
{
    h->slow_at = now;
    if (h->stalled)
        return;
    h->stalled = true;
    h->stall_since = since;
    log_warn("event=store_stall waited_ms=%lld held_turns=%zu",
             (long long)(now - since), h->holds.n);
    notice_all(h, false, now - since);
}

/* The stall is over when no turn has waited a stall's time for
 * LIMIT_STALL_RESUME_MS: told once, not at every commit of a disk that
 * takes about a second each (it flapped every 0.8 s so). */
static void stall_maybe_over(struct hub *h, int64_t now)
{
    const struct hold *o = holds_oldest(&h->holds);

    if (!h->stalled || (o && now - o->since >= LIMIT_STALL_NOTICE_MS) ||
        now - h->slow_at < LIMIT_STALL_RESUME_MS)
        return;
    h->stalled = false;
    log_info("event=store_resumed stalled_ms=%lld",
             (long long)(h->slow_at - h->stall_since));
    notice_all(h, true, h->slow_at - h->stall_since);
}

void hub_stall_check(void *arg)
{
    struct hub *h = arg;
    const struct hold *o = holds_oldest(&h->holds);
    int64_t now = hub_now_ms(h);

    h->stall_timer_at = CLOCK_NEVER;
    if (o && now - o->since >= LIMIT_STALL_NOTICE_MS)
        stall_seen(h, o->since, now);
    stall_maybe_over(h, now);
    stall_watch(h);
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
        if (h->stalled && now - e.since >= LIMIT_STALL_NOTICE_MS)
            h->slow_at = now; /* (it waited a stall's time: it goes on) */
        if (g)
            game_released(g, e.seq, now);
    }
    stall_maybe_over(h, now);
    stall_watch(h);
}
