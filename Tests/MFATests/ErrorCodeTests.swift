import CMFATypes
import MFA
import Testing

@Suite("Error codes")
struct ErrorCodeTests {
    @Test("Swift codes equal the C status codes of mfa_types.h")
    func matchesHeader() {
        let header: [(MFAErrorCode, mfa_status)] = [
            (.invalidArgument, MFA_ERR_INVALID_ARGUMENT), (.operationNotAllowed, MFA_ERR_OPERATION_NOT_ALLOWED),
            (.unverifiedEmail, MFA_ERR_UNVERIFIED_EMAIL), (.unsupportedFirstFactor, MFA_ERR_UNSUPPORTED_FIRST_FACTOR),
            (.requiresRecentLogin, MFA_ERR_REQUIRES_RECENT_LOGIN), (.invalidPhoneNumber, MFA_ERR_INVALID_PHONE_NUMBER),
            (.secondFactorExists, MFA_ERR_SECOND_FACTOR_EXISTS),
            (.secondFactorLimitExceeded, MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED),
            (.missingAppCredential, MFA_ERR_MISSING_APP_CREDENTIAL),
            (.invalidAppCredential, MFA_ERR_INVALID_APP_CREDENTIAL),
            (.invalidVerificationCode, MFA_ERR_INVALID_VERIFICATION_CODE), (.codeExpired, MFA_ERR_CODE_EXPIRED),
            (.invalidSession, MFA_ERR_INVALID_SESSION), (.mfaEnrollmentNotFound, MFA_ERR_MFA_ENROLLMENT_NOT_FOUND),
            (.secondFactorRequired, MFA_ERR_SECOND_FACTOR_REQUIRED), (.enrollmentRequired, MFA_ERR_ENROLLMENT_REQUIRED),
            (.tooManyAttemptsTryLater, MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER), (.quotaExceeded, MFA_ERR_QUOTA_EXCEEDED),
            (.userTokenExpired, MFA_ERR_USER_TOKEN_EXPIRED), (.tenantMismatch, MFA_ERR_TENANT_MISMATCH),
            (.storageError, MFA_ERR_STORAGE_ERROR), (.invalidBase32, MFA_ERR_INVALID_BASE32),
            (.invalidURI, MFA_ERR_INVALID_URI), (.bufferTooSmall, MFA_ERR_BUFFER_TOO_SMALL),
            (.outOfMemory, MFA_ERR_OUT_OF_MEMORY), (.crypto, MFA_ERR_CRYPTO), (.internal, MFA_ERR_INTERNAL),
            (.smsSendFailed, MFA_ERR_SMS_SEND_FAILED), (.originMismatch, MFA_ERR_ORIGIN_MISMATCH),
            (.rpIDMismatch, MFA_ERR_RP_ID_MISMATCH), (.credentialCloned, MFA_ERR_CREDENTIAL_CLONED),
            (.attestationNotTrusted, MFA_ERR_ATTESTATION_NOT_TRUSTED),
            (.userVerificationRequired, MFA_ERR_USER_VERIFICATION_REQUIRED),
            (.keyMismatch, MFA_ERR_KEY_MISMATCH),
            (.invalidEmail, MFA_ERR_INVALID_EMAIL), (.emailSendFailed, MFA_ERR_EMAIL_SEND_FAILED),
            (.deviceNotFound, MFA_ERR_DEVICE_NOT_FOUND),
            (.tokenNotFound, MFA_ERR_TOKEN_NOT_FOUND), (.invalidPSKC, MFA_ERR_INVALID_PSKC),
            (.pskcKeyMismatch, MFA_ERR_PSKC_KEY_MISMATCH),
            (.keyProviderUnavailable, MFA_ERR_KEY_PROVIDER_UNAVAILABLE),
            (.keyProviderLogin, MFA_ERR_KEY_PROVIDER_LOGIN),
            (.keyProviderKeyNotFound, MFA_ERR_KEY_PROVIDER_KEY_NOT_FOUND),
        ]
        #expect(header.count == MFAErrorCode.allCases.count)
        for (code, status) in header {
            #expect(code.rawValue == status.rawValue, "\(code.name)")
        }
        #expect(Set(MFAErrorCode.allCases.map(\.name)).count == MFAErrorCode.allCases.count)
    }

    @Test("the Swift module's version is the C library's")
    func version() {
        #expect(MFAVersion.string == MFA_VERSION_STRING)
    }

    @Test("algorithm constants agree")
    func algorithms() {
        #expect(OTPAlgorithm.sha1.rawValue == MFA_ALG_SHA1)
        #expect(OTPAlgorithm.sha256.rawValue == MFA_ALG_SHA256)
        #expect(OTPAlgorithm.sha512.rawValue == MFA_ALG_SHA512)
        #expect(KeyURI.Kind.totp.rawValue == MFA_OTP_TOTP && KeyURI.Kind.hotp.rawValue == MFA_OTP_HOTP)
    }
}
