/// How a key rotation ended (`MFAContext.rotateKeys(batchSize:actor:progress:)`).
public struct KeyRotationResult: Sendable, Equatable {
    /// Records re-encrypted by this run.
    public let rotated: Int
    /// Records still not under the current key when the run ended (0 when it
    /// finished; after a stop, what the next run will do).
    public let remaining: Int
    /// Whether the run was stopped by its progress callback before the end.
    public let stopped: Bool

    /// Creates a result.
    public init(rotated: Int, remaining: Int, stopped: Bool) {
        self.rotated = rotated
        self.remaining = remaining
        self.stopped = stopped
    }
}

extension MFAContext {
    /// The batch sizes key rotation accepts.
    public static let rotationBatchSizes: ClosedRange<Int> = 1...10_000

    /// Re-encrypts every stored secret that is not under the current master
    /// key, in batches that are each their own short transaction, so a large
    /// store is never locked for long and other calls go on meanwhile.
    ///
    /// Interrupting it loses nothing: a batch commits whole or not at all, and
    /// each record is replaced only if it is still what was read. Running it
    /// again resumes: what is left is exactly the records not under the
    /// current key.
    /// - Parameters:
    ///   - batchSize: records per transaction, 1 to 10,000.
    ///   - actor: who runs it, for the `KEYS_ROTATED` audit event (nil: "").
    ///   - progress: called after each committed batch with the records done
    ///     and the total found at the start (the total may grow if other
    ///     processes still seal under an old key); return false to stop
    ///     between batches.
    /// - Returns: what was done and what is left.
    /// - Throws: `invalidArgument` (batch size), `crypto` if a record's key is
    ///   not in the keyring or a record does not decrypt for its row (the
    ///   batches before stay done), `storageError`.
    public func rotateKeys(batchSize: Int, actor: String? = nil,
                           progress: (_ done: Int, _ total: Int) -> Bool) throws(MFAError) -> KeyRotationResult {
        guard Self.rotationBatchSizes.contains(batchSize) else {
            throw MFAError(.invalidArgument, "batch size must be 1 to 10000")
        }
        if let actor { try Self.checkActor(actor) }
        let current = keyring.current.id
        var total = Int(clamping: try store.sealedCount(notUnder: current))
        var done = 0
        var stopped = false
        passes: while true {
            var rotatedInPass = 0
            for table in MFAStore.sealedTables {
                var after = ""
                while true {
                    let batch = try store.sealedRecords(in: table, notUnder: current, after: after, limit: batchSize)
                    guard let last = batch.last else { break }
                    after = last.id
                    var updates: [(row: SealedRow, keyID: String, sealed: [UInt8])] = []
                    for row in batch {
                        let plain = try RecordSealer.open(row.sealed, keyID: row.keyID, row.binding, keyring: keyring)
                        let sealed = try RecordSealer.seal(plain, row.binding, keyring: keyring)
                        updates.append((row, sealed.keyID, sealed.sealed))
                    }
                    try store.reseal(updates)
                    done += updates.count
                    rotatedInPass += updates.count
                    total = max(total, done)
                    if !progress(done, total) {
                        stopped = true
                        break passes
                    }
                }
            }
            // Records sealed under an old key while this pass ran: another pass.
            if rotatedInPass == 0 { break }
            let left = try store.sealedCount(notUnder: current)
            if left == 0 { break }
        }
        let remaining = Int(clamping: try store.sealedCount(notUnder: current))
        audit(AuditEvent(kind: .keysRotated, tenant: "", time: clock.now(),
                         detail: "\(done) records re-encrypted, \(remaining) left", actor: actor ?? ""))
        return KeyRotationResult(rotated: done, remaining: remaining, stopped: stopped)
    }
}
