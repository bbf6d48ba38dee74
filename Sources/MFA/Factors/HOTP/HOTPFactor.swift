/// Event-based OATH tokens (RFC 4226 HOTP) as a second factor: a button
/// and a 6- to 8-digit code.
///
/// The payload is the shared secret. The factor's row holds its algorithm,
/// digits, the counter it was stored with and its own look-ahead, if any, in
/// the OATH columns TOTP added (`TOTPStore.factorColumns`: HOTP's period is
/// NULL), so that a sign-in reads an HOTP factor as it reads a TOTP one.
///
/// The counter moves forward only, in the transaction that accepts a code:
/// a code is claimed as a step (`UsedStep`) in the user's row, as TOTP's,
/// and must lie after the last one accepted. A code below the counter, or
/// one accepted before, is a wrong code. Two consecutive codes resynchronize
/// a token pressed beyond the look-ahead window (`HOTPSearch`).
package enum HOTPFactor: SecondFactor {
    package typealias Settings = HOTPSettings

    package static var id: String { HOTPMultiFactorID }
    package static var kind: Int32 { 6 }
    package static var configKeys: [String] { ["hotp"] }
    package static var defaultSettings: HOTPSettings { HOTPSettings() }
    package static var migrations: [Migration] { migrationList }
    package static var columnKind: String { TOTPFactor.id }
    package static var attemptColumns: [String] { TOTPStore.attemptColumns }
    package static var claimsSteps: Bool { true }

    /// The HOTP track of the schema.
    private static let migrationList: [Migration] = [
        // Version 1: nothing of its own; HOTP factors live in the OATH columns
        // of mfa_factors (TOTP's track, version 4) and unassigned tokens in
        // the tokens track.
        { _, _ in [] },
    ]

    package static func apply(_ document: JSONValue, to settings: inout HOTPSettings) throws(MFAError) {
        guard let section = document["hotp"] else { return }
        try ConfigFields.expectObject(section, "hotp", keys: ["lookAhead", "resyncWindow"])
        if let value = section["lookAhead"] {
            settings.lookAhead = Int(try ConfigFields.integer(value, "hotp.lookAhead",
                                                              Int64(OTPLimits.window.lowerBound)...Int64(OTPLimits.window.upperBound)))
        }
        if let value = section["resyncWindow"] {
            let range = HOTPSettings.resyncWindows
            settings.resyncWindow = Int(try ConfigFields.integer(value, "hotp.resyncWindow",
                                                                 Int64(range.lowerBound)...Int64(range.upperBound)))
        }
    }

    package static func json(_ settings: HOTPSettings) -> [(String, JSONValue)] {
        [("hotp", .object([("lookAhead", .int(Int64(settings.lookAhead))),
                           ("resyncWindow", .int(Int64(settings.resyncWindow)))]))]
    }

    package static func hint(of record: FactorRecord, masked: Bool,
                             context: MFAContext) throws(MFAError) -> FactorHint {
        FactorHint(text: "hardware token")
    }

    package static func enrollment(for assertion: any MultiFactorAssertion, user: MFAUser, context: MFAContext,
                                   now: Int64) throws(MFAError) -> FactorEnrollment {
        guard let hotp = assertion as? HOTPMultiFactorAssertion, case .claim(let session, let serial) = hotp.target else {
            throw MFAError(.invalidArgument, "a sign-in assertion cannot enroll a factor")
        }
        return try context.claimToken(TokenClaimRequest(kind: .hotp, session: session, serial: serial,
                                                        code: hotp.oneTimePassword, next: hotp.nextOneTimePassword),
                                      user: user, now: now)
    }

    package static func attempt(for assertion: any MultiFactorAssertion, claims: TokenClaims, context: MFAContext,
                                now: Int64) throws(MFAError) -> FactorAttempt {
        guard let hotp = assertion as? HOTPMultiFactorAssertion, case .signIn(let enrollmentID) = hotp.target else {
            throw MFAError(.invalidArgument, "an enrollment assertion cannot resolve a sign-in")
        }
        try MFAUser.checkIdentifier(enrollmentID, "enrollment id")
        let code = hotp.oneTimePassword
        let next = hotp.nextOneTimePassword
        // Whether the judge's last verdict (the one the store acted on) took a resynchronization.
        let resync = ResyncFlag()
        return FactorAttempt(enrollmentID: enrollmentID, accepted: { (_, factor) throws(MFAError) in
            guard resync.value else { return [] }
            context.audit(AuditEvent(kind: .tokenResynced, tenant: factor.tenant, uid: factor.uid, factorID: id,
                                     enrollmentID: factor.enrollmentID, time: now, detail: "SIGN_IN"))
            return [("hotp_resynchronized", "true")]
        }, judge: { (input) throws(MFAError) -> AttemptVerdict in
            resync.value = false
            let (algorithm, digits) = try TOTPStore.oath(input.state)
            let stored = try TOTPStore.storedStep(input.state)
            let settings = input.config.hotpSettings
            let lookAhead = try TOTPStore.window(input.state) ?? settings.lookAhead
            let last = max(stored, input.consumed.lastStep(UsedStep.key(input.factor.enrollmentID)) ?? -1)
            guard last < Int64.max - 1 else { return .wrong(message: "the token's counter is exhausted", penalty: nil) }
            let secret = try context.openPayload(of: input.factor)
            guard let match = try HOTPSearch.find(code, next: next, secret: secret, algorithm: algorithm,
                                                  digits: digits, from: last + 1, lookAhead: lookAhead,
                                                  resyncWindow: settings.resyncWindow) else {
                return .wrong(message: next == nil ? "the code is wrong or was already used"
                              : "the codes are wrong, were already used, or do not follow each other", penalty: nil)
            }
            resync.value = match.resynced
            return .accept(TOTPStore.claim(input.factor.enrollmentID, step: match.counter, stored: stored), claims: [])
        })
    }
}

/// A flag the judge of one attempt sets for what follows its commit.
private final class ResyncFlag: @unchecked Sendable {
    var value = false
}
