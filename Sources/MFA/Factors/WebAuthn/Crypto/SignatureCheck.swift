import CHogweed
import CSodium

/// The three signature checks WebAuthn needs, each by a maintained library:
/// ECDSA P-256 with SHA-256 and RSA PKCS#1 v1.5 with SHA-256 through nettle
/// (hogweed), Ed25519 through libsodium.
///
/// Each says whether the signature is valid; a key or signature that is
/// malformed is simply not valid (the callers decide the error).
enum SignatureCheck {
    /// The RSA modulus sizes accepted, in bits.
    static let rsaBits: ClosedRange<Int> = 2048...4096

    /// ECDSA P-256 over SHA-256(`message`): `x` and `y` are the public
    /// point's 32-byte coordinates, `der` the DER `ECDSA-Sig-Value`.
    static func es256(x: [UInt8], y: [UInt8], message: [UInt8], der: [UInt8]) -> Bool {
        guard x.count == 32, y.count == 32, let (r, s) = DERSignature.integers(der),
              r.count <= 32, s.count <= 32 else { return false }
        let digest = SHA256.digest(message)
        var point = ecc_point()
        nettle_ecc_point_init(&point, nettle_get_secp_256r1())
        defer { nettle_ecc_point_clear(&point) }
        var mx = __mpz_struct(), my = __mpz_struct()
        nettle_mpz_init_set_str_256_u(&mx, 32, x)
        nettle_mpz_init_set_str_256_u(&my, 32, y)
        defer {
            __gmpz_clear(&mx)
            __gmpz_clear(&my)
        }
        // ecc_point_set refuses a point that is not on the curve.
        guard nettle_ecc_point_set(&point, &mx, &my) == 1 else { return false }
        var signature = dsa_signature()
        nettle_dsa_signature_init(&signature)
        defer { nettle_dsa_signature_clear(&signature) }
        withUnsafeMutablePointer(to: &signature.r) { nettle_mpz_set_str_256_u($0, r.count, r) }
        withUnsafeMutablePointer(to: &signature.s) { nettle_mpz_set_str_256_u($0, s.count, s) }
        // ecdsa_verify refuses r or s outside 1..n-1.
        return nettle_ecdsa_verify(&point, digest.count, digest, &signature) == 1
    }

    /// Whether (`x`, `y`), 32 bytes each, is a point of P-256 (coordinates
    /// below the field's prime, on the curve).
    static func isP256Point(x: [UInt8], y: [UInt8]) -> Bool {
        guard x.count == 32, y.count == 32 else { return false }
        var point = ecc_point()
        nettle_ecc_point_init(&point, nettle_get_secp_256r1())
        defer { nettle_ecc_point_clear(&point) }
        var mx = __mpz_struct(), my = __mpz_struct()
        nettle_mpz_init_set_str_256_u(&mx, 32, x)
        nettle_mpz_init_set_str_256_u(&my, 32, y)
        defer {
            __gmpz_clear(&mx)
            __gmpz_clear(&my)
        }
        return nettle_ecc_point_set(&point, &mx, &my) == 1
    }

    /// Whether `x` is an Ed25519 public key whose signatures mean
    /// something: a canonical encoding of a point of the main subgroup,
    /// not of small order (libsodium's check).
    static func isEd25519Point(_ x: [UInt8]) -> Bool {
        guard x.count == 32, (try? Sodium.ensureReady()) != nil else { return false }
        return crypto_core_ed25519_is_valid_point(x) == 1
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256: `n` the modulus, `e` the exponent,
    /// `signature` exactly as long as the modulus.
    static func rs256(n: [UInt8], e: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool {
        let modulus = Array(n.drop { $0 == 0 })
        guard let top = modulus.first, rsaBits.contains(modulus.count * 8 - top.leadingZeroBitCount),
              !e.isEmpty, e.count <= 8, signature.count == modulus.count else { return false }
        let digest = SHA256.digest(message)
        var key = rsa_public_key()
        nettle_rsa_public_key_init(&key)
        defer { nettle_rsa_public_key_clear(&key) }
        withUnsafeMutablePointer(to: &key.n) { nettle_mpz_set_str_256_u($0, modulus.count, modulus) }
        withUnsafeMutablePointer(to: &key.e) { nettle_mpz_set_str_256_u($0, e.count, e) }
        guard nettle_rsa_public_key_prepare(&key) == 1 else { return false }
        var s = __mpz_struct()
        nettle_mpz_init_set_str_256_u(&s, signature.count, signature)
        defer { __gmpz_clear(&s) }
        return nettle_rsa_sha256_verify_digest(&key, digest, &s) == 1
    }

    /// Ed25519 (RFC 8032): `x` the 32-byte public key, `signature` 64 bytes.
    static func ed25519(x: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool {
        guard x.count == 32, signature.count == 64, (try? Sodium.ensureReady()) != nil else { return false }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), x) == 0
    }
}
