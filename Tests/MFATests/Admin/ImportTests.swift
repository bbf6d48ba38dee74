import MFA
import Testing

/// The importers: every format, per-line reports, re-runs, limits.
@Suite("Importers")
struct ImportTests {
    static let rfcHex = "3132333435363738393031323334353637383930"
    static let rfcSecret = Array("12345678901234567890".utf8)
    static let rfcBase32 = Base32.encode(rfcSecret, padding: false)

    /// Runs an import and collects its reports.
    static func run(_ fixture: AdminFixture, _ text: String, _ format: ImportFormat, tenant: String? = nil,
                    batchSize: Int = 500) throws -> (ImportSummary, [ImportLineReport]) {
        var reports: [ImportLineReport] = []
        let summary = try fixture.context.importFactors(text, format: format, options: ImportOptions(
            actor: "migration", tenant: tenant, batchSize: batchSize)) { reports.append($0) }
        return (summary, reports)
    }

    @Test("otpauth: TOTP and HOTP imported (HOTP at its counter), bad lines reported by number; a re-run stores nothing",
          arguments: StoreKind.available)
    func otpauth(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let text = """
            otpauth://totp/ACME:alice?secret=\(Self.rfcBase32)&issuer=ACME
            # a comment

            otpauth://hotp/ACME:bob?secret=\(Self.rfcBase32)&counter=3
            otpauth://totp/ACME:carol?secret=not*base32
            https://example.com/
            otpauth://totp/ACME:dave?secret=\(Self.rfcBase32)&digits=8&period=60&algorithm=SHA256
            otpauth://totp/ACME:erin?secret=MFRGG

            """
        let (summary, reports) = try Self.run(fixture, text, .otpauth)
        #expect(summary.lines == 8 && summary.imported == 3 && summary.unsupported == 0 && summary.failed == 3)
        #expect(reports.map(\.line) == [1, 4, 5, 6, 7, 8])
        #expect(reports.map(\.outcome) == [.imported, .imported, .failed, .failed, .imported, .failed])
        #expect(reports[1].reason.contains("HOTP") && reports[1].uid == "bob")
        let bob = try fixture.context.userFactors(uid: "bob")
        #expect(bob.count == 1 && bob[0].factorID == "hotp")
        let hotp = try HOTP(secret: Self.rfcSecret)
        #expect(errorCode { try fixture.signIn("bob", enrollmentID: bob[0].uid, hotp: hotp, counter: 2) }
            == .invalidVerificationCode, "a code below the URI's counter")
        #expect(try fixture.signIn("bob", enrollmentID: bob[0].uid, hotp: hotp, counter: 3).factorID == "hotp")
        #expect(reports[5].reason.contains("10 to 128 bytes"))
        for report in reports { #expect(!report.reason.contains(Self.rfcBase32)) }
        let alice = try fixture.context.userFactors(uid: "alice")
        #expect(alice.count == 1 && alice[0].displayName == "ACME" && alice[0].uid == reports[0].enrollmentID)
        let totp = try TOTP(secret: Self.rfcSecret)
        #expect(try fixture.signIn("alice", enrollmentID: alice[0].uid, totp: totp).factorID == "totp")
        let dave = try fixture.context.userFactors(uid: "dave")[0]
        let daveTOTP = try TOTP(secret: Self.rfcSecret, algorithm: .sha256, digits: 8, period: 60)
        #expect(try fixture.signIn("dave", enrollmentID: dave.uid, totp: daveTOTP).enrollmentID == dave.uid)
        #expect(fixture.log.all.contains { $0.kind == .enroll && $0.detail == "IMPORTED" && $0.actor == "migration" })

        let (again, againReports) = try Self.run(fixture, text, .otpauth)
        #expect(again.imported == 0 && again.alreadyImported == 3 && again.failed == 3)
        #expect(againReports[0].outcome == .alreadyImported && againReports[0].enrollmentID == alice[0].uid)
        #expect(try fixture.context.userFactors(uid: "alice").count == 1)
    }

