/* challenges.c: the sign-ins waiting for their second factor (see challenges.h). */
#define _GNU_SOURCE
#include "challenges.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mfa.h"

/* Chains of the hash table; an id's first two bytes pick its chain (ids are random). */
#define BUCKETS 4096

struct mfa_radius_challenges {
    pthread_mutex_t lock;
    size_t capacity;
    size_t count;
    mfa_radius_challenge *buckets[BUCKETS];
};

static size_t bucket_of(const uint8_t *id) { return ((size_t)id[0] << 8 | id[1]) % BUCKETS; }

static void wipe_free(char *text) {
    if (!text) return;
    explicit_bzero(text, strlen(text));
    free(text);
}

/* strdup of an optional string: 0, or -1 if out of memory. */
static int copy(char **out, const char *text) {
    *out = NULL;
    if (!text) return 0;
    *out = strdup(text);
    return *out ? 0 : -1;
}

mfa_radius_challenge *mfa_radius_challenge_new(const char *uid, const char *nas, const char *pending,
                                               const char *enrollment_id, int32_t kind,
                                               const char *verification_id, int64_t expires) {
    mfa_radius_challenge *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    if (!uid || !nas || !pending || copy(&c->uid, uid) || copy(&c->nas, nas) || copy(&c->pending, pending) ||
        copy(&c->enrollment_id, enrollment_id) || copy(&c->verification_id, verification_id)) {
        mfa_radius_challenge_free(c);
        return NULL;
    }
    c->kind = kind;
    c->expires = expires;
    return c;
}

void mfa_radius_challenge_free(mfa_radius_challenge *c) {
    if (!c) return;
    wipe_free(c->uid);
    wipe_free(c->nas);
    wipe_free(c->pending);
    wipe_free(c->enrollment_id);
    wipe_free(c->verification_id);
    explicit_bzero(c, sizeof *c);
    free(c);
}

mfa_radius_challenges *mfa_radius_challenges_new(size_t capacity) {
    if (capacity == 0) return NULL;
    mfa_radius_challenges *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    if (pthread_mutex_init(&t->lock, NULL) != 0) {
        free(t);
        return NULL;
    }
    t->capacity = capacity;
    return t;
}

void mfa_radius_challenges_free(mfa_radius_challenges *t) {
    if (!t) return;
    for (size_t b = 0; b < BUCKETS; b++) {
        mfa_radius_challenge *c = t->buckets[b];
        while (c) {
            mfa_radius_challenge *next = c->next;
            mfa_radius_challenge_free(c);
            c = next;
        }
    }
    pthread_mutex_destroy(&t->lock);
    free(t);
}

size_t mfa_radius_challenges_count(mfa_radius_challenges *t) {
    pthread_mutex_lock(&t->lock);
    size_t n = t->count;
    pthread_mutex_unlock(&t->lock);
    return n;
}

/* Removes the expired challenges of every chain; the lock is held. */
static void sweep(mfa_radius_challenges *t, int64_t now) {
    for (size_t b = 0; b < BUCKETS; b++) {
        mfa_radius_challenge **link = &t->buckets[b];
        while (*link) {
            mfa_radius_challenge *c = *link;
            if (c->expires < now) {
                *link = c->next;
                mfa_radius_challenge_free(c);
                t->count--;
            } else {
                link = &c->next;
            }
        }
    }
}

int mfa_radius_challenges_put(mfa_radius_challenges *t, mfa_radius_challenge *c, int64_t now,
                              uint8_t state[MFA_RADIUS_STATE_BYTES]) {
    if (mfa_random_secret(c->id, sizeof c->id) != MFA_OK) {
        mfa_radius_challenge_free(c);
        return MFA_RADIUS_PUT_NO_RANDOM;
    }
    pthread_mutex_lock(&t->lock);
    if (t->count >= t->capacity) sweep(t, now);
    if (t->count >= t->capacity) {
        pthread_mutex_unlock(&t->lock);
        mfa_radius_challenge_free(c);
        return MFA_RADIUS_PUT_FULL;
    }
    mfa_radius_challenge **bucket = &t->buckets[bucket_of(c->id)];
    c->next = *bucket;
    *bucket = c;
    t->count++;
    memcpy(state, MFA_RADIUS_STATE_PREFIX, MFA_RADIUS_STATE_PREFIX_BYTES);
    memcpy(state + MFA_RADIUS_STATE_PREFIX_BYTES, c->id, sizeof c->id);
    pthread_mutex_unlock(&t->lock);
    return MFA_RADIUS_PUT_OK;
}

int mfa_radius_is_state(const uint8_t *state, size_t len) {
    return state && len == MFA_RADIUS_STATE_BYTES &&
           memcmp(state, MFA_RADIUS_STATE_PREFIX, MFA_RADIUS_STATE_PREFIX_BYTES) == 0;
}

/* The same 16 bytes, in time that does not depend on where they differ. */
static int same_id(const uint8_t *a, const uint8_t *b) {
    uint8_t diff = 0;
    for (size_t i = 0; i < MFA_RADIUS_STATE_ID_BYTES; i++) diff |= (uint8_t)(a[i] ^ b[i]);
    return diff == 0;
}

mfa_radius_challenge *mfa_radius_challenges_take(mfa_radius_challenges *t, const uint8_t *state, size_t len,
                                                 int64_t now) {
    if (!mfa_radius_is_state(state, len)) return NULL;
    const uint8_t *id = state + MFA_RADIUS_STATE_PREFIX_BYTES;
    pthread_mutex_lock(&t->lock);
    mfa_radius_challenge *found = NULL;
    for (mfa_radius_challenge **link = &t->buckets[bucket_of(id)]; *link; link = &(*link)->next) {
        if (same_id((*link)->id, id)) {
            found = *link;
            *link = found->next;
            found->next = NULL;
            t->count--;
            break;
        }
    }
    pthread_mutex_unlock(&t->lock);
    if (found && found->expires < now) {
        mfa_radius_challenge_free(found);
        return NULL;
    }
    return found;
}
