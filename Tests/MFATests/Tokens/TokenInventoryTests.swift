import MFA
import Testing

/// Hardware tokens imported without a user: listed by serial, assigned by
/// an operator or claimed by their user, removed; TOTP tokens' own window
/// and remembered drift.
@Suite("Hardware token inventory")
struct TokenInventoryTests {
    static let secret = Array("12345678901234567890".utf8)

    @Test("unassigned tokens are listed by serial, assigned by serial (audited), then listed as the user's",
          arguments: StoreKind.available)
    func assign(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let key = YubiKeySimulator()
        try fixture.context.importToken(.hotp(secret: Self.secret, serial: "B-2"), for: nil, actor: "ops")
        try fixture.context.importToken(.totp(secret: Self.secret, serial: "A-1"), for: nil, actor: "ops")
        try fixture.context.importToken(.hotp(secret: Self.secret, serial: "C-3"), for: nil, tenant: "corp", actor: "ops")
        try fixture.context.importToken(key.seed, for: nil, actor: "ops")
        #expect(fixture.log.all.filter { $0.kind == .tokenImported && $0.actor == "ops" }.count == 4)
        #expect(errorCode { try fixture.context.importToken(.hotp(secret: Self.secret, serial: "B-2"), for: nil,
                                                            actor: "ops") } == .secondFactorExists)
        #expect(errorCode { try fixture.context.importToken(.hotp(secret: Self.secret), for: nil, actor: "ops") }
            == .invalidArgument, "no serial, no user")
        #expect(errorCode { try fixture.context.importToken(.hotp(secret: [1, 2], serial: "D"), for: nil, actor: "ops") }
            == .invalidArgument, "a short key")
        #expect(errorCode { try fixture.context.importToken(.hotp(secret: Self.secret, serial: "a b"), for: nil,
                                                            actor: "ops") } == .invalidArgument, "a serial with a space")
        let page = try fixture.context.listTokens(tenant: .project)
        #expect(page.tokens.map(\.serial) == ["A-1", "B-2", key.publicID] && page.nextCursor == nil)
        #expect(page.tokens.map(\.factorID) == ["totp", "hotp", "yubico_otp"] && page.tokens[2].publicID == key.publicID)
        let first = try fixture.context.listTokens(limit: 2)
        #expect(first.tokens.map(\.serial) == ["A-1", "B-2"])
        let rest = try fixture.context.listTokens(limit: 2, cursor: first.nextCursor)
        #expect(rest.tokens.map(\.serial) == [key.publicID, "C-3"] && rest.tokens[1].tenant == "corp")

        let info = try fixture.context.assignToken(serial: "B-2", uid: "bob", displayName: "fob", actor: "helpdesk")
        #expect(info.factorID == "hotp" && info.displayName == "fob")
        #expect(fixture.log.all.contains { $0.kind == .tokenAssigned && $0.uid == "bob" && $0.detail == "serial B-2"
                                           && $0.actor == "helpdesk" })
        #expect(fixture.log.all.last { $0.kind == .enroll }?.detail == "ASSIGNED")
        #expect(errorCode { try fixture.context.assignToken(serial: "B-2", uid: "eve", actor: "helpdesk") } == .tokenNotFound)
        #expect(errorCode { try fixture.context.assignToken(serial: "C-3", uid: "eve", actor: "helpdesk") } == .tokenNotFound,
                "another tenant's")
        let assigned = try fixture.context.listTokens(tenant: .project, includeAssigned: true)
        #expect(assigned.tokens.map(\.serial) == ["A-1", "B-2", key.publicID])
        #expect(assigned.tokens[1].uid == "bob" && assigned.tokens[1].enrollmentID == info.uid)
        #expect(try fixture.signIn("bob", enrollmentID: info.uid, hotp: HOTP(secret: Self.secret), counter: 0)
            .factorID == "hotp")
        // A YubiKey is assigned by its public id too.
        let yubikey = try fixture.context.assignToken(serial: key.publicID, uid: "carol", actor: "helpdesk")
        #expect(yubikey.factorID == "yubico_otp")
        try fixture.context.removeToken(serial: "A-1", actor: "helpdesk")
        #expect(fixture.log.all.last?.kind == .tokenRemoved)
        #expect(errorCode { try fixture.context.removeToken(serial: "A-1", actor: "helpdesk") } == .tokenNotFound)
        #expect(try fixture.context.listTokens(tenant: .project).tokens.isEmpty)
        #expect(errorCode { try fixture.context.listTokens(limit: 0) } == .invalidArgument)
        #expect(errorCode { try fixture.context.listTokens(cursor: "!!") } == .invalidArgument)
    }

    @Test("wrong codes to claim a token count against it with backoff", arguments: StoreKind.available)
    func claimBackoff(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        try fixture.context.updateConfig(json: #"{"limits":{"freeAttempts":3,"backoffBase":600}}"#)
        try fixture.context.importToken(.hotp(secret: Self.secret, serial: "S-9"), for: nil, actor: "ops")
        func claim(_ code: String) -> MFAErrorCode? {
            let multiFactor = fixture.context.multiFactor(for: fixture.user("mallory"))
            return errorCode { try multiFactor.enroll(with: HOTPMultiFactorGenerator.assertionForEnrollment(
                with: multiFactor.session(), serial: "S-9", oneTimePassword: code), displayName: nil) }
        }
        let hotp = try HOTP(secret: Self.secret)
        let reach = Set((0...20).map { hotp.code(counter: $0) })
        let guesses = (0..<100).map { String(format: "%06d", $0) }.filter { !reach.contains($0) }
        let codes = guesses.prefix(5).map(claim)
        #expect(codes.prefix(4).allSatisfy { $0 == .invalidVerificationCode } && codes[4] == .tooManyAttemptsTryLater)
        #expect(claim(hotp.code(counter: 0)) == .tooManyAttemptsTryLater)
        fixture.clock.advance(1200)
        #expect(claim(hotp.code(counter: 0)) == nil)
    }

    @Test("a TOTP token: its own window (±6 steps), claimed by serial, its drift remembered with each step",
          arguments: StoreKind.available)
    func totpDrift(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let token = try TOTP(secret: Self.secret)
        try fixture.context.importToken(.totp(secret: Self.secret, serial: "TT-1"), for: nil, actor: "ops")
        let multiFactor = fixture.context.multiFactor(for: fixture.user("fay"))
        // The token runs 6 steps (3 minutes) fast: beyond the configuration's ±5, within its own ±6.
        let info = try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
            with: multiFactor.session(), serial: "TT-1", oneTimePassword: token.code(at: fixture.clock.now() + 180)),
                                          displayName: nil)
        #expect(info.factorID == "totp")
        func signIn(fast steps: Int64) throws -> SignInResult {
            try fixture.resolver(fixture.user("fay")).resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: info.uid, oneTimePassword: token.code(at: fixture.clock.now() + 30 * steps)))
        }
        fixture.clock.advance(60)
        #expect(try signIn(fast: 6).factorID == "totp", "the first sign-in finds the drift within ±6")
        // The token drifts on: 11 steps fast is outside ±6 around now, inside ±6 around the remembered drift.
        fixture.clock.advance(60)
        #expect(try signIn(fast: 11).factorID == "totp")
        fixture.clock.advance(60)
        #expect(try signIn(fast: 16).factorID == "totp")
        fixture.clock.advance(60)
        #expect(errorCode { try signIn(fast: 0) } == .invalidVerificationCode, "the window follows the token, not the clock")
        // An app's factor keeps the configuration's ±5 and no drift.
        let (app, totp) = try fixture.importTOTP("gil")
        #expect(errorCode { try fixture.signIn("gil", enrollmentID: app.uid, totp: totp, offset: 180) }
            == .invalidVerificationCode)
        #expect(try fixture.signIn("gil", enrollmentID: app.uid, totp: totp, offset: 150).factorID == "totp")
    }

    @Test("removing a factor that recorded a drift removes its entries from the user's row",
          arguments: StoreKind.available)
    func driftLeavesWithFactor(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let token = try TOTP(secret: Self.secret)
        let info = try #require(try fixture.context.importToken(.totp(secret: Self.secret, serial: "TT-2"),
                                                                for: fixture.user("hal"), actor: "ops"))
        _ = try fixture.resolver(fixture.user("hal")).resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: token.code(at: fixture.clock.now() + 90)))
        try fixture.context.unenrollFactor(enrollmentID: info.uid, actor: "ops")
        try fixture.context.importToken(.totp(secret: Self.secret, serial: "TT-3"), for: fixture.user("hal"), actor: "ops")
        #expect(try fixture.context.userFactors(uid: "hal").count == 1)
    }
}
