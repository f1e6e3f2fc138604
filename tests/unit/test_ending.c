/*
 * test_ending.c - the table of game endings: complete and consistent, its
 * lookups, and the two other places that name the reasons (the table of
 * endings in docs/PROTOCOL.md, reasonText in web/words.js) naming
 * exactly the same ones.
 */
#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "ending.h"

/* PGN's Termination tag values (PGN standard 9.8.1). */
static const char *const pgn_terminations[] = {
    "abandoned", "adjudication",     "death",        "emergency",
    "normal",    "rules infraction", "time forfeit", "unterminated",
};

/* A wire name or a metrics label: lower-case letters and '_' only. */
static int plain_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!islower((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

START_TEST(table_is_complete)
{
    for (int i = 0; i < ENDING_REASONS; i++) {
        const struct ending *e = ending_get((enum ending_reason)i);
        int term = 0;

        ck_assert_ptr_nonnull(e);
        ck_assert_int_eq(e->reason, i);
        ck_assert_ptr_nonnull(e->name);
        ck_assert_msg(plain_name(e->name), "reason %d: name \"%s\"", i,
                      e->name);
        ck_assert_ptr_nonnull(e->metric);
        ck_assert_msg(plain_name(e->metric), "%s: metric \"%s\"", e->name,
                      e->metric);
        ck_assert_ptr_nonnull(e->words);
        ck_assert_msg(strlen(e->words) > 0 && !strchr(e->words, '|'),
                      "%s: words", e->name);
        ck_assert_ptr_nonnull(e->termination);
        for (size_t t = 0;
             t < sizeof pgn_terminations / sizeof pgn_terminations[0]; t++)
            term |= !strcmp(e->termination, pgn_terminations[t]);
        ck_assert_msg(term, "%s: Termination \"%s\" is not PGN's", e->name,
                      e->termination);
        ck_assert_msg(e->kind == ENDING_KIND_WIN ||
                          e->kind == ENDING_KIND_DRAW ||
                          e->kind == ENDING_KIND_NONE,
                      "%s: kind %d", e->name, (int)e->kind);
        for (int j = 0; j < i; j++) {
            const struct ending *o = ending_get((enum ending_reason)j);
            ck_assert_str_ne(o->name, e->name);
            ck_assert_str_ne(o->metric, e->metric);
        }
    }
    ck_assert_ptr_null(ending_get(ENDING_REASONS));
    ck_assert_ptr_null(ending_get((enum ending_reason) - 1));
}
END_TEST

START_TEST(table_is_consistent)
{
    /* the Termination follows from the reason: no result is
     * "unterminated", both timeouts are "time forfeit", and a game that
     * ended at the board is "normal" (what PROTOCOL.md promises) */
    for (int i = 0; i < ENDING_REASONS; i++) {
        const struct ending *e = ending_get((enum ending_reason)i);
        ck_assert_int_eq(e->kind == ENDING_KIND_NONE,
                         !strcmp(e->termination, "unterminated"));
        ck_assert_int_eq(!strncmp(e->name, "timeout", 7),
                         !strcmp(e->termination, "time forfeit"));
        /* the labels are the wire names (PROTOCOL.md's metrics) */
        ck_assert_str_eq(e->metric, e->name);
    }
    ck_assert_int_eq(ending_get(ENDING_CHECKMATE)->kind, ENDING_KIND_WIN);
    ck_assert_int_eq(ending_get(ENDING_STALEMATE)->kind, ENDING_KIND_DRAW);
    ck_assert_int_eq(ending_get(ENDING_ABORTED)->kind, ENDING_KIND_NONE);
    ck_assert_str_eq(ending_get(ENDING_ABANDONED)->termination, "abandoned");
    ck_assert_str_eq(ending_get(ENDING_TIMEOUT_VS_INSUFFICIENT)->name,
                     "timeout_vs_insufficient");
}
END_TEST

START_TEST(find_by_wire_name)
{
    for (int i = 0; i < ENDING_REASONS; i++) {
        const struct ending *e = ending_get((enum ending_reason)i);
        ck_assert_ptr_eq(ending_find(e->name), e);
    }
    ck_assert_ptr_null(ending_find(NULL));
    ck_assert_ptr_null(ending_find(""));
    ck_assert_ptr_null(ending_find("Checkmate"));
    ck_assert_ptr_null(ending_find("timeout_"));
    ck_assert_ptr_null(ending_find("time"));
}
END_TEST

START_TEST(results)
{
    static const char *const names[ENDING_RESULTS] = {"1-0", "0-1", "1/2-1/2",
                                                      "*"};
    enum ending_result r;

    for (int i = 0; i < ENDING_RESULTS; i++) {
        ck_assert_str_eq(ending_result_name((enum ending_result)i), names[i]);
        r = (enum ending_result) - 1;
        ck_assert_int_eq(ending_result_find(names[i], &r), 0);
        ck_assert_int_eq(r, i);
        ck_assert_int_eq(ending_result_find(names[i], NULL), 0);
    }
    ck_assert_ptr_null(ending_result_name(ENDING_RESULTS));
    ck_assert_int_eq(ending_result_find("2-0", &r), -1);
    ck_assert_int_eq(ending_result_find("", &r), -1);
    ck_assert_int_eq(ending_result_find(NULL, &r), -1);
    ck_assert_int_eq(ending_result_find("1/2", &r), -1);
}
END_TEST

START_TEST(result_for_and_fits)
{
    for (int i = 0; i < ENDING_REASONS; i++) {
        enum ending_reason why = (enum ending_reason)i;
        const struct ending *e = ending_get(why);
        enum ending_result w = ending_result_for(why, 0);
        enum ending_result b = ending_result_for(why, 1);

        switch (e->kind) {
        case ENDING_KIND_WIN:
            ck_assert_int_eq(w, ENDING_WHITE_WINS);
            ck_assert_int_eq(b, ENDING_BLACK_WINS);
            break;
        case ENDING_KIND_DRAW:
            ck_assert_int_eq(w, ENDING_DRAWN);
            ck_assert_int_eq(b, ENDING_DRAWN);
            break;
        case ENDING_KIND_NONE:
            ck_assert_int_eq(w, ENDING_NO_RESULT);
            ck_assert_int_eq(b, ENDING_NO_RESULT);
            break;
        }
        for (int r = 0; r < ENDING_RESULTS; r++)
            ck_assert_msg(ending_result_fits(why, (enum ending_result)r) ==
                              (r == (int)w || r == (int)b),
                          "%s fits %s", e->name,
                          ending_result_name((enum ending_result)r));
    }
    ck_assert(!ending_result_fits(ENDING_REASONS, ENDING_DRAWN));
    ck_assert(!ending_result_fits(ENDING_CHECKMATE, ENDING_RESULTS));
}
END_TEST

/* ---- the other lists of reasons ----------------------------------------- */

/* The source file at path (relative to the source tree), malloc'ed. */
static char *slurp(const char *rel)
{
    const char *data = getenv("CHESS_TEST_DATA"); /* SOURCE/tests/data */
    char path[4096];
    FILE *f;
    char *buf;
    long n;

    snprintf(path, sizeof path, "%s/../../%s", data ? data : "tests/data",
             rel);
    f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Marks the reason named by the n bytes at s as seen in `where`; fails on
 * a name the table does not have or one named twice. */
static void saw(const char *where, const char *s, size_t n,
                int seen[ENDING_REASONS])
{
    char name[64];
    const struct ending *e;

    ck_assert_msg(n < sizeof name, "%s: a reason too long", where);
    memcpy(name, s, n);
    name[n] = '\0';
    e = ending_find(name);
    ck_assert_msg(e != NULL, "%s names \"%s\", which is not a reason", where,
                  name);
    ck_assert_msg(!seen[e->reason], "%s names \"%s\" twice", where, name);
    seen[e->reason] = 1;
}

static void saw_all(const char *where, const int seen[ENDING_REASONS])
{
    for (int i = 0; i < ENDING_REASONS; i++)
        ck_assert_msg(seen[i], "%s does not name \"%s\"", where,
                      ending_get((enum ending_reason)i)->name);
}

/* Copies the n bytes at s without surrounding blanks into out. */
static void cell(const char *s, size_t n, char *out, size_t cap)
{
    while (n && *s == ' ') {
        s++;
        n--;
    }
    while (n && s[n - 1] == ' ')
        n--;
    ck_assert_uint_lt(n, cap);
    memcpy(out, s, n);
    out[n] = '\0';
}

START_TEST(protocol_md_names_the_same_reasons)
{
    static const char header[] =
        "\n| reason | result | PGN `Termination` | meaning |\n";
    char *text = slurp("docs/PROTOCOL.md");
    const char *p = strstr(text, header);
    int seen[ENDING_REASONS] = {0};

    ck_assert_msg(p != NULL, "PROTOCOL.md has no table of endings");
    p += sizeof header - 1;
    p = strchr(p, '\n'); /* the |---| line */
    ck_assert_ptr_nonnull(p);
    for (p++; *p == '|'; p = strchr(p, '\n') + 1) {
        const char *end = strchr(p, '\n');
        const char *bar[5];
        char c[4][160], want[160];
        const struct ending *e;
        int k = 0;

        ck_assert_ptr_nonnull(end);
        for (const char *q = p; q < end && k < 5; q++)
            if (*q == '|')
                bar[k++] = q;
        ck_assert_msg(k == 5 && bar[4] == end - 1,
                      "PROTOCOL.md: a row of the table of endings without "
                      "four cells: %.*s",
                      (int)(end - p), p);
        for (int i = 0; i < 4; i++)
            cell(bar[i] + 1, (size_t)(bar[i + 1] - bar[i] - 1), c[i],
                 sizeof c[i]);
        size_t len = strlen(c[0]);
        ck_assert_msg(len > 2 && c[0][0] == '`' && c[0][len - 1] == '`',
                      "PROTOCOL.md: reason cell %s", c[0]);
        saw("PROTOCOL.md's table of endings", c[0] + 1, len - 2, seen);
        c[0][len - 1] = '\0';
        e = ending_find(c[0] + 1);
        /* the other cells say what the table does */
        if (e->kind == ENDING_KIND_WIN)
            snprintf(want, sizeof want, "`%s` or `%s`",
                     ending_result_name(ENDING_WHITE_WINS),
                     ending_result_name(ENDING_BLACK_WINS));
        else
            snprintf(want, sizeof want, "`%s`",
                     ending_result_name(ending_result_for(e->reason, 0)));
        ck_assert_str_eq(c[1], want);
        snprintf(want, sizeof want, "`%s`", e->termination);
        ck_assert_str_eq(c[2], want);
        ck_assert_str_eq(c[3], e->words);
    }
    saw_all("PROTOCOL.md's table of endings", seen);
    free(text);
}
END_TEST

START_TEST(words_js_names_the_same_reasons)
{
    static const char start[] = "export function reasonText(";
    static const char label[] = "case '";
    char *text = slurp("web/words.js");
    char *p = strstr(text, start), *end;
    int seen[ENDING_REASONS] = {0};

    ck_assert_msg(p != NULL, "words.js has no reasonText");
    end = strstr(p, "\n}\n"); /* the function's closing brace */
    ck_assert_ptr_nonnull(end);
    *end = '\0';
    while ((p = strstr(p, label)) != NULL) {
        char *q = strchr(p += sizeof label - 1, '\'');
        ck_assert_ptr_nonnull(q);
        saw("words.js's reasonText", p, (size_t)(q - p), seen);
        p = q;
    }
    saw_all("words.js's reasonText", seen);
    free(text);
}
END_TEST

static Suite *ending_suite(void)
{
    Suite *s = suite_create("ending");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, table_is_complete);
    tcase_add_test(tc, table_is_consistent);
    tcase_add_test(tc, find_by_wire_name);
    tcase_add_test(tc, results);
    tcase_add_test(tc, result_for_and_fits);
    tcase_add_test(tc, protocol_md_names_the_same_reasons);
    tcase_add_test(tc, words_js_names_the_same_reasons);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_main(ending_suite());
}
