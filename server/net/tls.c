/*
 * tls.c - TLS policy and certificate reload (see tls.h).
 *
 * The reload never touches the SSL_CTX lws built: OpenSSL copies a
 * context's certificate into each connection when it is created, so
 * changing the context under live connections is safe, but loading a
 * chain and then a key that fails would leave it half replaced. Instead
 * the new set is loaded and checked on the side, and the certificate
 * callback (run in every handshake after the ClientHello) replaces the
 * connection's copy with it.
 */
#include "net/tls.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "net/net.h"

struct cert_set {
    X509 *cert; /* the leaf */
    EVP_PKEY *key;
    STACK_OF(X509) * chain; /* the intermediates after it in the file */
};

/* The set tls_reload loaded last; cert NULL: none, lws's own is served. */
static struct cert_set current;

static void set_free(struct cert_set *s)
{
    X509_free(s->cert);
    EVP_PKEY_free(s->key);
    sk_X509_pop_free(s->chain, X509_free);
    memset(s, 0, sizeof *s);
}

/* A key with a passphrase is refused, not prompted for on a terminal. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    (void)u;
    return 0;
}

static const char *ssl_reason(void)
{
    const char *r = ERR_reason_error_string(ERR_peek_last_error());

    return r ? r : "no PEM data";
}

/* Reads the chain at cert_path and the key at key_path into out (which
 * the caller frees with set_free, also on failure). */
static int load_set(const char *cert_path, const char *key_path,
                    struct cert_set *out, char *err, size_t errlen)
{
    FILE *f;
    X509 *x;
    int rc = -1;

    memset(out, 0, sizeof *out);
    ERR_clear_error();
    f = fopen(cert_path, "re");
    if (!f) {
        snprintf(err, errlen, "key 'tls_cert': cannot read %s: %s", cert_path,
                 strerror(errno));
        return -1;
    }
    out->cert = PEM_read_X509_AUX(f, NULL, no_passphrase, NULL);
    out->chain = sk_X509_new_null();
    if (!out->cert || !out->chain) {
        snprintf(err, errlen,
                 "key 'tls_cert': %s is not a usable PEM "
                 "certificate chain (%s)",
                 cert_path, ssl_reason());
        fclose(f);
        goto out;
    }
    while ((x = PEM_read_X509(f, NULL, no_passphrase, NULL)))
        if (!sk_X509_push(out->chain, x)) {
            X509_free(x);
            snprintf(err, errlen, "out of memory");
            fclose(f);
            goto out;
        }
    fclose(f);
    /* the end of the file ends the loop with "no start line"; anything
     * else is a broken certificate in the chain */
    if (ERR_GET_REASON(ERR_peek_last_error()) != PEM_R_NO_START_LINE) {
        snprintf(err, errlen,
                 "key 'tls_cert': %s is not a usable PEM "
                 "certificate chain (%s)",
                 cert_path, ssl_reason());
        goto out;
    }
    ERR_clear_error();
    f = fopen(key_path, "re");
    if (!f) {
        snprintf(err, errlen, "key 'tls_key': cannot read %s: %s", key_path,
                 strerror(errno));
        goto out;
    }
    out->key = PEM_read_PrivateKey(f, NULL, no_passphrase, NULL);
    fclose(f);
    if (!out->key)
        snprintf(err, errlen,
                 "key 'tls_key': %s is not a usable PEM "
                 "private key for the certificate (%s)",
                 key_path, ssl_reason());
    else if (X509_check_private_key(out->cert, out->key) != 1)
        snprintf(err, errlen,
                 "key 'tls_key': %s does not match the "
                 "certificate %s",
                 key_path, cert_path);
    else
        rc = 0;
out:
    ERR_clear_error();
    return rc;
}

int tls_check(const char *cert, const char *key, const char *ciphers,
              char *err, size_t errlen)
{
    struct cert_set s;
    SSL_CTX *ctx;
    int rc;

    if (!cert[0])
        return 0;
    rc = load_set(cert, key, &s, err, errlen);
    set_free(&s);
    if (rc < 0)
        return -1;
    ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (SSL_CTX_set_cipher_list(ctx, ciphers) != 1) {
        snprintf(err, errlen,
                 "key 'tls_ciphers': OpenSSL knows no cipher "
                 "in '%s'",
                 ciphers);
        rc = -1;
    }
    ERR_clear_error();
    SSL_CTX_free(ctx);
    return rc;
}

/* In every handshake, after the ClientHello: a reloaded set replaces the
 * certificates the connection copied from the context (all of them, so
 * an RSA certificate replaced by an ECDSA one is not served either). */
static int cert_cb(SSL *ssl, void *arg)
{
    (void)arg;
    if (!current.cert)
        return 1;
    SSL_certs_clear(ssl);
    return SSL_use_cert_and_key(ssl, current.cert, current.key, current.chain,
                                1) == 1;
}

int tls_setup_ctx(void *ssl_ctx, const struct net_config *cfg, char *err,
                  size_t errlen)
{
    SSL_CTX *ctx = ssl_ctx;
    int min = strcmp(cfg->tls_min_version, "1.3") ? TLS1_2_VERSION
                                                  : TLS1_3_VERSION;

    if (SSL_CTX_set_min_proto_version(ctx, min) != 1 ||
        SSL_CTX_set_cipher_list(ctx, cfg->tls_ciphers) != 1) {
        snprintf(err, errlen,
                 "cannot apply tls_min_version '%s' or "
                 "tls_ciphers '%s' (%s)",
                 cfg->tls_min_version, cfg->tls_ciphers, ssl_reason());
        ERR_clear_error();
        return -1;
    }
    /* client-initiated renegotiation costs the server a handshake for
     * each request: a denial-of-service lever, and nothing needs it */
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_cert_cb(ctx, cert_cb, NULL);
    return 0;
}

int tls_reload(const char *cert_path, const char *key_path, char *err,
               size_t errlen)
{
    struct cert_set s;

    if (load_set(cert_path, key_path, &s, err, errlen) < 0) {
        set_free(&s);
        return -1;
    }
    set_free(&current);
    current = s;
    return 0;
}

void tls_free(void)
{
    set_free(&current);
}
