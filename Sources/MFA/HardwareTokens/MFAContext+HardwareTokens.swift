/// The admin API of hardware tokens: the inventory of tokens imported
/// without a user, assigning one to a user by its serial, and bringing an
/// HOTP token's counter forward. Administrative calls, like the rest of the
/// admin API: no session; the host decides who may make them, and each that
/// changes something takes an `actor` for its audit events.
extension MFAContext {
    /// The page sizes `listTokens` accepts.
    public static let tokenPageSizes: ClosedRange<Int> = 1...1000

    /// Hardware tokens by tenant then serial, one page at a time: the
    /// unassigned ones, and with `includeAssigned` those that are users' factors too.
    /// - Parameters:
    ///   - tenant: which tenants to list (every one by default).
    ///   - includeAssigned: list the tokens users have as factors too.
    ///   - limit: tokens per page, 1 to 1000.
    ///   - cursor: `nextCursor` of the previous page, or nil for the first.
    /// - Throws: `invalidArgument` (limit, tenant, cursor), `storageError`.
    public func listTokens(tenant: TenantFilter = .any, includeAssigned: Bool = false, limit: Int = 100,
                           cursor: String? = nil) throws(MFAError) -> HardwareTokenPage {
        let call = CallBudget.begin()
        defer { call.end() }
        guard Self.tokenPageSizes.contains(limit) else { throw MFAError(.invalidArgument, "limit must be 1 to 1000") }
        if case .tenant(let name) = tenant { try MFAUser.checkIdentifier(name, "tenant") }
        let after = try cursor.map { (text) throws(MFAError) in try AdminCursor.decode(text) }
        let position = after.map { ($0.tenant, $0.uid) }
        var tokens = try store.database.read { (db) throws(MFAError) -> [HardwareToken] in
            var out = try TokenStore.list(db, tenant: tenant.key, after: position, limit: limit + 1).map { row in
                HardwareToken(serial: row.serial, factorID: row.seed.kind.factorID,
                              tenant: row.tenant.isEmpty ? nil : row.tenant, publicID: row.seed.publicID,
                              issuer: row.seed.issuer, uid: nil, enrollmentID: nil, time: row.importedAt)
            }
            if includeAssigned {
                out += try TokenStore.assigned(db, tenant: tenant.key, after: position, limit: limit + 1)
            }
            return out
        }
        tokens.sort { ($0.tenant ?? "", $0.serial, $0.uid ?? "") < ($1.tenant ?? "", $1.serial, $1.uid ?? "") }
        let page = Array(tokens.prefix(limit))
        let next = tokens.count > limit ? page.last.map { AdminCursor.encode(tenant: $0.tenant ?? "", uid: $0.serial) } : nil
        return HardwareTokenPage(tokens: page, nextCursor: next)
    }

