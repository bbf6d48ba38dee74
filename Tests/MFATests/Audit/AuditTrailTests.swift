import MFA
import Testing

@Suite("The stored audit trail: written with what it records, chained, verified")
struct AuditTrailTests {
    /// A journey that emits most kinds of event: enrollment, a wrong code,
    /// a sign-in, a rename, an unenrollment, a configuration change, a revocation.
    private func journey(_ fixture: AuditFixture) throws {
        let alice = fixture.user()
        let (factor, secret) = try fixture.enrollTOTP(alice)
        fixture.clock.advance(30)
        #expect(errorCode { try fixture.signIn(alice, factor, code: "000000") } == .invalidVerificationCode)
        let code = try TOTP(secret: secret.secret).code(at: fixture.clock.now())
        _ = try fixture.signIn(alice, factor, code: code)
        try fixture.context.renameFactor(enrollmentID: factor.uid, displayName: "work", actor: "ops:bob")
        try fixture.context.updateConfig(json: #"{"limits":{"freeAttempts":4}}"#)
        try fixture.context.revokeTokens(uid: "alice")
        try fixture.context.resetUser(uid: "alice", actor: "ops:bob")
    }

    @Test("every event the callback sees is stored, in order, and the chain verifies", arguments: StoreKind.available)
    func storesWhatTheCallbackSees(_ kind: StoreKind) throws {
        let fixture = try AuditFixture(kind)
        try journey(fixture)
        let stored = try fixture.stored()
        // The configuration change that turned the trail on is stored as well.
        #expect(stored.map(\.fields) == fixture.log.all.map(\.fields))
        #expect(stored.map(\.kindName) == ["CONFIG_CHANGE", "ENROLL", "SIGN_IN_FAILURE", "SIGN_IN_SUCCESS",
                                           "FACTOR_RENAMED", "CONFIG_CHANGE", "TOKENS_REVOKED", "UNENROLL",
                                           "USER_RESET"])
        #expect(stored.map(\.seq) == Array(1...Int64(stored.count)))
        #expect(Set(stored.map(\.chain)) == ["main"] && Set(stored.map(\.keyID)) == ["k1"])
        let verification = try fixture.context.verifyAuditTrail()
        #expect(verification.intact && verification.verified == stored.count && verification.unchecked == 0)
    }

    @Test("off by default: nothing is stored, the callback still sees every event", arguments: StoreKind.available)
    func offByDefault(_ kind: StoreKind) throws {
        let fixture = try AuditFixture(kind, config: #"{"state":"ENABLED","providers":{"totp":"ENABLED"}}"#)
        try journey(fixture)
        #expect(fixture.log.all.count == 9)
        #expect(try fixture.stored().isEmpty && fixture.context.auditChains().isEmpty)
        #expect(try fixture.context.verifyAuditTrail() == AuditVerification(chains: []))
    }

    @Test("an event is written in the transaction of what it records: no event, no write", arguments: StoreKind.available)
    func sameTransaction(_ kind: StoreKind) throws {
        let fixture = try AuditFixture(kind)
        let alice = fixture.user()
        let (factor, secret) = try fixture.enrollTOTP(alice)
        fixture.clock.advance(30)
        let code = try TOTP(secret: secret.secret).code(at: fixture.clock.now())
        // The trail's table cannot be written: the sign-in fails, and its write is rolled back with it.
        try RawStore.execute(fixture.location, "ALTER TABLE mfa_audit_events RENAME TO mfa_audit_events_away")
        #expect(errorCode { try fixture.signIn(alice, factor, code: code) } == .storageError)
        #expect(errorCode { try fixture.context.revokeTokens(uid: "alice") } == .storageError)
        try RawStore.execute(fixture.location, "ALTER TABLE mfa_audit_events_away RENAME TO mfa_audit_events")
        // The code was not used up, nor were the tokens revoked: the same code signs in now.
        _ = try fixture.signIn(alice, factor, code: code)
        #expect(try fixture.stored().map(\.kindName).suffix(1) == ["SIGN_IN_SUCCESS"])
        #expect(try fixture.context.verifyAuditTrail().intact)
    }

    @Test("a failure counted in backoff stores the failure and the backoff with the count", arguments: StoreKind.available)
    func backoff(_ kind: StoreKind) throws {
        let fixture = try AuditFixture(kind)
        let alice = fixture.user()
        let (factor, _) = try fixture.enrollTOTP(alice)
        for _ in 0..<6 { _ = errorCode { try fixture.signIn(alice, factor, code: "000000") } }
        let kinds = try fixture.stored().map(\.kindName)
        #expect(kinds.filter { $0 == "SIGN_IN_FAILURE" }.count == 6)
        #expect(kinds.contains("BACKOFF"))
        #expect(try fixture.stored().map(\.fields) == fixture.log.all.map(\.fields))
    }

    @Test("the events hold no secret, code or phone number", arguments: StoreKind.available)
    func noSecrets(_ kind: StoreKind) throws {
        let fixture = try AuditFixture(kind)
        let alice = fixture.user()
        let provider = PhoneAuthProvider(context: fixture.context)
        let multiFactor = fixture.context.multiFactor(for: alice)
        let number = "+14155550123"
        let id = try provider.verifyPhoneNumber(number, appCredential: nil, multiFactorSession: multiFactor.session())
        let smsCode = try #require(fixture.sender.lastCode(to: number))
        _ = try multiFactor.enroll(with: PhoneMultiFactorGenerator.assertion(
            with: provider.credential(withVerificationID: id, verificationCode: smsCode)), displayName: "phone")
        let (factor, secret) = try fixture.enrollTOTP(alice)
        fixture.clock.advance(30)
        let code = try TOTP(secret: secret.secret).code(at: fixture.clock.now())
        _ = try fixture.signIn(alice, factor, code: code)
        let rows = try RawStore.query(fixture.location, "SELECT * FROM mfa_audit_events")
        #expect(rows.count >= 5)
        let text = rows.flatMap { $0.compactMap(\.text) }.joined(separator: "|")
        for needle in [number, "4155550123", "0123", smsCode, code, secret.sharedSecretKey(), "alice@example.com"] {
            #expect(!text.contains(needle), "the stored events hold \(needle.count) characters they must not")
        }
        #expect(text.contains("SMS_SENT"))
    }

    @Test("a tenant's configuration cannot name auditTrail; bad chains and queries are INVALID_ARGUMENT")
    func badInput() throws {
        let fixture = try AuditFixture(.sqlite)
        #expect(errorCode { try fixture.context.setConfig(json: #"{"auditTrail":{"store":false}}"#, tenant: "t1") }
                == .invalidArgument)
        #expect(errorCode { try fixture.context.updateConfig(json: #"{"auditTrail":{"store":false}}"#, tenant: "t1") }
                == .invalidArgument)
        for bad in [#"{"auditTrail":{"store":"yes"}}"#, #"{"auditTrail":{"retentionDays":-1}}"#,
                    #"{"auditTrail":{"maxEvents":1000000000001}}"#, #"{"auditTrail":{"keep":true}}"#,
                    #"{"auditTrail":true}"#] {
            #expect(errorCode { try fixture.context.setConfig(json: bad) } == .invalidArgument, "\(bad)")
        }
        for chain in ["", "a b", String(repeating: "c", count: 65), "é", "x;DROP"] {
            #expect(errorCode { try AuditFixture(location: fixture.location, clock: fixture.clock, chain: chain) }
                    == .invalidArgument, "\(chain)")
        }
        for query in [AuditQuery(limit: 0), AuditQuery(limit: AuditQuery.maxLimit + 1), AuditQuery(kindName: "sign-in"),
                      AuditQuery(kindName: ""), AuditQuery(chain: "a b"), AuditQuery(uid: ""),
                      AuditQuery(tenant: "bad\u{1}")] {
            #expect(errorCode { try fixture.context.auditRecords(query) } == .invalidArgument, "\(query)")
        }
        #expect(try fixture.context.config().auditTrail == AuditTrailSettings(store: true))
    }

    @Test("queries: by user, kind, time, chain; the latest; pages", arguments: StoreKind.available)
    func queries(_ kind: StoreKind) throws {
        let fixture = try AuditFixture(kind)
        let alice = fixture.user()
        let (factor, _) = try fixture.enrollTOTP(alice)
        let start = fixture.clock.now()
        for _ in 0..<3 {
            fixture.clock.advance(60)
            _ = errorCode { try fixture.signIn(alice, factor, code: "000000") }
        }
        try fixture.context.revokeTokens(uid: "bob", tenant: "t1")
        let context = fixture.context
        #expect(try context.auditRecords(AuditQuery(uid: "alice", kindName: "SIGN_IN_FAILURE")).count == 3)
        #expect(try context.auditRecords(AuditQuery(since: start + 120)).map(\.kindName)
                == ["SIGN_IN_FAILURE", "SIGN_IN_FAILURE", "TOKENS_REVOKED"])
        #expect(try context.auditRecords(AuditQuery(since: start + 60, until: start + 121)).count == 2)
        #expect(try context.auditRecords(AuditQuery(tenant: "t1")).map(\.uid) == ["bob"])
        #expect(try context.auditRecords(AuditQuery(tenant: "")).count == 5)
        let latest = try context.auditRecords(AuditQuery(limit: 2, latest: true))
        #expect(latest.map(\.kindName) == ["SIGN_IN_FAILURE", "TOKENS_REVOKED"] && latest[0].seq < latest[1].seq)
        let first = try context.auditRecords(AuditQuery(limit: 2))
        let second = try context.auditRecords(AuditQuery(after: first.last?.position, limit: 2))
        let all = try context.auditRecords(AuditQuery())
        #expect(first + second == Array(all.prefix(4)))
        #expect(try context.auditRecords(AuditQuery(chain: "main", afterSeq: 4)).map(\.seq) == [5, 6])
        #expect(try context.auditChains() == [AuditChainHead(chain: "main", anchorSeq: 1, headSeq: 6)])
    }
}
