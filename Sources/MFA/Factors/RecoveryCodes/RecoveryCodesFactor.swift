/// Recovery codes: a set of single-use codes, shown once, for the user who
/// lost the phone with their authenticator app.
///
/// A set is one factor (one hint, with the codes left); it does not count
/// toward the factor limit, and generating a new one replaces it. Its
/// payload is a random key that hashes the codes (BLAKE2b, keyed): the
/// codes themselves are never stored, and the key is sealed and rotated
/// like any factor secret.
package enum RecoveryCodesFactor: SecondFactor {
    package typealias Settings = RecoveryCodesSettings

    package static var id: String { RecoveryCodesMultiFactorID }
    package static var kind: Int32 { 3 }
    package static var countsTowardLimit: Bool { false }
    package static var replacesPrevious: Bool { true }
    package static var configKeys: [String] { ["recoveryCodes"] }
    package static var providerAliases: [String] { ["recoveryCodes"] }
    package static var defaultSettings: RecoveryCodesSettings { RecoveryCodesSettings() }
    package static var migrations: [Migration] { RecoveryCodeStore.migrations }
    package static var stateTables: [String] { ["mfa_recovery_codes"] }
    package static var summarySQL: String? { RecoveryCodeStore.remainingSQL }

    package static func apply(_ document: JSONValue, to settings: inout RecoveryCodesSettings) throws(MFAError) {
        guard let section = document["recoveryCodes"] else { return }
        try ConfigFields.expectObject(section, "recoveryCodes", keys: ["count"])
        if let count = section["count"] {
            let range = Int64(RecoveryCodesSettings.counts.lowerBound)...Int64(RecoveryCodesSettings.counts.upperBound)
            settings.count = Int(try ConfigFields.integer(count, "recoveryCodes.count", range))
        }
    }

    package static func json(_ settings: RecoveryCodesSettings) -> [(String, JSONValue)] {
        [("recoveryCodes", .object([("count", .int(Int64(settings.count)))]))]
    }

    package static func hint(of record: FactorRecord, masked: Bool,
                             context: MFAContext) throws(MFAError) -> FactorHint {
        let left = Int(clamping: max(record.summary ?? 0, 0))
        return FactorHint(text: left == 1 ? "1 code left" : "\(left) codes left", remainingCodes: left)
    }

    package static func enrollment(for assertion: any MultiFactorAssertion, user: MFAUser, context: MFAContext,
                                   now: Int64) throws(MFAError) -> FactorEnrollment {
        throw MFAError(.invalidArgument,
                       "recovery codes are generated with RecoveryCodesMultiFactorGenerator.generateCodes, not enrolled")
    }

    package static func attempt(for assertion: any MultiFactorAssertion, claims: TokenClaims, context: MFAContext,
                                now: Int64) throws(MFAError) -> FactorAttempt {
        guard let recovery = assertion as? RecoveryCodeMultiFactorAssertion else {
            throw MFAError(.invalidArgument, "unsupported assertion")
        }
        if let id = recovery.enrollmentID { try MFAUser.checkIdentifier(id, "enrollment id") }
        let typed = recovery.code
        return FactorAttempt(enrollmentID: recovery.enrollmentID, locate: { (db) throws(MFAError) -> String? in
            guard let id = try RecoveryCodeStore.setID(db, tenant: claims.tenant, uid: claims.uid) else {
                throw MFAError(.mfaEnrollmentNotFound, "the user has no recovery codes")
            }
            return id
        }, accepted: { (db, factor) throws(MFAError) in
            [("recovery_codes_remaining", String(try RecoveryCodeStore.remaining(db, factor.enrollmentID)))]
        }, judge: { (input) throws(MFAError) -> AttemptVerdict in
            let message = "the recovery code is wrong or was already used"
            let key = try context.openPayload(of: input.factor)
            guard let code = RecoveryCodeFormat.normalize(typed) else { return .wrong(message: message, penalty: nil) }
            return .accept(RecoveryCodeStore.claim(input.factor.enrollmentID, hash: hash(code, key: key),
                                                   now: input.now), claims: [])
        })
    }

    /// The stored form of a code: its BLAKE2b hash under the set's key.
    static func hash(_ code: String, key: SecureBytes) -> [UInt8] {
        KeyedHash.hash(Array("libmfa recovery code v1".utf8) + [0] + Array(code.utf8), key: key)
    }
}

