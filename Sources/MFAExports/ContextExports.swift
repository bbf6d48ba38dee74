import CMFATypes
import MFA

/// Fills `options` with the defaults of struct version `version` (pass
/// MFA_OPTIONS_VERSION): no store, no key, the system clock and randomness,
/// no callbacks, and `version` itself. Only the fields that version has are
/// written (see "Versioned structs" in mfa_types.h); MFA_OPTIONS_INIT is the
/// same as a static initializer.
///
/// Returns MFA_OK or MFA_ERR_INVALID_ARGUMENT (NULL `options`, a version 0 or
/// newer than the library's).
@c(mfa_options_init)
public func mfa_options_init(_ options: UnsafeMutablePointer<mfa_options>?, _ version: UInt32) -> Int32 {
    CResults.status { () throws(MFAError) in try CStructs.options.initialize(options, version: version) }
}

/// Opens the MFA engine on a store (creating and migrating it as needed).
///
/// On MFA_OK, `*out` is a context to release with mfa_close(). The options'
/// strings and keys are copied; the callbacks and their contexts must stay
/// valid until mfa_close(). Options of an older struct version are read up
/// to that version's fields. Returns MFA_OK, MFA_ERR_INVALID_ARGUMENT (NULL
/// pointers, a version 0 or newer than the library's, more than 64 previous
/// keys, a key that is not MFA_MASTER_KEY_BYTES long, duplicate key ids, both
/// a sender and an outbox for SMS or for email, an empty email outbox, a
/// store location meant for another database: see mfa_options.store; a
/// metrics value that is not MFA_METRICS_*, or with MFA_METRICS_BY_TENANT
/// a metrics_tenants outside 1 to MFA_METRICS_TENANTS_MAX; a bad
/// audit_chain), MFA_ERR_KEY_MISMATCH (the store keeps a check value for a
/// key id given, as the master key or a previous key, and the key given
/// under that id is another one; the message names the id; nothing was read
/// or written) or
/// MFA_ERR_STORAGE_ERROR (the store cannot be opened, or was written by a
/// newer libmfa). With a key provider (options->hsm_module, or key_wrap and
/// key_unwrap; version 3), the data keys are unwrapped by it and its
/// failures are named, never a fallback to another key:
/// MFA_ERR_KEY_PROVIDER_UNAVAILABLE (the module does not load, no such
/// token, the HSM failed), MFA_ERR_KEY_PROVIDER_LOGIN (the PIN refused),
/// MFA_ERR_KEY_PROVIDER_KEY_NOT_FOUND (no key under the label the store's
/// data keys are wrapped with: deleted) and MFA_ERR_KEY_MISMATCH (the key
/// under that label does not unwrap them: replaced). No message holds the
/// PIN. `err` as everywhere (see mfa.h).
@c(mfa_open)
public func mfa_open(_ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_ctx>?>?,
                     _ options: UnsafePointer<mfa_options>?,
                     _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let fields = try CStructs.options.read(options)
        let previousCount = CArguments.size(fields.previous_key_count)
        guard previousCount <= 64 else {
            throw MFAError(.invalidArgument, "options->previous_key_count must be 0 to 64")
        }
        var previous: [MasterKey] = []
        if previousCount > 0 {
            let keys = try CArguments.required(fields.previous_keys, "options->previous_keys")
            for index in 0..<Int(previousCount) { previous.append(try masterKey(keys[index])) }
        }
        let store = try CArguments.string(fields.store, "options->store")
        var swiftOptions: MFAOptions
        if let provider = try CHSMOptions.provider(fields) {
            guard fields.master_key.id == nil, fields.master_key.key == nil, previousCount == 0 else {
                throw MFAError(.invalidArgument, "with a key provider (options->hsm_module or key_wrap), leave "
                    + "options->master_key and previous_keys unset")
            }
            swiftOptions = MFAOptions(store: store, keyProvider: provider)
        } else {
            swiftOptions = MFAOptions(store: store, keyring: try MasterKeyring(current: masterKey(fields.master_key),
                                                                              previous: previous))
        }
        if let clock = fields.clock { swiftOptions.clock = CClock(function: clock, context: fields.clock_context) }
        if let random = fields.random {
            swiftOptions.random = CRandom(function: random, context: fields.random_context)
        }
        if let audit = fields.audit {
            let sink = CAudit(function: audit, context: fields.audit_context)
            swiftOptions.audit = { sink.deliver($0) }
        }
        if let outbox = try CArguments.optionalString(fields.sms_outbox, "options->sms_outbox") {
            guard fields.sms_sender == nil else {
                throw MFAError(.invalidArgument, "set options->sms_sender or options->sms_outbox, not both")
            }
            swiftOptions.smsSender = OutboxSMSSender(path: outbox, clock: swiftOptions.clock)
        }
        if let sender = fields.sms_sender {
            swiftOptions.smsSender = CSMSSender(function: sender, context: fields.sms_sender_context)
        }
        if let outbox = try CArguments.optionalString(fields.email_outbox, "options->email_outbox") {
            guard fields.email_sender == nil else {
                throw MFAError(.invalidArgument, "set options->email_sender or options->email_outbox, not both")
            }
            guard !outbox.isEmpty else { throw MFAError(.invalidArgument, "options->email_outbox is empty") }
            swiftOptions.emailSender = OutboxEmailSender(path: outbox, clock: swiftOptions.clock)
        }
        if let sender = fields.email_sender {
            swiftOptions.emailSender = CEmailSender(function: sender, context: fields.email_sender_context)
        }
        if let verifier = fields.app_verifier {
            swiftOptions.appVerifier = CAppVerifier(function: verifier, context: fields.app_verifier_context)
        }
        if let trust = fields.webauthn_trust {
            swiftOptions.attestationTrust = CWebAuthnTrust(function: trust, context: fields.webauthn_trust_context)
        }
        swiftOptions.metrics = try metricsOptions(fields.metrics, tenants: fields.metrics_tenants)
        if let chain = try CArguments.optionalString(fields.audit_chain, "options->audit_chain") {
            swiftOptions.auditChain = chain
        }
        out.pointee = CContext.handle(try MFAContext(options: swiftOptions))
    }
}

