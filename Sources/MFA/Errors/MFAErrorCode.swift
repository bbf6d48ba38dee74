/// The stable name of every failure libmfa reports.
///
/// The raw values are the C status codes of `include/mfa_types.h`
/// (`MFA_ERR_*`); they never change meaning.
public enum MFAErrorCode: Int32, Sendable, CaseIterable {
    /// A missing value, a length or number out of range, invalid UTF-8, an overlong string.
    case invalidArgument = -1
    /// MFA, or the factor asked for, is disabled in the configuration.
    case operationNotAllowed = -2
    /// The user's email address is not verified.
    case unverifiedEmail = -3
    /// The first factor cannot carry a second factor.
    case unsupportedFirstFactor = -4
    /// The user must have authenticated recently.
    case requiresRecentLogin = -5
    /// The phone number is not strict E.164.
    case invalidPhoneNumber = -6
    /// The user already has this second factor.
    case secondFactorExists = -7
    /// The user has the maximum number of second factors.
    case secondFactorLimitExceeded = -8
    /// App verification needs a credential and none was given.
    case missingAppCredential = -9
    /// The app verifier rejected the credential.
    case invalidAppCredential = -10
    /// The one-time code is wrong or malformed.
    case invalidVerificationCode = -11
    /// The code, or the secret being enrolled, has expired.
    case codeExpired = -12
    /// A session, pending credential or verification id is missing, tampered, expired or used.
    case invalidSession = -13
    /// No enrolled factor has this id.
    case mfaEnrollmentNotFound = -14
    /// The first factor passed and a second factor is required.
    case secondFactorRequired = -15
    /// MFA is mandatory and the user has no factor.
    case enrollmentRequired = -16
    /// Too many failed attempts; the backoff has not expired.
    case tooManyAttemptsTryLater = -17
    /// A sending quota is used up.
    case quotaExceeded = -18
    /// The credential was issued before the user's tokens were revoked.
    case userTokenExpired = -19
    /// The token belongs to another tenant.
    case tenantMismatch = -20
    /// The store failed; nothing was half-written.
    case storageError = -21
    /// Text outside the RFC 4648 base32 alphabet, or a malformed length or padding.
    case invalidBase32 = -22
    /// Not a valid otpauth:// key URI.
    case invalidURI = -23
    /// The caller's output buffer is too small.
    case bufferTooSmall = -24
    /// An allocation failed.
    case outOfMemory = -25
    /// A cryptographic primitive failed.
    case crypto = -26
    /// A bug in libmfa.
    case `internal` = -27
    /// The SMS sender failed (or none is configured); no attempt was used.
    case smsSendFailed = -28
    /// A WebAuthn response was made on a page of an origin the configuration does not allow.
    case originMismatch = -29
    /// A WebAuthn authenticator scoped its response to another relying party id.
    case rpIDMismatch = -30
    /// A WebAuthn signature counter did not increase: the authenticator may have been cloned.
    case credentialCloned = -31
    /// A WebAuthn attestation is not trusted by the configured roots or the host's trust callback.
    case attestationNotTrusted = -32
    /// The configuration requires WebAuthn user verification (PIN, biometrics) and the authenticator did not do it.
    case userVerificationRequired = -33
    /// The store knows a master key by this id (its key check value) and the key given under that id is another one.
    case keyMismatch = -34
    /// The email address is not one libmfa accepts (`local@domain`, ASCII, at most 254 bytes).
    case invalidEmail = -35
    /// The email sender failed (or none is configured); no attempt was used.
    case emailSendFailed = -36
    /// No remembered device of this user has this id.
    case deviceNotFound = -37
    /// No unassigned hardware token of the tenant has this serial (or public id).
    case tokenNotFound = -38
    /// A PSKC file libmfa does not read: not a PSKC 1.0 key container, or
    /// one that holds a DTD, an entity or an external reference (refused unread).
    case invalidPSKC = -39
    /// A PSKC file's values are encrypted and no key or password was given, or the one given does not open them.
    case pskcKeyMismatch = -40
    /// The key provider (an HSM's PKCS#11 module, or the host's callbacks) cannot be reached or used:
    /// the module does not load, the token is not found, or the provider failed.
    case keyProviderUnavailable = -45
    /// The key provider refused the PIN (wrong, locked or missing).
    case keyProviderLogin = -46
    /// The key provider holds no key under the label the store's data keys are wrapped with (it was deleted).
    case keyProviderKeyNotFound = -47

