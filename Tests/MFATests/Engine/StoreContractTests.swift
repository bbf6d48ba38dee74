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

    private func factor(_ id: String, uid: String = "u", lastStep: Int64 = -1) -> FactorRecord {
        FactorRecord(enrollmentID: id, tenant: "", uid: uid, factorID: "totp", displayName: nil, enrolledAt: 1,
                     keyID: "k", sealed: [1, 2, 3], algorithm: 1, digits: 6, period: 30, lastStep: lastStep)
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
    }

    @Test("a store written by a newer libmfa is refused", arguments: StoreKind.available)
    func newerSchema(_ kind: StoreKind) throws {
        let (store, location) = try store(kind)
        try store.database.transaction { (db) throws(MFAError) in
            try db.execute("UPDATE mfa_meta SET value = 99 WHERE name = 'schema_version'", [])
        }
        store.database.close()
        let database: SQLDatabase = kind == .sqlite ? try SQLiteDatabase(path: location)
            : try PostgresDatabase(url: location)
        #expect(throws: MFAError.self) { try MFAStore(database: database) }
    }

    @Test("a session token and a pending secret are used once; the factor limit holds", arguments: StoreKind.available)
    func enrollmentClaims(_ kind: StoreKind) throws {
        let (store, _) = try store(kind)
        try store.insertPending(PendingRecord(pendingID: "p1", tenant: "", uid: "u", keyID: "k", sealed: [1],
                                              deadline: 100))
        try store.finishEnrollment(factor("f1"), claim: .pendingSecret(id: "p1"), sessionTokenID: [1],
                                   sessionExpires: 100, maxFactors: 5, now: 10)
        #expect(errorCode { try store.finishEnrollment(factor("f2"), claim: .pendingSecret(id: "p1"),
                                                       sessionTokenID: [2], sessionExpires: 100, maxFactors: 5,
                                                       now: 10) } == .invalidSession)
        try store.insertPending(PendingRecord(pendingID: "p2", tenant: "", uid: "u", keyID: "k", sealed: [1],
                                              deadline: 100))
        #expect(errorCode { try store.finishEnrollment(factor("f3"), claim: .pendingSecret(id: "p2"),
                                                       sessionTokenID: [1], sessionExpires: 100, maxFactors: 5,
                                                       now: 10) } == .invalidSession)
        #expect(try store.pending(id: "p2") != nil, "a failed transaction leaves nothing behind")
        #expect(errorCode { try store.insertFactor(factor("f4"), maxFactors: 1) } == .secondFactorLimitExceeded)
        #expect(try store.user(tenant: "", uid: "u").tokensValidAfter == 10)
        #expect(try store.factors(tenant: "", uid: "u").map(\.enrollmentID) == ["f1"])
    }

    @Test("a TOTP step is claimed once and a pending credential consumed once", arguments: StoreKind.available)
    func signInClaims(_ kind: StoreKind) throws {
        let (store, _) = try store(kind)
        try store.insertFactor(factor("f1"), maxFactors: 5)
        func attempt(step: Int64, token: UInt8) throws -> FailureOutcome? {
            try store.resolveAttempt(AttemptRequest(enrollmentID: "f1", smsVerificationID: nil, tenant: "", uid: "u",
                                                    tokenID: [token], tokenExpires: 100, now: 10)) { _ in
                .accept(.totpStep(step))
            }
        }
        #expect(try attempt(step: 5, token: 1) == nil)
        #expect(errorCode { try attempt(step: 5, token: 2) } == .invalidVerificationCode)
        #expect(errorCode { try attempt(step: 4, token: 3) } == .invalidVerificationCode)
        #expect(errorCode { try attempt(step: 6, token: 1) } == .invalidSession)
        #expect(try attempt(step: 6, token: 4) == nil)
        #expect(try store.factor(enrollmentID: "f1")?.lastStep == 6)
        #expect(try store.isConsumed(tokenID: [4]) && !store.isConsumed(tokenID: [3]))
        let wrong = try store.resolveAttempt(AttemptRequest(
            enrollmentID: "f1", smsVerificationID: nil, tenant: "", uid: "u", tokenID: [9], tokenExpires: 100,
            now: 10)) { _ in .wrong(MFALimits()) }
        #expect(wrong == FailureOutcome(lockedUntil: 0, startedBackoff: false))
    }

    @Test("SMS quotas count exactly, a cancelled send costs nothing, a code is used once", arguments: StoreKind.available)
    func smsReservations(_ kind: StoreKind) throws {
        let (store, _) = try store(kind)
        func record(_ id: String) -> SMSVerificationRecord {
            SMSVerificationRecord(verificationID: id, tenant: "", uid: "u", purpose: .enrollment, enrollmentID: nil,
                                  boundToken: [1], keyID: "k", sealed: [1], codeHash: [2], expires: 1000)
        }
        let quota = [SMSQuota(scope: "n", perHour: 2, perDay: 3)]
        try store.reserveSMS(record("v1"), cooldownScopes: ["n"], cooldown: 30, quotas: quota, now: 100)
        #expect(errorCode { try store.reserveSMS(record("v2"), cooldownScopes: ["n"], cooldown: 30, quotas: quota,
                                                 now: 110) } == .tooManyAttemptsTryLater)
        try store.cancelSMS(verificationID: "v1")
        #expect(try store.smsVerification(id: "v1") == nil)
        try store.reserveSMS(record("v3"), cooldownScopes: ["n"], cooldown: 30, quotas: quota, now: 110)
        try store.reserveSMS(record("v4"), cooldownScopes: ["n"], cooldown: 30, quotas: quota, now: 150)
        #expect(errorCode { try store.reserveSMS(record("v5"), cooldownScopes: ["n"], cooldown: 30, quotas: quota,
                                                 now: 200) } == .quotaExceeded)
        try store.reserveSMS(record("v6"), cooldownScopes: ["n"], cooldown: 30, quotas: quota, now: 3800)
        #expect(errorCode { try store.reserveSMS(record("v7"), cooldownScopes: ["n"], cooldown: 30, quotas: quota,
                                                 now: 7500) } == .quotaExceeded, "three a day")
        #expect(try store.judgeSMSCode(verificationID: "v3") { _ in false }.attempts == 1)
        try store.finishEnrollment(factor("f1"), claim: .smsCode(verificationID: "v3", maxAttempts: 5, now: 200),
                                   sessionTokenID: [7], sessionExpires: 1000, maxFactors: 5, now: 200)
        #expect(errorCode { try store.finishEnrollment(factor("f2"), claim: .smsCode(
            verificationID: "v3", maxAttempts: 5, now: 200), sessionTokenID: [8], sessionExpires: 1000,
            maxFactors: 5, now: 200) } == .invalidSession)
        try store.purgeExpired(now: 100_000)
        #expect(try store.smsVerification(id: "v4") == nil)
    }

    @Test("re-sealing replaces only records still under their old key", arguments: StoreKind.available)
    func reseal(_ kind: StoreKind) throws {
        let (store, _) = try store(kind)
        try store.insertFactor(factor("f1"), maxFactors: 5)
        let old = try store.sealedRecords(notUnder: "new", limit: 10)
        #expect(old.map(\.id) == ["f1"])
        try store.reseal([(table: .factors, id: "f1", oldKeyID: "k", keyID: "new", sealed: [9])])
        try store.reseal([(table: .factors, id: "f1", oldKeyID: "k", keyID: "newer", sealed: [8])])
        #expect(try store.factor(enrollmentID: "f1")?.keyID == "new")
        #expect(try store.sealedRecords(notUnder: "new", limit: 10).isEmpty)
        #expect(try store.deleteFactor(tenant: "", uid: "u", enrollmentID: "f1", now: 5) == "totp")
        #expect(try store.deleteFactor(tenant: "", uid: "u", enrollmentID: "f1", now: 5) == nil)
    }

    @Test("a lost PostgreSQL connection is a STORAGE_ERROR, and the next call reconnects")
    func lostConnection() throws {
        guard StoreKind.available.contains(.postgres), let base = StoreKind.postgresURL else { return }
        let (store, _) = try store(.postgres)
        try store.insertFactor(factor("f1"), maxFactors: 5)
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
