/// Parsed configurations by the stored documents they came from.
final class ConfigCache: @unchecked Sendable {
    private let lock = Lock()
    /// Only touched with `lock` held.
    private var entries: [ConfigDocuments: MFAConfig] = [:]
    /// More distinct document pairs than this and the cache starts over.
    private let capacity = 1024

    /// The entry found last: most operations find the same documents as the
    /// one before, which a comparison finds without hashing them.
    private var last: (documents: ConfigDocuments, config: MFAConfig)?

    func lookup(_ documents: ConfigDocuments) -> MFAConfig? {
        lock.withLock {
            if let last, last.documents == documents { return last.config }
            guard let config = entries[documents] else { return nil }
            last = (documents, config)
            return config
        }
    }

    func store(_ config: MFAConfig, for documents: ConfigDocuments) {
        lock.withLock {
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[documents] = config
            last = (documents, config)
        }
    }
}
