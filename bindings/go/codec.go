package mfa

// #include <mfa.h>
import "C"

import (
	"fmt"
	"unsafe"
)

// Base32Encode returns data as upper-case RFC 4648 base32 text, with the
// trailing '=' padding when padding is set (authenticator URIs leave it
// out). More than StringMaxBytes / 2 bytes is an INVALID_ARGUMENT.
func Base32Encode(data []byte, padding bool) (string, error) {
	var args cArgs
	defer args.free()
	flags := C.int32_t(0)
	if !padding {
		flags = C.MFA_BASE32_NO_PADDING
	}
	var out *C.char
	if err := check(C.mfa_base32_encode(&out, args.bytes(data, true), C.size_t(len(data)), flags), nil); err != nil {
		return "", err
	}
	defer C.mfa_free(unsafe.Pointer(out))
	return C.GoString(out), nil
}

// Base32Decode decodes RFC 4648 base32 text, in either case, with or without
// padding. A character outside the alphabet (spaces included), misplaced
// padding or an impossible length is an INVALID_BASE32 error.
func Base32Decode(text string) ([]byte, error) {
	var args cArgs
	defer args.free()
	raw := args.secret(text, "base32 text")
	if args.err != nil {
		return nil, args.err
	}
	var out *C.uint8_t
	var n C.size_t
	if err := check(C.mfa_base32_decode(&out, &n, raw), nil); err != nil {
		return nil, err
	}
	defer C.mfa_free(unsafe.Pointer(out))
	return goBytes(unsafe.Pointer(out), n), nil
}

// OTPType is the kind of one-time password a key URI provisions.
type OTPType int32

// The types of key URI.
const (
	OTPTypeTOTP OTPType = C.MFA_OTP_TOTP
	OTPTypeHOTP OTPType = C.MFA_OTP_HOTP
)

// String returns "totp" or "hotp".
func (t OTPType) String() string {
	switch t {
	case OTPTypeTOTP:
		return "totp"
	case OTPTypeHOTP:
		return "hotp"
	}
	return fmt.Sprintf("OTPType(%d)", int32(t))
}

// KeyURI holds the fields of an otpauth:// key URI (the Google Authenticator
// key URI format). Zero Type, Algorithm, Digits and Period take the defaults
// (TOTP, SHA1, 6, 30 s).
type KeyURI struct {
	// Type is OTPTypeTOTP or OTPTypeHOTP.
	Type OTPType
	// Issuer is the service's name, or "".
	Issuer string
	// Account is the account name, usually an email address (not empty).
	Account string
	// Secret is the raw shared secret.
	Secret []byte
	// Algorithm is SHA1, SHA256 or SHA512.
	Algorithm Algorithm
	// Digits is the code length, 6 to 8.
	Digits int
	// Period is the TOTP time step in seconds (ignored for HOTP).
	Period int
	// Counter is the HOTP initial counter (ignored for TOTP).
	Counter uint64
}

// Build returns the URI, issuer and account percent-encoded and the secret
// in unpadded base32. An empty account, a secret of a length outside 1 to
// KeyMaxBytes, digits or a period out of range are INVALID_ARGUMENT errors.
func (k KeyURI) Build() (string, error) {
	var u C.mfa_key_uri
	if err := check(C.mfa_key_uri_init(&u, C.MFA_KEY_URI_VERSION), nil); err != nil {
		return "", err
	}
	var args cArgs
	defer args.free()
	if k.Type != 0 {
		u._type = C.int32_t(k.Type)
	}
	u.issuer = args.optional(k.Issuer, "issuer")
	u.account = args.str(k.Account, "account")
	u.secret = args.bytes(k.Secret, true)
	u.secret_len = C.size_t(len(k.Secret))
	if k.Algorithm != 0 {
		u.algorithm = C.int32_t(k.Algorithm)
	}
	if k.Digits != 0 {
		u.digits = C.int32_t(k.Digits)
	}
	if k.Period != 0 {
		u.period = C.int64_t(k.Period)
	}
	u.counter = C.uint64_t(k.Counter)
	if args.err != nil {
		return "", args.err
	}
	var out, message *C.char
	if err := check(C.mfa_key_uri_build(&out, &u, &message), message); err != nil {
		return "", err
	}
	defer C.mfa_free(unsafe.Pointer(out))
	return C.GoString(out), nil
}

