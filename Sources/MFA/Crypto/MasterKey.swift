import CSodium

/// A 32-byte master key and the id that names it in stored records.
///
/// Secrets at rest, opaque tokens and keyed hashes are protected by keys
/// derived from it (libsodium's `crypto_kdf`), one per purpose, so a key
/// never serves two uses. The derived keys live in guarded memory
/// (`SecureBytes`) and are wiped when the last copy of the key goes away,
/// as when a context closes; the master key itself is not kept.
public struct MasterKey: Sendable {
    /// The key's length in bytes.
    public static let byteCount = 32

    /// The key id stored beside everything the key encrypts (1 to 64 printable ASCII characters).
    public let id: String
    /// Subkey for TOTP secrets, phone numbers and other factor payloads at rest.
    let secretsKey: SecureBytes
    /// Subkey for opaque tokens (sessions, pending credentials, verification ids).
    let tokensKey: SecureBytes
    /// Subkey for keyed hashes (SMS codes, SMS budget names).
    let codesKey: SecureBytes
    /// The key's check value (`KeyCheck`): a MAC of a fixed label and the id,
    /// kept in the store so that another key under this id is noticed at open.
    /// It reveals nothing of the key.
    package let checkValue: [UInt8]
    /// Subkey for the MACs of the stored audit trail (`AuditMAC`, subkey 5).
    let auditKey: SecureBytes

    /// Creates a master key from an array (the caller keeps, and should wipe, its copy).
    /// - Parameters:
    ///   - id: a short name for the key, such as `"2026-11"`.
    ///   - bytes: 32 random bytes, kept secret by the host.
    /// - Throws: `invalidArgument` for a key that is not 32 bytes or a bad id.
    public init(id: String, bytes: [UInt8]) throws(MFAError) {
        let keys = try withBytes(of: bytes) { (buffer) throws(MFAError) in try Self.subkeys(id: id, buffer) }
        self.id = id
        (secretsKey, tokensKey, codesKey, checkValue, auditKey) = keys
    }

    /// Creates a master key straight from the caller's memory, without copying
    /// the key anywhere but into the derivation.
    /// - Throws: `invalidArgument` for a key that is not 32 bytes or a bad id.
    public init(id: String, buffer: UnsafeRawBufferPointer) throws(MFAError) {
        let keys = try Self.subkeys(id: id, buffer)
        self.id = id
        (secretsKey, tokensKey, codesKey, checkValue, auditKey) = keys
    }

    /// Checks the id and the key, and derives the four subkeys and the check value.
    private static func subkeys(id: String, _ buffer: UnsafeRawBufferPointer) throws(MFAError)
        -> (SecureBytes, SecureBytes, SecureBytes, [UInt8], SecureBytes) {
        guard buffer.count == Self.byteCount, let master = buffer.baseAddress else {
            throw MFAError(.invalidArgument, "the master key must be 32 bytes")
        }
        guard !id.isEmpty, id.utf8.count <= 64, id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw MFAError(.invalidArgument, "the master key id must be 1 to 64 printable ASCII characters")
        }
        try Sodium.ensureReady()
        return (try derive(master, subkey: 1), try derive(master, subkey: 2), try derive(master, subkey: 3),
                KeyCheck.value(id: id, checkKey: try derive(master, subkey: KeyCheck.subkey)),
                try derive(master, subkey: AuditMAC.subkey))
    }

    private static func derive(_ master: UnsafeRawPointer, subkey: UInt64) throws(MFAError) -> SecureBytes {
        let out = try SecureBytes(count: 32)
        let status = out.withMutableBytes { output in
            "libmfa01".withCString { context in
                crypto_kdf_derive_from_key(output.baseAddress!.assumingMemoryBound(to: UInt8.self), 32, subkey,
                                           context, master.assumingMemoryBound(to: UInt8.self))
            }
        }
        guard status == 0 else { throw MFAError(.crypto, "the master key could not be derived") }
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

    /// The key with this id (the current one, as for nearly every record, found without building `all`).
    func key(id: String) -> MasterKey? {
        current.id == id ? current : previous.first { $0.id == id }
    }
}
