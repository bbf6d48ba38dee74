/// Small text helpers for the importers: the file's body, its lines, fields.
///
/// Every importer reads a file the same way: a leading UTF-8 byte order mark
/// (which Windows tools write, Excel's "CSV UTF-8" among them) is skipped,
/// and a line ends at LF, at CR LF or at a lone CR (old Mac files). A final
/// line break ends the last line; it starts none. Swift's `"\r\n"` is one
/// `Character`, so the split is made on the UTF-8 bytes, where CR and LF
/// are always boundaries of a character.
enum ImportText {
    /// `text` without a leading byte order mark (U+FEFF, bytes EF BB BF).
    static func body(_ text: String) -> Substring {
        let utf8 = text.utf8
        guard utf8.starts(with: [0xEF, 0xBB, 0xBF]) else { return text[...] }
        return text[utf8.index(utf8.startIndex, offsetBy: 3)...]
    }

    /// The number of lines of `text` (a line break ends a line; text after the
    /// last one is a line too).
    static func lineCount(_ text: Substring) -> Int {
        var cursor = LineCursor(text)
        var count = 0
        while cursor.next() != nil { count += 1 }
        return count
    }

    /// `text` without surrounding spaces and tabs.
    static func trimmed(_ text: Substring) -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !blank($0) }),
              let last = text.lastIndex(where: { !blank($0) }) else { return "" }
        return text[first...last]
    }

    /// The whitespace-separated fields of a line.
    static func fields(_ text: Substring) -> [Substring] {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" })
    }

    /// Bytes from hexadecimal text, or nil.
    static func hex(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Reads the lines of a text one at a time, without their line breaks
/// (LF, CR LF or CR). Linear: each byte is read once.
struct LineCursor {
    private let text: Substring
    private var position: String.Index

    init(_ text: Substring) {
        self.text = text
        position = text.startIndex
    }

    /// Whether every line has been read.
    var atEnd: Bool { position >= text.endIndex }

    /// The next line, or nil after the last.
    mutating func next() -> Substring? {
        let utf8 = text.utf8
        guard position < utf8.endIndex else { return nil }
        var index = position
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == 0x0A || byte == 0x0D {
                let line = text[position..<index]
                index = utf8.index(after: index)
                if byte == 0x0D, index < utf8.endIndex, utf8[index] == 0x0A { index = utf8.index(after: index) }
                position = index
                return line
            }
            index = utf8.index(after: index)
        }
        let line = text[position..<utf8.endIndex]
        position = utf8.endIndex
        return line
    }
}
