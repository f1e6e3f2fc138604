/*
 * test_config_tourney.c - the settings of who creates tournaments and how
 * many players an arena takes (docs/operator.md: tourney_account_days,
 * tourney_creators, arena_players): their defaults, ranges, the list of
 * creators' form from a file and the command line, and the checks
 * against arena_create. (test_config.c has the rest of the settings.)
 */
#include <check.h>
#include <stdarg.h>
#include <string.h>

#include "app/config.h"
#include "check_main.h"

static struct config cfg;
static char err[600];

static void setup(void)
{
    ck_assert_int_eq(config_init(&cfg), 0);
    err[0] = '\0';
}

static void teardown(void)
{
    config_clear(&cfg);
}

static int load(const char *text)
{
    return config_load_text(&cfg, text, "test.json", err, sizeof err);
}

/* err holds every one of the words (NULL-terminated). */
static void err_has(const char *first, ...)
{
    va_list ap;

    va_start(ap, first);
    for (const char *w = first; w; w = va_arg(ap, const char *))
        ck_assert_msg(strstr(err, w), "'%s' not in: %s", w, err);
    va_end(ap);
}

START_TEST(defaults)
{
    ck_assert_int_eq(cfg.tourney_account_days, 0);
    ck_assert_str_eq(cfg.tourney_creators, "");
    ck_assert_int_eq(cfg.arena_players, 2000);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), 0);
}
END_TEST

START_TEST(good_values)
{
    ck_assert_int_eq(load("{\"tourney_account_days\": 3650, "
                          "\"arena_players\": 5000}"),
                     0);
    ck_assert_int_eq(cfg.tourney_account_days, 3650);
    ck_assert_int_eq(cfg.arena_players, 5000);
    ck_assert_int_eq(
        load("{\"arena_players\": 2, "
             "\"tourney_account_days\": 0, "
             "\"tourney_creators\": \"alice,Bob_2,club-42,xy\"}"),
        0);
    ck_assert_int_eq(cfg.arena_players, 2);
    ck_assert_str_eq(cfg.tourney_creators, "alice,Bob_2,club-42,xy");
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), 0);
    /* one name of 20, and "" again: any account */
    ck_assert_int_eq(load("{\"tourney_creators\": "
                          "\"abcdefghijABCDEFGHIJ\"}"),
                     0);
    ck_assert_int_eq(load("{\"tourney_creators\": \"\"}"), 0);
    ck_assert_str_eq(cfg.tourney_creators, "");
    /* the command line's form is the same text */
    ck_assert_int_eq(config_set_text(&cfg, "tourney_creators", "mona,Bob",
                                     err, sizeof err),
                     0);
    ck_assert_str_eq(cfg.tourney_creators, "mona,Bob");
}
END_TEST

START_TEST(bad_values)
{
    static const struct {
        const char *text, *key, *what;
    } cases[] = {
        {"{\"tourney_account_days\": -1}", "'tourney_account_days'",
         "from 0 to 3650, not -1"},
        {"{\"tourney_account_days\": 3651}", "'tourney_account_days'",
         "not 3651"},
        {"{\"tourney_account_days\": \"7\"}", "'tourney_account_days'",
         "not a string"},
        {"{\"arena_players\": 1}", "'arena_players'",
         "from 2 to 5000, not 1"},
        {"{\"arena_players\": 5001}", "'arena_players'", "not 5001"},
        {"{\"tourney_creators\": [\"alice\"]}", "'tourney_creators'",
         "must be a string, not a list"},
        {"{\"tourney_creators\": \"a\"}", "'tourney_creators'",
         "usernames (2 to 20 of A-Z a-z 0-9 _ -) separated by commas, not "
         "'a' (item 1)"},
        {"{\"tourney_creators\": \"alice, bob\"}", "'tourney_creators'",
         "not ' bob' (item 2)"},
        {"{\"tourney_creators\": \"alice,,bob\"}", "'tourney_creators'",
         "not '' (item 2)"},
        {"{\"tourney_creators\": \"alice,\"}", "'tourney_creators'",
         "not '' (item 2)"},
        {"{\"tourney_creators\": \",alice\"}", "'tourney_creators'",
         "not '' (item 1)"},
        {"{\"tourney_creators\": \"al.ice\"}", "'tourney_creators'",
         "not 'al.ice' (item 1)"},
        {"{\"tourney_creators\": \"abcdefghijABCDEFGHIJK\"}",
         "'tourney_creators'", "not 'abcdefghijABCDEFGHIJK' (item 1)"},
        {"{\"tourney_creators\": \"alice,bob,ALICE\"}", "'tourney_creators'",
         "names 'ALICE' twice (item 3)"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        config_clear(&cfg);
        config_init(&cfg);
        ck_assert_msg(load(cases[i].text) == -1, "%s", cases[i].text);
        err_has("test.json", cases[i].key, cases[i].what, NULL);
        ck_assert_str_eq(cfg.tourney_creators, "");
    }
    /* a bad command-line value changes nothing */
    ck_assert_int_eq(
        config_set_text(&cfg, "tourney_creators", "bob", err, sizeof err), 0);
    ck_assert_int_eq(
        config_set_text(&cfg, "tourney_creators", "bob,x y", err, sizeof err),
        -1);
    err_has("not 'x y' (item 2)", NULL);
    ck_assert_str_eq(cfg.tourney_creators, "bob");
}
END_TEST

/* Both narrow arena_create 1 (accounts): refused beside 2 (anyone,
 * guests too), and the age beside a list that names the creators. */
START_TEST(cross_key_checks)
{
    ck_assert_int_eq(load("{\"arena_create\": 2, \"tourney_account_days\": "
                          "7}"),
                     0);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("key 'tourney_account_days'", "'arena_create' 1", "not 2",
            "tourney_account_days to 0", NULL);
    ck_assert_int_eq(load("{\"arena_create\": 1}"), 0);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), 0);
    ck_assert_int_eq(load("{\"arena_create\": 0}"), 0);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), 0);
    ck_assert_int_eq(load("{\"tourney_account_days\": 0, "
                          "\"tourney_creators\": \"mona\", "
                          "\"arena_create\": 2}"),
                     0);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("key 'tourney_creators'", "not 2", "tourney_creators to \"\"",
            NULL);
    ck_assert_int_eq(load("{\"arena_create\": 1}"), 0);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), 0);
    ck_assert_int_eq(load("{\"tourney_account_days\": 30}"), 0);
    ck_assert_int_eq(config_validate(&cfg, err, sizeof err), -1);
    err_has("key 'tourney_account_days'", "must be 0",
            "'tourney_creators' names", NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config_tourney");
    TCase *tc = tcase_create("core");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, defaults);
    tcase_add_test(tc, good_values);
    tcase_add_test(tc, bad_values);
    tcase_add_test(tc, cross_key_checks);
    suite_add_tcase(s, tc);
    return check_main(s);
}
