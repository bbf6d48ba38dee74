/// The authenticator data of a WebAuthn response (WebAuthn §6.1): the rp id
/// hash, the flags, the signature counter, and at registration the attested
/// credential data (AAGUID, credential id, COSE public key); then the
/// extension outputs, if the ED flag says there are some.
package struct AuthenticatorData: Sendable, Equatable {
    /// The flag bits.
    package struct Flags: OptionSet, Sendable, Equatable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }

        /// UP: the user was present (touched the key).
        package static let userPresent = Flags(rawValue: 0x01)
        /// UV: the user was verified (PIN, biometrics).
        package static let userVerified = Flags(rawValue: 0x04)
        /// BE: the credential may be backed up (a synced passkey).
        package static let backupEligible = Flags(rawValue: 0x08)
        /// BS: the credential is backed up.
        package static let backedUp = Flags(rawValue: 0x10)
        /// AT: attested credential data follows.
        package static let attestedData = Flags(rawValue: 0x40)
        /// ED: extension outputs follow.
        package static let extensionData = Flags(rawValue: 0x80)
    }

    /// The credential a registration creates.
    package struct AttestedCredential: Sendable, Equatable {
        /// The authenticator model's id (16 bytes; zeros when not attested).
        package var aaguid: [UInt8]
        /// The credential id (1 to 1023 bytes).
        package var credentialID: [UInt8]
        /// The public key as encoded (a COSE_Key in CBOR).
        package var publicKeyBytes: [UInt8]
        /// The public key, read.
        package var publicKey: COSEKey
    }

    /// The longest credential id WebAuthn allows.
    package static let maxCredentialIDBytes = 1023

    /// The bytes as received (what signatures cover).
    package var raw: [UInt8]
    /// SHA-256 of the rp id the authenticator scoped the credential to.
    package var rpIDHash: [UInt8]
    /// The flags.
    package var flags: Flags
    /// The signature counter (0 for authenticators without one).
    package var signCount: UInt32
    /// The attested credential data, when AT is set.
    package var credential: AttestedCredential?

    /// Reads authenticator data: each part where the flags say, and nothing after.
    /// - Throws: `invalidArgument` naming what is malformed.
    package init(_ bytes: [UInt8]) throws(MFAError) {
        func fail(_ why: String) -> MFAError { MFAError(.invalidArgument, "authenticatorData: \(why)") }
        guard bytes.count >= 37 else { throw fail("shorter than 37 bytes") }
        raw = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var index = 37
        if flags.contains(.attestedData) {
            guard bytes.count - index >= 18 else { throw fail("the attested credential data is cut short") }
            let aaguid = Array(bytes[index..<index + 16])
            let length = Int(bytes[index + 16]) << 8 | Int(bytes[index + 17])
            index += 18
            guard length >= 1, length <= Self.maxCredentialIDBytes else {
                throw fail("the credential id must be 1 to 1023 bytes")
            }
            guard bytes.count - index >= length else { throw fail("the credential id is cut short") }
            let credentialID = Array(bytes[index..<index + length])
            index += length
            let (key, used) = try CBORDecoder.decodePrefix(bytes[index...], "credential public key")
            let keyBytes = Array(bytes[index..<index + used])
            index += used
            credential = AttestedCredential(aaguid: aaguid, credentialID: credentialID, publicKeyBytes: keyBytes,
                                            publicKey: try COSEKey(key))
        } else {
            credential = nil
        }
        if flags.contains(.extensionData) {
            guard index < bytes.count else { throw fail("the ED flag is set but there are no extensions") }
            let (extensions, used) = try CBORDecoder.decodePrefix(bytes[index...], "authenticator extensions")
            guard case .map = extensions else { throw fail("the extensions are not a CBOR map") }
            index += used
        }
        guard index == bytes.count else { throw fail("bytes after the data the flags announce") }
        if flags.contains(.backedUp) && !flags.contains(.backupEligible) {
            throw fail("the BS flag is set without BE")
        }
    }
}
