package mfa

/*
#include <stdint.h>
#include <stdlib.h>
#include <mfa.h>

// The Go entry points (callbacks.go), and C functions of the exact types
// libmfa's callbacks have that call them with the handle as an integer.
extern int64_t mfaGoClock(uintptr_t);
extern int mfaGoRandom(uintptr_t, uint8_t *, size_t);
extern void mfaGoAudit(uintptr_t, mfa_audit_event *);
extern int mfaGoSMSSender(uintptr_t, char *, char *);
extern int mfaGoAppVerifier(uintptr_t, char *, int32_t);
extern int mfaGoWebAuthnTrust(uintptr_t, mfa_webauthn_attestation *);

static int64_t mfa_go_clock(void *c) { return mfaGoClock((uintptr_t)c); }
static int mfa_go_random(void *c, uint8_t *out, size_t n) { return mfaGoRandom((uintptr_t)c, out, n); }
static void mfa_go_audit(void *c, const mfa_audit_event *e) { mfaGoAudit((uintptr_t)c, (mfa_audit_event *)e); }
static int mfa_go_sms(void *c, const char *to, const char *text) {
	return mfaGoSMSSender((uintptr_t)c, (char *)to, (char *)text);
}
static int mfa_go_verifier(void *c, const char *credential, int32_t action) {
	return mfaGoAppVerifier((uintptr_t)c, (char *)credential, action);
}
static int mfa_go_trust(void *c, const mfa_webauthn_attestation *a) {
	return mfaGoWebAuthnTrust((uintptr_t)c, (mfa_webauthn_attestation *)a);
}

enum { MFA_GO_CLOCK = 1, MFA_GO_RANDOM = 2, MFA_GO_AUDIT = 4, MFA_GO_SMS = 8, MFA_GO_VERIFIER = 16, MFA_GO_TRUST = 32 };

// mfa_go_set_callbacks points the callbacks `which` of o at the Go entry
// points, with the handle h as their context.
static void mfa_go_set_callbacks(mfa_options *o, uintptr_t h, int which) {
	void *c = (void *)h;
	if (which & MFA_GO_CLOCK) { o->clock = mfa_go_clock; o->clock_context = c; }
	if (which & MFA_GO_RANDOM) { o->random = mfa_go_random; o->random_context = c; }
	if (which & MFA_GO_AUDIT) { o->audit = mfa_go_audit; o->audit_context = c; }
	if (which & MFA_GO_SMS) { o->sms_sender = mfa_go_sms; o->sms_sender_context = c; }
	if (which & MFA_GO_VERIFIER) { o->app_verifier = mfa_go_verifier; o->app_verifier_context = c; }
	if (which & MFA_GO_TRUST) { o->webauthn_trust = mfa_go_trust; o->webauthn_trust_context = c; }
}
*/
import "C"

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/url"
	"runtime"
	"runtime/cgo"
	"sync"
	"time"
	"unsafe"
)

// MasterKey is a master key and its id.
type MasterKey struct {
	// ID is stored beside what the key encrypts: 1 to 64 printable ASCII characters.
	ID string
	// Key is MasterKeyBytes (32) secret bytes.
	Key []byte
}

