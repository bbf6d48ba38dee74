import CMFATypes
import Glibc
import MFA

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

/// Imports a TOTP factor the user already has elsewhere (an app provisioned
/// by another server), without a code: an administrative call, authorised by
/// the host. Only `user->uid` and `user->tenant` are used.
///
/// `secret` is 10 to 128 raw bytes; `params` may be NULL for SHA1, 6 digits,
/// 30 s (T0 must be 0); `display_name` may be NULL. On MFA_OK, `*out` is the
/// new factor (free with mfa_factor_info_free()). Returns MFA_OK,
/// MFA_ERR_INVALID_ARGUMENT, MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED or
/// MFA_ERR_STORAGE_ERROR.
@c(mfa_totp_import)
public func mfa_totp_import(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                            _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_factor_info>?>?,
                            _ user: UnsafePointer<mfa_user>?, _ secret: UnsafePointer<UInt8>?, _ secret_len: UInt,
                            _ params: UnsafePointer<mfa_totp_params>?, _ display_name: UnsafePointer<CChar>?,
                            _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let key = try CArguments.bytes(secret, secret_len, allowed: MFAContext.importSecretBytes, "secret")
        let p = try totpParameters(params)
        let totp = try TOTP(secret: Array(key), algorithm: p.algorithm, digits: p.digits, period: p.period, t0: p.t0)
        let info = try context.importTOTPFactor(for: CUser.read(user), totp: totp,
                                                displayName: CArguments.optionalString(display_name, "display_name"))
        out.pointee = try CBlock.make { cFactorInfo(info, $0) }
    }
}

/// Imports a TOTP factor from an otpauth://totp/ URI (see mfa_totp_import()).
///
/// Returns MFA_OK, MFA_ERR_INVALID_URI, MFA_ERR_INVALID_ARGUMENT (an HOTP URI,
/// secret length), MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED or MFA_ERR_STORAGE_ERROR.
@c(mfa_totp_import_uri)
public func mfa_totp_import_uri(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_factor_info>?>?,
                                _ user: UnsafePointer<mfa_user>?, _ uri: UnsafePointer<CChar>?,
                                _ display_name: UnsafePointer<CChar>?,
                                _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let info = try context.importTOTPFactor(for: CUser.read(user), uri: CArguments.string(uri, "uri"),
                                                displayName: CArguments.optionalString(display_name, "display_name"))
        out.pointee = try CBlock.make { cFactorInfo(info, $0) }
    }
}

extension CAssertions {
    /// A TOTP assertion: `session_info` and `code` to enroll, `enrollment_id` and `code` to sign in.
    static func totpAssertion(_ fields: mfa_assertion, _ purpose: Purpose) throws(MFAError) -> MultiFactorAssertion {
        let code = try CArguments.string(fields.code, "assertion->code")
        switch purpose {
        case .enrollment:
            let session = try CArguments.string(fields.session_info, "assertion->session_info")
            // With a serial, the assertion claims an unassigned TOTP hardware token.
            if let serial = try CArguments.optionalString(fields.serial, "assertion->serial") {
                return TOTPMultiFactorAssertion(target: .claim(session: session, serial: serial), oneTimePassword: code)
            }
            return TOTPMultiFactorAssertion(target: .enrollment(sessionInfo: session), oneTimePassword: code)
        case .signIn:
            return TOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: try CArguments.string(fields.enrollment_id, "assertion->enrollment_id"),
                oneTimePassword: code)
        }
    }
}
