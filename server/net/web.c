/*
 * web.c - HTTP on the main port and the redirect port (see
 * net_internal.h): static files of the client, the API's answers through
 * the handlers, status answers, the headers of every answer and their
 * Date, and the plain-HTTP listener's redirect to HTTPS.
 */
#include "net/net_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "net/frames.h"
#include "net/gzcache.h"
#include "lib/log.h"
#include "lib/netstats.h"
#include "lib/ratelimit.h"
#include "net/tls.h"

/* ---- HTTP -------------------------------------------------------------- */

#define MAX_ARGS 8
/* The bytes of one query argument, decoded, with its name: as long as
 * a request line (frames.h), so that none is dropped (GET
 * /api/users/status's ids: hub/lichessapi.c). */
#define ARG_MAX (FRAMES_LINE_MAX + 1)

/* A URL path that names a file under the web folder: no "..", no hidden
 * files, only ordinary characters. */
static bool safe_path(const char *uri)
{
    if (uri[0] != '/' || strstr(uri, "/.") || strstr(uri, ".."))
        return false;
    for (const char *p = uri; *p; p++)
        if (!(*p == '/' || *p == '.' || *p == '_' || *p == '-' ||
              (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9')))
            return false;
    return true;
}

/* Counts an HTTP response to uri under its route and status. */
static void count_http(const char *uri, int status)
{
    if (net.attached)
        netstats_http(net.stats, (enum netstats_route)net.hd.http_route(uri),
                      status);
}

/* The answer to the request on wsi is complete: the connection closes,
 * or (kept alive) waits for its next request under request_timeout_s.
 * Returns the callback's result. */
static int http_done(struct lws *wsi)
{
    tcp_await_request(wsi);
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* True when the request on wsi is a HEAD: answered as its GET would be,
 * without the body. */
static bool is_head(struct lws *wsi)
{
    return lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0;
}

/* True when the request on wsi is a POST (the HTTP API's, with a body
 * of at most FRAMES_BODY_MAX bytes: wire.c refuses a longer one). */
static bool is_post(struct lws *wsi)
{
    return lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI) > 0;
}

/* The header holding the request's path: a GET's, a HEAD's or a
 * POST's. */
static enum lws_token_indexes path_token(struct lws *wsi)
{
    return is_head(wsi)   ? WSI_TOKEN_HEAD_URI
           : is_post(wsi) ? WSI_TOKEN_POST_URI
                          : WSI_TOKEN_GET_URI;
}

static const char *status_text(unsigned code)
{
    switch (code) {
    case HTTP_STATUS_BAD_REQUEST:
        return "Bad Request";
    case HTTP_STATUS_FORBIDDEN:
        return "Forbidden";
    case HTTP_STATUS_NOT_FOUND:
        return "Not Found";
    case HTTP_STATUS_REQ_URI_TOO_LONG:
        return "URI Too Long";
    case 426:
        return "Upgrade Required";
    case 405:
        return "Method Not Allowed";
    case 413:
        return "Content Too Large";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case HTTP_STATUS_INTERNAL_SERVER_ERROR:
        return "Internal Server Error";
    case HTTP_STATUS_SERVICE_UNAVAILABLE:
        return "Service Unavailable";
    default:
        return "Error";
    }
}

/* Answers the request on wsi with status code and its reason as a line
 * of text (none to a HEAD): what lws_return_http_status does, which
 * writes its body to a HEAD too. Returns nonzero when it could not be
 * written. */
int web_status(struct lws *wsi, unsigned code)
{
    uint8_t buf[LWS_PRE + 2048], *start = &buf[LWS_PRE], *p = start,
                                 *end = &buf[sizeof buf - 1];
    char body[64], len[16];
    int n = snprintf(body, sizeof body, "%u %s\n", code, status_text(code));
    int ln = snprintf(len, sizeof len, "%d", n);

    if (lws_add_http_header_status(wsi, code, &p, end) ||
        (code == 426 && /* RFC 6455 4.2.2: the version understood */
         lws_add_http_header_by_token(wsi, WSI_TOKEN_VERSION,
                                      (unsigned char *)"13", 2, &p, end)) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE,
                                     (unsigned char *)"text/plain", 10, &p,
                                     end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH,
                                     (unsigned char *)len, ln, &p, end) ||
        lws_finalize_http_header(wsi, &p, end) || end - p < n)
        return 1;
    if (!is_head(wsi)) {
        memcpy(p, body, (size_t)n);
        p += n;
    }
    n = (int)(p - start);
    return lws_write(wsi, start, (size_t)n, LWS_WRITE_HTTP) != n;
}

/* wire.c's refusal of a request head (wire.h): the answer web_status
 * would write, with every common header, `connection: close` and the
 * line of text, formatted here because lws never sees the request.
 * Counted under the route `other`; logged at debug level (a flood of
 * them must not flood the log). */
size_t web_refusal(int fd, bool tls, int status, const char *why, char *buf,
                   size_t cap)
{
    const struct lws_protocol_vhost_options *h = tls ? &web_headers_hsts
                                                     : &web_headers;
    char body[64], ip[64];
    int n = snprintf(body, sizeof body, "%d %s\n", status,
                     status_text((unsigned)status));
    size_t at;

    tcp_fd_ip(fd, ip, sizeof ip);
    log_debug("event=http_refused why=%s status=%d ip=%s", why, status, ip);
    if (net.attached)
        netstats_http(net.stats, NETSTATS_ROUTE_OTHER, status);
    at = (size_t)snprintf(buf, cap, "HTTP/1.1 %d %s\r\n", status,
                          status_text((unsigned)status));
    for (; h && at < cap; h = h->next)
        at += (size_t)snprintf(buf + at, cap - at, "%s %s\r\n", h->name,
                               h->value);
    if (at < cap)
        at += (size_t)snprintf(buf + at, cap - at,
                               "content-type: text/plain\r\n"
                               "content-length: %d\r\n"
                               "connection: close\r\n\r\n%s",
                               n, body);
    return at < cap ? at : 0;
}

static int not_found(struct lws *wsi)
{
    web_status(wsi, HTTP_STATUS_NOT_FOUND);
    return http_done(wsi);
}

/* True when the If-None-Match list inm names etag ("*" names any; weak
 * tags compare as strong ones: RFC 9110 13.1.2's weak comparison). */
static bool etag_listed(const char *inm, const char *etag)
{
    size_t n = strlen(etag);

    for (const char *p = inm; *p;) {
        const char *end;
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (*p == '*')
            return true;
        if (!strncmp(p, "W/", 2))
            p += 2;
        end = p + strcspn(p, ", \t");
        if ((size_t)(end - p) == n && !memcmp(p, etag, n))
            return true;
        p = end;
    }
    return false;
}

/* Appends headers (raw lines) after what is in [start, p) and writes
 * the whole header block; -1 when it does not fit or lws fails. */
static int end_headers(struct lws *wsi, uint8_t *start, uint8_t *p,
                       uint8_t *end, const char *headers)
{
    size_t n = strlen(headers);

    if ((size_t)(end - p) < n)
        return -1;
    memcpy(p, headers, n);
    p += n;
    return lws_finalize_write_http_header(wsi, start, &p, end) ? -1 : 0;
}

/* Answers 304 Not Modified: the validators, no body. */
static int not_modified(struct lws *wsi, const char *headers)
{
    uint8_t buf[LWS_PRE + 1024], *start = &buf[LWS_PRE], *p = start,
                                 *end = &buf[sizeof buf - 1];

    if (lws_add_http_header_status(wsi, HTTP_STATUS_NOT_MODIFIED, &p, end) ||
        end_headers(wsi, start, p, end, headers))
        return -1;
    return http_done(wsi);
}

/* Sends the gzip copy gz (len bytes) of a file of the given type as the
 * answer to the request on wsi, with headers (raw lines) after the
 * common ones; none of its body to a HEAD. The body goes out from a copy
 * the connection owns (pss->body), as the API's answers do. */
static int serve_gzip(struct lws *wsi, struct http_pss *pss, const char *type,
                      const unsigned char *gz, size_t len,
                      const char *headers)
{
    uint8_t buf[LWS_PRE + 1024], *start = &buf[LWS_PRE], *p = start,
                                 *end = &buf[sizeof buf - 1];

    if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, type,
                                    (lws_filepos_t)len, &p, end) ||
        end_headers(wsi, start, p, end, headers))
        return -1;
    if (is_head(wsi))
        return http_done(wsi);
    free(pss->body);
    pss->body = malloc(len);
    if (!pss->body)
        return -1;
    memcpy(pss->body, gz, len);
    pss->len = len;
    pss->sent = 0;
    lws_callback_on_writable(wsi);
    return 0;
}

