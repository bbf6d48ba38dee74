/// TOTP authenticator apps (RFC 6238) as a second factor, and TOTP
/// hardware tokens.
///
/// The payload is the shared secret; the factor's row holds the code
/// parameters and the step it was stored with (`TOTPStore.factorColumns`). A code works once:
/// its step must be later than that and than the last step accepted, which
/// the attempt records in the user's row (`UsedStep`, `ConsumedTokens`).
///
/// A hardware token (one whose row has a window of its own) drifts: its
/// clock runs a little fast or slow, and it cannot be set. Its codes are
/// looked for within its own window around the step its drift points to,
/// and each accepted code records the drift it showed beside its step, in
/// the same write: the window follows the token, as privacyIDEA's time shift does.
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
    package static var claimsSteps: Bool { true }

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
        guard let totp = assertion as? TOTPMultiFactorAssertion else {
            throw MFAError(.invalidArgument, "unsupported assertion")
        }
        switch totp.target {
        case .enrollment(let sessionInfo):
            return try context.totpEnrollment(user: user, sessionInfo: sessionInfo,
                                              oneTimePassword: totp.oneTimePassword, now: now)
        case .claim(let session, let serial):
            return try context.claimToken(TokenClaimRequest(kind: .totp, session: session, serial: serial,
                                                            code: totp.oneTimePassword, next: nil),
                                          user: user, now: now)
        case .signIn:
            throw MFAError(.invalidArgument, "a sign-in assertion cannot enroll a factor")
        }
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
            let own = try TOTPStore.window(input.state)
            let secret = try context.openPayload(of: input.factor)
            // A hardware token's window is centred where its drift points.
            let drift = own == nil ? 0 : input.consumed.drift(UsedStep.driftKey(input.factor.enrollmentID)) ?? 0
            // The nearest matching step is claimed, never a later one the same
            // value happens to match: a value accepted once is refused after.
            guard let step = try match(code, secret: secret, parameters, at: input.now,
                                       window: own ?? input.config.adjacentIntervals, drift: drift) else {
                return .wrong(message: "the code is wrong or was already used", penalty: nil)
            }
            let shown = own == nil ? nil : step - (try TOTP.step(at: input.now, t0: 0, period: parameters.period))
            return .accept(TOTPStore.claim(input.factor.enrollmentID, step: step,
                                           stored: try TOTPStore.storedStep(input.state), drift: shown), claims: [])
        }
    }

    /// The step `code` matches for `secret`, nearest to now (moved by
    /// `drift` steps) first.
    static func match(_ code: String, secret: SecureBytes, _ parameters: TOTPParameters, at time: Int64,
                      window: Int, drift: Int64 = 0) throws(MFAError) -> Int64? {
        try OTPLimits.check(keyBytes: secret.count)
        let now = try TOTP.step(at: time, t0: 0, period: parameters.period)
        let step = now.addingReportingOverflow(drift).overflow ? now : now + drift
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
