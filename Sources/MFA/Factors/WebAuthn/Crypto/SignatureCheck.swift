import CHogweed
import CSodium

/// The signature checks WebAuthn needs, each by a maintained library:
/// ECDSA on P-256, P-384 and P-521, RSA PKCS#1 v1.5 (SHA-256, and SHA-1 for
/// TPM statements) and RSA-PSS through nettle (hogweed), Ed25519 through
/// libsodium.
///
/// Each says whether the signature is valid; a key or signature that is
/// malformed is simply not valid (the callers decide the error).
enum SignatureCheck {
    /// The RSA modulus sizes accepted, in bits.
    static let rsaBits: ClosedRange<Int> = 2048...4096

    /// ECDSA P-256 over SHA-256(`message`): `x` and `y` are the public
    /// point's 32-byte coordinates, `der` the DER `ECDSA-Sig-Value`.
    static func es256(x: [UInt8], y: [UInt8], message: [UInt8], der: [UInt8]) -> Bool {
        guard x.count == 32, y.count == 32 else { return false }
        return verify(curve: nettle_get_secp_256r1(), size: 32, x: x, y: y, digest: SHA256.digest(message), der: der)
    }

    /// ECDSA on P-384 or P-521 over `digest` (SHA-384 or SHA-512 of the
    /// message): coordinates of `curve.coordinateBytes` bytes each.
    static func ecdsa(curve: COSEKey.Curve, x: [UInt8], y: [UInt8], digest: [UInt8], der: [UInt8]) -> Bool {
        let size = curve.coordinateBytes
        guard x.count == size, y.count == size else { return false }
        let nettleCurve = curve == .p384 ? nettle_get_secp_384r1() : nettle_get_secp_521r1()
        return verify(curve: nettleCurve, size: size, x: x, y: y, digest: digest, der: der)
    }

    /// Whether (`x`, `y`) is a point of P-384 or P-521 (coordinates below
    /// the field's prime, on the curve).
    static func isPoint(curve: COSEKey.Curve, x: [UInt8], y: [UInt8]) -> Bool {
        let size = curve.coordinateBytes
        guard x.count == size, y.count == size else { return false }
        var point = ecc_point()
        nettle_ecc_point_init(&point, curve == .p384 ? nettle_get_secp_384r1() : nettle_get_secp_521r1())
        defer { nettle_ecc_point_clear(&point) }
        var mx = __mpz_struct(), my = __mpz_struct()
        nettle_mpz_init_set_str_256_u(&mx, size, x)
        nettle_mpz_init_set_str_256_u(&my, size, y)
        defer {
            __gmpz_clear(&mx)
            __gmpz_clear(&my)
        }
        return nettle_ecc_point_set(&point, &mx, &my) == 1
    }

    private static func verify(curve: OpaquePointer?, size: Int, x: [UInt8], y: [UInt8], digest: [UInt8],
                               der: [UInt8]) -> Bool {
        guard let (r, s) = DERSignature.integers(der, maxBytes: size), r.count <= size, s.count <= size else {
            return false
        }
        var point = ecc_point()
        nettle_ecc_point_init(&point, curve)
        defer { nettle_ecc_point_clear(&point) }
        var mx = __mpz_struct(), my = __mpz_struct()
        nettle_mpz_init_set_str_256_u(&mx, size, x)
        nettle_mpz_init_set_str_256_u(&my, size, y)
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
        pkcs1(n: n, e: e, digest: .sha256, hash: SHA256.digest(message), signature: signature)
    }

    /// RSASSA-PKCS1-v1_5 over `hash`, a SHA-256 or SHA-1 (`digest`) digest.
    static func pkcs1(n: [UInt8], e: [UInt8], digest: Digest, hash: [UInt8], signature: [UInt8]) -> Bool {
        guard hash.count == digest.length else { return false }
        return withRSAKey(n: n, e: e, signature: signature) { key, s in
            switch digest {
            case .sha1: nettle_rsa_sha1_verify_digest(key, hash, s) == 1
            case .sha256: nettle_rsa_sha256_verify_digest(key, hash, s) == 1
            case .sha384, .sha512: false
            }
        }
    }

    /// RSASSA-PSS with SHA-256, MGF1 with SHA-256 and a 32-byte salt (COSE PS256) over `digest`.
    static func ps256(n: [UInt8], e: [UInt8], digest: [UInt8], signature: [UInt8]) -> Bool {
        guard digest.count == 32 else { return false }
        return withRSAKey(n: n, e: e, signature: signature) { key, s in
            nettle_rsa_pss_sha256_verify_digest(key, 32, digest, s) == 1
        }
    }

    /// Runs `body` with the prepared public key and the signature as an
    /// integer, when the modulus is of an accepted size and the signature
    /// exactly as long; false otherwise.
    private static func withRSAKey(n: [UInt8], e: [UInt8], signature: [UInt8],
                                   _ body: (UnsafePointer<rsa_public_key>, UnsafePointer<__mpz_struct>) -> Bool) -> Bool {
        let modulus = Array(n.drop { $0 == 0 })
        guard let top = modulus.first, rsaBits.contains(modulus.count * 8 - top.leadingZeroBitCount),
              !e.isEmpty, e.count <= 8, signature.count == modulus.count else { return false }
        var key = rsa_public_key()
        nettle_rsa_public_key_init(&key)
        defer { nettle_rsa_public_key_clear(&key) }
        withUnsafeMutablePointer(to: &key.n) { nettle_mpz_set_str_256_u($0, modulus.count, modulus) }
        withUnsafeMutablePointer(to: &key.e) { nettle_mpz_set_str_256_u($0, e.count, e) }
        guard nettle_rsa_public_key_prepare(&key) == 1 else { return false }
        var s = __mpz_struct()
        nettle_mpz_init_set_str_256_u(&s, signature.count, signature)
        defer { __gmpz_clear(&s) }
        return body(&key, &s)
    }

    /// Ed25519 (RFC 8032): `x` the 32-byte public key, `signature` 64 bytes.
    static func ed25519(x: [UInt8], message: [UInt8], signature: [UInt8]) -> Bool {
        guard x.count == 32, signature.count == 64, (try? Sodium.ensureReady()) != nil else { return false }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), x) == 0
    }
}
