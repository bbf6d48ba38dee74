package mfa_test

// The host callbacks as Go function values: what each one's answer does,
// panics recovered (never unwinding through libmfa), calls back into libmfa
// refused, and every loop over a callback bounded. The test command runs
// this package with GODEBUG=cgocheck=2.

import (
	"bytes"
	"errors"
	"io"
	"log"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"libmfa/mfa"
)

// reader is an io.Reader whose Read does what read says, counted.
type reader struct {
	reads atomic.Int32
	read  func(p []byte) (int, error)
}

func (r *reader) Read(p []byte) (int, error) {
	r.reads.Add(1)
	return r.read(p)
}

func memoryStore(t *testing.T) string { return filepath.Join(t.TempDir(), "mfa.sqlite3") }

func TestRandomCallback(t *testing.T) {
	// Zeros: the secret is 20 zero bytes.
	zeros := &reader{read: func(p []byte) (int, error) {
		for i := range p {
			p[i] = 0
		}
		return len(p), nil
	}}
	k := newKit(t, memoryStore(t), func(o *mfa.Options) { o.Random = zeros })
	session, err := k.c.MultiFactor(k.user("zero")).Session(bg)
	if err != nil {
		t.Fatal(err)
	}
	secret, err := k.c.GenerateTOTPSecret(bg, session)
	if err != nil || secret.SharedSecretKey != strings.Repeat("A", 32) {
		t.Fatalf("secret from zeros: %v, %v", secret, err)
	}

	// One byte per read still fills a request (the loop makes progress).
	trickle := &reader{read: func(p []byte) (int, error) { p[0] = 7; return 1, nil }}
	k = newKit(t, memoryStore(t), func(o *mfa.Options) { o.Random = trickle })
	session, _ = k.c.MultiFactor(k.user("trickle")).Session(bg)
	if _, err := k.c.GenerateTOTPSecret(bg, session); err != nil {
		t.Fatalf("a one-byte reader: %v", err)
	}

	// A reader that never gives anything: the request fails after a bounded number of reads.
	stuck := &reader{read: func(p []byte) (int, error) { return 0, nil }}
	k = newKit(t, memoryStore(t), func(o *mfa.Options) { o.Random = stuck })
	start := time.Now()
	_, err = k.c.MultiFactor(k.user("stuck")).Session(bg)
	if err == nil {
		session = mfa.Session("")
		_, err = k.c.GenerateTOTPSecret(bg, session)
	}
	wantErr(t, err, mfa.ErrCrypto)
	if n := stuck.reads.Load(); n < 1 || n > 64 || time.Since(start) > 5*time.Second {
		t.Fatalf("%d reads of a stuck reader", n)
	}

	// A read error fails the operation; so does a panic (recovered, logged).
	var logged bytes.Buffer
	failing := &reader{read: func(p []byte) (int, error) { return 0, io.ErrUnexpectedEOF }}
	k = newKit(t, memoryStore(t), func(o *mfa.Options) { o.Random = failing })
	_, err = k.c.MultiFactor(k.user("failing")).Session(bg)
	wantErr(t, err, mfa.ErrCrypto)
	panicking := &reader{read: func(p []byte) (int, error) { panic("no entropy") }}
	k = newKit(t, memoryStore(t), func(o *mfa.Options) {
		o.Random = panicking
		o.ErrorLog = log.New(&logged, "", 0)
	})
	_, err = k.c.MultiFactor(k.user("panicking")).Session(bg)
	wantErr(t, err, mfa.ErrCrypto)
	if !strings.Contains(logged.String(), "random callback panicked") {
		t.Fatalf("log: %q", logged.String())
	}
}

func TestClockCallback(t *testing.T) {
	// The injected clock decides: a user who authenticated at the clock's
	// time may enroll, one an hour before may not.
	k := newKit(t, memoryStore(t), nil)
	k.now.Store(2_000_000_000)
	if _, err := k.c.MultiFactor(k.user("fresh")).Session(bg); err != nil {
		t.Fatal(err)
	}
	old := k.user("old")
	old.AuthTime = time.Unix(2_000_000_000-3600, 0)
	_, err := k.c.MultiFactor(old).Session(bg)
	wantErr(t, err, mfa.ErrRequiresRecentLogin)

	// A panicking clock falls back to the system clock, logged.
	var logged bytes.Buffer
	k = newKit(t, memoryStore(t), func(o *mfa.Options) {
		o.Clock = func() time.Time { panic("clock broke") }
		o.ErrorLog = log.New(&logged, "", 0)
	})
	now := mfa.User{UID: "now", Email: "n@example.com", EmailVerified: true, AuthTime: time.Now()}
	if _, err := k.c.MultiFactor(now).Session(bg); err != nil {
		t.Fatalf("with the system clock: %v", err)
	}
	if !strings.Contains(logged.String(), "clock callback panicked (string); the system clock is used") {
		t.Fatalf("log: %q", logged.String())
	}
}

