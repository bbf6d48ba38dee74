/// Checks the stored trail, chain by chain: every event's MAC (with the key
/// its row names) and link to the one before, the numbering from the anchor
/// to the head, and the head row's own MAC. Events under a key not in the
/// keyring are counted as unchecked only while no event before them was
/// checked (what a rotation leaves: the earlier keys' events come first),
/// and only if the key opened the store once (it has a check value in
/// `mfa_key_checks`); any other is a break.
///
/// It reads without locks, page by page, while writers go on appending:
/// it checks each chain up to the head it read first (later events are the
/// next run's). A purge that moves the anchor while it reads makes it start
/// the chain again (at most a few times), so a purge is never taken for a
/// deletion.
package enum AuditVerifier {
    /// Events read per statement.
    static let page = 5_000

    /// Verifies every chain.
    package static func verify(_ database: SQLDatabase, keyring: MasterKeyring) throws(MFAError) -> AuditVerification {
        let names = try AuditReader.heads(database).map(\.chain)
        let known = try knownKeyIDs(database)
        var reports: [AuditChainVerification] = []
        for name in names {
            if let report = try verify(chain: name, database, keyring: keyring, known: known) {
                reports.append(report)
            }
        }
        // Events of a chain that has no head row: the row was deleted.
        let orphans = try database.read { (db) throws(MFAError) -> [(String, Int64)] in
            try db.query("""
                SELECT chain, MIN(seq), MAX(seq) FROM mfa_audit_events e \
                WHERE NOT EXISTS (SELECT 1 FROM mfa_audit_chains c WHERE c.chain = e.chain) GROUP BY chain
                """, []).compactMap { row in
                guard row.count == 3, let chain = row[0].text, let first = row[1].int else { return nil }
                return (chain, first)
            }
        }
        for (chain, first) in orphans {
            reports.append(AuditChainVerification(
                chain: chain, anchorSeq: first, headSeq: first, verified: 0, unchecked: 0, missingKeys: [],
                brokenAt: first, problem: "the chain has events but no head row: the head row was deleted"))
        }
        return AuditVerification(chains: reports.sorted { $0.chain < $1.chain })
    }

    /// Verifies one chain; nil if its head row is gone (deleted since the list was read).
    static func verify(chain: String, _ database: SQLDatabase, keyring: MasterKeyring,
                       known: Set<String>) throws(MFAError) -> AuditChainVerification? {
        var tries = 0
        while true {
            tries += 1
            guard let stored = try database.read({ (db) throws(MFAError) in
                try AuditTrail.readHead(db, chain, lock: "")
            }) else { return nil }
            if let report = try walk(stored, database, keyring: keyring, known: known, lastTry: tries >= 3) {
                return report
            }
        }
    }

    /// What one walk over a chain found; nil if a purge moved the anchor under it (walk again).
    private static func walk(_ stored: AuditTrail.StoredHead, _ database: SQLDatabase, keyring: MasterKeyring,
                             known: Set<String>, lastTry: Bool) throws(MFAError) -> AuditChainVerification? {
        let head = stored.head
        let chain = head.chain
        var verified = 0
        var unchecked = 0
        var missing: Set<String> = []
        var expected = head.anchorSeq
        var prev = head.anchorPrev
        var broken: (seq: Int64, problem: String)?

        func report() -> AuditChainVerification {
            AuditChainVerification(chain: chain, anchorSeq: head.anchorSeq, headSeq: head.seq, verified: verified,
                                   unchecked: unchecked, missingKeys: missing.sorted(), brokenAt: broken?.seq,
                                   problem: broken?.problem)
        }
        /// Whether a purge moved the anchor past `seq` since the head was read.
        func purged(past seq: Int64) throws(MFAError) -> Bool {
            guard !lastTry else { return false }
            let now = try database.read { (db) throws(MFAError) in try AuditTrail.readHead(db, chain, lock: "") }
            return (now?.head.anchorSeq ?? Int64.max) > seq
        }

        pages: while expected <= head.seq {
            let rows = try database.read { (db) throws(MFAError) in
                try db.query("""
                    SELECT seq, time, kind, tenant, uid, factor_id, enrollment_id, detail, actor, key_id, mac \
                    FROM mfa_audit_events WHERE chain = ? AND seq >= ? AND seq <= ? ORDER BY seq LIMIT ?
                    """, [.text(chain), .int(expected), .int(head.seq), .int(Int64(page))])
            }
            guard !rows.isEmpty else { break }
            for row in rows {
                guard row.count == 11, let seq = row[0].int, let time = row[1].int, let kind = row[2].text,
                      let tenant = row[3].text, let uid = row[4].text, let factorID = row[5].text,
                      let enrollmentID = row[6].text, let detail = row[7].text, let actor = row[8].text,
                      let keyID = row[9].text, let mac = row[10].blob else {
                    broken = (expected, "event \(expected) is malformed")
                    break pages
                }
                guard seq == expected else {
                    if try purged(past: expected) { return nil }
                    broken = (expected, "event \(expected) is missing (deleted): the next one kept is \(seq)")
                    break pages
                }
                let fields = AuditFields(time: time, tenant: tenant, uid: uid, factorID: factorID,
                                         enrollmentID: enrollmentID, detail: detail, actor: actor)
                if let key = keyring.key(id: keyID) {
                    let expectedMAC = AuditMAC.event(key: key, chain: chain, seq: seq, prev: prev, kind: kind,
                                                     fields: fields)
                    guard KeyedHash.equal(expectedMAC, mac) else {
                        broken = (seq, "event \(seq) does not match its MAC: altered, replaced or reordered")
                        break pages
                    }
                    verified += 1
                } else {
                    // Events under keys not given are left unchecked only before the first
                    // one checked (a rotation's earlier keys): past it, a key id that nothing
                    // given can check would let a row's fields change unseen.
                    guard verified == 0 else {
                        broken = (seq, """
                            event \(seq) is under key \(keyID), not given, after events checked with the keys \
                            given: its key id was altered, or give that key too
                            """)
                        break pages
                    }
                    guard known.contains(keyID) else {
                        broken = (seq, """
                            event \(seq) is under key \(keyID), which never opened this store: its key id was altered
                            """)
                        break pages
                    }
                    unchecked += 1
                    missing.insert(keyID)
                }
                if kind == AuditEvent.Kind.integrityFailure.rawValue, detail == AuditTrail.headAlteredDetail {
                    broken = (seq, """
                        event \(seq) records that a writer found the chain's head altered before it \
                        (events before it deleted, or the head row changed)
                        """)
                    break pages
                }
                prev = mac
                expected = seq + 1
            }
        }
        if broken == nil, expected <= head.seq {
            if try purged(past: expected) { return nil }
            broken = (expected, "event \(expected) is missing (deleted): the head says the chain ends at \(head.seq)")
        }
        // Events numbered before the anchor: a purge leaves none.
        if broken == nil, let early = try database.read({ (db) throws(MFAError) in
            try db.query("SELECT MIN(seq) FROM mfa_audit_events WHERE chain = ? AND seq < ?",
                         [.text(chain), .int(head.anchorSeq)]).first?.first?.int
        }) {
            broken = (early, "event \(early) is before the chain's anchor (\(head.anchorSeq)): inserted")
        }
        if broken == nil, !KeyedHash.equal(prev, head.mac) {
            broken = (head.seq, "the chain's head does not name event \(head.seq)'s MAC: the head row was altered")
        }
        if broken == nil {
            switch stored.check(keyring) {
            case .altered:
                broken = (head.seq, "the chain's head row does not match its MAC: altered")
            case .unchecked where !known.contains(stored.keyID):
                broken = (head.seq, "the chain's head row is under key \(stored.keyID), which never opened this store")
            case .unchecked:
                missing.insert(stored.keyID)
            case .intact:
                break
            }
        }
        if broken == nil, let beyond = try firstBeyond(head, database) {
            broken = (beyond, "event \(beyond) is beyond the chain's head (\(head.seq)): inserted")
        }
        return report()
    }

    /// The ids of the keys that ever opened the store (each has a check
    /// value, recorded at open): the only ids an event may name.
    private static func knownKeyIDs(_ database: SQLDatabase) throws(MFAError) -> Set<String> {
        try database.read { (db) throws(MFAError) in
            Set(try db.query("SELECT DISTINCT key_id FROM mfa_key_checks", []).compactMap { $0.first?.text })
        }
    }

    /// The first event numbered past the head, that no append committed
    /// (an append moves the head in the transaction that inserts, so the
    /// head read after the event covers it).
    private static func firstBeyond(_ head: AuditHead, _ database: SQLDatabase) throws(MFAError) -> Int64? {
        let rows = try database.read { (db) throws(MFAError) in
            try db.query("SELECT seq FROM mfa_audit_events WHERE chain = ? AND seq > ? ORDER BY seq LIMIT 1000",
                         [.text(head.chain), .int(head.seq)]).compactMap { $0.first?.int }
        }
        guard !rows.isEmpty else { return nil }
        let now = try database.read { (db) throws(MFAError) in
            try AuditTrail.readHead(db, head.chain, lock: "")
        }
        let last = now?.head.seq ?? head.seq
        return rows.first { $0 > last }
    }
}
