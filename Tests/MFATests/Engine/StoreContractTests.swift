import Foundation
import MFA
import Testing

/// The store contract, run against every store kind: each check-and-update
/// is atomic and single-use, schemas migrate forward only, and a lost
/// connection is a STORAGE_ERROR that the next call recovers from.
@Suite("Store contract")
struct StoreContractTests {
    private func store(_ kind: StoreKind) throws -> (MFAStore, String) {
        let location = try kind.freshLocation(file: true)
        let database: SQLDatabase = kind == .sqlite ? try SQLiteDatabase(path: location)
            : try PostgresDatabase(url: location)
        return (try MFAStore(database: database), location)
    }

    private func factor(_ id: String, uid: String = "u", kind: String = "totp") -> FactorRecord {
        var record = FactorRecord(enrollmentID: id, tenant: "", uid: uid, factorID: kind, displayName: nil,
                                  enrolledAt: 1, keyID: "k", sealed: [1, 2, 3])
        if kind == TOTPMultiFactorID { record.kindValues = TOTPStore.values(.standard, lastStep: -1) }
        return record
    }

    /// A commit of `factor` proved by session `token`, whose kind's write is `write`.
    private func commit(_ factor: FactorRecord, token: UInt8, epoch: Int64 = 0, max: Int64? = 5,
                        replaces: Bool = false,
                        write: @escaping @Sendable (SQLConnection, FactorRecord) throws(MFAError) -> Void = { _, _ in })
        -> EnrollmentCommit {
        EnrollmentCommit(factor: factor, sessionTokenID: [token], consumedUntil: 100, epoch: epoch, maxFactors: max,
                         replaces: replaces, write: write, admit: { _ in }, nowMs: 10_000)
    }