    /// The stable upper-case name, as in the service: `"INVALID_SESSION"`.
    public var name: String {
        switch self {
        case .invalidArgument: "INVALID_ARGUMENT"
        case .operationNotAllowed: "OPERATION_NOT_ALLOWED"
        case .unverifiedEmail: "UNVERIFIED_EMAIL"
        case .unsupportedFirstFactor: "UNSUPPORTED_FIRST_FACTOR"
        case .requiresRecentLogin: "REQUIRES_RECENT_LOGIN"
        case .invalidPhoneNumber: "INVALID_PHONE_NUMBER"
        case .secondFactorExists: "SECOND_FACTOR_EXISTS"
        case .secondFactorLimitExceeded: "SECOND_FACTOR_LIMIT_EXCEEDED"
        case .missingAppCredential: "MISSING_APP_CREDENTIAL"
        case .invalidAppCredential: "INVALID_APP_CREDENTIAL"
        case .invalidVerificationCode: "INVALID_VERIFICATION_CODE"
        case .codeExpired: "CODE_EXPIRED"
        case .invalidSession: "INVALID_SESSION"
        case .mfaEnrollmentNotFound: "MFA_ENROLLMENT_NOT_FOUND"
        case .secondFactorRequired: "SECOND_FACTOR_REQUIRED"
        case .enrollmentRequired: "ENROLLMENT_REQUIRED"
        case .tooManyAttemptsTryLater: "TOO_MANY_ATTEMPTS_TRY_LATER"
        case .quotaExceeded: "QUOTA_EXCEEDED"
        case .userTokenExpired: "USER_TOKEN_EXPIRED"
        case .tenantMismatch: "TENANT_MISMATCH"
        case .storageError: "STORAGE_ERROR"
        case .invalidBase32: "INVALID_BASE32"
        case .invalidURI: "INVALID_URI"
        case .bufferTooSmall: "BUFFER_TOO_SMALL"
        case .outOfMemory: "OUT_OF_MEMORY"
        case .crypto: "CRYPTO"
        case .internal: "INTERNAL"
        case .smsSendFailed: "SMS_SEND_FAILED"
        case .originMismatch: "ORIGIN_MISMATCH"
        case .rpIDMismatch: "RP_ID_MISMATCH"
        case .credentialCloned: "CREDENTIAL_CLONED"
        case .attestationNotTrusted: "ATTESTATION_NOT_TRUSTED"
        case .userVerificationRequired: "USER_VERIFICATION_REQUIRED"
        case .keyMismatch: "KEY_MISMATCH"
        case .invalidEmail: "INVALID_EMAIL"
        case .emailSendFailed: "EMAIL_SEND_FAILED"
        case .deviceNotFound: "DEVICE_NOT_FOUND"
        case .tokenNotFound: "TOKEN_NOT_FOUND"
        case .invalidPSKC: "INVALID_PSKC"
        case .pskcKeyMismatch: "PSKC_KEY_MISMATCH"
        case .keyProviderUnavailable: "KEY_PROVIDER_UNAVAILABLE"
        case .keyProviderLogin: "KEY_PROVIDER_LOGIN"
        case .keyProviderKeyNotFound: "KEY_PROVIDER_KEY_NOT_FOUND"
        }
    }

    /// A short human description of the failure, without any detail of the input.
    public var summary: String {
        switch self {
        case .invalidArgument: "invalid argument"
        case .operationNotAllowed: "operation not allowed by the MFA configuration"
        case .unverifiedEmail: "the user's email address must be verified first"
        case .unsupportedFirstFactor: "this first factor does not support multi-factor authentication"
        case .requiresRecentLogin: "the user must sign in again first"
        case .invalidPhoneNumber: "the phone number is not in E.164 format"
        case .secondFactorExists: "the user already has this second factor"
        case .secondFactorLimitExceeded: "the user has the maximum number of second factors"
        case .missingAppCredential: "an app verification credential is required"
        case .invalidAppCredential: "the app verification credential was rejected"
        case .invalidVerificationCode: "the verification code is invalid"
        case .codeExpired: "the verification code has expired"
        case .invalidSession: "the session is invalid, expired or already used"
        case .mfaEnrollmentNotFound: "no enrolled second factor has this id"
        case .secondFactorRequired: "a second factor is required to finish signing in"
        case .enrollmentRequired: "the user must enroll a second factor"
        case .tooManyAttemptsTryLater: "too many attempts, try again later"
        case .quotaExceeded: "quota exceeded"
        case .userTokenExpired: "the user's credential has expired, sign in again"
        case .tenantMismatch: "the token belongs to another tenant"
        case .storageError: "the store failed"
        case .invalidBase32: "invalid base32 text"
        case .invalidURI: "invalid otpauth key URI"
        case .bufferTooSmall: "output buffer too small"
        case .outOfMemory: "out of memory"
        case .crypto: "cryptographic failure"
        case .internal: "internal error"
        case .smsSendFailed: "the SMS could not be sent"
        case .originMismatch: "the security key response was made for another origin"
        case .rpIDMismatch: "the security key response was made for another relying party"
        case .credentialCloned: "the security key's signature counter went back: it may have been cloned"
        case .attestationNotTrusted: "this kind of security key is not accepted"
        case .userVerificationRequired: "the security key must verify the user (PIN or biometrics)"
        case .keyMismatch: "the master key is not the one the store knows by this key id"
        case .invalidEmail: "the email address is not valid"
        case .emailSendFailed: "the email could not be sent"
        case .deviceNotFound: "no remembered device has this id"
        case .tokenNotFound: "no unassigned hardware token has this serial number"
        case .invalidPSKC: "the file is not a PSKC key container that can be read safely"
        case .pskcKeyMismatch: "the key or password does not open the file's encrypted values"
        case .keyProviderUnavailable: "the key provider (HSM) cannot be reached or used"
        case .keyProviderLogin: "the key provider (HSM) refused the PIN"
        case .keyProviderKeyNotFound: "the key provider (HSM) holds no key under this label"
        }
    }
}
