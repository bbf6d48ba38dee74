import MFA

/// Encodes `len` bytes of `data` as RFC 4648 base32.
///
/// On MFA_OK, `*out` is a new NUL-terminated upper-case string; free it with
/// mfa_free(). `flags` is 0 or MFA_BASE32_NO_PADDING. `data` may be NULL when
/// `len` is 0. Returns MFA_OK or MFA_ERR_INVALID_ARGUMENT (NULL `out`, NULL
/// data with a length, more than MFA_STRING_MAX_BYTES / 2 bytes, unknown flags).
/// Thread-safe.
@c(mfa_base32_encode)
public func mfa_base32_encode(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                              _ data: UnsafePointer<UInt8>?, _ len: UInt, _ flags: Int32) -> Int32 {
    CResults.status { () throws(MFAError) in
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let bytes = try CArguments.bytes(data, len, allowed: 0...CArguments.maxStringBytes / 2, "data")
        guard flags & ~1 == 0 else { throw MFAError(.invalidArgument, "unknown flags") }
        out.pointee = try CResults.cString(Base32.encode(bytes, padding: flags & 1 == 0))
    }
}

/// Decodes RFC 4648 base32 text: either case, with or without '=' padding.
///
/// On MFA_OK, `*out` holds `*out_len` new bytes (never NULL, even for empty
/// text); free them with mfa_free(). Returns MFA_OK, MFA_ERR_INVALID_ARGUMENT
/// (a NULL pointer, text longer than MFA_STRING_MAX_BYTES or not UTF-8) or
/// MFA_ERR_INVALID_BASE32 (a character outside the alphabet, spaces included,
/// misplaced padding, an impossible length). Thread-safe.
@c(mfa_base32_decode)
public func mfa_base32_decode(_ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                              _ out_len: UnsafeMutablePointer<UInt>?,
                              _ text: UnsafePointer<CChar>?) -> Int32 {
    CResults.status { () throws(MFAError) in
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let outLength = try CArguments.required(out_len, "out_len")
        outLength.pointee = 0
        let decoded = try Base32.decode(try CArguments.text(text, "text"))
        out.pointee = try CResults.buffer(decoded)
        outLength.pointee = UInt(decoded.count)
    }
}
