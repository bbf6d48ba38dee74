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

    /// The remembered credentials: kept in one value, so that a call
    /// checks its exclusive access once, not at each of its dictionary operations.
    private struct State {
        var entries: [Key: Entry] = [:]
        /// The token id of each remembered credential, by `textKey` of its text.
        var byText: [Key: Key] = [:]
    }

    private let lock = Lock()
    /// Only touched with `lock` held.
    private var state = State()

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
    package var count: Int { lock.withLock { state.entries.count } }

    /// Remembers `views` for the pending credential `token` sealing
    /// `claims`, until the credential expires; `now` is the current time,
    /// to drop old entries when full.
    package func keep(_ token: String, claims: TokenClaims, views: [AttemptView], now: Int64) {
        guard !views.isEmpty, let text = Self.textKey(token) else { return }
        let key = Key(claims.id)
        let entry = Entry(expires: claims.expires, views: views, token: token, claims: claims)
        lock.withLock { Self.keep(entry, key: key, text: text, now: now, in: &state) }
    }

    private static func keep(_ entry: Entry, key: Key, text: Key, now: Int64, in state: inout State) {
        if state.entries.count >= capacity {
            state.entries = state.entries.filter { $0.value.expires >= now }
            // Still full: forget a quarter, in no particular order.
            if state.entries.count >= capacity {
                for key in state.entries.keys.prefix(capacity / 4) { state.entries[key] = nil }
            }
            let entries = state.entries
            state.byText = state.byText.filter { entries[$0.value] != nil }
        }
        if let earlier = state.entries.updateValue(entry, forKey: key), let earlierText = textKey(earlier.token) {
            state.byText[earlierText] = nil
        }
        state.byText[text] = key
    }

    /// The claims sealed in `token`, if this context sealed exactly that
    /// text and still remembers it (the entry stays for `take`).
    package func claims(of token: String) -> TokenClaims? {
        guard let text = Self.textKey(token) else { return nil }
        return lock.withLock { Self.claims(of: token, text: text, in: state) }
    }

    /// Forgets the pending credential `tokenID`, returning the view kept for
    /// its factor `enrollmentID`, if any and not past `now`.
    package func take(_ tokenID: [UInt8], enrollmentID: String, now: Int64) -> AttemptView? {
        let key = Key(tokenID)
        let found = lock.withLock { Self.take(key, from: &state) }
        guard let entry = found, entry.expires >= now else { return nil }
        // The entry is this call's alone now: its view is moved out, not copied.
        var views = entry.views
        guard let index = views.firstIndex(where: { $0.factor?.enrollmentID == enrollmentID }) else { return nil }
        return views.remove(at: index)
    }

    private static func claims(of token: String, text: Key, in state: State) -> TokenClaims? {
        guard let key = state.byText[text], let entry = state.entries[key], entry.token == token else { return nil }
        return entry.claims
    }

    private static func take(_ key: Key, from state: inout State) -> Entry? {
        guard let entry = state.entries.removeValue(forKey: key) else { return nil }
        if let text = textKey(entry.token) { state.byText[text] = nil }
        return entry
    }

    /// Forgets everything (the configuration changed).
    package func clear() {
        lock.withLock { state = State() }
    }
}
