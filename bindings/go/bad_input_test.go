package mfa_test

import (
	"strings"
	"testing"
	"time"

	"libmfa/mfa"
)

// Every argument the binding or libmfa refuses is an INVALID_ARGUMENT
// *mfa.Error, and nothing happens: a NUL byte in any string (C would cut
// the string there), a length or a number out of range.
func TestBadInput(t *testing.T) {
	k := newKit(t, memoryStore(t), nil)
	good := k.user("bad-input")
	withUID := func(uid string) mfa.User { u := good; u.UID = uid; return u }
	signing := k.user("bad-input-signed")
	k.enrollTOTP(signing, "")
	k.advance(1)
	signing.AuthTime = k.time()
	resolver := k.resolver(signing)
	admin := k.c.Admin("ops")
	cases := map[string]func() error{
		"uid with a NUL": func() error { _, err := k.c.MultiFactor(withUID("a\x00b")).Session(bg); return err },
		"uid too long":   func() error { _, err := k.c.MultiFactor(withUID(strings.Repeat("u", 200))).Session(bg); return err },
		"empty uid":      func() error { _, err := k.c.MultiFactor(withUID("")).Session(bg); return err },
		"uid with a control character": func() error {
			_, err := k.c.MultiFactor(withUID("a\u202eb")).Session(bg)
			return err
		},
		"tenant with NUL": func() error { return k.c.SetConfig(bg, "t\x00", allOn) },
		"config with NUL": func() error { return k.c.SetConfig(bg, "", `{"state":"ENABLED"}`+"\x00") },
		"phone with NUL": func() error {
			s, _ := k.c.MultiFactor(k.user("bad-phone")).Session(bg)
			_, err := k.c.VerifyPhoneNumber(bg, s, "+1510555\x000101", goodToken)
			return err
		},
		"pending credential with NUL": func() error { _, err := k.c.Resolver(bg, "x\x00y", ""); return err },
		"enrollment id with NUL": func() error {
			_, err := resolver.ResolveSignIn(bg, mfa.Assertion{Kind: mfa.FactorTOTP, EnrollmentID: "e\x00", Code: "123456"})
			return err
		},
		"unknown assertion kind": func() error {
			_, err := resolver.ResolveSignIn(bg, mfa.Assertion{Kind: 99, Code: "123456"})
			return err
		},
		"token check with NUL": func() error { return k.c.CheckToken(bg, "", "u\x00", time.Now()) },
		"revoke with NUL":      func() error { return k.c.RevokeTokens(bg, "\x00", "u") },
		"list limit":           func() error { _, err := admin.ListUsers(bg, mfa.ListUsersOptions{Limit: -1}); return err },
		"import batch": func() error {
			_, err := admin.Import(bg, []byte("x"), mfa.ImportCSV, mfa.ImportOptions{BatchSize: mfa.ImportBatchMax + 1})
			return err
		},
		"import actor": func() error {
			_, err := k.c.Admin(strings.Repeat("a", mfa.ActorMaxBytes+1)).Import(bg, []byte("x"), mfa.ImportCSV,
				mfa.ImportOptions{})
			return err
		},
		"rotation batch": func() error { _, err := admin.RotateKeys(bg, -1, nil); return err },
		"seal batch":     func() error { _, err := admin.CheckSeals(bg, mfa.RotationBatchMax+1, nil); return err },
		"import secret display name": func() error {
			_, err := k.c.ImportTOTP(bg, k.user("imp"), []byte("12345678901234567890"), nil, "n\x00")
			return err
		},
		"webauthn credential with NUL": func() error {
			_, err := mfa.VerifyWebAuthnRegistration("{\x00}", "c", "example.com", "https://example.com", false)
			return err
		},
		"recovery codes display name": func() error {
			s, _ := k.c.MultiFactor(k.user("bad-rc")).Session(bg)
			_, err := k.c.GenerateRecoveryCodes(bg, s, strings.Repeat("n", 300))
			return err
		},
	}
	before := len(k.kinds())
	for name, call := range cases {
		if err := call(); err == nil || !strings.Contains(err.Error(), "INVALID_ARGUMENT") {
			t.Errorf("%s: %v", name, err)
		} else {
			wantErr(t, err, mfa.ErrInvalidArgument)
		}
	}
	if after := len(k.kinds()); after != before {
		t.Errorf("refused calls were audited: %v", k.kinds()[before:])
	}
}
