/*
 * apiform.c - the fields of an HTTP API request's body (see apiform.h).
 */
#include "hub/apiform.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hex(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Decodes in[0..n) ('+' a space, %XX a byte) into out (len bytes): 0,
 * or -1 when malformed, too long or not printable. */
static int decode(const char *in, size_t n, char *out, size_t len)
{
    size_t o = 0;

    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)in[i];
        if (c == '+')
            c = ' ';
        else if (c == '%') {
            if (i + 2 >= n || hex(in[i + 1]) < 0 || hex(in[i + 2]) < 0)
                return -1;
            c = hex(in[i + 1]) * 16 + hex(in[i + 2]);
            i += 2;
        }
        if (c < 0x20 || c == 0x7f || o + 1 >= len)
            return -1;
        out[o++] = (char)c;
    }
    out[o] = '\0';
    return 0;
}

/* A JSON object's fields as a form's (lichess-bot posts its challenges
 * as JSON): strings, numbers and booleans as their text; null left out.
 * NULL, or the error's words. */
static const char *form_json(struct api_form *f, const char *body, size_t len)
{
    json_t *o = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL), *v;
    const char *key, *bad = NULL;

    if (!json_is_object(o)) {
        json_decref(o);
        return "malformed JSON body: an object expected";
    }
    json_object_foreach(o, key, v)
    {
        char *val = f->value[f->n];
        size_t cap = sizeof f->value[0];
        if (json_is_null(v))
            continue;
        if (f->n == API_FORM_FIELDS) {
            bad = "too many fields";
            break;
        }
        if (strlen(key) >= sizeof f->key[0] ||
            (json_is_string(v) && json_string_length(v) >= cap)) {
            bad = "a field too long";
            break;
        }
        snprintf(f->key[f->n], sizeof f->key[0], "%s", key);
        if (json_is_string(v))
            snprintf(val, cap, "%s", json_string_value(v));
        else if (json_is_integer(v))
            snprintf(val, cap, "%lld", (long long)json_integer_value(v));
        else if (json_is_boolean(v))
            snprintf(val, cap, "%s", json_is_true(v) ? "true" : "false");
        else {
            bad = "fields are strings, integers or booleans";
            break;
        }
        f->n++;
    }
    json_decref(o);
    return bad;
}

const char *api_form_parse(struct api_form *f, const char *body, size_t len)
{
    size_t i = 0;

    memset(f, 0, sizeof *f);
    while (i < len && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r'))
        i++;
    if (i < len && body[i] == '{')
        return form_json(f, body, len);
    i = 0;
    while (i < len) {
        const char *p = body + i;
        size_t n = strcspn(p, "&"), k;
        if (i + n > len)
            n = len - i;
        k = strcspn(p, "=");
        if (n > 0) {
            if (f->n == API_FORM_FIELDS)
                return "too many fields";
            if (k > n)
                k = n;
            if (decode(p, k, f->key[f->n], sizeof f->key[0]) < 0 ||
                decode(p + k + (k < n), n - k - (k < n), f->value[f->n],
                       sizeof f->value[0]) < 0)
                return "malformed form body (or a field over 127 bytes)";
            f->n++;
        }
        i += n + 1;
    }
    return NULL;
}

const char *api_form_get(const struct api_form *f, const char *key)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->key[i], key))
            return f->value[i];
    return NULL;
}

bool api_form_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;

    if (!s || !*s)
        return false;
    v = strtol(s, &end, 10);
    if (*end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

const char *api_form_unknown(const struct api_form *f,
                             const char *const *known, size_t n, char *why,
                             size_t len)
{
    for (size_t k = 0; k < f->n; k++) {
        bool ok = false;
        for (size_t j = 0; j < n; j++)
            ok |= !strcmp(f->key[k], known[j]);
        if (!ok) {
            snprintf(why, len, "unknown field '%s'", f->key[k]);
            return why;
        }
    }
    return NULL;
}
