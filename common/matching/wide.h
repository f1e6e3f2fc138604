/*
 * wide.h - signed 256-bit integers for the pairing engines' weights.
 *
 * A Dutch pairing is the best of its candidates on some twenty criteria in
 * order of priority; the engine packs them into one matching weight, one
 * bit field per criterion, and that needs more than 64 bits (the arena's
 * weights fit in 64, and use the same matching). Two's
 * complement over four 64-bit limbs, least significant first: only what
 * the matching needs (add, subtract, compare, halve) and what builds a
 * weight (add a small value at a bit offset).
 */
#ifndef MATCHING_WIDE_H
#define MATCHING_WIDE_H

#include <stdbool.h>
#include <stdint.h>

#define WIDE_LIMBS 4
#define WIDE_BITS (64 * WIDE_LIMBS)

typedef struct {
    uint64_t l[WIDE_LIMBS];
} wide;

static inline wide wide_zero(void)
{
    wide r = {{0}};
    return r;
}

static inline wide wide_add(wide a, wide b)
{
    wide r;
    uint64_t carry = 0;
    for (int i = 0; i < WIDE_LIMBS; i++) {
        uint64_t s = a.l[i] + b.l[i];
        uint64_t c1 = s < a.l[i];
        r.l[i] = s + carry;
        carry = c1 | (r.l[i] < s);
    }
    return r;
}

static inline wide wide_sub(wide a, wide b)
{
    wide r;
    uint64_t borrow = 0;
    for (int i = 0; i < WIDE_LIMBS; i++) {
        uint64_t d = a.l[i] - b.l[i];
        uint64_t b1 = a.l[i] < b.l[i];
        r.l[i] = d - borrow;
        borrow = b1 | (d < borrow);
    }
    return r;
}

static inline bool wide_neg(wide a)
{
    return (a.l[WIDE_LIMBS - 1] >> 63) != 0;
}

/* -1, 0 or 1 as a < b, a == b, a > b (signed). */
static inline int wide_cmp(wide a, wide b)
{
    bool na = wide_neg(a), nb = wide_neg(b);
    if (na != nb)
        return na ? -1 : 1;
    for (int i = WIDE_LIMBS - 1; i >= 0; i--)
        if (a.l[i] != b.l[i])
            return a.l[i] < b.l[i] ? -1 : 1;
    return 0;
}

static inline bool wide_is_zero(wide a)
{
    for (int i = 0; i < WIDE_LIMBS; i++)
        if (a.l[i])
            return false;
    return true;
}

/* a / 2, rounding toward minus infinity (an arithmetic shift). */
static inline wide wide_half(wide a)
{
    wide r;
    for (int i = 0; i < WIDE_LIMBS; i++) {
        uint64_t hi = i + 1 < WIDE_LIMBS ? a.l[i + 1] << 63
                                         : (a.l[i] & (1ULL << 63));
        r.l[i] = (a.l[i] >> 1) | hi;
    }
    return r;
}

/* a + v * 2^bit, for 0 <= v < 2^32 and bit + 32 <= WIDE_BITS. */
static inline wide wide_add_at(wide a, uint64_t v, int bit)
{
    wide b = wide_zero();
    int limb = bit / 64, off = bit % 64;
    b.l[limb] = v << off;
    if (off && limb + 1 < WIDE_LIMBS)
        b.l[limb + 1] = v >> (64 - off);
    return wide_add(a, b);
}

#endif
