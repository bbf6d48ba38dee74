/// What a uid, a tenant, a display name or an actor may not hold: characters
/// that end a C string, break a line of a log or a listing, or reorder the
/// text a person reads.
///
/// Refused: NUL and the other C0 controls (U+0000 to U+001F), DEL (U+007F),
/// the C1 controls (U+0080 to U+009F), the line and paragraph separators
/// (U+2028, U+2029), and the bidirectional embeddings, overrides and
/// isolates (U+202A to U+202E, U+2066 to U+2069), and the byte order mark
/// (U+FEFF, invisible: a file joined from files that each start with one
/// holds it at the start of a line). Everything else is text (the
/// left-to-right and right-to-left marks, joiners and emoji included).
package enum IdentifierText {
    /// Whether `text` holds a refused character. Reads the UTF-8 bytes once:
    /// a refused character is either a byte below 0x20 or 0x7F, or one of
    /// the two- and three-byte sequences C2 80-9F, E2 80 A8-AE, E2 81 A6-A9,
    /// EF BB BF.
    package static func hasControlCharacter(_ text: some StringProtocol) -> Bool {
        var previous: UInt8 = 0
        var beforePrevious: UInt8 = 0
        for byte in text.utf8 {
            if byte < 0x20 || byte == 0x7F { return true }
            if previous == 0xC2 && (0x80...0x9F).contains(byte) { return true }
            if beforePrevious == 0xE2 {
                if previous == 0x80 && (0xA8...0xAE).contains(byte) { return true }
                if previous == 0x81 && (0xA6...0xA9).contains(byte) { return true }
            }
            if beforePrevious == 0xEF && previous == 0xBB && byte == 0xBF { return true }
            beforePrevious = previous
            previous = byte
        }
        return false
    }

    /// The refused characters, in words, for messages.
    package static let refused = "C0 or C1, DEL, a line or paragraph separator, a bidirectional override or a byte order mark"

    /// Throws `invalidArgument` naming `field` if `text` holds a refused character.
    package static func check(_ text: some StringProtocol, _ field: String) throws(MFAError) {
        if hasControlCharacter(text) {
            throw MFAError(.invalidArgument,
                           "\(field) holds a control character (\(Self.refused))")
        }
    }
}
