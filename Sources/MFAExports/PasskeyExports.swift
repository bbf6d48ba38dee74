import CMFATypes
import Glibc
import MFA

/// The PublicKeyCredentialRequestOptions of a sign-in with a passkey alone,
/// before anyone is known, as JSON in `*out` (free with mfa_free()): hand
/// it to the browser's navigator.credentials.get({publicKey:
/// PublicKeyCredential.parseRequestOptionsFromJSON(options), mediation:
/// "conditional"}) for the username field's autofill (an input with
/// autocomplete="username webauthn"), or without `mediation` for a "Sign in
/// with a passkey" button.
///
/// allowCredentials is empty (the browser offers the passkeys it holds for
/// the rp id), userVerification is "required", and the challenge is a fresh
/// libmfa token bound to `tenant` (NULL for the project), expiring after
/// webauthn.timeout. Nothing about any user is read: the answer is the same
/// whoever asks. Of `options` (NULL for none), the hints apply.
///
/// Returns MFA_OK, MFA_ERR_OPERATION_NOT_ALLOWED (WebAuthn disabled, no
/// webauthn.rpId, or webauthn.passkeySignIn not true),
/// MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_passkey_sign_in_options)
public func mfa_passkey_sign_in_options(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                        _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                        _ tenant: UnsafePointer<CChar>?,
                                        _ options: UnsafePointer<mfa_webauthn_options>?,
                                        _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let json = try context.passkeySignInOptions(tenant: try CArguments.optionalString(tenant, "tenant"),
                                                    options: try CWebAuthnOptions.read(options))
        out.pointee = try CResults.cString(json)
    }
}

/// Signs a user in with a passkey alone (first and second factor at once:
/// possession of the key, and the user verified by the authenticator):
/// `credential_json` is the browser's credential (toJSON()) answering
/// mfa_passkey_sign_in_options(), `tenant` the tenant the host serves (NULL
/// for the project).
///
/// The credential is found by its id among the tenant's; it must be a
/// passkey (discoverable, registered with user verification) and its
/// userHandle the user's. Origin, rp id, flags (UP and UV), signature and
/// counter are checked as for a second factor, with the same rules: the
/// challenge is used once, failures count toward backoff, every attempt is
/// audited (MFA_AUDIT_PASSKEY_SIGN_IN_SUCCESS / _FAILURE), a challenge made
/// before the user's tokens were revoked is refused.
///
/// On MFA_OK, `*out` is the result (free with mfa_sign_in_result_free()):
/// the user, factor_id "webauthn", the credential's enrollment id, and the
/// claims sign_in_second_factor, second_factor_identifier, sign_in_method
/// "passkey", amr ("hwk user mfa" for a device-bound key, "swk user mfa" for
/// a synced passkey), webauthn_user_verified, webauthn_key ("synced passkey"
/// or "device-bound key") and webauthn_backed_up.
///
/// A refusal never tells whether an account or a credential exists: an
/// unknown credential, another tenant's, a removed one, one that is not a
/// passkey, another user handle and a wrong signature all return
/// MFA_ERR_INVALID_VERIFICATION_CODE with the same message. Other results,
/// each about the response itself or told only to the passkey's holder:
/// MFA_ERR_INVALID_ARGUMENT (malformed, or no userHandle),
/// MFA_ERR_INVALID_SESSION (another ceremony's challenge, expired, used),
/// MFA_ERR_TENANT_MISMATCH, MFA_ERR_ORIGIN_MISMATCH, MFA_ERR_RP_ID_MISMATCH,
/// MFA_ERR_USER_VERIFICATION_REQUIRED, MFA_ERR_OPERATION_NOT_ALLOWED,
/// MFA_ERR_TOO_MANY_ATTEMPTS_TRY_LATER, MFA_ERR_USER_TOKEN_EXPIRED,
/// MFA_ERR_CREDENTIAL_CLONED, MFA_ERR_CRYPTO or MFA_ERR_STORAGE_ERROR.
@c(mfa_passkey_sign_in)
public func mfa_passkey_sign_in(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_sign_in_result>?>?,
                                _ tenant: UnsafePointer<CChar>?, _ credential_json: UnsafePointer<CChar>?,
                                _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let result = try context.signInWithPasskey(
            credentialJSON: try CArguments.string(credential_json, "credential_json"),
            tenant: try CArguments.optionalString(tenant, "tenant"))
        out.pointee = try cSignInResult(result)
    }
}

