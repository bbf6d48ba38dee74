/// The admin API: what an operator does to users' factors without their
/// sign-in (a user who lost their phone, an erasure request, a report).
///
/// These calls check no session and no recent sign-in: the host decides
/// who may make them. Each one that changes something takes an `actor` (1
/// to 256 bytes, such as the operator's name) that its audit events carry.
extension MFAContext {
    /// The page sizes `listUsers` accepts.
    public static let adminPageSizes: ClosedRange<Int> = 1...1000

    /// The users that have second factors, one page at a time, ordered by
    /// tenant (the project first) then uid.
    /// - Parameters:
    ///   - tenant: which tenants to list (every one by default).
    ///   - factorID: only users with a factor of this kind ("totp", "phone", "recovery", "webauthn"), or nil.
    ///   - limit: users per page, 1 to 1000.
    ///   - cursor: `nextCursor` of the previous page, or nil for the first.
    /// - Throws: `invalidArgument` (a bad limit, tenant, factor id or cursor), `storageError`.
    public func listUsers(tenant: TenantFilter = .any, factorID: String? = nil, limit: Int = 100,
                          cursor: String? = nil) throws(MFAError) -> AdminUserPage {
        let call = CallBudget.begin()
        defer { call.end() }
        guard Self.adminPageSizes.contains(limit) else {
            throw MFAError(.invalidArgument, "limit must be 1 to 1000")
        }
        if case .tenant(let name) = tenant { try MFAUser.checkIdentifier(name, "tenant") }
        if let factorID { try Self.checkFactorID(factorID) }
        let after = try cursor.map { (text) throws(MFAError) in try AdminCursor.decode(text) }
        let rows = try store.users(tenant: tenant.key, factorID: factorID, after: after, limit: limit + 1)
        let users = rows.prefix(limit).map { row in
            AdminUser(tenant: row.tenant.isEmpty ? nil : row.tenant, uid: row.uid, factorCounts: row.kinds.map {
                AdminUser.FactorCount(factorID: $0.0, count: Int(clamping: $0.1))
            })
        }
        let next = rows.count > limit ? users.last.map { AdminCursor.encode(tenant: $0.tenant ?? "", uid: $0.uid) } : nil
        return AdminUserPage(users: users, nextCursor: next)
    }

    /// One user's factors, oldest first.
    /// - Parameters:
    ///   - uid: the user.
    ///   - tenant: the tenant, or nil for the project.
    ///   - maskPhoneNumbers: show phone numbers and email addresses as in sign-in hints
    ///     (`+1******1234`, `j***@e******.com`); true by default.
    /// - Returns: the factors; empty if the user has none.
    /// - Throws: `invalidArgument`, `storageError`, `crypto` (a phone number that does not decrypt).
    public func userFactors(uid: String, tenant: String? = nil,
                            maskPhoneNumbers: Bool = true) throws(MFAError) -> [MultiFactorInfo] {
        let call = CallBudget.begin()
        defer { call.end() }
        try Self.checkUser(uid, tenant)
        return try store.factors(tenant: tenant ?? "", uid: uid).map { (record) throws(MFAError) in
            try factorInfo(record, masked: maskPhoneNumbers)
        }
    }

    /// One factor, found by its enrollment id alone.
    /// - Throws: `mfaEnrollmentNotFound`, `invalidArgument`, `storageError`.
    public func adminFactor(enrollmentID: String, maskPhoneNumbers: Bool = true) throws(MFAError) -> AdminFactor {
        let call = CallBudget.begin()
        defer { call.end() }
        try MFAUser.checkIdentifier(enrollmentID, "enrollment id")
        guard let record = try store.factor(enrollmentID: enrollmentID) else {
            throw MFAError(.mfaEnrollmentNotFound, "no second factor has this enrollment id")
        }
        return try adminFactor(record, masked: maskPhoneNumbers)
    }

