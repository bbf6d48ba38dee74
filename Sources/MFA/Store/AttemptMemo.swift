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
/// Each entry is used once, lives no longer than its pending credential,
/// and holds only what the store holds (secrets stay sealed); at most
/// `capacity` entries are kept.
package final class AttemptMemo: @unchecked Sendable {
    /// The most pending credentials remembered.
    package static let capacity = 4096

    private struct Entry {
        let expires: Int64
        let views: [AttemptView]
    }

    /// A token id as two words: hashed in two steps, not sixteen.
    private struct Key: Hashable {
        let high: UInt64
        let low: UInt64

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

    package init() {}

    /// How many pending credentials are remembered.
    package var count: Int { lock.withLock { entries.count } }

    /// Remembers `views` for the pending credential `tokenID`, until `expires`
    /// (the credential's expiry); `now` is the current time, to drop old entries when full.
    package func keep(_ tokenID: [UInt8], views: [AttemptView], expires: Int64, now: Int64) {
        guard !views.isEmpty else { return }
        lock.withLock {
            if entries.count >= Self.capacity {
                entries = entries.filter { $0.value.expires >= now }
                // Still full: forget a quarter, in no particular order.
                if entries.count >= Self.capacity {
                    for key in entries.keys.prefix(Self.capacity / 4) { entries[key] = nil }
                }
            }
            entries[Key(tokenID)] = Entry(expires: expires, views: views)
        }
    }

    /// Forgets the pending credential `tokenID`, returning the view kept for
    /// its factor `enrollmentID`, if any and not past `now`.
    package func take(_ tokenID: [UInt8], enrollmentID: String, now: Int64) -> AttemptView? {
        guard let entry = lock.withLock({ entries.removeValue(forKey: Key(tokenID)) }), entry.expires >= now else {
            return nil
        }
        return entry.views.first { $0.factor?.enrollmentID == enrollmentID }
    }

    /// Forgets everything (the configuration changed).
    package func clear() {
        lock.withLock { entries.removeAll() }
    }
}
