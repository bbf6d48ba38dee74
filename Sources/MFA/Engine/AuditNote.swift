/// The audit events of one store write, appended to the stored trail in
/// the write's own transaction (so they commit, or roll back, with what
/// they record), and handed to the host's callback once it has committed.
///
/// The engine makes a note for each write that events record, with how to
/// build the events from what the write found (`build`); the store calls
/// `record` last in the transaction, where it knows that. The note stores
/// nothing when the configuration does not keep the trail (`trail` nil):
/// then the write runs as it would without it.
package final class AuditNote<Input>: @unchecked Sendable {
    /// The trail to append to, or nil (not stored). It may be set while the
    /// write runs, by the engine code it calls, once the configuration the
    /// write read is known (a sign-in attempt).
    package var trail: AuditTrail?
    /// The events of the write, from what it found.
    package let build: (Input) -> [AuditEvent]
    /// Whether the write's transaction appended its events (its last try's, if it was run again).
    package private(set) var stored = false

    /// A note for a write whose events `build` makes.
    package init(trail: AuditTrail?, build: @escaping (Input) -> [AuditEvent]) {
        self.trail = trail
        self.build = build
    }

    /// Whether the write must append its events (and so run as a transaction).
    package var stores: Bool { trail != nil }

    /// Appends the events `input` gives to the trail, in the write's
    /// transaction (last: the chain's head lock is the last lock taken).
    package func record(_ db: SQLConnection, _ input: Input, _ dialect: any SQLDialect) throws(MFAError) {
        guard let trail else { return }
        stored = false
        try trail.append(db, build(input), dialect)
        stored = true
    }
}

extension AuditNote where Input == Void {
    /// Appends the events, in the write's transaction.
    package func record(_ db: SQLConnection, _ dialect: any SQLDialect) throws(MFAError) {
        try record(db, (), dialect)
    }
}
