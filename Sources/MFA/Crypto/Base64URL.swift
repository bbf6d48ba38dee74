import CSodium

/// Unpadded URL-safe base64 (RFC 4648 §5), through libsodium, for tokens and ids.
enum Base64URL {
    private static let variant = Int32(sodium_base64_VARIANT_URLSAFE_NO_PADDING)

    static func encode(_ bytes: [UInt8]) -> String {
        let capacity = sodium_base64_encoded_len(bytes.count, variant)
        var out = [CChar](repeating: 0, count: capacity)
        _ = bytes.withUnsafeBufferPointer { input in
            sodium_bin2base64(&out, capacity, input.baseAddress, bytes.count, variant)
        }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The bytes, or nil for anything that is not unpadded URL-safe base64.
    static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        var out = [UInt8](repeating: 0, count: input.count * 3 / 4 + 1)
        var written = 0
        let status = input.withUnsafeBufferPointer { source in
            source.withMemoryRebound(to: CChar.self) { chars in
                sodium_base642bin(&out, out.count, chars.baseAddress, input.count, nil, &written, nil, variant)
            }
        }
        guard status == 0 else { return nil }
        return Array(out.prefix(written))
    }
}
