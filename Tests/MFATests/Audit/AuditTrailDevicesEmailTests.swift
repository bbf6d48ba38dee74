import MFA
import Testing

/// Email codes and remembered devices raise events of their own
/// (`EMAIL_SENT`, `DEVICE_REMEMBERED`, `DEVICE_REFUSED`, `DEVICE_REVOKED`):
/// with the stored trail on, they reach it like every other event, and the
/// device writes store theirs in their own transaction.
@Suite("The stored audit trail: email codes and remembered devices")
struct AuditTrailDevicesEmailTests {
    static let config = """
        {"state":"ENABLED","providers":{"email":"ENABLED"},"auditTrail":{"store":true},
         "rememberedDevices":{"state":"ENABLED","days":30,"maxPerUser":1}}
        """

    private func fixture(_ kind: StoreKind) throws -> (PhoneFixture, String) {
        let location = try kind.freshLocation(file: true)
        return (try PhoneFixture(store: location, config: Self.config), location)
    }

    /// A sign-in of `user` that passes an email code: its resolver, used up.
    private func passSecondFactor(_ fixture: PhoneFixture, _ user: MFAUser) throws -> MultiFactorResolver {
        fixture.clock.advance(31)
        let resolver = try fixture.resolver(user)
        let id = try fixture.emailProvider.sendVerificationCode(with: resolver.hints[0], resolver: resolver)
        let code = try #require(fixture.mailer.lastCode(to: "jane@example.com"))
        _ = try resolver.resolveSignIn(with: EmailMultiFactorGenerator.assertion(
            with: fixture.emailProvider.credential(withVerificationID: id, verificationCode: code)))
        return resolver
    }

    private func signIn(_ fixture: PhoneFixture, _ user: MFAUser, _ token: String) throws -> SignInResult? {
        var fresh = user
        fresh.authTime = fixture.clock.now()
        guard case .signedIn(let result) = try fixture.context.signIn(fresh, deviceToken: token) else { return nil }
        return result
    }

    @Test("every email and device event the callback sees is stored, in order, and the chain verifies",
          arguments: StoreKind.available)
    func stored(_ kind: StoreKind) throws {
        let (fixture, _) = try fixture(kind)
        let user = fixture.user()
        _ = try fixture.enrollEmail(user, "jane@example.com")
        let first = try passSecondFactor(fixture, user).rememberDevice(label: nil)
        #expect(try signIn(fixture, user, first.token)?.factorID == "remembered_device")
        #expect(try signIn(fixture, user, "rd1.garbage") == nil)
        _ = try passSecondFactor(fixture, user).rememberDevice(label: nil)  // the limit forgets the first
        try fixture.context.revokeRememberedDevices(uid: user.uid)
        _ = try passSecondFactor(fixture, user).rememberDevice(label: nil)
        try fixture.context.revokeTokens(uid: user.uid)
        let stored = try fixture.context.auditChains().flatMap {
            try fixture.context.auditRecords(AuditQuery(chain: $0.chain, limit: AuditQuery.maxLimit))
        }
        #expect(stored.map(\.fields) == fixture.log.all.map(\.fields))
        let kinds = Set(stored.map(\.kindName))
        for wanted in ["EMAIL_SENT", "DEVICE_REMEMBERED", "DEVICE_REFUSED", "DEVICE_REVOKED"] {
            #expect(kinds.contains(wanted), "\(wanted)")
        }
        #expect(stored.filter { $0.kindName == "DEVICE_REVOKED" }.map(\.detail) == ["LIMIT", "OK", "TOKENS_REVOKED"])
        #expect(stored.contains { $0.kindName == "SIGN_IN_SUCCESS" && $0.factorID == "remembered_device" })
        #expect(!stored.contains { $0.fields.joined().contains("jane@") || $0.fields.joined().contains(first.token) })
        #expect(try fixture.context.verifyAuditTrail().intact)
    }

    @Test("remembering and forgetting a device are written with their events: no event, no write",
          arguments: StoreKind.available)
    func sameTransaction(_ kind: StoreKind) throws {
        let (fixture, location) = try fixture(kind)
        let user = fixture.user()
        _ = try fixture.enrollEmail(user, "jane@example.com")
        let kept = try passSecondFactor(fixture, user).rememberDevice(label: nil)
        let resolver = try passSecondFactor(fixture, user)
        try RawStore.execute(location, "ALTER TABLE mfa_audit_events RENAME TO mfa_audit_events_away")
        #expect(errorCode { try resolver.rememberDevice(label: nil) } == .storageError)
        #expect(errorCode { try fixture.context.revokeRememberedDevices(uid: user.uid) } == .storageError)
        #expect(errorCode { try fixture.context.revokeTokens(uid: user.uid) } == .storageError)
        try RawStore.execute(location, "ALTER TABLE mfa_audit_events_away RENAME TO mfa_audit_events")
        // Nothing was written: the device kept is still the user's one device, and still signs in.
        #expect(try fixture.context.rememberedDevices(uid: user.uid).map(\.id) == [kept.device.id])
        #expect(try signIn(fixture, user, kept.token) != nil)
        #expect(try fixture.context.verifyAuditTrail().intact)
    }
}
