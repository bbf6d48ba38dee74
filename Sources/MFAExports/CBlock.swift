import Glibc
import MFA

/// Lays out a result struct and everything it points to (strings, bytes,
/// arrays of structs) in one `malloc` block, so that one `free` releases it
/// and the fields read as plain C.
///
/// `build` runs twice: once to measure, once to write. It must place the
/// same things both times; while measuring, the pointers it gets are NULL.
enum CBlock {
    static func make<Header>(_ build: (CArena) -> Header) throws(MFAError) -> UnsafeMutablePointer<Header> {
        let start = MemoryLayout<Header>.stride
        let measure = CArena(base: nil, used: start)
        _ = build(measure)
        guard let memory = malloc(measure.used) else { throw MFAError(.outOfMemory) }
        let arena = CArena(base: memory, used: start)
        let header = build(arena)
        let pointer = memory.bindMemory(to: Header.self, capacity: 1)
        pointer.initialize(to: header)
        return pointer
    }
}

/// Space after a result struct, handed out in order.
final class CArena {
    private let base: UnsafeMutableRawPointer?
    private(set) var used: Int

    init(base: UnsafeMutableRawPointer?, used: Int) {
        self.base = base
        self.used = used
    }

    private func reserve(_ size: Int, alignment: Int) -> UnsafeMutableRawPointer? {
        used = (used + alignment - 1) / alignment * alignment
        defer { used += size }
        return base.map { $0 + used }
    }

    /// A NUL-terminated copy of `text`, or NULL for nil.
    func string(_ text: String?) -> UnsafePointer<CChar>? {
        guard var text else { return nil }
        let count = text.utf8.count
        guard let raw = reserve(count + 1, alignment: 1) else { return nil }
        text.withUTF8 { utf8 in
            if let source = utf8.baseAddress, count > 0 { raw.copyMemory(from: source, byteCount: count) }
        }
        raw.storeBytes(of: 0, toByteOffset: count, as: UInt8.self)
        return UnsafePointer(raw.bindMemory(to: CChar.self, capacity: count + 1))
    }

    /// A copy of `bytes`.
    func bytes(_ bytes: [UInt8]) -> UnsafePointer<UInt8>? {
        guard let raw = reserve(max(bytes.count, 1), alignment: 1) else { return nil }
        let out = raw.bindMemory(to: UInt8.self, capacity: max(bytes.count, 1))
        out.initialize(from: bytes, count: bytes.count)
        return UnsafePointer(out)
    }

    /// A C array of `items`, each made by `make` (which may place strings too).
    ///
    /// The array's space is reserved before `make` places anything of its
    /// own, so measuring and filling lay out the same; each element is
    /// written in place as it is made.
    func array<Source, Element>(_ items: [Source], _ make: (Source) -> Element) -> UnsafePointer<Element>? {
        let raw = reserve(MemoryLayout<Element>.stride * max(items.count, 1),
                          alignment: MemoryLayout<Element>.alignment)
        let out = raw?.bindMemory(to: Element.self, capacity: max(items.count, 1))
        for index in items.indices {
            let element = make(items[index])
            out?.advanced(by: index).initialize(to: element)
        }
        return out.map { UnsafePointer($0) }
    }
}
