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

#define WIDE_LIMBS 4 /* (the functions below name each limb) */
#define WIDE_BITS (64 * WIDE_LIMBS)

typedef struct {
    uint64_t l[WIDE_LIMBS];
} wide;

static inline wide wide_zero(void)
{
    wide r = {{0}};
    return r;
}

/* The limb of a + b + carry (0 or 1); *carry becomes its carry out. */
static inline uint64_t wide_limb_add(uint64_t a, uint64_t b, uint64_t *carry)
{
    uint64_t s = a + b, r = s + *carry;
    *carry = (s < a) | (r < s);
    return r;
}

/* The limb of a - b - borrow (0 or 1); *borrow becomes its borrow out. */
static inline uint64_t wide_limb_sub(uint64_t a, uint64_t b, uint64_t *borrow)
{
    uint64_t d = a - b, r = d - *borrow;
    *borrow = (a < b) | (d < *borrow);
    return r;
}

/* (Written out limb by limb, not in a loop: a loop the compiler does not
 * unroll at -O2 goes through memory, and the matching's inner loop spent
 * most of its time reloading the limbs it had just stored.) */
static inline wide wide_add(wide a, wide b)
{
    uint64_t c = 0;
    wide r = {{wide_limb_add(a.l[0], b.l[0], &c),
               wide_limb_add(a.l[1], b.l[1], &c),
               wide_limb_add(a.l[2], b.l[2], &c),
               wide_limb_add(a.l[3], b.l[3], &c)}};
    return r;
}

static inline wide wide_sub(wide a, wide b)
{
    uint64_t c = 0;
    wide r = {{wide_limb_sub(a.l[0], b.l[0], &c),
               wide_limb_sub(a.l[1], b.l[1], &c),
               wide_limb_sub(a.l[2], b.l[2], &c),
               wide_limb_sub(a.l[3], b.l[3], &c)}};
    return r;
}

static inline bool wide_neg(wide a)
{
    return (a.l[WIDE_LIMBS - 1] >> 63) != 0;
}

/* -1, 0 or 1 as a < b, a == b, a > b (signed). */
static inline int wide_cmp(wide a, wide b)
{
    if (a.l[3] != b.l[3]) /* (the sign in the top limb) */
        return (int64_t)a.l[3] < (int64_t)b.l[3] ? -1 : 1;
    if (a.l[2] != b.l[2])
        return a.l[2] < b.l[2] ? -1 : 1;
    if (a.l[1] != b.l[1])
        return a.l[1] < b.l[1] ? -1 : 1;
    if (a.l[0] != b.l[0])
        return a.l[0] < b.l[0] ? -1 : 1;
    return 0;
}

static inline bool wide_is_zero(wide a)
{
    return !(a.l[0] | a.l[1] | a.l[2] | a.l[3]);
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
