// Command bench: stateless TOTP verification (SHA1, 6 digits, 30 s, +/-5
// steps) in one process run, through libmfa's Go binding, through libmfa's
// C ABI called in a C loop (one cgo call per run), and through
// github.com/pquerna/otp's totp.ValidateCustom; the right code of the
// current step, and a wrong code (every step is tried). Prints the rates
// and the ratios. Run by bench/go_verify.sh.
package main

/*
#cgo pkg-config: mfa
#include <mfa.h>

enum { KEYS = 64 };
static uint8_t keys[KEYS][20];
static char right[KEYS][16], wrong[KEYS][16];

static void set_sample(int i, const uint8_t *key, const char *r, const char *w) {
	for (int j = 0; j < 20; j++) keys[i][j] = key[j];
	for (int j = 0; j < 16; j++) { right[i][j] = r[j]; wrong[i][j] = w[j]; }
}

// c_loop verifies n codes with mfa_totp_verify, as a C program would; the
// number that matched.
static long c_loop(long n, int use_right, int64_t when) {
	long matched = 0;
	for (long i = 0; i < n; i++) {
		int k = (int)(i % KEYS);
		int64_t step = 0;
		if (mfa_totp_verify(&step, keys[k], 20, NULL, when, 5, use_right ? right[k] : wrong[k]) == MFA_OK) matched++;
	}
	return matched;
}
*/
import "C"

import (
	"encoding/base32"
	"fmt"
	"os"
	"strconv"
	"time"
	"unsafe"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"libmfa/mfa"
)

const (
	keys   = 64
	window = 5
)

var when = time.Unix(1_700_000_000, 0)

type sample struct {
	binding      *mfa.TOTP
	base32       string
	right, wrong string
}

var sink int

func main() {
	n := 200000
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	samples := make([]sample, keys)
	opts := totp.ValidateOpts{Period: 30, Skew: window, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}
	for i := range samples {
		key, err := mfa.RandomSecret(20)
		check(err)
		s := &samples[i]
		s.binding, err = mfa.NewTOTP(key, mfa.TOTPParams{})
		check(err)
		s.base32 = base32.StdEncoding.EncodeToString(key)
		s.right, err = s.binding.At(when)
		check(err)
		for c := 0; ; c++ { // a code that matches none of the 11 steps
			s.wrong = fmt.Sprintf("%06d", (c*7919)%1000000)
			if ok, _ := s.binding.Verify(s.wrong, when, window); !ok {
				break
			}
		}
		// All three agree before they are timed.
		okRight, _ := s.binding.Verify(s.right, when, window)
		theirsRight, _ := totp.ValidateCustom(s.right, s.base32, when, opts)
		theirsWrong, _ := totp.ValidateCustom(s.wrong, s.base32, when, opts)
		if !okRight || !theirsRight || theirsWrong {
			fmt.Fprintln(os.Stderr, "bench: the verifiers disagree")
			os.Exit(1)
		}
		var r, w [16]C.char
		for j := 0; j < len(s.right); j++ {
			r[j], w[j] = C.char(s.right[j]), C.char(s.wrong[j])
		}
		C.set_sample(C.int(i), (*C.uint8_t)(unsafe.Pointer(&key[0])), &r[0], &w[0])
	}
	if C.c_loop(keys, 1, C.int64_t(when.Unix())) != keys || C.c_loop(keys, 0, C.int64_t(when.Unix())) != 0 {
		fmt.Fprintln(os.Stderr, "bench: the C loop disagrees")
		os.Exit(1)
	}

	binding := func(right bool, n int) float64 {
		start := time.Now()
		for i := 0; i < n; i++ {
			s := &samples[i%keys]
			code := s.wrong
			if right {
				code = s.right
			}
			if ok, _ := s.binding.Verify(code, when, window); ok {
				sink++
			}
		}
		return float64(n) / time.Since(start).Seconds()
	}
	cABI := func(right bool, n int) float64 {
		use := C.int(0)
		if right {
			use = 1
		}
		start := time.Now()
		sink += int(C.c_loop(C.long(n), use, C.int64_t(when.Unix())))
		return float64(n) / time.Since(start).Seconds()
	}
	pquerna := func(right bool, n int) float64 {
		start := time.Now()
		for i := 0; i < n; i++ {
			s := &samples[i%keys]
			code := s.wrong
			if right {
				code = s.right
			}
			if ok, _ := totp.ValidateCustom(code, s.base32, when, opts); ok {
				sink++
			}
		}
		return float64(n) / time.Since(start).Seconds()
	}

	fmt.Printf("stateless TOTP verification, SHA1, 6 digits, 30 s, window +/-%d; %d verifications per round, "+
		"best of 7 rounds taken in turns\n", window, n)
	fmt.Printf("%-12s %14s %14s %14s %16s %18s\n", "case", "Go binding/s", "C ABI/s", "pquerna/otp/s",
		"binding / C", "binding / pquerna")
	for _, right := range []bool{true, false} {
		var mine, c, theirs float64
		for round := 0; round < 7; round++ {
			mine = max(mine, binding(right, n))
			c = max(c, cABI(right, n))
			theirs = max(theirs, pquerna(right, n/4))
		}
		name := "right code"
		if !right {
			name = "wrong code"
		}
		fmt.Printf("%-12s %14.0f %14.0f %14.0f %16.2f %17.1fx\n", name, mine, c, theirs, mine/c, mine/theirs)
	}
}

func max(a, b float64) float64 {
	if b > a {
		return b
	}
	return a
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
