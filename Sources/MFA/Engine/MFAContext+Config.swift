extension MFAContext {
    /// Stores the configuration of the project (`tenant` nil) or of a tenant,
    /// replacing the one before (a field it does not name takes its default,
    /// or for a tenant the project's value). See `MFAConfigDocument` for the
    /// shapes accepted.
    /// - Throws: `invalidArgument` naming the bad field; `storageError`.
    public func setConfig(json: String, tenant: String? = nil) throws(MFAError) {
        let call = CallBudget.begin()
        defer { call.end() }
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        let document = try MFAConfigDocument.validate(json)
        if tenant != nil {
            try MFAConfigDocument.checkTenantDocument(document)
            try MFAConfigDocument.checkWhole(MFAConfigDocument.resolve([try projectDocument(), document]))
        }
        let now = clock.now()
        // Stored if the trail is kept before the change or after it (turning it off is recorded too).
        let before = try auditConfig()
        let after = tenant == nil ? try MFAConfigDocument.resolve([document]) : before
        let note = auditNote(before.auditTrail.store ? before : after) { () in
            [AuditEvent(kind: .configChange, tenant: tenant ?? "", time: now)]
        }
        try store.setConfigDocument(document.jsonText, tenant: tenant ?? "", now: now, audit: note)
        report(note, ())
    }

    /// Changes only what `json` names in the stored configuration of the
    /// project or a tenant (merge semantics, like the service's
    /// `updateProjectConfig` and `updateTenant`): objects merge field by
    /// field, `testPhoneNumbers` is replaced whole, and everything not named
    /// stays as it was. Every shape `setConfig` accepts is accepted.
    /// - Throws: `invalidArgument` naming the bad field (the stored
    ///   configuration is then unchanged); `storageError`.
    public func updateConfig(json: String, tenant: String? = nil) throws(MFAError) {
        let call = CallBudget.begin()
        defer { call.end() }
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        let update = try MFAConfigDocument.validate(json)
        if tenant != nil { try MFAConfigDocument.checkTenantDocument(update) }
        let project = tenant == nil ? nil : try projectDocument()
        let now = clock.now()
        let before = try auditConfig()
        let note = auditNote(before) { () in
            [AuditEvent(kind: .configChange, tenant: tenant ?? "", time: now, detail: "UPDATE")]
        }
        let trail = self.trail
        try store.updateConfigDocument(tenant: tenant ?? "", now: now, audit: note) { (stored) throws(MFAError) in
            let base = try stored.map { (text) throws(MFAError) in try JSONParser.parse(text) } ?? .object([])
            let merged = ConfigMerge.merge(base, update)
            let resolved = try MFAConfigDocument.resolve((project.map { [$0] } ?? []) + [merged])
            try MFAConfigDocument.checkWhole(resolved)
            // Stored if the trail is kept before the change or after it (turning it off is recorded too).
            if resolved.auditTrail.store { note.trail = trail }
            return merged.jsonText
        }
        report(note, ())
    }

    /// Stores a configuration given as a value (every field is written).
    public func setConfig(_ config: MFAConfig, tenant: String? = nil) throws(MFAError) {
        let call = CallBudget.begin()
        defer { call.end() }
        try setConfig(json: MFAConfigDocument.json(config).jsonText, tenant: tenant)
    }

    /// The effective configuration of the project or of a tenant (the
    /// tenant's fields over the project's over the defaults).
    public func config(tenant: String? = nil) throws(MFAError) -> MFAConfig {
        let call = CallBudget.begin()
        defer { call.end() }
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        return try config(from: store.configDocuments(tenant: tenant ?? ""))
    }

    /// The configuration the stored documents give, parsed once per distinct
    /// pair of documents (another process may change them at any time, so
    /// the documents themselves are read with every operation).
    func config(from documents: ConfigDocuments) throws(MFAError) -> MFAConfig {
        if let cached = configCache.lookup(documents) { return cached }
        var layers: [JSONValue] = []
        if let project = documents.project { layers.append(try Self.storedDocument(project)) }
        if let tenant = documents.tenant {
            layers.append(MFAConfigDocument.tenantLayer(try Self.storedDocument(tenant)))
        }
        let config: MFAConfig
        do {
            config = try MFAConfigDocument.resolve(layers)
        } catch {
            throw MFAError(.storageError, "a stored configuration is out of range: \(error.message)")
        }
        configCache.store(config, for: documents)
        return config
    }

    /// The effective configuration as JSON, every field written out.
    public func configJSON(tenant: String? = nil) throws(MFAError) -> String {
        let call = CallBudget.begin()
        defer { call.end() }
        return MFAConfigDocument.json(try config(tenant: tenant)).jsonText
    }

    private func projectDocument() throws(MFAError) -> JSONValue {
        guard let text = try store.configDocuments(tenant: "").project else { return .object([]) }
        return try Self.storedDocument(text)
    }

    /// A stored document; one that does not parse is a store problem.
    private static func storedDocument(_ text: String) throws(MFAError) -> JSONValue {
        do {
            return try JSONParser.parse(text)
        } catch {
            throw MFAError(.storageError, "a stored configuration is not valid JSON")
        }
    }
}
