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

/// What `MFAContext.checkSeals` found.
public struct SealCheckResult: Sendable, Equatable {
    /// Sealed records read.
    public let checked: Int
    /// The ids of the records that did not open with the keys given (their
    /// key is missing, or they were altered or moved), at most 100.
    public let failed: [String]
    /// How many records did not open, in all.
    public let failedCount: Int

    /// Creates a result.
    public init(checked: Int, failed: [String], failedCount: Int) {
        self.checked = checked
        self.failed = failed
        self.failedCount = failedCount
    }
}

extension MFAContext {
    /// Opens every sealed record (factor secrets, pending secrets, SMS codes)
    /// with the keyring, reading in batches, and reports those that do not
    /// open: after a key rotation, a check with only the new key proves that
    /// nothing still needs an old one. Nothing is written.
    ///
    /// Every row of every sealed table is checked, whatever its seal format:
    /// a factor still sealed the schema-2 way counts as checked if a key
    /// given opens it that way (the next open re-seals it), and a format
    /// this libmfa cannot read counts as failed.
    /// - Parameters:
    ///   - batchSize: records per read, 1 to 10,000.
    ///   - progress: called after each batch with the records checked and
    ///     the total; return false to stop.
    /// - Throws: `invalidArgument` (batch size), `storageError`.
    public func checkSeals(batchSize: Int = 1000,
                           progress: (_ done: Int, _ total: Int) -> Bool = { _, _ in true }) throws(MFAError)
        -> SealCheckResult {
        guard Self.rotationBatchSizes.contains(batchSize) else {
            throw MFAError(.invalidArgument, "batch size must be 1 to 10000")
        }
        let total = Int(clamping: try store.sealedCount(notUnder: ""))
        var checked = 0
        var failed: [String] = []
        var failedCount = 0
        scan: for table in MFAStore.sealedTables {
            var after = ""
            while true {
                let batch = try store.sealedRecords(in: table, notUnder: nil, after: after, limit: batchSize,
                                                    everyFormat: true)
                guard let last = batch.last else { break }
                after = last.id
                for row in batch where !opens(row) {
                    failedCount += 1
                    if failed.count < 100 { failed.append(row.id) }
                }
                checked += batch.count
                if !progress(checked, max(total, checked)) { break scan }
            }
        }
        return SealCheckResult(checked: checked, failed: failed, failedCount: failedCount)
    }

    /// Whether a sealed row opens with the keyring, in its own seal format.
    private func opens(_ row: SealedRow) -> Bool {
        switch row.format {
        case FactorRecord.currentSealFormat:
            (try? RecordSealer.open(row.sealed, keyID: row.keyID, row.binding, keyring: keyring)) != nil
        case FactorRecord.legacySealFormat where row.table == .factors:
            ((try? RecordSealer.openLegacy(row.sealed, keyID: row.keyID, row.binding, keyring: keyring)) ?? nil) != nil
        default:
            false
        }
    }
}
