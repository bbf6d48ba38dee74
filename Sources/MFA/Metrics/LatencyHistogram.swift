/// The buckets of libmfa's latency histograms, and how an observation is
/// kept in an `AtomicCounters` block: one counter per bucket (not
/// cumulative; `+Inf` last), then the sum of the observations in
/// nanoseconds. The count is the buckets' total, so `_count` always equals
/// the `+Inf` bucket.
enum LatencyHistogram {
    /// The buckets' upper bounds, in seconds: 250 µs to 10 s (a store's
    /// calls on SQLite take tens of microseconds, a PostgreSQL deadline is 5 s by default).
    static let bounds: [Double] = [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                   2.5, 5, 10]
    /// The same bounds in nanoseconds.
    static let boundsNanoseconds: [Int64] = bounds.map { Int64(($0 * 1e9).rounded()) }
    /// The counters one histogram series takes.
    static let stride = bounds.count + 2

    /// Adds an observation of `nanoseconds` to the series at `offset` of `counters`.
    @inline(__always)
    static func observe(_ nanoseconds: Int64, in counters: AtomicCounters, at offset: Int) {
        let value = max(nanoseconds, 0)
        var bucket = 0
        let bounds = boundsNanoseconds
        while bucket < bounds.count, value > bounds[bucket] { bucket += 1 }
        counters.add(offset + bucket)
        counters.add(offset + bounds.count + 1, UInt64(value))
    }

    /// The series at `offset` of `counters`: cumulative buckets (the last
    /// one `+Inf`), the count, and the sum in seconds.
    static func read(_ counters: AtomicCounters, at offset: Int) -> (buckets: [MetricBucket], count: UInt64,
                                                                       sum: Double) {
        var buckets: [MetricBucket] = []
        buckets.reserveCapacity(bounds.count + 1)
        var total: UInt64 = 0
        for index in 0...bounds.count {
            total &+= counters.load(offset + index)
            buckets.append(MetricBucket(upperBound: index < bounds.count ? bounds[index] : .infinity, count: total))
        }
        let sum = Double(counters.load(offset + bounds.count + 1)) / 1e9
        return (buckets, total, sum)
    }
}