/// The metrics of `mfa_options.metrics` and `metrics_tenants`.
private func metricsOptions(_ metrics: Int32, tenants: UInt32) throws(MFAError) -> MetricsOptions {
    switch metrics {
    case MFA_METRICS_ON: return .on
    case MFA_METRICS_OFF: return .off
    case MFA_METRICS_BY_TENANT:
        guard tenants >= 1, tenants <= UInt32(MFA_METRICS_TENANTS_MAX) else {
            throw MFAError(.invalidArgument, "options->metrics_tenants must be 1 to MFA_METRICS_TENANTS_MAX")
        }
        return .byTenant(limit: Int(tenants))
    default:
        throw MFAError(.invalidArgument, "options->metrics must be MFA_METRICS_ON, MFA_METRICS_OFF or "
            + "MFA_METRICS_BY_TENANT")
    }
}

private func masterKey(_ key: mfa_master_key) throws(MFAError) -> MasterKey {
    let id = try CArguments.string(key.id, "master key id")
    let bytes = try CArguments.bytes(key.key, UInt(MFA_MASTER_KEY_BYTES), allowed: 32...32, "master key")
    return try MasterKey(id: id, buffer: bytes)  // derived straight from the caller's memory: no copy
}

/// Closes a context and its store. NULL is a no-op. The context must not be
/// in use by another thread, and must not be used again.
@c(mfa_close)
public func mfa_close(_ ctx: UnsafeMutablePointer<mfa_ctx>?) {
    guard let ctx else { return }
    (try? CContext.get(ctx))?.close()
    CContext.release(ctx)
}

