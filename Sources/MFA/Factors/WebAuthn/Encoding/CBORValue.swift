/// A CBOR data item (RFC 8949) of the kinds WebAuthn uses: integers, byte
/// and text strings, arrays, maps, booleans and null.
///
/// Floats, tags, undefined and indefinite lengths never occur in WebAuthn
/// structures (CTAP2 forbids them), so the decoder refuses them.
package enum CBORValue: Sendable, Hashable {
    /// An unsigned integer.
    case unsigned(UInt64)
    /// A negative integer: the value is -1 - n.
    case negative(UInt64)
    /// A byte string.
    case bytes([UInt8])
    /// A text string (valid UTF-8).
    case text(String)
    /// An array.
    case array([CBORValue])
    /// A map, its pairs in the order they were encoded (keys unique).
    case map([CBORPair])
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// The value as a signed integer, when it is an integer that fits.
    package var int: Int64? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: nil
        }
    }

    /// The bytes of a byte string.
    package var bytes: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    /// The text of a text string.
    package var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The value under `key` when this is a map.
    package subscript(key: CBORValue) -> CBORValue? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    /// The value under the text key `key` when this is a map.
    package subscript(text key: String) -> CBORValue? { self[.text(key)] }

    /// The value under the integer key `key` when this is a map.
    package subscript(int key: Int64) -> CBORValue? {
        self[key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))]
    }

    /// The keys of a map, in order (empty for anything else).
    package var keys: [CBORValue] {
        guard case .map(let pairs) = self else { return [] }
        return pairs.map(\.key)
    }
}

/// One key and value of a CBOR map.
package struct CBORPair: Sendable, Hashable {
    package var key: CBORValue
    package var value: CBORValue

    package init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}
