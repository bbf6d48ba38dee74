import MFA
import Testing

/// The table-driven base64url codec of tokens and ids.
@Suite("Base64URL")
struct Base64URLTests {
    @Test("RFC 4648 vectors, in the URL-safe alphabet without padding")
    func vectors() {
        let cases = [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
                     ("foobar", "Zm9vYmFy")]
        for (plain, encoded) in cases {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xfb, 0xff, 0xbf])
    }

    @Test("every length from 0 to 100 bytes round-trips")
    func roundTrip() {
        var state: UInt32 = 7
        for length in 0...100 {
            let bytes = (0..<length).map { _ -> UInt8 in
                state = state &* 1_103_515_245 &+ 12345
                return UInt8(truncatingIfNeeded: state >> 16)
            }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }

    @Test("padding, other alphabets, a lone digit and stray low bits are refused")
    func strict() {
        for bad in ["Zg==", "Zm9v+", "Zm9v/", "Z", "Zm9vY", "Zh", "Zm9", "Zm9vYmG", "Zm 9v", "Zm9v\n", "Zé9v"] {
            #expect(Base64URL.decode(bad) == nil, "\(bad)")
        }
    }
}
