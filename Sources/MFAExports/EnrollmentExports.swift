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

/// Generates a TOTP secret for the user of `session` (TOTPMultiFactorGenerator.generateSecret).
///
/// The secret is kept, encrypted, until mfa_totp_enroll() finishes the
/// enrollment or its deadline passes. On MFA_OK, `*out` is a new secret
/// (free with mfa_totp_secret_free()). Returns MFA_OK, MFA_ERR_INVALID_SESSION
/// (missing, tampered, expired or used session), MFA_ERR_OPERATION_NOT_ALLOWED
/// (TOTP disabled), MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_totp_generate_secret)
public func mfa_totp_generate_secret(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                     _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_totp_secret>?>?,
                                     _ session: UnsafePointer<CChar>?,
                                     _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let token = try CArguments.string(session, "session")
        let secret = try TOTPMultiFactorGenerator.generateSecret(with: MultiFactorSession(token: token, context: context))
        out.pointee = try CBlock.make { arena in
            mfa_totp_secret(shared_secret_key: arena.string(secret.sharedSecretKey()),
                            algorithm: secret.hashingAlgorithm.rawValue, digits: Int32(secret.codeLength),
                            period: secret.codeIntervalSeconds, deadline: secret.enrollmentCompletionDeadline,
                            session_info: arena.string(secret.sessionInfo))
        }
    }
}

/// Frees a secret from mfa_totp_generate_secret(), wiping the key text first. NULL is a no-op.
@c(mfa_totp_secret_free)
public func mfa_totp_secret_free(_ secret: UnsafeMutablePointer<mfa_totp_secret>?) {
    guard let secret else { return }
    if let key = secret.pointee.shared_secret_key {
        memset(UnsafeMutableRawPointer(mutating: key), 0, strlen(key))
    }
    free(secret)
}

/// The otpauth:// URI of a secret (TOTPSecret.generateQRCodeURL), with the
/// issuer and account name percent-encoded, in `*out` (free with mfa_free()).
///
/// `issuer` may be NULL or "". Returns MFA_OK or MFA_ERR_INVALID_ARGUMENT
/// (NULL pointers, empty or overlong account, bad secret).
@c(mfa_totp_secret_uri)
public func mfa_totp_secret_uri(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                _ secret: UnsafePointer<mfa_totp_secret>?,
                                _ account: UnsafePointer<CChar>?, _ issuer: UnsafePointer<CChar>?,
                                _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let fields = try CArguments.required(secret, "secret").pointee
        let key = try Base32.decode(try CArguments.string(fields.shared_secret_key, "secret->shared_secret_key"))
        let issuerName = try CArguments.optionalString(issuer, "issuer")
        let uri = KeyURI(issuer: issuerName?.isEmpty == false ? issuerName : nil,
                         account: try CArguments.string(account, "account"), secret: key,
                         algorithm: try CArguments.algorithm(fields.algorithm), digits: Int(fields.digits),
                         period: fields.period)
        out.pointee = try CResults.cString(uri.uri())
    }
}

/// Finishes a TOTP enrollment (assertionForEnrollment + enroll) with the
/// code the user's app shows.
///
/// `session_info` comes from the secret; `display_name` may be NULL. On
/// MFA_OK, `*out` is the new factor (free with mfa_factor_info_free()) and the
/// user's earlier credentials are revoked (see mfa_token_check()). Returns
/// MFA_OK, MFA_ERR_INVALID_VERIFICATION_CODE (wrong or malformed code: the
/// user may retry), MFA_ERR_CODE_EXPIRED (past the secret's deadline),
/// MFA_ERR_INVALID_SESSION (tampered, already used, or another user's),
/// MFA_ERR_TENANT_MISMATCH, MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED,
/// MFA_ERR_OPERATION_NOT_ALLOWED, MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_totp_enroll)
public func mfa_totp_enroll(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                            _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_factor_info>?>?,
                            _ user: UnsafePointer<mfa_user>?, _ session_info: UnsafePointer<CChar>?,
                            _ otp: UnsafePointer<CChar>?, _ display_name: UnsafePointer<CChar>?,
                            _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let assertion = TOTPMultiFactorAssertion(
            target: .enrollment(sessionInfo: try CArguments.string(session_info, "session_info")),
            oneTimePassword: try CArguments.string(otp, "otp"))
        let info = try context.multiFactor(for: CUser.read(user))
            .enroll(with: assertion, displayName: try CArguments.optionalString(display_name, "display_name"))
        out.pointee = try CBlock.make { cFactorInfo(info, $0) }
    }
}

/// Frees a factor from mfa_totp_enroll(). NULL is a no-op.
@c(mfa_factor_info_free)
public func mfa_factor_info_free(_ info: UnsafeMutablePointer<mfa_factor_info>?) {
    free(info)
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
