/// RFC 4648 base32 (the standard alphabet `A–Z 2–7`), the form in which TOTP
/// secrets are shown to users and put in otpauth URIs.
///
/// Decoding ignores case, accepts text with or without `=` padding, and
/// rejects anything else with `invalidBase32`: other characters (spaces and
/// dashes included), misplaced padding, and lengths no encoder produces.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Encodes bytes.
    /// - Parameters:
    ///   - bytes: the data.
    ///   - padding: whether to pad the text with `=` to a multiple of 8 characters.
    /// - Returns: upper-case base32 text.
    public static func encode(_ bytes: some Collection<UInt8>, padding: Bool = true) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 4) / 5 * 8)
        var buffer: UInt64 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt64(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[Int(buffer >> UInt64(bits) & 0x1f)])
            }
        }
        if bits > 0 {
            out.append(alphabet[Int(buffer << UInt64(5 - bits) & 0x1f)])
        }
        if padding {
            while out.count % 8 != 0 { out.append(UInt8(ascii: "=")) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base32 text.
    /// - Parameter text: base32 in either case, padded or not.
    /// - Returns: the bytes.
    /// - Throws: `invalidBase32`, naming the position of the first bad character.
    public static func decode(_ text: String) throws(MFAError) -> [UInt8] {
        var text = text
        return try text.withUTF8 { utf8 in
            Result { () throws(MFAError) in try decode(UnsafeRawBufferPointer(utf8)) }
        }.get()
    }

    /// Decodes base32 text given as UTF-8 bytes.
    package static func decode(_ text: UnsafeRawBufferPointer) throws(MFAError) -> [UInt8] {
        var dataLength = text.count
        while dataLength > 0 && text[dataLength - 1] == UInt8(ascii: "=") { dataLength -= 1 }
        for index in 0..<dataLength where symbolValue(text[index]) == nil {
            throw MFAError(.invalidBase32, "character at position \(index) is not in the base32 alphabet")
        }
        let padLength = text.count - dataLength
        if padLength > 0 {
            guard text.count % 8 == 0, padLength == expectedPadding(dataLength % 8) else {
                throw MFAError(.invalidBase32, "base32 padding is malformed")
            }
        }
        guard [0, 2, 4, 5, 7].contains(dataLength % 8) else {
            throw MFAError(.invalidBase32, "base32 text has an impossible length")
        }
        var out: [UInt8] = []
        out.reserveCapacity(dataLength * 5 / 8)
        var buffer: UInt64 = 0
        var bits = 0
        for index in 0..<dataLength {
            buffer = buffer << 5 | UInt64(symbolValue(text[index]) ?? 0)
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt64(bits)))
            }
        }
        return out
    }

    /// The `=` count that completes a final group of `remainder` characters.
    private static func expectedPadding(_ remainder: Int) -> Int {
        switch remainder {
        case 2: 6
        case 4: 4
        case 5: 3
        case 7: 1
        default: -1
        }
    }

    /// The 5-bit value of one base32 character, either case.
    @inline(__always)
    private static func symbolValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a")
        case UInt8(ascii: "2")...UInt8(ascii: "7"): byte - UInt8(ascii: "2") + 26
        default: nil
        }
    }
}
