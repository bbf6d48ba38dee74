import MFA
import Testing

/// YubiKeys (Yubico OTP) checked locally: the OTP's format, then the factor:
/// counters must rise, on every server sharing the store.
@Suite("Yubico OTP")
struct YubicoOTPTests {
    @Test("python-yubiotp's documented OTP decrypts with its key: private id, counters, timestamp")
    func knownAnswer() throws {
        let key = Array("0123456789abcdef".utf8)
        let typed = try #require(YubicoOTP.read("cclngiuvttkhthcilurtkerbjnnkljfkjccklkhl"))
        #expect(typed.publicID == "cclngiuv")
        let fields = try #require(key.withUnsafeBytes { YubicoOTP.open(typed.block, key: $0) })
        #expect(fields.privateID == [0x01, 0x23, 0x45, 0x67, 0x89, 0xab])
        #expect(fields.useCounter == 5 && fields.sessionCounter == 0 && fields.timestamp == 0x0153f8)
        #expect(fields.counter == 5 << 8)
        #expect(YubicoOTP.read("CCLNGIUVTTKHTHCILURTKERBJNNKLJFKJCCKLKHL") == typed, "caps lock")
        var wrong = key
        wrong[0] ^= 1
        #expect(wrong.withUnsafeBytes { YubicoOTP.open(typed.block, key: $0) } == nil, "another key fails the CRC")
    }

    @Test("the CRC of ISO 13239 as the YubiKey computes it (python-yubiotp's vectors)")
    func crc() {
        let block: [UInt8] = [0x87, 0x92, 0xeb, 0xfe, 0x26, 0xcc, 0x13, 0x00, 0x30, 0xc2, 0x00, 0x11, 0xc8, 0x9f]
        #expect(~YubicoOTP.crc16(block) == 0xc823)
        #expect(YubicoOTP.crc16(block + [0x23, 0xc8]) == 0xf0b8)
    }

    @Test("what is not an OTP: length, odd, outside modhex")
    func shapes() {
        #expect(!YubicoOTP.hasShape(String(repeating: "c", count: 30)))
        #expect(!YubicoOTP.hasShape(String(repeating: "c", count: 45)))
        #expect(!YubicoOTP.hasShape(String(repeating: "c", count: 66)))
        #expect(!YubicoOTP.hasShape(String(repeating: "c", count: 42) + "aa"), "a is not modhex")
        #expect(!YubicoOTP.hasShape(String(repeating: "c", count: 42) + "{}"))
        #expect(YubicoOTP.hasShape(String(repeating: "c", count: 32)) && YubicoOTP.hasShape(String(repeating: "v", count: 64)))
        #expect(YubicoOTPMultiFactorGenerator.isOTP(String(repeating: "b", count: 44)))
    }

    static func signIn(_ fixture: AdminFixture, _ otp: String, enrollmentID: String? = nil) throws -> SignInResult {
        try fixture.resolver(fixture.user("bob")).resolveSignIn(with: YubicoOTPMultiFactorGenerator.assertionForSignIn(
            otp: otp, enrollmentID: enrollmentID))
    }

    @Test("touches sign in; a replayed or an older OTP is refused; the session counter's wrap and a replug go on",
          arguments: StoreKind.available)
    func counters(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let key = YubiKeySimulator(useCounter: 3)
        let info = try #require(try fixture.context.importToken(key.seed, for: fixture.user("bob"), actor: "ops"))
        #expect(info.factorID == "yubico_otp" && info.hint == "YubiKey")
        let first = key.touch()
        let second = key.touch()
        #expect(try Self.signIn(fixture, second).enrollmentID == info.uid)
        #expect(errorCode { try Self.signIn(fixture, second) } == .invalidVerificationCode, "replayed")
        #expect(errorCode { try Self.signIn(fixture, first) } == .invalidVerificationCode, "older, arrived late")
        key.sessionCounter = 0xff
        let last = key.touch()
        #expect(key.useCounter == 4 && key.sessionCounter == 0)
        #expect(try Self.signIn(fixture, last, enrollmentID: info.uid).factorID == "yubico_otp")
        #expect(try Self.signIn(fixture, key.touch()).factorID == "yubico_otp", "after the wrap")
        key.replug()
        #expect(try Self.signIn(fixture, key.touch()).factorID == "yubico_otp", "after a power cycle")
    }

    @Test("another key's block, another private id, another key's public id, garbage: refused as wrong OTPs",
          arguments: StoreKind.available)
    func wrong(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let key = YubiKeySimulator()
        let other = YubiKeySimulator()
        let info = try #require(try fixture.context.importToken(key.seed, for: fixture.user("bob"), actor: "ops"))
        #expect(errorCode { try Self.signIn(fixture, key.otp(use: 9, session: 1, key: other.key)) }
            == .invalidVerificationCode)
        #expect(errorCode { try Self.signIn(fixture, key.otp(use: 9, session: 1, privateID: other.privateID)) }
            == .invalidVerificationCode)
        // A key the user does not have: a wrong OTP for theirs, counted like one.
        #expect(errorCode { try Self.signIn(fixture, other.touch()) } == .invalidVerificationCode)
        #expect(errorCode { try Self.signIn(fixture, other.touch(), enrollmentID: info.uid) } == .invalidVerificationCode)
        #expect(errorCode { try Self.signIn(fixture, "not an otp") } == .invalidVerificationCode)
        #expect(errorCode { try Self.signIn(fixture, "123456", enrollmentID: info.uid) } == .invalidVerificationCode)
        #expect(try Self.signIn(fixture, key.touch()).factorID == "yubico_otp", "the key still works")
    }

    @Test("a YubiKey imported unassigned is claimed with a touch; the touch cannot sign in after",
          arguments: StoreKind.available)
    func claim(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let key = YubiKeySimulator()
        try fixture.context.importToken(key.seed, for: nil, actor: "ops")
        #expect(errorCode { try fixture.context.importToken(key.seed, for: fixture.user("eve"), actor: "ops") }
            == .secondFactorExists, "the same key twice")
        let multiFactor = fixture.context.multiFactor(for: fixture.user("bob"))
        let touch = key.touch()
        #expect(errorCode { try multiFactor.enroll(with: YubicoOTPMultiFactorGenerator.assertionForEnrollment(
            with: multiFactor.session(), otp: YubiKeySimulator().touch()), displayName: nil) } == .tokenNotFound)
        let info = try multiFactor.enroll(with: YubicoOTPMultiFactorGenerator.assertionForEnrollment(
            with: multiFactor.session(), otp: touch), displayName: "keychain")
        #expect(info.displayName == "keychain")
        #expect(errorCode { try Self.signIn(fixture, touch) } == .invalidVerificationCode)
        #expect(try Self.signIn(fixture, key.touch()).factorID == "yubico_otp")
    }
}
