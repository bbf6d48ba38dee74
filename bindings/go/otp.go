package mfa

/*
#include <stdlib.h>
#include <string.h>
#include <mfa.h>

// A TOTP's key and parameters live in C memory (mfa_go_totp), and the
// code of a verification arrives by value, packed into two integers, or as
// the bytes of a Go string that is not NUL-terminated: the hot path passes
// no Go pointer to C (nothing for cgo to check) and allocates nothing.
// These copy the code onto the C stack. Codes of 64 bytes and more take
// the plain path (a C string).
enum { MFA_GO_SHORT_CODE = 64 };

typedef struct mfa_go_totp {
	mfa_totp_params params;
	// &params, or NULL for the defaults (libmfa then reads no struct)
	const mfa_totp_params *given;
	size_t key_len;
	uint8_t key[];
} mfa_go_totp;

static mfa_go_totp *mfa_go_totp_new(const uint8_t *key, size_t key_len, const mfa_totp_params *params) {
	mfa_totp_params defaults;
	mfa_go_totp *t = malloc(sizeof *t + key_len);
	if (!t) return NULL;
	t->params = *params;
	t->given = &t->params;
	if (mfa_totp_params_init(&defaults, MFA_TOTP_PARAMS_VERSION) == MFA_OK && defaults.algorithm == params->algorithm &&
		defaults.digits == params->digits && defaults.period == params->period && defaults.t0 == params->t0)
		t->given = NULL;
	t->key_len = key_len;
	memcpy(t->key, key, key_len);
	return t;
}

static void mfa_go_totp_free(mfa_go_totp *t) {
	if (!t) return;
	volatile uint8_t *p = t->key;
	for (size_t i = 0; i < t->key_len; i++) p[i] = 0;
	free(t);
}

typedef struct mfa_go_match {
	int32_t status;
	int64_t step;
} mfa_go_match;

// mfa_go_totp_verify_packed checks the code of `len` (at most 16) bytes
// packed little-endian into lo and hi.
static mfa_go_match mfa_go_totp_verify_packed(const mfa_go_totp *t, int64_t unix_time, int32_t window,
		uint64_t lo, uint64_t hi, size_t len) {
	char buffer[17];
	mfa_go_match m = {0, 0};
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(buffer, &lo, 8);
	memcpy(buffer + 8, &hi, 8);
#else
	for (size_t i = 0; i < 16; i++) buffer[i] = (char)((i < 8 ? lo >> (8 * i) : hi >> (8 * (i - 8))) & 0xff);
#endif
	buffer[len < 16 ? len : 16] = 0;
	m.status = mfa_totp_verify(&m.step, t->key, t->key_len, t->given, unix_time, window, buffer);
	memset(buffer, 0, sizeof buffer);
	return m;
}

static mfa_go_match mfa_go_totp_verify_bytes(const mfa_go_totp *t, int64_t unix_time, int32_t window,
		const char *code, size_t code_len) {
	char buffer[MFA_GO_SHORT_CODE];
	mfa_go_match m = {MFA_ERR_INVALID_ARGUMENT, 0};
	if (code_len >= sizeof buffer) return m;
	memcpy(buffer, code, code_len);
	buffer[code_len] = 0;
	m.status = mfa_totp_verify(&m.step, t->key, t->key_len, t->given, unix_time, window, buffer);
	memset(buffer, 0, sizeof buffer);
	return m;
}

static mfa_go_match mfa_go_totp_verify_cstr(const mfa_go_totp *t, int64_t unix_time, int32_t window,
		const char *code) {
	mfa_go_match m = {0, 0};
	m.status = mfa_totp_verify(&m.step, t->key, t->key_len, t->given, unix_time, window, code);
	return m;
}

static const uint8_t *mfa_go_totp_key(const mfa_go_totp *t) { return t->key; }

static int32_t mfa_go_totp_generate(char *out, size_t out_size, const mfa_go_totp *t, int64_t unix_time) {
	return mfa_totp_generate(out, out_size, t->key, t->key_len, t->given, unix_time);
}

static int32_t mfa_go_hotp_verify(uint64_t *out_counter, const uint8_t *key, size_t key_len,
		uint64_t counter, int32_t look_ahead, int32_t digits, int32_t algorithm,
		const char *code, size_t code_len) {
	char buffer[MFA_GO_SHORT_CODE];
	if (code_len >= sizeof buffer) return MFA_ERR_INVALID_ARGUMENT;
	if (code_len) memcpy(buffer, code, code_len);
	buffer[code_len] = 0;
	int32_t status = mfa_hotp_verify(out_counter, key, key_len, counter, look_ahead, digits, algorithm, buffer);
	memset(buffer, 0, sizeof buffer);
	return status;
}
*/
import "C"

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"time"
	"unsafe"
)

