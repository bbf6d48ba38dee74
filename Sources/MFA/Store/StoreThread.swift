import Glibc

/// Whether this thread is inside a store's closure (a transaction, a read or
/// a write in progress), where nothing may start another store call: the
/// embedded store's one connection is held by the call under way.
///
/// The engine asks before it writes an audit event in a transaction of its
/// own (`MFAContext.audit`): an event reported from inside a store call (an
/// integrity failure found while an attempt is judged) waits for the call
/// to end. The state is one word per thread (a `pthread` key): the depth.
package enum StoreThread {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Whether the thread is inside a store's closure.
    package static var busy: Bool { pthread_getspecific(key) != nil }

    /// Runs `body` as a store's closure.
    package static func inside<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let depth = Int(bitPattern: pthread_getspecific(key))
        pthread_setspecific(key, UnsafeMutableRawPointer(bitPattern: depth + 1))
        defer { pthread_setspecific(key, UnsafeMutableRawPointer(bitPattern: depth)) }
        return try body()
    }
}
