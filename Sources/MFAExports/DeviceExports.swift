import CMFATypes
import Glibc
import MFA

/// The C layout of a remembered device, its strings placed in `arena`.
private func cDevice(_ device: RememberedDevice, _ arena: CArena) -> mfa_remembered_device {
    mfa_remembered_device(device_id: arena.string(device.id), tenant: arena.string(device.tenant),
                          uid: arena.string(device.uid), label: arena.string(device.label),
                          created_at: device.createdAt, last_used_at: device.lastUsedAt, expires_at: device.expiresAt)
}

/// Remembers the device a sign-in finished on, and gives its token
/// ("remember this device"): call it right after mfa_resolve() (or
/// mfa_resolve_totp(), mfa_resolve_phone()) succeeded, with that sign-in's
/// pending credential. Only a sign-in that passed a second factor can
/// remember its device, and each remembers one. `label` is the host's name
/// for the device ("Firefox on Linux", at most 256 bytes) or NULL. libmfa
/// keeps only a keyed hash of the token. At the user's limit
/// (rememberedDevices.maxPerUser) the device used least recently is
/// forgotten. Audited (MFA_AUDIT_DEVICE_REMEMBERED).
///
/// On MFA_OK, `*out` is the token and its device (free with
/// mfa_device_token_free()). Returns MFA_OK, MFA_ERR_OPERATION_NOT_ALLOWED
/// (rememberedDevices.state is not ENABLED for the tenant),
/// MFA_ERR_INVALID_SESSION (the sign-in did not finish with a second factor,
/// already remembered a device, or is too old), MFA_ERR_USER_TOKEN_EXPIRED,
/// MFA_ERR_TENANT_MISMATCH, MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_device_remember)
public func mfa_device_remember(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_device_token>?>?,
                                _ pending_credential: UnsafePointer<CChar>?, _ tenant: UnsafePointer<CChar>?,
                                _ label: UnsafePointer<CChar>?,
                                _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let token = try context.rememberDevice(
            pendingCredential: try CArguments.string(pending_credential, "pending_credential"),
            tenant: try CArguments.optionalString(tenant, "tenant"),
            label: try CArguments.optionalString(label, "label"))
        out.pointee = try CBlock.make { arena in
            mfa_device_token(token: arena.string(token.token), device: cDevice(token.device, arena))
        }
    }
}

/// Frees a device token, wiping the token first. NULL is a no-op.
@c(mfa_device_token_free)
public func mfa_device_token_free(_ token: UnsafeMutablePointer<mfa_device_token>?) {
    guard let token else { return }
    if let text = token.pointee.token { memset(UnsafeMutableRawPointer(mutating: text), 0, strlen(text)) }
    free(token)
}

/// Reports a successful first factor for `user`, with the device token the
/// user's device sent (NULL or "" for none): mfa_sign_in() for a device that
/// may be remembered.
///
/// Returns MFA_OK with `*out_result` set when the user is signed in: its
/// factor_id is "remembered_device" (MFA_REMEMBERED_DEVICE_FACTOR_ID) and
/// its enrollment_id the device's id when the token named one of the user's
/// remembered devices that has not expired (audited as
/// MFA_AUDIT_SIGN_IN_SUCCESS of that factor id), or NULL when the user
/// needed no second factor. Returns MFA_ERR_SECOND_FACTOR_REQUIRED with
/// `*out_resolver` a resolver (free with mfa_resolver_free()) otherwise: a
/// token that is malformed, unknown, another user's or tenant's, altered,
/// expired or revoked, or given while rememberedDevices is off, is ignored
/// (audited MFA_AUDIT_DEVICE_REFUSED, with the reason); nothing in the
/// answer says why. Free `*out_result` with mfa_sign_in_result_free(). Other
/// results as mfa_sign_in(): MFA_ERR_ENROLLMENT_REQUIRED,
/// MFA_ERR_UNSUPPORTED_FIRST_FACTOR, MFA_ERR_INVALID_ARGUMENT,
/// MFA_ERR_STORAGE_ERROR.
@c(mfa_sign_in_remembered)
public func mfa_sign_in_remembered(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                   _ out_result: UnsafeMutablePointer<UnsafeMutablePointer<mfa_sign_in_result>?>?,
                                   _ out_resolver: UnsafeMutablePointer<UnsafeMutablePointer<mfa_resolver>?>?,
                                   _ user: UnsafePointer<mfa_user>?, _ device_token: UnsafePointer<CChar>?,
                                   _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var required = false
    let status = CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let result = try CArguments.required(out_result, "out_result")
        let resolver = try CArguments.required(out_resolver, "out_resolver")
        result.pointee = nil
        resolver.pointee = nil
        let token = try CArguments.optionalString(device_token, "device_token").flatMap { $0.isEmpty ? nil : $0 }
        switch try context.signIn(CUser.read(user), deviceToken: token) {
        case .signedIn(let signedIn):
            result.pointee = try cSignInResult(signedIn)
        case .secondFactorRequired(let pending):
            resolver.pointee = try cResolver(pending)
            required = true
        }
    }
    guard status == 0, required else { return status }
    err?.pointee = try? CResults.cString(MFAErrorCode.secondFactorRequired.summary)
    return MFAErrorCode.secondFactorRequired.rawValue
}

