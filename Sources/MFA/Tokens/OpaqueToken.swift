/// What an opaque token is for; a token opened for another purpose is invalid.
package enum TokenPurpose: UInt8, Sendable {
    /// A `MultiFactorSession` for enrollment.
    case enrollmentSession = 1
    /// A TOTP secret's `sessionInfo`, naming the pending enrollment.
    case totpEnrollment = 2
    /// A sign-in pending credential (the resolver's session).
    case signIn = 3
    /// A phone verification id.
    case phoneVerification = 4
    /// A WebAuthn registration challenge (of an enrollment session).
    case webAuthnRegistration = 5
    /// A WebAuthn authentication challenge (of a pending credential).
    case webAuthnAuthentication = 6
    /// An email verification id.
    case emailVerification = 7
    /// A passkey sign-in challenge: of no user yet, bound to its tenant;
    /// its `epoch` is when it was made (ms), for the users' revocations.
    /// (7 is reserved for email verifications.)
    case passkeySignIn = 8
}

/// What an opaque token says, readable only by libmfa.
package struct TokenClaims: Sendable, Equatable {
    /// The purpose the token was minted for.
    package var purpose: TokenPurpose
    /// 16 random bytes: the token's identity for single-use bookkeeping.
    package var id: [UInt8]
    /// The tenant ("" for the project).
    package var tenant: String
    /// The user.
    package var uid: String
    /// Unix time after which the token is expired.
    package var expires: Int64
    /// A record the token points at (a pending enrollment, a verification), or "".
    package var reference: String
    /// The user's revocation epoch when the token was minted: once the user's
    /// tokens are revoked (enroll, unenroll, the host's revoke call), the
    /// epoch moves on and every token of an earlier epoch is refused.
    package var epoch: Int64
    /// The expiry of the token `id` belongs to, when this one was derived
    /// from another (a TOTP `sessionInfo` or an enrollment verification id
    /// from their session); else `expires`. Single-use records of `id` are
    /// kept until the later of the two has passed.
    package var parentExpires: Int64

    package init(purpose: TokenPurpose, id: [UInt8], tenant: String, uid: String, expires: Int64,
                 reference: String = "", epoch: Int64, parentExpires: Int64? = nil) {
        self.purpose = purpose
        self.id = id
        self.tenant = tenant
        self.uid = uid
        self.expires = expires
        self.reference = reference
        self.epoch = epoch
        self.parentExpires = parentExpires ?? expires
    }

    /// Until when a record that `id` was used must be kept: the token's own
    /// sealed expiry (or its parent's, if later) plus `skew`, whatever the
    /// configuration says by then.
    package func consumedUntil(skew: Int64) -> Int64 {
        max(expires, parentExpires).plus(skew)
    }
}

/// Opaque tokens: the claims, sealed with XChaCha20-Poly1305 under a key
/// derived from the master key, as unpadded URL-safe base64 after a `v2.`
/// prefix. Clients learn nothing from a token, cannot change it without
/// detection, and any server sharing the master key can open it.
package enum OpaqueToken {
    /// The longest token text accepted.
    package static let maxLength = 4096
    private static let prefix: StaticString = "v2."
    private static let associated = Array("libmfa token v2".utf8)
    /// purpose, expires, id, epoch, parent expiry.
    private static let fixedBytes = 1 + 8 + 16 + 8 + 8

    /// Seals `claims` under the keyring's current key, with `nonce` if one
    /// was drawn with the token's id (`FreshDraw`).
    static func seal(_ claims: TokenClaims, keyring: MasterKeyring,
                     nonce: FreshNonce?) throws(MFAError) -> String {
        guard claims.id.count == 16 else { throw MFAError(.internal, "a token id must be 16 bytes") }
        let texts = (claims.tenant.utf8.count, claims.uid.utf8.count, claims.reference.utf8.count)
        guard texts.0 <= 1024, texts.1 <= 1024, texts.2 <= 1024 else {
            throw MFAError(.invalidArgument, "token field too long")
        }
        var plain: [UInt8] = []
        plain.reserveCapacity(fixedBytes + 6 + texts.0 + texts.1 + texts.2)
        plain.append(claims.purpose.rawValue)
        append(claims.expires, to: &plain)
        plain.append(contentsOf: claims.id)
        append(claims.epoch, to: &plain)
        append(claims.parentExpires, to: &plain)
        append(claims.tenant, to: &plain)
        append(claims.uid, to: &plain)
        append(claims.reference, to: &plain)
        return Base64URL.encode(try SecretBox.seal(plain, key: keyring.current.tokensKey, associated: associated,
                                                   nonce: nonce),
                                prefix: prefix)
    }

    /// Seals `claims` under the keyring's current key.
    package static func seal(_ claims: TokenClaims, keyring: MasterKeyring) throws(MFAError) -> String {
        try seal(claims, keyring: keyring, nonce: nil)
    }

    /// Opens a token and checks its purpose; expiry, single use and
    /// revocation are left to the caller, which knows which error each means.
    /// - Throws: `invalidSession` for anything that is not an intact token of this purpose.
    package static func open(_ text: String, purpose: TokenPurpose,
                             keyring: MasterKeyring) throws(MFAError) -> TokenClaims {
        let invalid = MFAError(.invalidSession, "the session is missing, malformed or tampered with")
        guard text.utf8.count <= maxLength, let sealed = Base64URL.decode(text, prefix: prefix) else { throw invalid }
        for key in keyring.all {
            guard let plain = try SecretBox.open(sealed, key: key.tokensKey, associated: associated) else { continue }
            guard let claims = plain.withBytes({ decode($0) }), claims.purpose == purpose else { throw invalid }
            return claims
        }
        throw invalid
    }

    /// Appends a text field: its length (two bytes, big-endian), then its UTF-8.
    private static func append(_ text: String, to bytes: inout [UInt8]) {
        let utf8 = text.utf8
        bytes.append(UInt8(utf8.count >> 8))
        bytes.append(UInt8(utf8.count & 0xff))
        bytes.append(contentsOf: utf8)
    }

    private static func append(_ value: Int64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private static func int64(_ plain: UnsafeRawBufferPointer, at index: Int) -> Int64 {
        Int64(bitPattern: UInt64(bigEndian: plain.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
    }

    private static func decode(_ plain: UnsafeRawBufferPointer) -> TokenClaims? {
        guard plain.count >= fixedBytes, let purpose = TokenPurpose(rawValue: plain[0]) else { return nil }
        var index = fixedBytes
        /// The next text field, or nil if it is cut short or not UTF-8.
        func text() -> String? {
            guard plain.count - index >= 2 else { return nil }
            let count = Int(plain[index]) << 8 | Int(plain[index + 1])
            index += 2
            guard plain.count - index >= count else { return nil }
            let bytes = UnsafeRawBufferPointer(rebasing: plain[index..<index + count])
            index += count
            // ASCII is UTF-8 as it stands: no need for the validating decoder.
            if !bytes.contains(where: { $0 >= 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
            return String(validating: bytes, as: UTF8.self)
        }
        guard let tenant = text(), let uid = text(), let reference = text(), index == plain.count else { return nil }
        return TokenClaims(purpose: purpose, id: Array(UnsafeRawBufferPointer(rebasing: plain[9..<25])),
                           tenant: tenant, uid: uid, expires: int64(plain, at: 1), reference: reference,
                           epoch: int64(plain, at: 25), parentExpires: int64(plain, at: 33))
    }
}
