import MFA
import Testing

@Suite("Base32")
struct Base32Tests {
    @Test("characters outside the alphabet are rejected with their position")
    func badCharacters() {
        for (text, position) in [("MZXW6Y1B", 6), ("MZXW 6YTB", 4), ("MZXW-6YT", 4), ("ÄZXW6YTB", 0), ("MZ0W6YTB", 2)] {
            #expect(throws: MFAError(.invalidBase32,
                                     "character at position \(position) is not in the base32 alphabet")) {
                try Base32.decode(text)
            }
        }
    }

    @Test("malformed padding and impossible lengths are rejected")
    func badShapes() {
        for text in ["M", "MZX", "MZXW6Y", "MY=", "MY=====", "MY=======", "M=Y=====", "MZXW6YTB="] {
            #expect(throws: MFAError.self) { try Base32.decode(text) }
        }
    }

    @Test("round trips random bytes of every length")
    func roundTrip() throws {
        for length in 0...64 {
            let bytes = try SecureRandom.bytes(length)
            #expect(try Base32.decode(Base32.encode(bytes)) == bytes)
            #expect(try Base32.decode(Base32.encode(bytes, padding: false).lowercased()) == bytes)
        }
    }
}
