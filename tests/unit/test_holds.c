/*
 * test_holds.c - the queue of turns waiting for a store commit: a commit
 * releases exactly the prefix it covers, in order, across the ring's
 * growth and wrap-around.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game/holds.h"
#include "check_main.h"

START_TEST(commit_releases_its_prefix_in_order)
{
    struct holds h;
    struct hold out;
    char gid[16];
    uint64_t next = 1, popped = 1;

    holds_init(&h);
    ck_assert_ptr_null(holds_oldest(&h));
    ck_assert(!holds_pop_committed(&h, 100, &out));
    /* push 3, pop 2, many times: the ring wraps and grows */
    for (int round = 0; round < 200; round++) {
        for (int i = 0; i < 3; i++, next++) {
            snprintf(gid, sizeof gid, "G%llu", (unsigned long long)next);
            ck_assert_int_eq(holds_push(&h, gid, next, (int64_t)next), 0);
        }
        ck_assert(!holds_pop_committed(&h, popped - 1, &out));
        for (int i = 0; i < 2; i++, popped++) {
            ck_assert(holds_pop_committed(&h, popped + 1, &out));
            ck_assert_uint_eq(out.seq, popped);
            ck_assert_int_eq(out.since, (int64_t)popped);
            snprintf(gid, sizeof gid, "G%llu", (unsigned long long)popped);
            ck_assert_str_eq(out.gid, gid);
        }
        /* the next one waits for a later commit */
        ck_assert(!holds_pop_committed(&h, popped - 1, &out));
    }
    ck_assert_uint_eq(holds_oldest(&h)->seq, popped);
    /* one commit of everything releases all that is left, in order */
    while (holds_pop_committed(&h, next, &out))
        ck_assert_uint_eq(out.seq, popped++);
    ck_assert_uint_eq(popped, next);
    ck_assert_ptr_null(holds_oldest(&h));
    holds_clear(&h);
}
END_TEST

/* A turn that begins on an older write than the last one queued (a game
 * unpaused or adopted) goes in its place: a commit still releases
 * exactly what it covers, in seq order, across the ring's wrap. */
START_TEST(an_older_write_goes_in_its_place)
{
    static const uint64_t seqs[] = {10, 20, 30, 15, 40, 5, 30, 41};
    static const uint64_t order[] = {5, 10, 15, 20, 30, 30, 40, 41};
    struct holds h;
    struct hold out;
    char gid[16];

    holds_init(&h);
    for (int round = 0; round < 40; round++) { /* wraps the ring of 64 */
        uint64_t base = (uint64_t)round * 100;
        for (size_t i = 0; i < 8; i++) {
            snprintf(gid, sizeof gid, "G%zu", i);
            ck_assert_int_eq(holds_push(&h, gid, base + seqs[i], (int64_t)i),
                             0);
        }
        ck_assert(!holds_pop_committed(&h, base + 4, &out));
        for (size_t i = 0; i < 8; i++) {
            ck_assert(holds_pop_committed(&h, base + order[i], &out));
            ck_assert_uint_eq(out.seq, base + order[i]);
            snprintf(gid, sizeof gid, "G%d",
                     (int)(out.since)); /* its own gid went with it */
            ck_assert_str_eq(out.gid, gid);
            ck_assert_uint_eq(seqs[out.since], order[i]);
        }
        ck_assert_ptr_null(holds_oldest(&h));
    }
    holds_clear(&h);
}
END_TEST

/* A GID is copied into the hold (the caller's buffer may be reused at
 * once), and one longer than the field is cut at PROTO_KEY_MAX bytes,
 * terminated. */
START_TEST(gid_is_copied_and_cut_to_its_field)
{
    struct holds h;
    struct hold out;
    char gid[PROTO_KEY_MAX + 10];

    holds_init(&h);
    snprintf(gid, sizeof gid, "Qw9-abc");
    ck_assert_int_eq(holds_push(&h, gid, 1, 0), 0);
    memset(gid, 'x', sizeof gid - 1);
    gid[sizeof gid - 1] = '\0';
    ck_assert_int_eq(holds_push(&h, gid, 2, 0), 0);
    gid[0] = 'y'; /* the caller's buffer changes: the hold does not */
    ck_assert(holds_pop_committed(&h, 2, &out));
    ck_assert_str_eq(out.gid, "Qw9-abc");
    ck_assert(holds_pop_committed(&h, 2, &out));
    ck_assert_uint_eq(strlen(out.gid), PROTO_KEY_MAX);
    ck_assert_int_eq(out.gid[0], 'x');
    ck_assert(strspn(out.gid, "x") == PROTO_KEY_MAX);
    holds_clear(&h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("holds");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, commit_releases_its_prefix_in_order);
    tcase_add_test(tc, an_older_write_goes_in_its_place);
    tcase_add_test(tc, gid_is_copied_and_cut_to_its_field);
    suite_add_tcase(s, tc);
    return check_main(s);
}
