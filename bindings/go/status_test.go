package mfa_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"testing"

	"libmfa/mfa"
	"libmfa/mfa/internal/statusgen"
)

// status_gen.go is what the generator makes of the checkout's mfa_types.h:
// a status libmfa adds gets its sentinel by `go generate`, and this fails
// until it is run.
func TestStatusGenIsCurrent(t *testing.T) {
	header, err := os.ReadFile("../../include/mfa_types.h")
	if err != nil {
		t.Fatalf("the checkout's header: %v", err)
	}
	want, err := statusgen.Generate(header)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("status_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want) {
		t.Fatal("status_gen.go is out of date: run `go generate` in bindings/go")
	}
}

// Every status code the loaded library names has a sentinel with that name,
// and the sentinels match their errors with errors.Is only.
func TestEverySentinel(t *testing.T) {
	header, err := os.ReadFile("../../include/mfa_types.h")
	if err != nil {
		t.Fatal(err)
	}
	codes, err := statusgen.Parse(header)
	if err != nil {
		t.Fatal(err)
	}
	if len(codes) < 34 {
		t.Fatalf("only %d status codes parsed", len(codes))
	}
	all := map[mfa.Status]bool{}
	for _, code := range codes[1:] {
		status := mfa.Status(code.Value)
		all[status] = true
		if got := status.String(); got != code.Name {
			t.Errorf("status %d: the library names it %s, the header %s", code.Value, got, code.Name)
		}
		if status.Message() == "" || status.Message() == "unknown status code" {
			t.Errorf("status %s has no message", code.Name)
		}
	}
	n := 0
	for status := range all {
		sentinel := mfa.SentinelOf(status)
		if sentinel == nil || sentinel.Status != status || sentinel.Name != status.String() {
			t.Errorf("no sentinel for %s: %v", status, sentinel)
			continue
		}
		n++
		err := fmt.Errorf("wrapped: %w", &mfa.Error{Status: status, Name: status.String(), Message: "detail"})
		for other := range all {
			if got := errors.Is(err, mfa.SentinelOf(other)); got != (other == status) {
				t.Errorf("errors.Is(%s error, %s) = %v", status, other, got)
			}
		}
	}
	if mfa.Status(0).String() != "OK" || mfa.Status(-9999).String() != "UNKNOWN" {
		t.Error("status names of OK and of an unknown code")
	}
	if mfa.SentinelOf(-9999) != nil || mfa.SentinelOf(0) != nil {
		t.Error("a sentinel for OK or an unknown code")
	}
	t.Logf("%d sentinels", n)
}

func TestErrorText(t *testing.T) {
	_, err := mfa.Base32Decode("not base32!")
	var e *mfa.Error
	if !errors.As(err, &e) || e.Name != "INVALID_BASE32" || e.Message == "" ||
		err.Error() != "libmfa: INVALID_BASE32: "+e.Message {
		t.Fatalf("%#v", err)
	}
	if mfa.ErrInvalidSession.Error() != "libmfa: INVALID_SESSION" {
		t.Fatalf("sentinel text: %q", mfa.ErrInvalidSession.Error())
	}
}
