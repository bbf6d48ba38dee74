import MFA

/// Fills `out` with a fresh random OTP secret of `len` bytes from libsodium's CSPRNG.
///
/// `len` must be MFA_SECRET_MIN_BYTES (16) to MFA_SECRET_MAX_BYTES (128);
/// MFA_SECRET_DEFAULT_BYTES (20) is what RFC 4226 recommends.
/// Returns MFA_OK, MFA_ERR_INVALID_ARGUMENT (NULL `out`, bad length) or MFA_ERR_CRYPTO.
/// Thread-safe.
@c(mfa_random_secret)
public func mfa_random_secret(_ out: UnsafeMutablePointer<UInt8>?, _ len: UInt) -> Int32 {
    CResults.status { () throws(MFAError) in
        let out = try CArguments.required(out, "out")
        guard len >= 16, len <= 128 else {
            throw MFAError(.invalidArgument, "a secret must be 16 to 128 bytes")
        }
        try SecureRandom.fill(UnsafeMutableRawBufferPointer(start: out, count: Int(len)))
    }
}