/// Stores the MFA configuration of the project (`tenant` NULL) or of a
/// tenant, replacing the previous one (a field it does not name takes its
/// default: a document without "state" turns MFA off), as JSON:
/// {"state": "DISABLED|ENABLED|MANDATORY", "providers": {"totp": "ENABLED|DISABLED",
/// "phone": ..., "recovery": ..., "webauthn": ..., "email": ...}, "totp":
/// {"adjacentIntervals": 0..10}, "phone": {"appVerification":
/// "REQUIRED|DISABLED"}, "testPhoneNumbers": {"+15555550100": "123456"},
/// "recoveryCodes": {"count": 8..16}, "email": {"codeLifetime": 60..3600,
/// ..., "enrollVerifiedSignInEmail": false}, "limits": {...},
/// "rememberedDevices": {"state": "DISABLED|ENABLED", "days": 1..90,
/// "sliding": false, "maxPerUser": 1..100}}. The shapes the guides write are accepted too: the Admin SDK's
/// {"multiFactorConfig": {"state", "factorIds", "providerConfigs"}} and the
/// REST API's {"mfa": {...}} / {"mfaConfig": {...}} with "enabledProviders",
/// integers also as strings. Every field is optional; a tenant's fields
/// override the project's. Disabling a provider stops new enrollments;
/// factors already enrolled keep working and stay required. Returns MFA_OK,
/// MFA_ERR_INVALID_ARGUMENT (malformed JSON, an unknown field, a value out of
/// range: adjacentIntervals outside 0..10, more than 10 test numbers, a test
/// code that is not six digits, a webauthn.rpId that is a public suffix or
/// an IP address, a webauthn origin with its scheme's default port or
/// outside the rp id, judged with the project's section under a tenant's;
/// `err` names it) or MFA_ERR_STORAGE_ERROR.
@c(mfa_config_set_json)
public func mfa_config_set_json(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ tenant: UnsafePointer<CChar>?,
                                _ json: UnsafePointer<CChar>?,
                                _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        try context.setConfig(json: try CArguments.string(json, "json"),
                              tenant: try CArguments.optionalString(tenant, "tenant"))
    }
}

/// Changes only what `json` names in the stored configuration of the
/// project (`tenant` NULL) or of a tenant, like the service's
/// updateProjectConfig / updateTenant: objects merge field by field,
/// testPhoneNumbers is replaced whole, and everything not named stays. It
/// accepts the same shapes as mfa_config_set_json(). Returns MFA_OK,
/// MFA_ERR_INVALID_ARGUMENT (`err` names the field; nothing is changed) or
/// MFA_ERR_STORAGE_ERROR.
@c(mfa_config_update_json)
public func mfa_config_update_json(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ tenant: UnsafePointer<CChar>?,
                                   _ json: UnsafePointer<CChar>?,
                                   _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        try context.updateConfig(json: try CArguments.string(json, "json"),
                                 tenant: try CArguments.optionalString(tenant, "tenant"))
    }
}

/// The effective configuration of the project or a tenant, every field
/// written out, as JSON in `*out` (free with mfa_free()).
/// Returns MFA_OK, MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_config_get_json)
public func mfa_config_get_json(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                _ tenant: UnsafePointer<CChar>?,
                                _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        out.pointee = try CResults.cString(context.configJSON(tenant: CArguments.optionalString(tenant, "tenant")))
    }
}

/// Re-encrypts every stored secret that is not under the current master key.
/// Afterwards stored factors no longer need the previous keys; keep them in
/// previous_keys until the tokens they sealed have expired (10 minutes by
/// default), or those sessions and credentials become invalid. `*out_count` (if not
/// NULL) receives the number of records re-encrypted. It runs to the end in
/// batches of 500 records, each its own transaction; mfa_rotate_keys_batched()
/// takes the batch size, reports progress and can stop. Returns MFA_OK,
/// MFA_ERR_CRYPTO (a record's key was not given) or MFA_ERR_STORAGE_ERROR.
@c(mfa_rotate_keys)
public func mfa_rotate_keys(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ out_count: UnsafeMutablePointer<UInt>?,
                            _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let count = try CContext.get(ctx).rotateKeys()
        out_count?.pointee = UInt(count)
    }
}

/// Deletes pending TOTP secrets past their deadline and the records of used
/// tokens that have expired. Returns MFA_OK or MFA_ERR_STORAGE_ERROR.
@c(mfa_purge_expired)
public func mfa_purge_expired(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                              _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in try CContext.get(ctx).purgeExpired() }
}
