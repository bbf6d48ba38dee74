/// Reads the values of a libpq result (text format) as `SQLValue`s.
enum PostgresValue {
    /// The value at `row`, `column` of `result`: integers and booleans as
    /// `.int`, bytea as `.blob`, everything else as `.text`.
    static func decode(_ pq: LibPQ, _ result: OpaquePointer, _ row: Int32, _ column: Int32) -> SQLValue {
        guard pq.getisnull(result, row, column) == 0, let raw = pq.getvalue(result, row, column) else { return .null }
        let text = String(cString: raw)
        switch pq.ftype(result, column) {
        case 20, 21, 23, 1700: return Int64(text).map(SQLValue.int) ?? .text(text)
        case 16: return .int(text == "t" ? 1 : 0)
        case 17: return .blob(hexBytes(text))
        default: return .text(text)
        }
    }

    /// Decodes bytea's text form, `\x0a1b...`.
    private static func hexBytes(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8.dropFirst(2))
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index + 1 < digits.count {
            out.append(nibble(digits[index]) << 4 | nibble(digits[index + 1]))
            index += 2
        }
        return out
    }

    private static func nibble(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: byte &- UInt8(ascii: "A") &+ 10
        }
    }
}
