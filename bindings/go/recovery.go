package mfa

// #include <mfa.h>
import "C"

import (
	"context"
	"fmt"
	"unsafe"
)

// RecoveryCodes is a freshly generated recovery-code set: show Codes to the
// user once (libmfa keeps only their hashes).
type RecoveryCodes struct {
	// Codes are the codes, "xxxx-xxxx-xx" (10 by default).
	Codes []string
	// Factor is the set as a factor (FactorID "recovery"; its Hint and
	// RemainingCodes say how many are left).
	Factor FactorInfo
}

// String describes the set without its codes.
func (r *RecoveryCodes) String() string {
	return fmt.Sprintf("mfa.RecoveryCodes{%d codes, factor %q}", len(r.Codes), r.Factor.UID)
}

// GenerateRecoveryCodes generates a new recovery-code set for the user of
// session, replacing the previous set. The set does not count toward the
// factor limit; like any enrollment, it revokes the user's earlier
// credentials and tokens. Errors: OPERATION_NOT_ALLOWED (recovery codes
// disabled), INVALID_SESSION, USER_TOKEN_EXPIRED, INVALID_ARGUMENT,
// CRYPTO, STORAGE_ERROR.
func (c *Context) GenerateRecoveryCodes(ctx context.Context, session Session, displayName string) (*RecoveryCodes, error) {
	var args cArgs
	defer args.free()
	s, name := args.secret(string(session), "session"), args.optional(displayName, "display name")
	var out *C.mfa_recovery_codes
	err := c.call(ctx, &args, func(h *C.mfa_ctx, message **C.char) C.int32_t {
		return C.mfa_recovery_codes_generate(h, &out, s, name, message)
	})
	defer C.mfa_recovery_codes_free(out)
	if err != nil {
		return nil, err
	}
	codes := make([]string, 0, int(out.count))
	for _, code := range unsafe.Slice(out.codes, int(out.count)) {
		codes = append(codes, C.GoString(code))
	}
	return &RecoveryCodes{Codes: codes, Factor: factorInfo(&out.factor)}, nil
}
