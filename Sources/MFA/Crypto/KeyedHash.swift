import CSodium

/// BLAKE2b keyed hashes (libsodium's `crypto_generichash`) and constant-time comparison.
enum KeyedHash {
    /// A 32-byte keyed hash of `message`.
    static func hash(_ message: [UInt8], key: SecureBytes) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&out, 32, message, UInt64(message.count), key.pointer, key.count)
        return out
    }

    /// Whether `a` and `b` are equal, in time that depends only on their length.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in sodium_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 } }
    }
}
