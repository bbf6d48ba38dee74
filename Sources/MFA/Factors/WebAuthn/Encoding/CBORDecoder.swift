import CCbor

/// Reads CBOR with libcbor's streaming decoder (`cbor_stream_decode`): libcbor
/// parses each item's header and hands over its value; this builds the tree.
///
/// Before a container is accepted its declared size is checked against the
/// bytes left (every item takes at least one byte), so a header that claims
/// billions of items costs nothing; nesting is limited to `maxDepth`. Text
/// must be UTF-8, map keys unique; floats, tags, undefined and indefinite
/// lengths are refused. Every problem is `invalidArgument` naming `what`.
package enum CBORDecoder {
    /// The deepest nesting accepted (WebAuthn's structures use 3).
    package static let maxDepth = 16

    /// Decodes the one item that `bytes` holds, with nothing after it.
    package static func decode(_ bytes: [UInt8], _ what: String) throws(MFAError) -> CBORValue {
        let (value, used) = try decodePrefix(bytes[...], what)
        guard used == bytes.count else { throw MFAError(.invalidArgument, "\(what): bytes after the CBOR item") }
        return value
    }

    /// Decodes the item at the start of `bytes`.
    /// - Returns: the item and how many bytes it took.
    package static func decodePrefix(_ bytes: ArraySlice<UInt8>, _ what: String) throws(MFAError)
        -> (value: CBORValue, used: Int) {
        let result: Result<(CBORValue, Int), MFAError> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(MFAError) in try decode(buffer, what) }
        }
        return try result.get()
    }

    private final class Frame {
        var isMap: Bool
        var remaining: Int
        var items: [CBORValue] = []

        init(isMap: Bool, count: Int) {
            self.isMap = isMap
            remaining = isMap ? count * 2 : count
            items.reserveCapacity(remaining)
        }
    }

    private static func decode(_ buffer: UnsafeBufferPointer<UInt8>, _ what: String) throws(MFAError)
        -> (CBORValue, Int) {
        let invalid = { (why: String) in MFAError(.invalidArgument, "\(what): \(why)") }
        guard let base = buffer.baseAddress, !buffer.isEmpty else { throw invalid("no CBOR data") }
        let box = TokenBox()
        var callbacks = TokenBox.callbacks
        var offset = 0
        var stack: [Frame] = []
        while true {
            box.token = nil
            let result = withUnsafeMutablePointer(to: &callbacks) { pointer in
                cbor_stream_decode(base + offset, buffer.count - offset, pointer,
                                   Unmanaged.passUnretained(box).toOpaque())
            }
            switch result.status {
            case CBOR_DECODER_FINISHED: break
            case CBOR_DECODER_NEDATA: throw invalid("the CBOR data ends too early")
            default: throw invalid("malformed CBOR")
            }
            offset += result.read
            let left = buffer.count - offset
            var item: CBORValue
            switch box.token {
            case .value(let value)?:
                item = value
            case .container(let isMap, let count)?:
                guard stack.count < maxDepth else { throw invalid("CBOR nested too deeply") }
                // libcbor hands sizes over as size_t: 2^63 and more arrive negative.
                guard count >= 0, count <= left / (isMap ? 2 : 1) else {
                    throw invalid("a CBOR container is larger than its data")
                }
                guard count == 0 else {
                    stack.append(Frame(isMap: isMap, count: count))
                    continue
                }
                item = isMap ? .map([]) : .array([])
            case .refused(let why)?:
                throw invalid(why)
            case nil:
                throw invalid("malformed CBOR")
            }
            // Close every container the item completes.
            while let top = stack.last {
                top.items.append(item)
                top.remaining -= 1
                guard top.remaining == 0 else { break }
                stack.removeLast()
                item = try close(top, invalid)
            }
            if stack.isEmpty { return (item, offset) }
        }
    }

    /// Maps of up to this many pairs are checked for a repeated key pair by
    /// pair (at most 28 comparisons); larger ones through a hash set.
    private static let smallMap = 8

    /// The array or map a finished frame holds. A map's keys must be
    /// unique: each is checked once against a hash set of the keys before
    /// it (Swift's hashing is seeded per process, so no input can make the
    /// keys collide on purpose), which keeps decoding linear in the input
    /// however many pairs a map has. (Comparing each key with every key
    /// before it made an extension map of 12,000 pairs inside the 64 KiB
    /// a credential may have cost a fifth of a second.)
    private static func close(_ frame: Frame, _ invalid: (String) -> MFAError) throws(MFAError) -> CBORValue {
        guard frame.isMap else { return .array(frame.items) }
        let count = frame.items.count / 2
        var pairs: [CBORPair] = []
        pairs.reserveCapacity(count)
        var seen = Set<CBORValue>()
        if count > smallMap { seen.reserveCapacity(count) }
        var index = 0
        while index + 1 < frame.items.count {
            let key = frame.items[index]
            let repeated = count > smallMap ? !seen.insert(key).inserted : pairs.contains { $0.key == key }
            guard !repeated else { throw invalid("a CBOR map repeats a key") }
            pairs.append(CBORPair(key, frame.items[index + 1]))
            index += 2
        }
        return .map(pairs)
    }
}

