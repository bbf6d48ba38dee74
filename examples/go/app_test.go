package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"libmfa/mfa"
)

// client is a browser of the server: a cookie jar, JSON in and out.
type client struct {
	t    *testing.T
	http *http.Client
	base string
}

func (c *client) post(path string, body any) (int, map[string]any) {
	c.t.Helper()
	data, _ := json.Marshal(body)
	response, err := c.http.Post(c.base+path, "application/json", bytes.NewReader(data))
	if err != nil {
		c.t.Fatal(err)
	}
	defer response.Body.Close()
	var out map[string]any
	json.NewDecoder(response.Body).Decode(&out)
	return response.StatusCode, out
}

func (c *client) get(path string) (int, map[string]any) {
	c.t.Helper()
	response, err := c.http.Get(c.base + path)
	if err != nil {
		c.t.Fatal(err)
	}
	defer response.Body.Close()
	var out map[string]any
	json.NewDecoder(response.Body).Decode(&out)
	return response.StatusCode, out
}

func TestSignInServer(t *testing.T) {
	var now atomic.Int64
	now.Store(1_700_000_010)
	clock := func() time.Time { return time.UnixMilli(now.Load() * 1000) }
	ctx := context.Background()
	engine, err := mfa.Open(ctx, mfa.Options{Store: filepath.Join(t.TempDir(), "mfa.sqlite3"),
		MasterKey: bytes.Repeat([]byte{7}, 32), Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()
	app, err := NewApp(ctx, engine, map[string]string{"alice": "correct horse"}, clock)
	if err != nil {
		t.Fatal(err)
	}
	server := httptest.NewServer(app)
	defer server.Close()
	jar, _ := cookiejar.New(nil)
	browser := &client{t: t, http: &http.Client{Jar: jar}, base: server.URL}
	expect := func(what string, status, want int, body map[string]any) {
		t.Helper()
		if status != want {
			t.Fatalf("%s: %d %v, want %d", what, status, body, want)
		}
	}

	status, body := browser.post("/login", map[string]string{"user": "alice", "password": "wrong"})
	expect("wrong password", status, http.StatusUnauthorized, body)
	status, body = browser.get("/me")
	expect("signed out", status, http.StatusUnauthorized, body)
	status, body = browser.post("/login", map[string]string{"user": "alice", "password": "correct horse"})
	expect("first sign-in", status, http.StatusOK, body)

	// Enroll an authenticator app: the secret, then a code from the app.
	status, body = browser.post("/enroll/totp/start", nil)
	expect("enroll start", status, http.StatusOK, body)
	if !strings.HasPrefix(body["uri"].(string), "otpauth://totp/mfaserver:alice%40example.com?") ||
		!strings.Contains(body["qrSvg"].(string), "<svg") {
		t.Fatalf("enrollment: %v", body)
	}
	key, _ := mfa.Base32Decode(body["secret"].(string))
	authenticator, _ := mfa.NewTOTP(key, mfa.TOTPParams{})
	code := func() string {
		c, _ := authenticator.At(time.Unix(now.Load(), 0))
		return c
	}
	sessionInfo := body["sessionInfo"].(string)
	status, body = browser.post("/enroll/totp/finish", map[string]string{"sessionInfo": sessionInfo, "code": "000000"})
	if code() != "000000" {
		expect("a wrong enrollment code", status, http.StatusUnauthorized, body)
	}
	status, body = browser.post("/enroll/totp/finish", map[string]string{"sessionInfo": sessionInfo, "code": code(),
		"name": "phone"})
	expect("enroll finish", status, http.StatusOK, body)
	// The session goes on after the enrollment revoked the ones before.
	status, body = browser.get("/me")
	expect("me", status, http.StatusOK, body)
	if factors := body["factors"].([]any); len(factors) != 1 || factors[0].(map[string]any)["name"] != "phone" {
		t.Fatalf("factors: %v", body)
	}
	status, body = browser.post("/recovery-codes", nil)
	expect("recovery codes", status, http.StatusOK, body)
	recovery := body["codes"].([]any)
	browser.post("/logout", nil)

	// Sign in again: the password, then the app's code.
	now.Add(30)
	status, body = browser.post("/login", map[string]string{"user": "alice", "password": "correct horse"})
	expect("password", status, http.StatusOK, body)
	if body["mfaRequired"] != true {
		t.Fatalf("no second factor asked: %v", body)
	}
	pending := body["pendingCredential"].(string)
	var totpID string
	for _, h := range body["hints"].([]any) {
		if hint := h.(map[string]any); hint["kind"] == "totp" {
			totpID = hint["enrollmentId"].(string)
		}
	}
	status, body = browser.get("/me")
	expect("between the factors", status, http.StatusUnauthorized, body)
	wrong := "123456"
	if code() == wrong {
		wrong = "654321"
	}
	status, body = browser.post("/login/second-factor", map[string]string{"pendingCredential": pending,
		"enrollmentId": totpID, "code": wrong})
	expect("a wrong code", status, http.StatusUnauthorized, body)
	if body["error"] != "INVALID_VERIFICATION_CODE" {
		t.Fatalf("error: %v", body)
	}
	used := code()
	status, body = browser.post("/login/second-factor", map[string]string{"pendingCredential": pending,
		"enrollmentId": totpID, "code": used})
	expect("the right code", status, http.StatusOK, body)
	status, body = browser.get("/me")
	expect("signed in", status, http.StatusOK, body)

	// Another browser replays the same code with a pending credential of its own.
	jar2, _ := cookiejar.New(nil)
	thief := &client{t: t, http: &http.Client{Jar: jar2}, base: server.URL}
	_, body = thief.post("/login", map[string]string{"user": "alice", "password": "correct horse"})
	status, body = thief.post("/login/second-factor", map[string]string{"pendingCredential": body["pendingCredential"].(string),
		"enrollmentId": totpID, "code": used})
	expect("a replayed code", status, http.StatusUnauthorized, body)
	// A recovery code works, once.
	_, body = thief.post("/login", map[string]string{"user": "alice", "password": "correct horse"})
	status, body = thief.post("/login/second-factor", map[string]string{"pendingCredential": body["pendingCredential"].(string),
		"kind": "recovery", "code": recovery[0].(string)})
	expect("a recovery code", status, http.StatusOK, body)

	// Removing the factor (a second later) revokes every other session.
	now.Add(1)
	status, body = thief.post("/factors/remove", map[string]string{"enrollmentId": totpID})
	expect("remove", status, http.StatusOK, body)
	status, body = browser.get("/me")
	expect("a revoked session", status, http.StatusUnauthorized, body)
	if body["error"] != "USER_TOKEN_EXPIRED" {
		t.Fatalf("error: %v", body)
	}
	status, _ = thief.get("/me")
	expect("the session that removed it", status, http.StatusOK, nil)
}
