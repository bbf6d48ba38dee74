import CMFATypes
import Glibc
import MFA

/// Whether a credential the host issued to a user at `issued_at` (Unix
/// seconds) is still valid: enrolling, unenrolling and mfa_revoke_tokens()
/// revoke earlier credentials. A credential issued in the same second as a
/// revocation counts as earlier (the revoking second is revoked): issue the
/// new credential after that second, or use mfa_token_check_ms().
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

/// Like mfa_token_check() for a credential whose issue time the host knows
/// to the millisecond (`issued_at_ms`): valid if issued strictly after the
/// user's last revocation, which is recorded to the millisecond.
///
/// Returns MFA_OK, MFA_ERR_USER_TOKEN_EXPIRED (the user must sign in again),
/// MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_token_check_ms)
public func mfa_token_check_ms(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ tenant: UnsafePointer<CChar>?,
                               _ uid: UnsafePointer<CChar>?, _ issued_at_ms: Int64) -> Int32 {
    CResults.status { () throws(MFAError) in
        try CContext.get(ctx).checkToken(tenant: try CArguments.optionalString(tenant, "tenant"),
                                         uid: try CArguments.string(uid, "uid"), issuedAtMilliseconds: issued_at_ms)
    }
}

/// Revokes every credential and libmfa token issued to a user so far, as
/// after a password reset or a compromised account: credentials issued
/// before fail mfa_token_check() with MFA_ERR_USER_TOKEN_EXPIRED, and the
/// user's enrollment sessions, pending credentials and verification ids fail
/// with MFA_ERR_USER_TOKEN_EXPIRED. Factors stay enrolled. Audited
/// (MFA_AUDIT_TOKENS_REVOKED). `tenant` is NULL for the project.
///
/// Returns MFA_OK, MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_revoke_tokens)
public func mfa_revoke_tokens(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ tenant: UnsafePointer<CChar>?,
                              _ uid: UnsafePointer<CChar>?,
                              _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        try CContext.get(ctx).revokeTokens(uid: try CArguments.string(uid, "uid"),
                                           tenant: try CArguments.optionalString(tenant, "tenant"))
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
