import CSodium

/// A new token's id and its seal's nonce, drawn from libsodium's CSPRNG in
/// one call (one `getrandom` instead of two) when the context's random
/// source is the system's: both are then what two draws would have given,
/// fresh bytes from the kernel. A context with a host's source draws the id
/// from that source and leaves the nonce to `SecretBox`, which never takes
/// one from a host (a deterministic source must not repeat a nonce).
package struct FreshDraw {
    /// The token id (16 bytes).
    package let tokenID: [UInt8]
    /// The nonce, or nil for `SecretBox` to draw its own.
    package let nonce: FreshNonce?

    /// The length of a token id.
    package static let tokenIDBytes = 16

    /// Draws the id from `random`, and the nonce with it when `random` is
    /// `SystemRandom` (`system`, as the context found once).
    package init(_ random: any RandomSource, system: Bool) throws(MFAError) {
        guard system, SecretBox.nonceBytes == 24 else {
            tokenID = try random.bytes(Self.tokenIDBytes)
            nonce = nil
            return
        }
        try Sodium.ensureReady()
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        tokenID = withUnsafeMutableBytes(of: &words) { (raw) -> [UInt8] in
            randombytes_buf(raw.baseAddress!, Self.tokenIDBytes + SecretBox.nonceBytes)
            return Array(raw.prefix(Self.tokenIDBytes))
        }
        nonce = FreshNonce(words: (words.2, words.3, words.4))
    }
}

/// A nonce of `SecretBox.nonceBytes` bytes fresh from libsodium's CSPRNG
/// (only `FreshDraw` makes one), used for a single seal.
package struct FreshNonce {
    private let words: (UInt64, UInt64, UInt64)

    fileprivate init(words: (UInt64, UInt64, UInt64)) {
        self.words = words
    }

    /// Writes the nonce to `target` (`SecretBox.nonceBytes` long).
    package func copy(to target: UnsafeMutableRawBufferPointer) {
        withUnsafeBytes(of: words) { target.copyMemory(from: $0) }
    }
}
