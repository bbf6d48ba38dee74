import MFA
import Testing

/// The importers on files as operators have them: CRLF and CR line breaks,
/// RFC 4180 quoting, a byte order mark, columns in another order, secrets
/// where a uid should be, pam_oath's last code. (Issue 45, items 2 to 4 and 6.)
@Suite("Importers: operators' files")
struct ImportFileTests {
    static let secret = ImportTests.rfcSecret
    static let base32 = ImportTests.rfcBase32
    static let hex = ImportTests.rfcHex

    static func run(_ fixture: AdminFixture, _ text: String, _ format: ImportFormat,
                    batchSize: Int = 500) throws -> (ImportSummary, [ImportLineReport]) {
        try ImportTests.run(fixture, text, format, batchSize: batchSize)
    }

    /// `lines` joined with `separator`, ended by one.
    static func file(_ lines: [String], _ separator: String) -> String {
        lines.map { $0 + separator }.joined()
    }

    @Test("crlf: CSV with a header, otpauth and users files with CR LF or lone CR line breaks import every line",
          arguments: ["\r\n", "\r"])
    func crlfLineBreaks(_ separator: String) throws {
        let fixture = try AdminFixture(.sqlite)
        let csv = Self.file(["uid,secret,issuer", "alice,\(Self.base32),ACME", "bob,\(Self.base32),", ""], separator)
        let (summary, reports) = try Self.run(fixture, csv, .csv)
        #expect(summary.lines == 4 && summary.imported == 2 && summary.failed == 0, "\(summary)")
        #expect(reports.map(\.line) == [2, 3])
        #expect(try fixture.context.userFactors(uid: "alice").map(\.displayName) == ["ACME"])
        #expect(try fixture.context.userFactors(uid: "bob").map(\.displayName) == [nil])

        let uris = Self.file(["# exported", "otpauth://totp/ACME:carol?secret=\(Self.base32)&issuer=ACME",
                              "otpauth://totp/dave?secret=\(Self.base32)"], separator)
        let (otpauth, _) = try Self.run(fixture, uris, .otpauth)
        #expect(otpauth.lines == 3 && otpauth.imported == 2 && otpauth.failed == 0)

        let users = Self.file(["# users", "HOTP/T30 erin - \(Self.hex)", "HOTP/T30/6 frank - \(Self.hex) 0"],
                              separator)
        let (usersFile, _) = try Self.run(fixture, users, .oathUsersFile)
        #expect(usersFile.lines == 3 && usersFile.imported == 2 && usersFile.failed == 0)
        let erin = try #require(try fixture.context.userFactors(uid: "erin").first)
        #expect(try fixture.signIn("erin", enrollmentID: erin.uid, totp: TOTP(secret: Self.secret)).factorID == "totp")

        let ga = Self.file([Self.base32, "\" TOTP_AUTH", "12345678"], separator)
        var gaReports: [ImportLineReport] = []
        let google = try fixture.context.importGoogleAuthenticator(
            ga, uid: "gina", options: ImportOptions(actor: "migration")) { gaReports.append($0) }
        #expect(google.lines == 3 && google.imported == 1 && google.recoveryCodes == 1 && google.failed == 0)
    }

    @Test("crlf: mixed line breaks count as lines; a CR LF inside a line never hides the next one")
    func crlfMixedLineBreaks() throws {
        let fixture = try AdminFixture(.sqlite)
        let text = "alice,\(Self.base32)\r\nbob,\(Self.base32)\ncarol,\(Self.base32)\rdave,\(Self.base32)"
        let (summary, _) = try Self.run(fixture, text, .csv, batchSize: 1)
        #expect(summary.lines == 4 && summary.imported == 4)
    }

    @Test("crlf: a file that names no factor fails; it never imports nothing silently")
    func crlfNothingImportedIsNotSilent() throws {
        let fixture = try AdminFixture(.sqlite)
        for (text, format) in [("uid,secret\r\n", ImportFormat.csv), ("# only a comment\r\n\r\n", .otpauth),
                               ("", .oathUsersFile), ("\u{FEFF}", .csv)] {
            let (summary, reports) = try Self.run(fixture, text, format)
            #expect(summary.failed == 1 && summary.imported == 0 && reports.map(\.line) == [1], "\(format)")
        }
    }

