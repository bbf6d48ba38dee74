import CMFATypes
import MFA

/// Renders `text` (usually an otpauth:// URI) as a QR code.
///
/// `format` is MFA_QR_PNG (scale 8, quiet zone 4), MFA_QR_SVG or MFA_QR_TEXT
/// (UTF-8 half blocks, dark on light, NUL-terminated). On MFA_OK, `*out` holds
/// `*out_len` new bytes (free with mfa_free()); the image contains the secret,
/// treat it as one. Returns MFA_OK or MFA_ERR_INVALID_ARGUMENT (NULL pointers,
/// empty or too-long text, unknown format).
@c(mfa_qr_encode)
public func mfa_qr_encode(_ out: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                          _ out_len: UnsafeMutablePointer<UInt>?, _ text: UnsafePointer<CChar>?,
                          _ format: Int32) -> Int32 {
    CResults.status { () throws(MFAError) in
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let length = try CArguments.required(out_len, "out_len")
        length.pointee = 0
        let code = try QRCode(encoding: try CArguments.string(text, "text"))
        let bytes: [UInt8]
        switch format {
        case MFA_QR_PNG: bytes = try code.png()
        case MFA_QR_SVG: bytes = Array(try code.svg().utf8)
        case MFA_QR_TEXT: bytes = Array(code.terminalText().utf8) + [0]
        default: throw MFAError(.invalidArgument, "format must be MFA_QR_PNG, MFA_QR_SVG or MFA_QR_TEXT")
        }
        out.pointee = try CResults.buffer(bytes)
        length.pointee = UInt(format == MFA_QR_TEXT ? bytes.count - 1 : bytes.count)
    }
}
