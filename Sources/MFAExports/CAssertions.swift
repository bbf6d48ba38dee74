import CMFATypes
import MFA

/// Converting a C `mfa_assertion` into the Swift assertion of its kind.
///
/// Each kind's conversion is in its own exports file (`TOTPExports.swift`,
/// `PhoneExports.swift`, `RecoveryCodeExports.swift`, `WebAuthnExports.swift`, `EmailExports.swift`,
/// `HOTPExports.swift`); this table lists them.
enum CAssertions {
    /// What an assertion is for.
    enum Purpose: Sendable {
        case enrollment
        case signIn
    }

    private typealias Convert = @Sendable (mfa_assertion, Purpose) throws(MFAError) -> MultiFactorAssertion

    private static let converters: [Int32: Convert] = [
        MFA_FACTOR_TOTP: totpAssertion,
        MFA_FACTOR_PHONE: phoneAssertion,
        MFA_FACTOR_RECOVERY_CODES: recoveryCodeAssertion,
        MFA_FACTOR_WEBAUTHN: webAuthnAssertion,
        MFA_FACTOR_EMAIL: emailAssertion,
        MFA_FACTOR_HOTP: hotpAssertion,
        MFA_FACTOR_YUBICO_OTP: yubicoOTPAssertion,
    ]

    /// Reads the caller's assertion.
    /// - Throws: `invalidArgument` for NULL, an unknown version or kind, or a missing field the kind needs.
    static func read(_ pointer: UnsafePointer<mfa_assertion>?, for purpose: Purpose) throws(MFAError)
        -> MultiFactorAssertion {
        let fields = try CStructs.assertion.read(pointer)
        guard let convert = converters[fields.kind] else {
            throw MFAError(.invalidArgument, "assertion->kind must be one of the MFA_FACTOR_* kinds")
        }
        return try convert(fields, purpose)
    }
}
