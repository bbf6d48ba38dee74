package mfa_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"testing"

	"libmfa/mfa"
)

// authenticator is a software WebAuthn authenticator with one Ed25519
// credential, answering for rp id example.com on https://example.com.
type authenticator struct {
	id      []byte
	public  ed25519.PublicKey
	private ed25519.PrivateKey
	count   uint32
}

func newAuthenticator(t *testing.T) *authenticator {
	public, private, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 16)
	rand.Read(id)
	return &authenticator{id: id, public: public, private: private}
}

var b64 = base64.RawURLEncoding

// authData is the authenticator data for example.com (UP and UV), with the
// attested credential when attested.
func (a *authenticator) authData(attested bool) []byte {
	rp := sha256.Sum256([]byte("example.com"))
	out := append([]byte{}, rp[:]...)
	flags := byte(0x05)
	if attested {
		flags = 0x45
	}
	out = append(out, flags, 0, 0, 0, 0)
	binary.BigEndian.PutUint32(out[33:], a.count)
	if attested {
		out = append(out, make([]byte, 16)...) // AAGUID
		out = append(out, 0, byte(len(a.id)))
		out = append(out, a.id...)
		// COSE_Key {1: 1 (OKP), 3: -8 (EdDSA), -1: 6 (Ed25519), -2: x}
		out = append(out, 0xa4, 0x01, 0x01, 0x03, 0x27, 0x20, 0x06, 0x21, 0x58, 0x20)
		out = append(out, a.public...)
	}
	return out
}

func challengeOf(t *testing.T, options []byte) string {
	var parsed struct {
		Challenge string `json:"challenge"`
	}
	if err := json.Unmarshal(options, &parsed); err != nil || parsed.Challenge == "" {
		t.Fatalf("options without a challenge: %s %v", options, err)
	}
	return parsed.Challenge
}

// register answers a registration challenge with a "none" attestation.
func (a *authenticator) register(challenge string) string {
	client := fmt.Sprintf(`{"type":"webauthn.create","challenge":"%s","origin":"https://example.com"}`, challenge)
	data := a.authData(true)
	// {"fmt": "none", "attStmt": {}, "authData": bytes}
	object := []byte{0xa3, 0x63, 'f', 'm', 't', 0x64, 'n', 'o', 'n', 'e', 0x67, 'a', 't', 't', 'S', 't', 'm', 't', 0xa0,
		0x68, 'a', 'u', 't', 'h', 'D', 'a', 't', 'a', 0x58, byte(len(data))}
	object = append(object, data...)
	id := b64.EncodeToString(a.id)
	return fmt.Sprintf(`{"id":"%s","rawId":"%s","type":"public-key","response":{"clientDataJSON":"%s",`+
		`"attestationObject":"%s","transports":["usb"]}}`, id, id, b64.EncodeToString([]byte(client)),
		b64.EncodeToString(object))
}

// assert answers an authentication challenge; corrupt spoils the signature.
func (a *authenticator) assert(challenge string, corrupt bool) string {
	client := fmt.Sprintf(`{"type":"webauthn.get","challenge":"%s","origin":"https://example.com"}`, challenge)
	a.count++
	data := a.authData(false)
	hash := sha256.Sum256([]byte(client))
	signature := ed25519.Sign(a.private, append(append([]byte{}, data...), hash[:]...))
	if corrupt {
		signature[7] ^= 0x40
	}
	id := b64.EncodeToString(a.id)
	return fmt.Sprintf(`{"id":"%s","rawId":"%s","type":"public-key","response":{"clientDataJSON":"%s",`+
		`"authenticatorData":"%s","signature":"%s","userHandle":null}}`, id, id, b64.EncodeToString([]byte(client)),
		b64.EncodeToString(data), b64.EncodeToString(signature))
}

const webAuthnOn = `{"state":"ENABLED","providers":{"totp":"ENABLED","webauthn":"ENABLED"},"webauthn":{"rpId":"example.com"}}`

