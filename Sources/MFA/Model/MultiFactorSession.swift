/// Proof that a user recently passed the first factor, needed to enroll a
/// second factor. Its `token` is opaque, expiring and bound to the user; the
/// host may hand it to a client and rebuild the session from it later.
public struct MultiFactorSession: Sendable {
    /// The opaque token.
    public let token: String
    /// The context that minted it.
    public let context: MFAContext

    /// Rebuilds a session from a token a client sent back.
    public init(token: String, context: MFAContext) {
        self.token = token
        self.context = context
    }
}
