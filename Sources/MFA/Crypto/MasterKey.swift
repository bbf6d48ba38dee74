import CSodium

/// A 32-byte master key and the id that names it in stored records.
///
/// Secrets at rest and opaque tokens are protected by keys derived from it
/// (libsodium's `crypto_kdf`), one per purpose, so a key never serves two uses.
public struct MasterKey: Sendable {
    /// The key's length in bytes.
    public static let byteCount = 32

    /// The key id stored beside everything the key encrypts (1 to 64 printable ASCII characters).
    public let id: String
    /// Subkey for TOTP secrets and phone numbers at rest.
    let secretsKey: [UInt8]
    /// Subkey for opaque tokens (sessions, pending credentials, verification ids).
    let tokensKey: [UInt8]
    /// Subkey for keyed hashes of SMS codes.
    let codesKey: [UInt8]

    /// Creates a master key.
    /// - Parameters:
    ///   - id: a short name for the key, such as `"2026-11"`.
    ///   - bytes: 32 random bytes, kept secret by the host.
    /// - Throws: `invalidArgument` for a key that is not 32 bytes or a bad id.
    public init(id: String, bytes: [UInt8]) throws(MFAError) {
        guard bytes.count == Self.byteCount else {
            throw MFAError(.invalidArgument, "the master key must be 32 bytes")
        }
        guard !id.isEmpty, id.utf8.count <= 64, id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw MFAError(.invalidArgument, "the master key id must be 1 to 64 printable ASCII characters")
        }
        try Sodium.ensureReady()
        self.id = id
        secretsKey = Self.derive(bytes, subkey: 1)
        tokensKey = Self.derive(bytes, subkey: 2)
        codesKey = Self.derive(bytes, subkey: 3)
    }

    private static func derive(_ master: [UInt8], subkey: UInt64) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let context: [CChar] = Array("libmfa01".utf8CString.prefix(8))
        out.withUnsafeMutableBufferPointer { output in
            master.withUnsafeBufferPointer { key in
                context.withUnsafeBufferPointer { name in
                    _ = crypto_kdf_derive_from_key(output.baseAddress!, 32, subkey, name.baseAddress!, key.baseAddress!)
                }
            }
        }
        return out
    }
}

/// The current master key and the earlier ones still needed to read old records.
public struct MasterKeyring: Sendable {
    /// The key everything new is encrypted with.
    public let current: MasterKey
    /// Earlier keys, for records not yet re-encrypted (see `MFAContext.rotateKeys`).
    public let previous: [MasterKey]

    /// Creates a keyring.
    /// - Throws: `invalidArgument` if two keys share an id.
    public init(current: MasterKey, previous: [MasterKey] = []) throws(MFAError) {
        let ids = [current.id] + previous.map(\.id)
        guard Set(ids).count == ids.count else {
            throw MFAError(.invalidArgument, "master key ids must be unique")
        }
        self.current = current
        self.previous = previous
    }

    /// Every key, the current one first.
    var all: [MasterKey] { [current] + previous }

    /// The key with this id.
    func key(id: String) -> MasterKey? { all.first { $0.id == id } }
}