/* Static files of the client; /g/GID is the client's page for a game,
 * /p/PID its page for a player (games and ratings), /leaderboard its
 * leaderboard, /tournaments and /t/EID its tournaments' pages, /mod the
 * moderation page.
 * (lws 4.1's file mounts never answer a missing file, so this callback
 * serves the folder itself and says 404.) Every file carries an ETag
 * (its size and modification time) and `Cache-Control: no-cache`: a
 * browser keeps it and asks again with If-None-Match, answered 304 with
 * no body while the file is unchanged, so a new version of the client is
 * seen at once and an unchanged one is not sent again.
 * Text files (gzcache_compressible) go gzip-compressed to a request whose
 * Accept-Encoding allows it, from the copy gzcache made once for this
 * version of the file, when that is smaller; that representation's ETag
 * ends in "-gz". Every file says `Vary: Accept-Encoding`. */
static int serve_file(struct lws *wsi, struct http_pss *pss, const char *uri)
{
    char path[sizeof net.web_dir + 600], etag[48], inm[256], headers[192],
        ae[256];
    const unsigned char *gz = NULL;
    size_t gz_len = 0;
    const char *type;
    struct stat st;

    if (!strncmp(uri, "/g/", 3) || !strncmp(uri, "/p/", 3) ||
        !strncmp(uri, "/t/", 3) || !strcmp(uri, "/leaderboard") ||
        !strcmp(uri, "/tournaments") || !strcmp(uri, "/analysis") ||
        !strcmp(uri, "/mod"))
        uri = "/index.html";
    if (!safe_path(uri) ||
        snprintf(path, sizeof path, "%s%s%s", net.web_dir, uri,
                 uri[strlen(uri) - 1] == '/' ? "index.html" : "") >=
            (int)sizeof path ||
        stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
        count_http(uri, HTTP_STATUS_NOT_FOUND);
        return not_found(wsi);
    }
    snprintf(etag, sizeof etag, "\"%llx-%llx", (unsigned long long)st.st_size,
             (unsigned long long)st.st_mtim.tv_sec * 1000000000ull +
                 (unsigned long long)st.st_mtim.tv_nsec);
    /* (an Accept-Encoding longer than ae: identity) */
    if (gzcache_compressible(path) &&
        lws_hdr_copy(wsi, ae, sizeof ae, WSI_TOKEN_HTTP_ACCEPT_ENCODING) >
            0 &&
        gzcache_accepts(ae))
        gz = gzcache_get(net.gz, path, etag, &gz_len);
    strcat(etag, gz ? "-gz\"" : "\"");
    snprintf(headers, sizeof headers,
             "etag: %s\x0d\x0a"
             "cache-control: no-cache\x0d\x0a"
             "vary: accept-encoding\x0d\x0a",
             etag);
    if (lws_hdr_copy(wsi, inm, sizeof inm, WSI_TOKEN_HTTP_IF_NONE_MATCH) >
            0 &&
        etag_listed(inm, etag)) {
        count_http(uri, HTTP_STATUS_NOT_MODIFIED);
        return not_modified(wsi, headers);
    }
    count_http(uri, HTTP_STATUS_OK);
    type = lws_get_mimetype(path, &web_mount);
    if (!type)
        type = "application/octet-stream";
    if (gz) {
        /* (not in a 304, which carries only the validators) */
        strcat(headers, "content-encoding: gzip\x0d\x0a");
        return serve_gzip(wsi, pss, type, gz, gz_len, headers);
    }
    if (lws_serve_http_file(wsi, path, type, headers, (int)strlen(headers)) <
        0)
        return -1;
    return 0;
}

