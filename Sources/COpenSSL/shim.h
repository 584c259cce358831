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
#endif
