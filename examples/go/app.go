package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"libmfa/mfa"
)

const (
	cookieName = "mfaserver_session"
	issuer     = "mfaserver"
	// callTimeout bounds each request's libmfa calls (checked before each
	// call; a call in flight ends within the store's own deadline).
	callTimeout = 5 * time.Second
)

// App is the server: the first factor (demo passwords), libmfa for the
// second, and the server's own sessions.
type App struct {
	engine    *mfa.Context
	passwords map[string][32]byte
	now       func() time.Time
	mux       *http.ServeMux

	mu       sync.Mutex
	sessions map[string]session
}

// session is what a session cookie stands for.
type session struct {
	uid      string
	issuedAt time.Time // checked against libmfa's revocations
	authTime time.Time // when the first factor passed (enrolling needs it recent)
}

// NewApp enables TOTP and recovery codes, and serves the accounts of
// passwords; now is the clock (nil for time.Now), the same as the engine's.
func NewApp(ctx context.Context, engine *mfa.Context, passwords map[string]string, now func() time.Time) (*App, error) {
	config := map[string]any{"state": "ENABLED", "providers": map[string]string{"totp": "ENABLED", "recovery": "ENABLED"}}
	if err := engine.SetConfig(ctx, "", config); err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	a := &App{engine: engine, passwords: map[string][32]byte{}, now: now, mux: http.NewServeMux(),
		sessions: map[string]session{}}
	for user, password := range passwords {
		a.passwords[user] = sha256.Sum256([]byte(password))
	}
	a.mux.HandleFunc("/login", a.post(a.login))
	a.mux.HandleFunc("/login/second-factor", a.post(a.secondFactor))
	a.mux.HandleFunc("/me", a.signedIn(a.me))
	a.mux.HandleFunc("/enroll/totp/start", a.post(a.signedIn(a.enrollStart)))
	a.mux.HandleFunc("/enroll/totp/finish", a.post(a.signedIn(a.enrollFinish)))
	a.mux.HandleFunc("/recovery-codes", a.post(a.signedIn(a.recoveryCodes)))
	a.mux.HandleFunc("/factors/remove", a.post(a.signedIn(a.removeFactor)))
	a.mux.HandleFunc("/logout", a.post(a.logout))
	return a, nil
}

func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

// reply writes v as JSON with status.
func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// fail answers a libmfa error with its HTTP status and its name.
func fail(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	switch {
	case errors.Is(err, mfa.ErrInvalidVerificationCode), errors.Is(err, mfa.ErrInvalidSession),
		errors.Is(err, mfa.ErrUserTokenExpired), errors.Is(err, mfa.ErrCodeExpired):
		status = http.StatusUnauthorized
	case errors.Is(err, mfa.ErrTooManyAttemptsTryLater):
		status = http.StatusTooManyRequests
	case errors.Is(err, mfa.ErrInvalidArgument), errors.Is(err, mfa.ErrMFAEnrollmentNotFound):
		status = http.StatusBadRequest
	case errors.Is(err, mfa.ErrRequiresRecentLogin), errors.Is(err, mfa.ErrOperationNotAllowed),
		errors.Is(err, mfa.ErrSecondFactorLimitExceeded), errors.Is(err, mfa.ErrUnverifiedEmail):
		status = http.StatusForbidden
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, mfa.ErrStorageError):
		status = http.StatusServiceUnavailable
	}
	var e *mfa.Error
	if errors.As(err, &e) {
		reply(w, status, map[string]string{"error": e.Name})
		return
	}
	reply(w, status, map[string]string{"error": "INTERNAL"})
}

func (a *App) post(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			reply(w, http.StatusMethodNotAllowed, map[string]string{"error": "POST only"})
			return
		}
		next(w, r)
	}
}

type sessionKey struct{}

