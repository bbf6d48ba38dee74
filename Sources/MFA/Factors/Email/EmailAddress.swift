/// Email addresses as libmfa takes them: `local@domain`, printable ASCII.
///
/// The local part is 1 to 64 bytes of letters, digits and the other
/// characters of RFC 5322's `atext` (`+`, `-`, `_`, `!`, `#`, `$`, `%`, `&`,
/// `'`, `*`, `/`, `=`, `?`, `^`, a backtick, `{`, `|`, `}`, `~`), in
/// dot-separated runs (no leading, trailing or double dot); the domain is two or more labels of letters, digits and
/// hyphens (1 to 63 bytes each, no hyphen at either end), the last not all
/// digits; the whole is at most 254 bytes. No display name, comment, quoted
/// local part, IP literal or Unicode: a host normalises what its users type
/// (an internationalised domain in its `xn--` form) before handing an
/// address to libmfa. The domain is kept in lower case; two addresses that
/// differ only in case are one address to libmfa.
public enum EmailAddress {
    /// The longest address accepted, in bytes.
    public static let maxBytes = 254

    /// Whether `text` is an address libmfa accepts.
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3, bytes.count <= maxBytes, let at = bytes.lastIndex(of: UInt8(ascii: "@")) else {
            return false
        }
        return isLocalPart(bytes[..<at]) && isDomain(bytes[(at + 1)...])
    }

    /// Throws `invalidEmail` unless `text` is an address libmfa accepts.
    public static func check(_ text: String) throws(MFAError) {
        guard isValid(text) else {
            throw MFAError(.invalidEmail, "email addresses must be local@domain in ASCII, at most 254 bytes")
        }
    }

    /// The address as libmfa stores it: the domain in lower case.
    public static func normalized(_ text: String) -> String {
        guard let at = text.utf8.lastIndex(of: UInt8(ascii: "@")) else { return text }
        return String(text[..<at]) + "@" + String(text[text.utf8.index(after: at)...]).lowercased()
    }

    /// The address as libmfa compares it (duplicates, sending budgets): all in lower case.
    static func comparable(_ text: String) -> String { text.lowercased() }

    /// The address as shown in sign-in hints: the first character of the
    /// local part and of the domain, one star per hidden character, and the
    /// last label of the domain (`jane@example.com` becomes `j***@e******.com`).
    /// The lengths stay visible; nothing else does.
    public static func masked(_ address: String) -> String {
        let bytes = Array(address.utf8)
        guard let at = bytes.lastIndex(of: UInt8(ascii: "@")) else { return String(repeating: "*", count: bytes.count) }
        let local = bytes[..<at]
        let domain = bytes[(at + 1)...]
        let dot = domain.lastIndex(of: UInt8(ascii: ".")) ?? domain.endIndex
        let head = domain[..<dot]
        return hideAllButFirst(local) + "@" + hideAllButFirst(head) + String(decoding: domain[dot...], as: UTF8.self)
    }

    /// The first byte of `part` and a star for each other one (all stars when it has one byte).
    private static func hideAllButFirst(_ part: ArraySlice<UInt8>) -> String {
        guard part.count > 1, let first = part.first else { return String(repeating: "*", count: part.count) }
        return String(decoding: [first], as: UTF8.self) + String(repeating: "*", count: part.count - 1)
    }

    private static func isLocalPart(_ part: ArraySlice<UInt8>) -> Bool {
        guard !part.isEmpty, part.count <= 64 else { return false }
        var previousDot = true  // no leading dot
        for byte in part {
            if byte == UInt8(ascii: ".") {
                if previousDot { return false }
                previousDot = true
            } else {
                guard isAtomText(byte) else { return false }
                previousDot = false
            }
        }
        return !previousDot
    }

    private static func isDomain(_ part: ArraySlice<UInt8>) -> Bool {
        let labels = part.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2, let last = labels.last,
              !last.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        return labels.allSatisfy { label in
            guard let first = label.first, let end = label.last, label.count <= 63,
                  first != UInt8(ascii: "-"), end != UInt8(ascii: "-") else { return false }
            return label.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") }
        }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
    }

    /// RFC 5322's atext.
    private static func isAtomText(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || "!#$%&'*+/=?^_`{|}~-".utf8.contains(byte)
    }
}
