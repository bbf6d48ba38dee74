/// A credential public key as a COSE_Key (RFC 9052 §7, RFC 9053), of the
/// algorithms libmfa asks authenticators for.
package struct COSEKey: Sendable, Equatable {
    /// The COSE algorithms: their identifiers in `pubKeyCredParams`.
    package enum Algorithm: Int64, Sendable, CaseIterable {
        /// ECDSA P-256 with SHA-256.
        case es256 = -7
        /// EdDSA (Ed25519).
        case edDSA = -8
        /// RSASSA-PKCS1-v1_5 with SHA-256.
        case rs256 = -257
        /// ECDSA P-384 with SHA-384.
        case es384 = -35
        /// ECDSA P-521 with SHA-512.
        case es512 = -36
        /// RSASSA-PSS with SHA-256 (MGF1 SHA-256, a 32-byte salt).
        case ps256 = -37
        /// RSASSA-PKCS1-v1_5 with SHA-1: never a credential's algorithm;
        /// only TPM attestation statements are signed with it (Windows Hello).
        case rs1 = -65535

        /// The algorithms a credential may have, in the order libmfa offers
        /// them (`pubKeyCredParams`): the three every authenticator knows
        /// first, so that an authenticator picks what it picked before.
        package static let credential: [Algorithm] = [.es256, .edDSA, .rs256, .es384, .es512, .ps256]

        /// The name used in messages, configuration and hints ("ES256").
        package var name: String {
            switch self {
            case .es256: "ES256"
            case .edDSA: "EdDSA"
            case .rs256: "RS256"
            case .es384: "ES384"
            case .es512: "ES512"
            case .ps256: "PS256"
            case .rs1: "RS1"
            }
        }

        /// The credential algorithm named `name` ("ES256"), or nil.
        package init?(name: String) {
            guard let found = Self.credential.first(where: { $0.name == name }) else { return nil }
            self = found
        }

        /// The hash the signature is made over.
        var digest: Digest {
            switch self {
            case .es256, .rs256, .ps256, .edDSA: .sha256
            case .es384: .sha384
            case .es512: .sha512
            case .rs1: .sha1
            }
        }
    }

    /// The elliptic curves of ECDSA keys beyond P-256.
    package enum Curve: Int64, Sendable, Equatable {
        /// P-384 (COSE curve 2), for ES384.
        case p384 = 2
        /// P-521 (COSE curve 3), for ES512.
        case p521 = 3

        /// The length of a coordinate in bytes.
        package var coordinateBytes: Int { self == .p384 ? 48 : 66 }
    }

    /// The key material.
    package enum Material: Sendable, Equatable {
        /// A P-256 point.
        case ec2(x: [UInt8], y: [UInt8])
        /// An Ed25519 public key.
        case okp(x: [UInt8])
        /// An RSA modulus and exponent.
        case rsa(n: [UInt8], e: [UInt8])
        /// A point of P-384 or P-521.
        case ec(curve: Curve, x: [UInt8], y: [UInt8])
    }

    /// The algorithm the key is for.
    package var algorithm: Algorithm
    /// The key.
    package var material: Material

    package init(algorithm: Algorithm, material: Material) {
        self.algorithm = algorithm
        self.material = material
    }

    /// Reads a COSE_Key that is to be trusted from now on (a registration's,
    /// or one a host hands the stateless verifier): its shape
    /// (`init(stored:)`), then its strength (`checkStrength()`), so that no
    /// key whose signatures prove nothing is ever accepted.
    /// - Throws: `invalidArgument` for anything else, naming what is wrong.
    package init(_ value: CBORValue) throws(MFAError) {
        try self.init(stored: value)
        try checkStrength()
    }

    /// Reads a COSE_Key map: kty, alg and the parameters its key type needs,
    /// each of the right type and size. Only the shape is checked: this
    /// reads a key that was checked whole when it was registered (a stored
    /// credential's, sealed and bound to its row).
    /// - Throws: `invalidArgument` for anything else, naming what is wrong.
    package init(stored value: CBORValue) throws(MFAError) {
        func fail(_ why: String) -> MFAError { MFAError(.invalidArgument, "credential public key: \(why)") }
        guard case .map = value else { throw fail("not a COSE_Key map") }
        guard let rawAlgorithm = value[int: 3]?.int else { throw fail("no algorithm (3)") }
        guard let algorithm = Algorithm(rawValue: rawAlgorithm), algorithm != .rs1 else {
            throw fail("algorithm \(rawAlgorithm) is not ES256 (-7), EdDSA (-8), RS256 (-257), ES384 (-35), "
                + "ES512 (-36) or PS256 (-37)")
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
        case .es384, .es512:
            let curve: Curve = algorithm == .es384 ? .p384 : .p521
            guard kty == 2 else { throw fail("\(algorithm.name) needs key type EC2 (2)") }
            guard value[int: -1]?.int == curve.rawValue else {
                throw fail("\(algorithm.name) needs curve \(curve == .p384 ? "P-384 (2)" : "P-521 (3)")")
            }
            let size = curve.coordinateBytes
            guard let x = value[int: -2]?.bytes, x.count == size, let y = value[int: -3]?.bytes, y.count == size else {
                throw fail("a \(algorithm.name) key needs \(size)-byte x (-2) and y (-3)")
            }
            self.init(algorithm: algorithm, material: .ec(curve: curve, x: x, y: y))
        case .edDSA:
            guard kty == 1 else { throw fail("EdDSA needs key type OKP (1)") }
            guard value[int: -1]?.int == 6 else { throw fail("EdDSA needs curve Ed25519 (6)") }
            guard let x = value[int: -2]?.bytes, x.count == 32 else { throw fail("an Ed25519 key needs a 32-byte x (-2)") }
            self.init(algorithm: algorithm, material: .okp(x: x))
        case .rs256, .ps256, .rs1:
            guard kty == 3 else { throw fail("\(algorithm.name) needs key type RSA (3)") }
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

    /// The one RSA public exponent accepted: 65537 (what every authenticator
    /// uses; e = 1 makes the padded digest itself a valid signature, and small
    /// exponents are what the known attacks on PKCS#1 v1.5 need).
    package static let rsaExponent: [UInt8] = [0x01, 0x00, 0x01]

    /// Refuses a key whose signatures would prove nothing: an RSA key
    /// (RS256, PS256) needs a modulus of exactly 2048 to 4096 bits that is
    /// odd, and the exponent 65537; an ECDSA key (ES256, ES384, ES512) a
    /// point on its curve; an Ed25519 key a canonical point of the main
    /// subgroup (no point of small order).
    /// - Throws: `invalidArgument`, naming what is wrong.
    package func checkStrength() throws(MFAError) {
        func fail(_ why: String) -> MFAError { MFAError(.invalidArgument, "credential public key: \(why)") }
        switch material {
        case .rsa(let n, let e):
            let modulus = Array(n.drop { $0 == 0 })
            let bits = modulus.first.map { modulus.count * 8 - $0.leadingZeroBitCount } ?? 0
            guard SignatureCheck.rsaBits.contains(bits), let last = modulus.last, last & 1 == 1 else {
                throw fail("an RSA modulus must be odd and of 2048 to 4096 bits")
            }
            guard Array(e.drop { $0 == 0 }) == Self.rsaExponent else {
                throw fail("an RSA public exponent must be 65537")
            }
        case .ec2(let x, let y):
            guard SignatureCheck.isP256Point(x: x, y: y) else { throw fail("the P-256 point is not on the curve") }
        case .ec(let curve, let x, let y):
            guard SignatureCheck.isPoint(curve: curve, x: x, y: y) else {
                throw fail("the \(algorithm.name) point is not on its curve")
            }
        case .okp(let x):
            guard SignatureCheck.isEd25519Point(x) else {
                throw fail("the Ed25519 key is not a point of the main subgroup in canonical form")
            }
        }
    }

    /// Whether `signature` is this key's signature of `message`, made with the key's own algorithm.
    package func verifies(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        verifies(signature, of: message, with: algorithm)
    }

    /// Whether `signature` is this key's signature of `message` made with
    /// `algorithm` (an attestation certificate's key signs with the
    /// algorithm its statement names); false when the algorithm does not fit
    /// the key.
    package func verifies(_ signature: [UInt8], of message: [UInt8], with algorithm: Algorithm) -> Bool {
        switch (material, algorithm) {
        case (.ec2(let x, let y), .es256):
            return SignatureCheck.es256(x: x, y: y, message: message, der: signature)
        case (.ec(let curve, let x, let y), .es384), (.ec(let curve, let x, let y), .es512):
            guard (curve == .p384) == (algorithm == .es384) else { return false }
            return SignatureCheck.ecdsa(curve: curve, x: x, y: y, digest: algorithm.digest.hash(message),
                                        der: signature)
        case (.okp(let x), .edDSA):
            return SignatureCheck.ed25519(x: x, message: message, signature: signature)
        case (.rsa(let n, let e), .rs256), (.rsa(let n, let e), .rs1):
            return SignatureCheck.pkcs1(n: n, e: e, digest: algorithm.digest, hash: algorithm.digest.hash(message),
                                        signature: signature)
        case (.rsa(let n, let e), .ps256):
            return SignatureCheck.ps256(n: n, e: e, digest: SHA256.digest(message), signature: signature)
        default:
            return false
        }
    }

    /// The key as the U2F raw public key `04 || x || y`, for a P-256 key.
    var uncompressedPoint: [UInt8]? {
        guard case .ec2(let x, let y) = material else { return nil }
        return [0x04] + x + y
    }
}
