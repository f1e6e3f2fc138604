/*
 * move_assert.h - a Check assertion shared by the store's and the
 * game's tests: two journal rows (struct store_move) are equal, field by
 * field, so that a failure names the field.
 */
#ifndef MOVE_ASSERT_H
#define MOVE_ASSERT_H

#include <check.h>

#include "store/store.h"

static inline void assert_move_eq(const struct store_move *a,
                                  const struct store_move *b)
{
    ck_assert_int_eq(a->ply, b->ply);
    ck_assert_str_eq(a->uci, b->uci);
    ck_assert_str_eq(a->san, b->san);
    ck_assert_int_eq(a->white_ms, b->white_ms);
    ck_assert_int_eq(a->black_ms, b->black_ms);
    ck_assert_int_eq(a->wall_ms, b->wall_ms);
    ck_assert_int_eq(a->lag_ms, b->lag_ms);
}

#endif
