/* libcbor (Debian's libcbor-dev): its streaming decoder reads the CBOR of WebAuthn responses. */
#include <cbor.h>