// Options says how to open a Context. Store and MasterKey are required;
// every callback may be nil. The callbacks run on the goroutine of the call
// that needs them, so on several goroutines at once when calls run
// concurrently: make them safe for that. They must not call back into
// libmfa (such a call returns ErrCallbackReentry). A panic in one is
// recovered and logged on ErrorLog (its type only), and counts as described
// for each.
type Options struct {
	// Store is where the state lives: an SQLite file path (created and
	// migrated as needed), ":memory:" for a private in-memory store, or a
	// "postgres://" URL for a store shared by many servers. The URL may
	// carry libmfa's mfa_deadline_ms (100 to 600000, default 5000): how long
	// a call waits for the server, when connecting and for each statement,
	// before it fails with STORAGE_ERROR; it bounds how long a call outlives
	// its context.Context.
	Store string
	// MasterKey is the MasterKeyBytes (32) bytes new secrets and tokens are
	// protected with; KeyID is its id ("k1" when empty).
	MasterKey []byte
	KeyID     string
	// PreviousKeys are earlier keys still needed to read records not yet
	// rotated (see Context.RotateKeys): at most 64.
	PreviousKeys []MasterKey
	// Clock returns the current time (read to the second), or nil for the
	// system clock. A panic uses the system clock for that reading.
	Clock func() time.Time
	// Random is the source of the random bytes of secrets, ids and codes
	// (never of encryption nonces), or nil for libsodium's CSPRNG. A request
	// it cannot fill in 64 reads, or a read error, fails the operation with
	// CRYPTO.
	Random io.Reader
	// Audit receives each audit event after the change it reports is stored.
	Audit func(AuditEvent)
	// SMSSender sends an SMS: the strict E.164 number and the text "<code>
	// is your verification code.". An error (or a panic) fails the send with
	// SMS_SEND_FAILED, and neither the send nor any quota is counted. Nil:
	// no gateway (sends fail, except to the configuration's test numbers).
	SMSSender func(phoneNumber, message string) error
	// SMSOutbox is, instead of SMSSender, a file to append each SMS to as a
	// JSON line (development and tests: see ReadOutbox), or "".
	SMSOutbox string
	// AppVerifier checks the app credential (a reCAPTCHA token, an APNs-style
	// receipt) a client sends with each SMS request: true accepts it; false
	// (or a panic) is INVALID_APP_CREDENTIAL. Nil: SMS requests fail with
	// OPERATION_NOT_ALLOWED unless the configuration sets
	// "phone": {"appVerification": "DISABLED"}.
	AppVerifier func(credential string, action AppAction) bool
	// WebAuthnTrust decides which WebAuthn attestations are trusted at a
	// registration: true accepts; false (or a panic) is
	// ATTESTATION_NOT_TRUSTED. Nil: the configuration decides.
	WebAuthnTrust func(WebAuthnAttestation) bool
	// ErrorLog receives the reports of panicking callbacks; nil is log.Default().
	ErrorLog *log.Logger
}

// Context is the MFA engine on one store (mfa_ctx). It is safe for
// concurrent use by many goroutines: libmfa's context is thread-safe (one
// context may be shared by every thread of a process), and Close waits for
// the calls in progress.
//
// Every call that reaches the store takes a context.Context. libmfa has no
// way to cancel a call once it runs, so the context is checked before the
// call (a done context returns its error and nothing happens); a call in
// flight runs to its end, within the store's deadline (Options.Store).
type Context struct {
	mu        sync.RWMutex
	handle    *C.mfa_ctx
	callbacks cgo.Handle
	clock     func() time.Time
	store     string
}