/// A user's remembered devices that have not expired, the most recently
/// used first, for the user's account page (through the host) or an
/// operator. `tenant` is NULL for the project.
///
/// On MFA_OK, `*out` is the list (free with mfa_remembered_device_list_free()).
/// Returns MFA_OK, MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_devices_list)
public func mfa_devices_list(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                             _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_remembered_device_list>?>?,
                             _ tenant: UnsafePointer<CChar>?, _ uid: UnsafePointer<CChar>?,
                             _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let devices = try context.rememberedDevices(uid: try CArguments.string(uid, "uid"),
                                                    tenant: try CArguments.optionalString(tenant, "tenant"))
        out.pointee = try CBlock.make { arena in
            mfa_remembered_device_list(count: devices.count, items: arena.array(devices) { cDevice($0, arena) })
        }
    }
}

/// Frees a list of remembered devices. NULL is a no-op.
@c(mfa_remembered_device_list_free)
public func mfa_remembered_device_list_free(_ list: UnsafeMutablePointer<mfa_remembered_device_list>?) {
    free(list)
}

/// Forgets one of a user's remembered devices (`device_id`), or every one
/// (NULL): their tokens no longer stand in for a second factor. The user's
/// own call, through the host (an account page's "forget this device").
/// A user's devices are also forgotten by mfa_revoke_tokens() (call it when
/// the password changes), by the removal of the user's last factor, and by
/// an operator's reset or delete. Audited (MFA_AUDIT_DEVICE_REVOKED, one
/// event per device). `*out_count` (if not NULL) receives how many were
/// forgotten.
///
/// Returns MFA_OK, MFA_ERR_DEVICE_NOT_FOUND (the user has no device with
/// this id), MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_devices_revoke)
public func mfa_devices_revoke(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ out_count: UnsafeMutablePointer<UInt>?,
                               _ tenant: UnsafePointer<CChar>?, _ uid: UnsafePointer<CChar>?,
                               _ device_id: UnsafePointer<CChar>?,
                               _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        out_count?.pointee = 0
        let count = try CContext.get(ctx).revokeRememberedDevices(
            uid: try CArguments.string(uid, "uid"), tenant: try CArguments.optionalString(tenant, "tenant"),
            deviceID: try CArguments.optionalString(device_id, "device_id"))
        out_count?.pointee = UInt(count)
    }
}

/// An operator forgets one of a user's remembered devices (`device_id`) or
/// every one (NULL), as mfa_devices_revoke() does; audited with `actor`
/// (1 to MFA_ACTOR_MAX_BYTES bytes; detail ADMIN).
///
/// Returns MFA_OK, MFA_ERR_DEVICE_NOT_FOUND, MFA_ERR_INVALID_ARGUMENT (a bad
/// actor, uid or tenant) or MFA_ERR_STORAGE_ERROR.
@c(mfa_admin_devices_revoke)
public func mfa_admin_devices_revoke(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ out_count: UnsafeMutablePointer<UInt>?,
                                     _ tenant: UnsafePointer<CChar>?, _ uid: UnsafePointer<CChar>?,
                                     _ device_id: UnsafePointer<CChar>?, _ actor: UnsafePointer<CChar>?,
                                     _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        out_count?.pointee = 0
        let count = try CContext.get(ctx).adminRevokeRememberedDevices(
            uid: try CArguments.string(uid, "uid"), tenant: try CArguments.optionalString(tenant, "tenant"),
            deviceID: try CArguments.optionalString(device_id, "device_id"),
            actor: try CArguments.string(actor, "actor"))
        out_count?.pointee = UInt(count)
    }
}
