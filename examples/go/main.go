// Command mfaserver is a small sign-in server on net/http with libmfa's Go
// binding: passwords as the first factor (demo accounts), TOTP authenticator
// apps and recovery codes as second factors, sessions in a cookie checked
// against libmfa's revocations.
//
//	MFA_MASTER_KEY=$(openssl rand -hex 32) go run . -store mfa.sqlite3 -addr 127.0.0.1:8080
//
// The JSON API (every body is JSON):
//
//	POST /login               {"user", "password"} -> signed in, or
//	                          {"mfaRequired": true, "pendingCredential", "hints"}
//	POST /login/second-factor {"pendingCredential", "enrollmentId", "code"}
//	                          (a recovery code: "kind": "recovery")
//	GET  /me                  the user and their factors
//	POST /enroll/totp/start   -> {"secret", "uri", "sessionInfo", "qrSvg"}
//	POST /enroll/totp/finish  {"sessionInfo", "code", "name"}
//	POST /recovery-codes      -> {"codes"} (shown once)
//	POST /factors/remove      {"enrollmentId"}
//	POST /logout
package main

import (
	"context"
	"encoding/hex"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"
	"time"

	"libmfa/mfa"
)

func main() {
	store := flag.String("store", "mfa.sqlite3", `libmfa's store: an SQLite path, ":memory:" or a postgres:// URL`)
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	flag.Parse()
	key, err := hex.DecodeString(os.Getenv("MFA_MASTER_KEY"))
	if err != nil || len(key) != mfa.MasterKeyBytes {
		log.Fatal("MFA_MASTER_KEY must hold 32 bytes in hex (openssl rand -hex 32)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	engine, err := mfa.Open(ctx, mfa.Options{Store: *store, MasterKey: key})
	if err != nil {
		log.Fatal(err)
	}
	defer engine.Close()
	app, err := NewApp(ctx, engine, map[string]string{"alice": "correct horse", "bob": "battery staple"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	server := &http.Server{Addr: *addr, Handler: app, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		server.Shutdown(shutdown)
	}()
	log.Printf("mfaserver on http://%s (libmfa %s), store %s", *addr, mfa.VersionString(), *store)
	if err := server.ListenAndServe(); err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
