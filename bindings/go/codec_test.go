package mfa_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"libmfa/mfa"
)

// RFC 4648 section 10.
func TestBase32Vectors(t *testing.T) {
	vectors := map[string]string{"": "", "f": "MY======", "fo": "MZXQ====", "foo": "MZXW6===",
		"foob": "MZXW6YQ=", "fooba": "MZXW6YTB", "foobar": "MZXW6YTBOI======"}
	for plain, encoded := range vectors {
		got, err := mfa.Base32Encode([]byte(plain), true)
		if err != nil || got != encoded {
			t.Errorf("encode %q: %q, %v", plain, got, err)
		}
		bare, _ := mfa.Base32Encode([]byte(plain), false)
		if bare != strings.TrimRight(encoded, "=") {
			t.Errorf("encode %q without padding: %q", plain, bare)
		}
		for _, text := range []string{encoded, strings.ToLower(encoded), bare} {
			back, err := mfa.Base32Decode(text)
			if err != nil || string(back) != plain {
				t.Errorf("decode %q: %q, %v", text, back, err)
			}
		}
	}
	for _, bad := range []string{"MZXW 6===", "MZXW6=YQ", "M1======", "MZX"} {
		_, err := mfa.Base32Decode(bad)
		wantErr(t, err, mfa.ErrInvalidBase32)
	}
	_, err := mfa.Base32Decode("MZ\x00XW")
	wantErr(t, err, mfa.ErrInvalidArgument)
	_, err = mfa.Base32Encode(make([]byte, mfa.StringMaxBytes/2+1), true)
	wantErr(t, err, mfa.ErrInvalidArgument)
}

func TestKeyURI(t *testing.T) {
	secret := []byte("12345678901234567890")
	uri, err := mfa.KeyURI{Issuer: "ACME Co: Ops", Account: "alice@example.com", Secret: secret}.Build()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(uri, "otpauth://totp/ACME%20Co%3A%20Ops:alice%40example.com?") ||
		!strings.Contains(uri, "secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ") {
		t.Fatalf("uri: %s", uri)
	}
	parsed, err := mfa.ParseURI(uri)
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Type != mfa.OTPTypeTOTP || parsed.Issuer != "ACME Co: Ops" || parsed.Account != "alice@example.com" ||
		!bytes.Equal(parsed.Secret, secret) || parsed.Algorithm != mfa.SHA1 || parsed.Digits != 6 || parsed.Period != 30 {
		t.Fatalf("parsed: %v", parsed)
	}
	if strings.Contains(parsed.String(), "GEZDG") || strings.Contains(parsed.String(), string(secret)) {
		t.Fatal("KeyURI.String shows the secret")
	}
	totp, err := parsed.TOTP()
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := totp.At(time.Unix(59, 0)); code != "287082" {
		t.Fatalf("the URI's TOTP: %s", code)
	}
	again, err := totp.ProvisioningURI("alice@example.com", "ACME Co: Ops")
	if err != nil || again != uri {
		t.Fatalf("provisioning URI: %s, %v", again, err)
	}

	hotp, err := mfa.KeyURI{Type: mfa.OTPTypeHOTP, Account: "bob", Secret: secret, Algorithm: mfa.SHA256,
		Digits: 8, Counter: 42}.Build()
	if err != nil {
		t.Fatal(err)
	}
	back, err := mfa.ParseURI(hotp)
	if err != nil || back.Type != mfa.OTPTypeHOTP || back.Counter != 42 || back.Digits != 8 ||
		back.Algorithm != mfa.SHA256 || back.Issuer != "" {
		t.Fatalf("hotp: %v, %v", back, err)
	}
	if _, err := back.HOTP(); err != nil {
		t.Fatal(err)
	}
	_, err = back.TOTP()
	wantErr(t, err, mfa.ErrInvalidArgument)

	for _, bad := range []mfa.KeyURI{{Account: "", Secret: secret}, {Account: "a", Secret: nil},
		{Account: "a", Secret: secret, Digits: 9}, {Account: "a\x00b", Secret: secret}} {
		_, err := bad.Build()
		wantErr(t, err, mfa.ErrInvalidArgument)
	}
	for _, bad := range []string{"https://example.com", "otpauth://totp/a?secret=!!!", "otpauth://totp/a"} {
		_, err := mfa.ParseURI(bad)
		wantErr(t, err, mfa.ErrInvalidURI)
	}
	late, _ := mfa.NewTOTP(secret, mfa.TOTPParams{T0: 5})
	_, err = late.ProvisioningURI("a", "")
	wantErr(t, err, mfa.ErrInvalidArgument)
}

func TestQRCode(t *testing.T) {
	uri := "otpauth://totp/ACME:alice?secret=GEZDGNBVGY3TQOJQ&issuer=ACME"
	png, err := mfa.QRCode(uri, mfa.QRPNG)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("png: %d bytes, %v", len(png), err)
	}
	svg, err := mfa.QRCode(uri, mfa.QRSVG)
	if err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Fatalf("svg: %v", err)
	}
	text, err := mfa.QRCode(uri, mfa.QRText)
	if err != nil || !strings.Contains(string(text), "█") || bytes.IndexByte(text, 0) >= 0 {
		t.Fatalf("text: %v", err)
	}
	_, err = mfa.QRCode("", mfa.QRPNG)
	wantErr(t, err, mfa.ErrInvalidArgument)
	_, err = mfa.QRCode(uri, 9)
	wantErr(t, err, mfa.ErrInvalidArgument)
}

func TestVersion(t *testing.T) {
	if mfa.Version() < 200 || mfa.Version()/100 != mfa.HeaderVersion/100 || !strings.Contains(mfa.VersionString(), ".") {
		t.Fatalf("version %d (%s), header %d", mfa.Version(), mfa.VersionString(), mfa.HeaderVersion)
	}
}
