/// Something that holds a key-encryption key libmfa never sees, and wraps
/// and unwraps the store's data keys with it (envelope encryption).
///
/// With a provider, the 32-byte keys that seal the store's secrets (its
/// *data keys*, each a `MasterKey`) are kept in the store wrapped by the
/// provider's key (`mfa_data_keys`). At open, libmfa asks the provider to
/// unwrap them into guarded memory; the provider's own key stays where it
/// is (an HSM token, a cloud KMS, Vault transit). Rotating the provider's
/// key re-wraps the data keys (`MFAContext.rewrapDataKeys(to:actor:)`),
/// without touching any sealed record.
///
/// Providers: `PKCS11KeyProvider` (any HSM with a PKCS#11 module, SoftHSM2
/// in the tests) and `HostKeyProvider` (the host's own wrap and unwrap
/// functions). A provider's errors are `keyProviderUnavailable`,
/// `keyProviderLogin`, `keyProviderKeyNotFound`, or `keyMismatch` for a
/// key under the label that does not unwrap what it wrapped (replaced);
/// their messages never hold a PIN.
public protocol KeyProvider: Sendable {
    /// The provider's kind, stored beside each wrapped key (`"pkcs11"`, `"host"`).
    var kind: String { get }
    /// The label of the provider's key new data keys are wrapped with.
    var keyLabel: String { get }

    /// Wraps a data key under the provider's key named `label`.
    /// - Parameters:
    ///   - key: the data key's 32 bytes (read them, never keep them).
    ///   - label: the provider's key to wrap with.
    ///   - context: bytes the wrapping must be bound to (the data key's id),
    ///     passed again to `unwrap`.
    /// - Returns: the wrapped key, opaque to libmfa (at most 4096 bytes).
    func wrap(_ key: UnsafeRawBufferPointer, label: String, context: [UInt8]) throws(MFAError) -> [UInt8]

    /// Unwraps a data key wrapped by `wrap` under the provider's key `label`
    /// straight into `key`, 32 bytes of libmfa's guarded memory.
    func unwrap(_ wrapped: [UInt8], label: String, context: [UInt8],
                into key: UnsafeMutableRawBufferPointer) throws(MFAError)
}

/// The limits shared by every provider.
package enum KeyProviderLimits {
    /// The longest key label accepted (PKCS#11 labels, KMS key names, Vault key names).
    package static let maxLabelBytes = 256
    /// The longest wrapped key accepted from a provider.
    package static let maxWrappedBytes = 4096

    /// Checks a key label: 1 to 256 bytes, no control character.
    /// - Throws: `invalidArgument`.
    package static func checkLabel(_ label: String, _ what: String = "the key label") throws(MFAError) {
        guard !label.isEmpty, label.utf8.count <= maxLabelBytes,
              !label.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw MFAError(.invalidArgument, "\(what) must be 1 to \(maxLabelBytes) bytes without a control character")
        }
    }
}
