import Glibc

/// Reads the values of a libpq result (text format) as `SQLValue`s.
enum PostgresValue {
    /// The value at `row`, `column` of `result`: integers and booleans as
    /// `.int`, bytea as `.blob`, everything else as `.text`.
    static func decode(_ pq: LibPQ, _ result: OpaquePointer, _ row: Int32, _ column: Int32) -> SQLValue {
        guard pq.getisnull(result, row, column) == 0, let raw = pq.getvalue(result, row, column) else { return .null }
        switch pq.ftype(result, column) {
        case 20, 21, 23, 1700:
            if let number = integer(raw) { return .int(number) }
            return .text(String(cString: raw))
        case 16: return .int(raw[0] == CChar(UInt8(ascii: "t")) ? 1 : 0)
        case 17: return .blob(hexBytes(raw))
        default: return .text(String(cString: raw))
        }
    }

    /// A decimal integer in C text (`-`, then digits), or nil if it is not one or does not fit.
    private static func integer(_ raw: UnsafePointer<CChar>) -> Int64? {
        var index = 0
        let negative = raw[0] == CChar(UInt8(ascii: "-"))
        if negative { index = 1 }
        var value: Int64 = 0
        repeat {
            let digit = Int64(raw[index]) - Int64(UInt8(ascii: "0"))
            guard digit >= 0, digit <= 9 else { return nil }
            let (scaled, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? scaled.subtractingReportingOverflow(digit)
                : scaled.addingReportingOverflow(digit)
            guard !overflow, !overflow2 else { return nil }
            value = next
            index += 1
        } while raw[index] != 0
        return value
    }

    /// Decodes bytea's text form, `\x0a1b...`.
    private static func hexBytes(_ raw: UnsafePointer<CChar>) -> [UInt8] {
        let count = strlen(raw)
        guard count >= 2 else { return [] }
        let pairs = (count - 2) / 2
        return raw.withMemoryRebound(to: UInt8.self, capacity: count) { digits in
            [UInt8](unsafeUninitializedCapacity: pairs) { out, initialized in
                for index in 0..<pairs {
                    out[index] = nibble(digits[2 + 2 * index]) << 4 | nibble(digits[3 + 2 * index])
                }
                initialized = pairs
            }
        }
    }

    private static func nibble(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: byte &- UInt8(ascii: "A") &+ 10
        }
    }
}
