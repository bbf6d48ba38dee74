import CMFATypes
import MFA

/// Reads a TOTP parameter block from C; NULL means the defaults (SHA1, 6 digits, 30 s, T0 = 0).
func totpParameters(_ params: UnsafePointer<mfa_totp_params>?) throws(MFAError)
    -> (algorithm: OTPAlgorithm, digits: Int, period: Int64, t0: Int64) {
    guard params != nil else { return (.sha1, OTPLimits.defaultDigits, OTPLimits.defaultPeriod, 0) }
    let params = try CStructs.totpParams.read(params)
    let digits = Int(params.digits)
    try OTPLimits.check(digits: digits)
    try OTPLimits.check(period: params.period)
    return (try CArguments.algorithm(params.algorithm), digits, params.period, params.t0)
}

/// Reads an HMAC key from C.
private func hmacKey(_ key: UnsafePointer<UInt8>?, _ len: UInt) throws(MFAError) -> UnsafeRawBufferPointer {
    try CArguments.bytes(key, len, allowed: OTPLimits.keyBytes, "key")
}

/// Fills `params` with the defaults of struct version `version` (pass
/// MFA_TOTP_PARAMS_VERSION): MFA_ALG_SHA1, 6 digits, 30 s, T0 = 0, and
/// `version` itself. Only the fields that version has are written;
/// MFA_TOTP_PARAMS_INIT is the same as a static initializer.
///
/// Returns MFA_OK or MFA_ERR_INVALID_ARGUMENT (NULL `params`, a version 0 or
/// newer than the library's).
@c(mfa_totp_params_init)
public func mfa_totp_params_init(_ params: UnsafeMutablePointer<mfa_totp_params>?, _ version: UInt32) -> Int32 {
    CResults.status { () throws(MFAError) in try CStructs.totpParams.initialize(params, version: version) }
}

/// Computes the HOTP code (RFC 4226) for `counter`.
///
/// Writes `digits` ASCII digits and a NUL into `out`, which holds `out_size`
/// bytes (MFA_CODE_BUFFER_SIZE always suffices). `key` is the raw secret,
/// 1 to MFA_KEY_MAX_BYTES bytes. Returns MFA_OK, MFA_ERR_INVALID_ARGUMENT
/// (NULL pointer, key length, digits outside 6..8, unknown algorithm) or
/// MFA_ERR_BUFFER_TOO_SMALL. Thread-safe.
@c(mfa_hotp_generate)
public func mfa_hotp_generate(_ out: UnsafeMutablePointer<CChar>?, _ out_size: UInt,
                              _ key: UnsafePointer<UInt8>?, _ key_len: UInt, _ counter: UInt64,
                              _ digits: Int32, _ algorithm: Int32) -> Int32 {
    CResults.status { () throws(MFAError) in
        let keyBytes = try hmacKey(key, key_len)
        try OTPLimits.check(digits: Int(digits))
        let algorithm = try CArguments.algorithm(algorithm)
        let value = OTPCore.hotp(key: keyBytes, counter: counter, digits: Int(digits), algorithm: algorithm)
        try CResults.write(code: value, digits: Int(digits), into: out, size: out_size)
    }
}

/// Checks an HOTP `code` against `counter` and up to `look_ahead` (0 to
/// MFA_WINDOW_MAX) counters after it, keying the HMAC once.
///
/// On MFA_OK, `*out_counter` (if not NULL) is the counter that matched: the
/// next expected counter is that plus one. Returns MFA_OK,
/// MFA_ERR_INVALID_VERIFICATION_CODE (wrong or malformed code),
/// MFA_ERR_INVALID_ARGUMENT (NULL key or code, key length, digits, look-ahead,
/// algorithm, code not UTF-8 or overlong). Thread-safe.
@c(mfa_hotp_verify)
public func mfa_hotp_verify(_ out_counter: UnsafeMutablePointer<UInt64>?,
                            _ key: UnsafePointer<UInt8>?, _ key_len: UInt, _ counter: UInt64,
                            _ look_ahead: Int32, _ digits: Int32, _ algorithm: Int32,
                            _ code: UnsafePointer<CChar>?) -> Int32 {
    CResults.status { () throws(MFAError) in
        let keyBytes = try hmacKey(key, key_len)
        try OTPLimits.check(window: Int(look_ahead))
        try OTPLimits.check(digits: Int(digits))
        let algorithm = try CArguments.algorithm(algorithm)
        let typed = try CArguments.text(code, "code")
        guard let matched = OTPCore.verifyHOTP(key: keyBytes, code: typed, counter: counter,
                                               lookAhead: Int(look_ahead), digits: Int(digits),
                                               algorithm: algorithm) else {
            throw MFAError(.invalidVerificationCode)
        }
        out_counter?.pointee = matched
    }
}

