import CSodium

/// Guarded memory for the small secrets a call decrypts and drops (a TOTP
/// secret, a token's claims): one region from `sodium_malloc` (guard pages
/// around it, locked against swapping), cut into slots that are wiped
/// when given back.
///
/// `sodium_malloc` maps, locks and protects fresh pages on every call and
/// `sodium_free` unmaps them: a dozen system calls per secret on the
/// sign-in path. The arena makes them once per process. A secret larger
/// than a slot, or one asked for while every slot is taken, gets pages of
/// its own as before.
final class SecureArena: @unchecked Sendable {
    /// The bytes of one slot.
    static let slotBytes = 256
    /// The slots of the process's arena (64 KiB).
    static let slotCount = 256

    /// The process's arena; nil if its region could not be had.
    static let shared: SecureArena? = SecureArena(slots: slotCount)

    private let base: UnsafeMutableRawPointer
    private let end: UnsafeMutableRawPointer
    private let lock = Lock()
    /// Free slot numbers; only touched with `lock` held.
    private var free: [Int]

    private init?(slots: Int) {
        guard (try? Sodium.ensureReady()) != nil, let memory = sodium_malloc(slots * Self.slotBytes) else {
            return nil
        }
        sodium_memzero(memory, slots * Self.slotBytes)
        base = memory
        end = memory + slots * Self.slotBytes
        free = Array((0..<slots).reversed())
    }

    /// A zeroed slot for `count` bytes, or nil (too large, or none free).
    func allocate(_ count: Int) -> UnsafeMutableRawPointer? {
        guard count <= Self.slotBytes else { return nil }
        let slot = lock.withLock { free.popLast() }
        return slot.map { base + $0 * Self.slotBytes }
    }

    /// Whether `pointer` is one of the arena's slots.
    func owns(_ pointer: UnsafeMutableRawPointer) -> Bool {
        pointer >= base && pointer < end
    }

    /// Wipes a slot and gives it back.
    func release(_ pointer: UnsafeMutableRawPointer) {
        sodium_memzero(pointer, Self.slotBytes)
        let slot = (pointer - base) / Self.slotBytes
        lock.withLock { free.append(slot) }
    }
}
