package mfa_test

// The flow contract of the Python and C suites, through the Go binding, on
// SQLite and on PostgreSQL: prerequisites, TOTP enrollment and resolver
// sign-in, replay refused, wrong code, SMS through the outbox (and through a
// Go sender), recovery codes, revocation, admin reset.

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"libmfa/mfa"
)

func TestFlowContract(t *testing.T) {
	for _, store := range stores(t) {
		store := store
		t.Run(store.name, func(t *testing.T) {
			k := newKit(t, store.make(t), nil)
			t.Run("prerequisites", func(t *testing.T) { contractPrerequisites(t, k) })
			t.Run("totp", func(t *testing.T) { contractTOTP(t, k) })
			t.Run("replay", func(t *testing.T) { contractReplay(t, k) })
			t.Run("wrong code", func(t *testing.T) { contractWrongCode(t, k) })
			t.Run("sms outbox", func(t *testing.T) { contractSMSOutbox(t, k) })
			t.Run("recovery codes", func(t *testing.T) { contractRecoveryCodes(t, k) })
			t.Run("revocation", func(t *testing.T) { contractRevocation(t, k) })
			t.Run("admin reset", func(t *testing.T) { contractAdminReset(t, k) })
			t.Run("sms sender", func(t *testing.T) { contractSMSSender(t, store.make(t)) })
		})
	}
}

func contractPrerequisites(t *testing.T, k *kit) {
	unverified := k.user("pre-unverified")
	unverified.EmailVerified = false
	_, err := k.c.MultiFactor(unverified).Session(bg)
	wantErr(t, err, mfa.ErrUnverifiedEmail)

	for _, provider := range []string{"phone", "anonymous", "custom", "gc.apple.com", "PHONE"} {
		u := k.user("pre-provider")
		u.Provider = provider
		_, err := k.c.MultiFactor(u).Session(bg)
		wantErr(t, err, mfa.ErrUnsupportedFirstFactor)
	}

	stale := k.user("pre-stale")
	stale.AuthTime = k.time().Add(-time.Hour)
	_, err = k.c.MultiFactor(stale).Session(bg)
	wantErr(t, err, mfa.ErrRequiresRecentLogin)

	// At most 5 factors (recovery codes aside): the sixth session is refused.
	limit := k.user("pre-limit")
	for i := 0; i < 5; i++ {
		k.enrollTOTP(limit, fmt.Sprintf("app %d", i))
		k.advance(30)
		limit.AuthTime = k.time()
	}
	if err := k.c.UpdateConfig(bg, "", `{"providers":{"recovery":"DISABLED"}}`); err != nil {
		t.Fatal(err)
	}
	_, err = k.c.MultiFactor(limit).Session(bg)
	wantErr(t, err, mfa.ErrSecondFactorLimitExceeded)

	if err := k.c.SetConfig(bg, "", map[string]any{"state": "DISABLED"}); err != nil {
		t.Fatal(err)
	}
	_, err = k.c.MultiFactor(k.user("pre-off")).Session(bg)
	wantErr(t, err, mfa.ErrOperationNotAllowed)
	if err := k.c.SetConfig(bg, "", allOn); err != nil {
		t.Fatal(err)
	}

	// A user without factors signs in with the first factor alone; in
	// MANDATORY state, the user must enroll.
	result, err := k.c.SignIn(bg, k.user("pre-none"))
	if err != nil || result.FactorID != "" || len(result.Claims) != 0 || result.UID != "pre-none" {
		t.Fatalf("sign-in without factors: %+v, %v", result, err)
	}
	if err := k.c.UpdateConfig(bg, "", `{"state":"MANDATORY"}`); err != nil {
		t.Fatal(err)
	}
	_, err = k.c.SignIn(bg, k.user("pre-none"))
	wantErr(t, err, mfa.ErrEnrollmentRequired)
	if err := k.c.SetConfig(bg, "", allOn); err != nil {
		t.Fatal(err)
	}
}

