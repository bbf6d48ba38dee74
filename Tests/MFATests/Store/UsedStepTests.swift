import Foundation
import MFA
import Testing

/// TOTP steps claimed by sign-ins, recorded in the user's row
/// (`UsedStep`, `ConsumedTokens`) beside the used credentials.
@Suite("TOTP steps in the user's row")
struct UsedStepTests {
    private func id(_ n: Int) -> [UInt8] { (0..<16).map { UInt8(truncatingIfNeeded: n &+ $0 * 7) } }

    @Test("a factor's key is the stored format: FNV-1a in two lanes, each big-endian, high lane first")
    func keyFormat() {
        // Stores hold these bytes in the user's row: a new libmfa must find
        // the steps an older one recorded.
        let key = UsedStep.key("factor-a")
        #expect(key.map { String(format: "%02x", $0) }.joined() == "e72fa6d9851957f08d2fc622c7fca437")
        #expect(UsedStep.key("").count == 16 && UsedStep.key("") != UsedStep.key("\u{0}"))
    }

    @Test("a step entry is kept past any date, replaced by the factor's next step, removed with its factor")
    func entries() throws {
        let a = UsedStep(enrollmentID: "factor-a", step: 100, stored: 40)
        let b = UsedStep(enrollmentID: "factor-b", step: 7, stored: -1)
        #expect(a.key.count == 16 && a.key != b.key && a.key == UsedStep.key("factor-a"))
        var tokens = try ConsumedTokens(.blob(try #require(ConsumedTokens().adding(id(1), until: 50, now: 10, step: a))))
        #expect(tokens.lastStep(a.key) == 100 && tokens.lastStep(b.key) == nil)
        #expect(tokens.count == 1 && tokens.stepCount == 1 && tokens.contains(id(1)))
        #expect(!tokens.contains(a.key), "a step's key is no credential")
        // Far past every credential's date: the credential goes, the step stays.
        tokens = try ConsumedTokens(.blob(tokens.touched(now: 1_000_000, step: b)))
        #expect(tokens.count == 0 && tokens.stepCount == 2)
        #expect(tokens.lastStep(a.key) == 100 && tokens.lastStep(b.key) == 7)
        tokens = try ConsumedTokens(.blob(tokens.touched(now: 0, step: UsedStep(enrollmentID: "factor-a", step: 101,
                                                                                stored: 40))))
        #expect(tokens.lastStep(a.key) == 101 && tokens.stepCount == 2, "one entry per factor")
        // The row's capacity counts credentials only.
        for n in 0..<ConsumedTokens.capacity {
            tokens = try ConsumedTokens(.blob(try #require(tokens.adding(id(n), until: 500, now: 0))))
        }
        #expect(tokens.count == ConsumedTokens.capacity && tokens.stepCount == 2)
        #expect(tokens.adding(id(99), until: 500, now: 0, step: b) == nil, "full: the credential goes elsewhere")
        let removed = try ConsumedTokens(.blob(tokens.removingStep(a.key)))
        #expect(removed.lastStep(a.key) == nil && removed.lastStep(b.key) == 7)
        #expect(removed.count == ConsumedTokens.capacity && removed.stored != tokens.stored, "a write moves on")
        #expect(tokens.adding(id(99), until: -1, now: -5) == nil, "a negative date is no credential's")
    }

    @Test("a claim holds only for a step after the stored one and the recorded one")
    func holds() throws {
        let recorded = try ConsumedTokens(.blob(ConsumedTokens().touched(
            now: 0, step: UsedStep(enrollmentID: "f", step: 50, stored: -1))))
        #expect(!UsedStep(enrollmentID: "f", step: 50, stored: -1).holds(in: recorded))
        #expect(!UsedStep(enrollmentID: "f", step: 49, stored: -1).holds(in: recorded))
        #expect(UsedStep(enrollmentID: "f", step: 51, stored: -1).holds(in: recorded))
        #expect(!UsedStep(enrollmentID: "f", step: 51, stored: 51).holds(in: recorded), "the factor's own step")
        #expect(UsedStep(enrollmentID: "g", step: 1, stored: 0).holds(in: recorded), "another factor's steps")
        #expect(!UsedStep(enrollmentID: "g", step: -1, stored: -5).holds(in: recorded), "no negative step")
    }

    @Test("sign-ins record their step in the user's row; each code works once per factor; the step leaves with its factor",
          arguments: StoreKind.available)
    func signIns(_ kind: StoreKind) throws {
        let location = try kind.freshLocation(file: true)
        let fixture = try PhoneFixture(store: location, config: FlowFixture.config)
        let user = fixture.user("alice")
        let multiFactor = fixture.context.multiFactor(for: user)
        var secrets: [(id: String, totp: TOTP)] = []
        for name in ["phone app", "tablet app"] {
            let secret = try TOTPMultiFactorGenerator.generateSecret(with: multiFactor.session())
            let totp = try TOTP(secret: secret.secret)
            let info = try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
                with: secret, oneTimePassword: try totp.code(at: fixture.clock.now())), displayName: name)
            secrets.append((info.uid, totp))
        }
        func signIn(_ factor: Int, at time: Int64) throws {
            let resolver = try fixture.resolver(user)
            _ = try resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: secrets[factor].id, oneTimePassword: try secrets[factor].totp.code(at: time)))
        }
        func row() throws -> ConsumedTokens {
            try ConsumedTokens(try RawStore.query(location, "SELECT consumed FROM mfa_users WHERE uid = 'alice'")
                .first?.first ?? .null)
        }
        func storedSteps() throws -> [Int64] {
            try RawStore.query(location, "SELECT totp_last_step FROM mfa_factors WHERE factor_id = 'totp' ORDER BY enrollment_id")
                .compactMap { $0.first?.int }
        }
        let now = fixture.clock.now()
        let enrolled = try storedSteps()
        // The enrollment's code was used: refused at sign-in, for each factor.
        for factor in 0..<2 {
            #expect(errorCode { try signIn(factor, at: now) } == .invalidVerificationCode)
        }
        try signIn(0, at: now + 30)
        #expect(errorCode { try signIn(0, at: now + 30) } == .invalidVerificationCode, "the same code again")
        #expect(errorCode { try signIn(0, at: now) } == .invalidVerificationCode, "an earlier step")
        try signIn(1, at: now + 30)
        // Same step, another factor: its own. Both steps are in the user's row; the factors' rows are unchanged.
        let step = now / 30 + 1
        var recorded = try row()
        #expect(recorded.lastStep(UsedStep.key(secrets[0].id)) == step)
        #expect(recorded.lastStep(UsedStep.key(secrets[1].id)) == step)
        #expect(try storedSteps() == enrolled)
        // Across a reopened context (another process), the step still holds.
        let again = try PhoneFixture(store: location, config: FlowFixture.config)
        let resolver = try again.resolver(user)
        #expect(errorCode {
            try resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: secrets[1].id, oneTimePassword: try secrets[1].totp.code(at: now + 30)))
        } == .invalidVerificationCode)
        // Removing a factor removes its step, and only its.
        try multiFactor.unenroll(withFactorUID: secrets[0].id)
        recorded = try row()
        #expect(recorded.lastStep(UsedStep.key(secrets[0].id)) == nil)
        #expect(recorded.lastStep(UsedStep.key(secrets[1].id)) == step)
        try signIn(1, at: now + 60)
        #expect(try row().lastStep(UsedStep.key(secrets[1].id)) == step + 1)
    }

    @Test("a tampered step is STORAGE_ERROR, an extreme one refuses the code, never a trap",
          arguments: StoreKind.available)
    func tampered(_ kind: StoreKind) throws {
        func attempt(_ tamper: (String) throws -> Void) throws -> MFAErrorCode? {
            let location = try kind.freshLocation(file: true)
            let fixture = try PhoneFixture(store: location, config: FlowFixture.config)
            let flows = FlowFixture(wrapping: fixture)
            let factor = try TOTPDriver().enroll(flows, fixture.user())
            let resolver = try fixture.resolver(fixture.user())
            _ = try resolver.resolveSignIn(with: TOTPDriver().right(flows, resolver, factor, use: 0))
            try tamper(location)
            let next = try fixture.resolver(fixture.user())
            return errorCode { try next.resolveSignIn(with: TOTPDriver().right(flows, next, factor, use: 1)) }
        }
        #expect(try attempt { _ in } == nil, "untouched, the next step signs in")
        #expect(try attempt {
            try RawStore.execute($0, "UPDATE mfa_users SET consumed = ?", [.blob([1, 2, 3, 4, 5])])
        } == .storageError)
        #expect(try attempt {
            try RawStore.execute($0, "UPDATE mfa_factors SET totp_last_step = ? WHERE factor_id = 'totp'", [.int(.max)])
        } == .invalidVerificationCode)
        #expect(try attempt {
            try RawStore.execute($0, "UPDATE mfa_factors SET totp_last_step = ? WHERE factor_id = 'totp'", [.int(.min)])
        } == nil)
        if kind == .sqlite {
            #expect(try attempt {
                try RawStore.execute($0, "UPDATE mfa_factors SET totp_last_step = 'x' WHERE factor_id = 'totp'")
            } == .storageError)
        }
    }

    @Test("the TOTP track is at version 4: a store of a newer track is refused", arguments: StoreKind.available)
    func schemaVersion(_ kind: StoreKind) throws {
        let location = try kind.freshLocation(file: true)
        _ = try PhoneFixture(store: location, config: FlowFixture.config)
        let version = try RawStore.query(location, "SELECT value FROM mfa_meta WHERE name = 'schema_version:totp'")
        #expect(version.first?.first?.int == 4)
        try RawStore.execute(location, "UPDATE mfa_meta SET value = 5 WHERE name = 'schema_version:totp'")
        #expect(errorCode { _ = try PhoneFixture(store: location, config: FlowFixture.config) } == .storageError)
    }
}
