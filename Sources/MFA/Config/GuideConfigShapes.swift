/// The configuration shapes the guides write, read as libmfa's own.
///
/// - The Admin SDK's `multiFactorConfig` (`updateProjectConfig`,
///   `updateTenant`): `state` (ENABLED, DISABLED), `factorIds` (`"phone"`),
///   `providerConfigs` (`[{state, totpProviderConfig: {adjacentIntervals}}]`).
/// - The REST API's `mfa` (project) and `mfaConfig` (tenant): `state`
///   (also MANDATORY), `enabledProviders` (`"PHONE_SMS"`), `providerConfigs`.
/// - Either of them bare, and `testPhoneNumbers` beside them (a tenant's).
///
/// What a shape names is all it sets, so an update changes only that:
/// `factorIds` / `enabledProviders` set the phone provider (listed or not);
/// a `providerConfigs` entry sets TOTP (ENABLED unless its `state` says
/// otherwise) and its `adjacentIntervals`. When a shape turns a provider on
/// and gives no `state`, MFA itself is set ENABLED: copying a guide's
/// snippet gives a configuration that works.
enum GuideConfigShapes {
    private static let wrappers = ["multiFactorConfig", "mfa", "mfaConfig"]
    private static let guideKeys = ["state", "factorIds", "enabledProviders", "providerConfigs"]

    /// `document` in libmfa's own shape (unchanged if it is in it already).
    /// - Throws: `invalidArgument` naming a bad field of a guide shape.
    static func normalize(_ document: JSONValue) throws(MFAError) -> JSONValue {
        guard case .object(let members) = document else { return document }
        let keys = members.map(\.0)
        if let wrapper = wrappers.first(where: keys.contains) {
            try ConfigFields.expectObject(document, "configuration", keys: [wrapper, "testPhoneNumbers"])
            guard let inner = document[wrapper] else { return document }
            try ConfigFields.expectObject(inner, wrapper, keys: guideKeys)
            return try convert(inner, wrapper, testNumbers: document["testPhoneNumbers"])
        }
        let guideOnly = ["factorIds", "enabledProviders", "providerConfigs"]
        guard keys.contains(where: guideOnly.contains) else { return document }
        try ConfigFields.expectObject(document, "configuration", keys: guideKeys + ["testPhoneNumbers"])
        return try convert(document, "configuration", testNumbers: document["testPhoneNumbers"])
    }

    private static func convert(_ inner: JSONValue, _ name: String,
                                testNumbers: JSONValue?) throws(MFAError) -> JSONValue {
        var out: [(String, JSONValue)] = []
        var providers: [(String, JSONValue)] = []
        var totp: [(String, JSONValue)] = []
        var enablesProvider = false
        if let state = inner["state"] {
            out.append(("state", .string(try ConfigFields.enumValue(state, name + ".state", MFAState.self).rawValue)))
        }
        for (field, phoneName) in [("factorIds", "phone"), ("enabledProviders", "PHONE_SMS")] {
            guard let list = inner[field] else { continue }
            let ids = try strings(list, name + "." + field)
            let phone = ids.contains(phoneName)
            set(&providers, "phone", .string(phone ? "ENABLED" : "DISABLED"))
            enablesProvider = enablesProvider || phone
            if field == "factorIds", ids.contains("totp") {
                set(&providers, "totp", .string("ENABLED"))
                enablesProvider = true
            }
        }
        if let configs = inner["providerConfigs"] {
            guard case .array(let entries) = configs else {
                throw MFAError(.invalidArgument, "\(name).providerConfigs must be an array")
            }
            for (index, entry) in entries.enumerated() {
                let entryName = "\(name).providerConfigs[\(index)]"
                try ConfigFields.expectObject(entry, entryName, keys: ["state", "totpProviderConfig"])
                guard let settings = entry["totpProviderConfig"] else { continue }
                try ConfigFields.expectObject(settings, entryName + ".totpProviderConfig", keys: ["adjacentIntervals"])
                let state = try entry["state"].map { (value) throws(MFAError) in
                    try ConfigFields.enumValue(value, entryName + ".state", ProviderState.self)
                } ?? .enabled
                set(&providers, "totp", .string(state.rawValue))
                enablesProvider = enablesProvider || state == .enabled
                if let intervals = settings["adjacentIntervals"] {
                    set(&totp, "adjacentIntervals", .int(try ConfigFields.integer(
                        intervals, entryName + ".totpProviderConfig.adjacentIntervals", 0...10)))
                }
            }
        }
        if inner["state"] == nil, enablesProvider { out.append(("state", .string(MFAState.enabled.rawValue))) }
        if !providers.isEmpty { out.append(("providers", .object(providers))) }
        if !totp.isEmpty { out.append(("totp", .object(totp))) }
        if let testNumbers { out.append(("testPhoneNumbers", testNumbers)) }
        return .object(out)
    }

    /// Sets `key` in an ordered member list (the last setting wins).
    private static func set(_ members: inout [(String, JSONValue)], _ key: String, _ value: JSONValue) {
        members.removeAll { $0.0 == key }
        members.append((key, value))
    }

    private static func strings(_ value: JSONValue, _ name: String) throws(MFAError) -> [String] {
        guard case .array(let items) = value else { throw MFAError(.invalidArgument, "\(name) must be an array") }
        var out: [String] = []
        for item in items {
            guard case .string(let text) = item else {
                throw MFAError(.invalidArgument, "\(name) must be an array of strings")
            }
            out.append(text)
        }
        return out
    }
}