/// What one `cbor_stream_decode` call read, set by the C callbacks.
private final class TokenBox {
    enum Token {
        case value(CBORValue)
        case container(isMap: Bool, count: Int)
        case refused(String)
    }

    var token: Token?

    static func box(_ context: UnsafeMutableRawPointer?) -> TokenBox? {
        context.map { Unmanaged<TokenBox>.fromOpaque($0).takeUnretainedValue() }
    }

    static func set(_ context: UnsafeMutableRawPointer?, _ token: Token) {
        box(context)?.token = token
    }

    static func bytes(_ data: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
        guard let data, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: count))
    }

    /// Every callback libcbor may call: each records what it saw.
    static let callbacks = cbor_callbacks(
        uint8: { context, value in set(context, .value(.unsigned(UInt64(value)))) },
        uint16: { context, value in set(context, .value(.unsigned(UInt64(value)))) },
        uint32: { context, value in set(context, .value(.unsigned(UInt64(value)))) },
        uint64: { context, value in set(context, .value(.unsigned(value))) },
        negint64: { context, value in set(context, .value(.negative(value))) },
        negint32: { context, value in set(context, .value(.negative(UInt64(value)))) },
        negint16: { context, value in set(context, .value(.negative(UInt64(value)))) },
        negint8: { context, value in set(context, .value(.negative(UInt64(value)))) },
        byte_string_start: { context in set(context, .refused("indefinite-length CBOR strings are not allowed")) },
        byte_string: { context, data, count in set(context, .value(.bytes(bytes(data, count)))) },
        string: { context, data, count in
            let raw = bytes(data, count)
            guard let text = String(validating: raw, as: UTF8.self) else {
                set(context, .refused("a CBOR text string is not UTF-8"))
                return
            }
            set(context, .value(.text(text)))
        },
        string_start: { context in set(context, .refused("indefinite-length CBOR strings are not allowed")) },
        indef_array_start: { context in set(context, .refused("indefinite-length CBOR arrays are not allowed")) },
        array_start: { context, count in set(context, .container(isMap: false, count: count)) },
        indef_map_start: { context in set(context, .refused("indefinite-length CBOR maps are not allowed")) },
        map_start: { context, count in set(context, .container(isMap: true, count: count)) },
        tag: { context, _ in set(context, .refused("CBOR tags are not allowed")) },
        float2: { context, _ in set(context, .refused("CBOR floats are not allowed")) },
        float4: { context, _ in set(context, .refused("CBOR floats are not allowed")) },
        float8: { context, _ in set(context, .refused("CBOR floats are not allowed")) },
        undefined: { context in set(context, .refused("CBOR undefined is not allowed")) },
        null: { context in set(context, .value(.null)) },
        boolean: { context, value in set(context, .value(.bool(value))) },
        indef_break: { context in set(context, .refused("indefinite-length CBOR items are not allowed")) })
}
