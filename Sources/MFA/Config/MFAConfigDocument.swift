/// The JSON form of a configuration, as stored and as exchanged with hosts.
///
/// ```json
/// {
///   "state": "ENABLED",
///   "providers": {"totp": "ENABLED", "phone": "DISABLED", "recovery": "ENABLED"},
///   "totp": {"adjacentIntervals": 5},
///   "phone": {"appVerification": "REQUIRED"},
///   "testPhoneNumbers": {"+15555550100": "123456"},
///   "recoveryCodes": {"count": 10},
///   "limits": {"pendingCredentialLifetime": 300, "freeAttempts": 5},
///   "rememberedDevices": {"state": "ENABLED", "days": 30, "sliding": false, "maxPerUser": 10},
///   "auditTrail": {"store": true, "retentionDays": 365}
/// }
/// ```
///
/// Every field is optional. A factor kind's section may also carry its
/// state (`"recoveryCodes": {"state": "ENABLED"}` is the same as
/// `"providers": {"recovery": "ENABLED"}`). The shapes the guides write are
/// accepted too and read as this one (`GuideConfigShapes`): the Admin SDK's
/// `multiFactorConfig` and the REST API's `mfa` / `mfaConfig`, with integers
/// given as strings as proto3 JSON allows.
///
/// A project's document is laid over the defaults, and a tenant's document
/// over its project's: objects merge field by field, except
/// `testPhoneNumbers`, which a tenant replaces as a whole. Unknown fields,
/// wrong types and values out of range are `invalidArgument` errors naming
/// the field (never echoing a phone number or a code).
public enum MFAConfigDocument {
    /// The top-level keys of libmfa's own shape.
    static var keys: [String] {
        ["state", "providers", "limits", RememberedDeviceSettings.key, AuditTrailSettings.key]
            + FactorRegistry.all.flatMap { $0.configKeys }
    }

    /// Checks a document on its own (in any accepted shape): its fields are
    /// known, typed and in range.
    /// - Returns: the document in libmfa's own shape, with only the fields it named.
    /// - Throws: `invalidArgument` naming the first bad field.
    @discardableResult
    public static func validate(_ text: String) throws(MFAError) -> JSONValue {
        let document = try GuideConfigShapes.normalize(try JSONParser.parse(text))
        var config = MFAConfig()
        try apply(document, to: &config)
        try checkWhole(config)
        return document
    }

    /// Checks what no single field shows, on an effective configuration
    /// (every layer applied): each kind's settings as a whole
    /// (`SecondFactor.check`), such as WebAuthn origins against the rp id.
    /// - Throws: `invalidArgument` naming the field.
    package static func checkWhole(_ config: MFAConfig) throws(MFAError) {
        for kind in FactorRegistry.all { try checkSection(kind, config) }
    }

    private static func checkSection<F: SecondFactor>(_ kind: F.Type, _ config: MFAConfig) throws(MFAError) {
        try F.check(config[kind])
    }

    /// The effective configuration: defaults, then each document in turn.
    /// - Parameter layers: the documents (own shape), project first, then tenant.
    public static func resolve(_ layers: [JSONValue]) throws(MFAError) -> MFAConfig {
        var config = MFAConfig()
        for layer in layers { try apply(layer, to: &config) }
        return config
    }

