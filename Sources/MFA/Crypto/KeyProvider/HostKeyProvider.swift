/// A key provider made of the host's own functions: the host wraps and
/// unwraps data keys with a key it holds elsewhere (a cloud KMS, Vault's
/// transit engine), without libmfa linking that service's SDK.
///
/// The functions are called at open (unwrap, once per data key; wrap, once
/// when a store gets its first data key) and when the provider's key is
/// rotated (`MFAContext.rewrapDataKeys(to:actor:)`), never on a sign-in.
public struct HostKeyProvider: KeyProvider {
    /// Wraps `key` under the host's key `label`, bound to `context`; returns
    /// at most 4096 bytes.
    public typealias Wrap = @Sendable (_ key: UnsafeRawBufferPointer, _ label: String,
                                       _ context: [UInt8]) throws(MFAError) -> [UInt8]
    /// Unwraps `wrapped` (made by `Wrap` under `label` with `context`) into
    /// `key`, 32 bytes of libmfa's guarded memory.
    public typealias Unwrap = @Sendable (_ wrapped: [UInt8], _ label: String, _ context: [UInt8],
                                         _ key: UnsafeMutableRawBufferPointer) throws(MFAError) -> Void

    /// The label of the host's key new data keys are wrapped with.
    public let keyLabel: String
    private let wrapFunction: Wrap
    private let unwrapFunction: Unwrap

    /// `"host"`.
    public var kind: String { "host" }

    /// Creates a provider from the host's functions.
    /// - Throws: `invalidArgument` for a bad label (1 to 256 bytes, no control character).
    public init(keyLabel: String, wrap: @escaping Wrap, unwrap: @escaping Unwrap) throws(MFAError) {
        try KeyProviderLimits.checkLabel(keyLabel)
        self.keyLabel = keyLabel
        wrapFunction = wrap
        unwrapFunction = unwrap
    }

    /// Calls the host's wrap function.
    public func wrap(_ key: UnsafeRawBufferPointer, label: String, context: [UInt8]) throws(MFAError) -> [UInt8] {
        try wrapFunction(key, label, context)
    }

    /// Calls the host's unwrap function.
    public func unwrap(_ wrapped: [UInt8], label: String, context: [UInt8],
                       into key: UnsafeMutableRawBufferPointer) throws(MFAError) {
        try unwrapFunction(wrapped, label, context, key)
    }
}
