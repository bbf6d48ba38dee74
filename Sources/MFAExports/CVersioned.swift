import CMFATypes
import Glibc
import MFA

/// A C struct that starts with a `uint32_t version` and grows only at its
/// end, one version per addition (see "Versioned structs" in mfa_types.h).
///
/// A caller compiled against an older header has an older, smaller struct:
/// libmfa reads and writes only the bytes of the version the caller names,
/// and the fields that version lacks keep their defaults. A version newer
/// than this library knows is `invalidArgument`.
struct CVersioned<Fields>: Sendable {
    /// The struct's name in messages ("options").
    let name: String
    /// The version macro's name ("MFA_OPTIONS_VERSION").
    let macro: String
    /// `sizes[v - 1]`: how many bytes of the struct version `v` has. When a
    /// version adds fields, append `MemoryLayout<Fields>.size` and keep the
    /// earlier entries (each the offset of the first field added after it).
    let sizes: [Int]
    /// The defaults of every field, with `version` set to the argument.
    let defaults: @Sendable (UInt32) -> Fields

    /// The newest version this library knows.
    var current: UInt32 { UInt32(sizes.count) }

    /// The bytes version `version` has; `invalidArgument` for 0 or a newer one.
    func size(of version: UInt32) throws(MFAError) -> Int {
        guard version >= 1, version <= current else {
            throw MFAError(.invalidArgument, "\(name) version \(version) is not 1 to \(macro) (\(current))")
        }
        return sizes[Int(version) - 1]
    }

    /// `mfa_<name>_init`: writes the defaults of `version` into the caller's
    /// struct, and nothing past that version's fields.
    func initialize(_ pointer: UnsafeMutablePointer<Fields>?, version: UInt32) throws(MFAError) {
        let pointer = try CArguments.required(pointer, name)
        let count = try size(of: version)
        let fields = defaults(version)
        withUnsafeBytes(of: fields) { source in
            UnsafeMutableRawBufferPointer(start: pointer, count: count)
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<count]))
        }
    }

    /// The caller's struct, read up to the fields of the version it names;
    /// later fields get their defaults.
    /// - Throws: `invalidArgument` for NULL or a version this library does not know.
    func read(_ pointer: UnsafePointer<Fields>?) throws(MFAError) -> Fields {
        let pointer = try CArguments.required(pointer, name)
        let version = UnsafeRawPointer(pointer).loadUnaligned(as: UInt32.self)
        let count = try size(of: version)
        var fields = defaults(version)
        withUnsafeMutableBytes(of: &fields) { target in
            UnsafeMutableRawBufferPointer(rebasing: target[0..<count])
                .copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: count))
        }
        return fields
    }
}

/// The versioned structs of mfa_types.h.
enum CStructs {
    /// `mfa_options`.
    static let options = CVersioned<mfa_options>(
        name: "options", macro: "MFA_OPTIONS_VERSION",
        sizes: [MemoryLayout<mfa_options>.offset(of: \.webauthn_trust) ?? 0,
                MemoryLayout<mfa_options>.offset(of: \.metrics) ?? 0, MemoryLayout<mfa_options>.size]
    ) { version in
        mfa_options(version: version, store: nil, master_key: mfa_master_key(id: nil, key: nil),
                    previous_keys: nil, previous_key_count: 0, clock: nil, clock_context: nil, random: nil,
                    random_context: nil, audit: nil, audit_context: nil, sms_sender: nil, sms_sender_context: nil,
                    sms_outbox: nil, app_verifier: nil, app_verifier_context: nil, webauthn_trust: nil,
                    webauthn_trust_context: nil, metrics: MFA_METRICS_ON,
                    metrics_tenants: UInt32(MFA_METRICS_TENANTS_DEFAULT), audit_chain: nil, hsm_module: nil,
                    hsm_token: nil, hsm_slot: -1, hsm_key: nil, hsm_pin: nil, hsm_pin_file: nil, hsm_pin_env: nil,
                    key_wrap: nil, key_unwrap: nil, key_provider_context: nil, email_sender: nil,
                    email_sender_context: nil, email_outbox: nil)
    }

    /// `mfa_trail_query`.
    static let auditQuery = CVersioned<mfa_trail_query>(
        name: "query", macro: "MFA_TRAIL_QUERY_VERSION", sizes: [MemoryLayout<mfa_trail_query>.size]
    ) { version in
        mfa_trail_query(version: version, tenant: nil, uid: nil, kind: 0, kind_name: nil, since: Int64.min,
                        until: Int64.max, chain: nil, after_seq: 0, after_time: 0, after_chain: nil, limit: 100,
                        latest: 0)
    }

    /// `mfa_user`.
    static let user = CVersioned<mfa_user>(
        name: "user", macro: "MFA_USER_VERSION", sizes: [MemoryLayout<mfa_user>.size]
    ) { version in
        mfa_user(version: version, uid: nil, tenant: nil, email: nil, email_verified: 0,
                 provider: StaticCStrings.password, auth_time: 0)
    }

    /// `mfa_totp_params`.
    static let totpParams = CVersioned<mfa_totp_params>(
        name: "params", macro: "MFA_TOTP_PARAMS_VERSION", sizes: [MemoryLayout<mfa_totp_params>.size]
    ) { version in
        mfa_totp_params(version: version, algorithm: MFA_ALG_SHA1, digits: Int32(OTPLimits.defaultDigits),
                        period: OTPLimits.defaultPeriod, t0: 0)
    }

    /// `mfa_key_uri`.
    static let keyURI = CVersioned<mfa_key_uri>(
        name: "uri", macro: "MFA_KEY_URI_VERSION", sizes: [MemoryLayout<mfa_key_uri>.size]
    ) { version in
        mfa_key_uri(version: version, type: MFA_OTP_TOTP, issuer: nil, account: nil, secret: nil, secret_len: 0,
                    algorithm: MFA_ALG_SHA1, digits: Int32(OTPLimits.defaultDigits),
                    period: OTPLimits.defaultPeriod, counter: 0)
    }

    /// `mfa_assertion`.
    static let assertion = CVersioned<mfa_assertion>(
        name: "assertion", macro: "MFA_ASSERTION_VERSION",
        sizes: [MemoryLayout<mfa_assertion>.offset(of: \.credential) ?? 0,
                MemoryLayout<mfa_assertion>.offset(of: \.serial) ?? 0, MemoryLayout<mfa_assertion>.size]
    ) { version in
        mfa_assertion(version: version, kind: 0, enrollment_id: nil, session_info: nil, verification_id: nil,
                      code: nil, credential: nil, serial: nil, next_code: nil)
    }

    /// `mfa_webauthn_options`.
    static let webAuthnOptions = CVersioned<mfa_webauthn_options>(
        name: "options", macro: "MFA_WEBAUTHN_OPTIONS_VERSION", sizes: [MemoryLayout<mfa_webauthn_options>.size]
    ) { version in
        mfa_webauthn_options(version: version, authenticator_attachment: nil, user_verification: nil,
                             resident_key: nil, hints: nil, algorithms: nil, algorithm_count: 0)
    }
}
