// Command bench: stateless TOTP verification (SHA1, 6 digits, 30 s, +/-5
// steps) in one process run, through libmfa's Go binding, through libmfa's
// C ABI called in a C loop (one cgo call per run), and through
// github.com/pquerna/otp's totp.ValidateCustom; the right code of the
// current step, and a wrong code (every step is tried). Prints the rates
// (verifications per second of the process's CPU time) and the ratios, and
// what a cgo call costs by itself. Run by bench/go_verify.sh.
package main

/*
#cgo pkg-config: mfa
#include <time.h>
#include <mfa.h>

// cpu_ns is the CPU time the process has used, in nanoseconds: the rates
// count CPU time, not wall time, so that other programs on the machine
// change them less (the Go runtime's own threads, the garbage collector's
// among them, are counted).
// noop is a C function that does nothing, to time a cgo call alone.
static int32_t noop(int32_t x) { return x; }

static int64_t cpu_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

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
	n := 100000
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
		start := C.cpu_ns()
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
		return rate(n, start)
	}
	cABI := func(right bool, n int) float64 {
		use := C.int(0)
		if right {
			use = 1
		}
		start := C.cpu_ns()
		sink += int(C.c_loop(C.long(n), use, C.int64_t(when.Unix())))
		return rate(n, start)
	}
	pquerna := func(right bool, n int) float64 {
		start := C.cpu_ns()
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
		return rate(n, start)
	}

	fmt.Printf("stateless TOTP verification, SHA1, 6 digits, 30 s, window +/-%d; %d verifications per round, "+
		"best of 15 rounds taken in turns; per second of CPU time\n", window, n)
	fmt.Printf("%-12s %14s %14s %14s %16s %18s\n", "case", "Go binding", "C ABI", "pquerna/otp",
		"binding / C", "binding / pquerna")
	for _, right := range []bool{true, false} {
		var mine, c, theirs float64
		for round := 0; round < 15; round++ {
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
	best := 0.0
	for round := 0; round < 15; round++ {
		start := C.cpu_ns()
		for i := 0; i < n; i++ {
			sink += int(C.noop(C.int32_t(i)))
		}
		best = max(best, rate(n, start))
	}
	fmt.Printf("a cgo call alone (a C function that does nothing): %.0f ns\n", 1e9/best)
}

// rate is n verifications per CPU second since start.
func rate(n int, start C.int64_t) float64 {
	return float64(n) / (float64(C.cpu_ns()-start) / 1e9)
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
