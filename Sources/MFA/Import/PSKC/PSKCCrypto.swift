import CNettle

/// The cryptography of PSKC files (RFC 6030 §6): values encrypted with
/// AES-CBC (XML Encryption) under a pre-shared key or one derived from a
/// password with PBKDF2 (PKCS #5 v2.0), each with an HMAC of its
/// ciphertext under a MAC key the file carries, itself encrypted.
enum PSKCCrypto {
    /// An HMAC hash, by the last part of its algorithm URI (`...#hmac-sha256`).
    enum Hash: String, CaseIterable {
        case sha1 = "hmac-sha1"
        case sha256 = "hmac-sha256"
        case sha384 = "hmac-sha384"
        case sha512 = "hmac-sha512"

        /// The hash an algorithm URI names, or nil.
        init?(uri: String) {
            guard let hash = Self.allCases.first(where: { uri.lowercased().hasSuffix("#" + $0.rawValue) }) else {
                return nil
            }
            self = hash
        }

        var digestBytes: Int {
            switch self {
            case .sha1: 20
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }
    }

    /// The key size of a CBC cipher URI (`...xmlenc#aes128-cbc`), or nil for another cipher.
    static func cbcKeyBytes(_ uri: String) -> Int? {
        let lower = uri.lowercased()
        for (name, size) in [("aes128-cbc", 16), ("aes192-cbc", 24), ("aes256-cbc", 32)] where lower.hasSuffix("#" + name) {
            return size
        }
        return nil
    }

    /// HMAC of `message` under `key`.
    static func hmac(_ hash: Hash, key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: hash.digestBytes)
        switch hash {
        case .sha1:
            var context = hmac_sha1_ctx()
            nettle_hmac_sha1_set_key(&context, key.count, key)
            nettle_hmac_sha1_update(&context, message.count, message)
            nettle_hmac_sha1_digest(&context, out.count, &out)
        case .sha256:
            var context = hmac_sha256_ctx()
            nettle_hmac_sha256_set_key(&context, key.count, key)
            nettle_hmac_sha256_update(&context, message.count, message)
            nettle_hmac_sha256_digest(&context, out.count, &out)
        case .sha384:
            var context = hmac_sha512_ctx()
            nettle_hmac_sha384_set_key(&context, key.count, key)
            nettle_hmac_sha512_update(&context, message.count, message)
            nettle_hmac_sha384_digest(&context, out.count, &out)
        case .sha512:
            var context = hmac_sha512_ctx()
            nettle_hmac_sha512_set_key(&context, key.count, key)
            nettle_hmac_sha512_update(&context, message.count, message)
            nettle_hmac_sha512_digest(&context, out.count, &out)
        }
        return out
    }

    /// The most PBKDF2 iterations a file may ask for (more would let a file
    /// hold an import for minutes).
    static let maxIterations = 5_000_000

    /// PBKDF2 of `password`.
    static func pbkdf2(_ hash: Hash, password: [UInt8], salt: [UInt8], iterations: Int, length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        let rounds = UInt32(clamping: iterations)
        switch hash {
        case .sha1:
            nettle_pbkdf2_hmac_sha1(password.count, password, rounds, salt.count, salt, length, &out)
        case .sha256:
            nettle_pbkdf2_hmac_sha256(password.count, password, rounds, salt.count, salt, length, &out)
        case .sha384:
            nettle_pbkdf2_hmac_sha384(password.count, password, rounds, salt.count, salt, length, &out)
        case .sha512:
            nettle_pbkdf2_hmac_sha512(password.count, password, rounds, salt.count, salt, length, &out)
        }
        return out
    }

    /// Decrypts a CipherValue (IV, then the ciphertext) with `key`.
    /// - Returns: the plaintext, or nil if the key does not fit the cipher or the padding is wrong.
    static func decrypt(cipher uri: String, key: [UInt8], value: [UInt8]) -> [UInt8]? {
        guard let size = cbcKeyBytes(uri), key.count == size else { return nil }
        return key.withUnsafeBytes { AESBlock.decryptCBC(value, key: $0) }
    }
}
