import CMFATypes
import Glibc
import MFA

/// Fills `uri` with a TOTP key URI's defaults for struct version `version`
/// (pass MFA_KEY_URI_VERSION): MFA_OTP_TOTP, MFA_ALG_SHA1, 6 digits, 30 s,
/// counter 0, every pointer NULL, and `version` itself. Only the fields that
/// version has are written; MFA_KEY_URI_INIT is the same as a static
/// initializer.
///
/// Returns MFA_OK or MFA_ERR_INVALID_ARGUMENT (NULL `uri`, a version 0 or
/// newer than the library's).
@c(mfa_key_uri_init)
public func mfa_key_uri_init(_ uri: UnsafeMutablePointer<mfa_key_uri>?, _ version: UInt32) -> Int32 {
    CResults.status { () throws(MFAError) in try CStructs.keyURI.initialize(uri, version: version) }
}

/// Builds an otpauth:// key URI from `uri`.
///
/// The issuer and account name are percent-encoded (spaces, colons, '@', '&'
/// and non-ASCII are safe); the secret is written as unpadded base32. On
/// MFA_OK, `*out` is a new string to free with mfa_free(). When `err` is not
/// NULL it receives NULL or, on failure, a message to free with mfa_free().
/// Returns MFA_OK or MFA_ERR_INVALID_ARGUMENT (NULL pointers, a version 0 or
/// newer than the library's, an unknown type, empty or overlong or non-UTF-8
/// names, a secret length outside 1 to MFA_KEY_MAX_BYTES, digits, period).
/// Thread-safe.
@c(mfa_key_uri_build)
public func mfa_key_uri_build(_ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                              _ uri: UnsafePointer<mfa_key_uri>?,
                              _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let fields = try CStructs.keyURI.read(uri)
        guard let kind = KeyURI.Kind(rawValue: fields.type) else {
            throw MFAError(.invalidArgument, "uri->type must be MFA_OTP_TOTP or MFA_OTP_HOTP")
        }
        let secret = try CArguments.bytes(fields.secret, CArguments.size(fields.secret_len),
                                          allowed: OTPLimits.keyBytes, "uri->secret")
        let key = KeyURI(kind: kind, issuer: try CArguments.optionalString(fields.issuer, "uri->issuer"),
                         account: try CArguments.string(fields.account, "uri->account"),
                         secret: Array(secret), algorithm: try CArguments.algorithm(fields.algorithm),
                         digits: Int(fields.digits), period: fields.period, counter: fields.counter)
        out.pointee = try CResults.cString(key.uri())
    }
}

/// Parses an otpauth:// key URI.
///
/// On MFA_OK, `*out` is a new mfa_key_uri whose strings and secret live in
/// the same allocation; release it with mfa_key_uri_free(). A missing issuer
/// is NULL. When `err` is not NULL it receives NULL or, on failure, a message
/// to free with mfa_free() (it never contains the secret). Returns MFA_OK,
/// MFA_ERR_INVALID_ARGUMENT (NULL pointer, text overlong or not UTF-8) or
/// MFA_ERR_INVALID_URI. Thread-safe.
@c(mfa_key_uri_parse)
public func mfa_key_uri_parse(_ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_key_uri>?>?,
                              _ text: UnsafePointer<CChar>?,
                              _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let parsed = try KeyURI(parsing: try CArguments.string(text, "text"))
        out.pointee = try CBlock.make { arena in
            mfa_key_uri(version: UInt32(MFA_KEY_URI_VERSION), type: parsed.kind.rawValue,
                        issuer: arena.string(parsed.issuer), account: arena.string(parsed.account),
                        secret: arena.bytes(parsed.secret), secret_len: parsed.secret.count,
                        algorithm: parsed.algorithm.rawValue, digits: Int32(parsed.digits), period: parsed.period,
                        counter: parsed.counter)
        }
    }
}

/// Frees an mfa_key_uri returned by mfa_key_uri_parse(). NULL is a no-op.
@c(mfa_key_uri_free)
public func mfa_key_uri_free(_ uri: UnsafeMutablePointer<mfa_key_uri>?) {
    guard let uri else { return }
    if let secret = uri.pointee.secret, OTPLimits.keyBytes.contains(uri.pointee.secret_len) {
        memset(UnsafeMutableRawPointer(mutating: secret), 0, uri.pointee.secret_len)
    }
    free(uri)
}