extension MFAContext {
    /// Generates a new recovery-code set for the user of `sessionToken`,
    /// replacing the previous one, and returns its codes (shown once).
    func generateRecoveryCodes(sessionToken: String, displayName: String?) throws(MFAError) -> RecoveryCodes {
        var tenant = ""
        do {
            let codes = try recoveryCodes(sessionToken: sessionToken, displayName: displayName, tenant: &tenant)
            metrics.enrollment(factorID: RecoveryCodesMultiFactorID, .success, tenant: tenant)
            return codes
        } catch {
            metrics.enrollment(factorID: RecoveryCodesMultiFactorID, MetricOutcome(error.code), tenant: tenant)
            throw error
        }
    }

    /// `generateRecoveryCodes`, uncounted; `tenant` is the session's, once it is open.
    private func recoveryCodes(sessionToken: String, displayName: String?,
                               tenant: inout String) throws(MFAError) -> RecoveryCodes {
        let now = clock.now()
        let session = try openSession(sessionToken, now: now)
        tenant = session.tenant
        let config = try config(tenant: session.tenant.isEmpty ? nil : session.tenant)
        guard config.allows(RecoveryCodesMultiFactorID) else {
            throw MFAError(.operationNotAllowed, "recovery codes are disabled")
        }
        let name = try Self.checkedDisplayName(displayName)
        let key = try SecureBytes(count: 32)
        try key.withMutableBytes { (buffer) throws(MFAError) in try SecureRandom.fill(buffer) }
        let codes = try drawRecoveryCodes(config.recoveryCodeCount)
        let hashes = codes.map { RecoveryCodesFactor.hash(RecoveryCodeFormat.normalize($0) ?? $0, key: key) }
        let user = MFAUser(uid: session.uid, tenant: session.tenant.isEmpty ? nil : session.tenant,
                           authTime: now)
        let enrollment = FactorEnrollment(session: session, payload: key) { (db, factor) throws(MFAError) in
            try RecoveryCodeStore.insert(db, factor.enrollmentID, hashes: hashes)
        }
        var info = try completeEnrollment(RecoveryCodesFactor.self, user: user, enrollment, displayName: name,
                                          now: now)
        info = MultiFactorInfo(uid: info.uid, factorID: info.factorID, displayName: info.displayName,
                               enrollmentDate: info.enrollmentDate, hint: "\(codes.count) codes left",
                               remainingCodes: codes.count)
        return RecoveryCodes(codes: codes, factor: info)
    }

    /// How many draws past `count` a set may take to replace codes that
    /// came out twice (`drawRecoveryCodes`).
    static let spareRecoveryCodeDraws = 16

    /// `count` distinct codes from the random source.
    ///
    /// A working source repeats a 50-bit code within a set of 20 with a
    /// chance of about 2^-41, so a few spare draws are never all needed;
    /// a host's source that repeats itself (a callback that always returns
    /// 0x00 or 0xFF bytes, or cycles through a few values) is `crypto` after
    /// `spareRecoveryCodeDraws`, not an endless loop.
    func drawRecoveryCodes(_ count: Int) throws(MFAError) -> [String] {
        var codes: [String] = []
        codes.reserveCapacity(count)
        for _ in 0..<count + Self.spareRecoveryCodeDraws where codes.count < count {
            let code = RecoveryCodeFormat.code(from: try random.bytes(RecoveryCodeFormat.length))
            if !codes.contains(code) { codes.append(code) }
        }
        guard codes.count == count else {
            throw MFAError(.crypto, "the random source repeated itself: \(count) distinct recovery codes were not "
                + "drawn in \(count + Self.spareRecoveryCodeDraws) draws")
        }
        return codes
    }
}
