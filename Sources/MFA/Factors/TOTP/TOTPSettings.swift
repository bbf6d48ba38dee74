/// The factor id of TOTP second factors, as in `MultiFactorInfo.factorID`.
public let TOTPMultiFactorID = "totp"

/// The TOTP section of a configuration: `"totp": {"adjacentIntervals": 5}`.
public struct TOTPSettings: FactorSettings {
    /// How many adjacent steps either side of now a code may come from, 0 to 10.
    public var adjacentIntervals = 5

    /// The defaults (±5 steps).
    public init() {}
}

extension MFAConfig {
    /// Whether TOTP second factors may be enrolled.
    public var totp: ProviderState {
        get { providers[TOTPMultiFactorID] ?? .disabled }
        set { providers[TOTPMultiFactorID] = newValue }
    }

    /// How many adjacent 30 s steps either side of now a TOTP code may come from, 0 to 10.
    public var adjacentIntervals: Int {
        get { self[TOTPFactor.self].adjacentIntervals }
        set { self[TOTPFactor.self].adjacentIntervals = newValue }
    }
}
