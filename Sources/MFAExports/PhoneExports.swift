import CMFATypes
import MFA

/// Sends an SMS code to a number being enrolled
/// (PhoneAuthProvider.verifyPhoneNumber with a MultiFactorSession).
///
/// `phone_number` must be strict E.164 ("+" then 7 to 15 digits, no spaces).
/// `app_credential` is the reCAPTCHA- or APNs-style token the client sent; it
/// goes to the app verifier of mfa_options. On MFA_OK, `*out` is the opaque
/// verification id (free with mfa_free()). Returns MFA_OK,
/// MFA_ERR_INVALID_PHONE_NUMBER, MFA_ERR_MISSING_APP_CREDENTIAL,
/// MFA_ERR_INVALID_APP_CREDENTIAL, MFA_ERR_SECOND_FACTOR_EXISTS,
/// MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER (resend cooldown), MFA_ERR_QUOTA_EXCEEDED,
/// MFA_ERR_SMS_SEND_FAILED (nothing counted), MFA_ERR_INVALID_SESSION,
/// MFA_ERR_OPERATION_NOT_ALLOWED (phone disabled, or no app verifier while
/// the configuration requires one), MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_phone_start_enrollment)
public func mfa_phone_start_enrollment(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                       _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                       _ session: UnsafePointer<CChar>?, _ phone_number: UnsafePointer<CChar>?,
                                       _ app_credential: UnsafePointer<CChar>?,
                                       _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let id = try PhoneAuthProvider(context: context).verifyPhoneNumber(
            try CArguments.string(phone_number, "phone_number"),
            appCredential: try CArguments.optionalString(app_credential, "app_credential"),
            multiFactorSession: MultiFactorSession(token: try CArguments.string(session, "session"), context: context))
        out.pointee = try CResults.cString(id)
    }
}

/// Sends an SMS code for signing in with the enrolled phone factor
/// `enrollment_id` (a hint of the resolver); the full number never leaves
/// libmfa. `tenant` is the tenant of the request (NULL for the project).
///
/// On MFA_OK, `*out` is the verification id (free with mfa_free()). Returns
/// MFA_OK, MFA_ERR_MISSING_APP_CREDENTIAL, MFA_ERR_INVALID_APP_CREDENTIAL,
/// MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER (resend cooldown, or backoff after
/// failed sign-ins), MFA_ERR_QUOTA_EXCEEDED, MFA_ERR_SMS_SEND_FAILED (nothing
/// counted), MFA_ERR_INVALID_SESSION, MFA_ERR_TENANT_MISMATCH,
/// MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, MFA_ERR_OPERATION_NOT_ALLOWED (no app
/// verifier while the configuration requires one; a factor already enrolled
/// keeps working when the phone provider is disabled), MFA_ERR_INVALID_ARGUMENT
/// or MFA_ERR_STORAGE_ERROR.
@c(mfa_phone_start_sign_in)
public func mfa_phone_start_sign_in(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                    _ pending_credential: UnsafePointer<CChar>?, _ tenant: UnsafePointer<CChar>?,
                                    _ enrollment_id: UnsafePointer<CChar>?, _ app_credential: UnsafePointer<CChar>?,
                                    _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let id = try PhoneAuthProvider(context: context).verifyPhoneNumber(
            withEnrollmentID: try CArguments.string(enrollment_id, "enrollment_id"),
            appCredential: try CArguments.optionalString(app_credential, "app_credential"),
            pendingCredential: try CArguments.string(pending_credential, "pending_credential"),
            tenant: try CArguments.optionalString(tenant, "tenant"))
        out.pointee = try CResults.cString(id)
    }
}

/// Finishes a phone enrollment with the SMS code (credential +
/// PhoneMultiFactorGenerator.assertion + enroll). `display_name` may be NULL.
///
/// On MFA_OK, `*out` is the new factor (free with mfa_factor_info_free());
/// earlier credentials are revoked. Returns MFA_OK,
/// MFA_ERR_INVALID_VERIFICATION_CODE (wrong code; after 5 the verification
/// id is dead), MFA_ERR_CODE_EXPIRED, MFA_ERR_INVALID_SESSION (used, dead,
/// tampered or another user's), MFA_ERR_TENANT_MISMATCH,
/// MFA_ERR_SECOND_FACTOR_EXISTS, MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED,
/// MFA_ERR_OPERATION_NOT_ALLOWED, MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_phone_enroll)
public func mfa_phone_enroll(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                             _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_factor_info>?>?,
                             _ user: UnsafePointer<mfa_user>?, _ verification_id: UnsafePointer<CChar>?,
                             _ code: UnsafePointer<CChar>?, _ display_name: UnsafePointer<CChar>?,
                             _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let credential = PhoneAuthCredential(verificationID: try CArguments.string(verification_id, "verification_id"),
                                             verificationCode: try CArguments.string(code, "code"))
        let info = try context.multiFactor(for: CUser.read(user)).enroll(
            with: PhoneMultiFactorGenerator.assertion(with: credential),
            displayName: CArguments.optionalString(display_name, "display_name"))
        out.pointee = try CBlock.make { cFactorInfo(info, $0) }
    }
}

/// Finishes a sign-in with the SMS code sent by mfa_phone_start_sign_in().
///
/// On MFA_OK, `*out` is the result (free with mfa_sign_in_result_free()); the
/// code and the pending credential are used up. Returns MFA_OK,
/// MFA_ERR_INVALID_VERIFICATION_CODE, MFA_ERR_CODE_EXPIRED,
/// MFA_ERR_INVALID_SESSION (used or dead code, tampered or foreign
/// verification id or pending credential), MFA_ERR_TENANT_MISMATCH,
/// MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER, MFA_ERR_INVALID_ARGUMENT or
/// MFA_ERR_STORAGE_ERROR.
@c(mfa_resolve_phone)
public func mfa_resolve_phone(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                              _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_sign_in_result>?>?,
                              _ pending_credential: UnsafePointer<CChar>?, _ tenant: UnsafePointer<CChar>?,
                              _ verification_id: UnsafePointer<CChar>?, _ code: UnsafePointer<CChar>?,
                              _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let credential = PhoneAuthCredential(verificationID: try CArguments.string(verification_id, "verification_id"),
                                             verificationCode: try CArguments.string(code, "code"))
        let result = try context.resolveSignIn(
            pendingCredential: try CArguments.string(pending_credential, "pending_credential"),
            tenant: try CArguments.optionalString(tenant, "tenant"),
            assertion: PhoneMultiFactorGenerator.assertion(with: credential))
        out.pointee = try cSignInResult(result)
    }
}

extension CAssertions {
    /// A phone assertion: the verification id and the SMS code, for enrolling or signing in.
    static func phoneAssertion(_ fields: mfa_assertion, _ purpose: Purpose) throws(MFAError) -> MultiFactorAssertion {
        PhoneMultiFactorGenerator.assertion(with: PhoneAuthCredential(
            verificationID: try CArguments.string(fields.verification_id, "assertion->verification_id"),
            verificationCode: try CArguments.string(fields.code, "assertion->code")))
    }
}
