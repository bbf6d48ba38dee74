/// TOTP authenticator apps (RFC 6238) as a second factor.
///
/// The payload is the shared secret; the factor's row holds the code
/// parameters and the step it was stored with (`TOTPStore.factorColumns`). A code works once:
/// its step must be later than that and than the last step accepted, which
/// the attempt records in the user's row (`UsedStep`, `ConsumedTokens`).
package enum TOTPFactor: SecondFactor {
    package typealias Settings = TOTPSettings

    package static var id: String { TOTPMultiFactorID }
    package static var kind: Int32 { 1 }
    package static var configKeys: [String] { ["totp"] }
    package static var defaultSettings: TOTPSettings { TOTPSettings() }
    package static var migrations: [Migration] { TOTPStore.migrations }
    package static var factorColumns: [String] { TOTPStore.factorColumns }
    package static var sealedTables: [SealedTable] { [TOTPStore.pendingTable] }
    package static var attemptColumns: [String] { TOTPStore.attemptColumns }

    package static func apply(_ document: JSONValue, to settings: inout TOTPSettings) throws(MFAError) {
        guard let section = document["totp"] else { return }
        try ConfigFields.expectObject(section, "totp", keys: ["adjacentIntervals"])
        if let intervals = section["adjacentIntervals"] {
            settings.adjacentIntervals = Int(try ConfigFields.integer(intervals, "totp.adjacentIntervals", 0...10))
        }
    }

    package static func json(_ settings: TOTPSettings) -> [(String, JSONValue)] {
        [("totp", .object([("adjacentIntervals", .int(Int64(settings.adjacentIntervals)))]))]
    }

    package static func hint(of record: FactorRecord, masked: Bool,
                             context: MFAContext) throws(MFAError) -> FactorHint {
        FactorHint(text: "authenticator app")
    }

    package static func enrollment(for assertion: any MultiFactorAssertion, user: MFAUser, context: MFAContext,
                                   now: Int64) throws(MFAError) -> FactorEnrollment {
        guard let totp = assertion as? TOTPMultiFactorAssertion,
              case .enrollment(let sessionInfo) = totp.target else {
            throw MFAError(.invalidArgument, "a sign-in assertion cannot enroll a factor")
        }
        return try context.totpEnrollment(user: user, sessionInfo: sessionInfo, oneTimePassword: totp.oneTimePassword,
                                          now: now)
    }

    package static func attempt(for assertion: any MultiFactorAssertion, claims: TokenClaims, context: MFAContext,
                                now: Int64) throws(MFAError) -> FactorAttempt {
        guard let totp = assertion as? TOTPMultiFactorAssertion, case .signIn(let enrollmentID) = totp.target else {
            throw MFAError(.invalidArgument, "an enrollment assertion cannot resolve a sign-in")
        }
        try MFAUser.checkIdentifier(enrollmentID, "enrollment id")
        let code = totp.oneTimePassword
        return FactorAttempt(enrollmentID: enrollmentID) { (input) throws(MFAError) -> AttemptVerdict in
            let parameters = try TOTPStore.parameters(input.state)
            let secret = try context.openPayload(of: input.factor)
            // The nearest matching step is claimed, never a later one the same
            // value happens to match: a value accepted once is refused after.
            guard let step = try match(code, secret: secret, parameters, at: input.now,
                                       window: input.config.adjacentIntervals) else {
                return .wrong(message: "the code is wrong or was already used", penalty: nil)
            }
            return .accept(TOTPStore.claim(input.factor.enrollmentID, step: step,
                                           stored: try TOTPStore.storedStep(input.state)), claims: [])
        }
    }

    /// The step `code` matches for `secret`, nearest to now first.
    static func match(_ code: String, secret: SecureBytes, _ parameters: TOTPParameters, at time: Int64,
                      window: Int) throws(MFAError) -> Int64? {
        try OTPLimits.check(keyBytes: secret.count)
        let step = try TOTP.step(at: time, t0: 0, period: parameters.period)
        var code = code
        let result: Result<Int64?, MFAError> = code.withUTF8 { typed in
            secret.withBytes { key in
                Result { () throws(MFAError) in
                    try OTPCore.verifyTOTP(key: key, window: window, after: nil, digits: parameters.digits,
                                           algorithm: parameters.algorithm) { (UnsafeRawBufferPointer(typed), step) }
                }
            }
        }
        return try result.get()
    }
}