func contractTOTP(t *testing.T, k *kit) {
	user := k.user("totp-user")
	info, app := k.enrollTOTP(user, "Work phone")
	if info.FactorID != mfa.TOTPFactorID || info.Kind != mfa.FactorTOTP || info.DisplayName != "Work phone" ||
		len(info.UID) != 28 || info.Hint == "" || info.RemainingCodes != -1 || !info.EnrollmentTime.Equal(k.time()) {
		t.Fatalf("enrolled factor: %+v", info)
	}
	if e := k.lastEvent(); e.Kind != mfa.AuditEnroll || e.UID != "totp-user" || e.EnrollmentID != info.UID {
		t.Fatalf("enroll audit event: %+v", e)
	}
	listed, err := k.c.MultiFactor(user).EnrolledFactors(bg)
	if err != nil || len(listed) != 1 || listed[0] != *info {
		t.Fatalf("listed: %+v, %v", listed, err)
	}

	k.advance(30)
	resolver := k.resolver(user)
	if resolver.UID != "totp-user" || len(resolver.Hints) != 1 || resolver.Hints[0].UID != info.UID ||
		resolver.Session == "" {
		t.Fatalf("resolver: %v %+v", resolver, resolver.Hints)
	}
	if strings.Contains(resolver.String(), resolver.Session) {
		t.Fatal("the resolver's String shows its pending credential")
	}
	result, err := resolver.ResolveSignIn(bg, mfa.TOTPSignInAssertion(resolver.Hints[0].UID, k.code(app, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if result.UID != "totp-user" || result.FactorID != "totp" || result.EnrollmentID != info.UID ||
		result.Kind != mfa.FactorTOTP || !result.Time.Equal(k.time()) ||
		result.Claims["sign_in_second_factor"] != "totp" || result.Claims["second_factor_identifier"] != info.UID {
		t.Fatalf("result: %+v", result)
	}
	if e := k.lastEvent(); e.Kind != mfa.AuditSignInSuccess || e.Detail != "OK" {
		t.Fatalf("sign-in audit event: %+v", e)
	}
	passed, err := k.c.PassedSecondFactor(bg, "", "totp-user", time.Minute)
	if err != nil || !passed {
		t.Fatalf("step-up: %v, %v", passed, err)
	}

	// The pending credential comes back from a client: the rebuilt resolver works the same.
	k.advance(30)
	again, err := k.c.Resolver(bg, k.resolver(user).Session, "")
	if err != nil || again.UID != "totp-user" || len(again.Hints) != 1 {
		t.Fatalf("rebuilt resolver: %v, %v", again, err)
	}
	if _, err := again.ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, k.code(app, 0))); err != nil {
		t.Fatal(err)
	}
	_, err = k.c.Resolver(bg, "not-a-pending-credential", "")
	wantErr(t, err, mfa.ErrInvalidSession)

	// Unenroll: the factor goes, and the user signs in with the first factor alone.
	user.AuthTime = k.time()
	if err := k.c.MultiFactor(user).Unenroll(bg, info.UID); err != nil {
		t.Fatal(err)
	}
	err = k.c.MultiFactor(user).Unenroll(bg, info.UID)
	wantErr(t, err, mfa.ErrMFAEnrollmentNotFound)
	k.advance(1)
	if result, err := k.c.SignIn(bg, user); err != nil || result.FactorID != "" {
		t.Fatalf("sign-in after unenroll: %+v, %v", result, err)
	}
}

func contractReplay(t *testing.T, k *kit) {
	user := k.user("replay-user")
	info, app := k.enrollTOTP(user, "")
	k.advance(30)
	code := k.code(app, 0)
	first := k.resolver(user)
	if _, err := first.ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, code)); err != nil {
		t.Fatal(err)
	}
	// The same code with a new pending credential: its time step is used.
	second := k.resolver(user)
	_, err := second.ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, code))
	wantErr(t, err, mfa.ErrInvalidVerificationCode)
	// An earlier step's code within the window is refused too.
	_, err = second.ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, k.code(app, -30)))
	wantErr(t, err, mfa.ErrInvalidVerificationCode)
	// The used pending credential is refused, with the next step's code.
	_, err = first.ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, k.code(app, 30)))
	wantErr(t, err, mfa.ErrInvalidSession)
	_, err = k.c.Resolver(bg, first.Session, "")
	wantErr(t, err, mfa.ErrInvalidSession)
	// A later step works once.
	if _, err := second.ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, k.code(app, 30))); err != nil {
		t.Fatal(err)
	}
}

