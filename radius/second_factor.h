/*
 * second_factor.h: which of a user's factors rlm_mfa can ask for over RADIUS,
 * and checking what the user typed against them, on libmfa's C API only
 * (no FreeRADIUS types).
 *
 * A factor is "typed" when the user types its code unprompted: an
 * authenticator app (TOTP), a recovery code, and any kind libmfa adds later
 * that a user types (its assertion carries the enrollment id and the code, as
 * TOTP's does): those work without a change here. A phone factor's code is
 * sent first (SMS). WebAuthn needs a browser and is never offered.
 */
#ifndef MFA_RADIUS_SECOND_FACTOR_H
#define MFA_RADIUS_SECOND_FACTOR_H

#include <stddef.h>

#include "mfa.h"

/** Not usable over RADIUS (WebAuthn; a recovery set with no code left). */
#define MFA_RADIUS_UNUSABLE 0
/** The user types its code. */
#define MFA_RADIUS_TYPED 1
/** Its code is sent first (SMS). */
#define MFA_RADIUS_SENT 2

/** Most factors rlm_mfa lists (libmfa allows 5 and a recovery set; kinds added later may add more). */
#define MFA_RADIUS_FACTORS_MAX 16

/** How `hint` is used over RADIUS: MFA_RADIUS_UNUSABLE, _TYPED or _SENT. */
int mfa_radius_factor_use(const mfa_factor_info *hint);

/**
 * The factors of `r` usable over RADIUS, in the resolver's order, as indexes
 * into r->hints written to `out` (at most MFA_RADIUS_FACTORS_MAX). Returns
 * their count; `*typed` (if not NULL) gets how many of them are typed.
 */
size_t mfa_radius_usable_factors(const mfa_resolver *r, size_t out[MFA_RADIUS_FACTORS_MAX], size_t *typed);

/**
 * Writes what a choice list shows of `hint` ("authenticator app", "SMS to
 * +1******1234", "recovery code (7 codes left)") to `out`.
 */
void mfa_radius_describe(char *out, size_t out_size, const mfa_factor_info *hint);

/**
 * The factor a typed reply picks from a choice list of `count` factors: the
 * reply is its number, 1 to `count` (spaces around it allowed). Returns the
 * number minus one, or -1 when the reply is not such a number.
 */
int mfa_radius_choice(const char *typed, size_t count);

/**
 * Resolves the sign-in of pending credential `pending` with what the user
 * typed. With `enrollment_id` (of kind `kind`), against that factor alone;
 * else against each typed factor of `r` whose codes can look like `typed`
 * (an authenticator app: 6 to 8 digits, spaces ignored; a recovery code:
 * xxxx-xxxx-xx; later kinds judge for themselves), in turn until one takes
 * it. A reply shaped like no factor's code is judged, and counted, as a
 * wrong code of the first typed factor. Returns libmfa's status; on MFA_OK
 * `*out` is the result (free with mfa_sign_in_result_free()).
 * `*tried` (if not NULL) gets the number of factors tried.
 */
int32_t mfa_radius_resolve_typed(mfa_ctx *ctx, mfa_sign_in_result **out, const mfa_resolver *r, const char *pending,
                                 const char *tenant, const char *enrollment_id, int32_t kind, const char *typed,
                                 size_t *tried);

/** The value of claim `name` of a sign-in result, or NULL. */
const char *mfa_radius_claim(const mfa_sign_in_result *result, const char *name);

#endif
