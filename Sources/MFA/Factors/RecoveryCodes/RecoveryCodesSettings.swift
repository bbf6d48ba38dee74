/// The factor id of recovery-code sets, as in `MultiFactorInfo.factorID`
/// and the `sign_in_second_factor` claim.
public let RecoveryCodesMultiFactorID = "recovery"

/// The recovery-codes section of a configuration:
/// `"recoveryCodes": {"state": "ENABLED", "count": 10}` (the state may also
/// be given as `"providers": {"recovery": "ENABLED"}`).
public struct RecoveryCodesSettings: FactorSettings {
    /// How many codes a set holds, 8 to 16.
    public var count = 10

    /// The allowed set sizes.
    public static let counts: ClosedRange<Int> = 8...16

    /// The defaults (10 codes).
    public init() {}
}

extension MFAConfig {
    /// Whether users may generate recovery codes.
    public var recoveryCodes: ProviderState {
        get { providers[RecoveryCodesMultiFactorID] ?? .disabled }
        set { providers[RecoveryCodesMultiFactorID] = newValue }
    }

    /// How many codes a recovery set holds, 8 to 16.
    public var recoveryCodeCount: Int {
        get { self[RecoveryCodesFactor.self].count }
        set { self[RecoveryCodesFactor.self].count = newValue }
    }
}
