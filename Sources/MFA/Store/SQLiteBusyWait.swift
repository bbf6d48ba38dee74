import CSQLite
import Glibc

/// How an SQLite connection waits for another process's lock: SQLite's
/// own schedule of sleeps (1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, then
/// 100 ms), which lets the other process run alone, for at most
/// `timeoutMilliseconds` per call.
///
/// SQLite's busy timeout bounds each statement's wait: a call that meets a
/// busy store at several statements waited that long at each. Here the
/// sleeps are charged to the call (`CallBudget`), so that a call waits at
/// most the timeout in all; outside a call each wait gets the whole timeout,
/// as SQLite's own handler gives it.
enum SQLiteBusyWait {
    /// The most a call waits for locks, in milliseconds.
    static let timeoutMilliseconds: Int64 = 10_000

    /// SQLite's sleeps, in milliseconds (`sqliteDefaultBusyCallback`).
    private static let delays: [Int64] = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]

    /// Installs the handler on `handle`; each wait is counted in `metrics`
    /// (held unretained: the connection's database keeps it).
    static func install(on handle: OpaquePointer?, metrics: StoreMetrics?) {
        sqlite3_busy_handler(handle, { context, count in
            guard SQLiteBusyWait.wait(count: Int(count)) else { return 0 }
            if let context { Unmanaged<StoreMetrics>.fromOpaque(context).takeUnretainedValue().retried(.busy) }
            return 1
        }, metrics.map { Unmanaged.passUnretained($0).toOpaque() })
    }

    /// Sleeps before try `count` + 1 of a statement that met a lock.
    /// - Returns: false to give up (the statement fails with SQLITE_BUSY).
    static func wait(count: Int) -> Bool {
        let delay = count < delays.count ? delays[count] : delays[delays.count - 1]
        let waited: Int64
        if let spent = CallBudget.spent {
            waited = spent / 1_000_000
        } else {
            // What this statement slept before, as SQLite counts it.
            let index = min(count, delays.count)
            waited = delays.prefix(index).reduce(0, +) + Int64(max(count - delays.count, 0)) * delays[delays.count - 1]
        }
        let sleep = min(delay, timeoutMilliseconds - waited)
        guard sleep > 0 else { return false }
        usleep(UInt32(sleep) * 1000)
        CallBudget.charge(sleep * 1_000_000)
        return true
    }
}
