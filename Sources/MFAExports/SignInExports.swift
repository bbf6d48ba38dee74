import CMFATypes
import Glibc
import MFA

/// Lays out a resolver.
private func cResolver(_ resolver: MultiFactorResolver) throws(MFAError) -> UnsafeMutablePointer<mfa_resolver> {
    try CBlock.make { arena in
        mfa_resolver(session: arena.string(resolver.session), uid: arena.string(resolver.uid),
                     tenant: arena.string(resolver.tenant), hint_count: resolver.hints.count,
                     hints: arena.array(resolver.hints) { cFactorInfo($0, arena) })
    }
}

/// Reports a successful first factor for `user`.
///
/// Returns MFA_OK with `*out` NULL when no second factor is needed (the user
/// has none and MFA is not MANDATORY), or MFA_ERR_SECOND_FACTOR_REQUIRED with
/// `*out` a resolver (hints and pending credential; free with
/// mfa_resolver_free()). Other results: MFA_ERR_ENROLLMENT_REQUIRED
/// (MANDATORY and no factor), MFA_ERR_UNSUPPORTED_FIRST_FACTOR,
/// MFA_ERR_INVALID_ARGUMENT, MFA_ERR_STORAGE_ERROR.
@c(mfa_sign_in)
public func mfa_sign_in(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                        _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_resolver>?>?,
                        _ user: UnsafePointer<mfa_user>?,
                        _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var required = false
    let status = CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        switch try context.signIn(CUser.read(user)) {
        case .signedIn:
            return
        case .secondFactorRequired(let resolver):
            out.pointee = try cResolver(resolver)
            required = true
        }
    }
    guard status == 0, required else { return status }
    err?.pointee = try? CResults.cString(MFAErrorCode.secondFactorRequired.summary)
    return MFAErrorCode.secondFactorRequired.rawValue
}

/// Rebuilds a resolver from a pending credential a client sent back.
///
/// On MFA_OK, `*out` is the resolver (free with mfa_resolver_free()).
/// Returns MFA_OK, MFA_ERR_INVALID_SESSION (tampered or expired),
/// MFA_ERR_TENANT_MISMATCH, MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_resolver_load)
public func mfa_resolver_load(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                              _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_resolver>?>?,
                              _ pending_credential: UnsafePointer<CChar>?, _ tenant: UnsafePointer<CChar>?,
                              _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        out.pointee = try cResolver(context.resolver(
            pendingCredential: CArguments.string(pending_credential, "pending_credential"),
            tenant: CArguments.optionalString(tenant, "tenant")))
    }
}

/// Frees a resolver. NULL is a no-op.
@c(mfa_resolver_free)
public func mfa_resolver_free(_ resolver: UnsafeMutablePointer<mfa_resolver>?) {
    free(resolver)
}

/// Finishes a sign-in with a TOTP code (assertionForSignIn + resolveSignIn).
///
/// `tenant` is the tenant the host serves the request for (NULL for the
/// project). On MFA_OK, `*out` is the result (free with
/// mfa_sign_in_result_free()) and the pending credential is used up; the
/// code's time step can never be used again. Returns MFA_OK,
/// MFA_ERR_INVALID_VERIFICATION_CODE (wrong, malformed or replayed code),
/// MFA_ERR_INVALID_SESSION (tampered, expired, used, or another user's
/// factor), MFA_ERR_TENANT_MISMATCH, MFA_ERR_MFA_ENROLLMENT_NOT_FOUND,
/// MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER (backoff), MFA_ERR_INVALID_ARGUMENT or
/// MFA_ERR_STORAGE_ERROR.
@c(mfa_resolve_totp)
public func mfa_resolve_totp(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                             _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_sign_in_result>?>?,
                             _ pending_credential: UnsafePointer<CChar>?, _ tenant: UnsafePointer<CChar>?,
                             _ enrollment_id: UnsafePointer<CChar>?, _ otp: UnsafePointer<CChar>?,
                             _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let assertion = TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: try CArguments.string(enrollment_id, "enrollment_id"),
            oneTimePassword: try CArguments.string(otp, "otp"))
        let result = try context.resolveSignIn(
            pendingCredential: try CArguments.string(pending_credential, "pending_credential"),
            tenant: try CArguments.optionalString(tenant, "tenant"), assertion: assertion)
        out.pointee = try cSignInResult(result)
    }
}

/// Lays out a sign-in result.
func cSignInResult(_ result: SignInResult) throws(MFAError) -> UnsafeMutablePointer<mfa_sign_in_result> {
    try CBlock.make { arena in
        mfa_sign_in_result(uid: arena.string(result.uid), tenant: arena.string(result.tenant),
                           factor_id: arena.string(result.factorID),
                           enrollment_id: arena.string(result.enrollmentID), time: result.time)
    }
}

/// Frees a sign-in result. NULL is a no-op.
@c(mfa_sign_in_result_free)
public func mfa_sign_in_result_free(_ result: UnsafeMutablePointer<mfa_sign_in_result>?) {
    free(result)
}

/// Whether a credential the host issued to a user at `issued_at` is still
/// valid: enrolling and unenrolling a factor revoke earlier credentials.
///
/// Returns MFA_OK, MFA_ERR_USER_TOKEN_EXPIRED (the user must sign in again),
/// MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_token_check)
public func mfa_token_check(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ tenant: UnsafePointer<CChar>?,
                            _ uid: UnsafePointer<CChar>?, _ issued_at: Int64) -> Int32 {
    CResults.status { () throws(MFAError) in
        try CContext.get(ctx).checkToken(tenant: try CArguments.optionalString(tenant, "tenant"),
                                         uid: try CArguments.string(uid, "uid"), issuedAt: issued_at)
    }
}

/// Step-up: sets `*out` to true if the user passed a second factor within the
/// last `within_seconds` seconds, else false.
///
/// Returns MFA_OK, MFA_ERR_INVALID_ARGUMENT (NULL pointers, negative
/// seconds) or MFA_ERR_STORAGE_ERROR.
@c(mfa_step_up_check)
public func mfa_step_up_check(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ out: UnsafeMutablePointer<Bool>?,
                              _ tenant: UnsafePointer<CChar>?, _ uid: UnsafePointer<CChar>?,
                              _ within_seconds: Int64) -> Int32 {
    CResults.status { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = false
        out.pointee = try context.passedSecondFactor(tenant: CArguments.optionalString(tenant, "tenant"),
                                                     uid: CArguments.string(uid, "uid"), within: within_seconds)
    }
}
