import Foundation
import MFA
import Testing

/// Used pending credentials recorded in the user's row (`ConsumedTokens`):
/// single use holds whichever place records a credential, and the row stays
/// bounded.
@Suite("Consumed credentials in the user's row")
struct ConsumedTokensTests {
    private func id(_ n: Int) -> [UInt8] { (0..<16).map { UInt8(truncatingIfNeeded: n &+ $0 * 7) } }

    @Test("entries are added, found, and dropped once past their date; a full row says so; every write moves on")
    func entries() throws {
        var tokens = try ConsumedTokens(.null)
        #expect(!tokens.contains(id(1)) && tokens.count == 0 && tokens.stored == .null)
        var column = try #require(tokens.adding(id(1), until: 100, now: 10))
        #expect(column.count == 8 + 24)
        tokens = try ConsumedTokens(.blob(column))
        #expect(tokens.contains(id(1)) && !tokens.contains(id(2)) && tokens.stored == .blob(column))
        column = try #require(tokens.adding(id(2), until: 200, now: 150))
        tokens = try ConsumedTokens(.blob(column))
        #expect(!tokens.contains(id(1)), "past its date at the next write")
        #expect(tokens.contains(id(2)) && tokens.count == 1)
        for n in 3...ConsumedTokens.capacity + 1 {
            tokens = try ConsumedTokens(.blob(try #require(tokens.adding(id(n), until: 300, now: 150))))
        }
        #expect(tokens.count == ConsumedTokens.capacity)
        #expect(tokens.adding(id(99), until: 300, now: 150) == nil, "full: the caller records it elsewhere")
        #expect(tokens.adding(id(99), until: 400, now: 301) != nil, "room again once the entries are past")
        #expect(tokens.adding([1, 2, 3], until: 300, now: 0) == nil, "not a token id")
        #expect(!tokens.contains([1, 2, 3]))
        // A write that records nothing here (the credential went to mfa_consumed) still moves the column on.
        let touched = tokens.touched(now: 150)
        #expect(.blob(touched) != tokens.stored)
        #expect(try ConsumedTokens(.blob(touched)).count == ConsumedTokens.capacity)
        #expect(try ConsumedTokens(.blob(touched)).touched(now: 150) != touched)
        #expect(try ConsumedTokens(.blob(tokens.touched(now: 301))).count == 0)
    }

    @Test("a malformed column is STORAGE_ERROR")
    func malformed() {
        #expect(errorCode { try ConsumedTokens(.blob([1, 2, 3])) } == .storageError)
        #expect(errorCode { try ConsumedTokens(.blob([UInt8](repeating: 0, count: 8 + 23))) } == .storageError)
        #expect(errorCode { try ConsumedTokens(.text("x")) } == .storageError)
        #expect(errorCode { try ConsumedTokens(.int(1)) } == .storageError)
    }

    @Test("a credential is consumed once, also past the row's capacity; the row keeps at most its capacity",
          arguments: StoreKind.available)
    func signIns(_ kind: StoreKind) throws {
        let location = try kind.freshLocation(file: true)
        let database: SQLDatabase = kind == .sqlite ? try SQLiteDatabase(path: location)
            : try PostgresDatabase(url: location)
        let store = try MFAStore(database: database)
        var record = FactorRecord(enrollmentID: "f1", tenant: "", uid: "u", factorID: "totp", displayName: nil,
                                  enrolledAt: 1, keyID: "k", sealed: [1])
        record.kindValues = TOTPStore.values(.standard, lastStep: -1)
        try store.insertFactor(record, maxFactors: 5) { _, _ in }
        var step: Int64 = 0
        func signIn(_ token: [UInt8], now: Int64 = 10) throws -> Bool {
            step += 1
            let result = try store.resolveAttempt(AttemptRequest(enrollmentID: "f1", tenant: "", uid: "u",
                                                                 tokenID: token, now: now),
                                                  kind: TOTPFactor.self, locate: nil) { [step] (view) throws(MFAError) in
                guard !view.consumed else { throw MFAError(.invalidSession, "used") }
                return .accept(consumedUntil: 1000, limits: MFALimits(), claim: TOTPStore.claim("f1", step: step))
            }
            return result == .accepted
        }
        let count = ConsumedTokens.capacity + 8
        for n in 0..<count { #expect(try signIn(id(n)), "credential \(n)") }
        for n in 0..<count {
            #expect(errorCode { try signIn(id(n)) } == .invalidSession, "credential \(n) again")
            #expect(try store.tokenState(tokenID: id(n), tenant: "", uid: "u").consumed)
        }
        #expect(try !store.tokenState(tokenID: id(count), tenant: "", uid: "u").consumed)
        /// The user's column, and the rows of mfa_consumed.
        func recorded() throws -> (row: ConsumedTokens, table: Int64) {
            try store.database.read { (db) throws(MFAError) in
                (try ConsumedTokens(try db.query("SELECT consumed FROM mfa_users", []).first?.first ?? .null),
                 try db.query("SELECT COUNT(*) FROM mfa_consumed", []).first?.first?.int ?? -1)
            }
        }
        let full = try recorded()
        #expect(full.row.count == ConsumedTokens.capacity && full.table == 8, "the row first, then the table")
        // Past their date, the row's entries make room at the next sign-in.
        #expect(try signIn(id(1000), now: 2000))
        #expect(errorCode { try signIn(id(1000), now: 2000) } == .invalidSession)
        let left = try recorded().row
        #expect(left.count == 1 && left.contains(id(1000)))
    }

    @Test("one pending credential, 8 right answers racing: accepted once, the other codes stay unused",
          arguments: StoreKind.available)
    func racingAnswers(_ kind: StoreKind) throws {
        let fixture = try FlowFixture(kind)
        let user = fixture.user()
        let factor = try RecoveryDriver().enroll(fixture, user)
        var used = Set<Int>()
        for round in 0..<3 {
            let resolver = try fixture.resolver(user)
            let tries = (0..<factor.codes.count).filter { !used.contains($0) }.prefix(8 - round * 3)
            let answers = RaceOutcomes(tries.count)
            let uses = Array(tries)
            RaceStartLine.run(uses.count) { index in
                answers.set(index, errorCode {
                    try resolver.resolveSignIn(with: RecoveryDriver().right(fixture, resolver, factor, use: uses[index]))
                })
            }
            let all = answers.all
            #expect(all.filter { $0 == nil }.count == 1, "round \(round): \(all)")
            #expect(all.filter { $0 == .invalidSession }.count == uses.count - 1, "round \(round): \(all)")
            if let winner = all.firstIndex(where: { $0 == nil }) { used.insert(uses[winner]) }
        }
        // Every code a refused answer carried is still good, once each.
        for use in 0..<factor.codes.count where !used.contains(use) {
            let resolver = try fixture.resolver(user)
            _ = try resolver.resolveSignIn(with: RecoveryDriver().right(fixture, resolver, factor, use: use))
        }
    }
}
