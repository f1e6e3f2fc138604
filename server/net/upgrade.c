/*
 * upgrade.c - the WebSocket upgrade's checks (see net_internal.h): the
 * path, RFC 6455's version and key, the Origin allow-list and the
 * connection caps, before lws answers 101.
 */
#include "net/net_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"
#include "lib/netstats.h"
#include "net/trust.h"

/* True when the request's Origin may open a WebSocket: no allow-list, no
 * Origin header, or an Origin in the list. Logs a refusal. */
static bool origin_ok(struct lws *wsi, const char *ip)
{
    char origin[300], q[320];
    int len = lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN);

    if (len <= 0 || !net.cfg.n_allowed_origins)
        return true;
    if (len >= (int)sizeof origin ||
        lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) < 0)
        snprintf(origin, sizeof origin, "(too long)");
    else if (trust_origin(net.cfg.allowed_origins, net.cfg.n_allowed_origins,
                          origin))
        return true;
    log_warn("event=upgrade_refused why=origin ip=%s origin=%s", ip,
             log_quote(q, sizeof q, origin));
    return false;
}

/* True when the upgrade's Sec-WebSocket-Key is what RFC 6455 4.1 asks
 * of a client: 16 bytes in base64 (22 characters, the last carrying 2
 * bits, then "=="). */
static bool key_ok(struct lws *wsi)
{
    static const char b64[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
        "vwxyz0123456789+/";
    char key[32];

    if (lws_hdr_total_length(wsi, WSI_TOKEN_KEY) != 24 ||
        lws_hdr_copy(wsi, key, sizeof key, WSI_TOKEN_KEY) != 24)
        return false;
    return strspn(key, b64) == 22 && strchr("AQgw", key[21]) &&
           !strcmp(key + 22, "==");
}

/* True when the upgrade asks for the protocol's version 13 (RFC 6455
 * 4.2.1: the only one; lws 4.1 takes 8 and 7 too). */
static bool version_ok(struct lws *wsi)
{
    char v[8];

    return lws_hdr_total_length(wsi, WSI_TOKEN_VERSION) == 2 &&
           lws_hdr_copy(wsi, v, sizeof v, WSI_TOKEN_VERSION) == 2 &&
           !strcmp(v, "13");
}

/* Refuses an upgrade on any path but /ws with 404; for any version but 13
 * with 426 (and Sec-WebSocket-Version: 13); with a malformed key with
 * 400 (RFC 6455 4.2.2, 4.4); from an Origin outside
 * allowed_origins (when that list is set) with 403, against cross-site
 * WebSocket hijacking (browsers always send Origin; other clients may
 * leave it out); over max_connections with 503; from an address that
 * holds max_connections_per_ip already with 429. */
int upgrade_confirm(struct lws *wsi)
{
    char uri[256], ip[64], key[ADDRKEY_MAX];
    struct peer *p;

    tcp_request_done(wsi);
    if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) < 0 ||
        strcmp(uri, "/ws")) {
        web_status(wsi, HTTP_STATUS_NOT_FOUND);
        return 1;
    }
    if (net.stopping)
        return -1;
    tcp_client_ip(wsi, ip, sizeof ip);
    if (!version_ok(wsi) || !key_ok(wsi)) {
        bool version = !version_ok(wsi);
        log_info("event=upgrade_refused why=%s ip=%s",
                 version ? "version" : "key", ip);
        web_status(wsi, version ? 426 : HTTP_STATUS_BAD_REQUEST);
        return 1;
    }
    if (!origin_ok(wsi, ip)) {
        net.stats->refused_origin++;
        web_status(wsi, HTTP_STATUS_FORBIDDEN);
        return 1;
    }
    if (net.n_conns >= net.cfg.max_connections) {
        log_warn("event=upgrade_refused why=max_connections ip=%s "
                 "connections=%d",
                 ip, net.n_conns);
        net.stats->refused_full++;
        web_status(wsi, HTTP_STATUS_SERVICE_UNAVAILABLE);
        return 1;
    }
    tcp_key(ip, key);
    p = table_get(&net.peers, key);
    if (p && p->conns >= net.cfg.max_connections_per_ip) {
        log_warn("event=upgrade_refused why=max_connections_per_ip ip=%s "
                 "key=%s connections=%d",
                 ip, key, p->conns);
        net.stats->refused_per_ip++;
        web_status(wsi, 429);
        return 1;
    }
    return 0;
}