    /// Removes one factor, whoever has it, and revokes that user's credentials
    /// and tokens (as the user's own unenroll does). Audited (`UNENROLL`,
    /// detail `ADMIN`, with the actor).
    /// - Returns: the removed factor.
    /// - Throws: `mfaEnrollmentNotFound`, `invalidArgument`, `storageError`.
    @discardableResult
    public func unenrollFactor(enrollmentID: String, actor: String) throws(MFAError) -> AdminFactor {
        let call = CallBudget.begin()
        defer { call.end() }
        try Self.checkActor(actor)
        try MFAUser.checkIdentifier(enrollmentID, "enrollment id")
        let now = clock.now()
        let note = auditNote(try auditConfig()) { [self] (removal: FactorRemoval) in
            let removed = removal.factor
            return [AuditEvent(kind: .unenroll, tenant: removed.tenant, uid: removed.uid, factorID: removed.factorID,
                               enrollmentID: enrollmentID, time: now, detail: "ADMIN", actor: actor)]
                + forgottenEvents(removal.devices, tenant: removed.tenant, uid: removed.uid,
                                  detail: "LAST_FACTOR_REMOVED", time: now, actor: actor)
        }
        guard let found = try store.factor(enrollmentID: enrollmentID),
              let (removed, forgotten) = try store.deleteFactor(tenant: found.tenant, uid: found.uid,
                                                                enrollmentID: enrollmentID,
                                                                nowMs: clock.nowMilliseconds(), audit: note) else {
            throw MFAError(.mfaEnrollmentNotFound, "no second factor has this enrollment id")
        }
        let factor = AdminFactor(tenant: removed.tenant.isEmpty ? nil : removed.tenant, uid: removed.uid,
                                 info: (try? factorInfo(removed, masked: true)) ?? removedInfo(removed))
        metrics.unenrollment(factorID: removed.factorID, by: .operator, tenant: removed.tenant)
        report(note, (removed, forgotten))
        return factor
    }

    /// Renames a factor (nil or "" removes its name). Audited (`FACTOR_RENAMED`).
    /// - Returns: the factor as it is now.
    /// - Throws: `mfaEnrollmentNotFound`, `invalidArgument` (a name over 256 bytes), `storageError`.
    @discardableResult
    public func renameFactor(enrollmentID: String, displayName: String?, actor: String) throws(MFAError)
        -> AdminFactor {
        let call = CallBudget.begin()
        defer { call.end() }
        try Self.checkActor(actor)
        try MFAUser.checkIdentifier(enrollmentID, "enrollment id")
        let name = try Self.checkedDisplayName(displayName)
        let now = clock.now()
        let note = auditNote(try auditConfig()) { (record: FactorRecord) in
            [AuditEvent(kind: .factorRenamed, tenant: record.tenant, uid: record.uid, factorID: record.factorID,
                        enrollmentID: enrollmentID, time: now, actor: actor)]
        }
        guard let record = try store.renameFactor(enrollmentID: enrollmentID, displayName: name, audit: note) else {
            throw MFAError(.mfaEnrollmentNotFound, "no second factor has this enrollment id")
        }
        report(note, record)
        return try adminFactor(record, masked: true)
    }

    /// Resets a user who lost their second factors: removes every factor
    /// (and whatever enrollment or SMS code is in flight), clears their
    /// backoff, and revokes their credentials and tokens, in one
    /// transaction; a sign-in in progress and sessions issued before are
    /// refused (`userTokenExpired`). Audited: `UNENROLL` for each factor and
    /// `USER_RESET`, with the actor.
    ///
    /// A user with nothing to reset (no factor and no enrollment or SMS
    /// code in flight: a uid never seen, a user deleted, or reset with
    /// nothing enrolled or started since) is `mfaEnrollmentNotFound`, and
    /// nothing is written or audited; `revokeTokens(uid:tenant:)` revokes
    /// such a user's credentials.
    /// - Returns: the removed factors (none for a user who only had an
    ///   enrollment or SMS code in flight).
    /// - Throws: `mfaEnrollmentNotFound` (nothing to reset), `invalidArgument`, `storageError`.
    @discardableResult
    public func resetUser(uid: String, tenant: String? = nil, actor: String) throws(MFAError) -> AdminRemoval {
        let call = CallBudget.begin()
        defer { call.end() }
        try Self.checkActor(actor)
        try Self.checkUser(uid, tenant)
        let tenantKey = tenant ?? ""
        let now = clock.now()
        let note = auditNote(try auditConfig()) { [self] (removed: UserRemoval) in
            forgottenEvents(removed.devices, tenant: tenantKey, uid: uid, detail: "USER_RESET", time: now, actor: actor)
                + removed.factors.map {
                    AuditEvent(kind: .unenroll, tenant: tenantKey, uid: uid, factorID: $0.factorID,
                               enrollmentID: $0.enrollmentID, time: now, detail: "ADMIN", actor: actor)
                } + [AuditEvent(kind: .userReset, tenant: tenantKey, uid: uid, time: now,
                                detail: "\(removed.factors.count) factors removed", actor: actor)]
        }
        guard let (removed, forgotten) = try store.resetUser(tenant: tenantKey, uid: uid,
                                                             nowMs: clock.nowMilliseconds(), audit: note) else {
            throw MFAError(.mfaEnrollmentNotFound, "the user has no second factor and nothing in flight to reset")
        }
        for factor in removed {
            metrics.unenrollment(factorID: factor.factorID, by: .operator, tenant: tenantKey)
        }
        report(note, (removed, forgotten))
        return AdminRemoval(factors: removed.map(removedInfo))
    }

