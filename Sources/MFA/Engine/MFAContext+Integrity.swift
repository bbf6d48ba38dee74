extension MFAContext {
    /// Opens a factor's sealed payload into guarded memory.
    ///
    /// A payload that does not decrypt for its row (altered, or the row
    /// moved to another user, tenant or id) is `crypto`, reported to the
    /// audit callback as `INTEGRITY_FAILURE`.
    func openPayload(of record: FactorRecord) throws(MFAError) -> SecureBytes {
        let kind = try FactorRegistry.stored(record.factorID)
        guard record.sealFormat == FactorRecord.currentSealFormat else {
            throw MFAError(.crypto, "a stored factor still has its old seal: open the store once with its master key")
        }
        do {
            return try RecordSealer.open(record.sealed, keyID: record.keyID, kind.binding(of: record),
                                         keyring: keyring)
        } catch {
            if keyring.key(id: record.keyID) != nil {
                audit(AuditEvent(kind: .integrityFailure, tenant: record.tenant, uid: record.uid,
                                 factorID: record.factorID, enrollmentID: record.enrollmentID, time: clock.now(),
                                 detail: MFAErrorCode.crypto.name))
            }
            throw error
        }
    }

    /// Re-seals, to the current binding (kind, tenant, user, id), every
    /// factor that a store before schema version 3 sealed bound only to its
    /// id and tenant, and that a key of this keyring opens. A row that does
    /// not open the old way either is left as it is (it stays unusable:
    /// `crypto`). Runs in batches; does nothing on an up-to-date store.
    func upgradeSeals() throws(MFAError) {
        let keys = keyring.all.map(\.id)
        var after = ""
        while true {
            let batch = try store.sealedRecords(notUnder: nil, legacy: true, keys: keys, after: after, limit: 500)
            guard let last = batch.last else { return }
            after = last.id
            var updates: [(row: SealedRow, keyID: String, sealed: [UInt8])] = []
            for row in batch {
                guard let plain = try RecordSealer.openLegacy(row.sealed, keyID: row.keyID, row.binding,
                                                              keyring: keyring) else { continue }
                let sealed = try RecordSealer.seal(plain, row.binding, keyring: keyring)
                updates.append((row, sealed.keyID, sealed.sealed))
            }
            try store.reseal(updates)
        }
    }
}
