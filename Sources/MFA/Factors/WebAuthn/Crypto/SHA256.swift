import CNettle

/// SHA-256 through nettle: the hashes WebAuthn takes of the client data and the rp id.
enum SHA256 {
    /// The 32-byte digest of `bytes`.
    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var context = sha256_ctx()
        nettle_sha256_init(&context)
        bytes.withUnsafeBufferPointer { nettle_sha256_update(&context, $0.count, $0.baseAddress) }
        var out = [UInt8](repeating: 0, count: 32)
        nettle_sha256_digest(&context, 32, &out)
        return out
    }
}
