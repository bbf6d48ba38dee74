package mfa_test

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"libmfa/mfa"
)

// Every factor kind and audit kind of the checkout's mfa_types.h has its
// constant here, with the header's number: a kind libmfa adds fails this
// until the package names it.
func TestKindsOfTheHeaderAreNamed(t *testing.T) {
	header, err := os.ReadFile("../../include/mfa_types.h")
	if err != nil {
		t.Fatalf("the checkout's header: %v", err)
	}
	factors := map[string]mfa.FactorKind{
		"TOTP": mfa.FactorTOTP, "PHONE": mfa.FactorPhone, "RECOVERY_CODES": mfa.FactorRecoveryCodes,
		"WEBAUTHN": mfa.FactorWebAuthn, "EMAIL": mfa.FactorEmail, "HOTP": mfa.FactorHOTP,
		"YUBICO_OTP": mfa.FactorYubicoOTP,
	}
	audits := map[string]mfa.AuditKind{
		"ENROLL": mfa.AuditEnroll, "UNENROLL": mfa.AuditUnenroll, "SIGN_IN_SUCCESS": mfa.AuditSignInSuccess,
		"SIGN_IN_FAILURE": mfa.AuditSignInFailure, "BACKOFF": mfa.AuditBackoff,
		"CONFIG_CHANGE": mfa.AuditConfigChange, "SMS_SENT": mfa.AuditSMSSent,
		"INTEGRITY_FAILURE": mfa.AuditIntegrityFailure, "TOKENS_REVOKED": mfa.AuditTokensRevoked,
		"FACTOR_RENAMED": mfa.AuditFactorRenamed, "USER_RESET": mfa.AuditUserReset,
		"USER_DELETED": mfa.AuditUserDeleted, "KEYS_ROTATED": mfa.AuditKeysRotated,
		"DEVICE_REMEMBERED": mfa.AuditDeviceRemembered, "DEVICE_REFUSED": mfa.AuditDeviceRefused,
		"DEVICE_REVOKED": mfa.AuditDeviceRevoked, "EMAIL_SENT": mfa.AuditEmailSent,
		"TOKEN_IMPORTED": mfa.AuditTokenImported, "TOKEN_ASSIGNED": mfa.AuditTokenAssigned,
		"TOKEN_RESYNCED": mfa.AuditTokenResynced, "TOKEN_REMOVED": mfa.AuditTokenRemoved,
		"PASSKEY_SIGN_IN_SUCCESS": mfa.AuditPasskeySignInSuccess,
		"PASSKEY_SIGN_IN_FAILURE": mfa.AuditPasskeySignInFailure,
	}
	seen := 0
	for _, m := range regexp.MustCompile(`(?m)^#define MFA_(FACTOR|AUDIT)_([A-Z0-9_]+) (\d+)$`).FindAllSubmatch(header, -1) {
		value, _ := strconv.Atoi(string(m[3]))
		name := string(m[2])
		seen++
		if string(m[1]) == "FACTOR" {
			kind, ok := factors[name]
			if !ok || int(kind) != value {
				t.Errorf("MFA_FACTOR_%s (%d): not named, or another number", name, value)
			} else if kind.String() == "" || kind.String()[0] == 'F' {
				t.Errorf("MFA_FACTOR_%s: no factor id (%q)", name, kind.String())
			}
			continue
		}
		if kind, ok := audits[name]; !ok || int(kind) != value {
			t.Errorf("MFA_AUDIT_%s (%d): not named, or another number", name, value)
		}
	}
	if seen != len(factors)+len(audits) {
		t.Errorf("the header has %d factor and audit kinds; the package names %d", seen, len(factors)+len(audits))
	}
}
