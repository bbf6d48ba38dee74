import Foundation
import MFA
import Testing

/// Per-call ceremony options, and what conveyance `none` does with statements.
@Suite("WebAuthn ceremony options and statements")
struct WebAuthnOptionsTests {
    @Test("registration options per call: attachment, user verification, resident key, hints, algorithms")
    func registrationOptions() throws {
        let fixture = try WebAuthnFixture()
        let session = try fixture.context.multiFactor(for: fixture.user()).session()
        let options = jsonObject(try WebAuthnMultiFactorGenerator.registrationOptions(
            with: session, userName: "alice", options: WebAuthnCeremonyOptions(
                authenticatorAttachment: .platform, userVerification: .required, residentKey: .required,
                hints: [.clientDevice], algorithms: [.es384, .ps256, .es256])))
        let selection = options["authenticatorSelection"] as? [String: Any]
        #expect(selection?["authenticatorAttachment"] as? String == "platform")
        #expect(selection?["userVerification"] as? String == "required")
        #expect(selection?["residentKey"] as? String == "required" && selection?["requireResidentKey"] as? Bool == true)
        #expect(options["hints"] as? [String] == ["client-device"])
        #expect((options["pubKeyCredParams"] as? [[String: Any]])?.compactMap { $0["alg"] as? Int } == [-35, -37, -7])
        #expect(errorCode { try WebAuthnMultiFactorGenerator.registrationOptions(
            with: session, userName: "alice", options: WebAuthnCeremonyOptions(hints: [.hybrid, .hybrid])) }
            == .invalidArgument)
        #expect(errorCode { try WebAuthnMultiFactorGenerator.registrationOptions(
            with: session, userName: "alice", options: WebAuthnCeremonyOptions(algorithms: [])) } == .invalidArgument)
        #expect(WebAuthnAlgorithm(name: "PS256") == .ps256 && WebAuthnAlgorithm.es512.name == "ES512")
    }

    @Test("user verification only tightens: a call cannot ask for less than the configuration requires")
    func userVerificationTightens() throws {
        let fixture = try WebAuthnFixture(config: """
            {"state":"ENABLED","providers":{"webauthn":"ENABLED"},"webauthn":{"rpId":"example.com","userVerification":"required"}}
            """)
        let session = try fixture.context.multiFactor(for: fixture.user()).session()
        let options = jsonObject(try WebAuthnMultiFactorGenerator.registrationOptions(
            with: session, userName: "alice", options: WebAuthnCeremonyOptions(userVerification: .discouraged)))
        #expect((options["authenticatorSelection"] as? [String: Any])?["userVerification"] as? String == "required")
    }

    @Test("authentication options per call: UV required there is checked at the resolve, hints are passed")
    func authenticationOptions() throws {
        let fixture = try WebAuthnFixture()
        let key = TestAuthenticator()
        try fixture.enroll(fixture.user(), key)
        let resolver = try fixture.resolver(fixture.user())
        let json = try WebAuthnMultiFactorGenerator.authenticationOptions(
            for: resolver, options: WebAuthnCeremonyOptions(userVerification: .required, hints: [.securityKey]))
        let options = jsonObject(json)
        #expect(options["userVerification"] as? String == "required" && options["hints"] as? [String] == ["security-key"])
        key.userVerified = false
        #expect(errorCode { try resolver.resolveSignIn(with: WebAuthnMultiFactorGenerator.assertionForSignIn(
            credentialJSON: key.assert(json))) } == .userVerificationRequired)
        key.userVerified = true
        _ = try resolver.resolveSignIn(with: WebAuthnMultiFactorGenerator.assertionForSignIn(
            credentialJSON: key.assert(json)))
    }

    @Test("conveyance none: a statement of an unknown format registers, unverified; a broken packed one too")
    func unknownFormatUnderNone() throws {
        let fixture = try WebAuthnFixture()
        let key = TestAuthenticator()
        key.format = "android-safetynet"
        key.statementOverride = TestCBOR.encode(.map([(.text("ver"), .text("12345")),
                                                      (.text("response"), .bytes(Array("not a JWS".utf8)))]))
        try fixture.enroll(fixture.user(), key)
        let stored = try fixture.context.webAuthnCredentials(uid: "alice")
        #expect(stored.map(\.attestationFormat) == ["android-safetynet"] && stored[0].attestationKind == "unverified")
        try fixture.signIn(fixture.user(), key)
        let other = TestAuthenticator()
        other.format = "x-vendor-\u{1}format"
        try fixture.enroll(fixture.user("bob"), other)
        #expect(try fixture.context.webAuthnCredentials(uid: "bob")[0].attestationFormat == "unknown",
                "a format that is not printable is stored as unknown")
        let broken = TestAuthenticator()
        broken.format = "packed"
        broken.statementOverride = TestCBOR.encode(.map([(.text("alg"), .int(-8)), (.text("sig"), .bytes([1, 2, 3]))]))
        try fixture.enroll(fixture.user("carol"), broken)
        #expect(try fixture.context.webAuthnCredentials(uid: "carol")[0].attestationKind == "unverified")
    }

    @Test("attestation asked for: an unknown format is ATTESTATION_NOT_TRUSTED; the callback sees it unverified")
    func unknownFormatJudged() throws {
        let direct = """
            {"state":"ENABLED","providers":{"webauthn":"ENABLED"},"webauthn":{"rpId":"example.com","attestation":"direct"}}
            """
        let key = TestAuthenticator()
        key.format = "android-safetynet"
        key.statementOverride = TestCBOR.encode(.map([(.text("ver"), .text("1")), (.text("response"), .bytes([1]))]))
        let strict = try WebAuthnFixture(config: direct)
        #expect(errorCode { try strict.enroll(strict.user(), key) } == .attestationNotTrusted)
        let trust = RecordingTrust(accept: false)
        let judged = try WebAuthnFixture(config: direct, trust: trust)
        #expect(errorCode { try judged.enroll(judged.user(), key) } == .attestationNotTrusted)
        #expect(trust.attestations.map(\.format) == ["android-safetynet"]
            && trust.attestations.map(\.kind) == ["unverified"])
        #expect(trust.attestations.first?.aaguid == key.aaguid)
        // A known format whose statement is broken is refused before the callback.
        let broken = TestAuthenticator()
        broken.format = "tpm"
        broken.statementOverride = TestCBOR.encode(.map([(.text("ver"), .text("2.0"))]))
        #expect(errorCode { try judged.enroll(judged.user("bob"), broken) } == .invalidArgument)
        #expect(trust.attestations.count == 1)
    }

    @Test("ES384 and ES512 keys are read whole: the right curve, coordinate sizes, a point on the curve")
    func ellipticKeys() throws {
        func key(_ alg: Int64, _ crv: Int64, _ size: Int, x: [UInt8]? = nil) -> CBORValue {
            func int(_ n: Int64) -> CBORValue { n >= 0 ? .unsigned(UInt64(n)) : .negative(UInt64(-1 - n)) }
            return .map([CBORPair(int(1), int(2)), CBORPair(int(3), int(alg)), CBORPair(int(-1), int(crv)),
                         CBORPair(int(-2), .bytes(x ?? [UInt8](repeating: 0, count: size))),
                         CBORPair(int(-3), .bytes([UInt8](repeating: 0, count: size)))])
        }
        #expect(errorCode { try COSEKey(key(-35, 2, 48)) } == .invalidArgument, "(0, 0) is not on P-384")
        #expect(errorCode { try COSEKey(key(-36, 3, 66)) } == .invalidArgument, "(0, 0) is not on P-521")
        #expect(errorCode { try COSEKey(key(-35, 3, 48)) } == .invalidArgument, "ES384 on curve 3")
        #expect(errorCode { try COSEKey(key(-36, 3, 64)) } == .invalidArgument, "64-byte coordinates for P-521")
        #expect(errorCode { try COSEKey(key(-65535, 1, 32)) } == .invalidArgument, "RS1 is never a credential's")
    }
}
