/// A user as the host knows them after the first factor.
///
/// libmfa keeps no user accounts: the host reports who signed in, how, and
/// when, and libmfa decides what the second factor requires.
public struct MFAUser: Sendable, Equatable {
    /// First-factor provider ids that cannot carry a second factor
    /// (phone, anonymous, custom token, Apple Game Center), as in the service.
    public static let unsupportedFirstFactors: Set<String> = ["phone", "anonymous", "custom", "gc.apple.com"]
    /// The longest uid, tenant id or provider id accepted, in UTF-8 bytes.
    public static let maxIdentifierBytes = 128

    /// The user's id, 1 to 128 bytes.
    public var uid: String
    /// The tenant, or nil for the project itself.
    public var tenant: String?
    /// The email address, if any.
    public var email: String?
    /// Whether the host has verified the email address.
    public var emailVerified: Bool
    /// The first-factor provider id: `"password"`, `"emailLink"`, an OAuth
    /// provider such as `"google.com"`, or one of `unsupportedFirstFactors`.
    public var provider: String
    /// When the user passed the first factor (Unix seconds).
    public var authTime: Int64

    /// Creates a user.
    /// - Parameters:
    ///   - uid: the user's id.
    ///   - tenant: the tenant, or nil for the project.
    ///   - email: the email address, if any.
    ///   - emailVerified: whether it is verified.
    ///   - provider: the first-factor provider id.
    ///   - authTime: when the first factor was passed (Unix seconds).
    public init(uid: String, tenant: String? = nil, email: String? = nil, emailVerified: Bool = false,
                provider: String = "password", authTime: Int64) {
        self.uid = uid
        self.tenant = tenant
        self.email = email
        self.emailVerified = emailVerified
        self.provider = provider
        self.authTime = authTime
    }

    /// The tenant as stored: "" for the project.
    var tenantKey: String { tenant ?? "" }

    /// Whether the first factor can carry a second one. Provider ids are
    /// compared without regard to case or surrounding space (`"Phone"` and
    /// `" ANONYMOUS "` cannot).
    public var firstFactorSupportsMFA: Bool {
        !Self.unsupportedFirstFactors.contains(Self.normalizedProvider(provider))
    }

    /// A provider id lower-cased and stripped of surrounding white space.
    static func normalizedProvider(_ provider: String) -> String {
        if let ascii = asciiNormalizedProvider(provider) { return ascii }
        let scalars = provider.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last])).lowercased()
    }

    /// `normalizedProvider` of an ASCII provider id (every one in practice)
    /// without Unicode tables, and without a copy when it is already
    /// normalized; nil for any other.
    private static func asciiNormalizedProvider(_ provider: String) -> String? {
        // Unicode's White_Space within ASCII: tab, line feed, vertical tab, form feed, carriage return, space.
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0d).contains(byte) }
        return provider.utf8.withContiguousStorageIfAvailable { (bytes) -> String? in
            var upper = false
            for byte in bytes {
                guard byte < 0x80 else { return nil }
                if (0x41...0x5a).contains(byte) { upper = true }
            }
            var start = 0
            var end = bytes.count
            while start < end, isSpace(bytes[start]) { start += 1 }
            while end > start, isSpace(bytes[end - 1]) { end -= 1 }
            if !upper, start == 0, end == bytes.count { return provider }
            return String(unsafeUninitializedCapacity: end - start) { (out) -> Int in
                for index in start..<end {
                    let byte = bytes[index]
                    out[index - start] = (0x41...0x5a).contains(byte) ? byte + 0x20 : byte
                }
                return end - start
            }
        } ?? nil
    }

    /// Throws `invalidArgument` for an empty or overlong uid, tenant or
    /// provider, or a uid or tenant holding a control character.
    func validate() throws(MFAError) {
        try Self.checkIdentifier(uid, "uid")
        if let tenant { try Self.checkIdentifier(tenant, "tenant") }
        // A provider id is only compared (surrounding white space, tabs and line breaks included, is ignored).
        try Self.checkLength(provider, "provider")
        if let email, email.utf8.count > 320 { throw MFAError(.invalidArgument, "email is too long") }
    }

    /// Throws `invalidArgument` naming the field unless `value` is 1 to 128
    /// bytes without a control character (`IdentifierText`): the one check of
    /// every uid, tenant and enrollment id that enters libmfa.
    static func checkIdentifier(_ value: String, _ name: String) throws(MFAError) {
        try checkLength(value, name)
        try IdentifierText.check(value, name)
    }

    /// Throws `invalidArgument` unless `value` is 1 to 128 bytes.
    static func checkLength(_ value: String, _ name: String) throws(MFAError) {
        guard !value.isEmpty, value.utf8.count <= maxIdentifierBytes else {
            throw MFAError(.invalidArgument, "\(name) must be 1 to 128 bytes")
        }
    }
}
