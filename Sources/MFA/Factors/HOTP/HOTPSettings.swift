/// The factor id of HOTP tokens (RFC 4226), as in `MultiFactorInfo.factorID`.
public let HOTPMultiFactorID = "hotp"

/// The HOTP section of a configuration: `"hotp": {"lookAhead": 10,
/// "resyncWindow": 1000}` (the state may also be given there, or as
/// `"providers": {"hotp": "ENABLED"}`).
///
/// `lookAhead` is how many presses a code may be ahead of the token's next
/// counter and still sign in. Its default, 10, lets a code be one of 11
/// counters: as many as TOTP's default window (±5 steps) tries, so a guess
/// is no likelier to pass. privacyIDEA checks 10 counters by default
/// (count_window), pam_oath 5 (window=). `resyncWindow` is how far ahead two
/// consecutive codes may bring a token that was pressed away from the
/// server (privacyIDEA's sync window, also 1000 by default).
public struct HOTPSettings: FactorSettings {
    /// How many counters past the next one a code may come from, 0 to 10.
    public var lookAhead = 10
    /// How many counters past the next one a resynchronization looks for two consecutive codes, 2 to 10000.
    public var resyncWindow = 1000

    /// The allowed resynchronization windows.
    public static let resyncWindows: ClosedRange<Int> = 2...10000

    /// The defaults (10 and 1000).
    public init() {}
}

extension MFAConfig {
    /// Whether HOTP tokens may be enrolled.
    public var hotp: ProviderState {
        get { providers[HOTPMultiFactorID] ?? .disabled }
        set { providers[HOTPMultiFactorID] = newValue }
    }

    /// The HOTP settings (look-ahead and resynchronization window).
    public var hotpSettings: HOTPSettings {
        get { self[HOTPFactor.self] }
        set { self[HOTPFactor.self] = newValue }
    }
}
