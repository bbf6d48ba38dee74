extension MFAContext {
    /// The secret lengths an import accepts: 80 bits (the shortest in common
    /// use, e.g. Google Authenticator's PAM module) to 1024 bits.
    public static let importSecretBytes: ClosedRange<Int> = 10...128

    /// Imports a TOTP factor a user already has in another system, such as
    /// an authenticator app provisioned by an earlier server, without asking
    /// for a code. This is an administrative operation: the host decides who
    /// may call it. The factor's secret is encrypted like any other; the
    /// user's credentials are not revoked.
    /// - Parameters:
    ///   - user: the user (only `uid` and `tenant` are used).
    ///   - totp: the factor's secret and parameters.
    ///   - displayName: an optional name, at most 256 bytes.
    /// - Returns: the new factor.
    /// - Throws: `invalidArgument` (secret length, parameters),
    ///   `secondFactorLimitExceeded`, `storageError`.
    public func importTOTPFactor(for user: MFAUser, totp: TOTP, displayName: String?) throws(MFAError)
        -> MultiFactorInfo {
        let call = CallBudget.begin()
        defer { call.end() }
        try MFAUser.checkIdentifier(user.uid, "uid")
        if let tenant = user.tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        let name = try Self.checkedDisplayName(displayName)
        guard Self.importSecretBytes.contains(totp.secret.count) else {
            throw MFAError(.invalidArgument, "an imported secret must be 10 to 128 bytes")
        }
        guard totp.t0 == 0 else { throw MFAError(.invalidArgument, "an imported factor must use T0 = 0") }
        let now = clock.now()
        let config = try config(tenant: user.tenant)
        let enrollmentID = try newEnrollmentID(after: store.factors(tenant: user.tenantKey, uid: user.uid), at: now)
        let sealed = try RecordSealer.seal(totp.secret, TOTPFactor.binding(tenant: user.tenantKey, uid: user.uid,
                                                                           enrollmentID: enrollmentID),
                                           keyring: keyring)
        var record = FactorRecord(enrollmentID: enrollmentID, tenant: user.tenantKey, uid: user.uid,
                                  factorID: TOTPMultiFactorID, displayName: name, enrolledAt: now, keyID: sealed.keyID,
                                  sealed: sealed.sealed)
        record.kindValues = TOTPStore.values(
            TOTPParameters(algorithm: totp.algorithm, digits: totp.digits, period: totp.period), lastStep: -1)
        let note = auditNote(config) { () in
            [AuditEvent(kind: .enroll, tenant: user.tenantKey, uid: user.uid, factorID: TOTPMultiFactorID,
                        enrollmentID: enrollmentID, time: now, detail: "IMPORTED")]
        }
        try store.insertFactor(record, maxFactors: config.limits.maxFactors, audit: note) { _, _ in }
        report(note, ())
        return try factorInfo(record, masked: false)
    }

    /// Imports a TOTP factor from an `otpauth://totp/...` URI, as exported by
    /// other servers and authenticator apps (see `importTOTPFactor`).
    /// - Throws: `invalidURI`, `invalidArgument` (an HOTP URI, secret length),
    ///   `secondFactorLimitExceeded`, `storageError`.
    public func importTOTPFactor(for user: MFAUser, uri: String, displayName: String?) throws(MFAError)
        -> MultiFactorInfo {
        let call = CallBudget.begin()
        defer { call.end() }
        let key = try KeyURI(parsing: uri)
        guard key.kind == .totp else { throw MFAError(.invalidArgument, "only TOTP factors can be imported") }
        let totp = try TOTP(secret: key.secret, algorithm: key.algorithm, digits: key.digits, period: key.period)
        return try importTOTPFactor(for: user, totp: totp, displayName: displayName)
    }
}
