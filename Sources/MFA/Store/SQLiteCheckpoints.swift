import CSQLite

/// When a SQLite connection checkpoints the write-ahead log: once the log
/// holds `threshold` frames, and after that once per `threshold` frames
/// more until the log starts over; past `ceiling` frames, after every
/// commit, as SQLite's own policy does past `threshold`.
///
/// SQLite's own policy checkpoints after every commit that leaves the log
/// at `threshold` frames or more. A checkpoint copies only the frames that
/// no reader still needs, and the log starts over only after a checkpoint
/// copied them all. While another process reads the same file without a
/// pause (a second server on the store), that seldom happens: the log stays
/// over the threshold and every commit runs a checkpoint, each with its
/// `fdatasync`. With two processes signing in on one file, SQLite's policy
/// ran 7,000 to 18,000 checkpoints for 20,000 sign-ins; this one about 30
/// while the log stayed under the ceiling, and the sign-ins ran about a
/// tenth faster (`bench/probes/checkpoints.sh`, docs/scaling.md). With one
/// process every checkpoint copies the whole log, which then starts over,
/// and the two policies do the same work.
///
/// Fewer checkpoints are fewer chances for the log to start over, so past
/// `ceiling` frames (32 MiB of 4 KiB pages) the policy turns back to
/// SQLite's and tries after every commit. (Neither policy bounds the log
/// while another connection keeps reading: a passive checkpoint waits for
/// no reader.)
///
/// The checkpoint runs in the commit's own call, as SQLite's does: no
/// thread is started in the host process.
final class SQLiteCheckpoints {
    /// SQLite's own threshold, in frames (pages).
    static let threshold: Int32 = 1000
    /// The log's size, in frames, past which every commit checkpoints.
    static let ceiling: Int32 = 8 * threshold

    /// The log's size in frames when this connection last ran a checkpoint
    /// (0: none since the log last started over).
    private var lastRun: Int32 = 0
    /// How many checkpoints this connection has run.
    private(set) var runs = 0

    /// Makes this policy `handle`'s, in place of SQLite's. The connection
    /// keeps the policy alive for as long as the handle is open.
    func install(on handle: OpaquePointer?) {
        sqlite3_wal_hook(handle, sqliteCommitted, Unmanaged.passUnretained(self).toOpaque())
    }

    /// After each commit, with the log's size in frames: checkpoints if the
    /// log grew by `threshold` frames since the last checkpoint (or reached
    /// it since the log started over), or holds `ceiling` frames or more.
    fileprivate func committed(_ handle: OpaquePointer?, _ schema: UnsafePointer<CChar>?, frames: Int32) {
        if frames < lastRun { lastRun = 0 }
        guard frames >= Self.threshold, frames >= Self.ceiling || frames - lastRun >= Self.threshold else { return }
        lastRun = frames
        runs += 1
        // PASSIVE, as SQLite's own: it copies what it can without waiting for readers or writers.
        sqlite3_wal_checkpoint_v2(handle, schema, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }
}

/// SQLite's write-ahead-log hook: hands the commit to the connection's `SQLiteCheckpoints`.
private func sqliteCommitted(_ context: UnsafeMutableRawPointer?, _ handle: OpaquePointer?,
                             _ schema: UnsafePointer<CChar>?, _ frames: Int32) -> Int32 {
    guard let context else { return SQLITE_OK }
    Unmanaged<SQLiteCheckpoints>.fromOpaque(context).takeUnretainedValue().committed(handle, schema, frames: frames)
    // A checkpoint that could not run is no error of the commit, which is done.
    return SQLITE_OK
}
