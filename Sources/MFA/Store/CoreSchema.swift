/// The core track of the schema: what every factor kind shares.
package enum CoreSchema {
    /// Migration N (1-based) is `migrations[N - 1]`.
    package static let migrations: [Migration] = [
        { d, _ in [
            d.createKeyedTable("mfa_config", "tenant TEXT PRIMARY KEY, document TEXT NOT NULL, updated_at BIGINT NOT NULL"),
            d.createKeyedTable("mfa_users", """
                tenant TEXT NOT NULL, uid TEXT NOT NULL, \
                tokens_valid_after BIGINT NOT NULL DEFAULT 0, last_second_factor_at BIGINT NOT NULL DEFAULT 0, \
                failures BIGINT NOT NULL DEFAULT 0, last_failure_at BIGINT NOT NULL DEFAULT 0, \
                locked_until BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (tenant, uid)
                """),
            // algorithm ... last_step belonged to TOTP; its own track moves them out.
            d.createKeyedTable("mfa_factors", """
                enrollment_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, \
                uid TEXT NOT NULL, factor_id TEXT NOT NULL, display_name TEXT, enrolled_at BIGINT NOT NULL, \
                key_id TEXT NOT NULL, sealed \(d.blobType) NOT NULL, algorithm INTEGER NOT NULL, \
                digits INTEGER NOT NULL, period BIGINT NOT NULL, last_step BIGINT NOT NULL DEFAULT -1, \
                failures BIGINT NOT NULL DEFAULT 0, last_failure_at BIGINT NOT NULL DEFAULT 0, \
                locked_until BIGINT NOT NULL DEFAULT 0
                """),
            "CREATE INDEX mfa_factors_user ON mfa_factors (tenant, uid)",
            d.createKeyedTable("mfa_pending", """
                pending_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, uid TEXT NOT NULL, \
                key_id TEXT NOT NULL, sealed \(d.blobType) NOT NULL, deadline BIGINT NOT NULL
                """),
            "CREATE INDEX mfa_pending_deadline ON mfa_pending (deadline)",
            d.createKeyedTable("mfa_consumed", "token_id \(d.blobType) PRIMARY KEY, expires BIGINT NOT NULL"),
            "CREATE INDEX mfa_consumed_expires ON mfa_consumed (expires)",
        ] },
        // Version 2: SMS (the phone factor's tables, kept in the core track where they began).
        { d, _ in [
            d.createKeyedTable("mfa_sms_verifications", """
                verification_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, \
                uid TEXT NOT NULL, purpose INTEGER NOT NULL, enrollment_id TEXT, bound_token \(d.blobType) NOT NULL, \
                key_id TEXT NOT NULL, sealed \(d.blobType) NOT NULL, code_hash \(d.blobType) NOT NULL, \
                expires BIGINT NOT NULL, attempts BIGINT NOT NULL DEFAULT 0, used INTEGER NOT NULL DEFAULT 0
                """),
            "CREATE INDEX mfa_sms_verifications_expires ON mfa_sms_verifications (expires)",
            "CREATE TABLE mfa_sms_sends (scope TEXT NOT NULL, sent_at BIGINT NOT NULL, verification_id TEXT NOT NULL)",
            "CREATE INDEX mfa_sms_sends_scope ON mfa_sms_sends (scope, sent_at)",
            "CREATE INDEX mfa_sms_sends_verification ON mfa_sms_sends (verification_id)",
        ] },
        // Version 3: revocation epochs and millisecond revocation times; seals
        // bound to user and factor kind (rows are re-sealed by the first
        // context that opens the store with their keys: seal_format 1 -> 2).
        // Pending secrets and SMS codes, sealed the old way and at most
        // minutes old, are dropped: enrollments in flight start again.
        { d, _ in [
            "ALTER TABLE mfa_users ADD COLUMN token_epoch BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE mfa_users ADD COLUMN revoked_at_ms BIGINT",
            // valid iff issued_at >= tokens_valid_after  ==  issued_at > (tokens_valid_after * 1000 - 1) / 1000
            """
            UPDATE mfa_users SET revoked_at_ms = tokens_valid_after * 1000 - 1 \
            WHERE tokens_valid_after <> 0 AND tokens_valid_after BETWEEN -9000000000000000 AND 9000000000000000
            """,
            "ALTER TABLE mfa_users DROP COLUMN tokens_valid_after",
            "ALTER TABLE mfa_factors ADD COLUMN seal_format INTEGER NOT NULL DEFAULT 1",
            "DELETE FROM mfa_pending",
            "DELETE FROM mfa_sms_verifications",
        ] },
        // Version 4: the pending credentials a user has used, in the user's
        // row (`ConsumedTokens`; written where a write transaction holds the
        // whole database, read everywhere beside `mfa_consumed`).
        { d, _ in ["ALTER TABLE mfa_users ADD COLUMN consumed \(d.blobType)"] },
        // Version 5: on SQLite, the factors stored in the order of their owner
        // (`FactorsByOwner`); PostgreSQL's tables are unchanged.
        FactorsByOwner.migration,
        // Version 6: the factors still sealed the schema-2 way, in an index of
        // their own (empty once every seal is current). Opening a context looks
        // for them (`MFAContext.upgradeSeals`); without it that look read every
        // factor of the store, at every open.
        { _, _ in
            ["CREATE INDEX mfa_factors_legacy_seal ON mfa_factors (enrollment_id) WHERE \(MFAStore.legacySealPredicate)"]
        },
        // Version 7: a check value per master key id (`KeyCheck`), so that a
        // store opened with another key under a known id is `keyMismatch`.
        // A store from before records each key's value at its first open by
        // this libmfa, once the key is seen to open a record sealed under it
        // (`MFAContext.checkKeys`).
        { d, _ in [
            d.createKeyedTable("mfa_key_checks", """
                key_id TEXT NOT NULL, method TEXT NOT NULL, check_value \(d.blobType) NOT NULL, \
                recorded_at BIGINT NOT NULL, PRIMARY KEY (key_id, method)
                """),
        ] },
    ]
}