    @Test("RFC 4180: quoted commas, doubled quotes and line breaks inside quotes; the next record is read whole")
    func csvQuotedFieldsRFC4180() throws {
        let fixture = try AdminFixture(.sqlite)
        let text = "uid,secret,issuer\r\n"
            + "alice,\(Self.base32),\"ACME, \"\"Inc.\"\"\"\r\n"
            + "bob,\(Self.base32),\"two\r\nlines\"\r\n"
            + "carol,\"\(Self.base32)\",\"\"\r\n"
            + "  \"dave\" , \(Self.base32) ,ACME\r\n"
        let (summary, reports) = try Self.run(fixture, text, .csv)
        #expect(summary.lines == 6 && summary.imported == 3 && summary.failed == 1, "\(summary)")
        #expect(reports.map(\.line) == [2, 3, 5, 6])
        #expect(try fixture.context.userFactors(uid: "alice").map(\.displayName) == ["ACME, \"Inc.\""])
        #expect(reports.count == 4 && reports[1].outcome == .failed && reports[1].uid == "bob"
                && reports[1].reason.contains("issuer"))
        #expect(try fixture.context.userFactors(uid: "bob").isEmpty)
        #expect(try fixture.context.userFactors(uid: "carol").map(\.displayName) == [nil])
        #expect(try fixture.context.userFactors(uid: "dave").map(\.displayName) == ["ACME"])