    /// Assigns the unassigned token `serial` (or, for a YubiKey, its public
    /// id) to a user: it becomes the user's factor, its seed sealed for the
    /// factor, and leaves the inventory, in one transaction. The user's
    /// factor limit applies; the user's tokens are not revoked (as for an
    /// import). Audited: `TOKEN_ASSIGNED` and `ENROLL` (detail `ASSIGNED`), with the actor.
    /// - Parameters:
    ///   - serial: the token's serial number (or a YubiKey's public id).
    ///   - uid: the user.
    ///   - tenant: the tenant of both, or nil for the project.
    ///   - displayName: an optional name for the factor.
    ///   - actor: who assigns it (1 to 256 bytes).
    /// - Returns: the new factor.
    /// - Throws: `tokenNotFound`, `secondFactorLimitExceeded`, `invalidArgument`, `crypto`, `storageError`.
    @discardableResult
    public func assignToken(serial: String, uid: String, tenant: String? = nil, displayName: String? = nil,
                            actor: String) throws(MFAError) -> MultiFactorInfo {
        let call = CallBudget.begin()
        defer { call.end() }
        try Self.checkActor(actor)
        try Self.checkUser(uid, tenant)
        if let problem = TokenStore.serialProblem(serial) { throw MFAError(.invalidArgument, problem) }
        let name = try Self.checkedDisplayName(displayName)
        let now = clock.now()
        let config = try config(tenant: tenant)
        let key = tenant ?? ""
        let base = try newEnrollmentID()
        let (record, serialNumber) = try store.database.transaction { (db) throws(MFAError) -> (FactorRecord, String) in
            try MFAStore.lockUser(db, key, uid, store.dialect)
            var found = try TokenStore.find(db, tenant: key, serial: serial)
            if found == nil, YubicoOTP.isPublicID(serial) { found = try TokenStore.find(db, tenant: key, publicID: serial) }
            guard let row = found else {
                throw MFAError(.tokenNotFound, "no unassigned token of this tenant has this serial")
            }
            let enrollmentID = EnrollmentOrder.id(base, after: try MFAStore.factors(db, key, uid), at: now)
            let seed = try RecordSealer.open(row.sealed, keyID: row.keyID, row.binding, keyring: keyring)
            let sealed = try RecordSealer.seal(seed, .factor(row.seed.kind.factorID, tenant: key, uid: uid,
                                                             id: enrollmentID), keyring: keyring)
            var record = FactorRecord(enrollmentID: enrollmentID, tenant: key, uid: uid,
                                      factorID: row.seed.kind.factorID, displayName: name, enrolledAt: now,
                                      keyID: sealed.keyID, sealed: sealed.sealed)
            record.kindValues = row.seed.factorValues
            try TokenStore.take(db, tokenID: row.tokenID)
            try MFAStore.insert(db, record, maxFactors: config.limits.maxFactors)
            return (record, row.serial)
        }
        audit(AuditEvent(kind: .tokenAssigned, tenant: key, uid: uid, factorID: record.factorID,
                         enrollmentID: record.enrollmentID, time: now, detail: "serial \(serialNumber)", actor: actor))
        audit(AuditEvent(kind: .enroll, tenant: key, uid: uid, factorID: record.factorID,
                         enrollmentID: record.enrollmentID, time: now, detail: "ASSIGNED", actor: actor))
        return try factorInfo(record, masked: false)
    }

    /// Removes an unassigned token from the inventory (a token lost before
    /// it was handed out). Audited (`TOKEN_REMOVED`, with the actor). A
    /// token that is a user's factor is removed as a factor (`unenrollFactor`).
    /// - Throws: `tokenNotFound`, `invalidArgument`, `storageError`.
    public func removeToken(serial: String, tenant: String? = nil, actor: String) throws(MFAError) {
        let call = CallBudget.begin()
        defer { call.end() }
        try Self.checkActor(actor)
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        if let problem = TokenStore.serialProblem(serial) { throw MFAError(.invalidArgument, problem) }
        let removed = try store.database.transaction { (db) throws(MFAError) -> TokenStore.Row in
            guard let row = try TokenStore.find(db, tenant: tenant ?? "", serial: serial) else {
                throw MFAError(.tokenNotFound, "no unassigned token of this tenant has this serial")
            }
            try TokenStore.take(db, tokenID: row.tokenID)
            return row
        }
        audit(AuditEvent(kind: .tokenRemoved, tenant: removed.tenant, factorID: removed.seed.kind.factorID,
                         time: clock.now(), detail: "serial \(removed.serial)", actor: actor))
    }

