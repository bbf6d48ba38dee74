/*
 * Nettle's public-key half (libhogweed) and the GMP integers it takes:
 * ECDSA P-256 and RSA PKCS#1 v1.5 signature checks, and nettle's DER reader
 * for ECDSA signatures (WebAuthn signatures).
 */
#include <gmp.h>
#include <nettle/asn1.h>
#include <nettle/bignum.h>
#include <nettle/ecc-curve.h>
#include <nettle/ecc.h>
#include <nettle/ecdsa.h>
#include <nettle/rsa.h>