    /// Deletes everything stored about a user, for an erasure request:
    /// factors, enrollments and SMS codes in flight, SMS send records,
    /// backoff and sign-in times. Only a revocation marker (tenant, uid, a
    /// counter and the time) stays, so that sessions and credentials issued
    /// before stay refused. Audited (`USER_DELETED`, with the actor).
    ///
    /// A user of whom nothing is stored but that marker (a uid never seen,
    /// a user deleted before, a user reset before with nothing stored since)
    /// is `mfaEnrollmentNotFound`, and nothing is written or audited: a
    /// second delete finds nothing.
    /// - Returns: the removed factors.
    /// - Throws: `mfaEnrollmentNotFound` (nothing to delete), `invalidArgument`, `storageError`.
    @discardableResult
    public func deleteUser(uid: String, tenant: String? = nil, actor: String) throws(MFAError) -> AdminRemoval {
        let call = CallBudget.begin()
        defer { call.end() }
        try Self.checkActor(actor)
        try Self.checkUser(uid, tenant)
        let tenantKey = tenant ?? ""
        let now = clock.now()
        let note = auditNote(try auditConfig()) { [self] (removed: UserRemoval) in
            forgottenEvents(removed.devices, tenant: tenantKey, uid: uid, detail: "USER_DELETED", time: now,
                            actor: actor)
                + [AuditEvent(kind: .userDeleted, tenant: tenantKey, uid: uid, time: now,
                              detail: "\(removed.factors.count) factors removed", actor: actor)]
        }
        let result = try store.deleteUser(tenant: tenantKey, uid: uid, nowMs: clock.nowMilliseconds(), audit: note)
        guard result.found else {
            throw MFAError(.mfaEnrollmentNotFound,
                           "nothing is stored about this user (a deleted user keeps only its revocation)")
        }
        for factor in result.factors {
            metrics.unenrollment(factorID: factor.factorID, by: .operator, tenant: tenantKey)
        }
        report(note, (result.factors, result.devices))
        return AdminRemoval(factors: result.factors.map(removedInfo))
    }

    /// Users and factors, counted per tenant and kind.
    /// - Throws: `storageError`.
    public func stats() throws(MFAError) -> AdminStats {
        let call = CallBudget.begin()
        defer { call.end() }
        return AdminStats(
            rows: try store.factorCounts().map {
                AdminStats.Row(tenant: $0.tenant.isEmpty ? nil : $0.tenant, factorID: $0.factorID,
                               factors: Int(clamping: $0.factors), users: Int(clamping: $0.users))
            },
            tenants: try store.userCounts().map {
                AdminStats.TenantUsers(tenant: $0.tenant.isEmpty ? nil : $0.tenant, users: Int(clamping: $0.users))
            })
    }

    // MARK: Helpers

    /// Throws `invalidArgument` unless `actor` is 1 to 256 bytes.
    static func checkActor(_ actor: String) throws(MFAError) {
        guard !actor.isEmpty, actor.utf8.count <= 256 else {
            throw MFAError(.invalidArgument, "actor must be 1 to 256 bytes")
        }
        try IdentifierText.check(actor, "actor")
    }

    /// Throws `invalidArgument` for a bad uid or tenant.
    static func checkUser(_ uid: String, _ tenant: String?) throws(MFAError) {
        try MFAUser.checkIdentifier(uid, "uid")
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
    }

    /// Throws `invalidArgument` for a factor id no kind has.
    static func checkFactorID(_ factorID: String) throws(MFAError) {
        guard FactorRegistry.kind(factorID) != nil else {
            let known = FactorRegistry.all.map { $0.id }.joined(separator: ", ")
            throw MFAError(.invalidArgument, "factor id must be one of \(known)")
        }
    }

    func adminFactor(_ record: FactorRecord, masked: Bool) throws(MFAError) -> AdminFactor {
        AdminFactor(tenant: record.tenant.isEmpty ? nil : record.tenant, uid: record.uid,
                    info: try factorInfo(record, masked: masked))
    }

    /// A removed factor's description, without opening its payload (it is gone).
    func removedInfo(_ record: FactorRecord) -> MultiFactorInfo {
        MultiFactorInfo(uid: record.enrollmentID, factorID: record.factorID, displayName: record.displayName,
                        enrollmentDate: record.enrolledAt)
    }
}