    /// Brings an HOTP factor's counter forward with two consecutive codes
    /// from its token (a token pressed many times away from the server), up
    /// to the configuration's `hotp.resyncWindow` counters ahead: the
    /// counter after the second code becomes the next one. The counter only
    /// moves forward: codes below it, or already used, are refused. No
    /// failure is counted (an operator's call). Audited (`TOKEN_RESYNCED`,
    /// detail `ADMIN`, with the actor).
    /// - Throws: `invalidVerificationCode` (no such pair within the window),
    ///   `mfaEnrollmentNotFound`, `invalidArgument` (not an HOTP factor),
    ///   `crypto`, `storageError`.
    public func resyncToken(enrollmentID: String, code: String, nextCode: String, actor: String) throws(MFAError) {
        let call = CallBudget.begin()
        defer { call.end() }
        try Self.checkActor(actor)
        try MFAUser.checkIdentifier(enrollmentID, "enrollment id")
        guard let factor = try store.factor(enrollmentID: enrollmentID) else {
            throw MFAError(.mfaEnrollmentNotFound, "no second factor has this enrollment id")
        }
        guard factor.factorID == HOTPMultiFactorID else {
            throw MFAError(.invalidArgument, "only HOTP factors are resynchronized")
        }
        let now = clock.now()
        let settings = try config(tenant: factor.tenant.isEmpty ? nil : factor.tenant).hotpSettings
        let secret = try openPayload(of: factor)
        try store.database.transaction { (db) throws(MFAError) in
            try MFAStore.lockUser(db, factor.tenant, factor.uid, store.dialect)
            guard let row = try db.query("""
                SELECT \(TOTPStore.attemptColumns.joined(separator: ", ")), u.consumed FROM mfa_factors f \
                JOIN mfa_users u ON u.tenant = f.tenant AND u.uid = f.uid WHERE f.enrollment_id = ?
                """, [.text(enrollmentID)]).first, row.count == TOTPStore.attemptColumns.count + 1 else {
                throw MFAError(.mfaEnrollmentNotFound, "no second factor has this enrollment id")
            }
            let state = Array(row.prefix(TOTPStore.attemptColumns.count))
            let recorded = try ConsumedTokens(row[TOTPStore.attemptColumns.count])
            let (algorithm, digits) = try TOTPStore.oath(state)
            let stored = try TOTPStore.storedStep(state)
            let last = max(stored, recorded.lastStep(UsedStep.key(enrollmentID)) ?? -1)
            guard last < Int64.max - 1,
                  let match = try HOTPSearch.find(code, next: nextCode, secret: secret, algorithm: algorithm,
                                                  digits: digits, from: last + 1, lookAhead: 0,
                                                  resyncWindow: settings.resyncWindow) else {
                throw MFAError(.invalidVerificationCode,
                               "the codes are wrong, were already used, or do not follow each other")
            }
            let step = UsedStep(enrollmentID: enrollmentID, step: match.counter, stored: stored)
            try db.execute("UPDATE mfa_users SET consumed = ? WHERE tenant = ? AND uid = ?",
                           [.blob(recorded.touched(now: now, step: step)), .text(factor.tenant), .text(factor.uid)])
        }
        audit(AuditEvent(kind: .tokenResynced, tenant: factor.tenant, uid: factor.uid, factorID: factor.factorID,
                         enrollmentID: enrollmentID, time: now, detail: "ADMIN", actor: actor))
    }
}

extension MFAContext {
    /// Imports one hardware token: as `user`'s factor, or with no user into
    /// the inventory, unassigned, to be assigned later by its serial
    /// (`assignToken`) or claimed by its user with a code. An administrative
    /// call, like the importers: no session, no code asked; the user's
    /// tokens are not revoked; the factor limit applies. Audited (`ENROLL`,
    /// detail `IMPORTED`, or `TOKEN_IMPORTED`, with the actor).
    /// - Parameters:
    ///   - seed: the token (`HardwareTokenSeed.hotp`, `.totp`, `.yubicoOTP`).
    ///   - user: its user (only `uid` and `tenant` are used), or nil to store it unassigned.
    ///   - tenant: the tenant of an unassigned token (a user's token is in the user's tenant).
    ///   - displayName: an optional name for the factor.
    ///   - actor: who imports it (1 to 256 bytes).
    /// - Returns: the new factor, or nil for a token stored unassigned.
    /// - Throws: `invalidArgument` (the seed: key length, digits, window,
    ///   serial, public id; an unassigned token without a serial),
    ///   `secondFactorExists` (the user has this key already, or a token with
    ///   this serial or public id is in the store), `secondFactorLimitExceeded`,
    ///   `crypto`, `storageError`.
    @discardableResult
    public func importToken(_ seed: HardwareTokenSeed, for user: MFAUser?, tenant: String? = nil,
                            displayName: String? = nil, actor: String) throws(MFAError) -> MultiFactorInfo? {
        let call = CallBudget.begin()
        defer { call.end() }
        try Self.checkActor(actor)
        let tenantName = user?.tenant ?? tenant
        if let user { try Self.checkUser(user.uid, user.tenant) }
        if let tenantName { try MFAUser.checkIdentifier(tenantName, "tenant") }
        let name = try Self.checkedDisplayName(displayName)
        let options = ImportOptions(actor: actor, tenant: tenantName)
        let reports = try storeImports([ImportCandidate(line: 1, uid: user?.uid, seed: seed, displayName: name)],
                                       options: options, config: try config(tenant: tenantName))
        guard let report = reports.first else { throw MFAError(.internal, "an import reported nothing") }
        if let status = report.status { throw MFAError(status, report.reason) }
        guard let user, let id = report.enrollmentID else { return nil }
        guard let record = try store.factor(enrollmentID: id), record.uid == user.uid else {
            throw MFAError(.storageError, "an imported factor was not found after its import")
        }
        return try factorInfo(record, masked: false)
    }
}
