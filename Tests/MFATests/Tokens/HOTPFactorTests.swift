import MFA
import Testing

/// HOTP tokens (RFC 4226) as a factor: the counter moves forward only, in
/// the transaction that accepts a code; look-ahead; resynchronization.
@Suite("HOTP tokens")
struct HOTPFactorTests {
    static let secret = Array("12345678901234567890".utf8)
    /// RFC 4226 appendix D: the codes of counters 0 to 9.
    static let rfcCodes = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871",
                           "520489"]

    /// A fixture with bob's HOTP factor imported at `counter`.
    static func bob(_ kind: StoreKind, counter: UInt64 = 0,
                    config: String? = nil) throws -> (AdminFixture, MultiFactorInfo) {
        let fixture = try AdminFixture(kind)
        if let config { try fixture.context.updateConfig(json: config) }
        let info = try #require(try fixture.context.importToken(
            .hotp(secret: secret, counter: counter, serial: "T-0001"), for: fixture.user("bob"), actor: "ops"))
        return (fixture, info)
    }

    static func resolve(_ fixture: AdminFixture, _ id: String, _ code: String,
                        next: String? = nil) throws -> SignInResult {
        try fixture.resolver(fixture.user("bob")).resolveSignIn(with: HOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: id, oneTimePassword: code, nextOneTimePassword: next))
    }

    @Test("RFC 4226 codes sign in in turn; a code below the counter and a replayed one are refused",
          arguments: StoreKind.available)
    func counterMovesForward(_ kind: StoreKind) throws {
        let (fixture, info) = try Self.bob(kind)
        #expect(info.factorID == "hotp" && info.hint == "hardware token")
        #expect(try Self.resolve(fixture, info.uid, Self.rfcCodes[0]).factorID == "hotp")
        #expect(errorCode { try Self.resolve(fixture, info.uid, Self.rfcCodes[0]) } == .invalidVerificationCode,
                "replayed")
        #expect(try Self.resolve(fixture, info.uid, Self.rfcCodes[3]).enrollmentID == info.uid, "two presses skipped")
        for counter in 1...3 {
            #expect(errorCode { try Self.resolve(fixture, info.uid, Self.rfcCodes[counter]) } == .invalidVerificationCode,
                    "counter \(counter) lies below the counter now")
        }
        #expect(try Self.resolve(fixture, info.uid, Self.rfcCodes[4]).factorID == "hotp")
        #expect(fixture.log.all.filter { $0.kind == .signInFailure && $0.factorID == "hotp" }.count == 4)
    }

    @Test("look-ahead: 10 presses ahead signs in, 11 do not; hotp.lookAhead sets it", arguments: StoreKind.available)
    func lookAhead(_ kind: StoreKind) throws {
        let hotp = try HOTP(secret: Self.secret)
        let (fixture, info) = try Self.bob(kind, counter: 100)
        #expect(errorCode { try Self.resolve(fixture, info.uid, hotp.code(counter: 111)) } == .invalidVerificationCode)
        #expect(try Self.resolve(fixture, info.uid, hotp.code(counter: 110)).factorID == "hotp")
        #expect(errorCode { try Self.resolve(fixture, info.uid, hotp.code(counter: 105)) } == .invalidVerificationCode,
                "the counter moved past it")
        let (narrow, factor) = try Self.bob(kind, config: #"{"hotp":{"lookAhead":0}}"#)
        #expect(errorCode { try Self.resolve(narrow, factor.uid, hotp.code(counter: 1)) } == .invalidVerificationCode)
        #expect(try Self.resolve(narrow, factor.uid, hotp.code(counter: 0)).factorID == "hotp")
        #expect(errorCode { try narrow.context.updateConfig(json: #"{"hotp":{"lookAhead":11}}"#) } == .invalidArgument)
        #expect(errorCode { try narrow.context.updateConfig(json: #"{"hotp":{"resyncWindow":1}}"#) } == .invalidArgument)
        #expect(errorCode { try narrow.context.updateConfig(json: #"{"hotp":{"window":3}}"#) } == .invalidArgument)
    }

    @Test("resync: a token pressed 500 times away comes back with two consecutive codes, once",
          arguments: StoreKind.available)
    func resync(_ kind: StoreKind) throws {
        let hotp = try HOTP(secret: Self.secret)
        let (fixture, info) = try Self.bob(kind)
        #expect(errorCode { try Self.resolve(fixture, info.uid, hotp.code(counter: 500)) } == .invalidVerificationCode,
                "one code beyond the look-ahead is wrong")
        #expect(errorCode { try Self.resolve(fixture, info.uid, hotp.code(counter: 501), next: hotp.code(counter: 500)) }
            == .invalidVerificationCode, "in the wrong order")
        #expect(errorCode { try Self.resolve(fixture, info.uid, hotp.code(counter: 500), next: hotp.code(counter: 502)) }
            == .invalidVerificationCode, "not consecutive")
        let result = try Self.resolve(fixture, info.uid, hotp.code(counter: 500), next: hotp.code(counter: 501))
        #expect(result.claims.contains { $0.name == "hotp_resynchronized" && $0.value == "true" })
        #expect(fixture.log.all.contains { $0.kind == .tokenResynced && $0.detail == "SIGN_IN" && $0.uid == "bob" })
        for counter: UInt64 in [500, 501] {
            #expect(errorCode { try Self.resolve(fixture, info.uid, hotp.code(counter: counter)) } == .invalidVerificationCode)
        }
        #expect(errorCode { try Self.resolve(fixture, info.uid, hotp.code(counter: 500), next: hotp.code(counter: 501)) }
            == .invalidVerificationCode, "the pair is used up")
        let plain = try Self.resolve(fixture, info.uid, hotp.code(counter: 502))
        #expect(!plain.claims.contains { $0.name == "hotp_resynchronized" })
        fixture.clock.advance(3600)
        #expect(errorCode { try Self.resolve(fixture, info.uid, hotp.code(counter: 1504), next: hotp.code(counter: 1505)) }
            == .invalidVerificationCode, "beyond resyncWindow (1000 counters after 503)")
        #expect(try Self.resolve(fixture, info.uid, hotp.code(counter: 1502), next: hotp.code(counter: 1503))
            .enrollmentID == info.uid, "within it")
    }

    @Test("resync attempts are attempts: wrong pairs meet the backoff", arguments: StoreKind.available)
    func resyncBackoff(_ kind: StoreKind) throws {
        let hotp = try HOTP(secret: Self.secret)
        let (fixture, info) = try Self.bob(kind, config: #"{"limits":{"freeAttempts":3,"backoffBase":600}}"#)
        var codes: [MFAErrorCode?] = []
        for guess in 0..<5 {
            codes.append(errorCode { try Self.resolve(fixture, info.uid, String(format: "%06d", guess), next: "000000") })
        }
        #expect(codes.prefix(4).allSatisfy { $0 == .invalidVerificationCode } && codes[4] == .tooManyAttemptsTryLater)
        #expect(errorCode { try Self.resolve(fixture, info.uid, hotp.code(counter: 300), next: hotp.code(counter: 301)) }
            == .tooManyAttemptsTryLater, "even the right pair waits")
        fixture.clock.advance(1200)
        #expect(try Self.resolve(fixture, info.uid, hotp.code(counter: 300), next: hotp.code(counter: 301))
            .factorID == "hotp")
    }

    @Test("admin resync moves the counter forward only; audited", arguments: StoreKind.available)
    func adminResync(_ kind: StoreKind) throws {
        let hotp = try HOTP(secret: Self.secret)
        let (fixture, info) = try Self.bob(kind)
        try fixture.context.resyncToken(enrollmentID: info.uid, code: hotp.code(counter: 700),
                                        nextCode: hotp.code(counter: 701), actor: "helpdesk")
        #expect(fixture.log.all.last?.kind == .tokenResynced && fixture.log.all.last?.actor == "helpdesk")
        #expect(errorCode { try Self.resolve(fixture, info.uid, hotp.code(counter: 701)) } == .invalidVerificationCode)
        #expect(try Self.resolve(fixture, info.uid, hotp.code(counter: 702)).factorID == "hotp")
        #expect(errorCode { try fixture.context.resyncToken(enrollmentID: info.uid, code: hotp.code(counter: 10),
                                                            nextCode: hotp.code(counter: 11), actor: "helpdesk") }
            == .invalidVerificationCode, "backwards")
        #expect(errorCode { try fixture.context.resyncToken(enrollmentID: "nope", code: "1", nextCode: "2",
                                                            actor: "helpdesk") } == .mfaEnrollmentNotFound)
        let (totp, _) = try fixture.importTOTP("carol")
        #expect(errorCode { try fixture.context.resyncToken(enrollmentID: totp.uid, code: "123456", nextCode: "123456",
                                                            actor: "helpdesk") } == .invalidArgument)
        #expect(errorCode { try fixture.context.resyncToken(enrollmentID: info.uid, code: "1", nextCode: "2", actor: "") }
            == .invalidArgument)
    }

    @Test("the user claims an unassigned token by serial and code; the code cannot sign in after",
          arguments: StoreKind.available)
    func claim(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let hotp = try HOTP(secret: Self.secret, digits: 8)
        try fixture.context.importToken(.hotp(secret: Self.secret, digits: 8, counter: 20, serial: "SN-77"), for: nil,
                                        actor: "ops")
        let multiFactor = fixture.context.multiFactor(for: fixture.user("dan"))
        func claim(_ code: String, serial: String = "SN-77", next: String? = nil) throws -> MultiFactorInfo {
            try multiFactor.enroll(with: HOTPMultiFactorGenerator.assertionForEnrollment(
                with: multiFactor.session(), serial: serial, oneTimePassword: code, nextOneTimePassword: next),
                                   displayName: nil)
        }
        #expect(errorCode { try claim(hotp.code(counter: 22), serial: "SN-78") } == .tokenNotFound)
        #expect(errorCode { try claim(hotp.code(counter: 19)) } == .invalidVerificationCode, "below the token's counter")
        let info = try claim(hotp.code(counter: 22))
        #expect(info.factorID == "hotp")
        #expect(fixture.log.all.contains { $0.kind == .tokenAssigned && $0.detail == "serial SN-77" && $0.actor == "" })
        #expect(errorCode { try claim(hotp.code(counter: 23)) } == .tokenNotFound, "it left the inventory")
        let resolver = try fixture.resolver(fixture.user("dan"))
        #expect(errorCode { try resolver.resolveSignIn(with: HOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: hotp.code(counter: 22))) } == .invalidVerificationCode)
        _ = try resolver.resolveSignIn(with: HOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: hotp.code(counter: 23)))
    }
}
