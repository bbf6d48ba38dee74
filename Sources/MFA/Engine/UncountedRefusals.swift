/// How many second-factor attempts each user had refused without being
/// counted toward backoff, in this context: the bound on such refusals.
///
/// Some refusals say nothing about whether the user holds the factor: a
/// WebAuthn response made on a page of another origin, scoped to another
/// rp id, or without the user verification the configuration requires.
/// A misconfigured site or browser causes them as well as an attacker, so
/// the first few go uncounted; but an attacker who holds a pending
/// credential could otherwise send them without end, and each costs the
/// store a read and the context the parsing of up to 64 KiB. So each user
/// gets `free` uncounted refusals per `window` seconds in a context;
/// every refusal after them is counted as a failed attempt against the
/// factor and the user (same backoff as a wrong code, shared by every
/// process on the store), while the answer still names what was wrong.
///
/// At most `capacity` users are tracked; when the table is full of users
/// whose window has not ended, a user not in it gets no uncounted refusal
/// (counting is the safe side).
package final class UncountedRefusals: @unchecked Sendable {
    /// Uncounted refusals a user gets per window.
    package static let free = 4
    /// The window, in seconds.
    package static let window: Int64 = 900
    /// The most users tracked.
    package static let capacity = 4096

    private struct Key: Hashable {
        let tenant: String
        let uid: String
    }

    private struct Entry {
        var count: Int
        var since: Int64
    }

    private let lock = Lock()
    /// Only touched with `lock` held.
    private var entries: [Key: Entry] = [:]

    package init() {}

    /// Records a refusal of `uid`'s attempt at `now`.
    /// - Returns: true if it may go uncounted, false if it must be counted.
    package func allow(tenant: String, uid: String, now: Int64) -> Bool {
        let key = Key(tenant: tenant, uid: uid)
        return lock.withLock { () -> Bool in
            if var entry = entries[key], now < entry.since.plus(Self.window), now >= entry.since {
                entry.count += 1
                entries[key] = entry
                return entry.count <= Self.free
            }
            if entries[key] == nil, entries.count >= Self.capacity {
                entries = entries.filter { now < $0.value.since.plus(Self.window) && now >= $0.value.since }
                guard entries.count < Self.capacity else { return false }
            }
            entries[key] = Entry(count: 1, since: now)
            return true
        }
    }
}
