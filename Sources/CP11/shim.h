/*
 * The PKCS#11 types for libmfa's HSM key provider, without linking any
 * PKCS#11 module: libmfa loads the module an operator names with dlopen
 * (Crypto/PKCS11/PKCS11Module.swift) and calls it through the function
 * list C_GetFunctionList returns. The types come from p11-kit's pkcs11.h
 * (Debian's libp11-kit-dev), a header written for exactly this use.
 */
#ifndef MFA_CP11_SHIM_H
#define MFA_CP11_SHIM_H

#if __has_include(<p11-kit/pkcs11.h>)
#include <p11-kit/pkcs11.h>
#else
#include <p11-kit-1/p11-kit/pkcs11.h> /* Debian's libp11-kit-dev, without pkg-config's -I */
#endif

#endif
