import MFA
import Testing

/// A uid, tenant, display name or actor holding NUL or another control
/// character is refused at every entry point with INVALID_ARGUMENT naming
/// the field: C shows `ali\0ce` as `ali`, and a line break or a
/// bidirectional override forges a log line or a listing. (Issue 45, item 5.)
@Suite("Control characters in names")
struct ControlCharacterTests {
    /// One of each refused kind: C0 (NUL, line feed, escape), DEL, C1 (NEL),
    /// the line separator, a bidirectional override and isolate, a byte order mark.
    static let refused = ["ali\u{0}ce", "ali\nce", "ali\u{1B}[31mce", "ali\u{7F}ce", "ali\u{85}ce",
                          "ali\u{2028}ce", "ali\u{202E}ec", "ali\u{2066}ce", "\u{FEFF}alice"]
    /// Text that stays allowed: accents, CJK, emoji with joiners, right-to-left marks.
    static let allowed = ["Zoë", "山田", "👩‍💻 dev", "\u{200F}עברית", "ali ce"]

    /// The message of the `invalidArgument` thrown by `body`, or a description of what happened.
    static func refusal<T>(_ body: () throws -> T) -> String {
        do {
            _ = try body()
            return "accepted"
        } catch let error as MFAError {
            return error.code == .invalidArgument ? error.message : "\(error.code)"
        } catch {
            return "\(error)"
        }
    }