    @Test("users file: HOTP/T lines are TOTP, HOTP and HOTP/E lines HOTP; codes match the RFC secrets",
          arguments: StoreKind.available)
    func usersFile(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let text = """
            # pam_oath users file
            HOTP/T30/6 alice - \(Self.rfcHex)
            HOTP/T60/8\tbob\t1234\t\(Self.rfcHex) 0 755224 2024-01-01T00:00:00L
            HOTP carol - \(Self.rfcHex)
            HOTP/E/8 dave - \(Self.rfcHex)
            HOTP/T30 erin - 12345
            HOTP/X frank - \(Self.rfcHex)
            TOTP gina - \(Self.rfcHex)
            HOTP/T30/9 hal - \(Self.rfcHex)
            HOTP/T30 ivan
            """
        let (summary, reports) = try Self.run(fixture, text, .oathUsersFile, tenant: "corp")
        #expect(summary.imported == 4 && summary.unsupported == 0 && summary.failed == 5)
        #expect(reports.map(\.line) == [2, 3, 4, 5, 6, 7, 8, 9, 10])
        #expect(reports[1].reason.contains("PIN"))
        let carol = try fixture.context.userFactors(uid: "carol", tenant: "corp")[0]
        #expect(carol.factorID == "hotp")
        #expect(try fixture.signIn("carol", tenant: "corp", enrollmentID: carol.uid, hotp: HOTP(secret: Self.rfcSecret),
                                   counter: 0).factorID == "hotp")
        let dave = try fixture.context.userFactors(uid: "dave", tenant: "corp")[0]
        #expect(try fixture.signIn("dave", tenant: "corp", enrollmentID: dave.uid,
                                   hotp: HOTP(secret: Self.rfcSecret, digits: 8), counter: 0).factorID == "hotp")
        let alice = try fixture.context.userFactors(uid: "alice", tenant: "corp")[0]
        #expect(try fixture.signIn("alice", tenant: "corp", enrollmentID: alice.uid,
                                   totp: TOTP(secret: Self.rfcSecret)).factorID == "totp")
        let bob = try fixture.context.userFactors(uid: "bob", tenant: "corp")[0]
        #expect(try fixture.signIn("bob", tenant: "corp", enrollmentID: bob.uid,
                                   totp: TOTP(secret: Self.rfcSecret, digits: 8, period: 60)).factorID == "totp")
        #expect(try fixture.context.userFactors(uid: "alice").isEmpty, "imported into the tenant only")
    }

    @Test("CSV: header, quoted fields, defaults; bad fields reported", arguments: StoreKind.available)
    func csv(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let text = """
            uid,secret,issuer,digits,period,algorithm
            alice,\(Self.rfcBase32),"ACME, Inc.",8,60,SHA512
            bob,\(Self.rfcBase32)
            carol,\(Self.rfcBase32),,,,
            dave,\(Self.rfcBase32),x,5
            erin,\(Self.rfcBase32),x,6,0
            frank,\(Self.rfcBase32),x,6,30,MD5
            hal,@@@@
            ivan,\(Self.rfcBase32),a,6,30,SHA1,extra
            gina,"unclosed
            jo,\(Self.rfcBase32)
            """
        let (summary, reports) = try Self.run(fixture, text, .csv)
        #expect(summary.imported == 3 && summary.failed == 6)
        // An unclosed quote runs to the end of the file (RFC 4180): one failed record.
        #expect(reports.filter { $0.outcome == .failed }.map(\.line) == [5, 6, 7, 8, 9, 10])
        #expect(reports.last?.reason.contains("lines 10 to 11") == true)
        let alice = try fixture.context.userFactors(uid: "alice")[0]
        #expect(alice.displayName == "ACME, Inc.")
        #expect(try fixture.signIn("alice", enrollmentID: alice.uid, totp: TOTP(
            secret: Self.rfcSecret, algorithm: .sha512, digits: 8, period: 60)).factorID == "totp")
        let carol = try fixture.context.userFactors(uid: "carol")[0]
        #expect(carol.displayName == nil)
        #expect(try fixture.signIn("carol", enrollmentID: carol.uid, totp: TOTP(secret: Self.rfcSecret)).factorID == "totp")
    }

    @Test("google-authenticator file: secret, options mapped and reported, scratch codes as recovery codes",
          arguments: StoreKind.available)
    func googleAuthenticator(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let totp = try TOTP(secret: Self.rfcSecret)
        let usedStep = try totp.step(at: fixture.clock.now())
        let file = """
            \(Self.rfcBase32)
            " RATE_LIMIT 3 30 1700000000
            " WINDOW_SIZE 17
            " DISALLOW_REUSE \(usedStep)
            " TOTP_AUTH
            " SOMETHING_NEW 1
            12345678
            87654321
            1234

            """
        var reports: [ImportLineReport] = []
        let summary = try fixture.context.importGoogleAuthenticator(
            file, uid: "alice", options: ImportOptions(actor: "migration")) { reports.append($0) }
        #expect(summary.imported == 1 && summary.recoveryCodes == 2 && summary.failed == 1)
        #expect(reports.map(\.line) == [1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(reports[0].outcome == .imported)
        #expect(reports[2].outcome == .note && reports[2].reason.contains("±8") && reports[2].reason.contains("±5"))
        #expect(reports[8].outcome == .failed)
        for report in reports {
            #expect(!report.reason.contains("12345678") && !report.reason.contains(Self.rfcBase32))
        }
        let factors = try fixture.context.userFactors(uid: "alice")
        #expect(factors.map(\.factorID).sorted() == ["recovery", "totp"])
        let factor = try #require(factors.first { $0.factorID == "totp" })
        #expect(factors.first { $0.factorID == "recovery" }?.remainingCodes == 2)
        // The step used before the import stays used.
        #expect(errorCode { try fixture.signIn("alice", enrollmentID: factor.uid, totp: totp) } == .invalidVerificationCode)
        fixture.clock.advance(30)
        #expect(try fixture.signIn("alice", enrollmentID: factor.uid, totp: totp).factorID == "totp")
        let resolver = try fixture.resolver(fixture.user())
        let result = try resolver.resolveSignIn(with: RecoveryCodesMultiFactorGenerator.assertionForSignIn(
            code: "8765 4321"))
        #expect(result.usedRecoveryCode)
        // A re-run stores nothing.
        let again = try fixture.context.importGoogleAuthenticator(file, uid: "alice",
                                                                  options: ImportOptions(actor: "migration"))
        #expect(again.imported == 0 && again.alreadyImported >= 1)
        #expect(try fixture.context.userFactors(uid: "alice").first { $0.factorID == "recovery" }?.remainingCodes == 1)
    }

    @Test("google-authenticator file: its lines are counted like the other importers' (a final newline starts none)",
          arguments: StoreKind.available)
    func googleAuthenticatorLineCount(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let file = "\(Self.rfcBase32)\n\" TOTP_AUTH\n12345678\n"
        let summary = try fixture.context.importGoogleAuthenticator(file, uid: "alice",
                                                                    options: ImportOptions(actor: "migration"))
        let (other, _) = try Self.run(fixture, file, .otpauth)
        #expect(summary.lines == 3 && other.lines == 3)
        let unterminated = try fixture.context.importGoogleAuthenticator(
            String(file.dropLast()), uid: "bob", options: ImportOptions(actor: "migration"))
        #expect(unterminated.lines == 3)
    }

    @Test("google-authenticator file without TOTP_AUTH is HOTP at its HOTP_COUNTER; without that line, refused",
          arguments: StoreKind.available)
    func googleAuthenticatorHOTP(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        var reports: [ImportLineReport] = []
        let summary = try fixture.context.importGoogleAuthenticator(
            "\(Self.rfcBase32)\n\" HOTP_COUNTER 5\n\" WINDOW_SIZE 3\n12345678\n", uid: "bob",
            options: ImportOptions(actor: "migration")) { reports.append($0) }
        #expect(summary.imported == 1 && summary.recoveryCodes == 1 && summary.unsupported == 0)
        #expect(reports.first { $0.line == 3 }?.reason.contains("hotp.lookAhead") == true)
        let bob = try fixture.context.userFactors(uid: "bob")
        #expect(bob.map(\.factorID) == ["hotp", "recovery"])
        let hotp = try HOTP(secret: Self.rfcSecret)
        #expect(errorCode { try fixture.signIn("bob", enrollmentID: bob[0].uid, hotp: hotp, counter: 4) }
            == .invalidVerificationCode, "the code before HOTP_COUNTER was used")
        #expect(try fixture.signIn("bob", enrollmentID: bob[0].uid, hotp: hotp, counter: 5).factorID == "hotp")
        reports = []
        let uncounted = try fixture.context.importGoogleAuthenticator(
            "\(Self.rfcBase32)\n12345678\n", uid: "carol", options: ImportOptions(actor: "migration")) {
            reports.append($0)
        }
        #expect(uncounted.imported == 0 && uncounted.failed == 2)
        #expect(reports.first { $0.line == 1 }?.reason.contains("HOTP_COUNTER") == true)
        #expect(try fixture.context.userFactors(uid: "carol").isEmpty)
        let empty = try fixture.context.importGoogleAuthenticator("", uid: "bob", options: ImportOptions(actor: "m"))
        #expect(empty.failed == 1)
        let bad = try fixture.context.importGoogleAuthenticator("!!!!\n\" TOTP_AUTH\n", uid: "bob",
                                                                options: ImportOptions(actor: "m"))
        #expect(bad.failed == 1 && bad.imported == 0)
    }

    @Test("the factor limit refuses a line and the batch goes on; a stop between batches resumes",
          arguments: StoreKind.available)
    func limitAndStop(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        try fixture.context.updateConfig(json: #"{"limits":{"maxFactors":1}}"#)
        let lines = (0..<6).map { index in
            "otpauth://totp/u\(index / 2)?secret=\(Base32.encode(AdminFixture.secret("u", UInt8(index)), padding: false))"
        }
        var done: [Int] = []
        let first = try fixture.context.importFactors(
            lines.joined(separator: "\n"), format: .otpauth, options: ImportOptions(actor: "m", batchSize: 2),
            progress: { count, total in
                done.append(count)
                #expect(total == 6)
                return false
            })
        #expect(first.stopped && first.imported == 1 && first.failed == 1 && done == [2])
        var reports: [ImportLineReport] = []
        let second = try fixture.context.importFactors(lines.joined(separator: "\n"), format: .otpauth,
                                                       options: ImportOptions(actor: "m", batchSize: 2)) {
            reports.append($0)
        }
        #expect(!second.stopped && second.alreadyImported == 1 && second.imported == 2 && second.failed == 3)
        #expect(reports[1].reason.contains("most the configuration allows"))
        #expect(try fixture.context.stats().totalFactors == 3)
        for size in [0, 1001] {
            #expect(errorCode { try fixture.context.importFactors("", format: .csv,
                                                                 options: ImportOptions(actor: "m", batchSize: size)) }
                == .invalidArgument)
        }
        #expect(errorCode { try fixture.context.importFactors("", format: .csv, options: ImportOptions(actor: "")) }
            == .invalidArgument)
    }
}
