/// Reads the stored trail: events by a query, and the chains' heads.
package enum AuditReader {
    /// The columns of a record, in `record(_:)`'s order.
    private static let columns =
        "chain, seq, kind, tenant, uid, factor_id, enrollment_id, time, detail, actor, key_id"

    /// The events `query` asks for, oldest first.
    package static func records(_ database: SQLDatabase, _ query: AuditQuery) throws(MFAError) -> [AuditRecord] {
        var conditions: [String] = []
        var parameters: [SQLValue] = []
        func add(_ condition: String, _ values: SQLValue...) {
            conditions.append(condition)
            parameters += values
        }
        if let tenant = query.tenant { add("tenant = ?", .text(tenant)) }
        if let uid = query.uid { add("uid = ?", .text(uid)) }
        if let kind = query.kindName { add("kind = ?", .text(kind)) }
        if let since = query.since { add("time >= ?", .int(since)) }
        if let until = query.until { add("time < ?", .int(until)) }
        let order: [String]
        if let chain = query.chain {
            add("chain = ?", .text(chain))
            if let after = query.afterSeq { add("seq > ?", .int(after)) }
            order = ["seq"]
        } else {
            if let after = query.after {
                add("(time > ? OR (time = ? AND (chain > ? OR (chain = ? AND seq > ?))))", .int(after.time),
                    .int(after.time), .text(after.chain), .text(after.chain), .int(after.seq))
            }
            order = ["time", "chain", "seq"]
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let direction = query.latest ? " DESC" : ""
        let sql = "SELECT \(columns) FROM mfa_audit_events\(filter) ORDER BY "
            + order.map { $0 + direction }.joined(separator: ", ") + " LIMIT ?"
        let rows = try database.read { (db) throws(MFAError) in
            try db.query(sql, parameters + [.int(Int64(query.limit))])
        }
        var records: [AuditRecord] = []
        records.reserveCapacity(rows.count)
        for row in rows { records.append(try record(row)) }
        return query.latest ? records.reversed() : records
    }

    private static func record(_ row: [SQLValue]) throws(MFAError) -> AuditRecord {
        guard row.count == 11, let chain = row[0].text, let seq = row[1].int, let kind = row[2].text,
              let tenant = row[3].text, let uid = row[4].text, let factorID = row[5].text,
              let enrollmentID = row[6].text, let time = row[7].int, let detail = row[8].text,
              let actor = row[9].text, let keyID = row[10].text else {
            throw MFAError(.storageError, "a stored audit event is malformed")
        }
        return AuditRecord(chain: chain, seq: seq, kindName: kind, tenant: tenant, uid: uid, factorID: factorID,
                           enrollmentID: enrollmentID, time: time, detail: detail, actor: actor, keyID: keyID)
    }

    /// Every chain's head, by name.
    package static func heads(_ database: SQLDatabase) throws(MFAError) -> [AuditChainHead] {
        try database.read { (db) throws(MFAError) in
            try db.query("SELECT chain, anchor_seq, head_seq FROM mfa_audit_chains ORDER BY chain", []).map {
                (row) throws(MFAError) in
                guard row.count == 3, let chain = row[0].text, let anchor = row[1].int, let seq = row[2].int else {
                    throw MFAError(.storageError, "an audit chain's head is malformed")
                }
                return AuditChainHead(chain: chain, anchorSeq: anchor, headSeq: seq)
            }
        }
    }
}
