import MFA
import Testing

/// A pending credential's id and nonce drawn together from the system's
/// CSPRNG, and never a nonce from a host's source.
@Suite("FreshDraw")
struct FreshDrawTests {
    /// The same bytes on every call: a host's deterministic source.
    struct Constant: RandomSource {
        func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(MFAError) {
            for index in buffer.indices { buffer[index] = 0x5a }
        }
    }

    /// Counts its calls, and fails each.
    final class Refusing: RandomSource, @unchecked Sendable {
        var calls = 0
        func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(MFAError) {
            calls += 1
            throw MFAError(.crypto, "no entropy")
        }
    }

    /// The bytes of a drawn nonce.
    func bytes(_ nonce: FreshNonce) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 24)
        out.withUnsafeMutableBytes { nonce.copy(to: $0) }
        return out
    }

    @Test("the system's source gives a 16-byte id and a nonce, fresh on every draw")
    func system() throws {
        var seen = Set<[UInt8]>()
        for _ in 0..<64 {
            let draw = try FreshDraw(SystemRandom(), system: true)
            #expect(draw.tokenID.count == FreshDraw.tokenIDBytes)
            let nonce = try #require(draw.nonce)
            #expect(seen.insert(draw.tokenID).inserted)
            #expect(seen.insert(bytes(nonce)).inserted)
        }
    }

    @Test("a host's source gives the id and no nonce; its failure is the draw's")
    func host() throws {
        let draw = try FreshDraw(Constant(), system: false)
        #expect(draw.tokenID == [UInt8](repeating: 0x5a, count: 16))
        #expect(draw.nonce == nil)
        let refusing = Refusing()
        #expect(errorCode { try FreshDraw(refusing, system: false) } == .crypto)
        #expect(refusing.calls == 1)
    }

    @Test("with a host's constant source, two sign-ins still seal distinct credentials that resolve")
    func constantSourceSignIns() throws {
        let clock = TestClock()
        var options = MFAOptions(store: ":memory:", keyring: try MasterKeyring(
            current: MasterKey(id: "k1", bytes: EngineFixture.keyBytes)))
        options.clock = clock
        options.random = Constant()
        let context = try MFAContext(options: options)
        try context.setConfig(json: #"{"state":"ENABLED","providers":{"totp":"ENABLED"}}"#)
        let user = MFAUser(uid: "alice", email: "a@x", emailVerified: true, authTime: clock.now())
        let multiFactor = context.multiFactor(for: user)
        let secret = try TOTPMultiFactorGenerator.generateSecret(with: multiFactor.session())
        _ = try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
            with: secret, oneTimePassword: TOTP(secret: secret.secret).code(at: clock.now())), displayName: "app")
        clock.advance(60)
        guard case .secondFactorRequired(let first) = try context.signIn(user),
              case .secondFactorRequired(let second) = try context.signIn(user) else {
            Issue.record("a user with a factor must resolve")
            return
        }
        // The ids are the host's (equal); the nonces are the system's, so the texts differ.
        #expect(first.session != second.session)
        let enrollmentID = try #require(first.hints.first?.uid)
        let result = try first.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: enrollmentID, oneTimePassword: TOTP(secret: secret.secret).code(at: clock.now())))
        #expect(result.enrollmentID == enrollmentID)
    }

    @Test("with the system's source, a resolve on another context opens the credential sealed with the drawn nonce")
    func systemSourceElsewhere() throws {
        let location = try StoreKind.sqlite.freshLocation(file: true)
        let here = try EngineFixture(store: location)
        let user = here.user()
        let (info, secret) = try here.enrollTOTP(user)
        here.clock.advance(60)
        let resolver = try here.resolver(user)
        let elsewhere = try EngineFixture(store: location)
        elsewhere.clock.advance(here.clock.now() - elsewhere.clock.now())
        let rebuilt = try elsewhere.context.resolver(pendingCredential: resolver.session, tenant: nil)
        let result = try rebuilt.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: here.code(secret)))
        #expect(result.enrollmentID == info.uid)
    }
}
