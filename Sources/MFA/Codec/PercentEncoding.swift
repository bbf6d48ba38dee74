/// Percent-encoding (RFC 3986) for the parts of an otpauth URI.
enum PercentEncoding {
    private static let hex = Array("0123456789ABCDEF".utf8)

    /// Encodes every byte of `text`'s UTF-8 except the unreserved characters
    /// `A–Z a–z 0–9 - . _ ~`; a space becomes `%20`, a colon `%3A`.
    static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0f)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `%XX` escapes (and, when `plusIsSpace`, `+` as a space, as in a
    /// query string) and checks that the result is UTF-8.
    /// - Returns: nil for a malformed escape, bytes that are not UTF-8, or a
    ///   NUL (escaped or not: no label or parameter holds one, and it would
    ///   cut the text short on its way through the C ABI).
    static func decode(_ text: Substring, plusIsSpace: Bool) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue),
                      let low = iterator.next().flatMap(hexValue) else { return nil }
                out.append(high << 4 | low)
            case 0:
                return nil
            case UInt8(ascii: "+") where plusIsSpace:
                out.append(UInt8(ascii: " "))
            default:
                out.append(byte)
            }
        }
        guard !out.contains(0) else { return nil }
        return String(validating: out, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