    @Test("a fresh store is at the current schema version; reopening changes nothing", arguments: StoreKind.available)
    func migrations(_ kind: StoreKind) throws {
        let (store, location) = try store(kind)
        #expect(try Schema.version(store.database) == Schema.currentVersion)
        try store.setConfigDocument("{}", tenant: "", now: 1)
        store.database.close()
        let again = kind == .sqlite ? try MFAStore(database: SQLiteDatabase(path: location))
            : try MFAStore(database: PostgresDatabase(url: location))
        #expect(try again.configDocuments(tenant: "").project == "{}")
        let tracks = try again.database.read { (db) throws(MFAError) in
            try db.query("SELECT name FROM mfa_meta ORDER BY name", []).compactMap { $0.first?.text }
        }
        #expect(tracks == ["schema_version", "schema_version:audit", "schema_version:devices", "schema_version:email",
                           "schema_version:hotp", "schema_version:keys", "schema_version:phone",
                           "schema_version:recovery", "schema_version:tokens", "schema_version:totp",
                           "schema_version:webauthn", "schema_version:yubico_otp"])
    }

    @Test("on SQLite a user's factors lie together, keyed by their owner; an enrollment id stays unique")
    func factorsByOwner() throws {
        let (store, location) = try store(.sqlite)
        let none: (SQLConnection, FactorRecord) throws(MFAError) -> Void = { (_, _) throws(MFAError) in }
        for (id, uid) in [("f2", "b"), ("f1", "a"), ("f0", "b")] {
            try store.insertFactor(factor(id, uid: uid), maxFactors: 5, write: none)
        }
        let key = try RawStore.query(location,
                                     "SELECT name FROM pragma_table_info('mfa_factors') WHERE pk > 0 ORDER BY pk")
        #expect(key.compactMap { $0.first?.text } == ["tenant", "uid", "enrollment_id"])
        let stored = try RawStore.query(location, "SELECT enrollment_id, sealed FROM mfa_factors")
        #expect(stored.compactMap { $0.first?.text } == ["f1", "f0", "f2"], "in the order of the owner")
        let plan = try RawStore.query(location,
                                      "EXPLAIN QUERY PLAN SELECT * FROM mfa_factors WHERE tenant = '' AND uid = 'b'")
        #expect(plan.compactMap { $0.last?.text } == ["SEARCH mfa_factors USING PRIMARY KEY (tenant=? AND uid=?)"])
        #expect(try store.factors(tenant: "", uid: "b").map(\.enrollmentID).sorted() == ["f0", "f2"])
        #expect(errorCode { try store.insertFactor(factor("f1", uid: "c"), maxFactors: 5, write: none) }
                == .storageError,
                "an id another user holds is refused")
        #expect(try store.factors(tenant: "", uid: "c").isEmpty)
        #expect(try store.factor(enrollmentID: "f1")?.uid == "a")
    }

    @Test("opening looks for factors with old seals in their own index, not by reading every factor",
          arguments: StoreKind.available)
    func legacySealIndex(_ kind: StoreKind) throws {
        let (store, location) = try store(kind)
        let none: (SQLConnection, FactorRecord) throws(MFAError) -> Void = { (_, _) throws(MFAError) in }
        for id in ["f0", "f1", "f2"] { try store.insertFactor(factor(id, uid: id), maxFactors: 5, write: none) }
        try RawStore.execute(location, "UPDATE mfa_factors SET seal_format = 1 WHERE enrollment_id = 'f1'")
        let found = try store.sealedRecords(notUnder: nil, legacy: true, keys: ["k"], limit: 10)
        #expect(found.map(\.id) == ["f1"])
        #expect(try store.sealedRecords(notUnder: nil, legacy: true, keys: ["k"], after: "f1", limit: 10).isEmpty)
        #expect(try store.sealedRecords(notUnder: nil, legacy: true, keys: ["other"], limit: 10).isEmpty)
        if kind == .sqlite {
            for after in ["", "f0"] {
                let (sql, parameters) = MFAStore.sealedQuery(.factors, notUnder: nil, legacy: true, keys: ["k"],
                                                             after: after, limit: 500)
                let plan = try RawStore.query(location, "EXPLAIN QUERY PLAN " + sql, parameters)
                let steps = plan.compactMap { $0.last?.text }
                #expect(!steps.isEmpty && steps.allSatisfy { $0.contains("INDEX mfa_factors_legacy_seal") }, "\(plan)")
            }
        } else {
            let definition = try RawStore.query(location, """
                SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() \
                AND indexname = 'mfa_factors_legacy_seal'
                """).first?.first?.text
            #expect(definition?.hasSuffix("WHERE (seal_format = 1)") == true, "\(definition ?? "no index")")
        }
    }

    @Test("a store written by a newer libmfa is refused", arguments: StoreKind.available)
    func newerSchema(_ kind: StoreKind) throws {
        for track in ["schema_version", "schema_version:totp"] {
            let (store, location) = try store(kind)
            try store.database.transaction { (db) throws(MFAError) in
                try db.execute("UPDATE mfa_meta SET value = 99 WHERE name = ?", [.text(track)])
            }
            store.database.close()
            let database: SQLDatabase = kind == .sqlite ? try SQLiteDatabase(path: location)
                : try PostgresDatabase(url: location)
            #expect(errorCode { try MFAStore(database: database) } == .storageError)
        }
    }

    @Test("a session is used once, a pending secret once; the limit counts only limited kinds; enrolling revokes",
          arguments: StoreKind.available)
    func enrollmentClaims(_ kind: StoreKind) throws {
        let (store, _) = try store(kind)
        try store.database.transaction { (db) throws(MFAError) in
            for id in ["p1", "p2"] {
                try db.execute("""
                    INSERT INTO mfa_pending (pending_id, tenant, uid, key_id, sealed, deadline)                     VALUES (?, '', 'u', 'k', ?, 100)
                    """, [.text(id), .blob([1])])
            }
        }
        let claimP1: @Sendable (SQLConnection, FactorRecord) throws(MFAError) -> Void = { (db, _) throws(MFAError) in
            guard try db.execute("DELETE FROM mfa_pending WHERE pending_id = 'p1'", []) == 1 else {
                throw MFAError(.invalidSession, "used")
            }
        }
        try store.finishEnrollment(commit(factor("f1"), token: 1, write: claimP1))
        #expect(errorCode { try store.finishEnrollment(commit(factor("f2"), token: 2, epoch: 1, write: claimP1)) }
            == .invalidSession, "the pending secret works once")
        #expect(errorCode { try store.finishEnrollment(commit(factor("f3"), token: 1, epoch: 1)) } == .invalidSession,
                "the session works once")
        #expect(errorCode { try store.finishEnrollment(commit(factor("f3"), token: 3, epoch: 0)) } == .userTokenExpired,
                "a session minted before the enrollment's revocation is refused")
        #expect(try store.factors(tenant: "", uid: "u").map(\.enrollmentID) == ["f1"],
                "a failed transaction leaves nothing behind")
        let user = try store.user(tenant: "", uid: "u")
        #expect(user.tokenEpoch == 1 && user.revokedAtMs == 10_000)
        try store.finishEnrollment(commit(factor("r1", kind: "recovery"), token: 4, epoch: 1, max: nil))
        #expect(errorCode { try store.finishEnrollment(commit(factor("f5"), token: 5, epoch: 2, max: 1)) }
            == .secondFactorLimitExceeded, "one TOTP factor counts, the recovery set does not")
        try store.finishEnrollment(commit(factor("r2", kind: "recovery"), token: 6, epoch: 2, max: nil, replaces: true))
        #expect(try store.factors(tenant: "", uid: "u").map(\.enrollmentID) == ["f1", "r2"])
    }

    @Test("a TOTP step is claimed once and a pending credential consumed once", arguments: StoreKind.available)
    func signInClaims(_ kind: StoreKind) throws {
        let (store, _) = try store(kind)
        try store.insertFactor(factor("f1"), maxFactors: 5) { _, _ in }
        func attempt(step: Int64, token: UInt8) throws -> FailureOutcome? {
            let result = try store.resolveAttempt(AttemptRequest(enrollmentID: "f1", tenant: "", uid: "u",
                                                                 tokenID: [token], now: 10),
                                                  kind: TOTPFactor.self, locate: nil) { (view) throws(MFAError) in
                guard !view.consumed else { throw MFAError(.invalidSession, "used") }
                return .accept(consumedUntil: 100, limits: MFALimits(), claim: TOTPStore.claim("f1", step: step))
            }
            guard case .failed(let outcome, _) = result else { return nil }
            return outcome
        }
        #expect(try attempt(step: 5, token: 1) == nil)
        #expect(try attempt(step: 5, token: 2) != nil, "a step is claimed once")
        #expect(try attempt(step: 4, token: 3) != nil, "an earlier step never")
        #expect(errorCode { try attempt(step: 6, token: 1) } == .invalidSession, "a credential is consumed once")
        #expect(try attempt(step: 6, token: 4) == nil)
        #expect(try store.tokenState(tokenID: [4], tenant: "", uid: "u").consumed)
        #expect(try !store.tokenState(tokenID: [3], tenant: "", uid: "u").consumed)
        let wrong = try store.resolveAttempt(AttemptRequest(enrollmentID: "f1", tenant: "", uid: "u", tokenID: [9],
                                                            now: 10), kind: TOTPFactor.self, locate: nil) { _ in
            .wrong(MFALimits(), penalty: nil)
        }
        #expect(wrong == .failed(FailureOutcome(lockedUntil: 0, startedBackoff: false), message: nil))
    }

    @Test("SMS quotas count exactly, a cancelled send costs nothing, a code is used once", arguments: StoreKind.available)
    func smsReservations(_ kind: StoreKind) throws {
        let (store, _) = try store(kind)
        func record(_ id: String) -> SMSVerificationRecord {
            SMSVerificationRecord(verificationID: id, tenant: "", uid: "u", purpose: .enrollment, enrollmentID: nil,
                                  boundToken: [1], keyID: "k", sealed: [1], codeHash: [2], expires: 1000)
        }
        func reserve(_ id: String, _ now: Int64) throws {
            try SMSStore.channel.reserve(record(id), cooldownScopes: ["n"], cooldown: 30,
                                 quotas: [SMSQuota(scope: "n", perHour: 2, perDay: 3)], now: now, store)
        }
        func read(_ id: String) throws -> SMSVerificationRecord? {
            try store.database.read { (db) throws(MFAError) in try SMSStore.channel.verification(db, id) }
        }
        try reserve("v1", 100)
        #expect(errorCode { try reserve("v2", 110) } == .tooManyAttemptsTryLater)
        try SMSStore.channel.cancel(verificationID: "v1", store)
        #expect(try read("v1") == nil)
        try reserve("v3", 110)
        try reserve("v4", 150)
        #expect(errorCode { try reserve("v5", 200) } == .quotaExceeded)
        try reserve("v6", 3800)
        #expect(errorCode { try reserve("v7", 7500) } == .quotaExceeded, "three a day")
        #expect(try SMSStore.channel.judge(verificationID: "v3", maxAttempts: 5, store) { _ in false }.attempts == 1)
        let claim: @Sendable (SQLConnection, FactorRecord) throws(MFAError) -> Void = { (db, _) throws(MFAError) in
            try SMSStore.channel.claim(db, "v3", maxAttempts: 5, now: 200)
        }
        try store.finishEnrollment(commit(factor("f1", kind: "phone"), token: 7, write: claim))
        #expect(errorCode { try store.finishEnrollment(commit(factor("f2", kind: "phone"), token: 8, epoch: 1,
                                                              write: claim)) } == .invalidSession)
        try store.purgeExpired(now: 100_000)
        #expect(try read("v4") == nil)
    }

    @Test("a new factor's own column values must fit its kind's columns: STORAGE_ERROR, nothing stored",
          arguments: StoreKind.available)
    func kindValuesChecked(_ kind: StoreKind) throws {
        let (store, _) = try store(kind)
        var short = factor("f1")
        short.kindValues = [.int(1)]
        #expect(errorCode { try store.insertFactor(short, maxFactors: 5) { _, _ in } } == .storageError)
        var phone = factor("f2", kind: "phone")
        phone.kindValues = TOTPStore.values(.standard, lastStep: -1)
        #expect(errorCode { try store.insertFactor(phone, maxFactors: 5) { _, _ in } } == .storageError)
        #expect(try store.factors(tenant: "", uid: "u").isEmpty)
        try store.insertFactor(factor("f3"), maxFactors: 5) { _, _ in }
        #expect(try store.factors(tenant: "", uid: "u").map(\.enrollmentID) == ["f3"])
    }

    @Test("re-sealing replaces only records still under their old key; deleting takes the kind's rows",
          arguments: StoreKind.available)
    func reseal(_ kind: StoreKind) throws {
        let (store, _) = try store(kind)
        try store.insertFactor(factor("f1"), maxFactors: 5) { _, _ in }
        let old = try store.sealedRecords(notUnder: "new", limit: 10)
        #expect(old.map(\.id) == ["f1"])
        #expect(old.first?.binding == .factor("totp", tenant: "", uid: "u", id: "f1"))
        try store.reseal([(row: old[0], keyID: "new", sealed: [9])])
        try store.reseal([(row: old[0], keyID: "newer", sealed: [8])])
        #expect(try store.factor(enrollmentID: "f1")?.keyID == "new")
        #expect(try store.sealedRecords(notUnder: "new", limit: 10).isEmpty)
        #expect(try store.deleteFactor(tenant: "", uid: "u", enrollmentID: "f1", nowMs: 5)?.factor.factorID == "totp")
        #expect(try store.deleteFactor(tenant: "", uid: "u", enrollmentID: "f1", nowMs: 5) == nil)
        let left = try store.database.read { (db) throws(MFAError) in
            try db.query("SELECT COUNT(*) FROM mfa_factors", []).first?.first?.int
        }
        #expect(left == 0)
    }

    @Test("a lost PostgreSQL connection is a STORAGE_ERROR, and the next call reconnects")
    func lostConnection() throws {
        // Behind a transaction pooler the pooler replaces a lost server connection by itself.
        guard StoreKind.available.contains(.postgres), StoreKind.adminURL == nil,
              let base = StoreKind.postgresURL else { return }
        let (store, _) = try store(.postgres)
        try store.insertFactor(factor("f1"), maxFactors: 5) { _, _ in }
        let marker = "libmfa_lost_\(UUID().uuidString.prefix(8))"
        try store.database.transaction { (db) throws(MFAError) in
            try db.execute("SET application_name = '\(marker)'", [])
        }
        try PostgresAdmin.execute("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(marker)'
            """, url: base)
        #expect(errorCode { try store.factors(tenant: "", uid: "u") } == .storageError)
        #expect(try store.factors(tenant: "", uid: "u").map(\.enrollmentID) == ["f1"])
    }
}
