/// Reads CSV records as RFC 4180 writes them (and spreadsheets save them):
/// fields separated by commas, records by line breaks (CR LF, LF or a lone
/// CR); a field that starts with `"` is quoted, and holds commas, line
/// breaks and doubled quotes (`""` for one `"`) until its closing quote.
///
/// Beyond the RFC: spaces and tabs around a field are dropped (before an
/// opening quote too), text after a closing quote is kept, a quote inside an
/// unquoted field is a plain character, and a line whose first character
/// (after blanks) is `#` is a comment, read to its end whatever it holds.
/// A record whose quote is never closed runs to the end of the text: it is
/// one bad record, reported on the line where it starts.
///
/// Linear in the text: each byte is read once, and a field's bytes are
/// copied once.
struct CSVReader {
    /// One record.
    struct Record {
        /// What the record is.
        enum Kind {
            /// Its fields (at least one).
            case fields([String])
            /// A blank line or a comment.
            case skip
            /// A quoted field is not closed (the record ran to the end of the text).
            case unclosedQuote
        }

        /// The line it starts on, from 1.
        var line: Int
        /// The line it ends on (a quoted line break makes a record span lines).
        var lastLine: Int
        var kind: Kind
    }

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1

    init(_ text: Substring) {
        bytes = Array(text.utf8)
    }

    /// Whether every record has been read.
    var atEnd: Bool { index >= bytes.count }

    private static let quote = UInt8(ascii: "\"")
    private static let comma = UInt8(ascii: ",")
    private static let cr: UInt8 = 0x0D
    private static let lf: UInt8 = 0x0A

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
    private static func isBreak(_ byte: UInt8) -> Bool { byte == cr || byte == lf }

    /// Steps over the line break at `index` (CR LF counts as one) and counts it.
    private mutating func takeBreak() {
        if bytes[index] == Self.cr, index + 1 < bytes.count, bytes[index + 1] == Self.lf { index += 1 }
        index += 1
        line += 1
    }

    /// The next record, or nil after the last.
    mutating func next() -> Record? {
        guard index < bytes.count else { return nil }
        let first = line
        var start = index
        while start < bytes.count, Self.isBlank(bytes[start]) { start += 1 }
        if start == bytes.count || Self.isBreak(bytes[start]) || bytes[start] == UInt8(ascii: "#") {
            index = start
            while index < bytes.count, !Self.isBreak(bytes[index]) { index += 1 }
            if index < bytes.count { takeBreak() }
            return Record(line: first, lastLine: first, kind: .skip)
        }
        var fields: [String] = []
        while true {
            guard let field = readField() else {
                // A final line break ends the last line; it starts none.
                let last = bytes.last.map(Self.isBreak) == true ? line - 1 : line
                return Record(line: first, lastLine: max(first, last), kind: .unclosedQuote)
            }
            fields.append(field)
            if index < bytes.count, bytes[index] == Self.comma {
                index += 1
                continue
            }
            let last = line
            if index < bytes.count { takeBreak() }
            return Record(line: first, lastLine: last, kind: .fields(fields))
        }
    }

    /// Reads one field up to (not over) the comma or line break after it, or
    /// to the end; nil if its quote is not closed.
    private mutating func readField() -> String? {
        var value: [UInt8] = []
        while index < bytes.count, Self.isBlank(bytes[index]) { index += 1 }
        if index < bytes.count, bytes[index] == Self.quote {
            index += 1
            while true {
                guard index < bytes.count else { return nil }
                let byte = bytes[index]
                if byte == Self.quote {
                    if index + 1 < bytes.count, bytes[index + 1] == Self.quote {
                        value.append(Self.quote)
                        index += 2
                        continue
                    }
                    index += 1
                    break
                }
                if byte == Self.lf || (byte == Self.cr && !(index + 1 < bytes.count && bytes[index + 1] == Self.lf)) {
                    line += 1
                }
                value.append(byte)
                index += 1
            }
        }
        while index < bytes.count, bytes[index] != Self.comma, !Self.isBreak(bytes[index]) {
            value.append(bytes[index])
            index += 1
        }
        var end = value.count
        while end > 0, Self.isBlank(value[end - 1]) { end -= 1 }
        return String(decoding: value[..<end], as: UTF8.self)
    }
}
