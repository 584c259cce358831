/* OpenSSL's TLS (libssl), for the sheet proxy's HTTPS side (Sources/WebKitSession/TLSTunnel.swift):
 * the WebKit engine's https requests come through it as CONNECT tunnels, which it ends with a
 * certificate of its own, so that it can read and forward them (as mitmproxy does). */
#ifndef SIGNINSIM_CTLS_SHIM_H
#define SIGNINSIM_CTLS_SHIM_H
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

/* A TLS server context with a fresh P-256 key and a self-signed certificate for it ("SignInSim
 * sheet proxy", valid from an hour ago for a week). The browser that talks to it is told to
 * accept it: its trust is in the proxy, which checks the real server's certificate itself.
 * NULL on failure (the reason on OpenSSL's error queue). */
static inline SSL_CTX *sis_tls_server_context(void) {
    SSL_CTX *context = NULL;
    EVP_PKEY *key = NULL;
    X509 *certificate = NULL;
    EVP_PKEY_CTX *generator = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (generator == NULL || EVP_PKEY_keygen_init(generator) <= 0
        || EVP_PKEY_CTX_set_ec_paramgen_curve_nid(generator, NID_X9_62_prime256v1) <= 0
        || EVP_PKEY_generate(generator, &key) <= 0) {
        goto done;
    }
    certificate = X509_new();
    if (certificate == NULL || X509_set_version(certificate, 2) != 1
        || ASN1_INTEGER_set(X509_get_serialNumber(certificate), 1) != 1
        || X509_gmtime_adj(X509_getm_notBefore(certificate), -3600) == NULL
        || X509_gmtime_adj(X509_getm_notAfter(certificate), 7 * 24 * 3600) == NULL
        || X509_set_pubkey(certificate, key) != 1) {
        goto done;
    }
    X509_NAME *name = X509_get_subject_name(certificate);
    if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"SignInSim sheet proxy", -1,
                                   -1, 0) != 1
        || X509_set_issuer_name(certificate, name) != 1 || X509_sign(certificate, key, EVP_sha256()) <= 0) {
        goto done;
    }
    context = SSL_CTX_new(TLS_server_method());
    if (context == NULL) goto done;
    /* HTTP/1.1 only: no ALPN is offered, so the browser speaks HTTP/1.1 in the tunnel. */
    if (SSL_CTX_use_certificate(context, certificate) != 1 || SSL_CTX_use_PrivateKey(context, key) != 1) {
        SSL_CTX_free(context);
        context = NULL;
    }
done:
    EVP_PKEY_CTX_free(generator);
    EVP_PKEY_free(key);
    X509_free(certificate);
    return context;
}
#endif
