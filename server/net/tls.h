/*
 * tls.h - the TLS policy of chess-server's own HTTPS port and the
 * certificate reload on SIGHUP (OpenSSL; libwebsockets creates the
 * SSL_CTX and hands it over).
 *
 * Policy: TLS 1.2 or 1.3 as tls_min_version says, TLS 1.2 limited to
 * tls_ciphers (by default forward-secret AEAD suites only), TLS 1.3 with
 * OpenSSL's suites (all AEAD and forward-secret), no renegotiation.
 *
 * Reload: tls_reload loads the certificate chain and key again; when
 * both load and match, every handshake from then on presents them (a
 * certificate callback installs them on each new connection), while the
 * connections already open keep theirs. When they do not, nothing
 * changes and the reason is returned.
 *
 * Ownership: this module owns the reloaded certificate, key and chain
 * (tls_free releases them). Only the event-loop thread calls it (lws does
 * its handshakes there); tls_check may be called by anyone before.
 */
#ifndef SERVER_TLS_H
#define SERVER_TLS_H

#include <stddef.h>

struct net_config;

/* Checks the TLS settings as OpenSSL sees them: the certificate chain at
 * cert and the key at key load and belong together, and ciphers (the
 * tls_ciphers setting) selects a cipher. Returns 0 (also when cert is "":
 * no TLS), or -1 with a sentence naming the setting in err. */
int tls_check(const char *cert, const char *key, const char *ciphers,
              char *err, size_t errlen);

/* Applies the policy to ssl_ctx (an SSL_CTX *, the HTTPS vhost's) and
 * hooks the reload in. Returns 0, or -1 with the reason in err. */
int tls_setup_ctx(void *ssl_ctx, const struct net_config *cfg, char *err,
                  size_t errlen);

/* Loads cert_path and key_path for every later handshake (see above).
 * Returns 0, or -1 with a sentence in err (the served certificate is then
 * unchanged). */
int tls_reload(const char *cert_path, const char *key_path, char *err,
               size_t errlen);

/* Frees the reloaded certificate (at exit, after the SSL_CTX is gone). */
void tls_free(void);

#endif
