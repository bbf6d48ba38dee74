import Glibc
import MFA

/// Handing results back to C: status codes, error messages, allocations.
enum CResults {
    /// Runs `body` and turns its outcome into a C status: `MFA_OK` or the
    /// error's negative code. When `err` is not NULL, a failure's message is
    /// stored there as a string the caller frees with `mfa_free` (and NULL on
    /// success).
    static func status(_ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil,
                       _ body: () throws(MFAError) -> Void) -> Int32 {
        err?.pointee = nil
        do {
            try body()
            return 0
        } catch {
            err?.pointee = try? cString(error.message)
            return error.code.rawValue
        }
    }

    /// A `malloc`ed NUL-terminated copy of `text`, for the caller to `mfa_free`.
    static func cString(_ text: String) throws(MFAError) -> UnsafeMutablePointer<CChar> {
        let count = text.utf8.count
        guard let memory = malloc(count + 1) else { throw MFAError(.outOfMemory) }
        let out = memory.bindMemory(to: CChar.self, capacity: count + 1)
        var text = text
        text.withUTF8 { utf8 in
            if let base = utf8.baseAddress { memcpy(out, base, count) }
        }
        out[count] = 0
        return out
    }

    /// A `malloc`ed copy of `bytes` (at least one byte is allocated, so the
    /// pointer is never NULL), for the caller to `mfa_free`.
    static func buffer(_ bytes: [UInt8]) throws(MFAError) -> UnsafeMutablePointer<UInt8> {
        guard let memory = malloc(max(bytes.count, 1)) else { throw MFAError(.outOfMemory) }
        bytes.withUnsafeBytes { if let base = $0.baseAddress { memcpy(memory, base, $0.count) } }
        return memory.bindMemory(to: UInt8.self, capacity: max(bytes.count, 1))
    }

    /// Writes a NUL-terminated code into a caller's buffer of `size` bytes.
    static func write(code: UInt32, digits: Int, into out: UnsafeMutablePointer<CChar>?,
                      size: UInt) throws(MFAError) {
        let out = try CArguments.required(out, "out")
        guard size > UInt(digits) else {
            throw MFAError(.bufferTooSmall, "out must hold \(digits + 1) bytes")
        }
        OTPCode.write(code, digits: digits, into: UnsafeMutableRawBufferPointer(start: out, count: digits))
        out[digits] = 0
    }
}