// signedIn serves only requests with a live session whose credential
// libmfa has not revoked since (an enrollment, an unenrollment, new
// recovery codes, an operator's reset).
func (a *App) signedIn(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		cookie, err := r.Cookie(cookieName)
		a.mu.Lock()
		s, ok := session{}, false
		if err == nil {
			s, ok = a.sessions[cookie.Value]
		}
		a.mu.Unlock()
		if !ok {
			reply(w, http.StatusUnauthorized, map[string]string{"error": "SIGN_IN_REQUIRED"})
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), callTimeout)
		defer cancel()
		if err := a.engine.CheckToken(ctx, "", s.uid, s.issuedAt); err != nil {
			a.drop(cookie.Value)
			fail(w, err)
			return
		}
		next(w, r.WithContext(context.WithValue(ctx, sessionKey{}, s)))
	}
}

// issue starts a session for uid after a full sign-in, a moment after the
// sign-in's own revocations (libmfa counts a credential issued in the same
// millisecond as one issued before).
func (a *App) issue(w http.ResponseWriter, uid string, authTime time.Time) {
	token := make([]byte, 32)
	if _, err := rand.Read(token); err != nil {
		fail(w, err)
		return
	}
	value := base64.RawURLEncoding.EncodeToString(token)
	a.mu.Lock()
	a.sessions[value] = session{uid: uid, issuedAt: a.now().Add(time.Millisecond), authTime: authTime}
	a.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: value, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode})
	reply(w, http.StatusOK, map[string]string{"user": uid})
}

func (a *App) drop(token string) {
	a.mu.Lock()
	delete(a.sessions, token)
	a.mu.Unlock()
}

// user is what libmfa needs to know of uid: the host verified the demo
// accounts' email addresses.
func user(uid string, authTime time.Time) mfa.User {
	return mfa.User{UID: uid, Email: uid + "@example.com", EmailVerified: true, AuthTime: authTime}
}

