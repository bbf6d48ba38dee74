package mfa_test

// A mixed load from 8 goroutines on one Context: sign-ins (TOTP, recovery
// codes), wrong codes, enrollments and unenrollments, token checks, lists,
// configuration reads, admin pages, purges, and the stateless calls. It must
// not crash, and the memory the process holds must stay flat after a
// warm-up. Every second, after a garbage collection, the test samples the
// resident set (RSS), the resident set after malloc_trim (glibc keeps the
// freed memory of its per-thread arenas, and gives it back only then), the
// C heap in use and the Go heap; it prints them, and fails if one grew
// after the warm-up.
//
// MFA_GO_LOAD_SECONDS sets the duration (10 s by default;
// bench/go_load.sh runs 60 s), MFA_GO_LOAD_STORE "postgres" puts the store
// on MFA_TEST_POSTGRES_URL's server instead of an SQLite file.

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"libmfa/mfa"
	"libmfa/mfa/internal/memstat"
)

// loadUser is one user of a worker, with the last time step it signed in at.
type loadUser struct {
	user mfa.User
	info *mfa.FactorInfo
	app  *mfa.TOTP
	last int64
}

func TestMixedLoad(t *testing.T) {
	seconds := 10
	if v := os.Getenv("MFA_GO_LOAD_SECONDS"); v != "" {
		seconds, _ = strconv.Atoi(v)
	}
	store := memoryStore(t)
	if os.Getenv("MFA_GO_LOAD_STORE") == "postgres" {
		url := os.Getenv("MFA_TEST_POSTGRES_URL")
		if url == "" {
			t.Fatal("MFA_GO_LOAD_STORE=postgres needs MFA_TEST_POSTGRES_URL")
		}
		store = pgSchema(t, url)
	}
	k := newKit(t, store, func(o *mfa.Options) { o.Audit = func(mfa.AuditEvent) {} })
	// Every sign-in is finished (a wrong code is followed by the right one),
	// so that what libmfa keeps between a sign-in and its resolve is used
	// up; wrong codes do not put users into backoff.
	if err := k.c.UpdateConfig(bg, "", `{"limits":{"freeAttempts":100}}`); err != nil {
		t.Fatal(err)
	}
	// Virtual time: 30 s (one step) every 500 ms, so that sign-ins never run
	// out of fresh steps; codes are computed just before they are used. A
	// code that the clock left behind while its goroutine waited for a core
	// (more than 5 steps, 2.5 s) is late, not wrong: counted apart.
	stopClock := make(chan struct{})
	go func() {
		for {
			select {
			case <-stopClock:
				return
			case <-time.After(500 * time.Millisecond):
				k.advance(30)
			}
		}
	}()
	defer close(stopClock)
	// The host's housekeeping: expired tokens and secrets purged every second.
	go func() {
		for {
			select {
			case <-stopClock:
				return
			case <-time.After(time.Second):
				if err := k.c.PurgeExpired(bg); err != nil && !errors.Is(err, mfa.ErrClosed) {
					t.Errorf("purge: %v", err)
				}
			}
		}
	}()

	const workers = 8
	var ops, failures, late, collided atomic.Int64
	var firstFailure atomic.Value
	// resolved checks a TOTP resolve of app's code of step: an error is a
	// failure unless the clock has left the step out of the window, or
	// another step of the window has the same six digits (one in about
	// 100,000 codes: libmfa takes the first step that matches, nearest to
	// now first, and refuses it if it was used).
	resolved := func(what string, app *mfa.TOTP, step int64, err error) {
		if err == nil {
			return
		}
		if errors.Is(err, mfa.ErrInvalidVerificationCode) {
			if k.now.Load()/30 > step+5 {
				late.Add(1)
				return
			}
			code, _ := app.At(time.Unix(step*30, 0))
			for other := k.now.Load()/30 - 5; other <= k.now.Load()/30+5; other++ {
				if same, _ := app.At(time.Unix(other*30, 0)); other != step && same == code {
					collided.Add(1)
					return
				}
			}
		}
		failures.Add(1)
		firstFailure.CompareAndSwap(nil, fmt.Sprintf("%s: %v", what, err))
	}
	fail := func(what string, err error) {
		failures.Add(1)
		firstFailure.CompareAndSwap(nil, fmt.Sprintf("%s: %v", what, err))
	}
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		w := w
		wg.Add(1)
		go func() {
			defer wg.Done()
			users := make([]*loadUser, 4)
			for i := range users {
				u := k.user(fmt.Sprintf("load-%d-%d", w, i))
				info, app := k.enrollTOTP(u, "")
				// The enrollment's code used its step.
				users[i] = &loadUser{user: u, info: info, app: app, last: k.now.Load() / 30}
			}
			recovery := &loadUser{user: k.user(fmt.Sprintf("load-%d-r", w))}
			stateless, _ := mfa.NewTOTP([]byte("12345678901234567890"), mfa.TOTPParams{})
			admin := k.c.Admin(fmt.Sprintf("load-%d", w))
			for n := 0; time.Now().Before(deadline); n++ {
				lu := users[n%len(users)]
				now := k.now.Load()
				lu.user.AuthTime = time.Unix(now, 0)
				switch n % 8 {
				case 0, 1, 2: // a TOTP sign-in at a step not used yet
					if lu.last >= now/30+4 {
						time.Sleep(50 * time.Microsecond) // every fresh step is used: wait for the clock
						continue
					}
					_, err := k.c.SignIn(bg, lu.user)
					var required *mfa.SecondFactorRequired
					if !errors.As(err, &required) {
						fail("sign-in", err)
						continue
					}
					step := k.now.Load() / 30
					if step <= lu.last {
						step = lu.last + 1
					}
					code, _ := lu.app.At(time.Unix(step*30, 0))
					_, err = required.Resolver.ResolveSignIn(bg, mfa.TOTPSignInAssertion(lu.info.UID, code))
					resolved("resolve", lu.app, step, err)
					lu.last = step
				case 3: // a wrong code, then the right one on the same pending credential
					if lu.last >= now/30+4 {
						time.Sleep(50 * time.Microsecond) // every fresh step is used: wait for the clock
						continue
					}
					_, err := k.c.SignIn(bg, lu.user)
					var required *mfa.SecondFactorRequired
					if !errors.As(err, &required) {
						fail("sign-in", err)
						continue
					}
					step := k.now.Load() / 30
					if step <= lu.last {
						step = lu.last + 1
					}
					code, _ := lu.app.At(time.Unix(step*30, 0))
					wrong := "000000"
					if code == wrong {
						wrong = "111111"
					}
					_, err = required.Resolver.ResolveSignIn(bg, mfa.TOTPSignInAssertion(lu.info.UID, wrong))
					if !errors.Is(err, mfa.ErrInvalidVerificationCode) {
						fail("wrong code", err)
					}
					_, err = required.Resolver.ResolveSignIn(bg, mfa.TOTPSignInAssertion(lu.info.UID, code))
					resolved("right code after a wrong one", lu.app, step, err)
					lu.last = step
				case 4: // checks and lists
					if err := k.c.CheckToken(bg, "", lu.user.UID, time.Unix(now, 0)); err != nil &&
						!errors.Is(err, mfa.ErrUserTokenExpired) {
						fail("token", err)
					}
					if _, err := k.c.MultiFactor(lu.user).EnrolledFactors(bg); err != nil {
						fail("list", err)
					}
					if _, err := k.c.Config(bg, ""); err != nil {
						fail("config", err)
					}
				case 5: // re-enroll: unenroll the first user's factor and enroll a new one
					if n%32 != 5 {
						if _, err := admin.ListUsers(bg, mfa.ListUsersOptions{Limit: 10}); err != nil {
							fail("admin", err)
						}
						continue
					}
					first := users[0]
					if err := k.c.MultiFactor(first.user).Unenroll(bg, first.info.UID); err != nil {
						fail("unenroll", err)
						continue
					}
					first.user.AuthTime = k.time()
					session, err := k.c.MultiFactor(first.user).Session(bg)
					if err != nil {
						fail("session", err)
						continue
					}
					secret, err := k.c.GenerateTOTPSecret(bg, session)
					if err != nil {
						fail("secret", err)
						continue
					}
					key, _ := mfa.Base32Decode(secret.SharedSecretKey)
					app, _ := mfa.NewTOTP(key, mfa.TOTPParams{})
					code, _ := app.At(k.time())
					info, err := k.c.MultiFactor(first.user).Enroll(bg, mfa.TOTPEnrollmentAssertion(secret, code), "")
					if err != nil {
						fail("enroll", err)
						continue
					}
					first.info, first.app, first.last = info, app, k.now.Load()/30+1
				case 6: // recovery codes: a new set, and a sign-in with one of them, for a
					// user who has no TOTP factor. (What a sign-in read of the user's TOTP
					// factors, libmfa keeps for the TOTP resolve that follows, in a cache
					// of up to 4096 sign-ins, about 10 MiB; a sign-in finished with
					// another kind leaves its entry there until the cache is full. Bounded,
					// but it would fill and empty again many times in this test.)
					recovery.user.AuthTime = k.time()
					session, err := k.c.MultiFactor(recovery.user).Session(bg)
					if err != nil {
						fail("session", err)
						continue
					}
					codes, err := k.c.GenerateRecoveryCodes(bg, session, "")
					if err != nil {
						fail("recovery codes", err)
						continue
					}
					_, err = k.c.SignIn(bg, recovery.user)
					var required *mfa.SecondFactorRequired
					if errors.As(err, &required) {
						if _, err := required.Resolver.ResolveSignIn(bg, mfa.RecoveryCodeAssertion(codes.Codes[3], "")); err != nil {
							fail("recovery sign-in", err)
						}
					} else {
						fail("sign-in", err)
					}
				case 7: // stateless calls
					at := time.Unix(now, 0)
					code, _ := stateless.At(at)
					if ok, err := stateless.Verify(code, at, 1); !ok || err != nil {
						fail("verify", err)
					}
					text, _ := mfa.Base32Encode([]byte("12345678901234567890"), false)
					uri, err := mfa.KeyURI{Issuer: "Load", Account: lu.user.UID, Secret: []byte(text)}.Build()
					if err == nil {
						_, err = mfa.ParseURI(uri)
					}
					if err == nil {
						_, err = mfa.QRCode(uri, mfa.QRSVG)
					}
					if err != nil {
						fail("codecs", err)
					}
				}
				ops.Add(1)
			}
		}()
	}

	// Samples: one a second; the warm-up is the first third (at least 2 s).
	warmup := seconds / 3
	if warmup < 2 {
		warmup = 2
	}
	var samples []memstat.Sample
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-ticker.C:
			sample, err := memstat.Take()
			if err != nil {
				t.Fatal(err)
			}
			samples = append(samples, sample)
		}
	}
	if v := firstFailure.Load(); v != nil {
		t.Fatalf("%d failures of %d operations; the first: %s", failures.Load(), ops.Load(), v)
	}
	if len(samples) < warmup+3 {
		t.Fatalf("only %d samples", len(samples))
	}
	mib := func(b int64) string { return fmt.Sprintf("%.1f", float64(b)/(1<<20)) }
	series := func(of func(memstat.Sample) int64) string {
		var b strings.Builder
		for i, s := range samples {
			if i == warmup {
				b.WriteString("| ")
			}
			b.WriteString(mib(of(s)) + " ")
		}
		return b.String()
	}
	perSecond := float64(ops.Load()) / float64(seconds)
	t.Logf("mixed load: %d goroutines, %d s, %d operations (%.0f/s; codes late %d, colliding %d); "+
		"MiB each second, | = end of warm-up:", workers, seconds, ops.Load(), perSecond, late.Load(), collided.Load())
	t.Logf("  RSS          %s", series(func(s memstat.Sample) int64 { return s.RSS }))
	t.Logf("  RSS trimmed  %s", series(func(s memstat.Sample) int64 { return s.Trimmed }))
	t.Logf("  C heap       %s", series(func(s memstat.Sample) int64 { return s.CHeap }))
	t.Logf("  Go heap      %s", series(func(s memstat.Sample) int64 { return s.GoHeap }))
	// After the warm-up, the peak of the last third against the peak of the
	// first third: a leak raises it steadily, a cache or an allocator arena
	// filling up does not.
	after := samples[warmup:]
	third := len(after) / 3
	peak := func(part []memstat.Sample, of func(memstat.Sample) int64) int64 {
		max := int64(0)
		for _, s := range part {
			if v := of(s); v > max {
				max = v
			}
		}
		return max
	}
	type measure struct {
		name string
		of   func(memstat.Sample) int64
	}
	var report []string
	var grew []string
	for _, m := range []measure{{"RSS", func(s memstat.Sample) int64 { return s.RSS }},
		{"RSS trimmed", func(s memstat.Sample) int64 { return s.Trimmed }},
		{"C heap in use", func(s memstat.Sample) int64 { return s.CHeap }},
		{"Go heap", func(s memstat.Sample) int64 { return s.GoHeap }}} {
		first, last := peak(after[:third], m.of), peak(after[len(after)-third:], m.of)
		growth := last - first
		report = append(report, fmt.Sprintf("%s %s -> %s MiB (%+.2f)", m.name, mib(first), mib(last),
			float64(growth)/(1<<20)))
		// Flat: the heaps grew by less than 2 MiB, the resident set by less
		// than 4 MiB (a leak of 100 bytes per operation grows by 2 MiB in
		// 10 s of this load).
		limit := int64(2 << 20)
		if strings.HasPrefix(m.name, "RSS") {
			limit = 4 << 20
		}
		if growth > limit {
			grew = append(grew, fmt.Sprintf("%s by %.1f MiB", m.name, float64(growth)/(1<<20)))
		}
	}
	fmt.Printf("mixed load: %d goroutines, %d s (warm-up %d s), %.0f operations/s; peaks after the warm-up, "+
		"first third -> last third: %s\n", workers, seconds, warmup, perSecond, strings.Join(report, ", "))
	if len(grew) > 0 {
		t.Fatalf("memory grew after the warm-up: %s", strings.Join(grew, ", "))
	}
}
