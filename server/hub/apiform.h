/*
 * apiform.h - the fields of an HTTP API request's body, as lichess takes
 * them: a form (application/x-www-form-urlencoded: '+' a space, %XX a
 * byte) or a JSON object (lichess-bot posts its challenges so; strings,
 * integers and booleans as their text, null left out). Any thread; no
 * state.
 */
#ifndef SERVER_HUB_APIFORM_H
#define SERVER_HUB_APIFORM_H

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

/* The value of field key (the first), or NULL. */
const char *api_form_get(const struct api_form *f, const char *key);

#endif
