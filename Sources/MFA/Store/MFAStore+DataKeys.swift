/// A data key as the store keeps it: wrapped by a key provider.
package struct WrappedDataKey: Sendable, Equatable {
    /// The data key's id.
    package var id: String
    /// The provider kind that wrapped it (`KeyProvider.kind`).
    package var provider: String
    /// The label of the provider's key it is wrapped under.
    package var label: String
    /// The wrapped bytes.
    package var wrapped: [UInt8]
    /// Whether new records are sealed with it.
    package var isCurrent: Bool
}

/// The wrapped data keys (`mfa_data_keys`, track `schema_version:keys`).
extension MFAStore {
    /// The most data keys a store may hold.
    static let maxDataKeys = 64

    /// Every wrapped data key, in id order.
    package func dataKeys() throws(MFAError) -> [WrappedDataKey] {
        try database.read { (db) throws(MFAError) in
            try db.query("""
                SELECT key_id, provider, wrapping_label, wrapped, is_current FROM mfa_data_keys ORDER BY key_id LIMIT ?
                """, [.int(Int64(Self.maxDataKeys + 1))]).map { (row) throws(MFAError) in
                guard row.count == 5, let id = row[0].text, let provider = row[1].text, let label = row[2].text,
                      let wrapped = row[3].blob, let current = row[4].int else {
                    throw MFAError(.storageError, "a stored data key is malformed")
                }
                return WrappedDataKey(id: id, provider: provider, label: label, wrapped: wrapped, isCurrent: current != 0)
            }
        }
    }

    /// Records the store's first data key unless another process was first
    /// (the row is kept as it is then).
    package func insertFirstDataKey(_ key: WrappedDataKey, at time: Int64) throws(MFAError) {
        try database.transaction { (db) throws(MFAError) in
            try db.execute(database.dialect.upsert(
                into: "mfa_data_keys",
                columns: ["key_id", "provider", "wrapping_label", "wrapped", "is_current", "created_at", "rewrapped_at"],
                conflict: ["key_id"], update: []),
                [.text(key.id), .text(key.provider), .text(key.label), .blob(key.wrapped), .int(key.isCurrent ? 1 : 0),
                 .int(time), .int(time)])
        }
    }

    /// Replaces the wrapped bytes and label of each key in one transaction,
    /// each only if it is still what was read.
    /// - Throws: `storageError` if another process changed one meanwhile (nothing is written).
    package func rewrapDataKeys(_ updates: [(old: WrappedDataKey, new: WrappedDataKey)], at time: Int64) throws(MFAError) {
        try database.transaction { (db) throws(MFAError) in
            for update in updates {
                let changed = try db.execute("""
                    UPDATE mfa_data_keys SET wrapping_label = ?, wrapped = ?, rewrapped_at = ? \
                    WHERE key_id = ? AND wrapping_label = ? AND wrapped = ?
                    """, [.text(update.new.label), .blob(update.new.wrapped), .int(time), .text(update.old.id),
                          .text(update.old.label), .blob(update.old.wrapped)])
                guard changed == 1 else {
                    throw MFAError(.storageError, "the data key \"\(update.old.id)\" was re-wrapped by another process "
                        + "meanwhile; nothing was changed")
                }
            }
        }
    }
}
