/*
 * clock.c - chess clock arithmetic (see clock.h).
 */
#include "clock.h"

#include <assert.h>
#include <stddef.h>

bool clock_spec_valid(const struct clock_spec *spec)
{
    if (spec->per_move)
        return spec->per_move_s >= 1 &&
               spec->per_move_s <= CLOCK_PER_MOVE_MAX_S;
    return spec->initial_s >= 1 && spec->initial_s <= CLOCK_INITIAL_MAX_S &&
           spec->increment_s >= 0 &&
           spec->increment_s <= CLOCK_INCREMENT_MAX_S;
}

bool clock_spec_correspondence(const struct clock_spec *spec)
{
    return spec->per_move && spec->per_move_s >= CLOCK_CORRESPONDENCE_S;
}

bool clock_spec_equal(const struct clock_spec *a, const struct clock_spec *b)
{
    if (a->per_move != b->per_move)
        return false;
    if (a->per_move)
        return a->per_move_s == b->per_move_s;
    return a->initial_s == b->initial_s && a->increment_s == b->increment_s;
}

int64_t clock_full_ms(const struct clock_spec *spec)
{
    return (int64_t)(spec->per_move ? spec->per_move_s : spec->initial_s) *
           1000;
}

void clock_init(struct clock *c, const struct clock_spec *spec)
{
    c->spec = *spec;
    c->left_ms[0] = c->left_ms[1] = clock_full_ms(spec);
    c->inc_ms[0] = c->inc_ms[1] = spec->per_move
                                      ? 0
                                      : (int64_t)spec->increment_s * 1000;
    c->running = -1;
    c->since_ms = 0;
}

void clock_set_side(struct clock *c, int side, int64_t left_ms,
                    int64_t inc_ms)
{
    assert((side == 0 || side == 1) && side != c->running);
    assert(left_ms >= 0 && inc_ms >= 0);
    c->left_ms[side] = left_ms;
    c->inc_ms[side] = inc_ms;
}

void clock_start(struct clock *c, int side, int64_t now)
{
    clock_pause(c, now);
    c->running = side;
    c->since_ms = now;
}

void clock_pause(struct clock *c, int64_t now)
{
    if (c->running < 0)
        return;
    c->left_ms[c->running] = clock_left(c, c->running, now);
    c->running = -1;
}

int64_t clock_left(const struct clock *c, int side, int64_t now)
{
    int64_t left = c->left_ms[side];

    if (side == c->running && now > c->since_ms)
        left -= now - c->since_ms;
    return left > 0 ? left : 0;
}

int64_t clock_deadline(const struct clock *c)
{
    if (c->running < 0)
        return CLOCK_NEVER;
    return c->since_ms + c->left_ms[c->running];
}

bool clock_flagged(const struct clock *c, int64_t now)
{
    return c->running >= 0 && now >= clock_deadline(c);
}

int64_t clock_press(struct clock *c, int64_t now)
{
    int mover = c->running;

    if (mover < 0)
        return -1;
    if (c->spec.per_move)
        c->left_ms[mover] = clock_full_ms(&c->spec);
    else
        c->left_ms[mover] = clock_left(c, mover, now) + c->inc_ms[mover];
    c->running = 1 - mover;
    c->since_ms = now;
    return c->left_ms[mover];
}
