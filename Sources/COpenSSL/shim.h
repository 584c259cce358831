#ifndef SIGNINSIM_COPENSSL_SHIM_H
#define SIGNINSIM_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/rand.h>
#include <openssl/hmac.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/crypto.h>
#include <openssl/obj_mac.h>
#include <openssl/ecdsa.h>
#include <openssl/x509.h>

/*
 * Wrappers for what Swift cannot import (macros, variadic functions) and for
 * the OSSL_PARAM builders, whose key names and values must outlive the
 * OSSL_PARAM_BLD_push_* calls: here the names are string literals (static
 * storage) and every value lives until EVP_PKEY_fromdata has returned.
 * Every function returns NULL or 0 on failure and leaves the reason on the
 * OpenSSL error queue; the caller drains it.
 */

/* BIO_get_mem_data is a macro. */
static inline long sis_bio_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/* OPENSSL_free is a macro. */
static inline void sis_openssl_free(void *pointer) {
    OPENSSL_free(pointer);
}

/* Runs EVP_PKEY_fromdata for key type `name` ("EC", "RSA") over a builder. */
static inline EVP_PKEY *sis_pkey_fromdata(const char *name, OSSL_PARAM_BLD *bld, int selection) {
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, name, NULL);
    if (params == NULL || ctx == NULL || EVP_PKEY_fromdata_init(ctx) <= 0
        || EVP_PKEY_fromdata(ctx, &pkey, selection, params) <= 0) {
        pkey = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    return pkey;
}

/*
 * A P-256 key from an uncompressed point (0x04 || X || Y, 65 bytes) and, when
 * `priv` is not NULL, the private scalar. OpenSSL rejects a point that is not
 * on the curve; it does not check that the point matches the scalar.
 */
static inline EVP_PKEY *sis_p256_fromdata(const unsigned char *pub, size_t pub_len, const BIGNUM *priv) {
    EVP_PKEY *pkey = NULL;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    if (bld != NULL
        && OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, SN_X9_62_prime256v1, 0)
        && OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pub, pub_len)
        && (priv == NULL || OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, priv))) {
        pkey = sis_pkey_fromdata("EC", bld, priv == NULL ? EVP_PKEY_PUBLIC_KEY : EVP_PKEY_KEYPAIR);
    }
    OSSL_PARAM_BLD_free(bld);
    return pkey;
}

/*
 * An RSA key from its integers. `n` and `e` are required; `d` makes it a
 * private key; `p`, `q`, `dp`, `dq`, `qi` are all given or all NULL.
 */
static inline EVP_PKEY *sis_rsa_fromdata(const BIGNUM *n, const BIGNUM *e, const BIGNUM *d,
                                         const BIGNUM *p, const BIGNUM *q, const BIGNUM *dp,
                                         const BIGNUM *dq, const BIGNUM *qi) {
    EVP_PKEY *pkey = NULL;
    int crt = p != NULL && q != NULL && dp != NULL && dq != NULL && qi != NULL;
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    if (bld != NULL && n != NULL && e != NULL
        && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n)
        && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e)
        && (d == NULL || OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_D, d))
        && (!crt
            || (OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_FACTOR1, p)
                && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_FACTOR2, q)
                && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_EXPONENT1, dp)
                && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_EXPONENT2, dq)
                && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_COEFFICIENT1, qi)))) {
        pkey = sis_pkey_fromdata("RSA", bld, d == NULL ? EVP_PKEY_PUBLIC_KEY : EVP_PKEY_KEYPAIR);
    }
    OSSL_PARAM_BLD_free(bld);
    return pkey;
}

/* Whether an RSA key carries a third prime (multi-prime RSA, RFC 8017 §3.2). */
static inline int sis_rsa_is_multiprime(const EVP_PKEY *pkey) {
    BIGNUM *r = NULL;
    int found = EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_FACTOR3, &r) > 0 && r != NULL;
    BN_clear_free(r);
    ERR_clear_error();
    return found;
}

/* Keys HMAC with SHA-256 (the digest name travels as an OSSL_PARAM). */
static inline int sis_hmac_sha256_init(EVP_MAC_CTX *ctx, const unsigned char *key, size_t key_len) {
    static const unsigned char no_key = 0;
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0);
    params[1] = OSSL_PARAM_construct_end();
    /* A NULL key means "keep the previous key"; an empty key must be non-NULL. */
    return EVP_MAC_init(ctx, key != NULL ? key : &no_key, key_len, params);
}

/* PSS with the salt as long as the digest (RFC 7518 §3.5), MGF1 over the same digest. */
static inline int sis_rsa_set_pss(EVP_PKEY_CTX *ctx, const EVP_MD *md) {
    return EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING) > 0
        && EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, RSA_PSS_SALTLEN_DIGEST) > 0
        && EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, md) > 0;
}

static inline int sis_rsa_set_pkcs1(EVP_PKEY_CTX *ctx) {
    return EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) > 0;
}

#endif
