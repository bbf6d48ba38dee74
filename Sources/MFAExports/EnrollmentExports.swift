import CMFATypes
import Glibc
import MFA

/// Fills `user` with the empty values of struct version `version` (pass
/// MFA_USER_VERSION): no uid, the project, no email, provider "password",
/// auth_time 0, and `version` itself. Only the fields that version has are
/// written; MFA_USER_INIT is the same as a static initializer.
///
/// Returns MFA_OK or MFA_ERR_INVALID_ARGUMENT (NULL `user`, a version 0 or
/// newer than the library's).
@c(mfa_user_init)
public func mfa_user_init(_ user: UnsafeMutablePointer<mfa_user>?, _ version: UInt32) -> Int32 {
    CResults.status { () throws(MFAError) in try CStructs.user.initialize(user, version: version) }
}

/// Starts an enrollment: checks that the user may enroll and returns a
/// MultiFactorSession token in `*out` (free with mfa_free()).
///
/// Returns MFA_OK, MFA_ERR_OPERATION_NOT_ALLOWED (MFA or every provider
/// disabled), MFA_ERR_UNSUPPORTED_FIRST_FACTOR (phone, anonymous, custom,
/// gc.apple.com), MFA_ERR_UNVERIFIED_EMAIL, MFA_ERR_REQUIRES_RECENT_LOGIN,
/// MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED, MFA_ERR_INVALID_ARGUMENT or
/// MFA_ERR_STORAGE_ERROR.
@c(mfa_session_new)
public func mfa_session_new(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                            _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                            _ user: UnsafePointer<mfa_user>?,
                            _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let session = try context.multiFactor(for: CUser.read(user)).session()
        out.pointee = try CResults.cString(session.token)
    }
}

/// Fills `assertion` with the empty values of struct version `version` (pass
/// MFA_ASSERTION_VERSION): no kind, every string NULL. MFA_ASSERTION_INIT is
/// the same as a static initializer.
///
/// Returns MFA_OK or MFA_ERR_INVALID_ARGUMENT (NULL `assertion`, a version 0
/// or newer than the library's).
@c(mfa_assertion_init)
public func mfa_assertion_init(_ assertion: UnsafeMutablePointer<mfa_assertion>?, _ version: UInt32) -> Int32 {
    CResults.status { () throws(MFAError) in try CStructs.assertion.initialize(assertion, version: version) }
}

/// Finishes an enrollment of any kind (MultiFactor.enroll): `assertion`
/// names the kind and carries what it needs (MFA_FACTOR_TOTP: the secret's
/// session_info and the app's code; MFA_FACTOR_PHONE: the verification id
/// and the SMS code). Recovery codes are generated, not enrolled: see
/// mfa_recovery_codes_generate().
///
/// `display_name` may be NULL. On MFA_OK, `*out` is the new factor (free
/// with mfa_factor_info_free()) and the user's earlier credentials and
/// libmfa tokens are revoked. Returns MFA_OK, MFA_ERR_INVALID_VERIFICATION_CODE
/// (the user may retry), MFA_ERR_CODE_EXPIRED, MFA_ERR_INVALID_SESSION
/// (tampered, already used, or another user's), MFA_ERR_USER_TOKEN_EXPIRED
/// (the user's tokens were revoked since, whatever the revocation removed
/// with them, such as the pending secret or the SMS code),
/// MFA_ERR_TENANT_MISMATCH, MFA_ERR_SECOND_FACTOR_EXISTS,
/// MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED, MFA_ERR_OPERATION_NOT_ALLOWED,
/// MFA_ERR_INVALID_ARGUMENT (an unknown kind, a missing field, a WebAuthn
/// key whose signatures prove nothing) or MFA_ERR_STORAGE_ERROR.
@c(mfa_enroll)
public func mfa_enroll(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                       _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_factor_info>?>?,
                       _ user: UnsafePointer<mfa_user>?, _ assertion: UnsafePointer<mfa_assertion>?,
                       _ display_name: UnsafePointer<CChar>?,
                       _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let swiftAssertion = try CAssertions.read(assertion, for: .enrollment)
        let info = try context.multiFactor(for: CUser.read(user))
            .enroll(with: swiftAssertion, displayName: CArguments.optionalString(display_name, "display_name"))
        out.pointee = try CBlock.make { cFactorInfo(info, $0) }
    }
}

/// The user's enrolled factors, oldest first, in `*out` (free with
/// mfa_factor_list_free()). Returns MFA_OK, MFA_ERR_INVALID_ARGUMENT or
/// MFA_ERR_STORAGE_ERROR.
@c(mfa_factors_list)
public func mfa_factors_list(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                             _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_factor_list>?>?,
                             _ user: UnsafePointer<mfa_user>?,
                             _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let factors = try context.multiFactor(for: CUser.read(user)).enrolledFactors()
        out.pointee = try CBlock.make { arena in
            mfa_factor_list(count: factors.count, items: arena.array(factors) { cFactorInfo($0, arena) })
        }
    }
}

/// Frees a list from mfa_factors_list(). NULL is a no-op.
@c(mfa_factor_list_free)
public func mfa_factor_list_free(_ list: UnsafeMutablePointer<mfa_factor_list>?) {
    free(list)
}

/// Frees a factor from mfa_enroll(), mfa_totp_enroll(), mfa_phone_enroll() or an import. NULL is a no-op.
@c(mfa_factor_info_free)
public func mfa_factor_info_free(_ info: UnsafeMutablePointer<mfa_factor_info>?) {
    free(info)
}

/// Removes the user's factor `enrollment_id` and revokes the user's earlier
/// credentials. The user must have signed in recently.
///
/// Returns MFA_OK, MFA_ERR_REQUIRES_RECENT_LOGIN, MFA_ERR_MFA_ENROLLMENT_NOT_FOUND,
/// MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_unenroll)
public func mfa_unenroll(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ user: UnsafePointer<mfa_user>?,
                         _ enrollment_id: UnsafePointer<CChar>?,
                         _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        try context.multiFactor(for: CUser.read(user))
            .unenroll(withFactorUID: try CArguments.string(enrollment_id, "enrollment_id"))
    }
}
