extension MFAContext {
    /// How many records under a key id a key without a stored check value is
    /// tried on, per sealed table.
    static let keyCheckSample = 8

    /// Checks every key of the keyring (the current one and the earlier
    /// ones) against the check value the store keeps for its id
    /// (`KeyCheck`), at open, before anything is read or written with them.
    ///
    /// A key whose id has a stored value must match it. A key whose id has
    /// none yet (a new key, or a store written before check values) gets
    /// its value recorded, provided it opens a record sealed under its id
    /// when the store holds any: a store from before is never bound to a
    /// mistyped key. Every key is judged before a value is recorded, so a
    /// refused open writes nothing. Reading the values takes no write lock;
    /// only recording one writes.
    /// - Throws: `keyMismatch` naming the key id; `storageError`.
    func checkKeys() throws(MFAError) {
        let keys = keyring.all
        let stored = try store.keyChecks(ids: keys.map(\.id), method: KeyCheck.method)
        var unknown: [MasterKey] = []
        for key in keys {
            guard let value = stored[key.id] else {
                unknown.append(key)
                continue
            }
            guard KeyedHash.equal(value, key.checkValue) else { throw Self.keyMismatch(key, recorded: true) }
        }
        // Every key is judged before any value is written.
        for key in unknown where try !opensSample(key) { throw Self.keyMismatch(key, recorded: false) }
        for key in unknown {
            let recorded = try store.recordKeyCheck(id: key.id, method: KeyCheck.method, value: key.checkValue,
                                                    at: clock.now())
            guard KeyedHash.equal(recorded, key.checkValue) else { throw Self.keyMismatch(key, recorded: true) }
        }
    }

    /// Whether `key` opens one of a few records sealed under its id, or the
    /// store holds none.
    private func opensSample(_ key: MasterKey) throws(MFAError) -> Bool {
        let rows = try store.sealedSample(under: key.id, limit: Self.keyCheckSample)
        guard !rows.isEmpty else { return true }
        let alone = try MasterKeyring(current: key)
        for row in rows {
            let opened: SecureBytes?
            switch row.format {
            case FactorRecord.currentSealFormat:
                opened = try? RecordSealer.open(row.sealed, keyID: row.keyID, row.binding, keyring: alone)
            case FactorRecord.legacySealFormat:
                opened = try? RecordSealer.openLegacy(row.sealed, keyID: row.keyID, row.binding, keyring: alone)
            default:
                opened = nil
            }
            if opened != nil { return true }
        }
        return false
    }

    /// The error for a key that is not the store's key of its id.
    private static func keyMismatch(_ key: MasterKey, recorded: Bool) -> MFAError {
        MFAError(.keyMismatch, recorded
            ? "the master key given as \"\(key.id)\" is not the key this store knows by that id (its key check "
                + "value differs): the store was written with another key under \"\(key.id)\""
            : "the master key given as \"\(key.id)\" opens none of the records this store sealed under that id: "
                + "they were written with another key under \"\(key.id)\"")
    }
}
