/*
 * challenges.h: the sign-ins rlm_mfa has answered with an Access-Challenge
 * and waits to hear back about.
 *
 * A challenge's State attribute is MFA_RADIUS_STATE_BYTES bytes: a fixed
 * prefix and 16 random bytes that name an entry in this table. Nothing of the
 * sign-in travels in it (the pending credential and any SMS verification id
 * stay here), so it says nothing to whoever sees it. An entry is taken out
 * when its State comes back, whatever then happens: each State is answered
 * once. Entries expire; the table holds at most its capacity.
 *
 * Thread-safe: FreeRADIUS's worker threads share one table per module instance.
 * Pure C (no FreeRADIUS types), so the C tests can check it alone.
 */
#ifndef MFA_RADIUS_CHALLENGES_H
#define MFA_RADIUS_CHALLENGES_H

#include <stddef.h>
#include <stdint.h>

/** The bytes every State of rlm_mfa starts with. */
#define MFA_RADIUS_STATE_PREFIX "mfa1"
/** Their count. */
#define MFA_RADIUS_STATE_PREFIX_BYTES 4
/** The random part of a State. */
#define MFA_RADIUS_STATE_ID_BYTES 16
/** A whole State attribute. */
#define MFA_RADIUS_STATE_BYTES (MFA_RADIUS_STATE_PREFIX_BYTES + MFA_RADIUS_STATE_ID_BYTES)

/** One sign-in waiting for its second factor. Strings are owned (and wiped when freed). */
typedef struct mfa_radius_challenge {
    /** The user name the sign-in is for. */
    char *uid;
    /** The NAS that asked (its address and what it says of itself). */
    char *nas;
    /** libmfa's pending credential of the sign-in. */
    char *pending;
    /** The factor the challenge asks for, or NULL: the reply may be a factor's number or a code. */
    char *enrollment_id;
    /** Its kind (MFA_FACTOR_*), 0 with none. */
    int32_t kind;
    /** For an SMS factor, the verification id of the code sent, else NULL. */
    char *verification_id;
    /** Unix time after which the State is refused. */
    int64_t expires;
    /* The table's own. */
    uint8_t id[MFA_RADIUS_STATE_ID_BYTES];
    struct mfa_radius_challenge *next;
} mfa_radius_challenge;

/** The table. */
typedef struct mfa_radius_challenges mfa_radius_challenges;

/** A new challenge with copies of the strings given (`enrollment_id`, `verification_id` may be NULL); NULL if out of memory. */
mfa_radius_challenge *mfa_radius_challenge_new(const char *uid, const char *nas, const char *pending,
                                               const char *enrollment_id, int32_t kind,
                                               const char *verification_id, int64_t expires);

/** Wipes and frees a challenge. NULL is a no-op. */
void mfa_radius_challenge_free(mfa_radius_challenge *challenge);

/** An empty table that holds at most `capacity` (1 or more) challenges; NULL if out of memory. */
mfa_radius_challenges *mfa_radius_challenges_new(size_t capacity);

/** Frees the table and every challenge in it. NULL is a no-op. */
void mfa_radius_challenges_free(mfa_radius_challenges *table);

/** Challenges held now (expired ones not yet removed included). */
size_t mfa_radius_challenges_count(mfa_radius_challenges *table);

/** mfa_radius_challenges_put(): stored. */
#define MFA_RADIUS_PUT_OK 0
/** mfa_radius_challenges_put(): the table is full of unexpired challenges. */
#define MFA_RADIUS_PUT_FULL (-1)
/** mfa_radius_challenges_put(): no random bytes for the State. */
#define MFA_RADIUS_PUT_NO_RANDOM (-2)

/**
 * Stores `challenge` (the table owns it from then on) under a new random id,
 * and writes its State (MFA_RADIUS_STATE_BYTES bytes) to `state`. Expired
 * challenges are removed first when the table is full. Returns
 * MFA_RADIUS_PUT_OK, or MFA_RADIUS_PUT_FULL / MFA_RADIUS_PUT_NO_RANDOM with
 * `challenge` freed.
 */
int mfa_radius_challenges_put(mfa_radius_challenges *table, mfa_radius_challenge *challenge, int64_t now,
                              uint8_t state[MFA_RADIUS_STATE_BYTES]);

/** 1 if `state` (`len` bytes) has the shape of an rlm_mfa State, else 0. */
int mfa_radius_is_state(const uint8_t *state, size_t len);

/**
 * Takes the challenge of `state` out of the table: the caller owns it (free
 * it with mfa_radius_challenge_free()). NULL if no challenge has this State
 * (never issued, already taken, malformed) or if it expired before `now`
 * (then it is removed all the same).
 */
mfa_radius_challenge *mfa_radius_challenges_take(mfa_radius_challenges *table, const uint8_t *state, size_t len,
                                                 int64_t now);

#endif
