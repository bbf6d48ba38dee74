extension RecoveryCodesFactor {
    /// Stores `codes` (already normalized) as the user's recovery-code set,
    /// inside the caller's transaction, replacing the user's earlier set:
    /// a new hashing key is sealed into a new factor row and each code is
    /// stored as its keyed hash, exactly like a generated set.
    /// - Returns: the new set's row.
    static func importSet(_ db: SQLConnection, codes: [String], tenant: String, uid: String, enrollmentID: String,
                          now: Int64, keyring: MasterKeyring) throws(MFAError) -> FactorRecord {
        let key = try SecureBytes(count: 32)
        try key.withMutableBytes { (buffer) throws(MFAError) in try SecureRandom.fill(buffer) }
        let sealed = try RecordSealer.seal(key, binding(tenant: tenant, uid: uid, enrollmentID: enrollmentID),
                                           keyring: keyring)
        let record = FactorRecord(enrollmentID: enrollmentID, tenant: tenant, uid: uid, factorID: id,
                                  displayName: "imported scratch codes", enrolledAt: now, keyID: sealed.keyID,
                                  sealed: sealed.sealed)
        for old in try MFAStore.factors(db, tenant, uid) where old.factorID == id {
            try MFAStore.delete(db, old)
        }
        try RecoveryCodeStore.insert(db, enrollmentID, hashes: Array(Set(codes.map { hash($0, key: key) })))
        try MFAStore.insert(db, record, maxFactors: nil)
        return record
    }
}
