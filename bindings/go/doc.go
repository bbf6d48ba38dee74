// Package mfa is the Go binding of libmfa, an embeddable multi-factor
// authentication library: Firebase Authentication's second-factor model
// (TOTP authenticator apps, SMS codes, recovery codes, WebAuthn security
// keys and passkeys; enrollment sessions, sign-in resolvers, hints, token
// revocation) in-process, on an SQLite file or a shared PostgreSQL store, and
// the stateless primitives (HOTP/TOTP, base32, otpauth:// key URIs, QR codes).
//
// It calls libmfa's C interface (mfa.h) through cgo and links with -lmfa,
// found through pkg-config's mfa.pc, which libmfa's CMake install writes. See
// docs/bindings/go.md for installing, an example, errors, threading and
// callbacks.
//
// # The engine
//
// Open a [Context] on a store with a 32-byte master key, store the
// configuration, then drive the flows:
//
//	c, err := mfa.Open(ctx, mfa.Options{Store: "mfa.sqlite3", MasterKey: key})
//	err = c.SetConfig(ctx, "", `{"state":"ENABLED","providers":{"totp":"ENABLED"}}`)
//	mf := c.MultiFactor(user)                 // after the user's first factor
//	session, err := mf.Session(ctx)
//	secret, err := c.GenerateTOTPSecret(ctx, session)
//	info, err := mf.Enroll(ctx, mfa.TOTPEnrollmentAssertion(secret, code), "phone app")
//
//	_, err = c.SignIn(ctx, user)              // a later sign-in
//	var required *mfa.SecondFactorRequired
//	if errors.As(err, &required) {
//		result, err := required.Resolver.ResolveSignIn(ctx,
//			mfa.TOTPSignInAssertion(required.Resolver.Hints[0].UID, code))
//		...
//	}
//
// # Errors
//
// Every failure of libmfa is an [*Error] with the status name and the
// library's message; it matches the sentinel of its name with errors.Is
// (errors.Is(err, mfa.ErrInvalidVerificationCode)). A sign-in that needs a
// second factor returns a [*SecondFactorRequired] carrying the [Resolver].
//
// # Goroutines
//
// A [Context] is safe for use by many goroutines at once: libmfa's context is
// thread-safe, and [Context.Close] waits for the calls in progress. Stateless
// values ([TOTP], [HOTP]) are immutable. Every store call takes a
// context.Context, checked before the call; a call in flight finishes within
// the store's own deadline (see [Options.Store]).
package mfa
