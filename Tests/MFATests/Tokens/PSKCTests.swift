import Foundation
import MFA
import Testing

/// PSKC 1.0 files (RFC 6030): the files of `Tests/fixtures/pskc`, written by
/// python-pskc (plaintext, pre-shared keys, PBKDF2), and hostile XML.
@Suite("PSKC import")
struct PSKCTests {
    static let secret = Array("12345678901234567890".utf8)
    static let preShared: [UInt8] = [0x12, 0x34, 0x56, 0x78, 0x90, 0x12, 0x34, 0x56,
                                     0x78, 0x90, 0x12, 0x34, 0x56, 0x78, 0x90, 0x12]

    static func file(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fixtures/pskc/\(name)")
        return Array(try Data(contentsOf: url))
    }

    static func run(_ fixture: AdminFixture, _ bytes: [UInt8], key: PSKCKey? = nil,
                    ignoringUsers: Bool = false) throws -> (ImportSummary, [ImportLineReport]) {
        var reports: [ImportLineReport] = []
        let summary = try fixture.context.importPSKC(bytes, key: key, ignoringUsers: ignoringUsers,
                                                     options: ImportOptions(actor: "vendor")) { reports.append($0) }
        return (summary, reports)
    }

    @Test("a plain file: the HOTP key becomes its UserId's factor at its counter; the TOTP and YubiKey keys wait, unassigned",
          arguments: StoreKind.available)
    func plain(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let (summary, reports) = try Self.run(fixture, Self.file("plain.pskcxml"))
        #expect(summary.lines == 3 && summary.imported == 3 && summary.failed == 0)
        #expect(reports.map(\.serial) == ["987654321", "111222333", "283599"])
        #expect(reports.map(\.uid) == ["alice", nil, nil])
        #expect(reports.allSatisfy { $0.line > 1 })
        let alice = try fixture.context.userFactors(uid: "alice")
        #expect(alice.map(\.factorID) == ["hotp"] && alice[0].displayName == "Issuer")
        let hotp = try HOTP(secret: Self.secret)
        #expect(errorCode { try fixture.signIn("alice", enrollmentID: alice[0].uid, hotp: hotp, counter: 4) }
            == .invalidVerificationCode)
        #expect(try fixture.signIn("alice", enrollmentID: alice[0].uid, hotp: hotp, counter: 5).factorID == "hotp")
        let tokens = try fixture.context.listTokens().tokens
        #expect(tokens.map(\.serial) == ["111222333", "283599"])
        #expect(tokens.map(\.factorID) == ["totp", "yubico_otp"] && tokens[1].publicID == "ekhgjhbctrgn")
        #expect(tokens[1].issuer == "oath.UB")
        #expect(fixture.log.all.filter { $0.kind == .tokenImported }.count == 2)
        // The TOTP token: 8 digits; claimed by its user with a code.
        let multiFactor = fixture.context.multiFactor(for: fixture.user("bob"))
        let totp = try TOTP(secret: Self.secret, digits: 8)
        let info = try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
            with: multiFactor.session(), serial: "111222333", oneTimePassword: totp.code(at: fixture.clock.now())),
                                          displayName: nil)
        #expect(info.factorID == "totp")
        let (again, againReports) = try Self.run(fixture, Self.file("plain.pskcxml"))
        #expect(again.imported == 0 && again.alreadyImported == 3, "\(againReports.map(\.reason))")
    }

    @Test("pre-shared keys (AES-128 with HMAC-SHA1, AES-256 with HMAC-SHA256 and an encrypted counter) open; wrong or missing keys are named",
          arguments: StoreKind.available)
    func preShared(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let key16 = Self.preShared
        let (summary, _) = try Self.run(fixture, Self.file("psk-aes128-sha1.pskcxml"), key: .preShared(key16),
                                        ignoringUsers: true)
        #expect(summary.imported == 3)
        let assigned = try fixture.context.assignToken(serial: "987654321", uid: "carol", actor: "ops")
        #expect(try fixture.signIn("carol", enrollmentID: assigned.uid, hotp: HOTP(secret: Self.secret), counter: 5)
            .factorID == "hotp")

        let other = try AdminFixture(kind)
        let aes256 = try Self.file("psk-aes256-sha256.pskcxml")
        #expect(errorCode { try Self.run(other, aes256) } == .pskcKeyMismatch, "no key")
        #expect(errorCode { try Self.run(other, aes256, key: .preShared(key16)) } == .pskcKeyMismatch, "a key too short")
        #expect(errorCode { try Self.run(other, aes256, key: .preShared(Array(repeating: 1, count: 32))) }
            == .pskcKeyMismatch, "the wrong key")
        #expect(errorCode { try Self.run(other, aes256, key: .preShared([1, 2, 3])) } == .invalidArgument)
        #expect(errorCode { try Self.run(other, aes256, key: .password("qwerty")) } == .pskcKeyMismatch)
        #expect(try other.context.listTokens().tokens.isEmpty, "nothing stored")
        let (opened, _) = try Self.run(other, aes256, key: .preShared(key16 + key16))
        #expect(opened.imported == 3)
        let hotp = try other.context.assignToken(serial: "987654321", uid: "dan", actor: "ops")
        #expect(try other.signIn("dan", enrollmentID: hotp.uid, hotp: HOTP(secret: Self.secret), counter: 5)
            .factorID == "hotp", "the encrypted counter was read")
    }

    @Test("PBKDF2 with HMAC-SHA1 and HMAC-SHA256: the password opens the file; another does not",
          arguments: StoreKind.available)
    func pbkdf2(_ kind: StoreKind) throws {
        for name in ["pbkdf2-sha1.pskcxml", "pbkdf2-sha256.pskcxml"] {
            let fixture = try AdminFixture(kind)
            let bytes = try Self.file(name)
            #expect(errorCode { try Self.run(fixture, bytes) } == .pskcKeyMismatch)
            #expect(errorCode { try Self.run(fixture, bytes, key: .password("QWERTY")) } == .pskcKeyMismatch)
            #expect(errorCode { try Self.run(fixture, bytes, key: .password("")) } == .invalidArgument)
            let (summary, _) = try Self.run(fixture, bytes, key: .password("qwerty"))
            #expect(summary.imported == 3, "\(name)")
        }
    }

    @Test("a value whose MAC does not match fails alone; the other keys import", arguments: StoreKind.available)
    func tamperedValue(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        var text = String(decoding: try Self.file("psk-aes128-sha1.pskcxml"), as: UTF8.self)
        let mac = try #require(text.range(of: "<pskc:ValueMAC>"))
        text.replaceSubrange(mac.upperBound..<text.index(mac.upperBound, offsetBy: 4), with: "AAAA")
        let (summary, reports) = try Self.run(fixture, Array(text.utf8), key: .preShared(Self.preShared))
        #expect(summary.imported == 2 && summary.failed == 1)
        #expect(reports.first { $0.outcome == .failed }?.reason.contains("ValueMAC") == true)
    }

    @Test("XXE and billion laughs are refused before anything is read; so are bad XML and files that are not PSKC 1.0",
          arguments: StoreKind.available)
    func hostile(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        for name in ["xxe.pskcxml", "laughs.pskcxml"] {
            let error = try #require(mfaError { try Self.run(fixture, Self.file(name)) })
            #expect(error.code == .invalidPSKC && error.message.contains("DTD"), "\(name): \(error.message)")
            #expect(!error.message.contains("root:"), "nothing of /etc/passwd")
        }
        let cases: [(String, String)] = [
            ("<KeyContainer Version=\"1.0\"><KeyPackage>", "not well-formed"),
            ("<Other Version=\"1.0\"/>", "KeyContainer"),
            ("<KeyContainer Version=\"2.0\"/>", "version 1.0"),
            ("<KeyContainer Version=\"1.0\"><a b=\"&bogus;\"/></KeyContainer>", "entity"),
            ("", "empty"),
            ("<KeyContainer Version=\"1.0\"><a " + (0...64).map { "a\($0)=\"\"" }.joined(separator: " ") + "/></KeyContainer>",
             "attributes"),
        ]
        for (text, reason) in cases {
            let error = try #require(mfaError { try Self.run(fixture, Array(text.utf8)) })
            #expect(error.code == .invalidPSKC && error.message.contains(reason), "\(error.message)")
        }
        let utf16: [UInt8] = [0xFF, 0xFE] + Array("<KeyContainer/>".utf8).flatMap { [$0, 0] }
        #expect(errorCode { try Self.run(fixture, utf16) } == .invalidPSKC)
        let (empty, reports) = try Self.run(fixture, Array("<KeyContainer Version=\"1.0\"/>".utf8))
        #expect(empty.failed == 1 && reports.first?.reason.contains("no KeyPackage") == true)
        #expect(try fixture.context.listTokens().tokens.isEmpty)
    }

    @Test("keys of other algorithms, non-decimal codes, a T0 other than 0 and bad UserIds are reported, the rest imported",
          arguments: StoreKind.available)
    func unsupported(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let plain = "MTIzNDU2Nzg5MDEyMzQ1Njc4OTA="
        func package(_ algorithm: String, _ inner: String = "", serial: String = "S", user: String? = nil) -> String {
            """
            <KeyPackage><DeviceInfo><SerialNo>\(serial)</SerialNo></DeviceInfo>
            <Key Algorithm="\(algorithm)" Id="k">\(inner)
            <Data><Secret><PlainValue>\(plain)</PlainValue></Secret></Data>\(user.map { "<UserId>\($0)</UserId>" } ?? "")</Key>
            </KeyPackage>
            """
        }
        let text = """
            <KeyContainer xmlns="urn:ietf:params:xml:ns:keyprov:pskc" Version="1.0">
            \(package("urn:ietf:params:xml:ns:keyprov:pskc:ocra-1", serial: "A"))
            \(package("urn:ietf:params:xml:ns:keyprov:pskc:hotp",
                      "<AlgorithmParameters><ResponseFormat Length=\"6\" Encoding=\"HEXADECIMAL\"/></AlgorithmParameters>",
                      serial: "B"))
            \(package("urn:ietf:params:xml:ns:keyprov:pskc:hotp",
                      "<AlgorithmParameters><ResponseFormat Length=\"9\"/></AlgorithmParameters>", serial: "C"))
            \(package("urn:ietf:params:xml:ns:keyprov:pskc:hotp", serial: "D", user: String(repeating: "u", count: 129)))
            \(package("http://www.yubico.com/#yubikey-aes", serial: "E"))
            \(package("urn:ietf:params:xml:ns:keyprov:pskc:hotp",
                      "<AlgorithmParameters><Suite>HMAC-SHA256</Suite></AlgorithmParameters>", serial: "F", user: "gil"))
            </KeyContainer>
            """
        let (summary, reports) = try Self.run(fixture, Array(text.utf8))
        #expect(reports.map(\.outcome) == [.unsupported, .unsupported, .failed, .failed, .failed, .imported])
        #expect(summary.imported == 1 && summary.unsupported == 2 && summary.failed == 3)
        let gil = try fixture.context.userFactors(uid: "gil")[0]
        #expect(try fixture.signIn("gil", enrollmentID: gil.uid, hotp: HOTP(secret: Self.secret, algorithm: .sha256),
                                   counter: 0).factorID == "hotp")
    }
}

/// The error a call throws, if any.
func mfaError<T>(_ body: () throws -> T) -> MFAError? {
    do {
        _ = try body()
        return nil
    } catch let error as MFAError {
        return error
    } catch {
        return MFAError(.internal, "\(error)")
    }
}
