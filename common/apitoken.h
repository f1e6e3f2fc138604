/*
 * apitoken.h - the shape of a personal API token and its scopes
 * (docs/PROTOCOL.md, "API tokens"), shared by the codec, the hub and the
 * `chess-server token` command. Pure: no I/O, no allocation.
 *
 * A token's text is APITOKEN_PREFIX and APITOKEN_RANDOM_CHARS characters
 * of base64url (A-Z a-z 0-9 - _) from 15 random bytes: 120 bits, as
 * lichess's `lip_` tokens. A scope is one of lichess's names that this
 * server serves (the table in apitoken.c); a token holds a set of them as
 * a bit mask, written as a comma-separated list in the table's order.
 */
#ifndef COMMON_APITOKEN_H
#define COMMON_APITOKEN_H

#include <stdbool.h>
#include <stddef.h>

#define APITOKEN_PREFIX "lip_"
#define APITOKEN_RANDOM_BYTES 15
#define APITOKEN_RANDOM_CHARS 20
/* "lip_" + 20 characters */
#define APITOKEN_TEXT_LEN (sizeof APITOKEN_PREFIX - 1 + APITOKEN_RANDOM_CHARS)
/* The longest scope list as text (every scope, commas between). */
#define APITOKEN_SCOPES_TEXT_MAX 160
/* A token's description: at most this many bytes of UTF-8. */
#define APITOKEN_DESC_MAX 100

/* How many scopes there are; scope i is bit (1u << i) of a mask. */
int apitoken_scope_count(void);
/* The name of scope i (0 <= i < apitoken_scope_count()). */
const char *apitoken_scope_name(int i);
/* The bit of the scope named name[0..len), or 0 when there is none. */
unsigned apitoken_scope_bit(const char *name, size_t len);

/* Parses a comma-separated list of scope names (spaces around names
 * allowed; "" is no scope) into *mask: 0; or -1 with the first unknown
 * or empty name quoted in err ("unknown scope 'x' (known: ...)"). */
int apitoken_scopes_parse(const char *list, unsigned *mask, char *err,
                          size_t errlen);
/* Writes mask as "a,b,c" in the table's order into out
 * (APITOKEN_SCOPES_TEXT_MAX + 1 bytes is always enough). */
void apitoken_scopes_format(unsigned mask, char *out, size_t len);

/* True when text has a token's shape: the prefix and exactly
 * APITOKEN_RANDOM_CHARS base64url characters. */
bool apitoken_text_valid(const char *text);

#endif
