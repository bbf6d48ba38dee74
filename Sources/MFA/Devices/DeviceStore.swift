/// A remembered device as stored: its token only as a keyed hash.
package struct DeviceRecord: Sendable, Equatable {
    package var deviceID: String
    package var tenant: String
    package var uid: String
    package var label: String?
    /// The master key whose hash key hashed the token.
    package var keyID: String
    package var tokenHash: [UInt8]
    package var createdAt: Int64
    package var lastUsedAt: Int64
    package var expiresAt: Int64

    static let columns = "device_id, tenant, uid, label, key_id, token_hash, created_at, last_used_at, expires_at"

    init(deviceID: String, tenant: String, uid: String, label: String?, keyID: String, tokenHash: [UInt8],
         createdAt: Int64, lastUsedAt: Int64, expiresAt: Int64) {
        self.deviceID = deviceID
        self.tenant = tenant
        self.uid = uid
        self.label = label
        self.keyID = keyID
        self.tokenHash = tokenHash
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
    }

    init(row: SQLRow) throws(MFAError) {
        guard row.count == 9, let id = row[0].text, let tenant = row[1].text, let uid = row[2].text,
              row[3].text != nil || row[3] == .null, let keyID = row[4].text, let hash = row[5].blob,
              let created = row[6].int, let used = row[7].int, let expires = row[8].int else {
            throw MFAError(.storageError, "a stored remembered device is malformed")
        }
        self.init(deviceID: id, tenant: tenant, uid: uid, label: row[3].text, keyID: keyID, tokenHash: hash,
                  createdAt: created, lastUsedAt: used, expiresAt: expires)
    }

    var values: [SQLValue] {
        [.text(deviceID), .text(tenant), .text(uid), label.map(SQLValue.text) ?? .null, .text(keyID),
         .blob(tokenHash), .int(createdAt), .int(lastUsedAt), .int(expiresAt)]
    }
}

/// What remembering a device needs proved, in the transaction that stores it.
package struct DeviceProof: Sendable {
    /// The pending credential's id: a sign-in that consumed it passed a second factor.
    package var tokenID: [UInt8]
    /// Its revocation epoch: it must still be the user's.
    package var epoch: Int64
    /// A marker of its own, recorded once, so that one sign-in remembers one device.
    package var marker: [UInt8]
    /// Until when the marker is kept.
    package var until: Int64
}

/// What removing one factor removed: the factor, and the ids of the
/// remembered devices that went with it (the user's last factor takes them).
package typealias FactorRemoval = (factor: FactorRecord, devices: [String])

/// What resetting or deleting a user removed: the factors, and the ids of
/// the remembered devices forgotten.
package typealias UserRemoval = (factors: [FactorRecord], devices: [String])

/// The remembered devices' table (`mfa_remembered_devices`), on a schema
/// track of its own (`schema_version:devices`).
package enum DeviceStore {
    /// The table.
    static let table = "mfa_remembered_devices"

    /// The devices track of the schema.
    package static let migrations: [Migration] = [
        // Version 1: one row per remembered device, its token as a keyed hash.
        { d, _ in [
            d.createKeyedTable(table, """
                device_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, uid TEXT NOT NULL, label TEXT, \
                key_id TEXT NOT NULL, token_hash \(d.blobType) NOT NULL, created_at BIGINT NOT NULL, \
                last_used_at BIGINT NOT NULL, expires_at BIGINT NOT NULL
                """),
            "CREATE INDEX \(table)_user ON \(table) (tenant, uid)",
            "CREATE INDEX \(table)_expires ON \(table) (expires_at)",
        ] },
    ]

    /// The ids of a user's devices, then deletes them (the caller holds the user's row lock).
    static func deleteAll(_ db: SQLConnection, _ tenant: String, _ uid: String) throws(MFAError) -> [String] {
        let ids = try db.query("SELECT device_id FROM \(table) WHERE tenant = ? AND uid = ? ORDER BY device_id",
                               [.text(tenant), .text(uid)]).compactMap { $0.first?.text }
        guard !ids.isEmpty else { return [] }
        try db.execute("DELETE FROM \(table) WHERE tenant = ? AND uid = ?", [.text(tenant), .text(uid)])
        return ids
    }

    /// Deletes a user's devices if the user has no factor left (the caller holds the user's row lock).
    static func deleteIfNoFactor(_ db: SQLConnection, _ tenant: String, _ uid: String) throws(MFAError) -> [String] {
        let left = try db.query("SELECT COUNT(*) FROM mfa_factors WHERE tenant = ? AND uid = ?",
                                [.text(tenant), .text(uid)]).first?.first?.int ?? 0
        return left == 0 ? try deleteAll(db, tenant, uid) : []
    }
}