/// A user's WebAuthn credentials, oldest first, in `*out` (free with
/// mfa_webauthn_credential_list_free()): which are passkeys that sign in
/// without a password, which are synced (the backup flags), how each was
/// attested. An operator's call, like mfa_admin_user_factors(): no session.
///
/// Returns MFA_OK (an empty list for a user with none),
/// MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_webauthn_credentials_list)
public func mfa_webauthn_credentials_list(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                          _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_webauthn_credential_list>?>?,
                                          _ tenant: UnsafePointer<CChar>?, _ uid: UnsafePointer<CChar>?,
                                          _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let credentials = try context.webAuthnCredentials(uid: try CArguments.string(uid, "uid"),
                                                          tenant: try CArguments.optionalString(tenant, "tenant"))
        out.pointee = try CBlock.make { arena in
            mfa_webauthn_credential_list(count: credentials.count, items: arena.array(credentials) { info in
                mfa_webauthn_credential_info(
                    enrollment_id: arena.string(info.enrollmentID), display_name: arena.string(info.displayName),
                    enrollment_time: info.enrollmentDate, credential_id: arena.bytes(info.credentialID),
                    credential_id_len: info.credentialID.count, algorithm: Int32(clamping: info.algorithm),
                    aaguid: arena.bytes(info.aaguid), transports: arena.string(info.transports.joined(separator: ",")),
                    discoverable: info.discoverable.map { $0 ? 1 : 0 } ?? -1, user_verified: info.userVerified ? 1 : 0,
                    backup_flags: (info.backupEligible ? UInt32(MFA_WEBAUTHN_FLAG_BE) : 0)
                        | (info.backedUp ? UInt32(MFA_WEBAUTHN_FLAG_BS) : 0),
                    passkey: info.isPasskey ? 1 : 0, backup: arena.string(info.backup), sign_count: info.signCount,
                    attestation_format: arena.string(info.attestationFormat),
                    attestation_kind: arena.string(info.attestationKind), last_used_at: info.lastUsedAt)
            })
        }
    }
}

/// Frees a list from mfa_webauthn_credentials_list(). NULL is a no-op.
@c(mfa_webauthn_credential_list_free)
public func mfa_webauthn_credential_list_free(_ list: UnsafeMutablePointer<mfa_webauthn_credential_list>?) {
    free(list)
}

/// Fills `*options` with the defaults of struct version `version` (every
/// field "as configured"); pass MFA_WEBAUTHN_OPTIONS_VERSION.
///
/// Returns MFA_OK, or MFA_ERR_INVALID_ARGUMENT (NULL, or a version this
/// library does not know).
@c(mfa_webauthn_options_init)
public func mfa_webauthn_options_init(_ options: UnsafeMutablePointer<mfa_webauthn_options>?,
                                      _ version: UInt32) -> Int32 {
    CResults.status(nil) { () throws(MFAError) in
        try CStructs.webAuthnOptions.initialize(options, version: version)
    }
}

/// `mfa_webauthn_options` read into the core's `WebAuthnCeremonyOptions`.
enum CWebAuthnOptions {
    /// The options at `pointer`, or the defaults for NULL.
    /// - Throws: `invalidArgument` naming the field that is not one of its values.
    static func read(_ pointer: UnsafePointer<mfa_webauthn_options>?) throws(MFAError) -> WebAuthnCeremonyOptions {
        guard pointer != nil else { return WebAuthnCeremonyOptions() }
        let fields = try CStructs.webAuthnOptions.read(pointer)
        var options = WebAuthnCeremonyOptions()
        options.authenticatorAttachment = try value(fields.authenticator_attachment, "authenticator_attachment")
        options.userVerification = try value(fields.user_verification, "user_verification")
        options.residentKey = try value(fields.resident_key, "resident_key")
        if let hints = try CArguments.optionalString(fields.hints, "options->hints"), !hints.isEmpty {
            options.hints = []
            for name in hints.split(separator: ",", omittingEmptySubsequences: false) {
                guard let hint = WebAuthnHint(rawValue: String(name)) else {
                    throw MFAError(.invalidArgument, "options->hints: each must be security-key, client-device or hybrid")
                }
                options.hints.append(hint)
            }
        }
        if let list = fields.algorithms {
            guard fields.algorithm_count >= 1, fields.algorithm_count <= Int(MFA_WEBAUTHN_ALGORITHMS_MAX) else {
                throw MFAError(.invalidArgument, "options->algorithm_count must be 1 to MFA_WEBAUTHN_ALGORITHMS_MAX")
            }
            var algorithms: [WebAuthnAlgorithm] = []
            for raw in UnsafeBufferPointer(start: list, count: fields.algorithm_count) {
                guard let algorithm = WebAuthnAlgorithm(rawValue: Int64(raw)) else {
                    throw MFAError(.invalidArgument, "options->algorithms: \(raw) is not an MFA_COSE_* algorithm")
                }
                algorithms.append(algorithm)
            }
            options.algorithms = algorithms
        } else if fields.algorithm_count != 0 {
            throw MFAError(.invalidArgument, "options->algorithm_count must be 0 when algorithms is NULL")
        }
        return options
    }

    private static func value<T: RawRepresentable & CaseIterable>(_ pointer: UnsafePointer<CChar>?,
                                                                   _ name: String) throws(MFAError) -> T?
        where T.RawValue == String {
        guard let text = try CArguments.optionalString(pointer, "options->" + name) else { return nil }
        guard let found = T(rawValue: text) else {
            throw MFAError(.invalidArgument, "options->\(name) must be "
                + T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") + " or NULL")
        }
        return found
    }
}
