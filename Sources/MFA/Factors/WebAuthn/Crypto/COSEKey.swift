/// A credential public key as a COSE_Key (RFC 9052 §7, RFC 9053), of the
/// three algorithms libmfa asks authenticators for.
package struct COSEKey: Sendable, Equatable {
    /// The COSE algorithms: their identifiers in `pubKeyCredParams`.
    package enum Algorithm: Int64, Sendable, CaseIterable {
        /// ECDSA P-256 with SHA-256.
        case es256 = -7
        /// EdDSA (Ed25519).
        case edDSA = -8
        /// RSASSA-PKCS1-v1_5 with SHA-256.
        case rs256 = -257

        /// The name used in messages and hints ("ES256").
        package var name: String {
            switch self {
            case .es256: "ES256"
            case .edDSA: "EdDSA"
            case .rs256: "RS256"
            }
        }
    }

    /// The key material.
    package enum Material: Sendable, Equatable {
        /// A P-256 point.
        case ec2(x: [UInt8], y: [UInt8])
        /// An Ed25519 public key.
        case okp(x: [UInt8])
        /// An RSA modulus and exponent.
        case rsa(n: [UInt8], e: [UInt8])
    }

    /// The algorithm the key is for.
    package var algorithm: Algorithm
    /// The key.
    package var material: Material

    package init(algorithm: Algorithm, material: Material) {
        self.algorithm = algorithm
        self.material = material
    }

    /// Reads a COSE_Key map: kty, alg and the parameters its key type needs,
    /// each of the right type and size (a P-256 point on the curve is checked
    /// when a signature is).
    /// - Throws: `invalidArgument` for anything else, naming what is wrong.
    package init(_ value: CBORValue) throws(MFAError) {
        func fail(_ why: String) -> MFAError { MFAError(.invalidArgument, "credential public key: \(why)") }
        guard case .map = value else { throw fail("not a COSE_Key map") }
        guard let rawAlgorithm = value[int: 3]?.int else { throw fail("no algorithm (3)") }
        guard let algorithm = Algorithm(rawValue: rawAlgorithm) else {
            throw fail("algorithm \(rawAlgorithm) is not ES256 (-7), EdDSA (-8) or RS256 (-257)")
        }
        let kty = value[int: 1]?.int
        switch algorithm {
        case .es256:
            guard kty == 2 else { throw fail("ES256 needs key type EC2 (2)") }
            guard value[int: -1]?.int == 1 else { throw fail("ES256 needs curve P-256 (1)") }
            guard let x = value[int: -2]?.bytes, x.count == 32, let y = value[int: -3]?.bytes, y.count == 32 else {
                throw fail("a P-256 key needs 32-byte x (-2) and y (-3)")
            }
            self.init(algorithm: algorithm, material: .ec2(x: x, y: y))
        case .edDSA:
            guard kty == 1 else { throw fail("EdDSA needs key type OKP (1)") }
            guard value[int: -1]?.int == 6 else { throw fail("EdDSA needs curve Ed25519 (6)") }
            guard let x = value[int: -2]?.bytes, x.count == 32 else { throw fail("an Ed25519 key needs a 32-byte x (-2)") }
            self.init(algorithm: algorithm, material: .okp(x: x))
        case .rs256:
            guard kty == 3 else { throw fail("RS256 needs key type RSA (3)") }
            guard let n = value[int: -1]?.bytes, let e = value[int: -2]?.bytes else {
                throw fail("an RSA key needs n (-1) and e (-2)")
            }
            let bits = Array(n.drop { $0 == 0 }).count * 8
            guard bits >= SignatureCheck.rsaBits.lowerBound - 7, bits <= SignatureCheck.rsaBits.upperBound,
                  !e.isEmpty, e.count <= 8 else {
                throw fail("an RSA key must have a 2048- to 4096-bit modulus")
            }
            self.init(algorithm: algorithm, material: .rsa(n: n, e: e))
        }
    }

    /// Whether `signature` is this key's signature of `message`.
    package func verifies(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        switch material {
        case .ec2(let x, let y): SignatureCheck.es256(x: x, y: y, message: message, der: signature)
        case .okp(let x): SignatureCheck.ed25519(x: x, message: message, signature: signature)
        case .rsa(let n, let e): SignatureCheck.rs256(n: n, e: e, message: message, signature: signature)
        }
    }

    /// The key as the U2F raw public key `04 || x || y`, for a P-256 key.
    var uncompressedPoint: [UInt8]? {
        guard case .ec2(let x, let y) = material else { return nil }
        return [0x04] + x + y
    }
}
