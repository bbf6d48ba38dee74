import CMFATypes
import MFA

extension CAssertions {
    /// An HOTP assertion: to sign in, the enrollment id and the code (and
    /// `next_code` for a resynchronization); to enroll, the enrollment
    /// session in `session_info`, the token's `serial` and its code.
    static func hotpAssertion(_ fields: mfa_assertion, _ purpose: Purpose) throws(MFAError) -> MultiFactorAssertion {
        let code = try CArguments.string(fields.code, "assertion->code")
        let next = try CArguments.optionalString(fields.next_code, "assertion->next_code")
        switch purpose {
        case .enrollment:
            return HOTPMultiFactorAssertion(
                target: .claim(session: try CArguments.string(fields.session_info, "assertion->session_info"),
                               serial: try CArguments.string(fields.serial, "assertion->serial")),
                oneTimePassword: code, nextOneTimePassword: next)
        case .signIn:
            return HOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: try CArguments.string(fields.enrollment_id, "assertion->enrollment_id"),
                oneTimePassword: code, nextOneTimePassword: next)
        }
    }

    /// A Yubico OTP assertion: the OTP the key typed, and to sign in the
    /// factor's enrollment id or NULL, to enroll the enrollment session in `session_info`.
    static func yubicoOTPAssertion(_ fields: mfa_assertion,
                                   _ purpose: Purpose) throws(MFAError) -> MultiFactorAssertion {
        let otp = try CArguments.string(fields.code, "assertion->code")
        switch purpose {
        case .enrollment:
            return YubicoOTPMultiFactorAssertion(
                target: .claim(session: try CArguments.string(fields.session_info, "assertion->session_info")),
                otp: otp)
        case .signIn:
            return YubicoOTPMultiFactorGenerator.assertionForSignIn(
                otp: otp, enrollmentID: try CArguments.optionalString(fields.enrollment_id, "assertion->enrollment_id"))
        }
    }
}

/// Brings an HOTP factor's counter forward with two consecutive codes from
/// its token (`code`, then `next_code`), found within the configuration's
/// hotp.resyncWindow counters: a token pressed many times away from the
/// server. An administrative call (no sign-in is checked); the counter only
/// moves forward, and no failure is counted. Audited (MFA_AUDIT_TOKEN_RESYNCED,
/// detail "ADMIN", with `actor`).
///
/// Returns MFA_OK, MFA_ERR_INVALID_VERIFICATION_CODE (no such pair within
/// the window, or below the counter), MFA_ERR_MFA_ENROLLMENT_NOT_FOUND,
/// MFA_ERR_INVALID_ARGUMENT (not an HOTP factor, a bad actor), MFA_ERR_CRYPTO
/// or MFA_ERR_STORAGE_ERROR.
@c(mfa_admin_hotp_resync)
public func mfa_admin_hotp_resync(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ enrollment_id: UnsafePointer<CChar>?,
                                  _ code: UnsafePointer<CChar>?, _ next_code: UnsafePointer<CChar>?,
                                  _ actor: UnsafePointer<CChar>?,
                                  _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        try context.resyncToken(enrollmentID: try CArguments.string(enrollment_id, "enrollment_id"),
                                code: try CArguments.string(code, "code"),
                                nextCode: try CArguments.string(next_code, "next_code"),
                                actor: try CArguments.string(actor, "actor"))
    }
}
