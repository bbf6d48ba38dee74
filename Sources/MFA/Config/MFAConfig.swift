/// The MFA configuration of a project or of one tenant.
///
/// A tenant's stored configuration may name only some fields: the rest come
/// from the project's (see `MFAConfigDocument`). Each factor kind adds its
/// own settings and accessors (`adjacentIntervals`, `testPhoneNumbers`,
/// `recoveryCodeCount`...) in its folder.
///
/// Disabling a provider stops new enrollments and new sign-in codes of that
/// kind from being offered, but factors already enrolled keep working and
/// are still required at sign-in: nobody is locked out or silently
/// downgraded to one factor by a configuration change.
public struct MFAConfig: Sendable, Equatable {
    /// DISABLED, ENABLED or MANDATORY.
    public var state: MFAState = .disabled
    /// Whether each kind of second factor may be enrolled, by factor id
    /// ("totp", "phone", "recovery"); a kind not named is disabled.
    public var providers: [String: ProviderState] = [:]
    /// Lifetimes and attempt budgets.
    public var limits = MFALimits()
    /// Whether devices may be remembered, and for how long.
    public var rememberedDevices = RememberedDeviceSettings()
    /// Whether the store keeps the audit trail (the project's setting; see `AuditTrailSettings`).
    public var auditTrail = AuditTrailSettings()
    /// Each kind's settings, by factor id.
    var settings: [String: any FactorSettings]

    /// The defaults: MFA disabled, every provider disabled.
    public init() {
        settings = Dictionary(uniqueKeysWithValues: FactorRegistry.all.map { ($0.id, $0.defaultSettings) })
    }

    /// Whether the factor kind `factorID` may be enrolled now.
    public func allows(_ factorID: String) -> Bool {
        state != .disabled && providers[factorID] == .enabled
    }

    /// Whether any kind of second factor may be enrolled now.
    public var allowsAnyEnrollment: Bool {
        FactorRegistry.all.contains { allows($0.id) }
    }

    /// The settings of one factor kind.
    subscript<F: SecondFactor>(kind: F.Type) -> F.Settings {
        get { settings[F.id] as? F.Settings ?? F.defaultSettings }
        set { settings[F.id] = newValue }
    }

    /// Whether two configurations are the same, field by field.
    public static func == (lhs: MFAConfig, rhs: MFAConfig) -> Bool {
        lhs.state == rhs.state && lhs.limits == rhs.limits && lhs.rememberedDevices == rhs.rememberedDevices
            && lhs.auditTrail == rhs.auditTrail
            && FactorRegistry.all.allSatisfy { kind in
                (lhs.providers[kind.id] ?? .disabled) == (rhs.providers[kind.id] ?? .disabled)
                    && sameSettings(kind, lhs, rhs)
            }
    }

    private static func sameSettings<F: SecondFactor>(_ kind: F.Type, _ lhs: MFAConfig, _ rhs: MFAConfig) -> Bool {
        lhs[kind] == rhs[kind]
    }
}
