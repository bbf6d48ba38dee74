/// The metrics of a context at one moment (`MFAMetrics.snapshot()`).
///
/// Each counter is read atomically, but not all of them at one instant: a
/// snapshot taken while calls run may count a sign-in in one family and
/// not yet in another.
public struct MetricsSnapshot: Sendable, Equatable {
    /// The metric families, in a fixed order (empty when metrics are off).
    public var families: [MetricFamily]

    /// Creates a snapshot.
    public init(families: [MetricFamily]) {
        self.families = families
    }

    /// The family named `name`, if any.
    public func family(_ name: String) -> MetricFamily? {
        families.first { $0.name == name }
    }

    /// The value of the series of family `name` whose labels are exactly
    /// `labels` (a counter's value, a histogram's count), or nil if there
    /// is none.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> UInt64? {
        family(name)?.samples.first { $0.labelDictionary == labels }?.value
    }

    /// The snapshot in Prometheus' text exposition format (version 0.0.4),
    /// as `MFAMetrics.prometheusText()` writes it.
    public var prometheusText: String { PrometheusText.encode(self) }
}

/// One metric: its name, help text, type and series.
public struct MetricFamily: Sendable, Equatable {
    /// The name, `libmfa_…` (a counter's ends in `_total`, a duration's in `_seconds`).
    public var name: String
    /// What it counts, in one sentence.
    public var help: String
    /// Counter or histogram.
    public var type: MetricType
    /// Its series, one per combination of label values.
    public var samples: [MetricSample]

    /// Creates a family.
    public init(name: String, help: String, type: MetricType, samples: [MetricSample]) {
        self.name = name
        self.help = help
        self.type = type
        self.samples = samples
    }
}

/// The type of a metric family.
public enum MetricType: String, Sendable, Equatable {
    /// A count that only goes up (from the context's opening).
    case counter
    /// Observations counted into buckets, with their sum and count.
    case histogram
}

/// One label of a series.
public struct MetricLabel: Sendable, Equatable {
    /// The label's name (`kind`, `outcome`, `tenant`, …).
    public var name: String
    /// Its value.
    public var value: String

    /// Creates a label.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// One bucket of a histogram series: how many observations were at most `upperBound`.
public struct MetricBucket: Sendable, Equatable {
    /// The bucket's upper bound, in the metric's unit (seconds); the last is infinity.
    public var upperBound: Double
    /// Observations at most `upperBound` (cumulative, as Prometheus counts them).
    public var count: UInt64

    /// Creates a bucket.
    public init(upperBound: Double, count: UInt64) {
        self.upperBound = upperBound
        self.count = count
    }
}

/// One series of a family.
public struct MetricSample: Sendable, Equatable {
    /// Its labels, in a fixed order.
    public var labels: [MetricLabel]
    /// A counter's value; a histogram's count of observations.
    public var value: UInt64
    /// A histogram's sum of observations (seconds); 0 for a counter.
    public var sum: Double
    /// A histogram's buckets, cumulative, the last one `+Inf`; empty for a counter.
    public var buckets: [MetricBucket]

    /// Creates a series.
    public init(labels: [MetricLabel], value: UInt64, sum: Double = 0, buckets: [MetricBucket] = []) {
        self.labels = labels
        self.value = value
        self.sum = sum
        self.buckets = buckets
    }

    /// The labels as a dictionary.
    public var labelDictionary: [String: String] {
        Dictionary(labels.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }
}
