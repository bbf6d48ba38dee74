package mfa_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"libmfa/mfa"
)

func TestOpenBadInput(t *testing.T) {
	cases := []mfa.Options{
		{MasterKey: masterKey},
		{Store: ":memory:"},
		{Store: ":memory:", MasterKey: masterKey[:31]},
		{Store: ":memory:", MasterKey: masterKey, KeyID: "bad id\n"},
		{Store: ":memory:", MasterKey: masterKey, SMSOutbox: "x", SMSSender: func(string, string) error { return nil }},
		{Store: ":memory:", MasterKey: masterKey, PreviousKeys: []mfa.MasterKey{{ID: "k1", Key: masterKey}}},
		{Store: ":memory:", MasterKey: masterKey, PreviousKeys: []mfa.MasterKey{{ID: "k0", Key: masterKey[:5]}}},
		{Store: "mysql://db/mfa", MasterKey: masterKey},
		{Store: "mem\x00ory", MasterKey: masterKey},
	}
	for i, opts := range cases {
		c, err := mfa.Open(bg, opts)
		if c != nil {
			c.Close()
		}
		if !errors.Is(err, mfa.ErrInvalidArgument) {
			t.Errorf("case %d: %v", i, err)
		}
	}
	_, err := mfa.Open(bg, mfa.Options{Store: t.TempDir() + "/no/such/dir/mfa.sqlite3", MasterKey: masterKey})
	wantErr(t, err, mfa.ErrStorageError)
}

// A done context.Context stops a call before it starts: nothing happens.
func TestContextCancelledBeforeTheCall(t *testing.T) {
	k := newKit(t, memoryStore(t), nil)
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, err := mfa.Open(ctx, mfa.Options{Store: ":memory:", MasterKey: masterKey}); !errors.Is(err, context.Canceled) {
		t.Fatalf("open: %v", err)
	}
	before := len(k.kinds())
	if err := k.c.SetConfig(ctx, "", `{"state":"DISABLED"}`); !errors.Is(err, context.Canceled) {
		t.Fatalf("set config: %v", err)
	}
	past, stop := context.WithDeadline(bg, time.Now().Add(-time.Second))
	defer stop()
	_, err := k.c.MultiFactor(k.user("late")).Session(past)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("session: %v", err)
	}
	if len(k.kinds()) != before {
		t.Fatal("a cancelled call changed something")
	}
	config, err := k.c.Config(bg, "")
	if err != nil || !strings.Contains(string(config), `"state":"ENABLED"`) {
		t.Fatalf("the configuration changed: %s %v", config, err)
	}
}

// Close waits for the calls in progress, and later calls fail with ErrClosed.
func TestCloseWaitsForCalls(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	k := newKit(t, memoryStore(t), func(o *mfa.Options) {
		o.SMSOutbox = ""
		o.SMSSender = func(string, string) error {
			close(entered)
			<-release
			return nil
		}
	})
	session, _ := k.c.MultiFactor(k.user("slow")).Session(bg)
	var callErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, callErr = k.c.VerifyPhoneNumber(bg, session, "+15105550104", goodToken)
	}()
	<-entered
	closed := make(chan error)
	go func() { closed <- k.c.Close() }()
	select {
	case <-closed:
		t.Fatal("Close returned while a call was in progress")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if callErr != nil {
		t.Fatalf("the call in progress: %v", callErr)
	}
	_, err := k.c.Config(bg, "")
	if !errors.Is(err, mfa.ErrClosed) || !errors.Is(err, mfa.ErrInvalidArgument) {
		t.Fatalf("after Close: %v", err)
	}
	if err := k.c.Close(); err != nil {
		t.Fatalf("Close again: %v", err)
	}
}