func contractWrongCode(t *testing.T, k *kit) {
	user := k.user("wrong-user")
	info, app := k.enrollTOTP(user, "")
	k.advance(30)
	resolver := k.resolver(user)
	var e *mfa.Error
	_, err := resolver.ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, k.wrong(app)))
	if !errors.As(err, &e) || e.Status != mfa.ErrInvalidVerificationCode.Status ||
		e.Name != "INVALID_VERIFICATION_CODE" || e.Message == "" ||
		!strings.HasPrefix(err.Error(), "libmfa: INVALID_VERIFICATION_CODE: ") {
		t.Fatalf("wrong code: %#v", err)
	}
	if ev := k.lastEvent(); ev.Kind != mfa.AuditSignInFailure || ev.Detail != "INVALID_VERIFICATION_CODE" {
		t.Fatalf("failure audit event: %+v", ev)
	}
	for _, bad := range []string{"", "12345", "abcdef", "1234567890"} {
		_, err := resolver.ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, bad))
		if err == nil {
			t.Fatalf("code %q accepted", bad)
		}
	}
	_, err = resolver.ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, "12\x003456"))
	wantErr(t, err, mfa.ErrInvalidArgument)
	// The pending credential still works with the right code.
	if _, err := resolver.ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, k.code(app, 0))); err != nil {
		t.Fatalf("right code after wrong ones: %v", err)
	}
	// An enrollment's wrong code can be retried.
	mf := k.c.MultiFactor(k.user("wrong-enroll"))
	session, err := mf.Session(bg)
	if err != nil {
		t.Fatal(err)
	}
	secret, err := k.c.GenerateTOTPSecret(bg, session)
	if err != nil {
		t.Fatal(err)
	}
	enrolling := k.app(secret)
	_, err = mf.Enroll(bg, mfa.TOTPEnrollmentAssertion(secret, k.wrong(enrolling)), "")
	wantErr(t, err, mfa.ErrInvalidVerificationCode)
	if _, err := mf.Enroll(bg, mfa.TOTPEnrollmentAssertion(secret, k.code(enrolling, 0)), ""); err != nil {
		t.Fatal(err)
	}
}

func contractSMSOutbox(t *testing.T, k *kit) {
	user := k.user("sms-user")
	mf := k.c.MultiFactor(user)
	session, err := mf.Session(bg)
	if err != nil {
		t.Fatal(err)
	}
	const number = "+15105550101"
	_, err = k.c.VerifyPhoneNumber(bg, session, "+1 510 555 0101", goodToken)
	wantErr(t, err, mfa.ErrInvalidPhoneNumber)
	_, err = k.c.VerifyPhoneNumber(bg, session, number, "forged")
	wantErr(t, err, mfa.ErrInvalidAppCredential)
	_, err = k.c.VerifyPhoneNumber(bg, session, number, "")
	wantErr(t, err, mfa.ErrMissingAppCredential)
	vid, err := k.c.VerifyPhoneNumber(bg, session, number, goodToken)
	if err != nil {
		t.Fatal(err)
	}
	code := k.smsCode(number)
	_, err = mf.Enroll(bg, mfa.PhoneAssertion(vid, wrongDigits(code)), "")
	wantErr(t, err, mfa.ErrInvalidVerificationCode)
	info, err := mf.Enroll(bg, mfa.PhoneAssertion(vid, code), "Mobile")
	if err != nil {
		t.Fatal(err)
	}
	if info.Kind != mfa.FactorPhone || info.PhoneNumber != number || info.FactorID != "phone" {
		t.Fatalf("phone factor: %+v", info)
	}

	k.advance(31)
	resolver := k.resolver(user)
	hint := resolver.Hints[0]
	if hint.PhoneNumber != "+1******0101" || strings.Contains(hint.Hint, "5550") {
		t.Fatalf("the hint shows the number: %+v", hint)
	}
	vid, err = resolver.VerifyPhoneNumber(bg, hint.UID, goodToken)
	if err != nil {
		t.Fatal(err)
	}
	code = k.smsCode(number)
	result, err := resolver.ResolveSignIn(bg, mfa.PhoneAssertion(vid, code))
	if err != nil || result.FactorID != "phone" || result.EnrollmentID != info.UID {
		t.Fatalf("phone sign-in: %+v, %v", result, err)
	}
	// The SMS code is single-use.
	k.advance(31)
	second := k.resolver(user)
	_, err = second.ResolveSignIn(bg, mfa.PhoneAssertion(vid, code))
	wantErr(t, err, mfa.ErrInvalidSession)
}