        let unclosed = "erin,\"\(Self.base32)\nfrank,\(Self.base32)\n"
        let (bad, badReports) = try Self.run(fixture, unclosed, .csv)
        #expect(bad.lines == 2 && bad.failed == 1 && bad.imported == 0)
        #expect(badReports.first?.line == 1 && badReports.first?.reason.contains("lines 1 to 2") == true)
    }

    @Test("CSV header: columns in any order; a user named uid is a user past the first line")
    func csvHeaderOrder() throws {
        let fixture = try AdminFixture(.sqlite)
        let (summary, _) = try Self.run(fixture, "Secret , UID,issuer\n\(Self.base32),alice,ACME\n", .csv)
        #expect(summary.imported == 1 && summary.failed == 0)
        #expect(try fixture.context.userFactors(uid: "alice").map(\.displayName) == ["ACME"])
        let (named, _) = try Self.run(fixture, "bob,\(Self.base32)\nuid,\(Self.base32)\n", .csv)
        #expect(named.imported == 2)
        let (badHeader, reports) = try Self.run(fixture, "uid,key\ncarol,\(Self.base32)\n", .csv)
        #expect(badHeader.failed == 1 && badHeader.imported == 1 && reports.first?.reason.contains("header") == true)
    }

    @Test("bom: a leading byte order mark is skipped in every format")
    func bomSkipped() throws {
        let fixture = try AdminFixture(.sqlite)
        let bom = "\u{FEFF}"
        let csv = bom + "uid,secret,issuer\r\nalice,\(Self.base32),ACME\r\n"
        let (summary, reports) = try Self.run(fixture, csv, .csv)
        #expect(summary.imported == 1 && summary.failed == 0 && reports.map(\.line) == [2])
        let (otpauth, _) = try Self.run(fixture, bom + "otpauth://totp/bob?secret=\(Self.base32)\n", .otpauth)
        #expect(otpauth.imported == 1 && otpauth.failed == 0)
        let (users, _) = try Self.run(fixture, bom + "HOTP/T30 carol - \(Self.hex)\n", .oathUsersFile)
        #expect(users.imported == 1 && users.failed == 0)
        #expect(try !fixture.context.userFactors(uid: "carol").isEmpty)
        let google = try fixture.context.importGoogleAuthenticator(
            bom + "\(Self.base32)\n\" TOTP_AUTH\n", uid: "dave", options: ImportOptions(actor: "migration"))
        #expect(google.imported == 1 && google.failed == 0)
        // Only a leading one: elsewhere (files joined together) it is refused in the uid, never imported into it.
        let (inside, insideReports) = try Self.run(fixture, "erin,\(Self.base32)\n\(bom)frank,\(Self.base32)\n", .csv)
        #expect(inside.imported == 1 && inside.failed == 1 && insideReports.last?.reason.contains("byte order mark") == true)
    }

    @Test("report_uid_secret: swapped columns, a lone secret, a missing separator: the report gives the line alone")
    func reportUIDSecret() throws {
        let fixture = try AdminFixture(.sqlite)
        let lower = Self.base32.lowercased()
        let csv = [
            "\(Self.base32),alice",          // swapped columns
            Self.base32,                      // only the secret
            "bob;\(Self.base32);ACME",        // another separator: one field
            "\(lower),carol",                 // swapped, lower case
            "JBSW Y3DP EHPK 3PXP,dave",       // swapped, in groups
            "\(Self.hex),erin",               // a hex secret where the uid goes
            "frank,\(Self.base32),\u{0}x",    // a uid that is fine: it is shown
            "Xq2kWzV5bQh3TmNcRfLp7aYdEe12,\(Self.base32)", // a mixed-case id (Firebase's): shown
        ].joined(separator: "\n")
        let (summary, reports) = try Self.run(fixture, csv, .csv)
        #expect(summary.failed == 7 && summary.imported == 1, "\(summary)")
        let users = "HOTP/T30 \(Self.hex)\nHOTP/T30 gina - \(Self.hex)x\n\(Self.hex)\n"
        let (_, userReports) = try Self.run(fixture, users, .oathUsersFile)
        let uris = "otpauth://totp/\(Self.base32)?secret=\(Self.base32)\n"
        let (_, uriReports) = try Self.run(fixture, uris, .otpauth)
        for report in reports + userReports + uriReports {
            for secret in [Self.base32, lower, "JBSW Y3DP EHPK 3PXP", Self.hex] {
                #expect(report.uid?.contains(secret) != true && !report.reason.contains(secret), "\(report)")
            }
        }
        #expect(reports.filter { $0.uid != nil }.map(\.uid) == ["frank", "Xq2kWzV5bQh3TmNcRfLp7aYdEe12"])
        #expect(userReports.map(\.uid) == [nil, "gina", nil])

        // Swapped columns whose name field is valid base32 too: refused without a header, not imported
        // under the secret; a header uid,secret says the order is meant.
        let fresh = try AdminFixture(.sqlite)
        let swapped = "\(Self.base32),alexandrapetrova\nalexandrapetrova,\(Self.base32)\n"
        let (refused, refusedReports) = try Self.run(fresh, swapped, .csv)
        #expect(refused.failed == 1 && refused.imported == 1 && refusedReports.first?.reason.contains("swapped") == true)
        #expect(try fresh.context.userFactors(uid: Self.base32).isEmpty)
        let (headed, headedReports) = try Self.run(fresh, "uid,secret\n\(Self.base32),alexandrapetrova\n", .csv)
        #expect(headed.imported == 1, "\(headedReports)")
        #expect(uriReports.map(\.uid) == [nil] && uriReports.first?.outcome == .imported)
    }

    @Test("pam_oath_last_otp: the last code pam_oath accepted stays used after the import")
    func pamOathLastOTP() throws {
        let fixture = try AdminFixture(.sqlite)
        let totp = try TOTP(secret: Self.secret)
        let now = fixture.clock.now()
        // pam_oath accepted the code of the current step a minute ago (its time is
        // local time: here an hour east of UTC), and the code of the step before for bob.
        let local = Self.localTime(now - 60 + 3600)
        let text = "HOTP/T30\talice\t-\t\(Self.hex)\t0\t\(try totp.code(at: now))\t\(local)\n"
            + "HOTP/T30\tbob\t-\t\(Self.hex)\t0\t\(try totp.code(at: now - 30))\t\(local)\n"
            + "HOTP/T30\tcarol\t-\t\(Self.hex)\t0\t\(try totp.code(at: now))\t2020-01-01T00:00:00L\n"
            + "HOTP/T30\tdave\t-\t\(Self.hex)\t0\t\(try totp.code(at: now))\n"
            + "HOTP/T30\terin\t-\t\(Self.hex)\t0\t\(try totp.code(at: now))\t2024-13-01T00:00:00L\n"
        let (summary, reports) = try Self.run(fixture, text, .oathUsersFile)
        #expect(summary.imported == 4 && summary.failed == 1 && reports.last?.reason.contains("YYYY-MM-DD") == true)
        for uid in ["alice", "dave"] {
            let factor = try #require(try fixture.context.userFactors(uid: uid).first)
            #expect(errorCode { try fixture.signIn(uid, enrollmentID: factor.uid, totp: totp) }
                == .invalidVerificationCode, "\(uid)")
        }
        // bob's last code was a step back: the current one still works.
        let bob = try #require(try fixture.context.userFactors(uid: "bob").first)
        #expect(try fixture.signIn("bob", enrollmentID: bob.uid, totp: totp).factorID == "totp")
        // carol's last login is years old: nothing to carry, her code works.
        let carol = try #require(try fixture.context.userFactors(uid: "carol").first)
        #expect(try fixture.signIn("carol", enrollmentID: carol.uid, totp: totp).factorID == "totp")
        fixture.clock.advance(30)
        let alice = try #require(try fixture.context.userFactors(uid: "alice").first)
        #expect(try fixture.signIn("alice", enrollmentID: alice.uid, totp: totp).factorID == "totp")
    }

    /// `time` as liboath writes it: `YYYY-MM-DDThh:mm:ssL`.
    static func localTime(_ time: Int64) -> String {
        var days = time / 86400
        let seconds = time % 86400
        var year: Int64 = 1970
        func leap(_ y: Int64) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }
        while days >= (leap(year) ? 366 : 365) {
            days -= leap(year) ? 366 : 365
            year += 1
        }
        var month = 0
        let lengths: [Int64] = [31, leap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        while days >= lengths[month] {
            days -= lengths[month]
            month += 1
        }
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(Int64(month + 1)))-\(two(days + 1))T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))L"
    }
}
