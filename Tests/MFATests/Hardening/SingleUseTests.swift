import Foundation
import MFA
import Testing

/// Issue 8, items 4 to 7: single use must mean single use, and revocation
/// reaches libmfa's own tokens.
@Suite("Hardening: single use and revocation")
struct SingleUseTests {
    @Test("item 4: a used session stays used after the lifetimes are shortened and the store purged",
          arguments: StoreKind.available)
    func regressionUsedSessionAfterShorterLifetimes(_ kind: StoreKind) throws {
        let fixture = try FlowFixture(kind)
        let multiFactor = fixture.context.multiFactor(for: fixture.user())
        let session = try multiFactor.session()
        try fixture.context.updateConfig(json: #"{"limits":{"sessionLifetime":10,"enrollmentDeadline":10}}"#)
        let secret = try TOTPMultiFactorGenerator.generateSecret(with: session)
        _ = try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
            with: secret, oneTimePassword: TOTP(secret: secret.secret).code(at: fixture.clock.now())), displayName: nil)
        fixture.clock.advance(60)
        try fixture.context.purgeExpired()
        // The session itself (600 s, sealed in the token) has not expired: its use is still on record.
        #expect(errorCode { try TOTPMultiFactorGenerator.generateSecret(with: session) } == .invalidSession)
        #expect(errorCode { try RecoveryCodesMultiFactorGenerator.generateCodes(with: session) } == .invalidSession)
    }

    @Test("item 4: two servers 5 s apart: the one ahead purging does not free a session the other still accepts",
          arguments: StoreKind.available)
    func regressionUsedSessionAcrossClockSkew(_ kind: StoreKind) throws {
        let location = try kind.freshLocation(file: true)
        let behind = TestClock()
        let ahead = TestClock(behind.now() + 5)
        let serverB = try PhoneFixture(store: location, config: FlowFixture.config, clock: behind)
        let serverA = try PhoneFixture(store: location, config: FlowFixture.config, clock: ahead)
        let user = serverB.user()
        let session = try serverB.context.multiFactor(for: user).session()
        _ = try RecoveryCodesMultiFactorGenerator.generateCodes(with: session)
        behind.advance(598)
        ahead.advance(598)  // 603 on A's clock: past the session's expiry there
        try serverA.context.purgeExpired()
        #expect(errorCode { try TOTPMultiFactorGenerator.generateSecret(with: session) } == .invalidSession)
    }

    @Test("item 4: the skew allowance is a configurable limit (0 to 3600 s)")
    func clockSkewLimit() throws {
        let fixture = try FlowFixture(.sqlite)
        try fixture.context.updateConfig(json: #"{"limits":{"clockSkew":60}}"#)
        #expect(try fixture.context.config().limits.clockSkew == 60)
        #expect(errorCode { try fixture.context.updateConfig(json: #"{"limits":{"clockSkew":3601}}"#) }
            == .invalidArgument)
    }

    @Test("item 5: a used pending credential cannot rebuild a resolver", arguments: StoreKind.available)
    func regressionResolverFromUsedCredential(_ kind: StoreKind) throws {
        let fixture = try FlowFixture(kind)
        let factor = try TOTPDriver().enroll(fixture, fixture.user())
        let resolver = try fixture.resolver(fixture.user())
        _ = try fixture.context.resolver(pendingCredential: resolver.session, tenant: nil)
        _ = try resolver.resolveSignIn(with: TOTPDriver().right(fixture, resolver, factor, use: 0))
        #expect(errorCode { try fixture.context.resolver(pendingCredential: resolver.session, tenant: nil) }
            == .invalidSession)
    }

    @Test("item 6: an enrollment session minted before an enroll or an unenroll no longer works",
          arguments: StoreKind.available)
    func regressionSessionBeforeEnrollOrUnenroll(_ kind: StoreKind) throws {
        let fixture = try FlowFixture(kind)
        let multiFactor = fixture.context.multiFactor(for: fixture.user())
        let early = try multiFactor.session()
        let totp = try TOTPDriver().enroll(fixture, fixture.user())
        #expect(errorCode { try TOTPMultiFactorGenerator.generateSecret(with: early) } == .userTokenExpired)
        let beforeUnenroll = try multiFactor.session()
        try multiFactor.unenroll(withFactorUID: totp.info.uid)
        #expect(errorCode { try RecoveryCodesMultiFactorGenerator.generateCodes(with: beforeUnenroll) }
            == .userTokenExpired)
        _ = try RecoveryCodesMultiFactorGenerator.generateCodes(with: multiFactor.session())
    }

    @Test("item 6: a pending credential minted before an unenroll cannot finish with another factor",
          arguments: StoreKind.available)
    func regressionPendingCredentialBeforeUnenroll(_ kind: StoreKind) throws {
        let fixture = try FlowFixture(kind)
        let first = try TOTPDriver().enroll(fixture, fixture.user())
        let second = try RecoveryDriver().enroll(fixture, fixture.user())
        let resolver = try fixture.resolver(fixture.user())
        try fixture.context.multiFactor(for: fixture.user()).unenroll(withFactorUID: first.info.uid)
        #expect(errorCode { try resolver.resolveSignIn(with: RecoveryDriver().right(fixture, resolver, second, use: 0)) }
            == .userTokenExpired)
    }

    @Test("item 6: a credential issued in the revoking second is revoked; milliseconds order it exactly",
          arguments: StoreKind.available)
    func regressionSameSecondCredential(_ kind: StoreKind) throws {
        let fixture = try FlowFixture(kind)
        let user = fixture.user()
        let factor = try TOTPDriver().enroll(fixture, user)
        let second = fixture.clock.now()
        #expect(errorCode { try fixture.context.checkToken(tenant: nil, uid: user.uid, issuedAt: second) }
            == .userTokenExpired)
        try fixture.context.checkToken(tenant: nil, uid: user.uid, issuedAt: second + 1)
        try fixture.context.multiFactor(for: user).unenroll(withFactorUID: factor.info.uid)
        #expect(errorCode { try fixture.context.checkToken(tenant: nil, uid: user.uid, issuedAt: second) }
            == .userTokenExpired)
        #expect(errorCode {
            try fixture.context.checkToken(tenant: nil, uid: user.uid, issuedAtMilliseconds: second * 1000)
        } == .userTokenExpired)
        try fixture.context.checkToken(tenant: nil, uid: user.uid, issuedAtMilliseconds: second * 1000 + 1)
        try fixture.context.checkToken(tenant: nil, uid: "never-revoked", issuedAt: 0)
    }

    @Test("item 7: the host revokes a user: credentials, sessions and pending credentials; audited",
          arguments: StoreKind.available)
    func revokeTokens(_ kind: StoreKind) throws {
        let fixture = try FlowFixture(kind)
        let user = fixture.user()
        let factor = try TOTPDriver().enroll(fixture, user)
        fixture.clock.advance(10)
        let resolver = try fixture.resolver(fixture.user())
        let session = try fixture.context.multiFactor(for: fixture.user()).session()
        let issued = fixture.clock.now()
        try fixture.context.revokeTokens(uid: user.uid)
        #expect(fixture.log.all.last?.kind == .tokensRevoked && fixture.log.all.last?.uid == user.uid)
        #expect(errorCode { try fixture.context.checkToken(tenant: nil, uid: user.uid, issuedAt: issued) }
            == .userTokenExpired)
        #expect(errorCode { try resolver.resolveSignIn(with: TOTPDriver().right(fixture, resolver, factor, use: 0)) }
            == .userTokenExpired)
        #expect(errorCode { try TOTPMultiFactorGenerator.generateSecret(with: session) } == .userTokenExpired)
        #expect(try fixture.context.multiFactor(for: user).enrolledFactors().count == 1, "factors stay")
        let fresh = try fixture.resolver(fixture.user())
        _ = try fresh.resolveSignIn(with: TOTPDriver().right(fixture, fresh, factor, use: 1))
        #expect(errorCode { try fixture.context.revokeTokens(uid: "") } == .invalidArgument)
        #expect(errorCode { try fixture.context.revokeTokens(uid: "u", tenant: "") } == .invalidArgument)
    }
}
