/// The JSON form of a configuration, as stored and as exchanged with hosts.
///
/// ```json
/// {
///   "state": "ENABLED",
///   "providers": {"totp": "ENABLED", "phone": "DISABLED"},
///   "totp": {"adjacentIntervals": 5},
///   "phone": {"appVerification": "REQUIRED"},
///   "testPhoneNumbers": {"+15555550100": "123456"},
///   "limits": {"pendingCredentialLifetime": 300, "freeAttempts": 5}
/// }
/// ```
///
/// Every field is optional. A project's document is laid over the defaults,
/// and a tenant's document over its project's: objects merge field by field,
/// except `testPhoneNumbers`, which a tenant replaces as a whole. Unknown
/// fields, wrong types and values out of range are `invalidArgument` errors
/// naming the field.
public enum MFAConfigDocument {
    /// Checks a document on its own: its fields are known, typed and in range.
    /// - Returns: the parsed document.
    /// - Throws: `invalidArgument` naming the first bad field.
    @discardableResult
    public static func validate(_ text: String) throws(MFAError) -> JSONValue {
        let document = try JSONParser.parse(text)
        var config = MFAConfig()
        try apply(document, to: &config)
        return document
    }

    /// The effective configuration: defaults, then each document in turn.
    /// - Parameter layers: the documents, project first, then tenant.
    public static func resolve(_ layers: [JSONValue]) throws(MFAError) -> MFAConfig {
        var config = MFAConfig()
        for layer in layers { try apply(layer, to: &config) }
        return config
    }

    /// The full JSON of a configuration.
    public static func json(_ config: MFAConfig) -> JSONValue {
        .object([
            ("state", .string(config.state.rawValue)),
            ("providers", .object([("totp", .string(config.totp.rawValue)),
                                   ("phone", .string(config.phone.rawValue))])),
            ("totp", .object([("adjacentIntervals", .int(Int64(config.adjacentIntervals)))])),
            ("phone", .object([("appVerification", .string(config.appVerification.rawValue))])),
            ("testPhoneNumbers", .object(config.testPhoneNumbers.map { ($0.number, .string($0.code)) })),
            ("limits", .object(MFALimits.fields.map { ($0.name, .int(config.limits[keyPath: $0.path])) })),
        ])
    }

    private static func apply(_ document: JSONValue, to config: inout MFAConfig) throws(MFAError) {
        try expectObject(document, "configuration",
                         keys: ["state", "providers", "totp", "phone", "testPhoneNumbers", "limits"])
        if let state = document["state"] {
            config.state = try enumValue(state, "state", MFAState.self)
        }
        if let providers = document["providers"] {
            try expectObject(providers, "providers", keys: ["totp", "phone"])
            if let totp = providers["totp"] { config.totp = try enumValue(totp, "providers.totp", ProviderState.self) }
            if let phone = providers["phone"] {
                config.phone = try enumValue(phone, "providers.phone", ProviderState.self)
            }
        }
        if let totp = document["totp"] {
            try expectObject(totp, "totp", keys: ["adjacentIntervals"])
            if let intervals = totp["adjacentIntervals"] {
                config.adjacentIntervals = Int(try integer(intervals, "totp.adjacentIntervals", 0...10))
            }
        }
        if let phone = document["phone"] {
            try expectObject(phone, "phone", keys: ["appVerification"])
            if let policy = phone["appVerification"] {
                config.appVerification = try enumValue(policy, "phone.appVerification", AppVerificationPolicy.self)
            }
        }
        if let numbers = document["testPhoneNumbers"] {
            config.testPhoneNumbers = try testNumbers(numbers)
        }
        if let limits = document["limits"] {
            try expectObject(limits, "limits", keys: MFALimits.fields.map(\.name))
            for field in MFALimits.fields {
                if let value = limits[field.name] {
                    config.limits[keyPath: field.path] = try integer(value, "limits." + field.name, field.range)
                }
            }
        }
    }

    private static func testNumbers(_ value: JSONValue) throws(MFAError) -> [(number: String, code: String)] {
        guard case .object(let members) = value else {
            throw MFAError(.invalidArgument, "testPhoneNumbers must be an object of number: code")
        }
        guard members.count <= MFAConfig.maxTestPhoneNumbers else {
            throw MFAError(.invalidArgument, "testPhoneNumbers holds at most 10 numbers")
        }
        var out: [(number: String, code: String)] = []
        for (number, code) in members {
            guard PhoneNumber.isValid(number) else {
                throw MFAError(.invalidArgument, "testPhoneNumbers: \(number) is not an E.164 number")
            }
            guard case .string(let text) = code, text.utf8.count == 6,
                  text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw MFAError(.invalidArgument, "testPhoneNumbers: the code of \(number) must be six digits")
            }
            out.append((number, text))
        }
        return out
    }

    private static func expectObject(_ value: JSONValue, _ name: String, keys: [String]) throws(MFAError) {
        guard case .object = value else { throw MFAError(.invalidArgument, "\(name) must be a JSON object") }
        if let unknown = value.keys.first(where: { !keys.contains($0) }) {
            throw MFAError(.invalidArgument, "\(name): unknown field \"\(unknown)\"")
        }
    }

    private static func enumValue<E: RawRepresentable & CaseIterable>(
        _ value: JSONValue, _ name: String, _: E.Type
    ) throws(MFAError) -> E where E.RawValue == String {
        guard case .string(let text) = value, let result = E(rawValue: text) else {
            let allowed = E.allCases.map(\.rawValue).joined(separator: ", ")
            throw MFAError(.invalidArgument, "\(name) must be one of \(allowed)")
        }
        return result
    }

    private static func integer(_ value: JSONValue, _ name: String,
                                _ range: ClosedRange<Int64>) throws(MFAError) -> Int64 {
        guard case .int(let number) = value, range.contains(number) else {
            throw MFAError(.invalidArgument,
                           "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
