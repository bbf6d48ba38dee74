/// A Yubico OTP assertion: what a YubiKey typed when touched, to sign in,
/// or to claim a key an operator imported unassigned.
public struct YubicoOTPMultiFactorAssertion: MultiFactorAssertion {
    /// What the OTP is for.
    public enum Target: Sendable, Equatable {
        /// A sign-in with the user's YubiKey: the one the OTP names, or the
        /// factor `enrollmentID` if given.
        case signIn(enrollmentID: String?)
        /// The unassigned key the OTP names, claimed by the user of an
        /// enrollment session (`MultiFactorSession.token`).
        case claim(session: String)
    }

    /// What the OTP is for.
    public let target: Target
    /// The OTP as typed (44 modhex characters with the usual public id).
    public let otp: String
    /// Always "yubico_otp".
    public var factorID: String { YubicoOTPMultiFactorID }

    /// Creates an assertion (usually through `YubicoOTPMultiFactorGenerator`).
    public init(target: Target, otp: String) {
        self.target = target
        self.otp = otp
    }
}

/// Makes Yubico OTP assertions, in the seeds' style.
public enum YubicoOTPMultiFactorGenerator {
    /// "yubico_otp".
    public static let factorID = YubicoOTPMultiFactorID

    /// Whether `text` has the shape of a Yubico OTP (32 to 64 modhex
    /// characters, an even number): how a host tells a touch from a typed code.
    public static func isOTP(_ text: String) -> Bool {
        YubicoOTP.hasShape(text)
    }

    /// An assertion that resolves a sign-in with the YubiKey that typed `otp`
    /// (or with the factor `enrollmentID`, which must be that key).
    public static func assertionForSignIn(otp: String, enrollmentID: String? = nil) -> YubicoOTPMultiFactorAssertion {
        YubicoOTPMultiFactorAssertion(target: .signIn(enrollmentID: enrollmentID), otp: otp)
    }

    /// An assertion that enrolls the unassigned YubiKey that typed `otp` for
    /// the user of `session`.
    public static func assertionForEnrollment(with session: MultiFactorSession,
                                              otp: String) -> YubicoOTPMultiFactorAssertion {
        YubicoOTPMultiFactorAssertion(target: .claim(session: session.token), otp: otp)
    }
}
