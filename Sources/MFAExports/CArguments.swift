import Glibc
import MFA

/// Reading arguments that come from C, without ever trusting them.
///
/// Every pointer may be NULL, every length may be huge, every string may be
/// unterminated within reason or not UTF-8: each case becomes an `MFAError`
/// with `invalidArgument`, never a trap.
enum CArguments {
    /// The longest string read from C, in bytes (`MFA_STRING_MAX_BYTES`).
    static let maxStringBytes = 65536

    /// The bytes of a NUL-terminated UTF-8 string, without the NUL.
    /// - Throws: `invalidArgument` for NULL, more than `maxStringBytes` bytes, or invalid UTF-8.
    static func text(_ pointer: UnsafePointer<CChar>?, _ what: String) throws(MFAError)
        -> UnsafeRawBufferPointer {
        guard let pointer else { throw MFAError(.invalidArgument, "\(what) is NULL") }
        let length = strnlen(pointer, maxStringBytes + 1)
        guard length <= maxStringBytes else {
            throw MFAError(.invalidArgument, "\(what) is longer than \(maxStringBytes) bytes")
        }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        guard isUTF8(bytes) else { throw MFAError(.invalidArgument, "\(what) is not valid UTF-8") }
        return bytes
    }

    /// A NUL-terminated UTF-8 string as a Swift string (see `text`).
    static func string(_ pointer: UnsafePointer<CChar>?, _ what: String) throws(MFAError) -> String {
        String(decoding: try text(pointer, what), as: UTF8.self)
    }

    /// Like `string`, but NULL gives nil.
    static func optionalString(_ pointer: UnsafePointer<CChar>?, _ what: String) throws(MFAError) -> String? {
        guard pointer != nil else { return nil }
        return try string(pointer, what)
    }

    /// A byte buffer given as pointer and length.
    /// - Throws: `invalidArgument` for NULL with a non-zero length, or a length outside `allowed`.
    static func bytes(_ pointer: UnsafePointer<UInt8>?, _ count: UInt, allowed: ClosedRange<Int>,
                      _ what: String) throws(MFAError) -> UnsafeRawBufferPointer {
        guard count <= UInt(allowed.upperBound), allowed.contains(Int(count)) else {
            throw MFAError(.invalidArgument,
                           "\(what) must be \(allowed.lowerBound) to \(allowed.upperBound) bytes")
        }
        guard let pointer else {
            if count == 0 { return UnsafeRawBufferPointer(start: nil, count: 0) }
            throw MFAError(.invalidArgument, "\(what) is NULL")
        }
        return UnsafeRawBufferPointer(start: pointer, count: Int(count))
    }

    /// A `size_t` field of a C struct as a length: Swift imports such fields as
    /// `Int`, so a value of 2^63 or more arrives negative; this gives back the
    /// value C holds, for `bytes` or a range check to refuse.
    static func size(_ field: Int) -> UInt {
        UInt(bitPattern: field)
    }

    /// Throws `invalidArgument` if `pointer` is NULL, else returns it.
    static func required<T>(_ pointer: T?, _ what: String) throws(MFAError) -> T {
        guard let pointer else { throw MFAError(.invalidArgument, "\(what) is NULL") }
        return pointer
    }

    /// Converts an `int32_t` from C to an algorithm.
    static func algorithm(_ raw: Int32) throws(MFAError) -> OTPAlgorithm {
        guard let algorithm = OTPAlgorithm(rawValue: raw) else {
            throw MFAError(.invalidArgument, "algorithm must be MFA_ALG_SHA1, MFA_ALG_SHA256 or MFA_ALG_SHA512")
        }
        return algorithm
    }

    /// Whether `bytes` is well-formed UTF-8 (fast for ASCII, which codes are).
    static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if isASCII(bytes) { return true }
        return String(validating: bytes, as: UTF8.self) != nil
    }

    /// Whether every byte is below 0x80, read eight bytes at a time (ids,
    /// tokens and codes are ASCII, and a token is a few hundred bytes).
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        var high: UInt64 = 0
        while index + 8 <= bytes.count {
            high |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            high |= UInt64(bytes[index])
            index += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}