    @Test("control_char: uids and tenants in the sign-in and enrollment flows", arguments: refused)
    func controlCharInFlows(_ bad: String) throws {
        let fixture = try EngineFixture(.sqlite)
        let user = MFAUser(uid: bad, email: "a@example.com", emailVerified: true, authTime: fixture.clock.now())
        #expect(Self.refusal { try fixture.context.signIn(user) }.hasPrefix("uid holds a control character"))
        #expect(Self.refusal { try fixture.context.multiFactor(for: user).session() }.hasPrefix("uid holds"))
        let tenanted = fixture.user("alice", tenant: bad)
        #expect(Self.refusal { try fixture.context.signIn(tenanted) }.hasPrefix("tenant holds a control character"))
        #expect(Self.refusal { try fixture.context.revokeTokens(uid: bad) }.hasPrefix("uid holds"))
        #expect(Self.refusal { try fixture.context.checkToken(tenant: bad, uid: "alice", issuedAt: 0) }
            .hasPrefix("tenant holds"))
    }

    @Test("control_char: display names at enrollment and rename, tenants in the configuration", arguments: refused)
    func controlCharInNamesAndConfig(_ bad: String) throws {
        let fixture = try EngineFixture(.sqlite)
        let user = fixture.user()
        let multiFactor = fixture.context.multiFactor(for: user)
        let secret = try TOTPMultiFactorGenerator.generateSecret(with: multiFactor.session())
        let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: try fixture.code(secret))
        #expect(Self.refusal { try multiFactor.enroll(with: assertion, displayName: bad) }
            .hasPrefix("display name holds a control character"))
        let (info, _) = try fixture.enrollTOTP(user, name: "phone")
        #expect(Self.refusal { try fixture.context.renameFactor(enrollmentID: info.uid, displayName: bad, actor: "ops") }
            .hasPrefix("display name holds"))
        #expect(Self.refusal { try fixture.context.renameFactor(enrollmentID: info.uid, displayName: "x", actor: bad) }
            .hasPrefix("actor holds"))
        #expect(Self.refusal { try fixture.context.importTOTPFactor(
            for: fixture.user("bob"), totp: TOTP(secret: ImportTests.rfcSecret), displayName: bad) }
            .hasPrefix("display name holds"))
        #expect(Self.refusal { try fixture.context.setConfig(json: #"{"state":"ENABLED"}"#, tenant: bad) }
            .hasPrefix("tenant holds"))
        #expect(Self.refusal { try fixture.context.updateConfig(json: #"{"state":"ENABLED"}"#, tenant: bad) }
            .hasPrefix("tenant holds"))
        #expect(Self.refusal { try fixture.context.config(tenant: bad) }.hasPrefix("tenant holds"))
        #expect(try fixture.context.userFactors(uid: "alice").map(\.displayName) == ["phone"])
    }

    @Test("control_char: the admin API and the importers' options", arguments: refused)
    func controlCharInAdminAndImport(_ bad: String) throws {
        let fixture = try AdminFixture(.sqlite)
        #expect(Self.refusal { try fixture.context.userFactors(uid: bad) }.hasPrefix("uid holds"))
        #expect(Self.refusal { try fixture.context.deleteUser(uid: bad, actor: "ops") }.hasPrefix("uid holds"))
        #expect(Self.refusal { try fixture.context.resetUser(uid: "alice", tenant: bad, actor: "ops") }
            .hasPrefix("tenant holds"))
        #expect(Self.refusal { try fixture.context.listUsers(tenant: .tenant(bad)) }.hasPrefix("tenant holds"))
        #expect(Self.refusal { try fixture.context.importFactors("", format: .csv, options: ImportOptions(
            actor: "ops", tenant: bad)) }.hasPrefix("tenant holds"))
        #expect(Self.refusal { try fixture.context.importFactors("", format: .csv, options: ImportOptions(actor: bad)) }
            .hasPrefix("actor holds"))
        #expect(Self.refusal { try fixture.context.importGoogleAuthenticator(
            "\(ImportTests.rfcBase32)\n\" TOTP_AUTH\n", uid: bad, options: ImportOptions(actor: "ops")) }
            .hasPrefix("uid holds"))
    }

    @Test("control_char: a uid or issuer read from a file fails its line, in every format; nothing is stored",
          arguments: refused)
    func controlCharInImportedLines(_ bad: String) throws {
        let fixture = try AdminFixture(.sqlite)
        let base32 = ImportTests.rfcBase32
        let quoted = "\"" + bad.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        let encoded = bad.unicodeScalars.map { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || scalar == " ")
                ? String(scalar) : String(scalar).utf8.map { "%" + String($0, radix: 16, uppercase: true) }.joined()
        }.joined()
        let cases: [(String, ImportFormat)] = [
            ("\(quoted),\(base32)\n", .csv),
            ("carol,\(base32),\(quoted)\n", .csv),
            ("otpauth://totp/\(encoded)?secret=\(base32)\n", .otpauth),
            ("otpauth://totp/\(encoded):dave?secret=\(base32)\n", .otpauth),
        ] + (bad.contains("\n") ? [] : [("HOTP/T30 \(bad) - \(ImportTests.rfcHex)\n", .oathUsersFile)])
        for (text, format) in cases {
            var reports: [ImportLineReport] = []
            let summary = try fixture.context.importFactors(text, format: format,
                                                            options: ImportOptions(actor: "ops")) { reports.append($0) }
            #expect(summary.failed == 1 && summary.imported == 0, "\(format) \(text.debugDescription)")
            #expect(reports.count == 1 && reports[0].uid.map(IdentifierTextProbe.clean) != false)
        }
        #expect(try fixture.context.stats().totalFactors == 0)
    }

    @Test("control_char: ordinary text stays allowed everywhere", arguments: allowed)
    func controlCharNotInOrdinaryText(_ good: String) throws {
        let fixture = try AdminFixture(.sqlite)
        let info = try fixture.context.importTOTPFactor(for: fixture.user(good, tenant: good),
                                                        totp: TOTP(secret: ImportTests.rfcSecret), displayName: good)
        #expect(info.displayName == good)
        #expect(try fixture.context.userFactors(uid: good, tenant: good).count == 1)
        let summary = try fixture.context.importFactors("\"\(good)\",\(ImportTests.rfcBase32),\"\(good)\"\n",
                                                        format: .csv, options: ImportOptions(actor: good))
        #expect(summary.imported == 1)
    }
}

/// Whether a report's uid is free of refused characters.
enum IdentifierTextProbe {
    static func clean(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || [0x2028, 0x2029, 0xFEFF].contains(scalar.value)
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        }
    }
}