    /// The full JSON of a configuration, every field written out.
    public static func json(_ config: MFAConfig) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("state", .string(config.state.rawValue)),
            ("providers", .object(FactorRegistry.all.map {
                ($0.id, .string((config.providers[$0.id] ?? .disabled).rawValue))
            })),
        ]
        for kind in FactorRegistry.all { members += sectionJSON(kind, config) }
        members.append(("limits", .object(MFALimits.fields.map { ($0.name, .int(config.limits[keyPath: $0.path])) })))
        members.append((RememberedDeviceSettings.key, config.rememberedDevices.json))
        members.append((AuditTrailSettings.key, AuditTrailSettings.json(config.auditTrail)))
        return .object(members)
    }

    private static func sectionJSON<F: SecondFactor>(_ kind: F.Type, _ config: MFAConfig) -> [(String, JSONValue)] {
        F.json(config[kind])
    }

    private static func apply(_ document: JSONValue, to config: inout MFAConfig) throws(MFAError) {
        try ConfigFields.expectObject(document, "configuration", keys: keys)
        if let state = document["state"] {
            config.state = try ConfigFields.enumValue(state, "state", MFAState.self)
        }
        if let providers = document["providers"] {
            let names = FactorRegistry.all.flatMap { [$0.id] + $0.providerAliases }
            try ConfigFields.expectObject(providers, "providers", keys: names)
            for kind in FactorRegistry.all {
                for name in [kind.id] + kind.providerAliases {
                    if let value = providers[name] {
                        config.providers[kind.id] = try ConfigFields.enumValue(value, "providers." + name,
                                                                               ProviderState.self)
                    }
                }
            }
        }
        for kind in FactorRegistry.all { try applySection(kind, document, to: &config) }
        if let limits = document["limits"] {
            try ConfigFields.expectObject(limits, "limits", keys: MFALimits.fields.map(\.name))
            for field in MFALimits.fields {
                if let value = limits[field.name] {
                    config.limits[keyPath: field.path] = try ConfigFields.integer(value, "limits." + field.name,
                                                                                  field.range)
                }
            }
        }
        try RememberedDeviceSettings.apply(document, to: &config.rememberedDevices)
        if let audit = document[AuditTrailSettings.key] {
            try AuditTrailSettings.apply(audit, to: &config.auditTrail)
        }
    }

    /// Throws `invalidArgument` if a tenant's document names what only the
    /// project's may (`auditTrail`).
    static func checkTenantDocument(_ document: JSONValue) throws(MFAError) {
        guard document[AuditTrailSettings.key] == nil else {
            throw MFAError(.invalidArgument, "auditTrail can only be set in the project's configuration")
        }
    }

    /// A tenant's stored document without what only the project's may name.
    static func tenantLayer(_ document: JSONValue) -> JSONValue {
        guard case .object(let members) = document, document[AuditTrailSettings.key] != nil else { return document }
        return .object(members.filter { $0.0 != AuditTrailSettings.key })
    }

    /// Hands a kind its keys, taking its section's `"state"` first.
    private static func applySection<F: SecondFactor>(_ kind: F.Type, _ document: JSONValue,
                                                      to config: inout MFAConfig) throws(MFAError) {
        var own: [(String, JSONValue)] = []
        for key in F.configKeys {
            guard var value = document[key] else { continue }
            if key == F.configKeys.first, case .object(let members) = value,
               let state = members.first(where: { $0.0 == "state" }) {
                config.providers[F.id] = try ConfigFields.enumValue(state.1, key + ".state", ProviderState.self)
                value = .object(members.filter { $0.0 != "state" })
            }
            own.append((key, value))
        }
        guard !own.isEmpty else { return }
        var settings = config[kind]
        try F.apply(.object(own), to: &settings)
        config[kind] = settings
    }
}

/// Reading configuration fields with errors that name them: shared by the
/// document and by each factor kind's section.
package enum ConfigFields {
    /// Throws unless `value` is an object whose keys are all in `keys`.
    package static func expectObject(_ value: JSONValue, _ name: String, keys: [String]) throws(MFAError) {
        guard case .object = value else { throw MFAError(.invalidArgument, "\(name) must be a JSON object") }
        if let unknown = value.keys.first(where: { !keys.contains($0) }) {
            throw MFAError(.invalidArgument, "\(name): unknown field \"\(printable(unknown))\"")
        }
    }

    /// A string that is one of `E`'s raw values (upper case accepted as written).
    package static func enumValue<E: RawRepresentable & CaseIterable>(
        _ value: JSONValue, _ name: String, _: E.Type
    ) throws(MFAError) -> E where E.RawValue == String {
        guard case .string(let text) = value, let result = E(rawValue: text) else {
            let allowed = E.allCases.map(\.rawValue).joined(separator: ", ")
            throw MFAError(.invalidArgument, "\(name) must be one of \(allowed)")
        }
        return result
    }

    /// `true` or `false`.
    package static func boolean(_ value: JSONValue, _ name: String) throws(MFAError) -> Bool {
        guard case .bool(let flag) = value else { throw MFAError(.invalidArgument, "\(name) must be true or false") }
        return flag
    }

    /// An integer in `range`; a string of decimal digits counts (proto3 JSON
    /// writes 64-bit integers as strings, and the guides copy that).
    package static func integer(_ value: JSONValue, _ name: String,
                                _ range: ClosedRange<Int64>) throws(MFAError) -> Int64 {
        let number: Int64?
        switch value {
        case .int(let int): number = int
        case .string(let text) where text.utf8.count <= 20: number = Int64(text)
        default: number = nil
        }
        guard let number, range.contains(number) else {
            throw MFAError(.invalidArgument,
                           "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// A field name as it may appear in a message: at most 64 printable
    /// ASCII characters, and never a run of digits that could be part of a
    /// phone number or a code.
    private static func printable(_ text: String) -> String {
        let digits = text.unicodeScalars.filter { $0.properties.numericType != nil }.count
        guard digits < 4 else { return "(a name with digits)" }
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(64).map {
            $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f ? $0 : "?"
        }))
    }
}
