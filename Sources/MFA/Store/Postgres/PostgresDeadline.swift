import Glibc

/// A moment on the monotonic clock by which a wait on the server must end.
struct PostgresDeadline {
    /// The milliseconds it was set to, for messages.
    let milliseconds: Int
    private let end: Int64

    /// The moment `milliseconds` from now.
    init(milliseconds: Int) {
        self.milliseconds = milliseconds
        end = Self.now() + Int64(milliseconds) * 1_000_000
    }

    /// The moment a call's budget of `milliseconds` runs out, when
    /// `spent` nanoseconds of it were used before `start` (`CallBudget`).
    init(milliseconds: Int, start: Int64, spent: Int64) {
        self.milliseconds = milliseconds
        end = start + Int64(milliseconds) * 1_000_000 - min(max(spent, 0), Int64(milliseconds) * 1_000_000)
    }

    /// Whether the moment has passed.
    var passed: Bool { Self.now() >= end }

    /// This deadline or `other`, whichever comes first (with its milliseconds, for messages).
    func earlier(_ other: PostgresDeadline) -> PostgresDeadline {
        end <= other.end ? self : other
    }

    /// Milliseconds left, rounded up; 0 once the deadline has passed.
    var remaining: Int32 {
        let left = end - Self.now()
        return left <= 0 ? 0 : Int32(clamping: (left + 999_999) / 1_000_000)
    }

    /// Waits until `socket` is ready for `events` (`POLLIN`, `POLLOUT`).
    /// - Returns: false if the deadline passed first.
    /// - Throws: `storageError` if the socket cannot be waited on.
    func wait(socket: Int32, for events: Int32) throws(MFAError) -> Bool {
        guard socket >= 0 else { throw MFAError(.storageError, "postgres: the connection has no socket") }
        while true {
            let left = remaining
            guard left > 0 else { return false }
            var descriptor = pollfd(fd: socket, events: Int16(truncatingIfNeeded: events), revents: 0)
            let ready = poll(&descriptor, 1, left)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR {
                throw MFAError(.storageError, "postgres: cannot wait for the server (errno \(errno))")
            }
        }
    }

    private static func now() -> Int64 {
        CallBudget.now()
    }
}
