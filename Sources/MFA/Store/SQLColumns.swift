/// The columns of one result row, read where they are: a row a backend is
/// on (`SQLConnection.scan`), or a row `query` returned. Indexes count from
/// the row's (or slice's) first column.
package protocol SQLColumns {
    /// How many columns the row has.
    var count: Int { get }
    /// The column as `query` returns it.
    func value(_ index: Int) -> SQLValue
    /// The column if it is an integer (nil for NULL or another type).
    func int(_ index: Int) -> Int64?
    /// The column if it is text.
    func text(_ index: Int) -> String?
    /// The column if it is bytes.
    func blob(_ index: Int) -> [UInt8]?
    /// Whether the column is NULL.
    func isNull(_ index: Int) -> Bool
}

extension SQLColumns {
    /// The column if it is an integer, from `value`.
    package func int(_ index: Int) -> Int64? { value(index).int }
    /// The column if it is text, from `value`.
    package func text(_ index: Int) -> String? { value(index).text }
    /// The column if it is bytes, from `value`.
    package func blob(_ index: Int) -> [UInt8]? { value(index).blob }
    /// Whether the column is NULL, from `value`.
    package func isNull(_ index: Int) -> Bool { value(index) == .null }

    /// The columns from `start` to the end, as values.
    package func values(from start: Int) -> [SQLValue] {
        var out: [SQLValue] = []
        out.reserveCapacity(max(count - start, 0))
        var index = start
        while index < count {
            out.append(value(index))
            index += 1
        }
        return out
    }
}

/// A part of a row `query` returned, indexed from the part's first column.
extension ArraySlice: SQLColumns where Element == SQLValue {
    /// The value `index` columns after the slice's first.
    package func value(_ index: Int) -> SQLValue { self[startIndex + index] }
}

/// A row `query` returned.
extension Array: SQLColumns where Element == SQLValue {
    /// The value at `index`.
    package func value(_ index: Int) -> SQLValue { self[index] }
}

extension SQLConnection {
    /// Runs a query and hands each row to `body` as it is read. This
    /// default reads the rows with `query` first; a backend that can read
    /// a row in place (SQLite) does so instead.
    package func scan(_ sql: String, _ parameters: [SQLValue],
                      _ body: (any SQLColumns) throws(MFAError) -> Void) throws(MFAError) {
        for row in try query(sql, parameters) { try body(row) }
    }
}
