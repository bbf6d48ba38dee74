package mfa_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"libmfa/mfa"
)

// RFC 6238 appendix B, and RFC 4226 appendix D.
func TestTOTPVectors(t *testing.T) {
	keys := map[mfa.Algorithm]string{
		mfa.SHA1:   "12345678901234567890",
		mfa.SHA256: "12345678901234567890123456789012",
		mfa.SHA512: "1234567890123456789012345678901234567890123456789012345678901234",
	}
	vectors := []struct {
		at    int64
		codes map[mfa.Algorithm]string
	}{
		{59, map[mfa.Algorithm]string{mfa.SHA1: "94287082", mfa.SHA256: "46119246", mfa.SHA512: "90693936"}},
		{1111111109, map[mfa.Algorithm]string{mfa.SHA1: "07081804", mfa.SHA256: "68084774", mfa.SHA512: "25091201"}},
		{1111111111, map[mfa.Algorithm]string{mfa.SHA1: "14050471", mfa.SHA256: "67062674", mfa.SHA512: "99943326"}},
		{1234567890, map[mfa.Algorithm]string{mfa.SHA1: "89005924", mfa.SHA256: "91819424", mfa.SHA512: "93441116"}},
		{2000000000, map[mfa.Algorithm]string{mfa.SHA1: "69279037", mfa.SHA256: "90698825", mfa.SHA512: "38618901"}},
		{20000000000, map[mfa.Algorithm]string{mfa.SHA1: "65353130", mfa.SHA256: "77737706", mfa.SHA512: "47863826"}},
	}
	for alg, key := range keys {
		totp, err := mfa.NewTOTP([]byte(key), mfa.TOTPParams{Algorithm: alg, Digits: 8})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vectors {
			at := time.Unix(v.at, 0)
			code, err := totp.At(at)
			if err != nil || code != v.codes[alg] {
				t.Errorf("%s at %d: %q, %v; want %s", alg, v.at, code, err, v.codes[alg])
			}
			step, ok, err := totp.Match(v.codes[alg], at, 0)
			if !ok || err != nil || step != v.at/30 || step != totp.Timecode(at) {
				t.Errorf("%s match at %d: %d %v %v", alg, v.at, step, ok, err)
			}
		}
	}
}

