import Foundation
import MFA
import Testing

/// Issue 45 item 15: a credential public key whose signatures prove nothing
/// (an RSA exponent of 1 or 3, a short modulus, a P-256 point off the curve,
/// an Ed25519 point of small order) is refused at registration, naming what
/// is wrong, before anything is stored.
@Suite("WebAuthn key strength")
struct WebAuthnKeyStrengthTests {
    /// An RS256 COSE key.
    static func rsaKey(n: [UInt8], e: [UInt8]) -> [UInt8] {
        TestCBOR.encode(.map([(.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes(n)), (.int(-2), .bytes(e))]))
    }

    /// An ES256 COSE key.
    static func ecKey(x: [UInt8], y: [UInt8]) -> [UInt8] {
        TestCBOR.encode(.map([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), .bytes(x)),
                              (.int(-3), .bytes(y))]))
    }

    /// An EdDSA (Ed25519) COSE key.
    static func okpKey(_ x: [UInt8]) -> [UInt8] {
        TestCBOR.encode(.map([(.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(6)), (.int(-2), .bytes(x))]))
    }

    static func hex(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            out.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return out
    }

    /// The PKCS#1 v1.5 encoding of SHA-256(`message`) for a 2048-bit modulus:
    /// with e = 1 this is a valid "signature" that no private key made.
    static func encodedDigest(_ message: [UInt8]) -> [UInt8] {
        let digestInfo = hex("3031300d060960864801650304020105000420")
        return [0x00, 0x01] + [UInt8](repeating: 0xff, count: 256 - 3 - 51) + [0x00] + digestInfo + sha256(message)
    }

    /// A 2048-bit odd modulus (any odd number of that size: no signature is made with it).
    static let modulus = [UInt8](repeating: 0xff, count: 256)

    /// Registers `key` for a new user of `fixture`; the error code, or nil if it was stored.
    static func register(_ fixture: WebAuthnFixture, _ key: [UInt8], uid: String) -> MFAError? {
        let authenticator = TestAuthenticator()
        authenticator.coseKeyOverride = key
        return errorMessage { try fixture.enroll(fixture.user(uid), authenticator) }
    }

    @Test("rs256_exponent_refused: an RSA key with e = 1 (whose 'signature' is the padded digest) or any e but 65537 is refused at registration")
    func rs256ExponentRefused() throws {
        let fixture = try WebAuthnFixture()
        // The attack of issue 45: e = 1, and a sign-in with no private key at all.
        let forger = TestAuthenticator()
        forger.coseKeyOverride = Self.rsaKey(n: Self.modulus, e: [1])
        forger.signatureOverride = Self.encodedDigest
        let refused = errorMessage { try fixture.enroll(fixture.user("mallory"), forger) }
        #expect(refused?.code == .invalidArgument && refused?.message.contains("exponent") == true,
                "\(String(describing: refused))")
        #expect(try fixture.context.multiFactor(for: fixture.user("mallory")).enrolledFactors().isEmpty)
        #expect(errorCode { try fixture.signIn(fixture.user("mallory"), forger) } != nil)

        let exponents: [[UInt8]] = [[3], [0x01, 0x00, 0x03], [0x01, 0x00, 0x00, 0x01], [0], [], [0x03, 0x00, 0x01],
                                    [0x01, 0x00, 0x01, 0x00]]
        for (index, e) in exponents.enumerated() {
            let error = Self.register(fixture, Self.rsaKey(n: Self.modulus, e: e), uid: "e\(index)")
            #expect(error?.code == .invalidArgument, "e = \(e): \(String(describing: error))")
        }
        // 65537 is accepted, with or without leading zero bytes.
        #expect(Self.register(fixture, Self.rsaKey(n: Self.modulus, e: [0x01, 0x00, 0x01]), uid: "good") == nil)
        #expect(Self.register(fixture, Self.rsaKey(n: [0] + Self.modulus, e: [0, 0x01, 0x00, 0x01]),
                              uid: "padded") == nil)
    }

    @Test("webauthn_weak_keys_refused: RSA moduli under 2048 bits, even or over 4096 bits; P-256 points off the curve; Ed25519 points of small order or not canonical")
    func weakKeysRefused() throws {
        let fixture = try WebAuthnFixture()
        let e: [UInt8] = [0x01, 0x00, 0x01]
        var bad: [(String, [UInt8])] = [
            ("1024-bit modulus", Self.rsaKey(n: [UInt8](repeating: 0xff, count: 128), e: e)),
            ("2047-bit modulus", Self.rsaKey(n: [0x7f] + [UInt8](repeating: 0xff, count: 255), e: e)),
            ("2041-bit modulus", Self.rsaKey(n: [0x01] + [UInt8](repeating: 0xff, count: 255), e: e)),
            ("even modulus", Self.rsaKey(n: [UInt8](repeating: 0xff, count: 255) + [0xfe], e: e)),
            ("4104-bit modulus", Self.rsaKey(n: [UInt8](repeating: 0xff, count: 513), e: e)),
            ("P-256 (1, 1)", Self.ecKey(x: [UInt8](repeating: 0, count: 31) + [1], y: [UInt8](repeating: 0, count: 31) + [1])),
            ("P-256 (0, 0)", Self.ecKey(x: [UInt8](repeating: 0, count: 32), y: [UInt8](repeating: 0, count: 32))),
            ("P-256 x = p", Self.ecKey(
                x: Self.hex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"),
                y: Self.hex("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"))),
        ]
        // The generator with its y changed is off the curve.
        var y = Self.hex("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")
        y[31] ^= 1
        bad.append(("P-256 G with y changed", Self.ecKey(
            x: Self.hex("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"), y: y)))
        // Ed25519: the points of small order (libsodium's list) and a y that is not reduced.
        for point in ["0100000000000000000000000000000000000000000000000000000000000000",
                      "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
                      "0000000000000000000000000000000000000000000000000000000000000000",
                      "0000000000000000000000000000000000000000000000000000000000000080",
                      "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
                      "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
                      "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"] {
            bad.append(("Ed25519 \(point.prefix(8))", Self.okpKey(Self.hex(point))))
        }
        for (index, (name, key)) in bad.enumerated() {
            let error = Self.register(fixture, key, uid: "bad\(index)")
            #expect(error?.code == .invalidArgument && error?.message.contains("credential public key") == true,
                    "\(name): \(String(describing: error))")
        }
        #expect(try fixture.context.stats().rows.isEmpty, "nothing was stored")
        // Good keys of each kind still register: P-256's generator, a real Ed25519 key, 4096 bits.
        #expect(Self.register(fixture, Self.ecKey(
            x: Self.hex("6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"),
            y: Self.hex("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")), uid: "g") == nil)
        #expect(Self.register(fixture, TestAuthenticator().coseKey, uid: "ed") == nil)
        #expect(Self.register(fixture, Self.rsaKey(n: [UInt8](repeating: 0xff, count: 512), e: e), uid: "big") == nil)
    }

    @Test("the strength rules hold for the algorithms passkeys brought: PS256 keys as RS256's, ES384 and ES512 points on their curves")
    func passkeyAlgorithmsStrength() throws {
        let fixture = try WebAuthnFixture()
        func key(_ alg: Int64, _ params: [(TestCBOR.Item, TestCBOR.Item)], kty: Int64) -> [UInt8] {
            TestCBOR.encode(.map([(.int(1), .int(kty)), (.int(3), .int(alg))] + params))
        }
        func ps256(e: [UInt8]) -> [UInt8] { key(-37, [(.int(-1), .bytes(Self.modulus)), (.int(-2), .bytes(e))], kty: 3) }
        func ec(_ alg: Int64, curve: Int64, x: [UInt8], y: [UInt8]) -> [UInt8] {
            key(alg, [(.int(-1), .int(curve)), (.int(-2), .bytes(x)), (.int(-3), .bytes(y))], kty: 2)
        }
        // P-384's generator, and the same x with y changed (off the curve).
        let g384x = Self.hex("aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7")
        let g384y = Self.hex("3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f")
        var off384 = g384y
        off384[47] ^= 1
        let bad: [(String, [UInt8])] = [
            ("PS256 e = 1", ps256(e: [1])),
            ("PS256 e = 3", ps256(e: [3])),
            ("PS256 1024-bit modulus", key(-37, [(.int(-1), .bytes([UInt8](repeating: 0xff, count: 128))),
                                                 (.int(-2), .bytes([0x01, 0x00, 0x01]))], kty: 3)),
            ("ES384 G with y changed", ec(-35, curve: 2, x: g384x, y: off384)),
            ("ES384 (0, 0)", ec(-35, curve: 2, x: [UInt8](repeating: 0, count: 48), y: [UInt8](repeating: 0, count: 48))),
            ("ES512 (1, 1)", ec(-36, curve: 3, x: [UInt8](repeating: 0, count: 65) + [1],
                                y: [UInt8](repeating: 0, count: 65) + [1])),
        ]
        for (index, (name, cose)) in bad.enumerated() {
            let error = Self.register(fixture, cose, uid: "bad\(index)")
            #expect(error?.code == .invalidArgument && error?.message.contains("credential public key") == true,
                    "\(name): \(String(describing: error))")
        }
        #expect(try fixture.context.stats().rows.isEmpty, "nothing was stored")
        #expect(Self.register(fixture, ps256(e: [0x01, 0x00, 0x01]), uid: "ps") == nil)
        #expect(Self.register(fixture, ec(-35, curve: 2, x: g384x, y: g384y), uid: "p384") == nil)
    }

    @Test("the stateless verifier refuses the host's weak stored key as it refuses a registration")
    func statelessWeakKeyRefused() throws {
        let forger = TestAuthenticator()
        forger.signatureOverride = Self.encodedDigest
        let challenge = base64url(Array(repeating: 7, count: 32))
        let expectation = WebAuthnVerifier.Expectation(challenge: challenge, rpID: "example.com",
                                                       origins: ["https://example.com"])
        let json = forger.assert(jsonText(["challenge": challenge, "rpId": "example.com"]))
        let error = errorMessage { try WebAuthnVerifier.verifyAssertion(
            credentialJSON: json, expecting: expectation, publicKey: Self.rsaKey(n: Self.modulus, e: [1])) }
        #expect(error?.code == .invalidArgument && error?.message.contains("exponent") == true,
                "\(String(describing: error))")
    }
}
