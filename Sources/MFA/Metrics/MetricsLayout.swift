/// Where each counter of a context lives, derived from the factor registry
/// once: a kind added to `FactorRegistry` gets its series without a change here.
///
/// Two kinds of block hold the counters (`AtomicCounters`): one per tenant
/// (or a single one without the tenant label) for what the `tenant` label
/// may split, and one per context for the histograms and the store's
/// metrics, which never carry it.
package struct MetricsLayout: Sendable {
    /// The factor ids, in registry order: the `kind` label's values.
    package let kinds: [String]
    /// The code channels ("sms", "email"), one per kind that sends codes (`SecondFactor.codeChannel`).
    package let channels: [String]
    /// For each kind, its channel's index, or -1.
    let channelOfKind: [Int]
    /// How many values each label has (counted once: `allCases` builds an array each time).
    private let outcomes = MetricOutcome.allCases.count
    private let sources = UnenrollSource.allCases.count
    private let purposes = SendPurpose.allCases.count
    private let sendOutcomes = SendOutcome.allCases.count

    // The tenant block.
    /// `libmfa_sign_ins_total`: kind × outcome.
    let signIns: Int
    /// `libmfa_sign_in_starts_total`: outcome.
    let starts: Int
    /// `libmfa_enrollments_total`: kind × outcome.
    let enrollments: Int
    /// `libmfa_unenrollments_total`: kind × source.
    let unenrollments: Int
    /// `libmfa_code_sends_total`: channel × purpose × outcome.
    let sends: Int
    /// `libmfa_backoff_entries_total`: kind.
    let backoffs: Int
    /// The counters of a tenant block.
    let tenantSize: Int

    // The context block.
    /// `libmfa_sign_in_duration_seconds`: kind × histogram.
    let signInDuration: Int
    /// `libmfa_store_operation_duration_seconds`: operation × histogram.
    let storeDuration: Int
    /// `libmfa_store_retries_total`: reason.
    let retries: Int
    /// `libmfa_store_errors_total`: operation.
    let storeErrors: Int
    /// The counters of the context block.
    let contextSize: Int

    /// The layout of the kinds registered now.
    package static let current = MetricsLayout(kinds: FactorRegistry.all.map { ($0.id, $0.codeChannel) })

    /// The layout of `kinds` (factor id, and code channel if any).
    package init(kinds registered: [(id: String, channel: String?)]) {
        kinds = registered.map(\.id)
        var channels: [String] = []
        var channelOfKind: [Int] = []
        for kind in registered {
            if let channel = kind.channel {
                if let index = channels.firstIndex(of: channel) {
                    channelOfKind.append(index)
                } else {
                    channels.append(channel)
                    channelOfKind.append(channels.count - 1)
                }
            } else {
                channelOfKind.append(-1)
            }
        }
        self.channels = channels
        self.channelOfKind = channelOfKind
        let kindCount = kinds.count
        signIns = 0
        starts = signIns + kindCount * MetricOutcome.allCases.count
        enrollments = starts + SignInStartOutcome.allCases.count
        unenrollments = enrollments + kindCount * MetricOutcome.allCases.count
        sends = unenrollments + kindCount * UnenrollSource.allCases.count
        backoffs = sends + channels.count * SendPurpose.allCases.count * SendOutcome.allCases.count
        tenantSize = backoffs + kindCount
        signInDuration = 0
        storeDuration = signInDuration + kindCount * LatencyHistogram.stride
        retries = storeDuration + StoreOperation.allCases.count * LatencyHistogram.stride
        storeErrors = retries + StoreRetryReason.allCases.count
        contextSize = storeErrors + StoreOperation.allCases.count
    }

    /// The index of the kind with factor id `id`, or nil.
    @inline(__always)
    func kind(_ id: String) -> Int? {
        kinds.firstIndex(of: id)
    }

    /// The counter of a sign-in of kind `kind` that ended with `outcome`.
    func signIn(_ kind: Int, _ outcome: MetricOutcome) -> Int {
        signIns + kind * outcomes + outcome.rawValue
    }

    /// The counter of an enrollment of kind `kind` that ended with `outcome`.
    func enrollment(_ kind: Int, _ outcome: MetricOutcome) -> Int {
        enrollments + kind * outcomes + outcome.rawValue
    }

    /// The counter of an unenrollment of kind `kind` by `source`.
    func unenrollment(_ kind: Int, _ source: UnenrollSource) -> Int {
        unenrollments + kind * sources + source.rawValue
    }

    /// The counter of a code request on `channel` for `purpose` that ended with `outcome`.
    func send(_ channel: Int, _ purpose: SendPurpose, _ outcome: SendOutcome) -> Int {
        sends + (channel * purposes + purpose.rawValue) * sendOutcomes + outcome.rawValue
    }
}
