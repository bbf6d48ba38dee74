import MFA
import Testing

@Suite("TOTP and HOTP behaviour")
struct TOTPTests {
    let secret = Array("12345678901234567890".utf8)

    @Test("verification accepts ±window steps and says which matched")
    func windowMatches() throws {
        let totp = try TOTP(secret: secret)
        let now: Int64 = 1_700_000_000
        let step = now / 30
        for offset in -5...5 {
            let code = try totp.code(at: now + Int64(offset) * 30)
            #expect(try totp.verify(code, at: now, window: 5) == step + Int64(offset))
        }
        let outside = try totp.code(at: now + 6 * 30)
        #expect(try totp.verify(outside, at: now, window: 5) == nil)
        let previous = try totp.code(at: now - 30)
        #expect(try totp.verify(previous, at: now, window: 0) == nil)
    }

    @Test("a step at or before the last accepted one is refused")
    func afterRefusesReplay() throws {
        let totp = try TOTP(secret: secret)
        let now: Int64 = 1_700_000_000
        let code = try totp.code(at: now)
        let step = try #require(try totp.verify(code, at: now, window: 1))
        #expect(try totp.verify(code, at: now, window: 1, after: step) == nil)
        #expect(try totp.verify(code, at: now, window: 1, after: step - 1) == step)
    }

    @Test("wrong and malformed codes do not match")
    func malformedCodes() throws {
        let totp = try TOTP(secret: secret)
        for code in ["", "12345", "1234567", "12a456", " 12345", "１２３４５６", "-12345"] {
            #expect(try totp.verify(code, at: 59, window: 10) == nil)
        }
    }

    @Test("parameters out of range are named errors")
    func badParameters() throws {
        for digits in [0, 5, 9, -1] {
            #expect(throws: MFAError(.invalidArgument, "digits must be 6 to 8")) {
                try TOTP(secret: secret, digits: digits)
            }
        }
        #expect(throws: MFAError.self) { try TOTP(secret: secret, period: 0) }
        #expect(throws: MFAError.self) { try TOTP(secret: [], period: 30) }
        #expect(throws: MFAError.self) { try HOTP(secret: secret, digits: 9) }
        let totp = try TOTP(secret: secret)
        #expect(throws: MFAError(.invalidArgument, "window must be 0 to 10")) {
            try totp.verify("123456", at: 59, window: 11)
        }
        #expect(throws: MFAError.self) { try totp.verify("123456", at: 59, window: -1) }
        let late = try TOTP(secret: secret, t0: 100)
        #expect(throws: MFAError.self) { try late.code(at: 99) }
        #expect(try late.step(at: 100) == 0)
    }

    @Test("T0 and long periods shift the steps")
    func t0AndPeriod() throws {
        let shifted = try TOTP(secret: secret, digits: 8, period: 60, t0: 1000)
        let plain = try HOTP(secret: secret, digits: 8)
        #expect(try shifted.code(at: 1000 + 60 * 7 + 59) == plain.code(counter: 7))
    }

    @Test("HOTP look-ahead finds the counter")
    func hotpLookAhead() throws {
        let hotp = try HOTP(secret: secret)
        #expect(try hotp.verify("162583", counter: 3, lookAhead: 4) == 7)
        #expect(try hotp.verify("162583", counter: 3, lookAhead: 3) == nil)
        #expect(try hotp.verify(hotp.code(counter: .max), counter: .max, lookAhead: 10) == .max)
    }

    @Test("random secrets have the asked length and differ")
    func randomSecrets() throws {
        #expect(try SecureRandom.secret().count == 20)
        #expect(try SecureRandom.secret(bytes: 64).count == 64)
        #expect(try SecureRandom.secret() != SecureRandom.secret())
        #expect(throws: MFAError.self) { try SecureRandom.secret(bytes: 15) }
        #expect(throws: MFAError.self) { try SecureRandom.secret(bytes: 129) }
    }
}
