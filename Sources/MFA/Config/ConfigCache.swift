/// Parsed configurations by the stored documents they came from.
final class ConfigCache: @unchecked Sendable {
    private let lock = Lock()
    /// Only touched with `lock` held.
    private var entries: [ConfigDocuments: MFAConfig] = [:]
    /// More distinct document pairs than this and the cache starts over.
    private let capacity = 1024

    func lookup(_ documents: ConfigDocuments) -> MFAConfig? {
        lock.withLock { entries[documents] }
    }

    func store(_ config: MFAConfig, for documents: ConfigDocuments) {
        lock.withLock {
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[documents] = config
        }
    }
}
