import CSodium

/// Key material and decrypted secrets in libsodium's guarded memory
/// (`sodium_malloc`: guard pages, locked against swapping, and wiped when
/// the last reference goes). Small ones take a slot of the process's
/// `SecureArena`, itself one such region.
///
/// Bytes that pass through here never sit in ordinary heap memory, so they
/// are not left behind in freed allocations after a context closes.
package final class SecureBytes: @unchecked Sendable {
    /// The number of bytes.
    package let count: Int
    private let base: UnsafeMutableRawPointer

    /// Allocates `count` zeroed bytes of guarded memory.
    /// - Throws: `crypto` if libsodium cannot start, `outOfMemory` if the allocation fails.
    package init(count: Int) throws(MFAError) {
        try Sodium.ensureReady()
        self.count = count
        if let slot = SecureArena.shared?.allocate(max(count, 1)) {
            base = slot
            return
        }
        guard let memory = sodium_malloc(max(count, 1)) else { throw MFAError(.outOfMemory) }
        sodium_memzero(memory, max(count, 1))
        base = memory
    }

    /// A guarded copy of `bytes`.
    package convenience init(copying bytes: UnsafeRawBufferPointer) throws(MFAError) {
        try self.init(count: bytes.count)
        if let source = bytes.baseAddress, bytes.count > 0 { base.copyMemory(from: source, byteCount: bytes.count) }
    }

    deinit {
        if let arena = SecureArena.shared, arena.owns(base) {
            arena.release(base)
        } else {
            sodium_free(base)
        }
    }

    /// Runs `body` with the bytes.
    package func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Runs `body` with the bytes, writable.
    package func withMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(start: base, count: count))
    }

    /// The start of the bytes, for C calls made while `self` is alive.
    var pointer: UnsafePointer<UInt8> { UnsafePointer(base.assumingMemoryBound(to: UInt8.self)) }

    /// An ordinary copy, for values that are not secret once decrypted (a phone number).
    package var array: [UInt8] { withBytes { Array($0) } }
}

/// Overwrites `bytes` with zeros (`sodium_memzero`, which the compiler cannot drop).
package func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
        if let base = buffer.baseAddress, buffer.count > 0 { sodium_memzero(base, buffer.count) }
    }
}

/// `array.withUnsafeBytes` for a body that throws `MFAError` (the standard
/// library's is `rethrows`, which typed throws cannot pass through).
package func withBytes<R>(of array: [UInt8],
                          _ body: (UnsafeRawBufferPointer) throws(MFAError) -> R) throws(MFAError) -> R {
    let result: Result<R, MFAError> = array.withUnsafeBytes { buffer in Result { () throws(MFAError) in try body(buffer) } }
    return try result.get()
}