// wrongDigits changes every digit of an SMS code.
func wrongDigits(code string) string {
	b := []byte(code)
	for i := range b {
		b[i] = '0' + (b[i]-'0'+1)%10
	}
	return string(b)
}

func contractSMSSender(t *testing.T, store string) {
	type sms struct{ to, text string }
	sent := make(chan sms, 4)
	failing := true
	k := newKit(t, store, func(o *mfa.Options) {
		o.SMSOutbox = ""
		o.SMSSender = func(to, text string) error {
			if failing {
				return errors.New("gateway down")
			}
			sent <- sms{to, text}
			return nil
		}
	})
	mf := k.c.MultiFactor(k.user("sender-user"))
	session, err := mf.Session(bg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = k.c.VerifyPhoneNumber(bg, session, "+15105550102", goodToken)
	wantErr(t, err, mfa.ErrSMSSendFailed)
	failing = false
	vid, err := k.c.VerifyPhoneNumber(bg, session, "+15105550102", goodToken)
	if err != nil {
		t.Fatal(err)
	}
	got := <-sent
	if got.to != "+15105550102" || !strings.HasSuffix(got.text, " is your verification code.") {
		t.Fatalf("sent: %+v", got)
	}
	if _, err := mf.Enroll(bg, mfa.PhoneAssertion(vid, got.text[:6]), ""); err != nil {
		t.Fatal(err)
	}
}

func contractRecoveryCodes(t *testing.T, k *kit) {
	user := k.user("recovery-user")
	k.enrollTOTP(user, "")
	k.advance(1)
	user.AuthTime = k.time()
	session, err := k.c.MultiFactor(user).Session(bg)
	if err != nil {
		t.Fatal(err)
	}
	codes, err := k.c.GenerateRecoveryCodes(bg, session, "paper")
	if err != nil {
		t.Fatal(err)
	}
	if len(codes.Codes) != 10 || codes.Factor.Kind != mfa.FactorRecoveryCodes || codes.Factor.RemainingCodes != 10 {
		t.Fatalf("codes: %v %+v", codes, codes.Factor)
	}
	if strings.Contains(codes.String(), codes.Codes[0]) {
		t.Fatal("the set's String shows a code")
	}
	k.advance(1)
	resolver := k.resolver(user)
	result, err := resolver.ResolveSignIn(bg, mfa.RecoveryCodeAssertion(strings.ToUpper(codes.Codes[0]), ""))
	if err != nil {
		t.Fatal(err)
	}
	if !result.UsedRecoveryCode() || result.Claims["recovery_codes_remaining"] != "9" {
		t.Fatalf("recovery sign-in: %+v", result)
	}
	// A used code is refused.
	again := k.resolver(user)
	_, err = again.ResolveSignIn(bg, mfa.RecoveryCodeAssertion(codes.Codes[0], codes.Factor.UID))
	wantErr(t, err, mfa.ErrInvalidVerificationCode)
	if _, err := again.ResolveSignIn(bg, mfa.RecoveryCodeAssertion(codes.Codes[1], codes.Factor.UID)); err != nil {
		t.Fatal(err)
	}
	// Recovery codes are generated, not enrolled.
	_, err = k.c.MultiFactor(user).Enroll(bg, mfa.RecoveryCodeAssertion(codes.Codes[2], ""), "")
	if err == nil {
		t.Fatal("a recovery code enrolled a factor")
	}
}

func contractRevocation(t *testing.T, k *kit) {
	user := k.user("revoke-user")
	info, app := k.enrollTOTP(user, "")
	k.advance(5)
	issued := k.time()
	if err := k.c.CheckToken(bg, "", "revoke-user", issued); err != nil {
		t.Fatalf("a credential issued after the enrollment: %v", err)
	}
	session, err := k.c.MultiFactor(k.user("revoke-user")).Session(bg)
	if err != nil {
		t.Fatal(err)
	}
	resolver := k.resolver(user)
	k.advance(5)
	if err := k.c.RevokeTokens(bg, "", "revoke-user"); err != nil {
		t.Fatal(err)
	}
	if e := k.lastEvent(); e.Kind != mfa.AuditTokensRevoked {
		t.Fatalf("revocation audit event: %+v", e)
	}
	wantErr(t, k.c.CheckToken(bg, "", "revoke-user", issued), mfa.ErrUserTokenExpired)
	wantErr(t, k.c.CheckTokenUnix(bg, "", "revoke-user", issued.Unix()), mfa.ErrUserTokenExpired)
	_, err = k.c.GenerateTOTPSecret(bg, session)
	wantErr(t, err, mfa.ErrUserTokenExpired)
	_, err = resolver.ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, k.code(app, 0)))
	wantErr(t, err, mfa.ErrUserTokenExpired)
	// Factors stay: a new sign-in works, and a credential issued later is valid.
	k.advance(1)
	if _, err := k.resolver(user).ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, k.code(app, 30))); err != nil {
		t.Fatal(err)
	}
	if err := k.c.CheckToken(bg, "", "revoke-user", k.time()); err != nil {
		t.Fatal(err)
	}
}

