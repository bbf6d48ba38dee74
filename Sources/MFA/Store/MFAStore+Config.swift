extension MFAStore {
    /// Replaces the configuration document of `tenant` ("" for the project).
    package func setConfigDocument(_ document: String, tenant: String, now: Int64,
                                   audit: AuditNote<Void>? = nil) throws(MFAError) {
        defer { memo.clear() }
        try database.transaction { (db) throws(MFAError) in
            try db.execute(dialect.upsert(into: "mfa_config", columns: ["tenant", "document", "updated_at"],
                                          conflict: ["tenant"], update: [.proposed("document"), .proposed("updated_at")]),
                           [.text(tenant), .text(document), .int(now)])
            try audit?.record(db, dialect)
        }
    }

    /// Changes the configuration document of `tenant` in one transaction:
    /// `change` sees the stored document (nil if none) and returns the new one.
    package func updateConfigDocument(tenant: String, now: Int64, audit: AuditNote<Void>? = nil,
                                      _ change: (String?) throws(MFAError) -> String) throws(MFAError) {
        defer { memo.clear() }
        try database.transaction { (db) throws(MFAError) in
            // An upsert that locks the row (an empty document stands for none
            // until the transaction writes the real one, or rolls back).
            let stored = try db.query("""
                INSERT INTO mfa_config (tenant, document, updated_at) VALUES (?, '', ?) ON CONFLICT (tenant) \
                DO UPDATE SET updated_at = mfa_config.updated_at RETURNING document
                """, [.text(tenant), .int(now)]).first?.first?.text
            let document = try change(stored.flatMap { $0.isEmpty ? nil : $0 })
            try db.execute(dialect.upsert(into: "mfa_config", columns: ["tenant", "document", "updated_at"],
                                          conflict: ["tenant"], update: [.proposed("document"), .proposed("updated_at")]),
                           [.text(tenant), .text(document), .int(now)])
            try audit?.record(db, dialect)
        }
    }

    /// The configuration documents of the project and of `tenant`.
    package func configDocuments(tenant: String) throws(MFAError) -> ConfigDocuments {
        try database.read { (db) throws(MFAError) in try Self.documents(db, tenant) }
    }

    static func documents(_ db: SQLConnection, _ tenant: String) throws(MFAError) -> ConfigDocuments {
        var documents = ConfigDocuments()
        for row in try db.query("SELECT tenant, document FROM mfa_config WHERE tenant = '' OR tenant = ?",
                                [.text(tenant)]) {
            guard let name = row[0].text, let document = row[1].text else {
                throw MFAError(.storageError, "a stored configuration is malformed")
            }
            if name.isEmpty { documents.project = document } else { documents.tenant = document }
        }
        return documents
    }
}
