/*
 * ids.h - random identifiers and tokens from OpenSSL's RAND_bytes, and the
 * SHA-256 under which tokens are stored.
 */
#ifndef SERVER_IDS_H
#define SERVER_IDS_H

#include <stddef.h>
#include <stdint.h>

/* Writes base64url text of nbytes random bytes into out (room for
 * 4 * nbytes / 3 + 2 characters). Returns 0, or -1 when the random source
 * failed (out is then empty). */
int ids_random(char *out, size_t nbytes);

/* A random byte, for coin flips. */
unsigned ids_random_byte(void);

/* SHA-256 of the token's text. */
void ids_token_hash(const char *token, uint8_t out[32]);

#endif
