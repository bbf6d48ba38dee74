import CMFATypes
import MFA

/// Sends an email code to an address being enrolled
/// (EmailAuthProvider.sendVerificationCode with a MultiFactorSession).
///
/// `address` is `local@domain` in ASCII, at most 254 bytes, without a
/// display name (an internationalised domain in its xn-- form). On MFA_OK,
/// `*out` is the opaque verification id (free with mfa_free()); finish with
/// mfa_enroll() and an assertion of kind MFA_FACTOR_EMAIL. Returns MFA_OK,
/// MFA_ERR_INVALID_EMAIL, MFA_ERR_SECOND_FACTOR_EXISTS,
/// MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED, MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER
/// (resend cooldown), MFA_ERR_QUOTA_EXCEEDED, MFA_ERR_EMAIL_SEND_FAILED
/// (nothing counted), MFA_ERR_INVALID_SESSION, MFA_ERR_USER_TOKEN_EXPIRED,
/// MFA_ERR_OPERATION_NOT_ALLOWED (email disabled), MFA_ERR_INVALID_ARGUMENT
/// or MFA_ERR_STORAGE_ERROR.
@c(mfa_email_start_enrollment)
public func mfa_email_start_enrollment(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                       _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                       _ session: UnsafePointer<CChar>?, _ address: UnsafePointer<CChar>?,
                                       _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let id = try EmailAuthProvider(context: context).sendVerificationCode(
            to: try CArguments.string(address, "address"),
            multiFactorSession: MultiFactorSession(token: try CArguments.string(session, "session"), context: context))
        out.pointee = try CResults.cString(id)
    }
}

/// Sends an email code for signing in with the enrolled email factor
/// `enrollment_id` (a hint of the resolver); the full address never leaves
/// libmfa. `tenant` is the tenant of the request (NULL for the project).
///
/// On MFA_OK, `*out` is the verification id (free with mfa_free()); finish
/// with mfa_resolve() and an assertion of kind MFA_FACTOR_EMAIL. Returns
/// MFA_OK, MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER (resend cooldown, or backoff
/// after failed sign-ins), MFA_ERR_QUOTA_EXCEEDED (the factor's own budget),
/// MFA_ERR_EMAIL_SEND_FAILED (nothing counted), MFA_ERR_INVALID_SESSION,
/// MFA_ERR_USER_TOKEN_EXPIRED, MFA_ERR_TENANT_MISMATCH,
/// MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, MFA_ERR_INVALID_ARGUMENT (a factor of
/// another kind) or MFA_ERR_STORAGE_ERROR.
@c(mfa_email_start_sign_in)
public func mfa_email_start_sign_in(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                    _ pending_credential: UnsafePointer<CChar>?, _ tenant: UnsafePointer<CChar>?,
                                    _ enrollment_id: UnsafePointer<CChar>?,
                                    _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let id = try EmailAuthProvider(context: context).sendVerificationCode(
            withEnrollmentID: try CArguments.string(enrollment_id, "enrollment_id"),
            pendingCredential: try CArguments.string(pending_credential, "pending_credential"),
            tenant: try CArguments.optionalString(tenant, "tenant"))
        out.pointee = try CResults.cString(id)
    }
}

extension CAssertions {
    /// An email assertion: the verification id and the mailed code; or, to
    /// enroll the verified sign-in address, an enrollment session without a verification id.
    static func emailAssertion(_ fields: mfa_assertion, _ purpose: Purpose) throws(MFAError) -> MultiFactorAssertion {
        if purpose == .enrollment, fields.verification_id == nil, fields.session_info != nil {
            return EmailMultiFactorGenerator.assertionForVerifiedSignInEmail(
                sessionToken: try CArguments.string(fields.session_info, "assertion->session_info"))
        }
        return EmailMultiFactorGenerator.assertion(with: EmailAuthCredential(
            verificationID: try CArguments.string(fields.verification_id, "assertion->verification_id"),
            verificationCode: try CArguments.string(fields.code, "assertion->code")))
    }
}
