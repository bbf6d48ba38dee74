package mfa

// The compiler and linker flags come from pkg-config's mfa.pc (libmfa's CMake
// install writes it; bindings/go/pkgconfig has one for a checkout that is not
// installed).

/*
#cgo pkg-config: mfa
#include <stdlib.h>
#include <string.h>
#include <mfa.h>

// mfa_go_wipe clears n bytes at p in a way the compiler keeps.
static void mfa_go_wipe(void *p, size_t n) {
	volatile unsigned char *q = (volatile unsigned char *)p;
	while (n--) *q++ = 0;
}
*/
import "C"

import (
	"strings"
	"unsafe"
)

// cArgs holds the C copies of the strings and bytes of one call, freed (and,
// for secrets, wiped) by free. The first argument it refuses is kept in err,
// so that a call builds every argument and checks once.
type cArgs struct {
	pointers []unsafe.Pointer
	wipe     []C.size_t
	err      error
}

// str returns a C copy of s (NULL-terminated); a NUL byte inside is an
// INVALID_ARGUMENT naming what.
func (a *cArgs) str(s, what string) *C.char {
	return (*C.char)(a.copy(s, what, false))
}

// optional returns NULL for "" and a C copy of s otherwise.
func (a *cArgs) optional(s, what string) *C.char {
	if s == "" {
		return nil
	}
	return a.str(s, what)
}

// secret is str for codes and secrets: the copy is wiped when freed.
func (a *cArgs) secret(s, what string) *C.char {
	return (*C.char)(a.copy(s, what, true))
}

func (a *cArgs) copy(s, what string, wipe bool) unsafe.Pointer {
	if strings.IndexByte(s, 0) >= 0 {
		if a.err == nil {
			a.err = invalid(what + " contains a NUL byte")
		}
		return nil
	}
	p := C.CString(s)
	a.keep(unsafe.Pointer(p), len(s)+1, wipe)
	return unsafe.Pointer(p)
}

// bytes returns a C copy of b (never NULL, even when b is empty); wiped when
// freed if wipe is set.
func (a *cArgs) bytes(b []byte, wipe bool) *C.uint8_t {
	n := len(b)
	if n == 0 {
		n = 1
	}
	p := C.malloc(C.size_t(n))
	if p == nil {
		panic("libmfa: out of memory")
	}
	if len(b) > 0 {
		C.memcpy(p, unsafe.Pointer(&b[0]), C.size_t(len(b)))
	}
	a.keep(p, n, wipe)
	return (*C.uint8_t)(p)
}

func (a *cArgs) keep(p unsafe.Pointer, n int, wipe bool) {
	a.pointers = append(a.pointers, p)
	size := C.size_t(0)
	if wipe {
		size = C.size_t(n)
	}
	a.wipe = append(a.wipe, size)
}

// free wipes the secrets and frees every copy.
func (a *cArgs) free() {
	for i, p := range a.pointers {
		if a.wipe[i] > 0 {
			C.mfa_go_wipe(p, a.wipe[i])
		}
		C.free(p)
	}
	a.pointers, a.wipe = nil, nil
}

// goBytes copies n bytes at p (NULL or 0 give an empty slice).
func goBytes(p unsafe.Pointer, n C.size_t) []byte {
	if p == nil || n == 0 {
		return []byte{}
	}
	out := make([]byte, int(n))
	copy(out, unsafe.Slice((*byte)(p), int(n)))
	return out
}

// goOptional copies a C string that may be NULL ("" for NULL).
func goOptional(s *C.char) string {
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

// unsafePointer converts a C pointer for C.mfa_free and friends.
func unsafePointer[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }
