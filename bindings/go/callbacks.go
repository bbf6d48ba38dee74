package mfa

// The C entry points of the host callbacks. libmfa calls them on the thread
// of the call that needs them; their `void *context` is a cgo.Handle (an
// integer, never a Go pointer) naming the Go values, so that no Go pointer
// is ever handed to C. Each one recovers from a panic of the host's
// function: a panic must not unwind through libmfa's frames.

/*
#include <stdint.h>
#include <mfa.h>
*/
import "C"

import (
	"io"
	"log"
	"runtime/cgo"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// hostCallbacks are the Options' callbacks of one Context.
type hostCallbacks struct {
	clock    func() time.Time
	random   io.Reader
	audit    func(AuditEvent)
	sms      func(phoneNumber, message string) error
	verifier func(credential string, action AppAction) bool
	trust    func(WebAuthnAttestation) bool
	log      *log.Logger
}

// maxRandomReads bounds the Read calls that fill one request for random
// bytes: a reader that gives fewer bytes than asked that many times in a
// row fails the request.
const maxRandomReads = 64

// callbackThreads are the threads running a callback right now: a Context
// call made on one of them is a call back into libmfa from its callback
// (during a callback, its goroutine is locked to the thread of the C call).
var callbackThreads struct {
	active atomic.Int32
	mu     sync.Mutex
	tids   map[int]int
}

// enterCallback marks the current thread as inside a callback; pass the
// result to leaveCallback.
func enterCallback() int {
	tid := syscall.Gettid()
	callbackThreads.mu.Lock()
	if callbackThreads.tids == nil {
		callbackThreads.tids = map[int]int{}
	}
	callbackThreads.tids[tid]++
	callbackThreads.mu.Unlock()
	callbackThreads.active.Add(1)
	return tid
}

func leaveCallback(tid int) {
	callbackThreads.active.Add(-1)
	callbackThreads.mu.Lock()
	if callbackThreads.tids[tid]--; callbackThreads.tids[tid] <= 0 {
		delete(callbackThreads.tids, tid)
	}
	callbackThreads.mu.Unlock()
}

// insideCallback tells whether the calling goroutine runs inside a callback.
func insideCallback() bool {
	if callbackThreads.active.Load() == 0 {
		return false
	}
	tid := syscall.Gettid()
	callbackThreads.mu.Lock()
	defer callbackThreads.mu.Unlock()
	return callbackThreads.tids[tid] > 0
}

// recovered logs a panic of the host's callback `what` (its type only: the
// value may quote the arguments, such as an SMS's code) and what libmfa
// does instead.
func (h *hostCallbacks) recovered(what string, value any) {
	logger := h.log
	if logger == nil {
		logger = log.Default()
	}
	logger.Printf("libmfa: the %s callback panicked (%T); %s", what, value, fallbacks[what])
}

var fallbacks = map[string]string{
	"clock":          "the system clock is used",
	"random":         "the operation fails with CRYPTO",
	"audit":          "the event is dropped",
	"SMS sender":     "the send fails with SMS_SEND_FAILED",
	"app verifier":   "the credential is rejected",
	"WebAuthn trust": "the credential is refused",
}

func callbacksOf(context C.uintptr_t) *hostCallbacks {
	return cgo.Handle(context).Value().(*hostCallbacks)
}

//export mfaGoClock
func mfaGoClock(context C.uintptr_t) (now C.int64_t) {
	h := callbacksOf(context)
	defer leaveCallback(enterCallback())
	defer func() {
		if value := recover(); value != nil {
			h.recovered("clock", value)
			now = C.int64_t(time.Now().Unix())
		}
	}()
	return C.int64_t(h.clock().Unix())
}

//export mfaGoRandom
func mfaGoRandom(context C.uintptr_t, out *C.uint8_t, n C.size_t) (status C.int) {
	h := callbacksOf(context)
	defer leaveCallback(enterCallback())
	defer func() {
		if value := recover(); value != nil {
			h.recovered("random", value)
			status = 1
		}
	}()
	if n == 0 {
		return 0
	}
	buffer := make([]byte, int(n))
	defer wipe(buffer)
	filled := 0
	for reads := 0; filled < len(buffer) && reads < maxRandomReads; reads++ {
		got, err := h.random.Read(buffer[filled:])
		if got < 0 || got > len(buffer)-filled {
			return 1
		}
		filled += got
		if err != nil && filled < len(buffer) {
			return 1
		}
	}
	if filled < len(buffer) {
		return 1
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(out)), int(n)), buffer)
	return 0
}

func wipe(b []byte) {
	for i := range b {
		b[i] = 0
	}
}

//export mfaGoAudit
func mfaGoAudit(context C.uintptr_t, event *C.mfa_audit_event) {
	h := callbacksOf(context)
	defer leaveCallback(enterCallback())
	defer func() {
		if value := recover(); value != nil {
			h.recovered("audit", value)
		}
	}()
	h.audit(auditEvent(event))
}

//export mfaGoSMSSender
func mfaGoSMSSender(context C.uintptr_t, phoneNumber, message *C.char) (status C.int) {
	h := callbacksOf(context)
	defer leaveCallback(enterCallback())
	defer func() {
		if value := recover(); value != nil {
			h.recovered("SMS sender", value)
			status = 1
		}
	}()
	if h.sms(goOptional(phoneNumber), goOptional(message)) != nil {
		return 1
	}
	return 0
}

//export mfaGoAppVerifier
func mfaGoAppVerifier(context C.uintptr_t, credential *C.char, action C.int32_t) (status C.int) {
	h := callbacksOf(context)
	defer leaveCallback(enterCallback())
	defer func() {
		if value := recover(); value != nil {
			h.recovered("app verifier", value)
			status = 1
		}
	}()
	if h.verifier(goOptional(credential), AppAction(action)) {
		return 0
	}
	return 1
}

//export mfaGoWebAuthnTrust
func mfaGoWebAuthnTrust(context C.uintptr_t, attestation *C.mfa_webauthn_attestation) (status C.int) {
	h := callbacksOf(context)
	defer leaveCallback(enterCallback())
	defer func() {
		if value := recover(); value != nil {
			h.recovered("WebAuthn trust", value)
			status = 1
		}
	}()
	if h.trust(webAuthnAttestation(attestation)) {
		return 0
	}
	return 1
}

// callCallbacks are the callbacks of one administrative call (an import's
// report and progress, a rotation's or a check's progress). The first panic
// of one is kept and stops the call after its batch; the caller panics
// again with it once libmfa has returned.
type callCallbacks struct {
	report   func(ImportLine)
	progress func(done, total int64) bool
	panicked any
}

//export mfaGoImportReport
func mfaGoImportReport(context C.uintptr_t, line *C.mfa_import_line) {
	h := cgo.Handle(context).Value().(*callCallbacks)
	defer leaveCallback(enterCallback())
	if h.panicked != nil || h.report == nil {
		return
	}
	defer func() {
		if value := recover(); value != nil {
			h.panicked = value
		}
	}()
	h.report(importLine(line))
}

//export mfaGoProgress
func mfaGoProgress(context C.uintptr_t, done, total C.int64_t) (stop C.int) {
	h := cgo.Handle(context).Value().(*callCallbacks)
	defer leaveCallback(enterCallback())
	if h.panicked != nil {
		return 1
	}
	if h.progress == nil {
		return 0
	}
	defer func() {
		if value := recover(); value != nil {
			h.panicked = value
			stop = 1
		}
	}()
	if h.progress(int64(done), int64(total)) {
		return 0
	}
	return 1
}