// Algorithm is the HMAC of a one-time password.
type Algorithm int32

// The algorithms; SHA1 is the default and what every authenticator app supports.
const (
	SHA1   Algorithm = C.MFA_ALG_SHA1
	SHA256 Algorithm = C.MFA_ALG_SHA256
	SHA512 Algorithm = C.MFA_ALG_SHA512
)

// String returns "SHA1", "SHA256" or "SHA512" ("Algorithm(n)" for others).
func (a Algorithm) String() string {
	switch a {
	case SHA1:
		return "SHA1"
	case SHA256:
		return "SHA256"
	case SHA512:
		return "SHA512"
	}
	return fmt.Sprintf("Algorithm(%d)", int32(a))
}

// ParseAlgorithm returns the algorithm of a name, in any case ("sha256").
func ParseAlgorithm(name string) (Algorithm, error) {
	for _, a := range []Algorithm{SHA1, SHA256, SHA512} {
		if strings.EqualFold(name, a.String()) {
			return a, nil
		}
	}
	return 0, invalid(fmt.Sprintf("unknown algorithm %q (SHA1, SHA256 or SHA512)", name))
}

// Limits of the one-time passwords (mfa_types.h).
const (
	DigitsMin          = C.MFA_DIGITS_MIN
	DigitsMax          = C.MFA_DIGITS_MAX
	DigitsDefault      = C.MFA_DIGITS_DEFAULT
	PeriodDefault      = C.MFA_PERIOD_DEFAULT
	PeriodMax          = C.MFA_PERIOD_MAX
	WindowMax          = C.MFA_WINDOW_MAX
	KeyMaxBytes        = C.MFA_KEY_MAX_BYTES
	SecretDefaultBytes = C.MFA_SECRET_DEFAULT_BYTES
	SecretMinBytes     = C.MFA_SECRET_MIN_BYTES
	SecretMaxBytes     = C.MFA_SECRET_MAX_BYTES
	StringMaxBytes     = C.MFA_STRING_MAX_BYTES
	MasterKeyBytes     = C.MFA_MASTER_KEY_BYTES
)

// RandomSecret returns n fresh random bytes from libsodium's CSPRNG, for an
// OTP secret: SecretMinBytes (16) to SecretMaxBytes (128); SecretDefaultBytes
// (20) is what RFC 4226 recommends.
func RandomSecret(n int) ([]byte, error) {
	if n < SecretMinBytes || n > SecretMaxBytes {
		return nil, invalid(fmt.Sprintf("a secret is %d to %d bytes, not %d", SecretMinBytes, SecretMaxBytes, n))
	}
	out := make([]byte, n)
	if err := check(C.mfa_random_secret((*C.uint8_t)(unsafe.Pointer(&out[0])), C.size_t(n)), nil); err != nil {
		return nil, err
	}
	return out, nil
}

// stringData returns the address of s's bytes, for a C call that reads
// len(s) of them (never NULL).
func stringData(s string) *C.char {
	if len(s) == 0 {
		return (*C.char)(unsafe.Pointer(&emptyCode[0]))
	}
	return (*C.char)(unsafe.Pointer((*reflect.StringHeader)(unsafe.Pointer(&s)).Data))
}

