import CZlib

/// Writes a minimal PNG: signature, IHDR, one zlib-compressed IDAT, IEND.
enum PNGEncoder {
    /// The eight bytes every PNG file starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Encodes a 1-bit grayscale image (bit 1 is white, bit 0 black).
    /// - Parameters:
    ///   - width: pixels per row, at least 1.
    ///   - height: rows, at least 1.
    ///   - scanlines: the filtered image data: for each row a filter byte (0)
    ///     and `(width + 7) / 8` bytes, most significant bit first.
    /// - Returns: the PNG file.
    /// - Throws: `outOfMemory` if zlib could not allocate; `internal` if it failed otherwise.
    static func grayscale1Bit(width: Int, height: Int, scanlines: [UInt8]) throws(MFAError) -> [UInt8] {
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [1, 0, 0, 0, 0]  // bit depth 1, grayscale, deflate, adaptive filtering, no interlace

        var png = signature
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", try deflate(scanlines), to: &png)
        appendChunk("IEND", [], to: &png)
        return png
    }

    /// `data` as a zlib stream, through zlib's `compress2` at the best compression.
    static func deflate(_ data: [UInt8]) throws(MFAError) -> [UInt8] {
        var capacity = compressBound(uLong(data.count))
        var output = [UInt8](repeating: 0, count: Int(capacity))
        let status = output.withUnsafeMutableBufferPointer { out in
            data.withUnsafeBufferPointer { input in
                compress2(out.baseAddress, &capacity, input.baseAddress, uLong(input.count), Z_BEST_COMPRESSION)
            }
        }
        switch status {
        case Z_OK:
            output.removeSubrange(Int(capacity)...)
            return output
        case Z_MEM_ERROR:
            throw MFAError(.outOfMemory, "zlib could not allocate while compressing the PNG")
        default:
            throw MFAError(.internal, "zlib compress2 failed (\(status))")
        }
    }

    /// Appends one chunk: length, type, data and the CRC-32 of type and data.
    static func appendChunk(_ type: StaticString, _ data: [UInt8], to png: inout [UInt8]) {
        let typeBytes = type.withUTF8Buffer { Array($0) }
        png.appendBigEndian(UInt32(data.count))
        png += typeBytes
        png += data
        var crc = typeBytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        crc = data.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) }
        png.appendBigEndian(UInt32(truncatingIfNeeded: crc))
    }
}

extension [UInt8] {
    /// Appends `value` as four big-endian bytes, PNG's byte order.
    mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 24))
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }
}
