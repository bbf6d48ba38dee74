/// The audit trail's track of the schema (`schema_version:audit`): the
/// stored events and the head of each chain.
///
/// `mfa_audit_events` holds one row per event, numbered from 1 in its
/// chain (`seq`), with the id of the master key whose audit subkey made its
/// MAC. `mfa_audit_chains` holds one row per chain: its head (the last
/// event's number and MAC) and its anchor (the first event kept, and the
/// MAC of the event before it, which a purge deleted), itself MACed.
package enum AuditSchema {
    /// The track's name in `mfa_meta`.
    package static let track = "schema_version:audit"

    /// Migration N (1-based) is `migrations[N - 1]`.
    package static let migrations: [Migration] = [
        { d, _ in [
            d.createKeyedTable("mfa_audit_events", """
                chain TEXT NOT NULL, seq BIGINT NOT NULL, time BIGINT NOT NULL, kind TEXT NOT NULL, \
                tenant TEXT NOT NULL, uid TEXT NOT NULL, factor_id TEXT NOT NULL, enrollment_id TEXT NOT NULL, \
                detail TEXT NOT NULL, actor TEXT NOT NULL, key_id TEXT NOT NULL, mac \(d.blobType) NOT NULL, \
                PRIMARY KEY (chain, seq)
                """),
            "CREATE INDEX mfa_audit_events_time ON mfa_audit_events (time, chain, seq)",
            "CREATE INDEX mfa_audit_events_user ON mfa_audit_events (uid, time)",
            d.createKeyedTable("mfa_audit_chains", """
                chain TEXT PRIMARY KEY, head_seq BIGINT NOT NULL, head_mac \(d.blobType) NOT NULL, \
                anchor_seq BIGINT NOT NULL, anchor_prev \(d.blobType) NOT NULL, key_id TEXT NOT NULL, \
                mac \(d.blobType) NOT NULL
                """),
        ] },
    ]
}