var emptyCode = [1]byte{0}

// checkKey returns a copy of a secret of an accepted length (1 to KeyMaxBytes).
func checkKey(secret []byte) ([]byte, error) {
	if len(secret) < 1 || len(secret) > KeyMaxBytes {
		return nil, invalid(fmt.Sprintf("a secret is 1 to %d bytes, not %d", KeyMaxBytes, len(secret)))
	}
	return append([]byte(nil), secret...), nil
}

// codeFits tells whether the short (allocation-free) path can take code; a
// NUL byte inside is an INVALID_ARGUMENT.
func codeFits(code string) (bool, error) {
	if strings.IndexByte(code, 0) >= 0 {
		return false, invalid("code contains a NUL byte")
	}
	return len(code) < C.MFA_GO_SHORT_CODE, nil
}

// TOTPParams says how TOTP codes are computed. Zero fields take the
// defaults: SHA1, 6 digits, 30 s, T0 = 0.
type TOTPParams struct {
	// Algorithm is SHA1, SHA256 or SHA512.
	Algorithm Algorithm
	// Digits is the code length, 6 to 8.
	Digits int
	// Period is the time step in seconds, 1 to PeriodMax.
	Period int
	// T0 is the Unix time at which step 0 starts (RFC 6238), usually 0.
	T0 int64
}

// withDefaults fills the zero fields.
func (p TOTPParams) withDefaults() TOTPParams {
	if p.Algorithm == 0 {
		p.Algorithm = SHA1
	}
	if p.Digits == 0 {
		p.Digits = DigitsDefault
	}
	if p.Period == 0 {
		p.Period = PeriodDefault
	}
	return p
}

// cParams returns the C struct of p (defaults filled), checked.
func (p TOTPParams) cParams() (C.mfa_totp_params, error) {
	var out C.mfa_totp_params
	if err := check(C.mfa_totp_params_init(&out, C.MFA_TOTP_PARAMS_VERSION), nil); err != nil {
		return out, err
	}
	p = p.withDefaults()
	if p.Digits < DigitsMin || p.Digits > DigitsMax {
		return out, invalid(fmt.Sprintf("digits must be %d to %d, not %d", DigitsMin, DigitsMax, p.Digits))
	}
	if p.Period < 1 || p.Period > PeriodMax {
		return out, invalid(fmt.Sprintf("period must be 1 to %d seconds, not %d", PeriodMax, p.Period))
	}
	if p.Algorithm != SHA1 && p.Algorithm != SHA256 && p.Algorithm != SHA512 {
		return out, invalid("unknown algorithm " + p.Algorithm.String())
	}
	out.algorithm = C.int32_t(p.Algorithm)
	out.digits = C.int32_t(p.Digits)
	out.period = C.int64_t(p.Period)
	out.t0 = C.int64_t(p.T0)
	return out, nil
}

// TOTP makes and checks time-based one-time passwords (RFC 6238) for one
// secret. It is immutable and safe for concurrent use. Its copy of the
// secret lives in C memory, wiped and freed when the TOTP is garbage.
type TOTP struct {
	c      *C.mfa_go_totp
	public TOTPParams
}

// NewTOTP returns the TOTP of a raw secret (1 to KeyMaxBytes bytes; a base32
// text is decoded with Base32Decode first) and its parameters.
func NewTOTP(secret []byte, params TOTPParams) (*TOTP, error) {
	if _, err := checkKey(secret); err != nil {
		return nil, err
	}
	c, err := params.cParams()
	if err != nil {
		return nil, err
	}
	held := C.mfa_go_totp_new((*C.uint8_t)(unsafe.Pointer(&secret[0])), C.size_t(len(secret)), &c)
	if held == nil {
		panic("libmfa: out of memory")
	}
	t := &TOTP{c: held, public: params.withDefaults()}
	runtime.SetFinalizer(t, func(t *TOTP) { C.mfa_go_totp_free(t.c) })
	return t, nil
}

