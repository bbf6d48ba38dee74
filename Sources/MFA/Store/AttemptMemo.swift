/// What a first-factor sign-in read, kept for the resolve that follows it
/// in the same context: for each of the user's TOTP factors, the view an
/// attempt would read (the factor, the user's record and used-up column,
/// the failure counts, the configuration documents).
///
/// A resolve that finds its pending credential here and a right code needs
/// no read of its own: its single conditional write (`MFAStore.acceptRecorded`)
/// checks on the user's newest row everything the decision rests on, and
/// when anything moved (a failure counted, a credential or step used,
/// tokens revoked, the factor removed) nothing is written and the resolve
/// reads afresh. A wrong code, a refusal or a miss also reads afresh, so
/// what is kept here can only save work, never change an answer, except
/// that a sign-in in flight is judged under the configuration it began in
/// when another context changed it meanwhile (this context's own changes
/// empty the memo).
///
/// It also keeps the pending credential's text with the claims sealed in
/// it, so that the resolve need not open the credential again: a text that
/// equals, byte for byte, one this context sealed says what it said then.
///
/// Each entry is used once, lives no longer than its pending credential,
/// and holds only what the store holds (secrets stay sealed); at most
/// `capacity` entries are kept.
package final class AttemptMemo: @unchecked Sendable {
    /// The most pending credentials remembered.
    package static let capacity = 4096

    private struct Entry {
        let expires: Int64
        let views: [AttemptView]
        let token: String
        let claims: TokenClaims
    }

    /// A token id as two words: hashed in two steps, not sixteen.
    private struct Key: Hashable {
        let high: UInt64
        let low: UInt64

        init(high: UInt64, low: UInt64) {
            (self.high, self.low) = (high, low)
        }

        init(_ id: [UInt8]) {
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) { out in
                id.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(16))) }
            }
            (high, low) = (words.0, words.1 ^ UInt64(id.count))
        }
    }

    private let lock = Lock()
    /// Only touched with `lock` held.
    private var entries: [Key: Entry] = [:]
    /// The token id of each remembered credential, by `textKey` of its text (with `lock` held).
    private var byText: [Key: Key] = [:]

    /// A credential's text as two words: its first characters after the
    /// version prefix, which encode the random nonce in front of the
    /// sealed bytes (distinct for every credential; the whole text is
    /// compared after the lookup).
    private static func textKey(_ token: String) -> Key? {
        var token = token
        return token.withUTF8 { (utf8) -> Key? in
            guard utf8.count >= 19 else { return nil }
            let words = UnsafeRawBufferPointer(utf8)
            return Key(high: words.loadUnaligned(fromByteOffset: 3, as: UInt64.self),
                       low: words.loadUnaligned(fromByteOffset: 11, as: UInt64.self))
        }
    }

    package init() {}

    /// How many pending credentials are remembered.
    package var count: Int { lock.withLock { entries.count } }

    /// Remembers `views` for the pending credential `token` sealing
    /// `claims`, until the credential expires; `now` is the current time,
    /// to drop old entries when full.
    package func keep(_ token: String, claims: TokenClaims, views: [AttemptView], now: Int64) {
        guard !views.isEmpty, let text = Self.textKey(token) else { return }
        lock.withLock {
            if entries.count >= Self.capacity {
                entries = entries.filter { $0.value.expires >= now }
                // Still full: forget a quarter, in no particular order.
                if entries.count >= Self.capacity {
                    for key in entries.keys.prefix(Self.capacity / 4) { entries[key] = nil }
                }
                byText = byText.filter { entries[$0.value] != nil }
            }
            let key = Key(claims.id)
            if let earlier = entries[key], let earlierText = Self.textKey(earlier.token) { byText[earlierText] = nil }
            entries[key] = Entry(expires: claims.expires, views: views, token: token, claims: claims)
            byText[text] = key
        }
    }

    /// The claims sealed in `token`, if this context sealed exactly that
    /// text and still remembers it (the entry stays for `take`).
    package func claims(of token: String) -> TokenClaims? {
        guard let text = Self.textKey(token) else { return nil }
        return lock.withLock { () -> TokenClaims? in
            guard let key = byText[text], let entry = entries[key], entry.token == token else { return nil }
            return entry.claims
        }
    }

    /// Forgets the pending credential `tokenID`, returning the view kept for
    /// its factor `enrollmentID`, if any and not past `now`.
    package func take(_ tokenID: [UInt8], enrollmentID: String, now: Int64) -> AttemptView? {
        let found = lock.withLock { () -> Entry? in
            guard let entry = entries.removeValue(forKey: Key(tokenID)) else { return nil }
            if let text = Self.textKey(entry.token) { byText[text] = nil }
            return entry
        }
        guard let entry = found, entry.expires >= now else { return nil }
        return entry.views.first { $0.factor?.enrollmentID == enrollmentID }
    }

    /// Forgets everything (the configuration changed).
    package func clear() {
        lock.withLock {
            entries.removeAll()
            byText.removeAll()
        }
    }
}
