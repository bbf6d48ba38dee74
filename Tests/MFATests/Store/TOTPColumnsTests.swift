import Foundation
import MFA
import Testing

/// TOTP's parameters and stored step in the factor's row of `mfa_factors`
/// (TOTP track version 3), moved there from `mfa_totp_factors`.
@Suite("TOTP's columns in the factor's row")
struct TOTPColumnsTests {
    private static let secret = Array(UInt8(0)..<32)

    /// The TOTP columns of every TOTP factor, by enrollment id.
    private func columns(_ location: String) throws -> [String: [Int64?]] {
        var out: [String: [Int64?]] = [:]
        for row in try RawStore.query(location, """
            SELECT enrollment_id, totp_algorithm, totp_digits, totp_period, totp_last_step FROM mfa_factors \
            WHERE factor_id = 'totp'
            """) {
            if let id = row[0].text { out[id] = row.dropFirst().map(\.int) }
        }
        return out
    }

    @Test("a store of TOTP track 2 has its factors' parameters moved into their rows; they still sign in",
          arguments: StoreKind.available)
    func movedIn(_ kind: StoreKind) throws {
        let location = try kind.freshLocation(file: true)
        let clock = TestClock(1_800_000_000)
        let totp = try TOTP(secret: Self.secret, algorithm: .sha256, digits: 8, period: 60)
        let (imported, enrolled): (String, String)
        do {
            let fixture = try PhoneFixture(store: location, config: FlowFixture.config, clock: clock)
            imported = try fixture.context.importTOTPFactor(for: fixture.user("alice"), totp: totp,
                                                            displayName: "app").uid
            enrolled = try TOTPDriver().enroll(FlowFixture(wrapping: fixture), fixture.user("bob")).info.uid
        }
        let stepNow = clock.now() / 60
        #expect(try columns(location) == [imported: [2, 8, 60, -1], enrolled: [1, 6, 30, clock.now() / 30]])
        // The store as TOTP track 2 left it: the parameters in a table of their own,
        // alice's with a stored step (as an importer's counter would give it).
        try RawStore.execute(location, """
            CREATE TABLE mfa_totp_factors (enrollment_id TEXT PRIMARY KEY, algorithm BIGINT NOT NULL, \
            digits BIGINT NOT NULL, period BIGINT NOT NULL, last_step BIGINT NOT NULL DEFAULT -1)
            """)
        try RawStore.execute(location, """
            INSERT INTO mfa_totp_factors (enrollment_id, algorithm, digits, period, last_step) \
            SELECT enrollment_id, totp_algorithm, totp_digits, totp_period, \
            CASE WHEN enrollment_id = ? THEN ? ELSE totp_last_step END FROM mfa_factors WHERE factor_id = 'totp'
            """, [.text(imported), .int(stepNow)])
        for column in TOTPStore.factorColumns {
            try RawStore.execute(location, "ALTER TABLE mfa_factors DROP COLUMN \(column)")
        }
        try RawStore.execute(location, "UPDATE mfa_meta SET value = 2 WHERE name = 'schema_version:totp'")

        let fixture = try PhoneFixture(store: location, config: FlowFixture.config, clock: clock)
        let version = try RawStore.query(location, "SELECT value FROM mfa_meta WHERE name = 'schema_version:totp'")
        #expect(version.first?.first?.int == 4)
        #expect(try columns(location) == [imported: [2, 8, 60, stepNow], enrolled: [1, 6, 30, clock.now() / 30]])
        let table = kind == .sqlite
            ? "SELECT name FROM sqlite_master WHERE name = 'mfa_totp_factors'"
            : "SELECT tablename FROM pg_tables WHERE tablename = 'mfa_totp_factors' AND schemaname = current_schema()"
        #expect(try RawStore.query(location, table).isEmpty, "the old table is gone")

        // alice's factor computes SHA-256, 8 digits, 60 s; the stored step is refused, the next one signs in.
        func signIn(_ time: Int64) throws -> SignInResult {
            let resolver = try fixture.resolver(fixture.user("alice"))
            return try resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: imported, oneTimePassword: try totp.code(at: time)))
        }
        #expect(errorCode { try signIn(clock.now()) } == .invalidVerificationCode)
        clock.advance(60)
        #expect(try signIn(clock.now()).enrollmentID == imported)
    }

    @Test("a TOTP factor whose row lost its parameters is STORAGE_ERROR at sign-in, not SHA-1 by default",
          arguments: StoreKind.available)
    func missingParameters(_ kind: StoreKind) throws {
        let location = try kind.freshLocation(file: true)
        let clock = TestClock(1_800_000_000)
        let fixture = try PhoneFixture(store: location, config: FlowFixture.config, clock: clock)
        let totp = try TOTP(secret: Self.secret)
        let id = try fixture.context.importTOTPFactor(for: fixture.user("alice"), totp: totp, displayName: nil).uid
        try RawStore.execute(location, "UPDATE mfa_factors SET totp_algorithm = NULL WHERE enrollment_id = ?",
                             [.text(id)])
        let resolver = try fixture.resolver(fixture.user("alice"))
        #expect(errorCode { try resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: id, oneTimePassword: try totp.code(at: clock.now()))) } == .storageError)
    }

    @Test("other kinds' rows leave the TOTP columns NULL", arguments: StoreKind.available)
    func otherKinds(_ kind: StoreKind) throws {
        let location = try kind.freshLocation(file: true)
        let fixture = try PhoneFixture(store: location)
        _ = try fixture.enrollPhone(fixture.user("bob"), "+15555550100")
        let rows = try RawStore.query(location, """
            SELECT factor_id, totp_algorithm, totp_digits, totp_period, totp_last_step FROM mfa_factors
            """)
        #expect(rows.count == 1)
        #expect(rows.first?.first?.text == "phone")
        #expect(rows.first?.dropFirst().allSatisfy { $0 == .null } == true)
    }
}