// Many goroutines share one Context.
func TestConcurrentSignIns(t *testing.T) {
	for _, store := range stores(t) {
		store := store
		t.Run(store.name, func(t *testing.T) {
			k := newKit(t, store.make(t), nil)
			const workers = 8
			type enrolled struct {
				user mfa.User
				info *mfa.FactorInfo
				app  *mfa.TOTP
			}
			users := make([]enrolled, workers)
			for i := range users {
				u := k.user(fmt.Sprintf("worker-%d", i))
				info, app := k.enrollTOTP(u, "")
				users[i] = enrolled{u, info, app}
			}
			k.advance(30)
			errs := make(chan error, workers*4)
			var wg sync.WaitGroup
			for _, e := range users {
				e := e
				wg.Add(1)
				go func() {
					defer wg.Done()
					for round := int64(0); round < 4; round++ {
						_, err := k.c.SignIn(bg, e.user)
						var required *mfa.SecondFactorRequired
						if !errors.As(err, &required) {
							errs <- err
							return
						}
						code, _ := e.app.At(time.Unix(k.now.Load()+30*round, 0))
						if _, err := required.Resolver.ResolveSignIn(bg, mfa.TOTPSignInAssertion(e.info.UID, code)); err != nil {
							errs <- err
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

func TestConfigShapes(t *testing.T) {
	k := newKit(t, memoryStore(t), nil)
	if err := k.c.SetConfig(bg, "tenant-a", map[string]any{"multiFactorConfig": map[string]any{
		"state": "ENABLED", "factorIds": []string{"phone"}}}); err != nil {
		t.Fatal(err)
	}
	text, err := k.c.Config(bg, "tenant-a")
	if err != nil || !strings.Contains(string(text), `"phone":"ENABLED"`) {
		t.Fatalf("tenant config: %s %v", text, err)
	}
	err = k.c.SetConfig(bg, "", `{"totp":{"adjacentIntervals":11}}`)
	var e *mfa.Error
	if !errors.As(err, &e) || !errors.Is(err, mfa.ErrInvalidArgument) || !strings.Contains(e.Message, "adjacentIntervals") {
		t.Fatalf("out of range: %v", err)
	}
	wantErr(t, k.c.SetConfig(bg, "", `{"state":`), mfa.ErrInvalidArgument)
	wantErr(t, k.c.SetConfig(bg, "", map[string]any{"bad": func() {}}), mfa.ErrInvalidArgument)
	wantErr(t, k.c.UpdateConfig(bg, "", `{"nope":1}`), mfa.ErrInvalidArgument)
	_, err = k.c.PassedSecondFactor(bg, "", "u", -time.Second)
	wantErr(t, err, mfa.ErrInvalidArgument)
	if passed, err := k.c.PassedSecondFactor(bg, "", "nobody", time.Hour); passed || err != nil {
		t.Fatalf("step-up of a stranger: %v %v", passed, err)
	}
	if err := k.c.PurgeExpired(bg); err != nil {
		t.Fatal(err)
	}
}

func TestContextString(t *testing.T) {
	k := newKit(t, memoryStore(t), nil)
	if !strings.HasPrefix(k.c.String(), "mfa.Context(") {
		t.Fatal(k.c.String())
	}
	if url := os.Getenv("MFA_TEST_POSTGRES_URL"); url != "" {
		secret := strings.Replace(url, "postgres@", "postgres:hunter2@", 1)
		pg, err := mfa.Open(bg, mfa.Options{Store: secret, MasterKey: masterKey})
		if err != nil {
			t.Fatal(err)
		}
		defer pg.Close()
		if strings.Contains(pg.String(), "hunter2") {
			t.Fatalf("the password shows: %s", pg)
		}
	}
}

// MetricsText is the context's metrics in Prometheus' text format: a wrong
// code and a sign-in, counted by kind and outcome.
func TestMetricsText(t *testing.T) {
	k := newKit(t, memoryStore(t), nil)
	user := k.user("dora")
	info, app := k.enrollTOTP(user, "App")
	k.advance(30)
	resolver := k.resolver(user)
	_, err := resolver.ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, k.wrong(app)))
	wantErr(t, err, mfa.ErrInvalidVerificationCode)
	if _, err := resolver.ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, k.code(app, 0))); err != nil {
		t.Fatal(err)
	}
	text, err := k.c.MetricsText(bg)
	if err != nil || !strings.HasPrefix(text, "# HELP libmfa_") {
		t.Fatalf("metrics: %v %.80q", err, text)
	}
	for _, line := range []string{
		"\n# TYPE libmfa_sign_ins_total counter\n",
		"\nlibmfa_sign_ins_total{kind=\"totp\",outcome=\"success\"} 1\n",
		"\nlibmfa_sign_ins_total{kind=\"totp\",outcome=\"wrong_code\"} 1\n",
		"\nlibmfa_sign_in_duration_seconds_count{kind=\"totp\"} 2\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("%q not in the metrics", line)
		}
	}
	if strings.Contains(text, "dora") {
		t.Error("a uid in the metrics")
	}
}
