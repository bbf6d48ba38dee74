import CMFATypes
import Glibc
import MFA

/// The library's version strings and status texts as C strings that live as
/// long as the process (made once, never freed).
enum StaticCStrings {
    nonisolated(unsafe) static let version: UnsafePointer<CChar> = make(MFA_VERSION_STRING)
    nonisolated(unsafe) static let names: [Int32: UnsafePointer<CChar>] = Dictionary(
        uniqueKeysWithValues: [(Int32(0), make("OK"))] + MFAErrorCode.allCases.map { ($0.rawValue, make($0.name)) })
    nonisolated(unsafe) static let messages: [Int32: UnsafePointer<CChar>] = Dictionary(
        uniqueKeysWithValues: [(Int32(0), make("success"))] + MFAErrorCode.allCases.map { ($0.rawValue, make($0.summary)) })
    nonisolated(unsafe) static let unknownName: UnsafePointer<CChar> = make("UNKNOWN")
    nonisolated(unsafe) static let unknownMessage: UnsafePointer<CChar> = make("unknown status code")
    nonisolated(unsafe) static let password: UnsafePointer<CChar> = make("password")

    private static func make(_ text: String) -> UnsafePointer<CChar> {
        UnsafePointer(strdup(text)!)
    }
}

/// The version of the library that is loaded, as MAJOR * 10000 + MINOR * 100 + PATCH.
///
/// Compare it with the header's MFA_VERSION_NUMBER to detect a mismatch.
@c(mfa_version)
public func mfa_version() -> Int32 {
    Int32(MFA_VERSION_MAJOR * 10000 + MFA_VERSION_MINOR * 100 + MFA_VERSION_PATCH)
}

/// The version of the library that is loaded, as "MAJOR.MINOR.PATCH".
///
/// The string is static: do not free it.
@c(mfa_version_string)
public func mfa_version_string() -> UnsafePointer<CChar> {
    StaticCStrings.version
}

/// A short human message for a status code ("the session is invalid, expired or already used").
///
/// The string is static: do not free it. Unknown codes get "unknown status code".
@c(mfa_errstr)
public func mfa_errstr(_ status: Int32) -> UnsafePointer<CChar> {
    StaticCStrings.messages[status] ?? StaticCStrings.unknownMessage
}

/// The stable name of a status code ("OK", "INVALID_SESSION", ...).
///
/// The string is static: do not free it. Unknown codes get "UNKNOWN".
@c(mfa_status_name)
public func mfa_status_name(_ status: Int32) -> UnsafePointer<CChar> {
    StaticCStrings.names[status] ?? StaticCStrings.unknownName
}

/// Frees a string or buffer that libmfa allocated and handed to the caller
/// (URIs, base32 text, decoded bytes, error messages). NULL is a no-op.
@c(mfa_free)
public func mfa_free(_ pointer: UnsafeMutableRawPointer?) {
    free(pointer)
}
