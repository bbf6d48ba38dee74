import CSodium

/// Where libmfa's randomness comes from: secrets, ids, SMS codes.
///
/// Hosts inject their own to make tests deterministic. (Encryption nonces
/// never come from here; see `SecretBox`.)
public protocol RandomSource: Sendable {
    /// Fills `buffer` with random bytes.
    /// - Throws: any `MFAError`; it is passed on to the caller of the operation.
    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(MFAError)
}

/// libsodium's CSPRNG: the default source.
public struct SystemRandom: RandomSource {
    /// Creates the system source.
    public init() {}

    /// Fills `buffer` from `randombytes_buf`.
    public func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(MFAError) {
        try SecureRandom.fill(buffer)
    }
}

/// How many words `RandomSource.uniform` draws before it gives up.
let uniformMaxDraws = 64

extension RandomSource {
    /// `count` random bytes.
    func bytes(_ count: Int) throws(MFAError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let result: Result<Void, MFAError> = out.withUnsafeMutableBytes { buffer in
            Result { () throws(MFAError) in try fill(buffer) }
        }
        try result.get()
        return out
    }

    /// A uniformly distributed number below `bound`, by rejection sampling (no modulo bias).
    ///
    /// At most `uniformMaxDraws` words are drawn: for any bound a draw from a
    /// working source is refused at most half the time, so it fails them all
    /// with a probability of at most 2^-64; a broken one (a host callback that
    /// always returns 0xFF bytes) is `crypto`, not an endless loop.
    /// - Throws: `crypto` when no draw was usable, `internal` for a zero bound.
    func uniform(_ bound: UInt32) throws(MFAError) -> UInt32 {
        guard bound > 0 else { throw MFAError(.internal, "uniform needs a bound above 0") }
        let limit = UInt32.max - UInt32.max % bound
        for _ in 0..<uniformMaxDraws {
            let word = try bytes(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            if word < limit { return word % bound }
        }
        throw MFAError(.crypto, "the random source produced no usable value in \(uniformMaxDraws) draws")
    }

    /// `count` random characters of the unpadded URL-safe base64 alphabet.
    func identifier(bytes count: Int) throws(MFAError) -> String {
        Base64URL.encode(try bytes(count))
    }
}
