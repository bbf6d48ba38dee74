import Foundation
import MFA
import Testing

/// Issue 8, items 1 (store side) and 8: a tampered store is a named
/// error, never a crash and never a pass.
@Suite("Hardening: a tampered store")
struct StoreIntegrityTests {
    @Test("item 8: a sealed value's associated data is the stored format: the version, then each field after a NUL")
    func sealBindingFormat() {
        // Every factor in a store was sealed with these bytes: a new libmfa
        // must build exactly them to open it.
        let binding = SealBinding.factor("totp", tenant: "acme", uid: "ü-1", id: "e9")
        #expect(binding.associated == Array("libmfa seal v2\u{0}factor\u{0}totp\u{0}acme\u{0}ü-1\u{0}e9".utf8))
        #expect(SealBinding.factor("totp", tenant: "", uid: "u", id: "").associated
                == Array("libmfa seal v2\u{0}factor\u{0}totp\u{0}\u{0}u\u{0}".utf8))
    }

    @Test("item 8: a factor row moved to another user does not open for them; audited",
          arguments: StoreKind.available)
    func regressionMovedFactorRow(_ kind: StoreKind) throws {
        let (fixture, location) = try fileFixture(kind)
        let flows = TOTPDriver()
        let victim = try PhoneDriver().enroll(FlowFixture(wrapping: fixture), fixture.user("victim"))
        let attacker = try flows.enroll(FlowFixture(wrapping: fixture), fixture.user("mallory"))
        try RawStore.execute(location, "UPDATE mfa_factors SET uid = 'victim' WHERE enrollment_id = ?",
                             [.text(attacker.info.uid)])
        _ = victim
        // The victim's sign-in lists the moved factor; it does not open, with either kind's code.
        let failed = errorCode { () throws -> SignInResult in
            let resolver = try fixture.resolver(fixture.user("victim"))
            return try resolver.resolveSignIn(with: flows.right(FlowFixture(wrapping: fixture), resolver, attacker,
                                                                use: 0))
        }
        #expect(failed == .crypto || failed == .storageError)
        #expect(fixture.log.all.contains { $0.kind == .integrityFailure && $0.enrollmentID == attacker.info.uid })
        for (column, value) in [("tenant", "other"), ("enrollment_id", "moved-id"), ("factor_id", "phone")] {
            let (again, at) = try fileFixture(kind)
            let factor = try flows.enroll(FlowFixture(wrapping: again), again.user("mallory"))
            try RawStore.execute(at, "UPDATE mfa_factors SET \(column) = ? WHERE enrollment_id = ?",
                                 [.text(value), .text(factor.info.uid)])
            let code = errorCode { () throws -> SignInResult in
                let user = again.user("mallory", tenant: column == "tenant" ? "other" : nil)
                let resolver = try again.resolver(user)
                let moved = MultiFactorInfo(uid: column == "enrollment_id" ? value : factor.info.uid,
                                            factorID: "totp", displayName: nil, enrollmentDate: 0)
                return try resolver.resolveSignIn(with: flows.right(
                    FlowFixture(wrapping: again), resolver, EnrolledFactor(info: moved, secret: factor.secret), use: 0))
            }
            #expect(code == .crypto || code == .storageError || code == .invalidArgument, "\(column): \(String(describing: code))")
        }
    }

    @Test("item 1: integers out of range in a stored TOTP factor are STORAGE_ERROR, never a trap or SHA1",
          arguments: StoreKind.available)
    func regressionStoredIntegersOutOfRange(_ kind: StoreKind) throws {
        let cases: [(String, Int64)] = [
            ("algorithm", 1 << 40), ("algorithm", -1), ("algorithm", 0), ("algorithm", 4),
            ("digits", 1 << 40), ("digits", 5), ("digits", -1), ("period", 0), ("period", -30), ("period", .max),
        ]
        for (column, value) in cases {
            let (fixture, location) = try fileFixture(kind)
            let flows = FlowFixture(wrapping: fixture)
            let factor = try TOTPDriver().enroll(flows, fixture.user())
            try RawStore.execute(location, "UPDATE mfa_factors SET totp_\(column) = ? WHERE factor_id = 'totp'",
                                 [.int(value)])
            let resolver = try fixture.resolver(fixture.user())
            #expect(errorCode { try resolver.resolveSignIn(with: TOTPDriver().right(flows, resolver, factor, use: 0)) }
                == .storageError, "\(column) = \(value)")
        }
    }

    @Test("item 1: extreme counters and times in the store never trap", arguments: StoreKind.available)
    func storedCountersAtExtremes(_ kind: StoreKind) throws {
        for value in [Int64.max, Int64.min, -1] {
            let (fixture, location) = try fileFixture(kind)
            let flows = FlowFixture(wrapping: fixture)
            let factor = try TOTPDriver().enroll(flows, fixture.user())
            try RawStore.execute(location, "UPDATE mfa_factors SET failures = ?, last_failure_at = ?",
                                 [.int(value), .int(value)])
            try RawStore.execute(location, "UPDATE mfa_users SET failures = ?, last_failure_at = ?, token_epoch = ?",
                                 [.int(value), .int(value), .int(value)])
            let code = errorCode { () throws -> SignInResult in
                let resolver = try fixture.resolver(fixture.user())
                return try resolver.resolveSignIn(with: TOTPDriver().wrong(flows, resolver, factor))
            }
            #expect(code != nil && code != .internal, "\(value): \(String(describing: code))")
        }
    }

    /// A copy of `Tests/fixtures/store-v2.sqlite` (schema version 2, before the TOTP track).
    private func schemaTwoStore() throws -> String {
        let fixtureURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fixtures/store-v2.sqlite")
        let location = try StoreKind.sqlite.freshLocation(file: true)
        try FileManager.default.copyItem(at: fixtureURL, to: URL(fileURLWithPath: location))
        return location
    }

    @Test("a schema-2 store whose factor table has a column the rebuild cannot write is refused, untouched",
          arguments: ["\"x y\" TEXT", "note TEXT DEFAULT 'a'", "n REAL DEFAULT 1.5"])
    func regressionSchemaTwoStrangeColumn(_ column: String) throws {
        let location = try schemaTwoStore()
        try RawStore.execute(location, "ALTER TABLE mfa_factors ADD COLUMN \(column)")
        #expect(errorCode { try MFAStore(database: SQLiteDatabase(path: location)) } == .storageError)
        let versions = try RawStore.query(location, "SELECT name, value FROM mfa_meta ORDER BY name")
        #expect(versions.compactMap { $0.first?.text } == ["schema_version"], "no track was written")
        #expect(versions.first?.last?.int == 2)
        let key = try RawStore.query(location, "SELECT name FROM pragma_table_info('mfa_factors') WHERE pk > 0")
        #expect(key.compactMap { $0.first?.text } == ["enrollment_id"], "the table is as it was")
        #expect(try RawStore.query(location, "SELECT COUNT(*) FROM mfa_factors").first?.first?.int == 2)
    }

    @Test("item 8: a store of schema version 2 is migrated and re-sealed; its factors still sign in")
    func regressionSchemaTwoStoreResealed() throws {
        let location = try schemaTwoStore()
        let clock = TestClock(1_800_000_000)
        let fixture = try PhoneFixture(store: location, config: FlowFixture.config, clock: clock)
        #expect(try fixture.context.schemaVersion() == Schema.currentVersion)
        let formats = try RawStore.query(location, "SELECT seal_format FROM mfa_factors").compactMap { $0.first?.int }
        #expect(formats == [2, 2])
        let columns = try RawStore.query(location, "SELECT name, pk FROM pragma_table_info('mfa_factors')")
        #expect(columns.compactMap { $0.first?.text } == ["enrollment_id", "tenant", "uid", "factor_id", "display_name",
                                                         "enrolled_at", "key_id", "sealed", "failures",
                                                         "last_failure_at", "locked_until", "seal_format",
                                                         "totp_algorithm", "totp_digits", "totp_period",
                                                         "totp_last_step", "totp_window", "totp_serial",
                                                         "yubico_public_id", "yubico_counter", "yubico_serial"],
                "the TOTP columns moved out after the table was rebuilt by its owner, then back in, renamed")
        #expect(columns.compactMap { $0.last?.int } == [3, 1, 2] + Array(repeating: 0, count: 18))
        #expect(try RawStore.query(location, "SELECT name FROM sqlite_master WHERE name = 'mfa_totp_factors'").isEmpty)
        // alice's imported TOTP factor (secret 00 01 ... 13) signs in.
        clock.advance(60)
        let resolver = try fixture.resolver(fixture.user("alice"))
        let hint = try #require(resolver.hints.first)
        #expect(hint.factorID == "totp" && hint.displayName == "old app")
        let code = try TOTP(secret: Array(0..<20)).code(at: clock.now())
        _ = try resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: hint.uid, oneTimePassword: code))
        // bob's phone factor still shows its (test) number, masked in hints.
        #expect(try fixture.resolver(fixture.user("bob")).hints.first?.phoneNumber == "+1******0100")
        // bob's old revocation (at 1800000000 s) still holds for credentials from before it.
        #expect(errorCode { try fixture.context.checkToken(tenant: nil, uid: "bob", issuedAt: 1_799_999_999) }
            == .userTokenExpired)
        try fixture.context.checkToken(tenant: nil, uid: "bob", issuedAt: 1_800_000_000)
        // After the upgrade, moving alice's row to bob no longer opens.
        try RawStore.execute(location, "UPDATE mfa_factors SET uid = 'bob' WHERE factor_id = 'totp'")
        #expect(errorCode { try fixture.context.multiFactor(for: fixture.user("bob")).enrolledFactors() } == nil)
        let moved = try fixture.resolver(fixture.user("bob"))
        let stolen = try #require(moved.hints.first { $0.factorID == "totp" })
        clock.advance(30)
        #expect(errorCode { try moved.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: stolen.uid, oneTimePassword: TOTP(secret: Array(0..<20)).code(at: clock.now()))) }
            == .crypto)
    }
}

extension FlowFixture {
    /// The flow fixture around an existing phone fixture.
    init(wrapping phone: PhoneFixture) {
        self.phone = phone
    }
}