// Open opens the MFA engine on opts.Store, creating and migrating it as
// needed. Errors: INVALID_ARGUMENT (no store, a key that is not 32 bytes, a
// bad or duplicate key id, both SMSSender and SMSOutbox, a store location
// meant for another database), STORAGE_ERROR (the store cannot be opened,
// or was written by a newer libmfa), or ctx's error.
func Open(ctx context.Context, opts Options) (*Context, error) {
	if ctx != nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if insideCallback() {
		return nil, ErrCallbackReentry
	}
	if opts.Store == "" {
		return nil, invalid("Options.Store is required: an SQLite path, \":memory:\" or a postgres:// URL")
	}
	if opts.SMSSender != nil && opts.SMSOutbox != "" {
		return nil, invalid("give Options.SMSSender or Options.SMSOutbox, not both")
	}
	if len(opts.PreviousKeys) > 64 {
		return nil, invalid(fmt.Sprintf("at most 64 previous keys, not %d", len(opts.PreviousKeys)))
	}
	keyID := opts.KeyID
	if keyID == "" {
		keyID = "k1"
	}
	var args cArgs
	defer args.free()
	o := (*C.mfa_options)(C.calloc(1, C.sizeof_mfa_options))
	if o == nil {
		panic("libmfa: out of memory")
	}
	defer C.free(unsafe.Pointer(o))
	if err := check(C.mfa_options_init(o, C.MFA_OPTIONS_VERSION), nil); err != nil {
		return nil, err
	}
	o.store = args.str(opts.Store, "store")
	if err := masterKey(&args, &o.master_key, MasterKey{ID: keyID, Key: opts.MasterKey}, "master key"); err != nil {
		return nil, err
	}
	if n := len(opts.PreviousKeys); n > 0 {
		keys := (*C.mfa_master_key)(C.calloc(C.size_t(n), C.sizeof_mfa_master_key))
		if keys == nil {
			panic("libmfa: out of memory")
		}
		defer C.free(unsafe.Pointer(keys))
		for i, k := range opts.PreviousKeys {
			slot := (*C.mfa_master_key)(unsafe.Add(unsafe.Pointer(keys), i*C.sizeof_mfa_master_key))
			if err := masterKey(&args, slot, k, "previous key"); err != nil {
				return nil, err
			}
		}
		o.previous_keys = keys
		o.previous_key_count = C.size_t(n)
	}
	o.sms_outbox = args.optional(opts.SMSOutbox, "SMS outbox")
	if args.err != nil {
		return nil, args.err
	}

	host := &hostCallbacks{clock: opts.Clock, random: opts.Random, audit: opts.Audit, sms: opts.SMSSender,
		verifier: opts.AppVerifier, trust: opts.WebAuthnTrust, log: opts.ErrorLog}
	which := C.int(0)
	for _, set := range []struct {
		on  bool
		bit C.int
	}{{opts.Clock != nil, C.MFA_GO_CLOCK}, {opts.Random != nil, C.MFA_GO_RANDOM}, {opts.Audit != nil, C.MFA_GO_AUDIT},
		{opts.SMSSender != nil, C.MFA_GO_SMS}, {opts.AppVerifier != nil, C.MFA_GO_VERIFIER},
		{opts.WebAuthnTrust != nil, C.MFA_GO_TRUST}} {
		if set.on {
			which |= set.bit
		}
	}
	var handle cgo.Handle
	if which != 0 {
		handle = cgo.NewHandle(host)
		C.mfa_go_set_callbacks(o, C.uintptr_t(handle), which)
	}

	var out *C.mfa_ctx
	var message *C.char
	if err := check(C.mfa_open(&out, o, &message), message); err != nil {
		if handle != 0 {
			handle.Delete()
		}
		return nil, err
	}
	c := &Context{handle: out, callbacks: handle, clock: opts.Clock, store: opts.Store}
	runtime.SetFinalizer(c, (*Context).Close)
	return c, nil
}

// masterKey fills a C master key from k, its copies in args (wiped when freed).
func masterKey(args *cArgs, out *C.mfa_master_key, k MasterKey, what string) error {
	if len(k.Key) != MasterKeyBytes {
		return invalid(fmt.Sprintf("a %s is %d bytes, not %d", what, MasterKeyBytes, len(k.Key)))
	}
	out.id = args.str(k.ID, what+" id")
	out.key = args.bytes(k.Key, true)
	return args.err
}

// Close closes the Context and its store, after the calls in progress on
// other goroutines have returned; later calls fail with ErrClosed (an
// INVALID_ARGUMENT *Error). Closing again does nothing. It must not be
// called from a callback (ErrCallbackReentry).
func (c *Context) Close() error {
	if insideCallback() {
		return ErrCallbackReentry
	}
	c.mu.Lock()
	handle := c.handle
	c.handle = nil
	c.mu.Unlock()
	if handle == nil {
		return nil
	}
	runtime.SetFinalizer(c, nil)
	C.mfa_close(handle)
	if c.callbacks != 0 {
		c.callbacks.Delete()
		c.callbacks = 0
	}
	return nil
}

// String names the Context's store (a URL's password left out).
func (c *Context) String() string {
	store := c.store
	if u, err := url.Parse(store); err == nil && u.User != nil {
		store = u.Redacted()
	}
	return fmt.Sprintf("mfa.Context(%q)", store)
}

// begin starts a call: ctx's error if it is done, ErrCallbackReentry from a
// callback, ErrClosed after Close; else the C handle, held until end.
func (c *Context) begin(ctx context.Context) (*C.mfa_ctx, error) {
	if ctx != nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if insideCallback() {
		return nil, ErrCallbackReentry
	}
	c.mu.RLock()
	if c.handle == nil {
		c.mu.RUnlock()
		e := invalid("the context is closed")
		e.cause = ErrClosed
		return nil, e
	}
	return c.handle, nil
}

func (c *Context) end() { c.mu.RUnlock() }

// now reads the Context's clock (as libmfa does).
func (c *Context) now() time.Time {
	if c.clock == nil {
		return time.Unix(time.Now().Unix(), 0)
	}
	now := c.clock()
	return time.Unix(now.Unix(), 0)
}

