import CMFATypes
import Glibc
import MFA

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

/// Finishes a sign-in with a second factor of any kind
/// (MultiFactorResolver.resolveSignIn): `assertion` names the kind and
/// carries what it needs (MFA_FACTOR_TOTP: the enrollment id and the app's
/// code; MFA_FACTOR_PHONE: the verification id from mfa_phone_start_sign_in()
/// and the SMS code; MFA_FACTOR_RECOVERY_CODES: the code as the user typed
/// it, and the set's enrollment id or NULL).
///
/// `tenant` is the tenant the host serves the request for (NULL for the
/// project). On MFA_OK, `*out` is the result with its claims (free with
/// mfa_sign_in_result_free()), and what the factor proved and the pending
/// credential are used up. Returns MFA_OK, MFA_ERR_INVALID_VERIFICATION_CODE
/// (wrong, malformed or replayed code), MFA_ERR_CODE_EXPIRED (an SMS code),
/// MFA_ERR_INVALID_SESSION (tampered, expired, used, or another user's),
/// MFA_ERR_USER_TOKEN_EXPIRED (the user's tokens were revoked since the
/// sign-in started: the answer whatever else the revocation removed, such
/// as the factor, its SMS code or its WebAuthn credential),
/// MFA_ERR_TENANT_MISMATCH, MFA_ERR_MFA_ENROLLMENT_NOT_FOUND,
/// MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER (backoff), MFA_ERR_INVALID_ARGUMENT,
/// MFA_ERR_CRYPTO (a stored factor failed its integrity check) or
/// MFA_ERR_STORAGE_ERROR.
@c(mfa_resolve)
public func mfa_resolve(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                        _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_sign_in_result>?>?,
                        _ pending_credential: UnsafePointer<CChar>?, _ tenant: UnsafePointer<CChar>?,
                        _ assertion: UnsafePointer<mfa_assertion>?,
                        _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let swiftAssertion = try CAssertions.read(assertion, for: .signIn)
        let result = try context.resolveSignIn(
            pendingCredential: try CArguments.string(pending_credential, "pending_credential"),
            tenant: try CArguments.optionalString(tenant, "tenant"), assertion: swiftAssertion)
        out.pointee = try cSignInResult(result)
    }
}

/// Frees a resolver. NULL is a no-op.
@c(mfa_resolver_free)
public func mfa_resolver_free(_ resolver: UnsafeMutablePointer<mfa_resolver>?) {
    free(resolver)
}

/// Frees a sign-in result. NULL is a no-op.
@c(mfa_sign_in_result_free)
public func mfa_sign_in_result_free(_ result: UnsafeMutablePointer<mfa_sign_in_result>?) {
    free(result)
}
