import MFA
import Testing

@Suite("RFC known-answer vectors")
struct OTPVectorTests {
    @Test("the shared vector file is read")
    func vectorsLoaded() {
        #expect(Vector.all.count == 35)
    }

    @Test("RFC 4226 appendix D")
    func hotp() throws {
        for case let .hotp(algorithm, key, counter, digits, code) in Vector.all {
            let hotp = try HOTP(secret: key, digits: digits, algorithm: algorithm)
            #expect(hotp.code(counter: counter) == code)
            #expect(try hotp.verify(code, counter: counter) == counter)
        }
    }

    @Test("RFC 6238 appendix B, SHA1, SHA256 and SHA512")
    func totp() throws {
        for case let .totp(algorithm, key, time, digits, code) in Vector.all {
            let totp = try TOTP(secret: key, algorithm: algorithm, digits: digits)
            #expect(try totp.code(at: time) == code)
            #expect(try totp.verify(code, at: time, window: 0) == time / 30)
        }
    }

    @Test("RFC 4648 base32")
    func base32() throws {
        for case let .base32(plain, encoded) in Vector.all {
            #expect(Base32.encode(plain) == encoded)
            #expect(try Base32.decode(encoded) == plain)
            let bare = String(encoded.filter { $0 != "=" })
            #expect(Base32.encode(plain, padding: false) == bare)
            #expect(try Base32.decode(bare.lowercased()) == plain)
        }
    }
}
