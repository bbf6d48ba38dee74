/// Appends audit events to one chain of the stored trail, inside the
/// transaction of the write they record.
///
/// Appends to a chain are serialized by its head row in
/// `mfa_audit_chains`, locked (`FOR UPDATE` on PostgreSQL; SQLite's write
/// transaction holds the whole database) by the append, which is the last
/// thing a write does before it commits: every event of the chain follows
/// the one before it, in commit order, whatever process or server wrote it.
/// The head lock is always taken last, so it never waits in a cycle with
/// the user rows a write locks first. Processes that name different
/// chains (`MFAOptions.auditChain`) never wait for each other's head.
///
/// Before it appends, the writer checks the head's MAC. A head that fails
/// (altered: the last events deleted and the head moved back with them, or
/// the anchor moved) is not trusted silently: the writer
/// first appends an `INTEGRITY_FAILURE` event (detail
/// `AUDIT_CHAIN_HEAD`) that stays in the chain, and that
/// `MFAContext.verifyAuditTrail` reports as a break.
package final class AuditTrail: Sendable {
    /// The chain this context appends to.
    package let chain: String
    let keyring: MasterKeyring

    /// The detail of the event a writer appends when it finds its chain's head altered.
    package static let headAlteredDetail = "AUDIT_CHAIN_HEAD"
    /// Rows per insert statement.
    private static let rowsPerStatement = 64

    package init(chain: String, keyring: MasterKeyring) {
        self.chain = chain
        self.keyring = keyring
    }

    /// Appends `events`, in order, to the chain; the caller's transaction
    /// commits them with what they record.
    package func append(_ db: SQLConnection, _ events: [AuditEvent], _ dialect: any SQLDialect) throws(MFAError) {
        guard !events.isEmpty else { return }
        var locked = try lockHead(db, dialect, time: events[0].time)
        try write(db, events, after: &locked, dialect)
    }

    /// The chain's head, locked until the transaction ends (created if the
    /// chain has none), checked; a head that fails its check gets its
    /// `AUDIT_CHAIN_HEAD` event appended first.
    func lockHead(_ db: SQLConnection, _ dialect: any SQLDialect, time: Int64) throws(MFAError) -> AuditHead {
        var found = try Self.readHead(db, chain, lock: dialect.rowLock)
        if found == nil {
            let rebuilt = try Self.rebuiltHead(db, chain)
            let key = keyring.current
            try db.execute("""
                INSERT INTO mfa_audit_chains (chain, head_seq, head_mac, anchor_seq, anchor_prev, key_id, mac) \
                VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (chain) DO NOTHING
                """, [.text(chain), .int(rebuilt.head.seq), .blob(rebuilt.head.mac), .int(rebuilt.head.anchorSeq),
                      .blob(rebuilt.head.anchorPrev), .text(key.id),
                      .blob(rebuilt.intact ? AuditMAC.head(key: key, rebuilt.head) : AuditMAC.genesis)])
            found = try Self.readHead(db, chain, lock: dialect.rowLock)
        }
        guard let found else { throw MFAError(.storageError, "the audit chain's head could not be created") }
        var head = found.head
        if found.check(keyring) == .altered {
            try write(db, [AuditEvent(kind: .integrityFailure, tenant: "", time: time,
                                      detail: Self.headAlteredDetail)], after: &head, dialect)
        }
        return head
    }

    /// Inserts `events` after `head` and moves the head on (`head` becomes the new one).
    private func write(_ db: SQLConnection, _ events: [AuditEvent], after head: inout AuditHead,
                       _ dialect: any SQLDialect) throws(MFAError) {
        let key = keyring.current
        var rows: [[SQLValue]] = []
        rows.reserveCapacity(events.count)
        for event in events {
            let seq = head.seq + 1
            let kind = event.kind.rawValue
            let fields = AuditFields(event)
            let mac = AuditMAC.event(key: key, chain: chain, seq: seq, prev: head.mac, kind: kind, fields: fields)
            rows.append([.text(chain), .int(seq), .int(fields.time), .text(kind), .text(fields.tenant),
                         .text(fields.uid), .text(fields.factorID), .text(fields.enrollmentID), .text(fields.detail),
                         .text(fields.actor), .text(key.id), .blob(mac)])
            head.seq = seq
            head.mac = mac
        }
        let update: [SQLValue] = [.int(head.seq), .blob(head.mac), .text(key.id),
                                  .blob(AuditMAC.head(key: key, head)), .text(chain)]
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + Self.rowsPerStatement, rows.count)]
            start += chunk.count
            let insert = Self.insertSQL(rows: chunk.count)
            let parameters = chunk.flatMap { $0 }
            // The last chunk and the head's update: one statement where the dialect allows.
            if start == rows.count, dialect.writingCTEs {
                try db.execute("WITH e AS (\(insert) RETURNING 1) \(Self.updateHeadSQL)", parameters + update)
                return
            }
            try db.execute(insert, parameters)
        }
        try db.execute(Self.updateHeadSQL, update)
    }

    private static func insertSQL(rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: 12).joined(separator: ", ") + ")"
        return """
            INSERT INTO mfa_audit_events (chain, seq, time, kind, tenant, uid, factor_id, enrollment_id, detail, \
            actor, key_id, mac) VALUES \(Array(repeating: row, count: rows).joined(separator: ", "))
            """
    }

    private static let updateHeadSQL =
        "UPDATE mfa_audit_chains SET head_seq = ?, head_mac = ?, key_id = ?, mac = ? WHERE chain = ?"

    /// A head row as stored.
    ///
    /// The row alone is checked: a writer does not read the last event
    /// (under PostgreSQL's READ COMMITTED, a statement that waited for the
    /// head's lock sees the head's new version but not the event committed
    /// with it). Events deleted from under an intact head are a gap the
    /// next event cannot close, which `AuditVerifier` finds.
    struct StoredHead {
        var head: AuditHead
        var keyID: String
        var mac: [UInt8]

        enum Check { case intact, altered, unchecked }

        /// Whether the row is as a writer left it: its MAC, if its key is in `keyring`.
        func check(_ keyring: MasterKeyring) -> Check {
            guard let key = keyring.key(id: keyID) else { return .unchecked }
            return KeyedHash.equal(AuditMAC.head(key: key, head), mac) ? .intact : .altered
        }
    }

    /// The head row of `chain`, locked with `lock`, or nil.
    static func readHead(_ db: SQLConnection, _ chain: String, lock: String) throws(MFAError) -> StoredHead? {
        guard let row = try db.query("""
            SELECT head_seq, head_mac, anchor_seq, anchor_prev, key_id, mac FROM mfa_audit_chains WHERE chain = ?\(lock)
            """, [.text(chain)]).first else { return nil }
        guard row.count == 6, let seq = row[0].int, let mac = row[1].blob, let anchor = row[2].int,
              let prev = row[3].blob, let keyID = row[4].text, let own = row[5].blob else {
            throw MFAError(.storageError, "an audit chain's head is malformed")
        }
        return StoredHead(head: AuditHead(chain: chain, seq: seq, mac: mac, anchorSeq: anchor, anchorPrev: prev),
                          keyID: keyID, mac: own)
    }

    /// The head of a chain whose head row is missing: empty if it has no
    /// events; else rebuilt from them (the row was deleted: not intact).
    private static func rebuiltHead(_ db: SQLConnection, _ chain: String) throws(MFAError)
        -> (head: AuditHead, intact: Bool) {
        guard let row = try db.query("""
            SELECT e.seq, e.mac, (SELECT MIN(seq) FROM mfa_audit_events WHERE chain = ?) FROM mfa_audit_events e \
            WHERE e.chain = ? ORDER BY e.seq DESC LIMIT 1
            """, [.text(chain), .text(chain)]).first else { return (.empty(chain), true) }
        guard row.count == 3, let seq = row[0].int, let mac = row[1].blob, let first = row[2].int else {
            throw MFAError(.storageError, "an audit event is malformed")
        }
        return (AuditHead(chain: chain, seq: seq, mac: mac, anchorSeq: first, anchorPrev: AuditMAC.genesis), false)
    }
}
