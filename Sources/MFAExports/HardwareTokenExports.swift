import CMFATypes
import Glibc
import MFA

extension CStructs {
    /// `mfa_token_seed`.
    static let tokenSeed = CVersioned<mfa_token_seed>(
        name: "seed", macro: "MFA_TOKEN_SEED_VERSION", sizes: [MemoryLayout<mfa_token_seed>.size]
    ) { version in
        mfa_token_seed(version: version, kind: 0, secret: nil, secret_len: 0, algorithm: MFA_ALG_SHA1,
                       digits: Int32(OTPLimits.defaultDigits), period: OTPLimits.defaultPeriod, counter: 0, window: -1,
                       serial: nil, public_id: nil, private_id: nil, private_id_len: 0)
    }
}

/// The caller's seed as the core's.
private func readSeed(_ pointer: UnsafePointer<mfa_token_seed>?) throws(MFAError) -> HardwareTokenSeed {
    let fields = try CStructs.tokenSeed.read(pointer)
    let serial = try CArguments.optionalString(fields.serial, "seed->serial")
    var seed: HardwareTokenSeed
    switch fields.kind {
    case MFA_FACTOR_HOTP, MFA_FACTOR_TOTP:
        let secret = Array(try CArguments.bytes(fields.secret, CArguments.size(fields.secret_len),
                                                allowed: MFAContext.importSecretBytes, "seed->secret"))
        let algorithm = try CArguments.algorithm(fields.algorithm)
        let digits = Int(fields.digits)
        seed = fields.kind == MFA_FACTOR_HOTP
            ? .hotp(secret: secret, algorithm: algorithm, digits: digits, counter: fields.counter, serial: serial)
            : .totp(secret: secret, algorithm: algorithm, digits: digits, period: fields.period, serial: serial)
        guard fields.counter < UInt64(Int64.max - 1) else {
            throw MFAError(.invalidArgument, "seed->counter is out of range")
        }
    case MFA_FACTOR_YUBICO_OTP:
        let key = Array(try CArguments.bytes(fields.secret, CArguments.size(fields.secret_len), allowed: 16...16,
                                             "seed->secret"))
        let privateID = Array(try CArguments.bytes(fields.private_id, CArguments.size(fields.private_id_len),
                                                   allowed: 6...6, "seed->private_id"))
        seed = .yubicoOTP(publicID: try CArguments.string(fields.public_id, "seed->public_id"), privateID: privateID,
                          key: key, serial: serial)
    default:
        throw MFAError(.invalidArgument, "seed->kind must be MFA_FACTOR_HOTP, MFA_FACTOR_TOTP or MFA_FACTOR_YUBICO_OTP")
    }
    guard fields.window >= -1, fields.window <= Int32(OTPLimits.window.upperBound) else {
        throw MFAError(.invalidArgument, "seed->window must be -1 or 0 to MFA_WINDOW_MAX")
    }
    if fields.window >= 0 { seed.window = Int(fields.window) }
    return seed
}

/// Fills `seed` with the defaults of struct version `version` (pass
/// MFA_TOKEN_SEED_VERSION): no kind, no key, SHA1, 6 digits, 30 s, counter
/// 0, the default window (-1), no serial. MFA_TOKEN_SEED_INIT is the same as a
/// static initializer.
///
/// Returns MFA_OK or MFA_ERR_INVALID_ARGUMENT (NULL `seed`, a version 0 or
/// newer than the library's).
@c(mfa_token_seed_init)
public func mfa_token_seed_init(_ seed: UnsafeMutablePointer<mfa_token_seed>?, _ version: UInt32) -> Int32 {
    CResults.status { () throws(MFAError) in try CStructs.tokenSeed.initialize(seed, version: version) }
}

/// Imports one hardware token (an administrative call: no session, no
/// code): as `user`'s factor, or, with `user` NULL, unassigned into the
/// inventory of `tenant` (NULL for the project), where it waits for
/// mfa_admin_token_assign() or for its user to claim it with a code
/// (mfa_enroll() with the serial). The user's tokens are not revoked; the
/// factor limit applies. Audited (MFA_AUDIT_ENROLL detail "IMPORTED", or
/// MFA_AUDIT_TOKEN_IMPORTED, with `actor`).
///
/// `out` may be NULL; else `*out` is the new factor (free with
/// mfa_factor_info_free()), or NULL for a token stored unassigned. Returns
/// MFA_OK, MFA_ERR_INVALID_ARGUMENT (the seed, a token with no user and no
/// serial, a bad actor), MFA_ERR_SECOND_FACTOR_EXISTS (the user has this key,
/// or a token of this serial or public id is in the store already),
/// MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED, MFA_ERR_CRYPTO or MFA_ERR_STORAGE_ERROR.
@c(mfa_token_import)
public func mfa_token_import(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                             _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_factor_info>?>?,
                             _ seed: UnsafePointer<mfa_token_seed>?, _ user: UnsafePointer<mfa_user>?,
                             _ tenant: UnsafePointer<CChar>?, _ display_name: UnsafePointer<CChar>?,
                             _ actor: UnsafePointer<CChar>?,
                             _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    out?.pointee = nil
    return CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let owner = try user.map { (pointer) throws(MFAError) in try CUser.read(pointer) }
        let info = try context.importToken(readSeed(seed), for: owner,
                                           tenant: try CArguments.optionalString(tenant, "tenant"),
                                           displayName: try CArguments.optionalString(display_name, "display_name"),
                                           actor: try CArguments.string(actor, "actor"))
        if let out, let info { out.pointee = try CBlock.make { cFactorInfo(info, $0) } }
    }
}