func TestHOTPVectors(t *testing.T) {
	want := []string{"755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"}
	hotp, err := mfa.NewHOTP([]byte("12345678901234567890"), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for counter, code := range want {
		got, err := hotp.At(uint64(counter))
		if err != nil || got != code {
			t.Errorf("counter %d: %q, %v", counter, got, err)
		}
	}
	matched, ok, err := hotp.Match("969429", 1, 5)
	if !ok || err != nil || matched != 3 {
		t.Fatalf("look-ahead match: %d %v %v", matched, ok, err)
	}
	if ok, err := hotp.Verify("969429", 4, 5); ok || err != nil {
		t.Fatalf("a code behind the counter: %v %v", ok, err)
	}
	_, err = hotp.Verify("969429", 0, mfa.WindowMax+1)
	wantErr(t, err, mfa.ErrInvalidArgument)
}

func TestTOTPVerify(t *testing.T) {
	secret, err := mfa.RandomSecret(mfa.SecretDefaultBytes)
	if err != nil || len(secret) != 20 {
		t.Fatal(secret, err)
	}
	totp, err := mfa.NewTOTP(secret, mfa.TOTPParams{})
	if err != nil {
		t.Fatal(err)
	}
	if p := totp.Params(); p.Algorithm != mfa.SHA1 || p.Digits != 6 || p.Period != 30 || p.T0 != 0 {
		t.Fatalf("defaults: %+v", p)
	}
	at := time.Unix(t0, 0)
	code, err := totp.At(at)
	if err != nil || len(code) != 6 {
		t.Fatal(code, err)
	}
	next, _ := totp.At(at.Add(30 * time.Second))
	if ok, err := totp.Verify(code, at, 0); !ok || err != nil {
		t.Fatal("right code refused", err)
	}
	if ok, _ := totp.Verify(next, at, 0); ok && next != code {
		t.Fatal("the next step's code accepted with window 0")
	}
	if step, ok, _ := totp.Match(next, at, 1); !ok || step != t0/30+1 {
		t.Fatalf("the next step with window 1: %d %v", step, ok)
	}
	for _, malformed := range []string{"", "12345", "abcdef", "1234567", "12 345", strings.Repeat("9", 100)} {
		if ok, err := totp.Verify(malformed, at, 1); ok || err != nil {
			t.Errorf("malformed %q: %v %v", malformed, ok, err)
		}
	}
	_, err = totp.Verify("123\x00456", at, 1)
	wantErr(t, err, mfa.ErrInvalidArgument)
	for _, window := range []int{-1, mfa.WindowMax + 1} {
		_, err = totp.Verify(code, at, window)
		wantErr(t, err, mfa.ErrInvalidArgument)
	}
	// A code far longer than the short path: the same answer through a C string.
	long := code + string(make([]byte, 200))
	if ok, err := totp.Verify(long, at, 1); ok || !errors.Is(err, mfa.ErrInvalidArgument) {
		t.Fatalf("a code with NULs: %v %v", ok, err)
	}
	longDigits := code + "0000000000000000000000000000000000000000000000000000000000000000000000"
	if ok, err := totp.Verify(longDigits, at, 1); ok || err != nil {
		t.Fatalf("an overlong code: %v %v", ok, err)
	}
	// Time before T0.
	late, _ := mfa.NewTOTP(secret, mfa.TOTPParams{T0: t0})
	_, err = late.At(at.Add(-time.Second))
	wantErr(t, err, mfa.ErrInvalidArgument)
}

// The hot path allocates nothing on the Go side.
func TestTOTPVerifyAllocatesNothing(t *testing.T) {
	totp, _ := mfa.NewTOTP([]byte("12345678901234567890"), mfa.TOTPParams{})
	at := time.Unix(t0, 0)
	code, _ := totp.At(at)
	allocs := testing.AllocsPerRun(200, func() {
		if ok, err := totp.Verify(code, at, 5); !ok || err != nil {
			t.Fatal("refused")
		}
		if ok, _ := totp.Verify("000000", at, 5); ok && code != "000000" {
			t.Fatal("accepted")
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per verification", allocs)
	}
}

func TestOTPBadInput(t *testing.T) {
	for _, n := range []int{0, 15, 129} {
		_, err := mfa.RandomSecret(n)
		wantErr(t, err, mfa.ErrInvalidArgument)
	}
	bad := []struct {
		secret []byte
		params mfa.TOTPParams
	}{
		{nil, mfa.TOTPParams{}},
		{make([]byte, mfa.KeyMaxBytes+1), mfa.TOTPParams{}},
		{[]byte("k"), mfa.TOTPParams{Digits: 5}},
		{[]byte("k"), mfa.TOTPParams{Digits: 9}},
		{[]byte("k"), mfa.TOTPParams{Period: -1}},
		{[]byte("k"), mfa.TOTPParams{Period: mfa.PeriodMax + 1}},
		{[]byte("k"), mfa.TOTPParams{Algorithm: 7}},
	}
	for _, b := range bad {
		_, err := mfa.NewTOTP(b.secret, b.params)
		wantErr(t, err, mfa.ErrInvalidArgument)
	}
	_, err := mfa.NewHOTP([]byte("k"), 10, 0)
	wantErr(t, err, mfa.ErrInvalidArgument)
	_, err = mfa.ParseAlgorithm("md5")
	wantErr(t, err, mfa.ErrInvalidArgument)
	if a, err := mfa.ParseAlgorithm("sha256"); a != mfa.SHA256 || err != nil {
		t.Fatal(a, err)
	}
	// The TOTP keeps its own copy of the secret.
	secret := []byte("12345678901234567890")
	totp, _ := mfa.NewTOTP(secret, mfa.TOTPParams{})
	before, _ := totp.At(time.Unix(59, 0))
	secret[0] ^= 0xff
	after, _ := totp.At(time.Unix(59, 0))
	if before != after || string(totp.Secret()) != "12345678901234567890" {
		t.Fatal("the TOTP follows the caller's slice")
	}
}
