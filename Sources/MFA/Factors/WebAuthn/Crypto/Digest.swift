import CNettle

/// The hash functions of the signature algorithms WebAuthn meets, through
/// nettle: SHA-256 (ES256, RS256, PS256), SHA-384 (ES384), SHA-512 (ES512)
/// and SHA-1 (only the RS1 signatures of TPM attestation statements and
/// the names of TPM objects).
package enum Digest: Sendable, Equatable {
    case sha1
    case sha256
    case sha384
    case sha512

    /// The digest's length in bytes.
    var length: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The digest of `bytes`.
    func hash(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        bytes.withUnsafeBufferPointer { input in
            switch self {
            case .sha1:
                var context = sha1_ctx()
                nettle_sha1_init(&context)
                nettle_sha1_update(&context, input.count, input.baseAddress)
                nettle_sha1_digest(&context, out.count, &out)
            case .sha256:
                out = SHA256.digest(bytes)
            case .sha384:
                var context = sha512_ctx()
                nettle_sha384_init(&context)
                nettle_sha512_update(&context, input.count, input.baseAddress)
                nettle_sha384_digest(&context, out.count, &out)
            case .sha512:
                var context = sha512_ctx()
                nettle_sha512_init(&context)
                nettle_sha512_update(&context, input.count, input.baseAddress)
                nettle_sha512_digest(&context, out.count, &out)
            }
        }
        return out
    }
}