/// Lists hardware tokens by tenant (the project first) then serial, one page
/// at a time: the unassigned ones, and with MFA_TOKENS_ASSIGNED in `flags`
/// those that are users' factors too. An administrative call.
///
/// `tenant` is NULL for every tenant and the project, "" for the project
/// only, or a tenant; `limit` is 1 to MFA_ADMIN_PAGE_MAX; `cursor` is NULL
/// for the first page, else the `next_cursor` of the page before. On MFA_OK,
/// `*out` is the page (free with mfa_token_list_free()). Returns MFA_OK,
/// MFA_ERR_INVALID_ARGUMENT (limit, flags, tenant, cursor) or MFA_ERR_STORAGE_ERROR.
@c(mfa_admin_tokens_list)
public func mfa_admin_tokens_list(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                  _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_token_list>?>?,
                                  _ tenant: UnsafePointer<CChar>?, _ flags: Int32, _ limit: Int32,
                                  _ cursor: UnsafePointer<CChar>?,
                                  _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        guard flags & ~MFA_TOKENS_ASSIGNED == 0 else {
            throw MFAError(.invalidArgument, "flags must be 0 or MFA_TOKENS_ASSIGNED")
        }
        let page = try context.listTokens(tenant: TenantFilter(try CArguments.optionalString(tenant, "tenant")),
                                          includeAssigned: flags & MFA_TOKENS_ASSIGNED != 0, limit: Int(limit),
                                          cursor: try CArguments.optionalString(cursor, "cursor"))
        out.pointee = try CBlock.make { arena in
            mfa_token_list(count: page.tokens.count, items: arena.array(page.tokens) { token in
                mfa_token(serial: arena.string(token.serial), factor_id: arena.string(token.factorID),
                          kind: cKind(token.factorID), tenant: arena.string(token.tenant),
                          public_id: arena.string(token.publicID), issuer: arena.string(token.issuer),
                          uid: arena.string(token.uid), enrollment_id: arena.string(token.enrollmentID), time: token.time)
            }, next_cursor: arena.string(page.nextCursor))
        }
    }
}

/// Frees a page from mfa_admin_tokens_list(). NULL is a no-op.
@c(mfa_token_list_free)
public func mfa_token_list_free(_ list: UnsafeMutablePointer<mfa_token_list>?) {
    free(list)
}

/// Assigns the unassigned token `serial` (a YubiKey's serial or public id)
/// of `tenant` (NULL for the project) to the user `uid`: it becomes the
/// user's factor and leaves the inventory, in one transaction. An
/// administrative call; the factor limit applies; the user's tokens are
/// not revoked. Audited (MFA_AUDIT_TOKEN_ASSIGNED and MFA_AUDIT_ENROLL detail
/// "ASSIGNED", with `actor`).
///
/// `display_name` may be NULL. On MFA_OK, `*out` is the new factor (free with
/// mfa_factor_info_free()). Returns MFA_OK, MFA_ERR_TOKEN_NOT_FOUND,
/// MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED, MFA_ERR_INVALID_ARGUMENT,
/// MFA_ERR_CRYPTO or MFA_ERR_STORAGE_ERROR.
@c(mfa_admin_token_assign)
public func mfa_admin_token_assign(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                   _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_factor_info>?>?,
                                   _ serial: UnsafePointer<CChar>?, _ uid: UnsafePointer<CChar>?,
                                   _ tenant: UnsafePointer<CChar>?, _ display_name: UnsafePointer<CChar>?,
                                   _ actor: UnsafePointer<CChar>?,
                                   _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let info = try context.assignToken(serial: try CArguments.string(serial, "serial"),
                                           uid: try CArguments.string(uid, "uid"),
                                           tenant: try CArguments.optionalString(tenant, "tenant"),
                                           displayName: try CArguments.optionalString(display_name, "display_name"),
                                           actor: try CArguments.string(actor, "actor"))
        out.pointee = try CBlock.make { cFactorInfo(info, $0) }
    }
}

/// Removes the unassigned token `serial` of `tenant` (NULL for the project)
/// from the inventory. An administrative call, audited
/// (MFA_AUDIT_TOKEN_REMOVED, with `actor`); a token that is a user's factor
/// is removed as a factor (mfa_admin_unenroll()).
///
/// Returns MFA_OK, MFA_ERR_TOKEN_NOT_FOUND, MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_admin_token_remove)
public func mfa_admin_token_remove(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ serial: UnsafePointer<CChar>?,
                                   _ tenant: UnsafePointer<CChar>?, _ actor: UnsafePointer<CChar>?,
                                   _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        try context.removeToken(serial: try CArguments.string(serial, "serial"),
                                tenant: try CArguments.optionalString(tenant, "tenant"),
                                actor: try CArguments.string(actor, "actor"))
    }
}
