import MFA
import Testing

@Suite("Sign-in through the resolver (SPEC flows 5 and 6)")
struct SignInFlowTests {
    @Test("a user with TOTP needs the second factor; the code resolves the sign-in", arguments: StoreKind.available)
    func resolves(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        let user = fixture.user()
        let (info, secret) = try fixture.enrollTOTP(user, name: "Pixel")
        fixture.clock.advance(30)
        let resolver = try fixture.resolver(user)
        #expect(resolver.hints == [info])
        let result = try resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: fixture.code(secret)))
        #expect(result.uid == "alice" && result.factorID == "totp" && result.enrollmentID == info.uid)
        #expect(result.time == fixture.clock.now())
        #expect(result.claims.map(\.name) == ["sign_in_second_factor", "second_factor_identifier"])
        #expect(result.claims.map(\.value) == ["totp", info.uid])
        #expect(fixture.log.kinds().suffix(1) == [.signInSuccess])
    }

    @Test("a user without factors is signed in, unless MFA is MANDATORY", arguments: StoreKind.available)
    func noFactors(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        guard case .signedIn(let result) = try fixture.context.signIn(fixture.user("bob")) else {
            Issue.record("expected signedIn")
            return
        }
        #expect(result.factorID == nil && result.claims.isEmpty)
        try fixture.context.setConfig(json: #"{"state":"MANDATORY","providers":{"totp":"ENABLED"}}"#)
        #expect(errorCode { try fixture.context.signIn(fixture.user("bob")) } == .enrollmentRequired)
    }

    @Test("the same code is accepted once; the enrollment code cannot sign in", arguments: StoreKind.available)
    func replay(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        let user = fixture.user()
        let (info, secret) = try fixture.enrollTOTP(user)
        let code = try fixture.code(secret)
        let assertion = TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: info.uid, oneTimePassword: code)
        #expect(errorCode { try fixture.resolver(user).resolveSignIn(with: assertion) } == .invalidVerificationCode)
        fixture.clock.advance(30)
        let fresh = TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: try fixture.code(secret))
        _ = try fixture.resolver(user).resolveSignIn(with: fresh)
        #expect(errorCode { try fixture.resolver(user).resolveSignIn(with: fresh) } == .invalidVerificationCode)
        let earlier = TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: try fixture.code(secret, offset: -60))
        #expect(errorCode { try fixture.resolver(user).resolveSignIn(with: earlier) } == .invalidVerificationCode)
    }

    @Test("a pending credential that is tampered, expired, reused or another user's is INVALID_SESSION", arguments: StoreKind.available)
    func pendingCredential(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        let alice = fixture.user()
        let bob = fixture.user("bob")
        let (aliceFactor, aliceSecret) = try fixture.enrollTOTP(alice)
        let (bobFactor, _) = try fixture.enrollTOTP(bob)
        fixture.clock.advance(30)
        let resolver = try fixture.resolver(alice)
        func assertion(_ id: String) throws -> TOTPMultiFactorAssertion {
            TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: id, oneTimePassword: try fixture.code(aliceSecret))
        }
        var tampered = Array(resolver.session.utf8)
        tampered[tampered.count / 2] = tampered[tampered.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(errorCode { try fixture.context.resolveSignIn(
            pendingCredential: String(decoding: tampered, as: UTF8.self), tenant: nil,
            assertion: assertion(aliceFactor.uid)) } == .invalidSession)
        #expect(errorCode { try fixture.context.resolveSignIn(pendingCredential: "", tenant: nil,
                                                              assertion: assertion(aliceFactor.uid)) } == .invalidSession)
        #expect(errorCode { try resolver.resolveSignIn(with: assertion(bobFactor.uid)) } == .invalidSession)
        #expect(errorCode { try resolver.resolveSignIn(with: assertion("no-such-factor")) } == .mfaEnrollmentNotFound)
        #expect(errorCode { try fixture.context.resolveSignIn(pendingCredential: resolver.session, tenant: "t1",
                                                              assertion: assertion(aliceFactor.uid)) } == .tenantMismatch)
        _ = try resolver.resolveSignIn(with: assertion(aliceFactor.uid))
        fixture.clock.advance(30)
        #expect(errorCode { try resolver.resolveSignIn(with: assertion(aliceFactor.uid)) } == .invalidSession)
        let expiring = try fixture.resolver(alice)
        fixture.clock.advance(301)
        #expect(errorCode { try expiring.resolveSignIn(with: assertion(aliceFactor.uid)) } == .invalidSession)
    }

    @Test("tenants are separate: a tenant user's credential does not resolve for the project", arguments: StoreKind.available)
    func tenants(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        try fixture.context.setConfig(json: #"{"totp":{"adjacentIntervals":0}}"#, tenant: "t1")
        let user = fixture.user("carol", tenant: "t1")
        let (info, secret) = try fixture.enrollTOTP(user)
        fixture.clock.advance(30)
        let resolver = try fixture.resolver(user)
        #expect(resolver.tenant == "t1")
        let assertion = TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: try fixture.code(secret, offset: -30))
        #expect(errorCode { try resolver.resolveSignIn(with: assertion) } == .invalidVerificationCode)
        #expect(errorCode { try fixture.context.resolveSignIn(pendingCredential: resolver.session, tenant: nil,
                                                              assertion: assertion) } == .tenantMismatch)
        let now = TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: info.uid,
                                                              oneTimePassword: try fixture.code(secret))
        #expect(try resolver.resolveSignIn(with: now).tenant == "t1")
    }

    @Test("unenroll needs a recent login, revokes tokens, and unknown ids are MFA_ENROLLMENT_NOT_FOUND", arguments: StoreKind.available)
    func unenroll(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        var user = fixture.user()
        let issued = fixture.clock.now() - 10
        let (info, _) = try fixture.enrollTOTP(user)
        #expect(errorCode { try fixture.context.checkToken(tenant: nil, uid: "alice", issuedAt: issued) } == .userTokenExpired)
        fixture.clock.advance(100)
        try fixture.context.checkToken(tenant: nil, uid: "alice", issuedAt: fixture.clock.now())
        let multiFactor = fixture.context.multiFactor(for: user)
        fixture.clock.advance(300)
        #expect(errorCode { try multiFactor.unenroll(with: info) } == .requiresRecentLogin)
        user.authTime = fixture.clock.now()
        let beforeUnenroll = fixture.clock.now() - 1
        try fixture.context.multiFactor(for: user).unenroll(with: info)
        #expect(try fixture.context.multiFactor(for: user).enrolledFactors().isEmpty)
        #expect(errorCode { try fixture.context.checkToken(tenant: nil, uid: "alice", issuedAt: beforeUnenroll) }
            == .userTokenExpired)
        #expect(errorCode { try fixture.context.multiFactor(for: user).unenroll(withFactorUID: info.uid) }
            == .mfaEnrollmentNotFound)
        #expect(fixture.log.kinds().contains(.unenroll))
    }

    @Test("step-up: a second factor within the last N seconds", arguments: StoreKind.available)
    func stepUp(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        let user = fixture.user()
        let (info, secret) = try fixture.enrollTOTP(user)
        #expect(try !fixture.context.passedSecondFactor(tenant: nil, uid: "alice", within: 300))
        fixture.clock.advance(30)
        _ = try fixture.resolver(user).resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: fixture.code(secret)))
        fixture.clock.advance(100)
        #expect(try fixture.context.passedSecondFactor(tenant: nil, uid: "alice", within: 300))
        #expect(try !fixture.context.passedSecondFactor(tenant: nil, uid: "alice", within: 99))
    }
}
