/*
 * config_internal.h - the table of settings (config_keys.c) as config.c
 * reads it: each setting's kind, where it lives in struct config, its
 * range and its default. Not for other modules: they see struct
 * config_setting (config.h).
 */
#ifndef SERVER_APP_CONFIG_INTERNAL_H
#define SERVER_APP_CONFIG_INTERNAL_H

#include <stddef.h>

#include "app/config.h"

enum kind {
    K_INT,     /* integer in [lo, hi] */
    K_PATH,    /* non-empty string (or empty when lo == 0) */
    K_ADDR,    /* "" or an IPv4/IPv6 address */
    K_ORIGINS, /* list of origins */
    K_PROXIES, /* list of IPv4/IPv6 addresses */
    K_LEVEL,   /* log level word */
    K_TLSVER,  /* "1.2" or "1.3" */
    K_GUESTS,  /* "off", "token" or "address" (playban_guests) */
    K_CIPHERS, /* an OpenSSL cipher list (checked by OpenSSL in main.c) */
    K_NODE,    /* a node id: 1-CONFIG_NODE_ID_MAX of [A-Za-z0-9_-] */
    K_REDIS,   /* "" or "host:port" ("[v6]:port") or a socket path */
    K_NAMES,   /* "" or usernames separated by commas (tourney_creators) */
};

/* One row of the table: what the command line and the docs see (pub,
 * first, so that a pointer to it is a pointer to its row), then how the
 * value is checked and stored. */
struct key {
    struct config_setting pub;
    enum kind kind;
    size_t off;          /* of the field in struct config */
    long lo, hi;         /* K_INT: the range; strings: lo 1: not empty */
    long def;            /* K_INT's default */
    const char *def_str; /* the default of a string or log level; lists
                            have none (empty) */
    const char *shown;   /* the default in words when its text is too long
                            for --help and operator.md's table; NULL: its
                            text */
};

/* Every setting, in the order of docs/operator.md's table
 * (config_keys.c); config__nkeys rows. */
extern const struct key config__keys[];
extern const size_t config__nkeys;

#endif