/// Computes the TOTP code (RFC 6238) for the time step that contains `unix_time`.
///
/// `params` may be NULL for the defaults (SHA1, 6 digits, 30 s, T0 = 0).
/// Writes the digits and a NUL into `out` (`out_size` bytes;
/// MFA_CODE_BUFFER_SIZE always suffices). Returns MFA_OK,
/// MFA_ERR_INVALID_ARGUMENT (NULL pointer, key length, a parameter out of
/// range, `unix_time` before T0) or MFA_ERR_BUFFER_TOO_SMALL. Thread-safe.
@c(mfa_totp_generate)
public func mfa_totp_generate(_ out: UnsafeMutablePointer<CChar>?, _ out_size: UInt,
                              _ key: UnsafePointer<UInt8>?, _ key_len: UInt,
                              _ params: UnsafePointer<mfa_totp_params>?, _ unix_time: Int64) -> Int32 {
    CResults.status { () throws(MFAError) in
        let keyBytes = try hmacKey(key, key_len)
        let p = try totpParameters(params)
        let step = try TOTP.step(at: unix_time, t0: p.t0, period: p.period)
        let value = OTPCore.hotp(key: keyBytes, counter: UInt64(step), digits: p.digits, algorithm: p.algorithm)
        try CResults.write(code: value, digits: p.digits, into: out, size: out_size)
    }
}

/// Checks a TOTP `code` at `unix_time`, accepting `window` (0 to
/// MFA_WINDOW_MAX) adjacent time steps on each side.
///
/// The current step is tried first, then the nearest ones outwards; the HMAC
/// is keyed once and the codes are compared in constant time. On MFA_OK,
/// `*out_step` (if not NULL) is the time step that matched: store it and
/// refuse any code at or before it to make codes single-use (RFC 6238 §5.2).
/// Returns MFA_OK, MFA_ERR_INVALID_VERIFICATION_CODE (wrong or malformed
/// code), MFA_ERR_INVALID_ARGUMENT (NULL key or code, key length, window,
/// a parameter out of range, time before T0, code not UTF-8 or overlong).
/// Thread-safe.
@c(mfa_totp_verify)
public func mfa_totp_verify(_ out_step: UnsafeMutablePointer<Int64>?,
                            _ key: UnsafePointer<UInt8>?, _ key_len: UInt,
                            _ params: UnsafePointer<mfa_totp_params>?, _ unix_time: Int64,
                            _ window: Int32, _ code: UnsafePointer<CChar>?) -> Int32 {
    CResults.status { () throws(MFAError) in
        let keyBytes = try hmacKey(key, key_len)
        let p = try totpParameters(params)
        // Keyed first: the argument checks run while the key is being hashed.
        let matched = try OTPCore.verifyTOTP(key: keyBytes, window: Int(window), after: nil, digits: p.digits,
                                             algorithm: p.algorithm) { () throws(MFAError) in
            try OTPLimits.check(window: Int(window))
            return (try CArguments.text(code, "code"), try TOTP.step(at: unix_time, t0: p.t0, period: p.period))
        }
        guard let matched else { throw MFAError(.invalidVerificationCode) }
        out_step?.pointee = matched
    }
}
