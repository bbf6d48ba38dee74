/// The factor id of YubiKeys typing Yubico OTPs, as in `MultiFactorInfo.factorID`.
public let YubicoOTPMultiFactorID = "yubico_otp"

/// The Yubico OTP section of a configuration: `"yubicoOtp": {"state":
/// "ENABLED"}` (or `"providers": {"yubico_otp": "ENABLED"}`). It has no
/// settings of its own: an OTP is accepted when its counters rise, whenever
/// it was typed.
public struct YubicoOTPSettings: FactorSettings {
    /// The defaults.
    public init() {}
}

extension MFAConfig {
    /// Whether YubiKeys (Yubico OTP) may be enrolled.
    public var yubicoOTP: ProviderState {
        get { providers[YubicoOTPMultiFactorID] ?? .disabled }
        set { providers[YubicoOTPMultiFactorID] = newValue }
    }
}
