import CMFATypes
import MFA

/// A host's C wrap and unwrap functions as a `HostKeyProvider`.
enum CKeyProvider {
    /// The provider, or nil if neither function is set.
    /// - Throws: `invalidArgument` if only one is set, or no label.
    static func make(wrap: mfa_key_wrap_fn?, unwrap: mfa_key_unwrap_fn?, context: UnsafeMutableRawPointer?,
                     label: String?) throws(MFAError) -> HostKeyProvider? {
        guard wrap != nil || unwrap != nil else { return nil }
        guard let wrap, let unwrap else {
            throw MFAError(.invalidArgument, "set both options->key_wrap and options->key_unwrap")
        }
        guard let label else {
            throw MFAError(.invalidArgument, "options->hsm_key must name the host's key with key_wrap")
        }
        let box = ContextBox(pointer: context)
        return try HostKeyProvider(keyLabel: label, wrap: { (key, label, aad) throws(MFAError) -> [UInt8] in
            var out = [UInt8](repeating: 0, count: 4096)
            var written = 0
            let status = label.withCString { name in
                aad.withUnsafeBufferPointer { aadBuffer in
                    out.withUnsafeMutableBufferPointer { outBuffer in
                        wrap(box.pointer, name, key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count,
                             aadBuffer.baseAddress, aadBuffer.count, outBuffer.baseAddress, outBuffer.count, &written)
                    }
                }
            }
            try check(status, "wrap")
            guard written > 0, written <= out.count else {
                throw MFAError(.keyProviderUnavailable, "the host's key wrap function wrote \(written) bytes")
            }
            return Array(out[..<written])
        }, unwrap: { (wrapped, label, aad, key) throws(MFAError) in
            let status = label.withCString { name in
                wrapped.withUnsafeBufferPointer { wrappedBuffer in
                    aad.withUnsafeBufferPointer { aadBuffer in
                        unwrap(box.pointer, name, wrappedBuffer.baseAddress, wrappedBuffer.count, aadBuffer.baseAddress,
                               aadBuffer.count, key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count)
                    }
                }
            }
            try check(status, "unwrap")
        })
    }

    /// The host's status as an error.
    private static func check(_ status: Int32, _ call: String) throws(MFAError) {
        switch status {
        case MFA_OK.rawValue: return
        case MFA_ERR_KEY_PROVIDER_LOGIN.rawValue:
            throw MFAError(.keyProviderLogin, "the host's key \(call) function refused its credentials")
        case MFA_ERR_KEY_PROVIDER_KEY_NOT_FOUND.rawValue:
            throw MFAError(.keyProviderKeyNotFound, "the host's key \(call) function found no such key")
        case MFA_ERR_KEY_MISMATCH.rawValue where call == "unwrap":
            throw MFAError(.keyMismatch, "the host's key does not unwrap the store's data key (replaced?)")
        default:
            throw MFAError(.keyProviderUnavailable, "the host's key \(call) function failed (status \(status))")
        }
    }

    /// The host's context pointer, passed back untouched.
    private struct ContextBox: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer?
    }
}

/// The key provider the options name (version 3 fields), or nil.
enum CHSMOptions {
    /// The host's functions as a provider, else the PKCS#11 module's, else nil.
    /// - Throws: `invalidArgument` for an incomplete or contradictory set of
    ///   fields, or a PIN that cannot be read (its file or variable named).
    static func provider(_ fields: mfa_options) throws(MFAError) -> (any KeyProvider)? {
        let module = try CArguments.optionalString(fields.hsm_module, "options->hsm_module")
        let label = try CArguments.optionalString(fields.hsm_key, "options->hsm_key")
        let tokenLabel = try CArguments.optionalString(fields.hsm_token, "options->hsm_token")
        let pins = [try CArguments.optionalString(fields.hsm_pin, "options->hsm_pin"),
                    try CArguments.optionalString(fields.hsm_pin_file, "options->hsm_pin_file"),
                    try CArguments.optionalString(fields.hsm_pin_env, "options->hsm_pin_env")]
        guard fields.hsm_slot >= -1 else { throw MFAError(.invalidArgument, "options->hsm_slot must be -1 or a slot id") }
        if module == nil, tokenLabel != nil || fields.hsm_slot >= 0 || pins.contains(where: { $0 != nil }) {
            throw MFAError(.invalidArgument, "options->hsm_token, hsm_slot and the PIN need options->hsm_module")
        }
        if let host = try CKeyProvider.make(wrap: fields.key_wrap, unwrap: fields.key_unwrap,
                                            context: fields.key_provider_context, label: label) {
            guard module == nil else {
                throw MFAError(.invalidArgument, "set options->hsm_module or options->key_wrap, not both")
            }
            return host
        }
        guard let module else {
            guard label == nil else {
                throw MFAError(.invalidArgument, "options->hsm_key needs options->hsm_module or key_wrap")
            }
            return nil
        }
        guard let label else { throw MFAError(.invalidArgument, "options->hsm_key must name the key in the token") }
        let token: PKCS11KeyProvider.Token
        if let name = tokenLabel {
            token = .label(name)
        } else if fields.hsm_slot >= 0 {
            token = .slot(UInt(fields.hsm_slot))
        } else {
            throw MFAError(.invalidArgument, "set options->hsm_token or options->hsm_slot")
        }
        guard pins.compactMap({ $0 }).count == 1 else {
            throw MFAError(.invalidArgument, "set one of options->hsm_pin, hsm_pin_file and hsm_pin_env")
        }
        let pin: String
        if let given = pins[0] {
            pin = given
        } else if let path = pins[1] {
            pin = try PKCS11PIN.fromFile(path)
        } else {
            pin = try PKCS11PIN.fromEnvironment(pins[2] ?? "")
        }
        return try PKCS11KeyProvider(module: module, token: token, keyLabel: label, pin: pin)
    }
}
