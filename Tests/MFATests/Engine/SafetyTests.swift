import Foundation
import MFA
import Testing

@Suite("Safety: backoff, secrets at rest, key rotation, import")
struct SafetyTests {
    @Test("10^4 wrong codes never succeed; backoff refuses most; the right code works once it expires", arguments: StoreKind.available)
    func bruteForce(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        let user = fixture.user()
        let (info, secret) = try fixture.enrollTOTP(user)
        let totp = try TOTP(secret: secret.secret)
        var evaluated = 0
        var refused = 0
        var guess = 0
        for _ in 0..<10_000 {
            fixture.clock.advance(1)
            var code: String
            repeat {
                guess = (guess + 7919) % 1_000_000
                code = String(repeating: "0", count: 6 - String(guess).count) + String(guess)
            } while try totp.verify(code, at: fixture.clock.now(), window: 5) != nil
            let resolver = try fixture.resolver(user)
            switch errorCode({ try resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: info.uid, oneTimePassword: code)) }) {
            case .invalidVerificationCode: evaluated += 1
            case .tooManyAttemptsTryLater: refused += 1
            default: Issue.record("a wrong code got through or failed oddly")
            }
        }
        #expect(evaluated + refused == 10_000)
        #expect(evaluated <= 40, "backoff evaluated \(evaluated) guesses")
        #expect(fixture.log.kinds().contains(.backoff))
        let locked = try fixture.resolver(user)
        #expect(errorCode { try locked.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: fixture.code(secret))) } == .tooManyAttemptsTryLater)
        fixture.clock.advance(901)
        _ = try fixture.resolver(user).resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: fixture.code(secret)))
    }

    @Test("the SQLite file holds no TOTP secret in the clear")
    func secretsAtRest() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mfa-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        var secrets: [TOTPSecret] = []
        do {
            let fixture = try EngineFixture(store: path)
            for index in 0..<5 { secrets.append(try fixture.enrollTOTP(fixture.user("user\(index)")).1) }
            fixture.context.close()
        }
        var bytes = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            bytes.append(try Data(contentsOf: directory.appendingPathComponent(name)))
        }
        #expect(bytes.count > 0)
        for secret in secrets {
            #expect(bytes.range(of: Data(secret.sharedSecretKey().utf8)) == nil)
            #expect(bytes.range(of: Data(secret.sharedSecretKey().lowercased().utf8)) == nil)
            #expect(bytes.range(of: Data(secret.secret)) == nil)
        }
    }

    @Test("rotating the master key loses no factor")
    func rotation() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mfa-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let old = try MasterKey(id: "k1", bytes: EngineFixture.keyBytes)
        let new = try MasterKey(id: "k2", bytes: [UInt8](repeating: 9, count: 32))
        let clock = TestClock()
        func open(_ keyring: MasterKeyring) throws -> MFAContext {
            var options = MFAOptions(store: path, keyring: keyring)
            options.clock = clock
            return try MFAContext(options: options)
        }
        let user = MFAUser(uid: "alice", email: "a@example.com", emailVerified: true, authTime: clock.now())
        var secrets: [TOTPSecret] = []
        var ids: [String] = []
        do {
            let context = try open(try MasterKeyring(current: old))
            try context.setConfig(json: #"{"state":"ENABLED","providers":{"totp":"ENABLED"}}"#)
            for _ in 0..<3 {
                let multiFactor = context.multiFactor(for: user)
                let secret = try TOTPMultiFactorGenerator.generateSecret(with: multiFactor.session())
                let info = try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
                    with: secret, oneTimePassword: TOTP(secret: secret.secret).code(at: clock.now())),
                    displayName: nil)
                secrets.append(secret)
                ids.append(info.uid)
            }
            context.close()
        }
        func signIn(_ context: MFAContext, _ index: Int) throws {
            clock.advance(30)
            guard case .secondFactorRequired(let resolver) = try context.signIn(user) else { throw MFAError(.internal) }
            _ = try resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: ids[index], oneTimePassword: TOTP(secret: secrets[index].secret).code(at: clock.now())))
        }
        let both = try open(try MasterKeyring(current: new, previous: [old]))
        try signIn(both, 0)
        #expect(try both.rotateKeys() == 3)
        #expect(try both.rotateKeys() == 0)
        both.close()
        let newOnly = try open(try MasterKeyring(current: new))
        for index in 0..<3 { try signIn(newOnly, index) }
        newOnly.close()
        let oldOnly = try open(try MasterKeyring(current: old))
        #expect(errorCode { try signIn(oldOnly, 1) } == .crypto)
    }

    @Test("imported factors from raw secrets and otpauth URIs sign in", arguments: StoreKind.available)
    func importing(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        let user = fixture.user()
        let legacy = Array("ten-bytes!".utf8)
        let raw = try fixture.context.importTOTPFactor(for: user, totp: TOTP(secret: legacy, digits: 8),
                                                       displayName: "old server")
        let uri = "otpauth://totp/Old:alice?secret=JBSWY3DPEHPK3PXP&issuer=Old&algorithm=SHA256&period=60"
        let fromURI = try fixture.context.importTOTPFactor(for: user, uri: uri, displayName: nil)
        #expect(try Set(fixture.context.multiFactor(for: user).enrolledFactors().map(\.uid)) == [raw.uid, fromURI.uid])
        _ = try fixture.resolver(user).resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: raw.uid, oneTimePassword: TOTP(secret: legacy, digits: 8).code(at: fixture.clock.now())))
        let parsed = try KeyURI(parsing: uri)
        let code = try TOTP(secret: parsed.secret, algorithm: .sha256, period: 60).code(at: fixture.clock.now())
        _ = try fixture.resolver(user).resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: fromURI.uid, oneTimePassword: code))
        #expect(errorCode { try fixture.context.importTOTPFactor(for: user, totp: TOTP(secret: [1, 2, 3]),
                                                                 displayName: nil) } == .invalidArgument)
        #expect(errorCode { try fixture.context.importTOTPFactor(
            for: user, uri: "otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=1", displayName: nil) } == .invalidArgument)
        #expect(errorCode { try fixture.context.importTOTPFactor(for: user, uri: "nope", displayName: nil) } == .invalidURI)
    }

    @Test("injected randomness makes secrets deterministic; a failing source is a CRYPTO error")
    func injectedRandom() throws {
        struct Counter: RandomSource {
            func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(MFAError) {
                for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
            }
        }
        struct Broken: RandomSource {
            func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(MFAError) {
                throw MFAError(.crypto, "no entropy")
            }
        }
        func secret(_ random: any RandomSource) throws -> TOTPSecret {
            var options = MFAOptions(store: ":memory:", keyring: try MasterKeyring(
                current: MasterKey(id: "k", bytes: EngineFixture.keyBytes)))
            options.random = random
            let context = try MFAContext(options: options)
            try context.setConfig(json: #"{"state":"ENABLED","providers":{"totp":"ENABLED"}}"#)
            let user = MFAUser(uid: "u", email: "u@x", emailVerified: true, authTime: SystemClock().now())
            return try TOTPMultiFactorGenerator.generateSecret(with: context.multiFactor(for: user).session())
        }
        #expect(try secret(Counter()).secret == secret(Counter()).secret)
        #expect(errorCode { try secret(Broken()) } == .crypto)
    }

    @Test("an enrollment id never begins with '-', even when its random bytes would make one")
    func enrollmentIDNotAnOption() throws {
        /// Bytes whose URL-safe encoding begins with "-" (0xFB: top 6 bits 62).
        struct Dashes: RandomSource {
            func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(MFAError) {
                for index in buffer.indices { buffer[index] = 0xFB }
            }
        }
        var options = MFAOptions(store: ":memory:", keyring: try MasterKeyring(
            current: MasterKey(id: "k", bytes: EngineFixture.keyBytes)))
        options.random = Dashes()
        let context = try MFAContext(options: options)
        try context.setConfig(json: #"{"state":"ENABLED","providers":{"totp":"ENABLED"}}"#)
        let user = MFAUser(uid: "u", email: "u@x", emailVerified: true, authTime: SystemClock().now())
        let multiFactor = context.multiFactor(for: user)
        let secret = try TOTPMultiFactorGenerator.generateSecret(with: multiFactor.session())
        let info = try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
            with: secret, oneTimePassword: try TOTP(secret: secret.secret).code(at: SystemClock().now())),
                                          displayName: nil)
        #expect(info.uid.count == 28 && info.uid.hasPrefix("_"), "\(info.uid)")
        #expect(!info.uid.contains("=") && !info.uid.contains("+") && !info.uid.contains("/"))
    }
}