// call runs f with the C handle and an error out-parameter, around begin/end.
func (c *Context) call(ctx context.Context, args *cArgs, f func(h *C.mfa_ctx, message **C.char) C.int32_t) error {
	if args != nil && args.err != nil {
		return args.err
	}
	h, err := c.begin(ctx)
	if err != nil {
		return err
	}
	defer c.end()
	var message *C.char
	return check(f(h, &message), message)
}

// stringCall runs f, which returns a new string in *out, and copies it.
func (c *Context) stringCall(ctx context.Context, args *cArgs,
	f func(h *C.mfa_ctx, out **C.char, message **C.char) C.int32_t) (string, error) {
	var out *C.char
	err := c.call(ctx, args, func(h *C.mfa_ctx, message **C.char) C.int32_t { return f(h, &out, message) })
	defer C.mfa_free(unsafe.Pointer(out))
	if err != nil {
		return "", err
	}
	return C.GoString(out), nil
}

// factorCall runs f, which returns a new factor in *out, and copies it.
func (c *Context) factorCall(ctx context.Context, args *cArgs,
	f func(h *C.mfa_ctx, out **C.mfa_factor_info, message **C.char) C.int32_t) (*FactorInfo, error) {
	var out *C.mfa_factor_info
	err := c.call(ctx, args, func(h *C.mfa_ctx, message **C.char) C.int32_t { return f(h, &out, message) })
	defer C.mfa_factor_info_free(out)
	if err != nil {
		return nil, err
	}
	info := factorInfo(out)
	return &info, nil
}

// configText returns config as JSON text: a string, []byte or
// json.RawMessage is taken as it is, anything else is marshalled.
func configText(config any) (string, error) {
	switch v := config.(type) {
	case string:
		return v, nil
	case []byte:
		return string(v), nil
	case json.RawMessage:
		return string(v), nil
	}
	data, err := json.Marshal(config)
	if err != nil {
		return "", invalid("the configuration does not marshal to JSON: " + err.Error())
	}
	return string(data), nil
}

// SetConfig stores the MFA configuration of the project (tenant "") or of a
// tenant, replacing the previous one (a field it does not name takes its
// default: a document without "state" turns MFA off). config is JSON text
// (string, []byte, json.RawMessage) or a value encoding/json marshals, such
// as map[string]any{"state": "ENABLED", "providers": map[string]string{"totp":
// "ENABLED"}}; libmfa's format and the shapes of Firebase's Admin SDK
// ("multiFactorConfig") and REST API ("mfa") are accepted. Malformed JSON, an
// unknown field or a value out of range is INVALID_ARGUMENT, its message
// naming the field.
func (c *Context) SetConfig(ctx context.Context, tenant string, config any) error {
	return c.configCall(ctx, tenant, config, false)
}

// UpdateConfig changes only the fields config names in the configuration of
// the project (tenant "") or a tenant: objects merge field by field,
// testPhoneNumbers is replaced whole, the rest stays. On an error nothing
// changes.
func (c *Context) UpdateConfig(ctx context.Context, tenant string, config any) error {
	return c.configCall(ctx, tenant, config, true)
}

func (c *Context) configCall(ctx context.Context, tenant string, config any, update bool) error {
	text, err := configText(config)
	if err != nil {
		return err
	}
	var args cArgs
	defer args.free()
	t, j := args.optional(tenant, "tenant"), args.str(text, "configuration")
	return c.call(ctx, &args, func(h *C.mfa_ctx, message **C.char) C.int32_t {
		if update {
			return C.mfa_config_update_json(h, t, j, message)
		}
		return C.mfa_config_set_json(h, t, j, message)
	})
}

// Config returns the effective configuration of the project (tenant "") or
// a tenant, every field written out, as JSON in libmfa's format.
func (c *Context) Config(ctx context.Context, tenant string) (json.RawMessage, error) {
	var args cArgs
	defer args.free()
	t := args.optional(tenant, "tenant")
	text, err := c.stringCall(ctx, &args, func(h *C.mfa_ctx, out **C.char, message **C.char) C.int32_t {
		return C.mfa_config_get_json(h, out, t, message)
	})
	if err != nil {
		return nil, err
	}
	return json.RawMessage(text), nil
}

