package mfa

// #include <mfa.h>
import "C"

import (
	"context"
	"fmt"
	"time"
)

// TOTPSecret is a fresh TOTP shared secret waiting for the user to prove
// they have it (Firebase's TOTPSecret). libmfa keeps it, encrypted, until
// the enrollment finishes or EnrollmentCompletionDeadline passes.
type TOTPSecret struct {
	// SharedSecretKey is the secret in unpadded RFC 4648 base32, for users
	// who type it in (Base32Decode gives the raw bytes).
	SharedSecretKey string
	// HashingAlgorithm is SHA1 (what every authenticator app supports).
	HashingAlgorithm Algorithm
	// CodeLength is the number of digits (6).
	CodeLength int
	// CodeIntervalSeconds is the time step (30).
	CodeIntervalSeconds int
	// EnrollmentCompletionDeadline is when the enrollment must be finished by.
	EnrollmentCompletionDeadline time.Time
	// SessionInfo is the opaque token naming this pending enrollment.
	SessionInfo string
}

// String describes the secret without its key and session info.
func (s *TOTPSecret) String() string {
	return fmt.Sprintf("mfa.TOTPSecret{%s, %d digits, %d s, deadline %s}", s.HashingAlgorithm, s.CodeLength,
		s.CodeIntervalSeconds, s.EnrollmentCompletionDeadline.UTC().Format(time.RFC3339))
}

// GenerateTOTPSecret generates a TOTP secret for the user of session
// (TOTPMultiFactorGenerator.generateSecret). Errors: INVALID_SESSION,
// USER_TOKEN_EXPIRED, OPERATION_NOT_ALLOWED (TOTP disabled),
// SECOND_FACTOR_LIMIT_EXCEEDED, INVALID_ARGUMENT, CRYPTO (Options.Random
// failed), STORAGE_ERROR.
func (c *Context) GenerateTOTPSecret(ctx context.Context, session Session) (*TOTPSecret, error) {
	var args cArgs
	defer args.free()
	s := args.secret(string(session), "session")
	var out *C.mfa_totp_secret
	err := c.call(ctx, &args, func(h *C.mfa_ctx, message **C.char) C.int32_t {
		return C.mfa_totp_generate_secret(h, &out, s, message)
	})
	defer C.mfa_totp_secret_free(out)
	if err != nil {
		return nil, err
	}
	return &TOTPSecret{
		SharedSecretKey:              goOptional(out.shared_secret_key),
		HashingAlgorithm:             Algorithm(out.algorithm),
		CodeLength:                   int(out.digits),
		CodeIntervalSeconds:          int(out.period),
		EnrollmentCompletionDeadline: time.Unix(int64(out.deadline), 0),
		SessionInfo:                  goOptional(out.session_info),
	}, nil
}

// GenerateQRCodeURL returns the otpauth://totp/ URI an authenticator app
// reads from a QR code, issuer ("" for none) and accountName
// percent-encoded. An empty or overlong account name is INVALID_ARGUMENT.
func (s *TOTPSecret) GenerateQRCodeURL(accountName, issuer string) (string, error) {
	var args cArgs
	defer args.free()
	var fields C.mfa_totp_secret
	fields.shared_secret_key = args.secret(s.SharedSecretKey, "shared secret key")
	fields.algorithm = C.int32_t(s.HashingAlgorithm)
	fields.digits = C.int32_t(s.CodeLength)
	fields.period = C.int64_t(s.CodeIntervalSeconds)
	fields.deadline = C.int64_t(s.EnrollmentCompletionDeadline.Unix())
	fields.session_info = args.secret(s.SessionInfo, "session info")
	account, iss := args.str(accountName, "account name"), args.optional(issuer, "issuer")
	if args.err != nil {
		return "", args.err
	}
	var out, message *C.char
	if err := check(C.mfa_totp_secret_uri(&out, &fields, account, iss, &message), message); err != nil {
		return "", err
	}
	defer C.mfa_free(unsafePointer(out))
	return C.GoString(out), nil
}

// QRCode returns the QR code of GenerateQRCodeURL in format. It holds the
// secret: treat it as one.
func (s *TOTPSecret) QRCode(accountName, issuer string, format QRFormat) ([]byte, error) {
	uri, err := s.GenerateQRCodeURL(accountName, issuer)
	if err != nil {
		return nil, err
	}
	return QRCode(uri, format)
}

// ImportTOTP stores a TOTP factor the user already has elsewhere (an app
// provisioned by another server), without a code: an administrative call,
// which the host authorises. Only user.UID and user.Tenant are read; the
// user's credentials are not revoked. secret is 10 to 128 raw bytes; params
// may be nil for SHA1, 6 digits, 30 s (T0 must be 0). Errors:
// INVALID_ARGUMENT, SECOND_FACTOR_LIMIT_EXCEEDED, STORAGE_ERROR.
func (c *Context) ImportTOTP(ctx context.Context, user User, secret []byte, params *TOTPParams,
	displayName string) (*FactorInfo, error) {
	var args cArgs
	defer args.free()
	u, err := user.cUser(&args)
	if err != nil {
		return nil, err
	}
	var p *C.mfa_totp_params
	if params != nil {
		fields, err := params.cParams()
		if err != nil {
			return nil, err
		}
		p = &fields
	}
	key, name := args.bytes(secret, true), args.optional(displayName, "display name")
	return c.factorCall(ctx, &args, func(h *C.mfa_ctx, out **C.mfa_factor_info, message **C.char) C.int32_t {
		return C.mfa_totp_import(h, out, &u, key, C.size_t(len(secret)), p, name, message)
	})
}

// ImportTOTPURI stores a TOTP factor from an otpauth://totp/ URI (see
// ImportTOTP). Errors: INVALID_URI, INVALID_ARGUMENT (an hotp URI, a secret
// length), SECOND_FACTOR_LIMIT_EXCEEDED, STORAGE_ERROR.
func (c *Context) ImportTOTPURI(ctx context.Context, user User, uri, displayName string) (*FactorInfo, error) {
	var args cArgs
	defer args.free()
	u, err := user.cUser(&args)
	if err != nil {
		return nil, err
	}
	text, name := args.secret(uri, "URI"), args.optional(displayName, "display name")
	return c.factorCall(ctx, &args, func(h *C.mfa_ctx, out **C.mfa_factor_info, message **C.char) C.int32_t {
		return C.mfa_totp_import_uri(h, out, &u, text, name, message)
	})
}
