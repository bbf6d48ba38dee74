import CSodium

/// Randomness from libsodium's CSPRNG (the kernel's `getrandom`).
public enum SecureRandom {
    /// Fills `buffer` with random bytes.
    /// - Throws: `crypto` if libsodium could not start.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(MFAError) {
        try Sodium.ensureReady()
        if let base = buffer.baseAddress, buffer.count > 0 {
            randombytes_buf(base, buffer.count)
        }
    }

    /// `count` random bytes.
    public static func bytes(_ count: Int) throws(MFAError) -> [UInt8] {
        guard count >= 0 else { throw MFAError(.invalidArgument, "count must not be negative") }
        try Sodium.ensureReady()
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { if let base = $0.baseAddress { randombytes_buf(base, $0.count) } }
        return out
    }

    /// A fresh OTP shared secret.
    /// - Parameter count: its length in bytes, 16 to 128; 20 (160 bits) by default.
    /// - Throws: `invalidArgument` for a length out of range.
    public static func secret(bytes count: Int = OTPLimits.defaultSecretBytes) throws(MFAError) -> [UInt8] {
        guard OTPLimits.secretBytes.contains(count) else {
            throw MFAError(.invalidArgument, "a secret must be 16 to 128 bytes")
        }
        return try bytes(count)
    }

    /// A uniformly distributed number below `upperBound` (no modulo bias).
    public static func uniform(_ upperBound: UInt32) throws(MFAError) -> UInt32 {
        try Sodium.ensureReady()
        return randombytes_uniform(upperBound)
    }
}