func contractAdminReset(t *testing.T, k *kit) {
	user := k.user("reset-user")
	info, app := k.enrollTOTP(user, "")
	k.advance(30)
	resolver := k.resolver(user)                                      // a sign-in in progress
	session, err := k.c.MultiFactor(k.user("reset-user")).Session(bg) // an enrollment in progress
	if err != nil {
		t.Fatal(err)
	}
	issued := k.time()
	k.advance(5)
	admin := k.c.Admin("ops:alice")
	factors, err := admin.UserFactors(bg, "", "reset-user", false)
	if err != nil || len(factors) != 1 || factors[0].UID != info.UID {
		t.Fatalf("admin's view: %+v, %v", factors, err)
	}
	removed, err := admin.ResetUser(bg, "", "reset-user")
	if err != nil || len(removed) != 1 || removed[0].UID != info.UID {
		t.Fatalf("reset: %+v, %v", removed, err)
	}
	kinds := strings.Join(k.kinds(), " ")
	if !strings.HasSuffix(kinds, "UNENROLL USER_RESET") || k.lastEvent().Actor != "ops:alice" {
		t.Fatalf("reset audit events: %s, %+v", kinds, k.lastEvent())
	}
	// Everything from before is refused; the first factor alone signs the user in.
	_, err = k.c.Resolver(bg, resolver.Session, "")
	wantErr(t, err, mfa.ErrUserTokenExpired)
	_, err = k.c.GenerateTOTPSecret(bg, session)
	wantErr(t, err, mfa.ErrUserTokenExpired)
	wantErr(t, k.c.CheckToken(bg, "", "reset-user", issued), mfa.ErrUserTokenExpired)
	_, err = resolver.ResolveSignIn(bg, mfa.TOTPSignInAssertion(info.UID, k.code(app, 0)))
	if err == nil {
		t.Fatal("a sign-in started before the reset went through")
	}
	k.advance(1)
	user.AuthTime = k.time()
	if result, err := k.c.SignIn(bg, user); err != nil || result.FactorID != "" {
		t.Fatalf("sign-in after the reset: %+v, %v", result, err)
	}
	_, err = admin.ResetUser(bg, "", "nobody")
	wantErr(t, err, mfa.ErrMFAEnrollmentNotFound)
	// The user enrolls again.
	k.enrollTOTP(user, "")
}
