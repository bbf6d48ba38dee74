import CMFATypes
import MFA

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
