import CNettle
import CSodium

/// A Yubico OTP, the string a YubiKey types when touched: its public id in
/// modhex (0 to 16 bytes; 6 bytes, 12 characters, as YubiKeys ship), then
/// 16 bytes encrypted with the key's AES-128 key, in modhex (32 characters).
///
/// Decrypted, the 16 bytes are the private id (6 bytes), the use counter
/// (16 bits, little-endian: it rises at each power-up and when the session
/// counter wraps), a timestamp (24 bits), the session counter (8 bits: it
/// rises at each touch), 16 random bits and a CRC-16 (ISO 13239) whose
/// residue over all 16 bytes is 0xF0B8. The two counters make one value that
/// rises with every OTP the key types (`counter`), which a server must see
/// rise: an OTP whose value is not above the last one accepted is a replay.
package enum YubicoOTP {
    /// Modhex: the 16 characters that every keyboard layout types the same.
    package static let alphabet = Array("cbdefghijklnrtuv".utf8)
    /// Bytes of the encrypted part, decoded.
    package static let blockBytes = 16
    /// Bytes of a private id.
    package static let privateIDBytes = 6
    /// Bytes of an AES key.
    package static let keyBytes = 16
    /// The longest public id, in bytes.
    package static let maxPublicIDBytes = 16

    /// An OTP read from what was typed, not yet decrypted.
    package struct Typed: Sendable, Equatable {
        /// The public id, modhex (lower case); may be empty.
        package var publicID: String
        /// The encrypted block.
        package var block: [UInt8]
    }

    /// What an OTP holds, decrypted.
    package struct Fields: Sendable, Equatable {
        package var privateID: [UInt8]
        /// The use counter (non-volatile).
        package var useCounter: UInt16
        /// The session counter (volatile, rises with each touch).
        package var sessionCounter: UInt8
        /// The timestamp, 8 Hz since power-up (24 bits).
        package var timestamp: UInt32

        /// Both counters as one value that rises with every OTP.
        package var counter: Int64 { Int64(useCounter) << 8 | Int64(sessionCounter) }
    }

    /// Whether `text` could be a Yubico OTP: 32 to 64 modhex characters,
    /// an even number, in either case (a caps lock types upper case).
    package static func hasShape(_ text: String) -> Bool {
        let count = text.utf8.count
        guard count >= 2 * blockBytes, count <= 2 * (blockBytes + maxPublicIDBytes), count % 2 == 0 else {
            return false
        }
        return text.utf8.allSatisfy { value(of: $0) != nil }
    }

    /// Reads an OTP as typed.
    /// - Returns: nil unless `text` has the shape (`hasShape`).
    package static func read(_ text: String) -> Typed? {
        guard hasShape(text) else { return nil }
        let bytes = Array(text.utf8).map { $0 | 0x20 }
        let split = bytes.count - 2 * blockBytes
        guard let block = decode(bytes[split...]) else { return nil }
        return Typed(publicID: String(decoding: bytes[..<split], as: UTF8.self), block: block)
    }

    /// Decrypts `block` with `key` and checks its CRC.
    /// - Returns: the fields, or nil if the CRC does not check out (another
    ///   key, or a block typed wrong).
    package static func open(_ block: [UInt8], key: UnsafeRawBufferPointer) -> Fields? {
        guard block.count == blockBytes, key.count == keyBytes else { return nil }
        var plain = [UInt8](repeating: 0, count: blockBytes)
        defer { wipe(&plain) }
        AESBlock.decrypt(block: block, key: key, into: &plain)
        guard crc16(plain) == 0xF0B8 else { return nil }
        return Fields(privateID: Array(plain[0..<6]), useCounter: UInt16(plain[6]) | UInt16(plain[7]) << 8,
                      sessionCounter: plain[11],
                      timestamp: UInt32(plain[8]) | UInt32(plain[9]) << 8 | UInt32(plain[10]) << 16)
    }

    /// The CRC-16 of ISO 13239 (reflected 0x8408, initial 0xFFFF), as the
    /// YubiKey computes it.
    package static func crc16(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 {
                let low = crc & 1
                crc >>= 1
                if low == 1 { crc ^= 0x8408 }
            }
        }
        return crc
    }

    /// Whether `a` equals `b`, compared in constant time.
    package static func samePrivateID(_ a: [UInt8], _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count, !a.isEmpty else { return false }
        return a.withUnsafeBytes { sodium_memcmp($0.baseAddress, b.baseAddress, a.count) == 0 }
    }

    /// The bytes of modhex text (lower case), or nil for another character or an odd length.
    package static func decode<C: Collection>(_ text: C) -> [UInt8]? where C.Element == UInt8 {
        guard text.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 2)
        var high: UInt8?
        for character in text {
            guard let nibble = value(of: character) else { return nil }
            if let first = high {
                out.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return out
    }

    /// `bytes` as modhex.
    package static func encode(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.flatMap { [alphabet[Int($0 >> 4)], alphabet[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// Whether `text` is a public id as stored: 2 to 32 lower-case modhex characters, an even number.
    package static func isPublicID(_ text: String) -> Bool {
        let count = text.utf8.count
        return count >= 2 && count <= 2 * maxPublicIDBytes && count % 2 == 0
            && text.utf8.allSatisfy { alphabet.contains($0) }
    }

    /// The value of one modhex character (either case), or nil.
    private static func value(of character: UInt8) -> UInt8? {
        let lower = character | 0x20
        guard let index = alphabet.firstIndex(of: lower), character >= 0x41 else { return nil }
        return UInt8(index)
    }
}

/// Single AES blocks and CBC decryption through nettle, for Yubico OTPs
/// and PSKC files.
package enum AESBlock {
    /// Decrypts one 16-byte block with a 16-byte key.
    package static func decrypt(block: [UInt8], key: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        var context = aes128_ctx()
        nettle_aes128_set_decrypt_key(&context, key.baseAddress?.assumingMemoryBound(to: UInt8.self))
        out.withUnsafeMutableBufferPointer { target in
            block.withUnsafeBufferPointer { source in
                nettle_aes128_decrypt(&context, 16, target.baseAddress, source.baseAddress)
            }
        }
        withUnsafeMutableBytes(of: &context) { sodium_memzero($0.baseAddress, $0.count) }
    }

    /// AES-CBC decryption (RFC 3602 as XML Encryption uses it): the first
    /// block of `data` is the IV; the padding is checked and removed.
    /// - Parameters:
    ///   - data: IV then ciphertext, a whole number of 16-byte blocks.
    ///   - key: 16, 24 or 32 bytes.
    /// - Returns: the plaintext, or nil for a bad length, key size or padding.
    package static func decryptCBC(_ data: [UInt8], key: UnsafeRawBufferPointer) -> [UInt8]? {
        guard data.count >= 32, data.count % 16 == 0, [16, 24, 32].contains(key.count) else { return nil }
        var out = [UInt8](repeating: 0, count: data.count - 16)
        let decryptBlocks: (UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int) -> Void
        let keyBytes = key.baseAddress!.assumingMemoryBound(to: UInt8.self)
        switch key.count {
        case 16:
            var context = aes128_ctx()
            nettle_aes128_set_decrypt_key(&context, keyBytes)
            decryptBlocks = { nettle_aes128_decrypt(&context, $2, $1, $0) }
            run(data, &out, decryptBlocks)
            withUnsafeMutableBytes(of: &context) { sodium_memzero($0.baseAddress, $0.count) }
        case 24:
            var context = aes192_ctx()
            nettle_aes192_set_decrypt_key(&context, keyBytes)
            decryptBlocks = { nettle_aes192_decrypt(&context, $2, $1, $0) }
            run(data, &out, decryptBlocks)
            withUnsafeMutableBytes(of: &context) { sodium_memzero($0.baseAddress, $0.count) }
        default:
            var context = aes256_ctx()
            nettle_aes256_set_decrypt_key(&context, keyBytes)
            decryptBlocks = { nettle_aes256_decrypt(&context, $2, $1, $0) }
            run(data, &out, decryptBlocks)
            withUnsafeMutableBytes(of: &context) { sodium_memzero($0.baseAddress, $0.count) }
        }
        // PKCS#7 padding (XML Encryption's padding differs only in bytes it tells to ignore).
        guard let last = out.last, last >= 1, last <= 16, Int(last) <= out.count else {
            wipe(&out)
            return nil
        }
        let plain = Array(out[..<(out.count - Int(last))])
        wipe(&out)
        return plain
    }

    /// Decrypts the ciphertext blocks of `data` (after its IV) into `out`, chaining them.
    private static func run(_ data: [UInt8], _ out: inout [UInt8],
                            _ decrypt: (UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Int) -> Void) {
        data.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                guard let input = source.baseAddress, let output = target.baseAddress else { return }
                decrypt(input + 16, output, data.count - 16)
                for index in 0..<(data.count - 16) { output[index] ^= input[index] }
            }
        }
    }
}
