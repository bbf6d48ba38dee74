extension MFAContext {
    /// Reports an event that no store write recorded (an SMS sent, a refusal
    /// that counted nothing, an integrity failure found while reading): it
    /// is stored in a transaction of its own if the configuration keeps the
    /// trail, then handed to the host's callback. An event reported from
    /// inside a store call is stored after the call (with the next one
    /// reported); one that cannot be stored still reaches the callback.
    /// - Parameter config: the configuration the caller read, if it has one
    ///   (else the project's is read).
    func audit(_ event: AuditEvent, config: MFAConfig? = nil) {
        storeAlone([event], config: config)
        auditSink?(event)
    }

    /// Hands a write's events to the host's callback, after the write
    /// committed; events the write was to store and did not (none, unless
    /// a store path forgot its note) are stored now.
    func report<Input>(_ note: AuditNote<Input>, _ input: Input) {
        let events = note.build(input)
        if note.stores, !note.stored { storeAlone(events, config: nil) }
        for event in events { auditSink?(event) }
    }

    /// A note for a write's events, stored with it if `config` keeps the trail.
    func auditNote<Input>(_ config: MFAConfig?, _ build: @escaping (Input) -> [AuditEvent]) -> AuditNote<Input> {
        AuditNote(trail: config?.auditTrail.store == true ? trail : nil, build: build)
    }

    /// The configuration that decides whether an administrative write's
    /// events are stored (only the project's `auditTrail` matters).
    func auditConfig() throws(MFAError) -> MFAConfig {
        try config(from: store.configDocuments(tenant: ""))
    }

    /// Stores the events reported from inside store calls that still wait.
    func flushPendingAudit() {
        storeAlone([], config: nil)
    }

    /// Stores events in a transaction of their own, with any left waiting,
    /// if the configuration keeps the trail.
    private func storeAlone(_ events: [AuditEvent], config: MFAConfig?) {
        guard !StoreThread.busy else {
            pendingAudit.add(events)
            return
        }
        let pending = pendingAudit.take() + events
        guard !pending.isEmpty,
              (config ?? (try? auditConfig()))?.auditTrail.store == true else { return }
        let trail = self.trail
        let dialect = store.dialect
        _ = try? store.database.transaction { (db) throws(MFAError) in try trail.append(db, pending, dialect) }
    }
}

/// Events reported from inside a store call, waiting to be stored after it.
final class PendingAudit: @unchecked Sendable {
    /// The most events kept waiting; more are dropped from the store (never from the callback).
    static let capacity = 1024
    private let lock = Lock()
    /// Only touched with `lock` held.
    private var events: [AuditEvent] = []

    func add(_ more: [AuditEvent]) {
        lock.withLock {
            events += more.prefix(max(Self.capacity - events.count, 0))
        }
    }

    func take() -> [AuditEvent] {
        lock.withLock {
            defer { events = [] }
            return events
        }
    }
}
