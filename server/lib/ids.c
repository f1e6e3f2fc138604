/*
 * ids.c - random identifiers (see ids.h).
 */
#include "lib/ids.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <string.h>

static const char b64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int ids_random(char *out, size_t nbytes)
{
    unsigned char raw[64];
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;

    out[0] = '\0';
    if (nbytes > sizeof raw || RAND_bytes(raw, (int)nbytes) != 1)
        return -1;
    for (size_t i = 0; i < nbytes; i++) {
        acc = (acc << 8) | raw[i];
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out[o++] = b64url[(acc >> bits) & 63];
        }
    }
    if (bits > 0)
        out[o++] = b64url[(acc << (6 - bits)) & 63];
    out[o] = '\0';
    return 0;
}

unsigned ids_random_byte(void)
{
    unsigned char b = 0;

    RAND_bytes(&b, 1);
    return b;
}

void ids_token_hash(const char *token, uint8_t out[32])
{
    unsigned int len = 32;

    EVP_Digest(token, strlen(token), out, &len, EVP_sha256(), NULL);
}
