/// Which metrics a context keeps (`MFAOptions.metrics`).
///
/// Metrics are counters and latency histograms kept in the context's
/// memory with atomic additions (no lock on the calls they count), read
/// with `MFAMetrics.snapshot()` or `MFAMetrics.prometheusText()`. They are
/// on by default, without a tenant label.
///
/// With a tenant limit (`byTenant(limit:)`), the counters of sign-ins,
/// enrollments, code sends and backoffs carry a `tenant` label: the project
/// is `tenant=""`, and each tenant gets series of its own from its first
/// counted event, up to `limit` tenants. The events of every tenant after
/// those share the series `tenant="(other)"` (`otherTenants`), as do the
/// events that name a tenant id no call accepts (one with a control
/// character); the histograms and the store's metrics never carry the label.
public struct MetricsOptions: Sendable, Equatable {
    /// Whether the context keeps metrics at all.
    public var enabled: Bool
    /// 0 for no tenant label; else the most tenants with series of their
    /// own, 1 to `maxTenantLimit`.
    public var tenantLimit: Int

    /// Metrics without a tenant label (the default).
    public static let on = MetricsOptions(enabled: true, tenantLimit: 0)
    /// No metrics: nothing is counted, and a snapshot is empty.
    public static let off = MetricsOptions(enabled: false, tenantLimit: 0)
    /// How many tenants get series of their own when the host asks for the label without a number.
    public static let defaultTenantLimit = 100
    /// The most tenants a context labels.
    public static let maxTenantLimit = 10_000
    /// The tenant label of the events of tenants past the limit.
    public static let otherTenants = "(other)"

    /// Metrics labelled by tenant, for at most `limit` tenants (1 to `maxTenantLimit`).
    public static func byTenant(limit: Int = defaultTenantLimit) -> MetricsOptions {
        MetricsOptions(enabled: true, tenantLimit: limit)
    }

    /// Creates options; `MFAContext` checks them when it opens.
    public init(enabled: Bool, tenantLimit: Int) {
        self.enabled = enabled
        self.tenantLimit = tenantLimit
    }

    /// Throws `invalidArgument` for a tenant limit outside 0 to `maxTenantLimit`.
    func validate() throws(MFAError) {
        guard (0...Self.maxTenantLimit).contains(tenantLimit) else {
            throw MFAError(.invalidArgument, "the metrics' tenant limit must be 0 to \(Self.maxTenantLimit)")
        }
    }
}