// Secret returns a copy of the raw secret.
func (t *TOTP) Secret() []byte {
	defer runtime.KeepAlive(t)
	return goBytes(unsafe.Pointer(C.mfa_go_totp_key(t.c)), t.c.key_len)
}

// Params returns the parameters, defaults filled.
func (t *TOTP) Params() TOTPParams { return t.public }

// Timecode returns the time step that contains at: (at - T0) / period.
func (t *TOTP) Timecode(at time.Time) int64 {
	return floorDiv(at.Unix()-t.public.T0, int64(t.public.Period))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// At returns the code of the time step that contains at. A time before T0 is
// an INVALID_ARGUMENT.
func (t *TOTP) At(at time.Time) (string, error) {
	var out [C.MFA_CODE_BUFFER_SIZE]C.char
	status := C.mfa_go_totp_generate(&out[0], C.size_t(len(out)), t.c, C.int64_t(at.Unix()))
	runtime.KeepAlive(t)
	if err := check(status, nil); err != nil {
		return "", err
	}
	return C.GoString(&out[0]), nil
}

// Now returns the code of the current time step.
func (t *TOTP) Now() (string, error) { return t.At(time.Now()) }

// Verify reports whether code is right at the time at, give or take window
// (0 to WindowMax) time steps. A wrong or malformed code is false with a nil
// error; an error is a bad argument (a window out of range, a time before
// T0, a NUL in the code). It is stateless: to make codes single-use, use
// Match and refuse steps at or before the last one accepted (the engine's
// sign-in does that for enrolled factors).
func (t *TOTP) Verify(code string, at time.Time, window int) (bool, error) {
	_, ok, err := t.Match(code, at, window)
	return ok, err
}

// Match is Verify returning the time step that matched (ok false when none did).
func (t *TOTP) Match(code string, at time.Time, window int) (step int64, ok bool, err error) {
	if window < 0 || window > WindowMax {
		return 0, false, invalid(fmt.Sprintf("window must be 0 to %d, not %d", WindowMax, window))
	}
	var m C.mfa_go_match
	if len(code) <= 16 {
		var lo, hi uint64
		for i := 0; i < len(code); i++ {
			b := code[i]
			if b == 0 {
				return 0, false, invalid("code contains a NUL byte")
			}
			if i < 8 {
				lo |= uint64(b) << (8 * i)
			} else {
				hi |= uint64(b) << (8 * (i - 8))
			}
		}
		m = C.mfa_go_totp_verify_packed(t.c, C.int64_t(at.Unix()), C.int32_t(window), C.uint64_t(lo),
			C.uint64_t(hi), C.size_t(len(code)))
	} else {
		short, err := codeFits(code)
		if err != nil {
			return 0, false, err
		}
		if short {
			m = C.mfa_go_totp_verify_bytes(t.c, C.int64_t(at.Unix()), C.int32_t(window), stringData(code),
				C.size_t(len(code)))
		} else {
			var args cArgs
			defer args.free()
			m = C.mfa_go_totp_verify_cstr(t.c, C.int64_t(at.Unix()), C.int32_t(window), args.secret(code, "code"))
		}
	}
	runtime.KeepAlive(t)
	switch m.status {
	case C.MFA_OK:
		return int64(m.step), true, nil
	case C.MFA_ERR_INVALID_VERIFICATION_CODE:
		return 0, false, nil
	}
	return 0, false, newError(m.status, "")
}

// ProvisioningURI returns the otpauth://totp/ key URI of this secret (what a
// QR code holds), with issuer ("" for none) and account percent-encoded. A
// T0 other than 0 cannot be written in a key URI: INVALID_ARGUMENT.
func (t *TOTP) ProvisioningURI(account, issuer string) (string, error) {
	if t.public.T0 != 0 {
		return "", invalid(fmt.Sprintf("a key URI cannot carry t0 = %d; only t0 = 0 can be provisioned", t.public.T0))
	}
	return KeyURI{Type: OTPTypeTOTP, Issuer: issuer, Account: account, Secret: t.Secret(),
		Algorithm: t.public.Algorithm, Digits: t.public.Digits, Period: t.public.Period}.Build()
}

// HOTP makes and checks counter-based one-time passwords (RFC 4226) for one
// secret. It is immutable and safe for concurrent use.
type HOTP struct {
	key       []byte
	digits    int
	algorithm Algorithm
}

// NewHOTP returns the HOTP of a raw secret (1 to KeyMaxBytes bytes), with
// digits (6 to 8; 0 for 6) and algorithm (0 for SHA1).
func NewHOTP(secret []byte, digits int, algorithm Algorithm) (*HOTP, error) {
	key, err := checkKey(secret)
	if err != nil {
		return nil, err
	}
	p, err := TOTPParams{Algorithm: algorithm, Digits: digits}.cParams()
	if err != nil {
		return nil, err
	}
	return &HOTP{key: key, digits: int(p.digits), algorithm: Algorithm(p.algorithm)}, nil
}

// Secret returns a copy of the raw secret.
func (h *HOTP) Secret() []byte { return append([]byte(nil), h.key...) }

// Digits returns the code length.
func (h *HOTP) Digits() int { return h.digits }

// Algorithm returns the HMAC algorithm.
func (h *HOTP) Algorithm() Algorithm { return h.algorithm }

// At returns the code of counter.
func (h *HOTP) At(counter uint64) (string, error) {
	var out [C.MFA_CODE_BUFFER_SIZE]C.char
	status := C.mfa_hotp_generate(&out[0], C.size_t(len(out)), (*C.uint8_t)(unsafe.Pointer(&h.key[0])),
		C.size_t(len(h.key)), C.uint64_t(counter), C.int32_t(h.digits), C.int32_t(h.algorithm))
	if err := check(status, nil); err != nil {
		return "", err
	}
	return C.GoString(&out[0]), nil
}

// Verify reports whether code is right for counter or up to lookAhead (0 to
// WindowMax) counters after it; a wrong or malformed code is false with a
// nil error.
func (h *HOTP) Verify(code string, counter uint64, lookAhead int) (bool, error) {
	_, ok, err := h.Match(code, counter, lookAhead)
	return ok, err
}

// Match is Verify returning the counter that matched: the next expected
// counter is that plus one.
func (h *HOTP) Match(code string, counter uint64, lookAhead int) (matched uint64, ok bool, err error) {
	if lookAhead < 0 || lookAhead > WindowMax {
		return 0, false, invalid(fmt.Sprintf("look-ahead must be 0 to %d, not %d", WindowMax, lookAhead))
	}
	short, err := codeFits(code)
	if err != nil {
		return 0, false, err
	}
	var out C.uint64_t
	key := (*C.uint8_t)(unsafe.Pointer(&h.key[0]))
	var status C.int32_t
	if short {
		status = C.mfa_go_hotp_verify(&out, key, C.size_t(len(h.key)), C.uint64_t(counter), C.int32_t(lookAhead),
			C.int32_t(h.digits), C.int32_t(h.algorithm), stringData(code), C.size_t(len(code)))
	} else {
		var args cArgs
		defer args.free()
		status = C.mfa_hotp_verify(&out, key, C.size_t(len(h.key)), C.uint64_t(counter), C.int32_t(lookAhead),
			C.int32_t(h.digits), C.int32_t(h.algorithm), args.secret(code, "code"))
	}
	switch status {
	case C.MFA_OK:
		return uint64(out), true, nil
	case C.MFA_ERR_INVALID_VERIFICATION_CODE:
		return 0, false, nil
	}
	return 0, false, newError(status, "")
}
