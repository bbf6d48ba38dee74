/// Whether a user may skip the second factor on a device that passed it
/// recently ("remember this device"), and for how long: the
/// `"rememberedDevices"` section of a configuration,
/// `{"state": "ENABLED", "days": 30, "sliding": false, "maxPerUser": 10}`.
///
/// Off by default. A tenant's section overrides the project's field by
/// field: a tenant may forbid what its project allows (`"state": "DISABLED"`).
public struct RememberedDeviceSettings: Sendable, Equatable {
    /// The days a device may be remembered.
    public static let allowedDays: ClosedRange<Int64> = 1...90
    /// The devices one user may have remembered at once.
    public static let allowedPerUser: ClosedRange<Int64> = 1...100

    /// Whether hosts may remember devices, and devices stand in for the second factor.
    public var state: ProviderState = .disabled
    /// How long a device stays remembered, in days (1 to 90).
    public var days: Int64 = 30
    /// Whether each use starts the window again (a device used at least every
    /// `days` days stays remembered); otherwise it ends `days` after the device was remembered.
    public var sliding = false
    /// The most devices one user has remembered: remembering one more forgets
    /// the one used least recently.
    public var maxPerUser: Int64 = 10

    /// The defaults: off, 30 days, not sliding, 10 per user.
    public init() {}

    /// The window in seconds.
    var window: Int64 { days * 86_400 }

    /// The JSON key of the section.
    static let key = "rememberedDevices"

    /// Reads the section of `document`, if it has one, into `settings`.
    static func apply(_ document: JSONValue, to settings: inout RememberedDeviceSettings) throws(MFAError) {
        guard let section = document[key] else { return }
        try ConfigFields.expectObject(section, key, keys: ["state", "days", "sliding", "maxPerUser"])
        if let state = section["state"] {
            settings.state = try ConfigFields.enumValue(state, key + ".state", ProviderState.self)
        }
        if let days = section["days"] {
            settings.days = try ConfigFields.integer(days, key + ".days", allowedDays)
        }
        if let sliding = section["sliding"] {
            settings.sliding = try ConfigFields.boolean(sliding, key + ".sliding")
        }
        if let most = section["maxPerUser"] {
            settings.maxPerUser = try ConfigFields.integer(most, key + ".maxPerUser", allowedPerUser)
        }
    }

    /// The section, every field written out.
    var json: JSONValue {
        .object([("state", .string(state.rawValue)), ("days", .int(days)), ("sliding", .bool(sliding)),
                 ("maxPerUser", .int(maxPerUser))])
    }
}
