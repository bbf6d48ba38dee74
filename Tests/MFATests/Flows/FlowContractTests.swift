import MFA
import Testing

/// The flow contract, run over every factor kind on every store: what any
/// second factor must do, whatever it is. A new kind gets a driver and
/// passes these before anything else.
@Suite("Flow contract: every factor kind")
struct FlowContractTests {
    @Test("enroll: the factor is listed, hinted and audited", arguments: driversAndStores)
    func enroll(_ driver: any FactorDriver, _ store: StoreKind) throws {
        let fixture = try FlowFixture(store)
        let user = fixture.user()
        let factor = try driver.enroll(fixture, user)
        #expect(factor.info.factorID == driver.factorID)
        #expect(!factor.info.hint.isEmpty)
        let listed = try fixture.context.multiFactor(for: user).enrolledFactors()
        #expect(listed.map(\.uid) == [factor.info.uid])
        let hints = try fixture.resolver(user).hints
        #expect(hints.map(\.uid) == [factor.info.uid] && hints[0].factorID == driver.factorID)
        #expect(fixture.log.all.contains { $0.kind == .enroll && $0.factorID == driver.factorID })
    }

    @Test("sign in: the right factor resolves, with the service's claims", arguments: driversAndStores)
    func signIn(_ driver: any FactorDriver, _ store: StoreKind) throws {
        let fixture = try FlowFixture(store)
        let user = fixture.user()
        let factor = try driver.enroll(fixture, user)
        let resolver = try fixture.resolver(fixture.user())
        let result = try resolver.resolveSignIn(with: driver.right(fixture, resolver, factor, use: 0))
        #expect(result.uid == user.uid && result.factorID == driver.factorID && result.enrollmentID == factor.info.uid)
        #expect(result.claims.first?.value == driver.factorID)
        #expect(fixture.log.all.last { $0.kind == .signInSuccess }?.factorID == driver.factorID)
        #expect(try fixture.context.passedSecondFactor(tenant: nil, uid: user.uid, within: 1))
    }

    @Test("a wrong code is INVALID_VERIFICATION_CODE, audited, and the credential still works",
          arguments: driversAndStores)
    func wrongCode(_ driver: any FactorDriver, _ store: StoreKind) throws {
        let fixture = try FlowFixture(store)
        let factor = try driver.enroll(fixture, fixture.user())
        let resolver = try fixture.resolver(fixture.user())
        #expect(errorCode { try resolver.resolveSignIn(with: driver.wrong(fixture, resolver, factor)) }
            == .invalidVerificationCode)
        #expect(fixture.log.all.last?.kind == .signInFailure && fixture.log.all.last?.factorID == driver.factorID)
        _ = try resolver.resolveSignIn(with: driver.right(fixture, resolver, factor, use: 0))
    }

    @Test("replay: what was accepted once is refused after, and the credential is single-use",
          arguments: driversAndStores)
    func replay(_ driver: any FactorDriver, _ store: StoreKind) throws {
        let fixture = try FlowFixture(store)
        let factor = try driver.enroll(fixture, fixture.user())
        let resolver = try fixture.resolver(fixture.user())
        let assertion = try driver.right(fixture, resolver, factor, use: 0)
        _ = try resolver.resolveSignIn(with: assertion)
        #expect(errorCode { try resolver.resolveSignIn(with: driver.right(fixture, resolver, factor, use: 1)) }
            == .invalidSession, "the pending credential was used")
        #expect(errorCode { try fixture.context.resolver(pendingCredential: resolver.session, tenant: nil) }
            == .invalidSession, "and cannot be rebuilt")
        let again = try fixture.resolver(fixture.user())
        let code = errorCode { try again.resolveSignIn(with: assertion) }
        #expect(code == .invalidVerificationCode || code == .invalidSession, "replayed: \(String(describing: code))")
        _ = try again.resolveSignIn(with: driver.right(fixture, again, factor, use: 1))
    }

    @Test("unenroll revokes: earlier credentials and libmfa tokens are USER_TOKEN_EXPIRED",
          arguments: driversAndStores)
    func unenroll(_ driver: any FactorDriver, _ store: StoreKind) throws {
        let fixture = try FlowFixture(store)
        let user = fixture.user()
        let factor = try driver.enroll(fixture, user)
        let totp = try TOTPDriver().enroll(fixture, fixture.user())
        let resolver = try fixture.resolver(fixture.user())
        let session = try fixture.context.multiFactor(for: fixture.user()).session()
        fixture.clock.advance(1)
        let issued = fixture.clock.now()
        try fixture.context.multiFactor(for: fixture.user()).unenroll(withFactorUID: factor.info.uid)
        #expect(fixture.log.all.last { $0.kind == .unenroll }?.factorID == driver.factorID)
        #expect(errorCode { try fixture.context.checkToken(tenant: nil, uid: user.uid, issuedAt: issued) }
            == .userTokenExpired, "a credential of the revoking second is revoked")
        try fixture.context.checkToken(tenant: nil, uid: user.uid, issuedAt: issued + 1)
        #expect(errorCode { try resolver.resolveSignIn(with: TOTPDriver().right(fixture, resolver, totp, use: 0)) }
            == .userTokenExpired, "a pending credential from before the unenroll")
        #expect(errorCode { try TOTPMultiFactorGenerator.generateSecret(with: session) } == .userTokenExpired)
        #expect(errorCode { try fixture.context.resolver(pendingCredential: resolver.session, tenant: nil) }
            == .userTokenExpired)
        #expect(try fixture.resolver(fixture.user()).hints.map(\.uid) == [totp.info.uid])
    }

    @Test("backoff: failures beyond the free ones are refused for a while, then the factor works",
          arguments: driversAndStores)
    func backoff(_ driver: any FactorDriver, _ store: StoreKind) throws {
        let fixture = try FlowFixture(store)
        let factor = try driver.enroll(fixture, fixture.user())
        let resolver = try fixture.resolver(fixture.user())
        var wrong = try driver.wrong(fixture, resolver, factor)
        var refused = false
        for _ in 0..<9 {
            var code = errorCode { try resolver.resolveSignIn(with: wrong) }
            if code == .invalidSession { // an SMS verification takes 5 wrong tries, then a new code is needed
                wrong = try driver.wrong(fixture, resolver, factor)
                code = errorCode { try resolver.resolveSignIn(with: wrong) }
            }
            if code == .tooManyAttemptsTryLater { refused = true }
            #expect(code == .invalidVerificationCode || code == .tooManyAttemptsTryLater)
        }
        #expect(refused)
        fixture.clock.advance(3600)
        let later = try fixture.resolver(fixture.user())
        _ = try later.resolveSignIn(with: driver.right(fixture, later, factor, use: 2))
    }
}