// String returns the URI without its secret, for logs.
func (k KeyURI) String() string {
	return fmt.Sprintf("KeyURI{%s issuer=%q account=%q %s/%d/%ds counter=%d}", k.Type, k.Issuer, k.Account,
		k.Algorithm, k.Digits, k.Period, k.Counter)
}

// TOTP returns the TOTP of a totp URI's secret and parameters.
func (k KeyURI) TOTP() (*TOTP, error) {
	if k.Type == OTPTypeHOTP {
		return nil, invalid("an hotp key URI has no TOTP")
	}
	return NewTOTP(k.Secret, TOTPParams{Algorithm: k.Algorithm, Digits: k.Digits, Period: k.Period})
}

// HOTP returns the HOTP of an hotp URI's secret and parameters (its Counter
// is the counter to verify from).
func (k KeyURI) HOTP() (*HOTP, error) {
	if k.Type != OTPTypeHOTP {
		return nil, invalid("a totp key URI has no HOTP")
	}
	return NewHOTP(k.Secret, k.Digits, k.Algorithm)
}

// ParseURI parses an otpauth:// key URI. Text that is not a key URI is an
// INVALID_URI error whose message says why (it never holds the secret).
func ParseURI(text string) (*KeyURI, error) {
	var args cArgs
	defer args.free()
	raw := args.secret(text, "URI")
	if args.err != nil {
		return nil, args.err
	}
	var out *C.mfa_key_uri
	var message *C.char
	if err := check(C.mfa_key_uri_parse(&out, raw, &message), message); err != nil {
		return nil, err
	}
	defer C.mfa_key_uri_free(out)
	return &KeyURI{
		Type:      OTPType(out._type),
		Issuer:    goOptional(out.issuer),
		Account:   goOptional(out.account),
		Secret:    goBytes(unsafe.Pointer(out.secret), out.secret_len),
		Algorithm: Algorithm(out.algorithm),
		Digits:    int(out.digits),
		Period:    int(out.period),
		Counter:   uint64(out.counter),
	}, nil
}

// QRFormat is the image format of a QR code.
type QRFormat int32

// The formats of QRCode.
const (
	// QRPNG is a PNG image (scale 8, quiet zone 4).
	QRPNG QRFormat = C.MFA_QR_PNG
	// QRSVG is an SVG document (UTF-8 text).
	QRSVG QRFormat = C.MFA_QR_SVG
	// QRText is UTF-8 half blocks for a terminal, dark on light.
	QRText QRFormat = C.MFA_QR_TEXT
)

// QRCode renders text (usually an otpauth:// URI) as a QR code in format.
// The image holds what text holds: for a key URI it is the secret, so treat
// it as one. Empty or too long text and an unknown format are
// INVALID_ARGUMENT errors.
func QRCode(text string, format QRFormat) ([]byte, error) {
	var args cArgs
	defer args.free()
	raw := args.secret(text, "text")
	if args.err != nil {
		return nil, args.err
	}
	var out *C.uint8_t
	var n C.size_t
	if err := check(C.mfa_qr_encode(&out, &n, raw, C.int32_t(format)), nil); err != nil {
		return nil, err
	}
	defer C.mfa_free(unsafe.Pointer(out))
	data := goBytes(unsafe.Pointer(out), n)
	if format == QRText && len(data) > 0 && data[len(data)-1] == 0 {
		data = data[:len(data)-1]
	}
	return data, nil
}
