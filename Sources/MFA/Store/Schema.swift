/// The store's schema: numbered forward migrations, the same for SQLite and
/// PostgreSQL except for the byte type's name.
///
/// `mfa_meta` holds `schema_version`. Opening a store applies, in one
/// transaction, every migration after the stored version; a store written by
/// a newer libmfa (a version this code does not know) is refused.
package enum Schema {
    /// The version this libmfa writes.
    package static var currentVersion: Int64 { Int64(migrations.count) }

    /// Migration N (1-based) is `migrations[N - 1]`, in SQLite's words:
    /// PostgreSQL reads `BYTEA` for `BLOB` and ignores `WITHOUT ROWID`.
    private static let migrations: [[String]] = [
        [
            """
            CREATE TABLE mfa_config (tenant TEXT PRIMARY KEY, document TEXT NOT NULL, \
            updated_at BIGINT NOT NULL) WITHOUT ROWID
            """,
            """
            CREATE TABLE mfa_users (tenant TEXT NOT NULL, uid TEXT NOT NULL, \
            tokens_valid_after BIGINT NOT NULL DEFAULT 0, last_second_factor_at BIGINT NOT NULL DEFAULT 0, \
            failures BIGINT NOT NULL DEFAULT 0, last_failure_at BIGINT NOT NULL DEFAULT 0, \
            locked_until BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (tenant, uid)) WITHOUT ROWID
            """,
            """
            CREATE TABLE mfa_factors (enrollment_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, \
            uid TEXT NOT NULL, factor_id TEXT NOT NULL, display_name TEXT, enrolled_at BIGINT NOT NULL, \
            key_id TEXT NOT NULL, sealed BLOB NOT NULL, algorithm INTEGER NOT NULL, digits INTEGER NOT NULL, \
            period BIGINT NOT NULL, last_step BIGINT NOT NULL DEFAULT -1, \
            failures BIGINT NOT NULL DEFAULT 0, last_failure_at BIGINT NOT NULL DEFAULT 0, \
            locked_until BIGINT NOT NULL DEFAULT 0) WITHOUT ROWID
            """,
            "CREATE INDEX mfa_factors_user ON mfa_factors (tenant, uid)",
            """
            CREATE TABLE mfa_pending (pending_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, uid TEXT NOT NULL, \
            key_id TEXT NOT NULL, sealed BLOB NOT NULL, deadline BIGINT NOT NULL) WITHOUT ROWID
            """,
            "CREATE INDEX mfa_pending_deadline ON mfa_pending (deadline)",
            "CREATE TABLE mfa_consumed (token_id BLOB PRIMARY KEY, expires BIGINT NOT NULL) WITHOUT ROWID",
            "CREATE INDEX mfa_consumed_expires ON mfa_consumed (expires)",
        ],
        [
            """
            CREATE TABLE mfa_sms_verifications (verification_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, \
            uid TEXT NOT NULL, purpose INTEGER NOT NULL, enrollment_id TEXT, bound_token BLOB NOT NULL, \
            key_id TEXT NOT NULL, sealed BLOB NOT NULL, code_hash BLOB NOT NULL, expires BIGINT NOT NULL, \
            attempts BIGINT NOT NULL DEFAULT 0, used INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID
            """,
            "CREATE INDEX mfa_sms_verifications_expires ON mfa_sms_verifications (expires)",
            "CREATE TABLE mfa_sms_sends (scope TEXT NOT NULL, sent_at BIGINT NOT NULL, verification_id TEXT NOT NULL)",
            "CREATE INDEX mfa_sms_sends_scope ON mfa_sms_sends (scope, sent_at)",
            "CREATE INDEX mfa_sms_sends_verification ON mfa_sms_sends (verification_id)",
        ],
    ]

    /// Brings the database up to `currentVersion`.
    /// - Throws: `storageError` if the database is newer than this code, or on any failure.
    package static func migrate(_ database: SQLDatabase) throws(MFAError) {
        try database.transaction { (db) throws(MFAError) in
            try db.serialize("schema")
            try db.execute("CREATE TABLE IF NOT EXISTS mfa_meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL)", [])
            let rows = try db.query("SELECT value FROM mfa_meta WHERE name = 'schema_version'", [])
            let stored = rows.first?.first?.int ?? 0
            guard stored <= currentVersion else {
                throw MFAError(.storageError,
                               "the store has schema version \(stored); this libmfa knows up to \(currentVersion)")
            }
            for version in Int(stored)..<migrations.count {
                for statement in migrations[version] {
                    try db.execute(dialected(statement, database.dialect), [])
                }
            }
            try db.execute("""
                INSERT INTO mfa_meta (name, value) VALUES ('schema_version', ?) \
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """, [.int(currentVersion)])
        }
    }

    /// The stored schema version.
    package static func version(_ database: SQLDatabase) throws(MFAError) -> Int64 {
        try database.transaction { (db) throws(MFAError) in
            try db.query("SELECT value FROM mfa_meta WHERE name = 'schema_version'", []).first?.first?.int ?? 0
        }
    }

    private static func dialected(_ statement: String, _ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite: statement
        case .postgres: statement.replacing("BLOB", with: "BYTEA").replacing(" WITHOUT ROWID", with: "")
        }
    }
}
