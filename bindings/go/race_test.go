package mfa_test

// Two processes race on one TOTP code, each with a pending credential of its
// own, on one store: exactly one wins, the other is told the code is used.
// The processes are this test binary, run again as TestRaceChild.

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"libmfa/mfa"
)

const raceRounds = 5

func TestTwoProcessRace(t *testing.T) {
	for _, store := range stores(t) {
		store := store
		t.Run(store.name, func(t *testing.T) {
			location := store.make(t)
			k := newKit(t, location, nil)
			user := k.user("racer")
			info, app := k.enrollTOTP(user, "")
			for round := 0; round < raceRounds; round++ {
				k.advance(30)
				code := k.code(app, 0)
				start := filepath.Join(t.TempDir(), "go")
				var children []*exec.Cmd
				var outputs []*bufio.Scanner
				for i := 0; i < 2; i++ {
					pending := k.resolver(user).Session
					cmd := exec.Command(os.Args[0], "-test.run=^TestRaceChild$", "-test.count=1")
					cmd.Env = append(os.Environ(), "MFA_GO_RACE_CHILD=1", "MFA_GO_RACE_STORE="+location,
						"MFA_GO_RACE_NOW="+strconv.FormatInt(k.now.Load(), 10), "MFA_GO_RACE_PENDING="+pending,
						"MFA_GO_RACE_FACTOR="+info.UID, "MFA_GO_RACE_CODE="+code, "MFA_GO_RACE_START="+start)
					cmd.Stderr = os.Stderr
					out, err := cmd.StdoutPipe()
					if err != nil {
						t.Fatal(err)
					}
					if err := cmd.Start(); err != nil {
						t.Fatal(err)
					}
					children = append(children, cmd)
					outputs = append(outputs, bufio.NewScanner(out))
				}
				line := func(i int) string {
					for outputs[i].Scan() {
						if text := outputs[i].Text(); strings.HasPrefix(text, "race: ") {
							return strings.TrimPrefix(text, "race: ")
						}
					}
					return "no answer"
				}
				for i := range children {
					if got := line(i); got != "ready" {
						t.Fatalf("round %d: child %d says %q", round, i, got)
					}
				}
				if err := os.WriteFile(start, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				answers := []string{line(0), line(1)}
				for _, cmd := range children {
					if err := cmd.Wait(); err != nil {
						t.Fatalf("round %d: %v", round, err)
					}
				}
				won := 0
				for _, a := range answers {
					switch a {
					case "OK":
						won++
					case "INVALID_VERIFICATION_CODE":
					default:
						t.Fatalf("round %d: answer %q", round, a)
					}
				}
				if won != 1 {
					t.Fatalf("round %d: %d winners (%v)", round, won, answers)
				}
			}
		})
	}
}

// TestRaceChild is one racer of TestTwoProcessRace (it does nothing unless
// that test runs it): it loads its resolver, says "ready", waits for the
// start file, and resolves with the shared code.
func TestRaceChild(t *testing.T) {
	if os.Getenv("MFA_GO_RACE_CHILD") != "1" {
		return
	}
	now, _ := strconv.ParseInt(os.Getenv("MFA_GO_RACE_NOW"), 10, 64)
	c, err := mfa.Open(bg, mfa.Options{Store: os.Getenv("MFA_GO_RACE_STORE"), MasterKey: masterKey,
		Clock: func() time.Time { return time.Unix(now, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resolver, err := c.Resolver(bg, os.Getenv("MFA_GO_RACE_PENDING"), "")
	if err != nil {
		t.Fatal(err)
	}
	assertion := mfa.TOTPSignInAssertion(os.Getenv("MFA_GO_RACE_FACTOR"), os.Getenv("MFA_GO_RACE_CODE"))
	fmt.Println("race: ready")
	start := os.Getenv("MFA_GO_RACE_START")
	for tries := 0; ; tries++ {
		if _, err := os.Stat(start); err == nil {
			break
		}
		if tries == 20000 {
			t.Fatal("no start signal")
		}
		time.Sleep(200 * time.Microsecond)
	}
	_, err = resolver.ResolveSignIn(bg, assertion)
	var e *mfa.Error
	switch {
	case err == nil:
		fmt.Println("race: OK")
	case errors.As(err, &e):
		fmt.Println("race: " + e.Name)
	default:
		fmt.Println("race: " + err.Error())
	}
}
