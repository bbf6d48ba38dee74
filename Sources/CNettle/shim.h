#include <nettle/hmac.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>
