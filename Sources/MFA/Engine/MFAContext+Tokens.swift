extension MFAContext {
    /// Tells the host whether a credential it issued to a user at `issuedAt`
    /// is still valid: enrolling and unenrolling revoke earlier credentials.
    /// - Throws: `userTokenExpired` if it was issued before the last revocation.
    public func checkToken(tenant: String?, uid: String, issuedAt: Int64) throws(MFAError) {
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        try MFAUser.checkIdentifier(uid, "uid")
        let user = try store.user(tenant: tenant ?? "", uid: uid)
        guard issuedAt >= user.tokensValidAfter else {
            throw MFAError(.userTokenExpired, "the credential was issued before the user's tokens were revoked")
        }
    }

    /// Step-up: whether the user passed a second factor within the last `seconds`.
    public func passedSecondFactor(tenant: String?, uid: String, within seconds: Int64) throws(MFAError) -> Bool {
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        try MFAUser.checkIdentifier(uid, "uid")
        guard seconds >= 0 else { throw MFAError(.invalidArgument, "seconds must not be negative") }
        let last = try store.user(tenant: tenant ?? "", uid: uid).lastSecondFactorAt
        return last > 0 && clock.now().minus(last) <= seconds
    }

    /// Deletes what has expired: pending TOTP secrets past their deadline and
    /// records of used tokens that can no longer be presented.
    public func purgeExpired() throws(MFAError) {
        try store.purgeExpired(now: clock.now())
    }

    /// Re-encrypts every stored secret that is not under the current master
    /// key. Afterwards stored factors no longer need the previous keys; keep
    /// them in the keyring until the tokens they sealed have expired too
    /// (sessions, pending secrets and credentials: the longest lifetime in
    /// `MFALimits`, 10 minutes by default), or those tokens become invalid.
    /// - Returns: how many records were re-encrypted.
    /// - Throws: `crypto` if a record's key is not in the keyring.
    @discardableResult
    public func rotateKeys() throws(MFAError) -> Int {
        var total = 0
        while true {
            let batch = try store.sealedRecords(notUnder: keyring.current.id, limit: 500)
            if batch.isEmpty { return total }
            var updates: [(table: SealedTable, id: String, oldKeyID: String, keyID: String, sealed: [UInt8])] = []
            for record in batch {
                let plain = try FactorSealer.open(record.sealed, keyID: record.keyID, id: record.id,
                                                  tenant: record.tenant, keyring: keyring)
                let sealed = try FactorSealer.seal(plain, id: record.id, tenant: record.tenant, keyring: keyring)
                updates.append((record.table, record.id, record.keyID, sealed.keyID, sealed.sealed))
            }
            try store.reseal(updates)
            total += updates.count
        }
    }
}
