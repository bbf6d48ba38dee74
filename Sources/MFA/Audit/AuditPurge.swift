/// Purging the stored trail by the configuration's retention and size
/// (`AuditTrailSettings`), keeping every chain verifiable.
///
/// A purge deletes a chain's oldest events and moves its anchor on in the
/// same transaction: the anchor names the first event kept and holds the
/// MAC of the event before it, and the head row that carries both is
/// MACed again. So the kept events still verify from the anchor, and
/// deleting the first kept events later is seen as a break like any
/// other. A purge deletes only a run of events that is whole from the
/// anchor (no event missing, none before it): a chain broken there is left
/// as it is for `verifyAuditTrail` to report, never laundered by a purge.
extension AuditTrail {
    /// Events deleted per transaction (so a purge never holds a chain's head for long).
    static let purgeBatch: Int64 = 10_000

    /// What a purge did.
    package struct PurgeResult: Sendable, Equatable {
        /// Events deleted.
        package var deleted = 0
        /// The chains left unpurged because the events to delete were not whole.
        package var skipped: [String] = []
    }

    /// Purges every chain of the store by `settings`, as of `now`.
    package func purge(_ database: SQLDatabase, settings: AuditTrailSettings, now: Int64) throws(MFAError)
        -> PurgeResult {
        var result = PurgeResult()
        guard settings.purges else { return result }
        let chains = try database.read { (db) throws(MFAError) -> [String] in
            try db.query("SELECT chain FROM mfa_audit_chains ORDER BY chain", []).compactMap { $0.first?.text }
        }
        for chain in chains {
            while true {
                let step = try database.transaction { (db) throws(MFAError) -> (deleted: Int64, whole: Bool) in
                    try purgeBatch(db, chain: chain, settings: settings, now: now, database.dialect)
                }
                result.deleted += Int(step.deleted)
                if !step.whole { result.skipped.append(chain) }
                if step.deleted < Self.purgeBatch || !step.whole { break }
            }
        }
        return result
    }

    /// One batch of a chain's purge, in the caller's transaction.
    private func purgeBatch(_ db: SQLConnection, chain name: String, settings: AuditTrailSettings, now: Int64,
                            _ dialect: any SQLDialect) throws(MFAError) -> (deleted: Int64, whole: Bool) {
        let trail = AuditTrail(chain: name, keyring: keyring)
        var head = try trail.lockHead(db, dialect, time: now)
        var keepFrom = head.anchorSeq
        if settings.retentionDays > 0 {
            // At most 36,500 days (`retentionDaysRange`): no overflow.
            let cutoff = now.minus(settings.retentionDays * 86_400)
            // From the first event of the retention period on, everything is kept.
            let first = try db.query("""
                SELECT MIN(seq) FROM mfa_audit_events WHERE chain = ? AND seq >= ? AND time >= ?
                """, [.text(name), .int(head.anchorSeq), .int(cutoff)]).first?.first?.int
            keepFrom = max(keepFrom, first ?? head.seq + 1)
        }
        if settings.maxEvents > 0 {
            keepFrom = max(keepFrom, head.seq.minus(settings.maxEvents) + 1)
        }
        let until = min(keepFrom, head.anchorSeq.plus(Self.purgeBatch), head.seq + 1)
        guard until > head.anchorSeq else { return (0, true) }
        // The run to delete must be whole: exactly the events anchor ..< until, and the last one's MAC.
        let count = try db.query("SELECT COUNT(*) FROM mfa_audit_events WHERE chain = ? AND seq < ?",
                                 [.text(name), .int(until)]).first?.first?.int
        let last = try db.query("SELECT mac FROM mfa_audit_events WHERE chain = ? AND seq = ?",
                                [.text(name), .int(until - 1)]).first?.first?.blob
        guard count == until - head.anchorSeq, let prev = last else { return (0, false) }
        let deleted = try db.execute("DELETE FROM mfa_audit_events WHERE chain = ? AND seq < ?",
                                     [.text(name), .int(until)])
        head.anchorSeq = until
        head.anchorPrev = prev
        if head.seq < until { head.mac = prev }
        let key = keyring.current
        try db.execute("""
            UPDATE mfa_audit_chains SET anchor_seq = ?, anchor_prev = ?, head_seq = ?, head_mac = ?, key_id = ?, \
            mac = ? WHERE chain = ?
            """, [.int(head.anchorSeq), .blob(head.anchorPrev), .int(head.seq), .blob(head.mac), .text(key.id),
                  .blob(AuditMAC.head(key: key, head)), .text(name)])
        return (Int64(deleted), true)
    }
}
