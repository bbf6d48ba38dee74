/// A failure reported by libmfa: a stable code plus a message for people.
///
/// The message never holds a secret, a code or a token.
public struct MFAError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code, the same as the C status.
    public let code: MFAErrorCode
    /// What went wrong, in words; safe to log.
    public let message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the stable code.
    ///   - message: detail for people; defaults to the code's summary.
    public init(_ code: MFAErrorCode, _ message: String? = nil) {
        self.code = code
        self.message = message ?? code.summary
    }

    /// `"NAME: message"`.
    public var description: String { "\(code.name): \(message)" }
}
