/// A value bound to or read from a SQL statement.
package enum SQLValue: Sendable, Equatable {
    /// SQL NULL.
    case null
    /// A 64-bit integer.
    case int(Int64)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])

    /// The integer, or nil.
    package var int: Int64? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The text, or nil.
    package var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The bytes, or nil.
    package var blob: [UInt8]? {
        if case .blob(let value) = self { return value }
        return nil
    }
}

/// One result row.
package typealias SQLRow = [SQLValue]
