package mfa

// #include <mfa.h>
import "C"

import (
	"errors"
	"unsafe"
)

//go:generate go run ./internal/statusgen/gen ../../include/mfa_types.h status_gen.go

// Status is a libmfa status code: 0 for success, a negative number with a
// stable name for each failure (mfa_status in mfa_types.h).
type Status int32

// String returns the status's stable name ("INVALID_SESSION"; "UNKNOWN" for a
// code this library does not know).
func (s Status) String() string {
	return C.GoString(C.mfa_status_name(C.int32_t(s)))
}

// Message returns libmfa's short human message for the status.
func (s Status) Message() string {
	return C.GoString(C.mfa_errstr(C.int32_t(s)))
}

// Error is a failure reported by libmfa. It matches the sentinel error of its
// status with errors.Is: errors.Is(err, ErrInvalidSession) holds for every
// *Error whose Status is INVALID_SESSION, whatever its message.
type Error struct {
	// Status is the status code (negative).
	Status Status
	// Name is its stable name, such as "INVALID_SESSION".
	Name string
	// Message is the detailed message libmfa gave (it never holds a secret,
	// a code or a token), or its short message for the status; empty in the
	// sentinels.
	Message string
	// cause is what else the error is (ErrClosed), or nil.
	cause error
}

// Error returns "libmfa: NAME: message".
func (e *Error) Error() string {
	if e.Message == "" {
		return "libmfa: " + e.Name
	}
	return "libmfa: " + e.Name + ": " + e.Message
}

// Is reports whether target is an *Error with the same status (a sentinel).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Status == e.Status
}

// Unwrap returns the other error this one is, if any (ErrClosed).
func (e *Error) Unwrap() error { return e.cause }

// ErrClosed is matched (with errors.Is) by the error of a call on a closed
// Context; that error is also an INVALID_ARGUMENT *Error.
var ErrClosed = errors.New("libmfa: the context is closed")

// ErrCallbackReentry is returned by a Context's calls made from inside one of
// libmfa's callbacks (clock, randomness, audit, SMS sender, app verifier,
// WebAuthn trust, import report, progress): libmfa forbids calling back into
// it from there, and doing so could deadlock.
var ErrCallbackReentry = errors.New("libmfa: a callback must not call back into libmfa")

// SecondFactorRequired is the error of a sign-in whose user has second
// factors: the first factor passed, and Resolver finishes the sign-in with
// one of them. Find it with errors.As; errors.Is(err,
// ErrSecondFactorRequired) holds too.
type SecondFactorRequired struct {
	// Resolver holds the hints and the pending credential.
	Resolver *Resolver
	err      *Error
}

// Error returns "libmfa: SECOND_FACTOR_REQUIRED: message".
func (e *SecondFactorRequired) Error() string { return e.err.Error() }

// Unwrap returns the *Error of status SECOND_FACTOR_REQUIRED.
func (e *SecondFactorRequired) Unwrap() error { return e.err }

// newError returns the *Error of a failed status with message (libmfa's short
// message when message is empty).
func newError(status C.int32_t, message string) *Error {
	s := Status(status)
	if message == "" {
		message = s.Message()
	}
	return &Error{Status: s, Name: s.String(), Message: message}
}

// invalid returns an INVALID_ARGUMENT *Error with message, for arguments the
// binding refuses before calling libmfa.
func invalid(message string) *Error {
	return &Error{Status: ErrInvalidArgument.Status, Name: ErrInvalidArgument.Name, Message: message}
}

// check returns nil for MFA_OK, else the *Error of status with the message in
// *err (which it frees; err may be nil).
func check(status C.int32_t, err *C.char) error {
	message := ""
	if err != nil {
		message = C.GoString(err)
		C.mfa_free(unsafe.Pointer(err))
	}
	if status == C.MFA_OK {
		return nil
	}
	return newError(status, message)
}

// takeMessage frees *err and returns its text ("" for NULL).
func takeMessage(err *C.char) string {
	if err == nil {
		return ""
	}
	defer C.mfa_free(unsafe.Pointer(err))
	return C.GoString(err)
}

// SentinelOf returns the sentinel error of a status, or nil for MFA_OK and
// for a code this package does not know (a newer libmfa's: its errors are
// still *Error values, with the library's name for it).
func SentinelOf(status Status) *Error { return sentinels[status] }
