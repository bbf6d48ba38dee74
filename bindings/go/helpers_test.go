package mfa_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"libmfa/mfa"
)

// t0 is the injected clocks' start: the start of a 30 s time step.
const t0 = 1_700_000_010

// masterKey is the key the tests open their contexts with.
var masterKey = []byte("0123456789abcdef0123456789abcdef")

// allOn enables every factor kind for the project; SMS requests need the
// app verifier's "good-token".
const allOn = `{"state":"ENABLED","providers":{"totp":"ENABLED","phone":"ENABLED","recovery":"ENABLED"}}`

const goodToken = "good-token"

var bg = context.Background()

// storeCase is a kind of store the engine tests run on.
type storeCase struct {
	name string
	// make returns a new, empty store location of this kind.
	make func(t *testing.T) string
}

// stores are SQLite, and PostgreSQL when MFA_TEST_POSTGRES_URL names a
// server (scripts/test.sh starts one); under CI=true PostgreSQL must be there.
func stores(t *testing.T) []storeCase {
	cases := []storeCase{{"sqlite", func(t *testing.T) string {
		return filepath.Join(t.TempDir(), "mfa.sqlite3")
	}}}
	if url := os.Getenv("MFA_TEST_POSTGRES_URL"); url != "" {
		cases = append(cases, storeCase{"postgres", func(t *testing.T) string { return pgSchema(t, url) }})
	} else if os.Getenv("CI") == "true" {
		t.Fatal("CI=true: MFA_TEST_POSTGRES_URL must name a PostgreSQL server")
	}
	return cases
}

// pgSchema creates a schema of its own on the server at url (dropped when
// the test ends) and returns the URL of a store in it.
func pgSchema(t *testing.T, url string) string {
	t.Helper()
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schema := "go_" + hex.EncodeToString(b[:])
	psql := func(sql string) error {
		out, err := exec.Command("psql", url, "-q", "-v", "ON_ERROR_STOP=1", "-c", sql).CombinedOutput()
		if err != nil {
			return errors.New(string(out))
		}
		return nil
	}
	if err := psql("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("psql: %v", err)
	}
	t.Cleanup(func() {
		if err := psql("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Logf("could not drop schema %s: %v", schema, err)
		}
	})
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return url + sep + "options=-csearch_path%3D" + schema
}

// kit is a Context on an injected clock, with its audit events and an SMS outbox.
type kit struct {
	t      *testing.T
	c      *mfa.Context
	now    atomic.Int64
	outbox string
	mu     sync.Mutex
	events []mfa.AuditEvent
}

// newKit opens a Context on store with every kind enabled; change lets a test
// adjust the options first.
func newKit(t *testing.T, store string, change func(*mfa.Options)) *kit {
	t.Helper()
	k := &kit{t: t, outbox: filepath.Join(t.TempDir(), "outbox.jsonl")}
	k.now.Store(t0)
	opts := mfa.Options{
		Store:       store,
		MasterKey:   masterKey,
		Clock:       func() time.Time { return time.Unix(k.now.Load(), 0) },
		Audit:       func(e mfa.AuditEvent) { k.mu.Lock(); k.events = append(k.events, e); k.mu.Unlock() },
		SMSOutbox:   k.outbox,
		AppVerifier: func(credential string, _ mfa.AppAction) bool { return credential == goodToken },
	}
	if change != nil {
		change(&opts)
	}
	c, err := mfa.Open(bg, opts)
	if err != nil {
		t.Fatalf("open %s: %v", store, err)
	}
	t.Cleanup(func() { c.Close() })
	k.c = c
	if err := c.SetConfig(bg, "", allOn); err != nil {
		t.Fatal(err)
	}
	return k
}

func (k *kit) time() time.Time { return time.Unix(k.now.Load(), 0) }

func (k *kit) advance(seconds int64) { k.now.Add(seconds) }

// user is a user who passed a password first factor just now, email verified.
func (k *kit) user(uid string) mfa.User {
	return mfa.User{UID: uid, Email: uid + "@example.com", EmailVerified: true, AuthTime: k.time()}
}

// kinds are the kind names of the audit events so far.
func (k *kit) kinds() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for _, e := range k.events {
		out = append(out, e.KindName)
	}
	return out
}

func (k *kit) lastEvent() mfa.AuditEvent {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.events) == 0 {
		k.t.Fatal("no audit event")
	}
	return k.events[len(k.events)-1]
}

// enrollTOTP enrolls an authenticator app for user; the factor and the app's TOTP.
func (k *kit) enrollTOTP(user mfa.User, name string) (*mfa.FactorInfo, *mfa.TOTP) {
	k.t.Helper()
	mf := k.c.MultiFactor(user)
	session, err := mf.Session(bg)
	if err != nil {
		k.t.Fatalf("session: %v", err)
	}
	secret, err := k.c.GenerateTOTPSecret(bg, session)
	if err != nil {
		k.t.Fatalf("secret: %v", err)
	}
	app := k.app(secret)
	info, err := mf.Enroll(bg, mfa.TOTPEnrollmentAssertion(secret, k.code(app, 0)), name)
	if err != nil {
		k.t.Fatalf("enroll: %v", err)
	}
	return info, app
}

// app is the authenticator app's view of a secret.
func (k *kit) app(secret *mfa.TOTPSecret) *mfa.TOTP {
	k.t.Helper()
	key, err := mfa.Base32Decode(secret.SharedSecretKey)
	if err != nil {
		k.t.Fatal(err)
	}
	app, err := mfa.NewTOTP(key, mfa.TOTPParams{})
	if err != nil {
		k.t.Fatal(err)
	}
	return app
}

// code is what app shows at the clock's time + offset seconds.
func (k *kit) code(app *mfa.TOTP, offset int64) string {
	k.t.Helper()
	code, err := app.At(time.Unix(k.now.Load()+offset, 0))
	if err != nil {
		k.t.Fatal(err)
	}
	return code
}

// resolver signs user in with the first factor and returns the resolver of
// the SecondFactorRequired error.
func (k *kit) resolver(user mfa.User) *mfa.Resolver {
	k.t.Helper()
	result, err := k.c.SignIn(bg, user)
	var required *mfa.SecondFactorRequired
	if !errors.As(err, &required) {
		k.t.Fatalf("sign-in: want SecondFactorRequired, got %v, %v", result, err)
	}
	if !errors.Is(err, mfa.ErrSecondFactorRequired) {
		k.t.Fatalf("SecondFactorRequired is not ErrSecondFactorRequired: %v", err)
	}
	return required.Resolver
}

// smsCode is the code of the newest SMS to number in the outbox.
func (k *kit) smsCode(number string) string {
	k.t.Helper()
	code, err := mfa.OutboxCode(k.outbox, number)
	if err != nil || code == "" {
		k.t.Fatalf("no SMS code for %s in the outbox: %v", number, err)
	}
	return code
}

// wantErr fails unless err is the sentinel want.
func wantErr(t *testing.T, err error, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("want %v, got %v", want, err)
	}
	var e *mfa.Error
	if want != mfa.ErrCallbackReentry && !errors.As(err, &e) {
		t.Fatalf("%v is not an *mfa.Error", err)
	}
}

// wrong is a six-digit code app does not show at any step within 10 of now.
func (k *kit) wrong(app *mfa.TOTP) string {
	k.t.Helper()
	for n := 0; n < 1000; n++ {
		code := fmt.Sprintf("%06d", (n*7919+13)%1000000)
		if ok, err := app.Verify(code, k.time(), mfa.WindowMax); err == nil && !ok {
			return code
		}
	}
	k.t.Fatal("no wrong code found")
	return ""
}
