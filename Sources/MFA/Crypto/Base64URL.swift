/// Unpadded URL-safe base64 (RFC 4648 §5) for tokens and ids: table-driven
/// (what it encodes is sealed or random, never a secret in the clear), and
/// as strict as libsodium's decoder: no padding, no other characters, and
/// the unused bits of the last digit zero.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    /// The value of each byte as a digit, or 0xff.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    package static func encode(_ bytes: [UInt8]) -> String {
        encode(bytes, prefix: "")
    }

    /// `prefix` (ASCII) followed by the encoding of `bytes`, built in one string.
    package static func encode(_ bytes: [UInt8], prefix: StaticString) -> String {
        let head = prefix.utf8CodeUnitCount
        let count = head + (bytes.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: count) { out in
            if head > 0 { out.baseAddress?.update(from: prefix.utf8Start, count: head) }
            bytes.withUnsafeBufferPointer { input in
                alphabet.withUnsafeBufferPointer { digits in
                    var o = head
                    var i = 0
                    while i + 3 <= input.count {
                        let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                        out[o] = digits[Int(n >> 18)]
                        out[o + 1] = digits[Int(n >> 12 & 63)]
                        out[o + 2] = digits[Int(n >> 6 & 63)]
                        out[o + 3] = digits[Int(n & 63)]
                        i += 3
                        o += 4
                    }
                    let left = input.count - i
                    if left > 0 {
                        let n = UInt32(input[i]) << 16 | (left == 2 ? UInt32(input[i + 1]) << 8 : 0)
                        out[o] = digits[Int(n >> 18)]
                        out[o + 1] = digits[Int(n >> 12 & 63)]
                        if left == 2 { out[o + 2] = digits[Int(n >> 6 & 63)] }
                    }
                }
            }
            return count
        }
    }

    /// The bytes, or nil for anything that is not unpadded URL-safe base64
    /// (the unused low bits of the last digit must be zero, as libsodium requires).
    package static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { input -> [UInt8]? in decode(input) }
    }

    /// The bytes after `prefix` (ASCII), or nil if the text does not start
    /// with it or the rest is not unpadded URL-safe base64.
    package static func decode(_ text: String, prefix: StaticString) -> [UInt8]? {
        var text = text
        return text.withUTF8 { input -> [UInt8]? in
            let head = prefix.utf8CodeUnitCount
            guard input.count >= head, (0..<head).allSatisfy({ input[$0] == prefix.utf8Start[$0] }) else { return nil }
            return decode(UnsafeBufferPointer(rebasing: input[head...]))
        }
    }

    private static func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let tail = input.count % 4
        guard tail != 1 else { return nil }
        let count = input.count / 4 * 3 + (tail == 0 ? 0 : tail - 1)
        var valid = true
        let out = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            values.withUnsafeBufferPointer { table in
                var o = 0
                var i = 0
                var bad: UInt8 = 0
                while i + 4 <= input.count {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                    let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                    bad |= a | b | c | d
                    let n = UInt32(a & 63) << 18 | UInt32(b & 63) << 12 | UInt32(c & 63) << 6 | UInt32(d & 63)
                    buffer[o] = UInt8(truncatingIfNeeded: n >> 16)
                    buffer[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
                    buffer[o + 2] = UInt8(truncatingIfNeeded: n)
                    i += 4
                    o += 3
                }
                if tail > 0 {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                    let c = tail == 3 ? table[Int(input[i + 2])] : 0
                    bad |= a | b | c
                    let n = UInt32(a & 63) << 18 | UInt32(b & 63) << 12 | UInt32(c & 63) << 6
                    buffer[o] = UInt8(truncatingIfNeeded: n >> 16)
                    if tail == 3 { buffer[o + 1] = UInt8(truncatingIfNeeded: n >> 8) }
                    // The bits past the last byte must be zero.
                    if (tail == 2 ? n & 0xffff : n & 0xff) != 0 { bad = 0xff }
                }
                valid = bad & 0xc0 == 0
            }
            initialized = count
        }
        return valid ? out : nil
    }
}
