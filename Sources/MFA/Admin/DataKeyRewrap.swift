/// What `MFAContext.rewrapDataKeys(to:actor:)` did.
public struct DataKeyRewrapResult: Sendable, Equatable {
    /// Data keys re-wrapped.
    public let rewrapped: Int
    /// The labels of the provider's keys they were wrapped under before (sorted, without repeats).
    public let previousLabels: [String]

    /// Creates a result.
    public init(rewrapped: Int, previousLabels: [String]) {
        self.rewrapped = rewrapped
        self.previousLabels = previousLabels
    }
}

extension MFAContext {
    /// Re-wraps every data key of the store under the provider's key
    /// `label` (rotating the HSM key): each is unwrapped with the key it is
    /// wrapped under now, wrapped under `label`, checked by unwrapping it
    /// again, and all are stored in one transaction. No sealed record is
    /// touched, so it takes as long as a few HSM calls, and contexts already
    /// open go on signing users in meanwhile. Contexts opened later unwrap
    /// with `label`; the old key may be deleted from the token once every
    /// store it wrapped has been re-wrapped.
    /// - Parameters:
    ///   - label: the provider's new key (it must exist in the token).
    ///   - actor: who runs it, for the `KEYS_ROTATED` audit event (nil: "").
    /// - Throws: `invalidArgument` (no key provider, a bad label),
    ///   `keyProviderKeyNotFound` (no key `label`, or the current one is
    ///   gone), `keyProviderLogin`, `keyProviderUnavailable`, `keyMismatch`
    ///   (a data key does not unwrap to the key this context holds),
    ///   `storageError` (another process re-wrapped meanwhile; nothing changed).
    public func rewrapDataKeys(to label: String, actor: String? = nil) throws(MFAError) -> DataKeyRewrapResult {
        guard let provider = keyProvider else {
            throw MFAError(.invalidArgument, "this context has no key provider: its keys are not wrapped")
        }
        try KeyProviderLimits.checkLabel(label)
        if let actor { try Self.checkActor(actor) }
        let rows = try store.dataKeys()
        var updates: [(old: WrappedDataKey, new: WrappedDataKey)] = []
        for row in rows {
            let wrapped = try DataKeyEnvelope.withUnwrapped(row, provider: provider) { (bytes) throws(MFAError) in
                let known = try MasterKey(id: row.id, buffer: bytes)
                guard let held = keyring.key(id: row.id), KeyedHash.equal(held.checkValue, known.checkValue) else {
                    throw MFAError(.keyMismatch, "the store's data key \"\(row.id)\" is not the key this context "
                        + "opened with; reopen and run again")
                }
                return try provider.wrap(bytes, label: label, context: Array(row.id.utf8))
            }
            try DataKeyEnvelope.checkWrapped(wrapped)
            var new = row
            new.label = label
            new.wrapped = wrapped
            // The new wrap must unwrap to the same key before it replaces the old one.
            let again = try DataKeyEnvelope.unwrap(new, provider: provider)
            guard let held = keyring.key(id: row.id), KeyedHash.equal(again.checkValue, held.checkValue) else {
                throw MFAError(.keyMismatch, "the key \"\(label)\" does not unwrap what it wrapped")
            }
            updates.append((row, new))
        }
        try store.rewrapDataKeys(updates, at: clock.now())
        let previous = Array(Set(rows.map(\.label))).sorted()
        audit(AuditEvent(kind: .keysRotated, tenant: "", time: clock.now(),
                         detail: "\(updates.count) data keys re-wrapped under the provider's key \"\(label)\"",
                         actor: actor ?? ""))
        return DataKeyRewrapResult(rewrapped: updates.count, previousLabels: previous)
    }
}