// MetricsText returns the context's metrics (sign-ins, enrollments, code
// sends, backoffs, store latency, counted since it opened) in Prometheus'
// text exposition format, version 0.0.4, in one call: what a /metrics
// endpoint serves, as "text/plain; version=0.0.4; charset=utf-8". Empty
// when the context keeps no metrics. It never waits for the store.
func (c *Context) MetricsText(ctx context.Context) (string, error) {
	var args cArgs
	defer args.free()
	return c.stringCall(ctx, &args, func(h *C.mfa_ctx, out **C.char, message **C.char) C.int32_t {
		return C.mfa_metrics_prometheus(h, out, message)
	})
}

// CheckToken checks that a credential the host issued to uid at issuedAt
// (read to the millisecond) is still valid: enrolling, unenrolling,
// generating recovery codes and RevokeTokens revoke the earlier ones
// (USER_TOKEN_EXPIRED: the user must sign in again).
func (c *Context) CheckToken(ctx context.Context, tenant, uid string, issuedAt time.Time) error {
	var args cArgs
	defer args.free()
	t, u := args.optional(tenant, "tenant"), args.str(uid, "uid")
	return c.call(ctx, &args, func(h *C.mfa_ctx, _ **C.char) C.int32_t {
		return C.mfa_token_check_ms(h, t, u, C.int64_t(issuedAt.UnixMilli()))
	})
}

// CheckTokenUnix is CheckToken for a credential whose issue time is known to
// the second only (a JWT's iat): one issued in the same second as a
// revocation counts as earlier.
func (c *Context) CheckTokenUnix(ctx context.Context, tenant, uid string, issuedAt int64) error {
	var args cArgs
	defer args.free()
	t, u := args.optional(tenant, "tenant"), args.str(uid, "uid")
	return c.call(ctx, &args, func(h *C.mfa_ctx, _ **C.char) C.int32_t {
		return C.mfa_token_check(h, t, u, C.int64_t(issuedAt))
	})
}

// RevokeTokens revokes every credential and libmfa token issued to uid so
// far (a password reset, a compromised account): CheckToken fails for
// them, and so do the user's enrollment sessions, TOTP secrets waiting for
// enrollment, verification ids and pending credentials. Factors stay.
// Audited (AuditTokensRevoked).
func (c *Context) RevokeTokens(ctx context.Context, tenant, uid string) error {
	var args cArgs
	defer args.free()
	t, u := args.optional(tenant, "tenant"), args.str(uid, "uid")
	return c.call(ctx, &args, func(h *C.mfa_ctx, message **C.char) C.int32_t {
		return C.mfa_revoke_tokens(h, t, u, message)
	})
}

// PassedSecondFactor is the step-up check: whether uid passed a second
// factor within the last `within` (whole seconds; negative is
// INVALID_ARGUMENT).
func (c *Context) PassedSecondFactor(ctx context.Context, tenant, uid string, within time.Duration) (bool, error) {
	if within < 0 {
		return false, invalid("within must not be negative")
	}
	var args cArgs
	defer args.free()
	t, u := args.optional(tenant, "tenant"), args.str(uid, "uid")
	var out C.bool
	err := c.call(ctx, &args, func(h *C.mfa_ctx, _ **C.char) C.int32_t {
		return C.mfa_step_up_check(h, &out, t, u, C.int64_t(within/time.Second))
	})
	return bool(out), err
}

// RotateKeys re-encrypts every stored secret that is not under the current
// master key, in batches of 500 records (Admin.RotateKeys takes the batch
// size and reports progress), and returns how many it re-encrypted. Keep the
// previous keys until the tokens they sealed have expired (10 minutes by
// default). CRYPTO: a record's key was not given.
func (c *Context) RotateKeys(ctx context.Context) (int, error) {
	var n C.size_t
	err := c.call(ctx, nil, func(h *C.mfa_ctx, message **C.char) C.int32_t {
		return C.mfa_rotate_keys(h, &n, message)
	})
	return int(n), err
}

// PurgeExpired deletes pending TOTP secrets past their deadline and the
// records of used tokens that have expired.
func (c *Context) PurgeExpired(ctx context.Context) error {
	return c.call(ctx, nil, func(h *C.mfa_ctx, message **C.char) C.int32_t {
		return C.mfa_purge_expired(h, message)
	})
}
