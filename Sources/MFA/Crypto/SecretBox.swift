import CSodium

/// XChaCha20-Poly1305 (libsodium's IETF construction) with a random nonce
/// stored in front of the ciphertext.
///
/// Nonces always come from libsodium's CSPRNG, never from a host's injected
/// random source: a deterministic test generator must not be able to make
/// two messages share a nonce.
enum SecretBox {
    static let nonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagBytes = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    /// `nonce || ciphertext || tag` of `plaintext`, bound to `associated`.
    static func seal(_ plaintext: UnsafeRawBufferPointer, key: SecureBytes,
                     associated: [UInt8]) throws(MFAError) -> [UInt8] {
        try seal(plaintext, key: key, associated: associated, nonce: nil)
    }

    /// `seal`, with the nonce drawn from libsodium's CSPRNG by the caller
    /// together with other fresh bytes (`FreshDraw`), or here when nil.
    static func seal(_ plaintext: UnsafeRawBufferPointer, key: SecureBytes, associated: [UInt8],
                     nonce drawn: FreshNonce?) throws(MFAError) -> [UInt8] {
        try Sodium.ensureReady()
        var out = [UInt8](repeating: 0, count: nonceBytes + plaintext.count + tagBytes)
        out.withUnsafeMutableBufferPointer { buffer in
            let nonce = buffer.baseAddress!
            if let drawn {
                drawn.copy(to: UnsafeMutableRawBufferPointer(start: nonce, count: nonceBytes))
            } else {
                randombytes_buf(nonce, nonceBytes)
            }
            var written: UInt64 = 0
            _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                nonce + nonceBytes, &written, plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self),
                UInt64(plaintext.count), associated, UInt64(associated.count), nil, nonce, key.pointer)
        }
        return out
    }

    /// `seal` of an array.
    static func seal(_ plaintext: [UInt8], key: SecureBytes, associated: [UInt8],
                     nonce: FreshNonce? = nil) throws(MFAError) -> [UInt8] {
        try withBytes(of: plaintext) { (buffer) throws(MFAError) in
            try seal(buffer, key: key, associated: associated, nonce: nonce)
        }
    }

    /// The plaintext, decrypted into guarded memory, or nil if `sealed` was
    /// not made with this key and associated data.
    static func open(_ sealed: [UInt8], key: SecureBytes, associated: [UInt8]) throws(MFAError) -> SecureBytes? {
        guard sealed.count >= nonceBytes + tagBytes, Sodium.isReady else { return nil }
        let out = try SecureBytes(count: sealed.count - nonceBytes - tagBytes)
        let status = out.withMutableBytes { output in
            sealed.withUnsafeBufferPointer { input in
                var written: UInt64 = 0
                return crypto_aead_xchacha20poly1305_ietf_decrypt(
                    output.baseAddress?.assumingMemoryBound(to: UInt8.self), &written, nil,
                    input.baseAddress! + nonceBytes, UInt64(input.count - nonceBytes), associated,
                    UInt64(associated.count), input.baseAddress!, key.pointer)
            }
        }
        return status == 0 ? out : nil
    }
}