/* Writes the head of the answer r (its body, taken into pss, follows on
 * WRITEABLE; none to a HEAD), or a status answer when r has no body. */
static int answer_now(struct lws *wsi, struct http_pss *pss,
                      struct net_reply *r)
{
    uint8_t buf[LWS_PRE + 1024], *start = &buf[LWS_PRE], *p = start,
                                 *end = &buf[sizeof buf - 1];

    if (!r->body) {
        web_status(wsi, (unsigned)r->status);
        return http_done(wsi);
    }
    pss->body = r->body;
    pss->len = r->len;
    pss->sent = 0;
    if (lws_add_http_common_headers(wsi, (unsigned)r->status, r->type,
                                    (lws_filepos_t)r->len, &p, end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL,
                                     (unsigned char *)"no-store", 8, &p,
                                     end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    if (is_head(wsi)) {
        free(pss->body);
        pss->body = NULL;
        return http_done(wsi);
    }
    lws_callback_on_writable(wsi);
    return 0;
}

/* The token of an `Authorization: Bearer TOKEN` header into buf (""
 * when there is none or another scheme). */
static void bearer_of(struct lws *wsi, char *buf, size_t len)
{
    char auth[160];
    const char *t = auth + 7;

    buf[0] = '\0';
    if (lws_hdr_copy(wsi, auth, sizeof auth, WSI_TOKEN_HTTP_AUTHORIZATION) <=
            7 ||
        strncasecmp(auth, "Bearer ", 7))
        return;
    while (*t == ' ')
        t++;
    snprintf(buf, len, "%s", t);
    for (size_t n = strlen(buf); n && buf[n - 1] == ' '; n--)
        buf[n - 1] = '\0';
}

/* Hands the API request on wsi (its path uri, its POST body, if any, in
 * pss->rx) to the handlers and answers it now or later. */
static int http_dispatch(struct lws *wsi, struct http_pss *pss,
                         const char *uri)
{
    char argbuf[MAX_ARGS][ARG_MAX], bearer[160], ip[64], key[ADDRKEY_MAX];
    const char *args[MAX_ARGS];
    struct net_reply r;
    size_t nargs = 0;

    while (nargs < MAX_ARGS &&
           lws_hdr_copy_fragment(wsi, argbuf[nargs], sizeof argbuf[0],
                                 WSI_TOKEN_HTTP_URI_ARGS, (int)nargs) > 0) {
        args[nargs] = argbuf[nargs];
        nargs++;
    }
    bearer_of(wsi, bearer, sizeof bearer);
    tcp_client_ip(wsi, ip, sizeof ip);
    tcp_key(ip, key);
    struct net_request q = {
        .method = is_post(wsi) ? "POST" : "GET",
        .path = uri,
        .args = args,
        .nargs = nargs,
        .bearer = bearer[0] ? bearer : NULL,
        .body = pss->rx ? pss->rx : "",
        .body_len = pss->rx_len,
        .addr = key,
    };
    pss->later = ++net.later_next;
    net.hd.http(net.hd.ctx, &q, net_now_ms(), pss->later, &r);
    free(pss->rx);
    pss->rx = NULL;
    pss->rx_len = 0;
    if (r.status == NET_REPLY_LATER) {
        /* the answer comes with net_http_answer, then WRITEABLE */
        snprintf(pss->key, sizeof pss->key, "%llx",
                 (unsigned long long)pss->later);
        pss->route = net.hd.http_route(uri);
        pss->ready = false;
        if (table_put(&net.later, pss->key, wsi) < 0)
            return -1;
        return 0;
    }
    pss->later = 0;
    count_http(uri, r.status);
    return answer_now(wsi, pss, &r);
}

static int http_begin(struct lws *wsi, struct http_pss *pss)
{
    char uri[512] = "";
    struct net_reply r;

    if (lws_hdr_total_length(wsi, path_token(wsi)) >= (int)sizeof uri) {
        /* no path of ours is this long; say so rather than hang up */
        web_status(wsi, HTTP_STATUS_REQ_URI_TOO_LONG);
        return http_done(wsi);
    }
    /* any other method has no path here: a 404 */
    if (lws_hdr_copy(wsi, uri, sizeof uri, path_token(wsi)) < 0)
        return -1;
    if (!net.hd.http_wants(uri) && !is_post(wsi))
        return serve_file(wsi, pss, uri);
    if (is_post(wsi) && strncmp(uri, "/api/", 5)) {
        web_status(wsi, 405); /* (files and probes are read, not posted) */
        return http_done(wsi);
    }
    if (!strncmp(uri, "/api/", 5) || !strncmp(uri, "/game/export/", 13)) {
        /* (the API's, and lichess's path of a game's PGN) by the
         * client's key: behind a trusted proxy the address it names,
         * not the proxy's (one bucket for the whole site) */
        char ip[64], key[ADDRKEY_MAX];
        tcp_client_ip(wsi, ip, sizeof ip);
        tcp_key(ip, key);
        if (!ratelimit_take(net.api_limits, key, net_now_ms())) {
            net.stats->refused_http_rate++;
            net.hd.http_too_many(&r);
            count_http(uri, r.status);
            return answer_now(wsi, pss, &r);
        }
    }
    if (is_post(wsi) &&
        lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0) {
        /* its body first (LWS_CALLBACK_HTTP_BODY, then _COMPLETION) */
        free(pss->post_uri);
        if (!(pss->post_uri = strdup(uri)))
            return -1;
        return 0;
    }
    return http_dispatch(wsi, pss, uri);
}

/* A piece of a POST's body (at most FRAMES_BODY_MAX bytes in all: wire.c
 * refuses a head that announces more, and lws reads no further). */
static int http_body(struct http_pss *pss, const void *in, size_t len)
{
    char *grown;

    if (!pss->post_uri || pss->rx_len + len > FRAMES_BODY_MAX)
        return -1;
    if (!(grown = realloc(pss->rx, pss->rx_len + len + 1)))
        return -1;
    if (len) /* (an empty body's piece may come as NULL) */
        memcpy(grown + pss->rx_len, in, len);
    pss->rx = grown;
    pss->rx_len += len;
    pss->rx[pss->rx_len] = '\0';
    return 0;
}

static int http_body_done(struct lws *wsi, struct http_pss *pss)
{
    char *uri = pss->post_uri;
    int rc;

    if (!uri)
        return -1;
    if (!pss->rx && !(pss->rx = calloc(1, 1)))
        return -1;
    pss->post_uri = NULL;
    rc = http_dispatch(wsi, pss, uri);
    free(uri);
    return rc;
}

void net_http_answer(uint64_t later, struct net_reply *r)
{
    char key[24];
    struct lws *wsi;
    struct http_pss *pss;

    snprintf(key, sizeof key, "%llx", (unsigned long long)later);
    wsi = table_del(&net.later, key);
    pss = wsi ? lws_wsi_user(wsi) : NULL;
    if (!pss || pss->later != later) { /* its connection went */
        free(r->body);
        return;
    }
    if (net.attached)
        netstats_http(net.stats, (enum netstats_route)pss->route, r->status);
    pss->later = 0;
    pss->ready = true;
    pss->status = r->status;
    pss->type = r->type;
    pss->body = r->body;
    pss->len = r->len;
    pss->sent = 0;
    lws_callback_on_writable(wsi);
}

static int http_write(struct lws *wsi, struct http_pss *pss)
{
    uint8_t buf[LWS_PRE + 16384];
    size_t chunk = pss->len - pss->sent;
    enum lws_write_protocol kind = LWS_WRITE_HTTP_FINAL;

    if (pss->ready) { /* an answer that came later: its head first */
        struct net_reply r = {pss->status, pss->type, pss->body, pss->len};
        pss->ready = false;
        pss->body = NULL;
        return answer_now(wsi, pss, &r);
    }
    if (!pss->body)
        return 0;
    if (chunk > sizeof buf - LWS_PRE) {
        chunk = sizeof buf - LWS_PRE;
        kind = LWS_WRITE_HTTP;
    }
    memcpy(buf + LWS_PRE, pss->body + pss->sent, chunk);
    if (lws_write(wsi, buf + LWS_PRE, chunk, kind) != (int)chunk)
        return -1;
    pss->sent += chunk;
    if (kind == LWS_WRITE_HTTP) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    free(pss->body);
    pss->body = NULL;
    return http_done(wsi);
}

int web_callback(struct lws *wsi, enum lws_callback_reasons reason,
                 void *user, void *in, size_t len)
{
    struct http_pss *pss = user;

    int rc;

    if (tcp_event(wsi, reason, in, &rc))
        return rc;
    switch (reason) {
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        return upgrade_confirm(wsi);
    case LWS_CALLBACK_HTTP:
        tcp_request_done(wsi);
        return http_begin(wsi, pss);
    case LWS_CALLBACK_HTTP_FILE_COMPLETION:
        /* lws completes the transaction itself after this */
        tcp_await_request(wsi);
        break;
    case LWS_CALLBACK_HTTP_BODY:
        return http_body(pss, in, len);
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        return http_body_done(wsi, pss);
    case LWS_CALLBACK_HTTP_WRITEABLE:
        if (pss && pss->stream)
            return ndjson_writeable(wsi, pss);
        return http_write(wsi, pss);
    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        if (pss && pss->stream)
            ndjson_closed(pss);
        if (pss) {
            free(pss->body);
            pss->body = NULL;
            free(pss->rx);
            pss->rx = NULL;
            pss->rx_len = 0;
            free(pss->post_uri);
            pss->post_uri = NULL;
            if (pss->later) /* (its answer, should it come, is dropped) */
                table_del(&net.later, pss->key);
            pss->later = 0;
            pss->ready = false;
        }
        break;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        return 0; /* handled by the chess protocol */
    case LWS_CALLBACK_OPENSSL_LOAD_EXTRA_SERVER_VERIFY_CERTS: {
        /* the HTTPS vhost's SSL_CTX, before its certificate is loaded */
        char err[600], q[700];
        if (tls_setup_ctx(user, &net.cfg, err, sizeof err) < 0) {
            log_error("event=tls_setup_failed error=%s",
                      log_quote(q, sizeof q, err));
            return 1;
        }
        return 0;
    }
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocol_vhost_options mime_mjs = {NULL, NULL, ".mjs",
                                                           "text/javascript"};
static const struct lws_protocol_vhost_options mime_svg = {
    &mime_mjs, NULL, ".svg", "image/svg+xml"};
static const struct lws_protocol_vhost_options mime_types = {
    &mime_svg, NULL, ".json", "application/json"};

/* One callback mount for the whole URL space (see serve_file); its
 * extra_mimetypes also feed lws_get_mimetype. */
const struct lws_http_mount web_mount = {
    .mountpoint = "/",
    .mountpoint_len = 1,
    .protocol = "http",
    .origin_protocol = LWSMPRO_CALLBACK,
    .extra_mimetypes = &mime_types,
};

/* ---- HTTP to HTTPS redirect ------------------------------------------- */

/* The Host header's host without its port, when it is a plain name or
 * address (anything else could smuggle text into the Location header). */
static bool redirect_host(struct lws *wsi, char *host, size_t len)
{
    char *colon;

    if (lws_hdr_copy(wsi, host, (int)len, WSI_TOKEN_HOST) <= 0)
        return false;
    if (host[0] == '[') {
        colon = strchr(host, ']');
        if (!colon)
            return false;
        colon[1] = '\0';
    } else if ((colon = strchr(host, ':'))) {
        *colon = '\0';
    }
    for (const char *p = host; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' ||
              *p == ':' || *p == '[' || *p == ']'))
            return false;
    return host[0] != '\0';
}

/* Appends s to out (of cap bytes, at *at) percent-encoded: every byte
 * but the unreserved characters and those in `keep` becomes %XX, so no
 * control character, space or quote reaches the header. lws hands the
 * path and the query arguments over decoded; encoding them again gives
 * the URL as sent (up to the case of hex digits and the encoding of
 * characters that need none). Returns false when it does not fit. */
static bool url_append(char *out, size_t cap, size_t *at, const char *s,
                       const char *keep)
{
    static const char hex[] = "0123456789ABCDEF";

    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                     (*c >= '0' && *c <= '9') || strchr("-._~", *c) ||
                     strchr(keep, *c);
        if (*at + (plain ? 1 : 3) >= cap)
            return false;
        if (plain) {
            out[(*at)++] = (char)*c;
        } else {
            out[(*at)++] = '%';
            out[(*at)++] = hex[*c >> 4];
            out[(*at)++] = hex[*c & 15];
        }
    }
    out[*at] = '\0';
    return true;
}

/* The request's path and query, encoded for a Location header (see
 * url_append) into out. Returns false when they cannot be read or do not
 * fit. */
static bool redirect_target(struct lws *wsi, char *out, size_t cap)
{
    char part[1024], *eq;
    size_t at = 0;

    part[0] = '\0';
    if (lws_hdr_copy(wsi, part, sizeof part, path_token(wsi)) < 0)
        return false;
    if (!url_append(out, cap, &at, part[0] ? part : "/", "/!$&'()*+,;=:@"))
        return false;
    for (int i = 0; lws_hdr_copy_fragment(wsi, part, sizeof part,
                                          WSI_TOKEN_HTTP_URI_ARGS, i) >= 0;
         i++) {
        /* one "name=value" argument: '&' would split it, so it is
         * encoded; the first '=' is the separator, any other is encoded
         * (what a form decoder reads the same either way) */
        if (!url_append(out, cap, &at, i ? "&" : "?", "&?"))
            return false;
        eq = strchr(part, '=');
        if (eq)
            *eq = '\0';
        if (!url_append(out, cap, &at, part, "/?!$'()*,;:@") ||
            (eq && (!url_append(out, cap, &at, "=", "=") ||
                    !url_append(out, cap, &at, eq + 1, "/?!$'()*,;:@"))))
            return false;
    }
    return true;
}

/* Answers every request on the plain-HTTP listener with 301 to the same
 * host, path and query over https on the main port. */
static int callback_redirect(struct lws *wsi,
                             enum lws_callback_reasons reason, void *user,
                             void *in, size_t len)
{
    uint8_t buf[LWS_PRE + 4096], *start = &buf[LWS_PRE], *p = start,
                                 *end = &buf[sizeof buf - 1];
    char host[256], uri[2048], loc[2400], port[8] = "";
    int n;

    if (tcp_event(wsi, reason, in, &n))
        return n;
    switch (reason) {
    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        web_status(wsi, HTTP_STATUS_FORBIDDEN);
        return 1;
    case LWS_CALLBACK_HTTP:
        tcp_request_done(wsi);
        if (!redirect_host(wsi, host, sizeof host) ||
            !redirect_target(wsi, uri, sizeof uri)) {
            if (net.attached)
                netstats_http(net.stats, NETSTATS_ROUTE_REDIRECT,
                              HTTP_STATUS_BAD_REQUEST);
            web_status(wsi, HTTP_STATUS_BAD_REQUEST);
            return http_done(wsi);
        }
        if (net.attached)
            netstats_http(net.stats, NETSTATS_ROUTE_REDIRECT,
                          HTTP_STATUS_MOVED_PERMANENTLY);
        if (net.cfg.port != 443)
            snprintf(port, sizeof port, ":%d", net.cfg.port);
        n = snprintf(loc, sizeof loc, "https://%s%s%s", host, port, uri);
        if (lws_http_redirect(wsi, HTTP_STATUS_MOVED_PERMANENTLY,
                              (unsigned char *)loc, n, &p, end) < 0)
            return -1;
        return http_done(wsi);
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        return 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

const struct lws_protocols web_redirect_protocols[] = {
    {"http-redirect", callback_redirect, 0, 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}};

/* ---- headers ----------------------------------------------------------- */

/* The headers of every HTTP answer: lws adds a vhost's `headers` in
 * lws_add_http_header_status, which every answer goes through (files,
 * the API, errors, redirects and lws's own). The security headers are
 * those of lws 4.1's LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_
 * PRACTICES_ENFORCE less X-XSS-Protection (obsolete: browsers dropped
 * the filter it steers, which could itself be abused), with connect-src
 * 'self' where lws allows any WebSocket host (CSP 3's 'self' covers the
 * page's own host over ws: and wss:); and Date, kept current by
 * net.c's date_check. */
static const struct lws_protocol_vhost_options hdr_referrer = {
    NULL, NULL, "referrer-policy:", "no-referrer"};
static const struct lws_protocol_vhost_options hdr_frames = {
    &hdr_referrer, NULL, "x-frame-options:", "deny"};
static const struct lws_protocol_vhost_options hdr_nosniff = {
    &hdr_frames, NULL, "x-content-type-options:", "nosniff"};
static const struct lws_protocol_vhost_options hdr_csp = {
    &hdr_nosniff, NULL, "content-security-policy:",
    "default-src 'none'; img-src 'self' data:; script-src 'self'; "
    "font-src 'self'; style-src 'self'; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"};
const struct lws_protocol_vhost_options web_headers = {
    &hdr_csp, NULL, "date:", net.date_value};

/* Strict-Transport-Security on every response of the HTTPS vhost, before
 * the common headers: browsers then use https only for hsts_max_age_s.
 * Never on plain HTTP, where it means nothing. */
const struct lws_protocol_vhost_options web_headers_hsts = {
    &web_headers, NULL, "strict-transport-security:", net.hsts_value};

/* Writes the time into date_value as RFC 9110's IMF-fixdate ("Sun, 06
 * Nov 1994 08:49:37 GMT", English whatever the locale) when its second
 * changed. */
void web_date_refresh(void)
{
    static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed",
                                    "Thu", "Fri", "Sat"};
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr",
                                       "May", "Jun", "Jul", "Aug",
                                       "Sep", "Oct", "Nov", "Dec"};
    static time_t shown = -1;
    time_t now = time(NULL);
    struct tm tm;

    if (now == shown || !gmtime_r(&now, &tm))
        return;
    shown = now;
    snprintf(net.date_value, sizeof net.date_value,
             "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday],
             tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour,
             tm.tm_min, tm.tm_sec);
}
