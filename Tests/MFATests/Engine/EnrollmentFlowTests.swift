import MFA
import Testing

@Suite("TOTP enrollment (SPEC flows 2 and 4)")
struct EnrollmentFlowTests {
    @Test("a session, a secret, a code from the app and a name enroll a factor", arguments: StoreKind.available)
    func enrollsFactor(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        let user = fixture.user()
        let (info, secret) = try fixture.enrollTOTP(user, name: "Work phone")
        #expect(info.factorID == "totp" && info.displayName == "Work phone")
        #expect(info.uid.count == 28)
        #expect(info.enrollmentDate == fixture.clock.now())
        #expect(secret.sharedSecretKey().count == 32 && secret.codeLength == 6 && secret.codeIntervalSeconds == 30)
        #expect(secret.hashingAlgorithm == .sha1)
        #expect(secret.enrollmentCompletionDeadline == fixture.clock.now() + 600)
        #expect(try fixture.context.multiFactor(for: user).enrolledFactors() == [info])
        #expect(fixture.log.kinds().contains(.enroll))
        let url = try secret.generateQRCodeURL(withAccountName: "alice@example.com", issuer: "ACME Co")
        #expect(url.hasPrefix("otpauth://totp/ACME%20Co:alice%40example.com?secret=\(secret.sharedSecretKey())"))
    }

    @Test("factors enrolled in one second list and hint in enrollment order", arguments: StoreKind.available)
    func sameSecondOrder(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        for index in 0..<6 {
            let user = fixture.user("order-\(index)", tenant: index % 2 == 0 ? nil : "t1")
            var enrolled: [String] = []
            for _ in 0..<5 { enrolled.append(try fixture.enrollTOTP(user).0.uid) }
            #expect(try fixture.context.multiFactor(for: user).enrolledFactors().map(\.uid) == enrolled)
            #expect(try fixture.resolver(user).hints.map(\.uid) == enrolled)
        }
    }

    @Test("prerequisites are checked in order, each with its named error", arguments: StoreKind.available)
    func prerequisites(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        var user = fixture.user()
        user.provider = "anonymous"
        #expect(errorCode { try fixture.context.multiFactor(for: user).session() } == .unsupportedFirstFactor)
        for provider in ["phone", "custom", "gc.apple.com"] {
            user.provider = provider
            #expect(errorCode { try fixture.context.multiFactor(for: user).session() } == .unsupportedFirstFactor)
        }
        user.provider = "google.com"
        user.emailVerified = false
        #expect(errorCode { try fixture.context.multiFactor(for: user).session() } == .unverifiedEmail)
        user.emailVerified = true
        user.authTime = fixture.clock.now() - 301
        #expect(errorCode { try fixture.context.multiFactor(for: user).session() } == .requiresRecentLogin)
        user.authTime = fixture.clock.now()
        for _ in 0..<5 { _ = try fixture.enrollTOTP(user) }
        #expect(errorCode { try fixture.context.multiFactor(for: user).session() } == .secondFactorLimitExceeded)
        try fixture.context.setConfig(json: #"{"state":"DISABLED"}"#)
        #expect(errorCode { try fixture.context.multiFactor(for: fixture.user("bob")).session() } == .operationNotAllowed)
    }

    @Test("a wrong code can be retried; an expired secret cannot", arguments: StoreKind.available)
    func wrongAndExpired(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        let user = fixture.user()
        let multiFactor = fixture.context.multiFactor(for: user)
        let secret = try TOTPMultiFactorGenerator.generateSecret(with: multiFactor.session())
        let wrong = try fixture.code(secret, offset: 30 * 20)
        let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: wrong)
        #expect(errorCode { try multiFactor.enroll(with: assertion, displayName: nil) } == .invalidVerificationCode)
        #expect(errorCode {
            try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
                with: secret, oneTimePassword: "12345"), displayName: nil)
        } == .invalidVerificationCode)
        _ = try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
            with: secret, oneTimePassword: fixture.code(secret)), displayName: nil)

        let late = try TOTPMultiFactorGenerator.generateSecret(with: multiFactor.session())
        fixture.clock.advance(601)
        #expect(errorCode {
            try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
                with: late, oneTimePassword: fixture.code(late)), displayName: nil)
        } == .codeExpired)
    }

    @Test("a session works once, expires, and belongs to its user and tenant", arguments: StoreKind.available)
    func sessionRules(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        let user = fixture.user()
        let multiFactor = fixture.context.multiFactor(for: user)
        let session = try multiFactor.session()
        let first = try TOTPMultiFactorGenerator.generateSecret(with: session)
        let second = try TOTPMultiFactorGenerator.generateSecret(with: session)
        _ = try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
            with: first, oneTimePassword: fixture.code(first)), displayName: nil)
        #expect(errorCode {
            try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
                with: second, oneTimePassword: fixture.code(second)), displayName: nil)
        } == .invalidSession)
        #expect(errorCode { try TOTPMultiFactorGenerator.generateSecret(with: session) } == .invalidSession)

        let other = try TOTPMultiFactorGenerator.generateSecret(with: multiFactor.session())
        let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(with: other, oneTimePassword: try fixture.code(other))
        #expect(errorCode { try fixture.context.multiFactor(for: fixture.user("mallory")).enroll(
            with: assertion, displayName: nil) } == .invalidSession)
        #expect(errorCode { try fixture.context.multiFactor(for: fixture.user("alice", tenant: "t2")).enroll(
            with: assertion, displayName: nil) } == .tenantMismatch)

        let stale = try multiFactor.session()
        fixture.clock.advance(601)
        #expect(errorCode { try TOTPMultiFactorGenerator.generateSecret(with: stale) } == .invalidSession)
        let forged = MultiFactorSession(token: "v1.AAAA", context: fixture.context)
        #expect(errorCode { try TOTPMultiFactorGenerator.generateSecret(with: forged) } == .invalidSession)
    }

    @Test("TOTP disabled is OPERATION_NOT_ALLOWED", arguments: StoreKind.available)
    func totpDisabled(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind, config: #"{"state":"ENABLED","providers":{"phone":"ENABLED"}}"#)
        let session = try fixture.context.multiFactor(for: fixture.user()).session()
        #expect(errorCode { try TOTPMultiFactorGenerator.generateSecret(with: session) } == .operationNotAllowed)
    }
}
