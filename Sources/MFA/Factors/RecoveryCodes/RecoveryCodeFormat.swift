/// How recovery codes look: ten characters of a lowercase alphabet with no
/// look-alikes (Crockford's base32: no i, l, o or u), 5 bits each, so 50
/// bits per code, written `xxxx-xxxx-xx` for reading aloud.
///
/// What a user types is read forgivingly: any case, dashes and spaces
/// ignored, and the look-alikes read as what they look like (o as 0, i and
/// l as 1).
public enum RecoveryCodeFormat {
    /// The 32 characters codes are made of.
    public static let alphabet = Array("0123456789abcdefghjkmnpqrstvwxyz".utf8)
    /// Characters per code.
    public static let length = 10
    /// Digits of an imported code (the scratch codes of google-authenticator
    /// files), accepted beside generated ones.
    public static let importedLength = 8

    /// A code from 10 random 5-bit values (the low 5 bits of each byte).
    static func code(from random: [UInt8]) -> String {
        let characters = random.prefix(length).map { alphabet[Int($0 & 31)] }
        let grouped = characters[0..<4] + [UInt8(ascii: "-")] + characters[4..<8] + [UInt8(ascii: "-")]
            + characters[8..<10]
        return String(decoding: grouped, as: UTF8.self)
    }

    /// The canonical form of what a user typed (10 alphabet characters, or
    /// the 8 digits of an imported code), or nil if it cannot be a code.
    public static func normalize(_ typed: String) -> String? {
        guard typed.utf8.count <= 64 else { return nil }
        var out: [UInt8] = []
        for byte in typed.utf8 {
            switch byte {
            case UInt8(ascii: "-"), UInt8(ascii: " "): continue
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): out.append(read(byte + 32))
            default: out.append(read(byte))
            }
        }
        if out.count == importedLength, out.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return String(decoding: out, as: UTF8.self)
        }
        guard out.count == length, out.allSatisfy(alphabet.contains) else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    private static func read(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "o"): UInt8(ascii: "0")
        case UInt8(ascii: "i"), UInt8(ascii: "l"): UInt8(ascii: "1")
        default: byte
        }
    }
}
