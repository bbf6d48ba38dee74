/// Whether the store keeps the audit trail, and for how long: the
/// project's `auditTrail` section of the configuration.
///
/// ```json
/// {"auditTrail": {"store": true, "retentionDays": 365, "maxEvents": 10000000}}
/// ```
///
/// Only the project's document may name it (a tenant's is
/// `invalidArgument`): every process that opens the store reads it, so
/// every server, mfactl and the PAM and RADIUS modules store the events
/// alike. With `store`, every audit event is written to the store, chained
/// and MACed (see `MFAContext.auditRecords`, `verifyAuditTrail`);
/// `purgeExpired` deletes events older than `retentionDays` and the oldest
/// beyond `maxEvents` in each chain (0: no such limit).
public struct AuditTrailSettings: Sendable, Equatable {
    /// Whether audit events are stored.
    public var store = false
    /// Events older than this many days are purged (0: kept whatever their age).
    public var retentionDays: Int64 = 0
    /// The most events kept in each chain; the oldest beyond it are purged (0: no limit).
    public var maxEvents: Int64 = 0

    /// Settings that store nothing.
    public init() {}

    /// Settings with these values.
    public init(store: Bool, retentionDays: Int64 = 0, maxEvents: Int64 = 0) {
        self.store = store
        self.retentionDays = retentionDays
        self.maxEvents = maxEvents
    }

    /// The section's key in the configuration.
    static let key = "auditTrail"
    /// The range of `retentionDays` (up to 100 years).
    public static let retentionDaysRange: ClosedRange<Int64> = 0...36_500
    /// The range of `maxEvents`.
    public static let maxEventsRange: ClosedRange<Int64> = 0...1_000_000_000_000

    /// Whether the settings ask for a purge at all.
    var purges: Bool { retentionDays > 0 || maxEvents > 0 }

    /// Reads the section into `settings`.
    static func apply(_ value: JSONValue, to settings: inout AuditTrailSettings) throws(MFAError) {
        try ConfigFields.expectObject(value, key, keys: ["store", "retentionDays", "maxEvents"])
        if let store = value["store"] {
            guard case .bool(let flag) = store else {
                throw MFAError(.invalidArgument, "\(key).store must be true or false")
            }
            settings.store = flag
        }
        if let days = value["retentionDays"] {
            settings.retentionDays = try ConfigFields.integer(days, key + ".retentionDays", retentionDaysRange)
        }
        if let count = value["maxEvents"] {
            settings.maxEvents = try ConfigFields.integer(count, key + ".maxEvents", maxEventsRange)
        }
    }

    /// The section as JSON.
    static func json(_ settings: AuditTrailSettings) -> JSONValue {
        .object([("store", .bool(settings.store)), ("retentionDays", .int(settings.retentionDays)),
                 ("maxEvents", .int(settings.maxEvents))])
    }
}
