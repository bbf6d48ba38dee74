/// The metrics of one context: counters and latency histograms of its
/// sign-ins, enrollments, code sends, backoffs and store calls
/// (`MFAContext.metrics`).
///
/// Counting is an atomic addition or two per event, with no lock, and a
/// clock reading at each end of a sign-in and of a store operation: the
/// cost is within 3 % of a stored sign-in (`bench/metrics_cost.sh`). Read
/// them with `snapshot()`, or as Prometheus' text format with
/// `prometheusText()`; the values count from when the context opened
/// (Prometheus' `rate()` and `increase()` handle the reset of a restart),
/// the store's from when it was open and migrated (the opening's own
/// schema checks are not in them).
/// Which metrics there are, and their labels, is in the documentation's
/// metrics guide (docs/guides/metrics.md).
public final class MFAMetrics: Sendable {
    /// What the context was opened with.
    public let options: MetricsOptions
    let layout: MetricsLayout
    /// The only tenant block, without the tenant label.
    private let single: TenantCounters?
    /// The tenant blocks, with the tenant label.
    private let tenants: TenantTable?
    /// The histograms and the store's counters.
    let context: AtomicCounters?
    /// What the store's backends count (nil when metrics are off).
    package let store: StoreMetrics?

    /// Metrics as `options` say (unchecked: `MFAContext` checks them).
    package init(options: MetricsOptions, layout: MetricsLayout = .current) {
        self.options = options
        self.layout = layout
        guard options.enabled else {
            single = nil
            tenants = nil
            context = nil
            store = nil
            return
        }
        if options.tenantLimit > 0 {
            single = nil
            tenants = TenantTable(limit: options.tenantLimit, blockSize: layout.tenantSize)
        } else {
            single = TenantCounters(tenant: "", size: layout.tenantSize)
            tenants = nil
        }
        let context = AtomicCounters(count: layout.contextSize)
        self.context = context
        store = StoreMetrics(counters: context, layout: layout)
    }

    /// Whether anything is counted.
    public var isEnabled: Bool { context != nil }

    /// The counters of `tenant` ("" for the project), nil when off.
    @inline(__always)
    private func block(_ tenant: String) -> AtomicCounters? {
        if let single { return single.counters }
        return tenants?.counters(tenant).counters
    }

    /// The tenant blocks to read: the only one, or the project's, every
    /// tenant's, and the one past the limit.
    func blocks() -> [TenantCounters] {
        if let single { return [single] }
        guard let tenants else { return [] }
        return [tenants.project] + tenants.tenants() + [tenants.other]
    }

    /// The monotonic clock for a duration, or 0 when metrics are off.
    @inline(__always)
    package func start() -> Int64 {
        context == nil ? 0 : CallBudget.now()
    }

    // MARK: Counting (package: the engine's calls)

    /// A first-factor report ended with `outcome`.
    package func signInStarted(_ outcome: SignInStartOutcome, tenant: String) {
        block(tenant)?.add(layout.starts + outcome.rawValue)
    }

    /// A second-factor attempt of the kind `factorID` ended with `outcome`
    /// after a call that began at `start` (`start()`).
    package func signIn(factorID: String, _ outcome: MetricOutcome, tenant: String, since start: Int64) {
        guard let context, let kind = layout.kind(factorID) else { return }
        block(tenant)?.add(layout.signIn(kind, outcome))
        LatencyHistogram.observe(CallBudget.now() - start, in: context,
                                 at: layout.signInDuration + kind * LatencyHistogram.stride)
    }

    /// An enrollment of the kind `factorID` ended with `outcome`.
    package func enrollment(factorID: String, _ outcome: MetricOutcome, tenant: String) {
        guard context != nil, let kind = layout.kind(factorID) else { return }
        block(tenant)?.add(layout.enrollment(kind, outcome))
    }

    /// A factor of the kind `factorID` was removed by `source`.
    package func unenrollment(factorID: String, by source: UnenrollSource, tenant: String) {
        guard context != nil, let kind = layout.kind(factorID) else { return }
        block(tenant)?.add(layout.unenrollment(kind, source))
    }

    /// A request for a code of the kind `factorID` (on its channel) for `purpose` ended with `outcome`.
    package func codeSend(factorID: String, _ purpose: SendPurpose, _ outcome: SendOutcome, tenant: String) {
        guard context != nil, let kind = layout.kind(factorID), layout.channelOfKind[kind] >= 0 else { return }
        block(tenant)?.add(layout.send(layout.channelOfKind[kind], purpose, outcome))
    }

    /// Failed attempts put a factor of the kind `factorID`, or its user, into backoff.
    package func backoffEntered(factorID: String, tenant: String) {
        guard context != nil, let kind = layout.kind(factorID) else { return }
        block(tenant)?.add(layout.backoffs + kind)
    }
}

/// What the store's backends count: the duration of each operation, its
/// failures and the retries inside it. Shared by the database and the
/// context's `MFAMetrics`.
package final class StoreMetrics: Sendable {
    private let counters: AtomicCounters
    private let layout: MetricsLayout

    init(counters: AtomicCounters, layout: MetricsLayout) {
        self.counters = counters
        self.layout = layout
    }

    /// An operation that began at `start` (`CallBudget.now()`) ended, or failed.
    package func observe(_ operation: StoreOperation, since start: Int64, failed: Bool) {
        LatencyHistogram.observe(CallBudget.now() - start, in: counters,
                                 at: layout.storeDuration + operation.rawValue * LatencyHistogram.stride)
        if failed { counters.add(layout.storeErrors + operation.rawValue) }
    }

    /// Forgets what the store's metrics counted so far: called once the
    /// context has opened its store, so that the opening's own schema
    /// checks and migrations (whose first read on a new store fails by
    /// design) are not in them.
    package func reset() {
        counters.reset(layout.storeDuration..<layout.contextSize)
    }

    /// An operation ran again, or a statement waited and tried again, for `reason`.
    package func retried(_ reason: StoreRetryReason) {
        counters.add(layout.retries + reason.rawValue)
    }
}
