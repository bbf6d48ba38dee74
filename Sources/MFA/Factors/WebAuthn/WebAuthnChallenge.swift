/// A WebAuthn challenge that is a libmfa token: the challenge bytes are the
/// sealed token's bytes, so `clientDataJSON.challenge` (their base64url) is
/// the token's text without its `v2.` prefix.
///
/// `finish` opens the token from the client data itself: its purpose,
/// user, tenant, expiry and revocation epoch are sealed in it, and its id is
/// the id of the enrollment session or pending credential it was made for,
/// whose single use the store records. Nothing is stored between the
/// ceremony's start and its finish.
enum WebAuthnChallenge {
    private static let prefix = "v2."

    /// The challenge (base64url) for `claims`.
    static func make(_ claims: TokenClaims, keyring: MasterKeyring) throws(MFAError) -> String {
        String(try OpaqueToken.seal(claims, keyring: keyring).dropFirst(prefix.count))
    }

    /// Opens the challenge a response carries.
    /// - Throws: `invalidSession` if it is not an intact challenge of this purpose.
    static func open(_ challenge: String, purpose: TokenPurpose, keyring: MasterKeyring) throws(MFAError) -> TokenClaims {
        do {
            return try OpaqueToken.open(prefix + challenge, purpose: purpose, keyring: keyring)
        } catch {
            throw MFAError(.invalidSession, "the response answers a challenge libmfa did not make for this ceremony")
        }
    }
}
