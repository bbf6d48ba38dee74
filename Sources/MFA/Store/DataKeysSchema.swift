/// The schema track of the wrapped data keys (`schema_version:keys`), for
/// stores whose data keys a key provider holds (`KeyProvider`).
enum DataKeysSchema {
    /// The track's name in `mfa_meta`.
    static let track = "schema_version:keys"

    /// Migration N (1-based) is `migrations[N - 1]`.
    static let migrations: [Migration] = [
        // One row per data key: its id (the key id stored beside what it
        // seals), the provider kind and the label of the provider's key it
        // is wrapped under, the wrapped bytes, and whether it is the key
        // new records are sealed with.
        { d, _ in [
            d.createKeyedTable("mfa_data_keys", """
                key_id TEXT PRIMARY KEY, provider TEXT NOT NULL, wrapping_label TEXT NOT NULL, \
                wrapped \(d.blobType) NOT NULL, is_current BIGINT NOT NULL, created_at BIGINT NOT NULL, \
                rewrapped_at BIGINT NOT NULL
                """),
        ] },
    ]
}