func TestWebAuthnFlow(t *testing.T) {
	var seen []mfa.WebAuthnAttestation
	trusted := true
	k := newKit(t, memoryStore(t), func(o *mfa.Options) {
		o.WebAuthnTrust = func(a mfa.WebAuthnAttestation) bool { seen = append(seen, a); return trusted }
	})
	if err := k.c.SetConfig(bg, "", webAuthnOn); err != nil {
		t.Fatal(err)
	}
	user := k.user("wa-user")
	mf := k.c.MultiFactor(user)
	key := newAuthenticator(t)

	// The trust callback refuses: ATTESTATION_NOT_TRUSTED.
	session, _ := mf.Session(bg)
	options, err := k.c.WebAuthnRegistrationOptions(bg, session, "wa-user@example.com", "")
	if err != nil {
		t.Fatal(err)
	}
	trusted = false
	_, err = mf.Enroll(bg, mfa.WebAuthnEnrollmentAssertion(key.register(challengeOf(t, options))), "")
	wantErr(t, err, mfa.ErrAttestationNotTrusted)
	trusted = true
	session, _ = mf.Session(bg)
	options, _ = k.c.WebAuthnRegistrationOptions(bg, session, "wa-user@example.com", "Wa User")
	info, err := mf.Enroll(bg, mfa.WebAuthnEnrollmentAssertion(key.register(challengeOf(t, options))), "My key")
	if err != nil {
		t.Fatal(err)
	}
	if info.Kind != mfa.FactorWebAuthn || info.FactorID != "webauthn" || len(seen) != 2 || seen[1].Format != "none" ||
		seen[1].UID != "wa-user" || len(seen[1].AAGUID) != 16 || len(seen[1].Certificates) != 0 {
		t.Fatalf("enrolled %+v after %+v", info, seen)
	}

	k.advance(1)
	resolver := k.resolver(user)
	request, err := resolver.WebAuthnAuthenticationOptions(bg, info.UID)
	if err != nil {
		t.Fatal(err)
	}
	_, err = resolver.ResolveSignIn(bg, mfa.WebAuthnSignInAssertion(key.assert(challengeOf(t, request), true), ""))
	wantErr(t, err, mfa.ErrInvalidVerificationCode)
	result, err := resolver.ResolveSignIn(bg, mfa.WebAuthnSignInAssertion(key.assert(challengeOf(t, request), false), info.UID))
	if err != nil || result.Kind != mfa.FactorWebAuthn || result.EnrollmentID != info.UID {
		t.Fatalf("sign-in: %+v, %v", result, err)
	}
	_, err = k.resolver(user).WebAuthnAuthenticationOptions(bg, "no-such-factor-0000000000000")
	wantErr(t, err, mfa.ErrMFAEnrollmentNotFound)
	_, err = k.c.WebAuthnRegistrationOptions(bg, "forged", "x", "")
	wantErr(t, err, mfa.ErrInvalidSession)
}

// The stateless checks, against the host's own challenge.
func TestWebAuthnStateless(t *testing.T) {
	key := newAuthenticator(t)
	challenge := b64.EncodeToString([]byte("the host's own challenge, 32 by"))
	credential, err := mfa.VerifyWebAuthnRegistration(key.register(challenge), challenge, "example.com",
		"https://example.com", false)
	if err != nil {
		t.Fatal(err)
	}
	if string(credential.CredentialID) != string(key.id) || credential.Algorithm != -8 || credential.Format != "none" ||
		credential.Flags&mfa.WebAuthnFlagUP == 0 || len(credential.Certificates) != 0 {
		t.Fatalf("credential: %+v", credential)
	}
	count, flags, err := mfa.VerifyWebAuthnAssertion(key.assert(challenge, false), challenge, "example.com",
		"https://example.com", true, credential.PublicKey)
	if err != nil || count != 1 || flags&mfa.WebAuthnFlagUV == 0 {
		t.Fatalf("assertion: %d %d %v", count, flags, err)
	}
	_, _, err = mfa.VerifyWebAuthnAssertion(key.assert(challenge, true), challenge, "example.com",
		"https://example.com", false, credential.PublicKey)
	wantErr(t, err, mfa.ErrInvalidVerificationCode)
	_, err = mfa.VerifyWebAuthnRegistration(key.register(challenge), challenge, "example.com", "https://evil.example",
		false)
	wantErr(t, err, mfa.ErrOriginMismatch)
	_, err = mfa.VerifyWebAuthnRegistration(key.register(challenge), b64.EncodeToString([]byte("another")),
		"example.com", "https://example.com", false)
	wantErr(t, err, mfa.ErrInvalidSession)
	_, err = mfa.VerifyWebAuthnRegistration("{}", challenge, "example.com", "https://example.com", false)
	wantErr(t, err, mfa.ErrInvalidArgument)
	_, _, err = mfa.VerifyWebAuthnAssertion(key.assert(challenge, false), challenge, "example.com",
		"https://example.com", false, []byte{1, 2, 3})
	wantErr(t, err, mfa.ErrInvalidArgument)
}
