/*
 * apiform.h - the fields of an HTTP API request's body, as lichess takes
 * them: a form (application/x-www-form-urlencoded: '+' a space, %XX a
 * byte) or a JSON object (lichess-bot posts its challenges so; strings,
 * integers and booleans as their text, null left out). Any thread; no
 * state.
 */
#ifndef SERVER_HUB_APIFORM_H
#define SERVER_HUB_APIFORM_H

#include <stdbool.h>
#include <stddef.h>

/* The most fields a body may have, and the bytes of a value (with its
 * NUL). */
#define API_FORM_FIELDS 16
#define API_FORM_VALUE_MAX 128

struct api_form {
    size_t n;
    char key[API_FORM_FIELDS][32];
    char value[API_FORM_FIELDS][API_FORM_VALUE_MAX];
};

/* Parses body[0..len) (NUL-terminated at len) into *f: NULL, or the
 * error's words (a constant). */
const char *api_form_parse(struct api_form *f, const char *body, size_t len);

/* True, with the value in *out, when s is a decimal integer in lo-hi
 * (a field's value: NULL or "" is none). */
bool api_form_int(const char *s, long lo, long hi, long *out);

/* NULL when every field of f is one of the n names known; else the
 * error's words, "unknown field 'NAME'", into why (len bytes). */
const char *api_form_unknown(const struct api_form *f,
                             const char *const *known, size_t n, char *why,
                             size_t len);

/* The value of field key (the first), or NULL. */
const char *api_form_get(const struct api_form *f, const char *key);

#endif
