import CSodium

/// The signature check a passkey sign-in makes when no credential of the
/// tenant can accept the response, so that its refusal costs what a
/// credential's refusal costs (`MFAContext.signInWithPasskey`): the
/// signature is checked against a key of the kind its length suggests (64
/// bytes: Ed25519; else ECDSA P-256, what nearly every passkey is). What
/// the check says is thrown away: the refusal stands whatever it is.
enum PasskeyDecoy {
    /// P-256's generator point.
    private static let es256 = COSEKey(algorithm: .es256, material: .ec2(
        x: hex("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"),
        y: hex("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")))
    /// The Ed25519 key of the seed "libmfa passkey decoy".
    private static let ed25519: COSEKey = {
        var seed = [UInt8](repeating: 0, count: 32)
        let label = Array("libmfa passkey decoy".utf8)
        seed.replaceSubrange(0..<label.count, with: label)
        var publicKey = [UInt8](repeating: 0, count: 32), secretKey = [UInt8](repeating: 0, count: 64)
        _ = crypto_sign_seed_keypair(&publicKey, &secretKey, seed)
        sodium_memzero(&secretKey, secretKey.count)
        return COSEKey(algorithm: .edDSA, material: .okp(x: publicKey))
    }()

    /// Checks `signature` of `message` with the decoy key its length suggests (always false).
    static func verifies(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        (signature.count == 64 ? ed25519 : es256).verifies(signature, of: message)
    }

    private static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}
