import Synchronization

/// A fixed number of 64-bit counters that threads add to without a lock
/// (relaxed atomic additions: each one alone is exact; a reader sees each
/// counter at some moment, not all of them at one moment).
final class AtomicCounters: @unchecked Sendable {
    // @unchecked: the counters are atomics, and the pointer never changes.
    private let base: UnsafeMutablePointer<Atomic<UInt64>>
    /// How many counters there are.
    let count: Int

    /// `count` counters, all 0.
    init(count: Int) {
        self.count = max(count, 1)
        base = .allocate(capacity: self.count)
        for index in 0..<self.count { (base + index).initialize(to: Atomic(0)) }
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    /// Adds `amount` to counter `index` (wrapping at 2^64, which a count never reaches).
    @inline(__always)
    func add(_ index: Int, _ amount: UInt64 = 1) {
        base[index].wrappingAdd(amount, ordering: .relaxed)
    }

    /// Sets the counters of `range` to 0.
    func reset(_ range: Range<Int>) {
        for index in range { base[index].store(0, ordering: .relaxed) }
    }

    /// The value of counter `index` now.
    func load(_ index: Int) -> UInt64 {
        base[index].load(ordering: .relaxed)
    }
}
