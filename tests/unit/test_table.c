/*
 * test_table.c - the string-keyed hash table (server/lib/table.h): lookups,
 * replacement, deletion with tombstones, growth, and reuse of deleted
 * slots without unbounded growth.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/table.h"
#include "check_main.h"

#define N 5000

static char keys[N][16];

static void make_keys(void)
{
    for (int i = 0; i < N; i++)
        snprintf(keys[i], sizeof keys[i], "k%d", i);
}

START_TEST(empty_table)
{
    struct table t;

    table_init(&t);
    ck_assert_ptr_null(table_get(&t, "x"));
    ck_assert_ptr_null(table_del(&t, "x"));
    ck_assert_uint_eq(t.n, 0);
    table_clear(&t);
    table_clear(&t); /* twice: still empty */
}
END_TEST

START_TEST(put_get_replace_delete)
{
    struct table t;
    int a = 1, b = 2;
    char key[] = "alpha", same[] = "alpha";

    table_init(&t);
    ck_assert_int_eq(table_put(&t, key, &a), 0);
    ck_assert_ptr_eq(table_get(&t, "alpha"), &a);
    ck_assert_ptr_null(table_get(&t, "alph"));
    ck_assert_ptr_null(table_get(&t, "alphab"));
    /* an equal key in other memory replaces the entry */
    ck_assert_int_eq(table_put(&t, same, &b), 0);
    ck_assert_uint_eq(t.n, 1);
    ck_assert_ptr_eq(table_get(&t, key), &b);
    ck_assert_ptr_eq(table_del(&t, "alpha"), &b);
    ck_assert_ptr_null(table_get(&t, "alpha"));
    ck_assert_ptr_null(table_del(&t, "alpha"));
    ck_assert_uint_eq(t.n, 0);
    table_clear(&t);
}
END_TEST

START_TEST(grows_and_keeps_everything)
{
    struct table t;

    make_keys();
    table_init(&t);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(table_put(&t, keys[i], &keys[i]), 0);
    ck_assert_uint_eq(t.n, N);
    ck_assert_uint_ge(t.cap, N);
    ck_assert_uint_eq(t.cap & (t.cap - 1), 0); /* a power of two */
    for (int i = 0; i < N; i++)
        ck_assert_ptr_eq(table_get(&t, keys[i]), &keys[i]);
    /* delete the even ones: the odd ones are still found past the
     * tombstones */
    for (int i = 0; i < N; i += 2)
        ck_assert_ptr_eq(table_del(&t, keys[i]), &keys[i]);
    ck_assert_uint_eq(t.n, N / 2);
    for (int i = 0; i < N; i++)
        if (i % 2)
            ck_assert_ptr_eq(table_get(&t, keys[i]), &keys[i]);
        else
            ck_assert_ptr_null(table_get(&t, keys[i]));
    table_clear(&t);
}
END_TEST

/* Adding and deleting forever (a server's sessions) keeps the table at
 * the size of what is live, not of everything ever added. */
START_TEST(churn_stays_bounded)
{
    struct table t;
    size_t cap;

    make_keys();
    table_init(&t);
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(table_put(&t, keys[i], keys[i]), 0);
    cap = t.cap;
    for (int round = 0; round < 20; round++)
        for (int i = 8; i < N; i++) {
            ck_assert_int_eq(table_put(&t, keys[i], keys[i]), 0);
            ck_assert_ptr_eq(table_del(&t, keys[i]), keys[i]);
        }
    ck_assert_uint_eq(t.n, 8);
    ck_assert_uint_le(t.cap, 4 * cap);
    for (int i = 0; i < 8; i++)
        ck_assert_ptr_eq(table_get(&t, keys[i]), keys[i]);
    table_clear(&t);
}
END_TEST

static Suite *table_suite(void)
{
    Suite *s = suite_create("table");
    TCase *t = tcase_create("table");

    tcase_add_test(t, empty_table);
    tcase_add_test(t, put_get_replace_delete);
    tcase_add_test(t, grows_and_keeps_everything);
    tcase_add_test(t, churn_stays_bounded);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return check_main(table_suite());
}