func TestSMSAndVerifierCallbacks(t *testing.T) {
	var logged bytes.Buffer
	var mu sync.Mutex
	var actions []mfa.AppAction
	var sent []string
	panicSender := false
	k := newKit(t, memoryStore(t), func(o *mfa.Options) {
		o.SMSOutbox = ""
		o.ErrorLog = log.New(&logged, "", 0)
		o.SMSSender = func(to, text string) error {
			if panicSender {
				panic(errors.New("gateway exploded with " + text))
			}
			mu.Lock()
			sent = append(sent, text)
			mu.Unlock()
			return nil
		}
		o.AppVerifier = func(credential string, action mfa.AppAction) bool {
			mu.Lock()
			actions = append(actions, action)
			mu.Unlock()
			if credential == "panic" {
				panic("verifier broke")
			}
			return credential == goodToken
		}
	})
	user := k.user("callbacks")
	mf := k.c.MultiFactor(user)
	session, _ := mf.Session(bg)
	_, err := k.c.VerifyPhoneNumber(bg, session, "+15105550103", "panic")
	wantErr(t, err, mfa.ErrInvalidAppCredential)
	panicSender = true
	_, err = k.c.VerifyPhoneNumber(bg, session, "+15105550103", goodToken)
	wantErr(t, err, mfa.ErrSMSSendFailed)
	if strings.Contains(logged.String(), "is your verification code") || !strings.Contains(logged.String(),
		"SMS sender callback panicked (*errors.errorString)") {
		t.Fatalf("the log shows the message, or not the panic: %q", logged.String())
	}
	panicSender = false
	vid, err := k.c.VerifyPhoneNumber(bg, session, "+15105550103", goodToken)
	if err != nil {
		t.Fatal(err)
	}
	info, err := mf.Enroll(bg, mfa.PhoneAssertion(vid, sent[len(sent)-1][:6]), "")
	if err != nil {
		t.Fatal(err)
	}
	k.advance(31)
	resolver := k.resolver(user)
	if _, err := resolver.VerifyPhoneNumber(bg, info.UID, goodToken); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(actions) != 4 || actions[0] != mfa.AppActionEnrollment || actions[3] != mfa.AppActionSignIn ||
		actions[3].String() != "sign_in" {
		t.Fatalf("actions: %v", actions)
	}
}

func TestAuditPanicIsDropped(t *testing.T) {
	var logged bytes.Buffer
	k := newKit(t, memoryStore(t), func(o *mfa.Options) {
		o.Audit = func(mfa.AuditEvent) { panic("audit sink full") }
		o.ErrorLog = log.New(&logged, "", 0)
	})
	info, _ := k.enrollTOTP(k.user("audited"), "")
	if info == nil || !strings.Contains(logged.String(), "audit callback panicked") {
		t.Fatalf("log: %q", logged.String())
	}
}

// A callback that calls back into libmfa gets ErrCallbackReentry; a call
// from another goroutine while the callback runs is not refused.
func TestCallbackReentry(t *testing.T) {
	var c *mfa.Context
	var inside, closeErr, other error
	var once sync.Once
	k := newKit(t, memoryStore(t), func(o *mfa.Options) {
		o.Audit = func(e mfa.AuditEvent) {
			if e.Kind != mfa.AuditEnroll {
				return
			}
			once.Do(func() {
				_, inside = c.Config(bg, "")
				closeErr = c.Close()
				done := make(chan struct{})
				go func() {
					_, other = mfa.NewTOTP([]byte("k"), mfa.TOTPParams{})
					if other == nil {
						_, other = c.MultiFactor(mfa.User{UID: "someone"}).EnrolledFactors(bg)
					}
					close(done)
				}()
				<-done
			})
		}
	})
	c = k.c
	k.enrollTOTP(k.user("reentrant"), "")
	if !errors.Is(inside, mfa.ErrCallbackReentry) || !errors.Is(closeErr, mfa.ErrCallbackReentry) {
		t.Fatalf("from the callback: %v, %v", inside, closeErr)
	}
	if other != nil {
		t.Fatalf("another goroutine during the callback: %v", other)
	}
	if _, err := c.Config(bg, ""); err != nil {
		t.Fatalf("after the callback: %v", err)
	}
}
