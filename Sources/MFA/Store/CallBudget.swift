import Glibc

/// The time one call may spend on its store, shared by every statement,
/// transaction and retry the call makes.
///
/// A store's deadline (`mfa_deadline_ms` on PostgreSQL, the busy timeout
/// on SQLite) bounds a call, not each try: a sign-in that reads, writes,
/// meets serialization failures and runs its transaction again, or waits
/// for another process's write lock several times, gives up once the time
/// it spent waiting on the store in all reaches the deadline. Time the
/// call spends elsewhere (the host's SMS sender or app verifier, its own
/// cryptography) is not counted.
///
/// The engine's calls open a scope (`begin`) on their thread; a call inside
/// another shares the outer one's budget. Outside any scope (a bulk
/// operation's batches, an administrative call), each transaction or read
/// has a budget of its own, its retries included. The state is one word
/// per thread (a `pthread` key): what the call has spent so far.
package enum CallBudget {
    /// The thread's call: nil outside one; else 1 + the nanoseconds spent.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// A call begun on this thread (`begin`); `end` it when the call returns.
    package struct Scope {
        fileprivate let outermost: Bool

        /// Ends the call, if this scope began it.
        package func end() {
            if outermost { pthread_setspecific(CallBudget.key, nil) }
        }
    }

    /// Begins a call on this thread, unless one is under way (then the
    /// scope shares its budget and its `end` does nothing).
    package static func begin() -> Scope {
        guard pthread_getspecific(key) == nil else { return Scope(outermost: false) }
        pthread_setspecific(key, UnsafeMutableRawPointer(bitPattern: 1))
        return Scope(outermost: true)
    }

    /// What this thread's call has spent on the store so far, in
    /// nanoseconds; nil outside a call.
    package static var spent: Int64? {
        guard let word = pthread_getspecific(key) else { return nil }
        return Int64(Int(bitPattern: word) - 1)
    }

    /// Adds `nanoseconds` to what this thread's call has spent (nothing outside a call).
    package static func charge(_ nanoseconds: Int64) {
        guard let spent, nanoseconds > 0 else { return }
        let ceiling = Int64(Int.max / 2)
        let total = spent >= ceiling || nanoseconds >= ceiling - spent ? ceiling : spent + nanoseconds
        pthread_setspecific(key, UnsafeMutableRawPointer(bitPattern: Int(total) + 1))
    }

    /// The monotonic clock, in nanoseconds.
    package static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
