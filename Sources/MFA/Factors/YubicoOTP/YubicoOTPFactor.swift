/// YubiKeys typing Yubico OTPs, checked locally (never through Yubico's
/// cloud): the OTP's public id finds the factor, its AES-128 key decrypts
/// the block, whose CRC and private id must check out, and whose counters
/// must rise above every OTP the key typed before.
///
/// The counters are claimed as one value (`YubicoOTP.Fields.counter`) in the
/// user's row, as TOTP's steps are, in the transaction that accepts the OTP:
/// an OTP typed once is refused after, on every server sharing the store,
/// and so is an older OTP that arrives late.
package enum YubicoOTPFactor: SecondFactor {
    package typealias Settings = YubicoOTPSettings

    package static var id: String { YubicoOTPMultiFactorID }
    package static var kind: Int32 { 7 }
    package static var configKeys: [String] { ["yubicoOtp"] }
    package static var providerAliases: [String] { ["yubicoOtp"] }
    package static var defaultSettings: YubicoOTPSettings { YubicoOTPSettings() }
    package static var migrations: [Migration] { YubicoOTPStore.migrations }
    package static var factorColumns: [String] { YubicoOTPStore.factorColumns }
    package static var attemptColumns: [String] { YubicoOTPStore.attemptColumns }
    package static var claimsSteps: Bool { true }

    package static func apply(_ document: JSONValue, to settings: inout YubicoOTPSettings) throws(MFAError) {
        guard let section = document["yubicoOtp"] else { return }
        try ConfigFields.expectObject(section, "yubicoOtp", keys: [])
    }

    package static func json(_ settings: YubicoOTPSettings) -> [(String, JSONValue)] {
        [("yubicoOtp", .object([]))]
    }

    package static func hint(of record: FactorRecord, masked: Bool,
                             context: MFAContext) throws(MFAError) -> FactorHint {
        FactorHint(text: "YubiKey")
    }

    package static func enrollment(for assertion: any MultiFactorAssertion, user: MFAUser, context: MFAContext,
                                   now: Int64) throws(MFAError) -> FactorEnrollment {
        guard let yubico = assertion as? YubicoOTPMultiFactorAssertion, case .claim(let session) = yubico.target else {
            throw MFAError(.invalidArgument, "a sign-in assertion cannot enroll a factor")
        }
        return try context.claimToken(TokenClaimRequest(kind: .yubicoOTP, session: session, serial: nil,
                                                        code: yubico.otp, next: nil), user: user, now: now)
    }

    package static func attempt(for assertion: any MultiFactorAssertion, claims: TokenClaims, context: MFAContext,
                                now: Int64) throws(MFAError) -> FactorAttempt {
        guard let yubico = assertion as? YubicoOTPMultiFactorAssertion,
              case .signIn(let named) = yubico.target else {
            throw MFAError(.invalidArgument, "an enrollment assertion cannot resolve a sign-in")
        }
        if let named { try MFAUser.checkIdentifier(named, "enrollment id") }
        let typed = YubicoOTP.read(yubico.otp)
        guard named != nil || typed != nil else {
            throw MFAError(.invalidVerificationCode, "this is not a Yubico OTP (32 to 64 modhex characters)")
        }
        let message = "the OTP is wrong, not from this YubiKey, or was already used"
        return FactorAttempt(enrollmentID: named, locate: { (db) throws(MFAError) -> String? in
            // The OTP names its key. One of a key the user does not have is a
            // wrong OTP for one of theirs, counted by the backoff like any.
            if let typed, let id = try YubicoOTPStore.enrollmentID(db, publicID: typed.publicID,
                                                                  tenant: claims.tenant, uid: claims.uid) {
                return id
            }
            guard let id = try YubicoOTPStore.anyEnrollmentID(db, tenant: claims.tenant, uid: claims.uid) else {
                throw MFAError(.mfaEnrollmentNotFound, "the user has no YubiKey")
            }
            return id
        }, judge: { (input) throws(MFAError) -> AttemptVerdict in
            let stored = try YubicoOTPStore.state(input.state)
            guard let typed, typed.publicID == stored.publicID else { return .wrong(message: message, penalty: nil) }
            let payload = try context.openPayload(of: input.factor)
            guard payload.count == YubicoOTP.keyBytes + YubicoOTP.privateIDBytes else {
                throw MFAError(.storageError, "a stored YubiKey's key is malformed")
            }
            let fields = payload.withBytes { (bytes) -> YubicoOTP.Fields? in
                guard let fields = YubicoOTP.open(typed.block, key: UnsafeRawBufferPointer(rebasing: bytes[0..<16])),
                      YubicoOTP.samePrivateID(fields.privateID, UnsafeRawBufferPointer(rebasing: bytes[16...])) else {
                    return nil
                }
                return fields
            }
            guard let fields else { return .wrong(message: message, penalty: nil) }
            return .accept(FactorClaim(step: UsedStep(enrollmentID: input.factor.enrollmentID, step: fields.counter,
                                                      stored: stored.counter)), claims: [])
        })
    }
}