extension MFAStore {
    /// Stores a remembered device, in one transaction under the user's row
    /// lock: the pending credential must have been consumed by a sign-in
    /// (which only a second factor does) of the user's current epoch, and
    /// must not have remembered a device already. The user's expired devices
    /// go; at the limit, the devices used least recently go too.
    /// `audit`'s events, built from the devices forgotten, are stored in
    /// the same transaction.
    /// - Returns: the ids of the devices forgotten to make room.
    /// - Throws: `invalidSession` (the sign-in did not pass a second factor,
    ///   or already remembered a device), `userTokenExpired`.
    package func rememberDevice(_ device: DeviceRecord, proof: DeviceProof, maxPerUser: Int64, now: Int64,
                                audit: AuditNote<[String]>? = nil) throws(MFAError) -> [String] {
        try database.transaction { (db) throws(MFAError) -> [String] in
            try Self.lockUser(db, device.tenant, device.uid, dialect)
            guard let row = try db.query("""
                SELECT (SELECT COUNT(*) FROM mfa_consumed WHERE token_id = ?), u.token_epoch, u.consumed \
                FROM mfa_users u WHERE u.tenant = ? AND u.uid = ?
                """, [.blob(proof.tokenID), .text(device.tenant), .text(device.uid)]).first, row.count == 3,
                let count = row[0].int, let epoch = row[1].int else {
                throw MFAError(.storageError, "the user's row could not be read")
            }
            let recorded = try ConsumedTokens(row[2])
            guard count > 0 || recorded.contains(proof.tokenID) else {
                throw MFAError(.invalidSession, "this sign-in has not finished with a second factor")
            }
            guard epoch == proof.epoch else {
                throw MFAError(.userTokenExpired, "the user's tokens were revoked after this sign-in")
            }
            guard try db.execute("""
                INSERT INTO mfa_consumed (token_id, expires) VALUES (?, ?) ON CONFLICT (token_id) DO NOTHING
                """, [.blob(proof.marker), .int(proof.until)]) == 1 else {
                throw MFAError(.invalidSession, "this sign-in already remembered a device")
            }
            let table = DeviceStore.table
            try db.execute("DELETE FROM \(table) WHERE tenant = ? AND uid = ? AND expires_at <= ?",
                           [.text(device.tenant), .text(device.uid), .int(now)])
            let kept = try db.query("""
                SELECT device_id FROM \(table) WHERE tenant = ? AND uid = ? \
                ORDER BY last_used_at, created_at, device_id
                """, [.text(device.tenant), .text(device.uid)]).compactMap { $0.first?.text }
            let evicted = Array(kept.prefix(max(0, kept.count - Int(maxPerUser) + 1)))
            for id in evicted { try db.execute("DELETE FROM \(table) WHERE device_id = ?", [.text(id)]) }
            try db.execute("INSERT INTO \(table) (\(DeviceRecord.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                           device.values)
            try audit?.record(db, evicted, dialect)
            return evicted
        }
    }

    /// One device by id.
    package func device(id: String) throws(MFAError) -> DeviceRecord? {
        try database.read { (db) throws(MFAError) -> DeviceRecord? in
            try db.query("SELECT \(DeviceRecord.columns) FROM \(DeviceStore.table) WHERE device_id = ?",
                         [.text(id)]).first.map { (row) throws(MFAError) in try DeviceRecord(row: row) }
        }
    }

    /// Records a use of a device, if it is still the one judged (same
    /// user, same token hash) and unexpired: one conditional update, so a
    /// revocation that wins the race leaves nothing to use.
    /// A use's events (`audit`, the sign-in) are stored in its transaction.
    /// - Parameter expiresAt: the new expiry (sliding), or nil to keep it.
    /// - Returns: whether the device was used.
    package func useDevice(_ device: DeviceRecord, now: Int64, expiresAt: Int64?,
                           audit: AuditNote<Void>? = nil) throws(MFAError) -> Bool {
        let update = """
            UPDATE \(DeviceStore.table) SET last_used_at = ?, expires_at = ? \
            WHERE device_id = ? AND tenant = ? AND uid = ? AND token_hash = ? AND expires_at > ?
            """
        let values: [SQLValue] = [.int(now), .int(expiresAt ?? device.expiresAt), .text(device.deviceID),
                                  .text(device.tenant), .text(device.uid), .blob(device.tokenHash), .int(now)]
        if let audit, audit.stores {
            return try database.transaction { (db) throws(MFAError) -> Bool in
                guard try db.execute(update, values) == 1 else { return false }
                try audit.record(db, dialect)
                return true
            }
        }
        return try database.write { (db) throws(MFAError) -> Bool in try db.execute(update, values) == 1 }
    }

    /// A user's devices, the most recently used first.
    package func devices(tenant: String, uid: String) throws(MFAError) -> [DeviceRecord] {
        try database.read { (db) throws(MFAError) in
            try db.query("""
                SELECT \(DeviceRecord.columns) FROM \(DeviceStore.table) WHERE tenant = ? AND uid = ? \
                ORDER BY last_used_at DESC, created_at DESC, device_id
                """, [.text(tenant), .text(uid)]).map { (row) throws(MFAError) in try DeviceRecord(row: row) }
        }
    }

    /// Forgets one of a user's devices (`deviceID`), or all of them (nil),
    /// with `audit`'s events (built from the devices forgotten) in the same transaction.
    /// - Returns: the ids of the devices forgotten.
    package func revokeDevices(tenant: String, uid: String, deviceID: String?,
                               audit: AuditNote<[String]>? = nil) throws(MFAError) -> [String] {
        try database.transaction { (db) throws(MFAError) -> [String] in
            let forgotten: [String]
            if let deviceID {
                let removed = try db.execute(
                    "DELETE FROM \(DeviceStore.table) WHERE device_id = ? AND tenant = ? AND uid = ?",
                    [.text(deviceID), .text(tenant), .text(uid)])
                forgotten = removed == 1 ? [deviceID] : []
            } else {
                guard try Self.lockStoredUser(db, tenant, uid, dialect) else { return [] }
                forgotten = try DeviceStore.deleteAll(db, tenant, uid)
            }
            if !forgotten.isEmpty { try audit?.record(db, forgotten, dialect) }
            return forgotten
        }
    }
}
