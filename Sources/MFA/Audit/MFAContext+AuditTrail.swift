/// The stored audit trail: reading it, verifying it, purging it.
///
/// With the configuration's `auditTrail.store` (`AuditTrailSettings`),
/// every audit event is stored, in the transaction of the write it records
/// (an event that records no write, such as an SMS sent or a refusal that
/// counted nothing, in a small transaction of its own), in the chain of the
/// context that wrote it (`MFAOptions.auditChain`), MACed under the audit
/// subkey of the current master key and chained to the event before it.
extension MFAContext {
    /// The chain this context appends to.
    public var auditChain: String { trail.chain }

    /// Stored events, as `query` selects them, oldest first.
    /// - Throws: `invalidArgument` (a limit out of 1 to `AuditQuery.maxLimit`,
    ///   a bad tenant, uid, kind or chain), `storageError`.
    public func auditRecords(_ query: AuditQuery) throws(MFAError) -> [AuditRecord] {
        let call = CallBudget.begin()
        defer { call.end() }
        guard (1...AuditQuery.maxLimit).contains(query.limit) else {
            throw MFAError(.invalidArgument, "limit must be 1 to \(AuditQuery.maxLimit)")
        }
        if let tenant = query.tenant, !tenant.isEmpty { try MFAUser.checkIdentifier(tenant, "tenant") }
        if let uid = query.uid { try MFAUser.checkIdentifier(uid, "uid") }
        if let kind = query.kindName {
            guard !kind.isEmpty, kind.utf8.count <= 64,
                  kind.utf8.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5f }) else {
                throw MFAError(.invalidArgument, "kind must be an event kind's name, such as SIGN_IN_FAILURE")
            }
        }
        if let chain = query.chain { try MFAOptions.checkAuditChain(chain) }
        if let after = query.after { try MFAOptions.checkAuditChain(after.chain) }
        return try AuditReader.records(store.database, query)
    }

    /// Every chain of the stored trail, by name, as their head rows say.
    /// - Throws: `storageError`.
    public func auditChains() throws(MFAError) -> [AuditChainHead] {
        let call = CallBudget.begin()
        defer { call.end() }
        return try AuditReader.heads(store.database)
    }

    /// Checks the stored trail: in each chain, every event's MAC and its
    /// link to the event before, the numbering from the anchor (the first
    /// event kept) to the head, and the head's own MAC. Events MACed under a
    /// key that is not in the keyring are counted as unchecked (give the
    /// earlier keys to check them); a chain breaks at the first event that
    /// is missing, altered, inserted or out of place. Reads without locks,
    /// while other processes append.
    /// - Throws: `storageError` (what cannot be read is an error; what
    ///   reads and does not verify is in the result).
    public func verifyAuditTrail() throws(MFAError) -> AuditVerification {
        try AuditVerifier.verify(store.database, keyring: keyring)
    }

    /// Deletes stored events by the configuration's retention and size
    /// (`AuditTrailSettings`), keeping each chain verifiable from its new
    /// anchor. `purgeExpired` does this too.
    /// - Returns: how many events were deleted.
    /// - Throws: `storageError`.
    @discardableResult
    public func purgeAuditTrail() throws(MFAError) -> Int {
        let settings = try auditConfig().auditTrail
        return try trail.purge(store.database, settings: settings, now: clock.now()).deleted
    }
}
