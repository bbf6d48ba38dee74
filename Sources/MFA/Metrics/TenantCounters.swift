import Synchronization

/// The counters of one tenant (or of the project, or of every tenant past
/// the limit), in the layout of `MetricsLayout`'s tenant block.
final class TenantCounters: Sendable {
    /// The `tenant` label's value ("" for the project).
    let tenant: String
    /// The counters.
    let counters: AtomicCounters

    init(tenant: String, size: Int) {
        self.tenant = tenant
        counters = AtomicCounters(count: size)
    }
}

/// Finds the counters of a tenant without a lock: an open-addressing hash
/// table whose slots are filled once (compare-and-swap) and never emptied,
/// sized to twice the limit, so a lookup probes a few slots.
///
/// A tenant gets counters of its own the first time it is counted, while
/// fewer than `limit` tenants have some; after that, and for a tenant id
/// that no call accepts (`MFAUser.checkIdentifier`), it shares `other`.
final class TenantTable: @unchecked Sendable {
    // @unchecked: the slots are atomics; what they point to is immutable
    // (`TenantCounters`) and retained by the table until it goes.
    /// The project's counters (`tenant=""`).
    let project: TenantCounters
    /// The counters of the tenants past the limit (`MetricsOptions.otherTenants`).
    let other: TenantCounters
    /// How many tenants may have counters of their own.
    let limit: Int
    private let size: Int
    private let mask: Int
    private let slots: UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>>
    /// Tenants given counters so far (may pass `limit` for a moment while a claim is given back).
    private let claimed = Atomic<Int>(0)

    init(limit: Int, blockSize: Int) {
        self.limit = limit
        size = blockSize
        project = TenantCounters(tenant: "", size: blockSize)
        other = TenantCounters(tenant: MetricsOptions.otherTenants, size: blockSize)
        var capacity = 8
        while capacity < limit * 2 { capacity *= 2 }
        mask = capacity - 1
        slots = .allocate(capacity: capacity)
        for index in 0..<capacity { (slots + index).initialize(to: Atomic(nil)) }
    }

    deinit {
        for index in 0...mask {
            if let raw = slots[index].load(ordering: .acquiring) {
                Unmanaged<TenantCounters>.fromOpaque(raw).release()
            }
        }
        slots.deinitialize(count: mask + 1)
        slots.deallocate()
    }

    /// The counters of `tenant` ("" for the project).
    func counters(_ tenant: String) -> TenantCounters {
        if tenant.isEmpty { return project }
        var index = tenant.hashValue & mask
        // A full table has a slot for each of `limit` tenants and as many
        // empty ones: every probe ends at the tenant or at an empty slot.
        for _ in 0...mask {
            guard let raw = slots[index].load(ordering: .acquiring) else {
                return insert(tenant, at: index)
            }
            let found = Unmanaged<TenantCounters>.fromOpaque(raw).takeUnretainedValue()
            if found.tenant == tenant { return found }
            index = (index + 1) & mask
        }
        return other
    }

    /// Gives `tenant` counters of its own in the empty slot `index` (or the
    /// first empty one after it), if the limit allows and the id is one a
    /// call accepts; else `other`.
    private func insert(_ tenant: String, at start: Int) -> TenantCounters {
        if tenant == MetricsOptions.otherTenants { return other }
        guard (try? MFAUser.checkIdentifier(tenant, "tenant")) != nil else { return other }
        guard claimed.wrappingAdd(1, ordering: .relaxed).newValue <= limit else {
            claimed.wrappingSubtract(1, ordering: .relaxed)
            return other
        }
        let made = TenantCounters(tenant: tenant, size: size)
        let raw = Unmanaged.passRetained(made).toOpaque()
        var index = start
        for _ in 0...mask {
            let (exchanged, original) = slots[index].compareExchange(expected: nil, desired: raw,
                                                                      ordering: .acquiringAndReleasing)
            if exchanged { return made }
            if let original {
                let found = Unmanaged<TenantCounters>.fromOpaque(original).takeUnretainedValue()
                if found.tenant == tenant {
                    // Another thread gave it counters first.
                    Unmanaged<TenantCounters>.fromOpaque(raw).release()
                    claimed.wrappingSubtract(1, ordering: .relaxed)
                    return found
                }
            }
            index = (index + 1) & mask
        }
        Unmanaged<TenantCounters>.fromOpaque(raw).release()
        return other
    }

    /// Every tenant with counters of its own, by tenant id.
    func tenants() -> [TenantCounters] {
        var found: [TenantCounters] = []
        for index in 0...mask {
            if let raw = slots[index].load(ordering: .acquiring) {
                found.append(Unmanaged<TenantCounters>.fromOpaque(raw).takeUnretainedValue())
            }
        }
        return found.sorted { $0.tenant < $1.tenant }
    }
}