func (a *App) login(w http.ResponseWriter, r *http.Request) {
	var body struct{ User, Password string }
	if json.NewDecoder(r.Body).Decode(&body) != nil {
		reply(w, http.StatusBadRequest, map[string]string{"error": "BAD_REQUEST"})
		return
	}
	want, known := a.passwords[body.User]
	got := sha256.Sum256([]byte(body.Password))
	if subtle.ConstantTimeCompare(want[:], got[:]) != 1 || !known {
		reply(w, http.StatusUnauthorized, map[string]string{"error": "WRONG_PASSWORD"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), callTimeout)
	defer cancel()
	authTime := a.now()
	_, err := a.engine.SignIn(ctx, user(body.User, authTime))
	var required *mfa.SecondFactorRequired
	switch {
	case errors.As(err, &required):
		hints := []map[string]string{}
		for _, h := range required.Resolver.Hints {
			hints = append(hints, map[string]string{"enrollmentId": h.UID, "kind": h.FactorID, "hint": h.Hint,
				"name": h.DisplayName})
		}
		reply(w, http.StatusOK, map[string]any{"mfaRequired": true,
			"pendingCredential": required.Resolver.Session, "hints": hints})
	case err != nil:
		fail(w, err)
	default:
		a.issue(w, body.User, authTime)
	}
}

func (a *App) secondFactor(w http.ResponseWriter, r *http.Request) {
	var body struct{ PendingCredential, EnrollmentID, Code, Kind string }
	if json.NewDecoder(r.Body).Decode(&body) != nil {
		reply(w, http.StatusBadRequest, map[string]string{"error": "BAD_REQUEST"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), callTimeout)
	defer cancel()
	resolver, err := a.engine.Resolver(ctx, body.PendingCredential, "")
	if err != nil {
		fail(w, err)
		return
	}
	assertion := mfa.TOTPSignInAssertion(body.EnrollmentID, body.Code)
	if body.Kind == mfa.RecoveryCodesFactorID {
		assertion = mfa.RecoveryCodeAssertion(body.Code, body.EnrollmentID)
	}
	result, err := resolver.ResolveSignIn(ctx, assertion)
	if err != nil {
		fail(w, err)
		return
	}
	// The second factor passed just now: a fresh sign-in, fit to enroll.
	a.issue(w, result.UID, result.Time)
}

func current(r *http.Request) session { return r.Context().Value(sessionKey{}).(session) }

func (a *App) me(w http.ResponseWriter, r *http.Request) {
	s := current(r)
	factors, err := a.engine.MultiFactor(user(s.uid, s.authTime)).EnrolledFactors(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	list := []map[string]any{}
	for _, f := range factors {
		list = append(list, map[string]any{"enrollmentId": f.UID, "kind": f.FactorID, "hint": f.Hint,
			"name": f.DisplayName, "enrolled": f.EnrollmentTime.UTC().Format(time.RFC3339)})
	}
	reply(w, http.StatusOK, map[string]any{"user": s.uid, "factors": list})
}

func (a *App) enrollStart(w http.ResponseWriter, r *http.Request) {
	s := current(r)
	mfaSession, err := a.engine.MultiFactor(user(s.uid, s.authTime)).Session(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	secret, err := a.engine.GenerateTOTPSecret(r.Context(), mfaSession)
	if err != nil {
		fail(w, err)
		return
	}
	uri, err := secret.GenerateQRCodeURL(s.uid+"@example.com", issuer)
	if err != nil {
		fail(w, err)
		return
	}
	svg, err := mfa.QRCode(uri, mfa.QRSVG)
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	reply(w, http.StatusOK, map[string]string{"secret": secret.SharedSecretKey, "uri": uri,
		"sessionInfo": secret.SessionInfo, "qrSvg": string(svg)})
}

func (a *App) enrollFinish(w http.ResponseWriter, r *http.Request) {
	s := current(r)
	var body struct{ SessionInfo, Code, Name string }
	if json.NewDecoder(r.Body).Decode(&body) != nil {
		reply(w, http.StatusBadRequest, map[string]string{"error": "BAD_REQUEST"})
		return
	}
	secret := &mfa.TOTPSecret{SessionInfo: body.SessionInfo}
	info, err := a.engine.MultiFactor(user(s.uid, s.authTime)).Enroll(r.Context(),
		mfa.TOTPEnrollmentAssertion(secret, body.Code), body.Name)
	if err != nil {
		fail(w, err)
		return
	}
	// Enrolling revoked the user's earlier credentials, this session's
	// among them: it goes on as a new session.
	a.renew(w, r, s)
	reply(w, http.StatusOK, map[string]string{"enrollmentId": info.UID, "hint": info.Hint})
}

func (a *App) recoveryCodes(w http.ResponseWriter, r *http.Request) {
	s := current(r)
	mfaSession, err := a.engine.MultiFactor(user(s.uid, s.authTime)).Session(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	codes, err := a.engine.GenerateRecoveryCodes(r.Context(), mfaSession, "")
	if err != nil {
		fail(w, err)
		return
	}
	a.renew(w, r, s)
	w.Header().Set("Cache-Control", "no-store")
	reply(w, http.StatusOK, map[string]any{"codes": codes.Codes, "enrollmentId": codes.Factor.UID})
}

func (a *App) removeFactor(w http.ResponseWriter, r *http.Request) {
	s := current(r)
	var body struct{ EnrollmentID string }
	if json.NewDecoder(r.Body).Decode(&body) != nil {
		reply(w, http.StatusBadRequest, map[string]string{"error": "BAD_REQUEST"})
		return
	}
	if err := a.engine.MultiFactor(user(s.uid, s.authTime)).Unenroll(r.Context(), body.EnrollmentID); err != nil {
		fail(w, err)
		return
	}
	a.renew(w, r, s)
	reply(w, http.StatusOK, map[string]string{})
}

// renew replaces the request's session with one issued now (after the
// revocation the request's own change made), keeping its first-factor time.
func (a *App) renew(w http.ResponseWriter, r *http.Request, s session) {
	if cookie, err := r.Cookie(cookieName); err == nil {
		a.mu.Lock()
		if _, ok := a.sessions[cookie.Value]; ok {
			a.sessions[cookie.Value] = session{uid: s.uid, issuedAt: a.now().Add(time.Millisecond), authTime: s.authTime}
		}
		a.mu.Unlock()
	}
}

func (a *App) logout(w http.ResponseWriter, r *http.Request) {
	if cookie, err := r.Cookie(cookieName); err == nil {
		a.drop(cookie.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1})
	reply(w, http.StatusOK, map[string]string{})
}
