/// The factor id of TOTP second factors, as in `MultiFactorInfo.factorID`.
public let TOTPMultiFactorID = "totp"

/// The factor id of SMS second factors, as in `MultiFactorInfo.factorID`.
public let PhoneMultiFactorID = "phone"
