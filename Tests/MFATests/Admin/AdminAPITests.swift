import MFA
import Testing

/// The admin API: what an operator does without the user's sign-in.
@Suite("Admin API")
struct AdminAPITests {
    @Test("users are listed a page at a time with a cursor, by tenant and kind", arguments: StoreKind.available)
    func listUsers(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        for uid in ["u1", "u2", "u3", "u4", "u5"] { try fixture.importTOTP(uid) }
        try fixture.importTOTP("u1", index: 1)
        try fixture.importTOTP("t1", tenant: "acme")
        try fixture.importTOTP("t2", tenant: "acme")
        _ = try RecoveryCodesMultiFactorGenerator.generateCodes(
            with: fixture.context.multiFactor(for: fixture.user("u3")).session())
        var seen: [String] = []
        var cursor: String?
        repeat {
            let page = try fixture.context.listUsers(limit: 2, cursor: cursor)
            #expect(page.users.count <= 2)
            seen += page.users.map { ($0.tenant ?? "-") + "/" + $0.uid }
            cursor = page.nextCursor
        } while cursor != nil
        #expect(seen == ["-/u1", "-/u2", "-/u3", "-/u4", "-/u5", "acme/t1", "acme/t2"])
        let all = try fixture.context.listUsers(limit: 1000)
        #expect(all.nextCursor == nil && all.users.count == 7)
        #expect(all.users[0].factorTotal == 2 && all.users[0].factorCounts == [.init(factorID: "totp", count: 2)])
        #expect(all.users[2].factorCounts.map(\.factorID) == ["recovery", "totp"])
        #expect(try fixture.context.listUsers(tenant: .tenant("acme")).users.map(\.uid) == ["t1", "t2"])
        #expect(try fixture.context.listUsers(tenant: .project).users.count == 5)
        #expect(try fixture.context.listUsers(tenant: TenantFilter("")).users.count == 5)
        #expect(try fixture.context.listUsers(factorID: "recovery").users.map(\.uid) == ["u3"])
        #expect(try fixture.context.listUsers(tenant: .tenant("nobody")).users.isEmpty)
        for limit in [0, -1, 1001] {
            #expect(errorCode { try fixture.context.listUsers(limit: limit) } == .invalidArgument)
        }
        for cursor in ["", "!!", "AAAA", String(repeating: "A", count: 500)] {
            #expect(errorCode { try fixture.context.listUsers(cursor: cursor) } == .invalidArgument)
        }
        #expect(errorCode { try fixture.context.listUsers(factorID: "sms") } == .invalidArgument)
        #expect(errorCode { try fixture.context.listUsers(tenant: .tenant("")) } == .invalidArgument)
    }

    @Test("a user's factors; a factor by id; rename, audited with the actor", arguments: StoreKind.available)
    func factorsAndRename(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let (info, _) = try fixture.importTOTP("alice")
        #expect(try fixture.context.userFactors(uid: "alice").map(\.uid) == [info.uid])
        #expect(try fixture.context.userFactors(uid: "nobody").isEmpty)
        let found = try fixture.context.adminFactor(enrollmentID: info.uid)
        #expect(found.uid == "alice" && found.tenant == nil && found.info.factorID == "totp")
        let renamed = try fixture.context.renameFactor(enrollmentID: info.uid, displayName: "work phone", actor: "ops:bob")
        #expect(renamed.info.displayName == "work phone")
        #expect(try fixture.context.userFactors(uid: "alice")[0].displayName == "work phone")
        let event = try #require(fixture.log.all.last)
        #expect(event.kind == .factorRenamed && event.actor == "ops:bob" && event.enrollmentID == info.uid)
        #expect(try fixture.context.renameFactor(enrollmentID: info.uid, displayName: nil, actor: "ops").info.displayName == nil)
        #expect(errorCode { try fixture.context.renameFactor(enrollmentID: "missing", displayName: "x", actor: "ops") }
            == .mfaEnrollmentNotFound)
        #expect(errorCode { try fixture.context.renameFactor(enrollmentID: info.uid,
                                                             displayName: String(repeating: "n", count: 257),
                                                             actor: "ops") } == .invalidArgument)
        #expect(errorCode { try fixture.context.adminFactor(enrollmentID: "missing") } == .mfaEnrollmentNotFound)
        for actor in ["", String(repeating: "a", count: 257)] {
            #expect(errorCode { try fixture.context.renameFactor(enrollmentID: info.uid, displayName: "x", actor: actor) }
                == .invalidArgument)
        }
    }

    @Test("unenrolling one factor by id revokes the user's tokens", arguments: StoreKind.available)
    func unenroll(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let (first, _) = try fixture.importTOTP("alice")
        let (second, totp) = try fixture.importTOTP("alice", index: 1)
        let issued = fixture.clock.now()
        fixture.clock.advance(1)
        let removed = try fixture.context.unenrollFactor(enrollmentID: first.uid, actor: "helpdesk")
        #expect(removed.uid == "alice" && removed.info.uid == first.uid)
        #expect(try fixture.context.userFactors(uid: "alice").map(\.uid) == [second.uid])
        #expect(errorCode { try fixture.context.checkToken(tenant: nil, uid: "alice", issuedAt: issued) } == .userTokenExpired)
        let event = try #require(fixture.log.all.last)
        #expect(event.kind == .unenroll && event.actor == "helpdesk" && event.detail == "ADMIN")
        #expect(errorCode { try fixture.context.unenrollFactor(enrollmentID: first.uid, actor: "helpdesk") }
            == .mfaEnrollmentNotFound)
        fixture.clock.advance(1)
        #expect(try fixture.signIn("alice", enrollmentID: second.uid, totp: totp).enrollmentID == second.uid)
    }

    @Test("reset removes every factor and refuses a sign-in and a session started before",
          arguments: StoreKind.available)
    func reset(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        let (info, totp) = try fixture.importTOTP("alice")
        _ = try RecoveryCodesMultiFactorGenerator.generateCodes(
            with: fixture.context.multiFactor(for: fixture.user()).session())
        let pending = try fixture.resolver(fixture.user())
        let session = try fixture.context.multiFactor(for: fixture.user()).session()
        let issued = fixture.clock.now()
        fixture.clock.advance(1)
        let removal = try fixture.context.resetUser(uid: "alice", actor: "helpdesk")
        #expect(removal.factors.map(\.factorID).sorted() == ["recovery", "totp"])
        #expect(try fixture.context.userFactors(uid: "alice").isEmpty)
        #expect(errorCode { try pending.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: totp.code(at: fixture.clock.now()))) } == .userTokenExpired)
        // A factor imported after the reset cannot finish the sign-in started before it.
        let (fresh, freshTOTP) = try fixture.importTOTP("alice", index: 9)
        #expect(errorCode { try pending.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: fresh.uid, oneTimePassword: freshTOTP.code(at: fixture.clock.now()))) } == .userTokenExpired)
        #expect(errorCode { try fixture.context.resolver(pendingCredential: pending.session, tenant: nil) }
            == .userTokenExpired)
        try fixture.context.unenrollFactor(enrollmentID: fresh.uid, actor: "helpdesk")
        #expect(errorCode { try TOTPMultiFactorGenerator.generateSecret(with: session) } == .userTokenExpired)
        #expect(errorCode { try fixture.context.checkToken(tenant: nil, uid: "alice", issuedAt: issued) } == .userTokenExpired)
        guard case .signedIn = try fixture.context.signIn(fixture.user()) else {
            Issue.record("a reset user signs in with the first factor alone")
            return
        }
        let events = fixture.log.all.filter { $0.kind == .userReset || $0.detail == "ADMIN" }
        #expect(events.prefix(3).map(\.kind) == [.unenroll, .unenroll, .userReset])
        #expect(events.allSatisfy { $0.actor == "helpdesk" })
        // Reset again: nothing left to reset, like a uid never seen (nothing written or audited).
        let before = fixture.log.all.count
        #expect(errorCode { try fixture.context.resetUser(uid: "alice", actor: "helpdesk") } == .mfaEnrollmentNotFound)
        #expect(errorCode { try fixture.context.resetUser(uid: "nobody", actor: "helpdesk") } == .mfaEnrollmentNotFound)
        #expect(fixture.log.all.count == before)
        #expect(errorCode { try fixture.context.resetUser(uid: "", actor: "helpdesk") } == .invalidArgument)
        #expect(errorCode { try fixture.context.resetUser(uid: "alice", actor: "") } == .invalidArgument)
    }

    @Test("delete removes everything about a user and keeps tokens issued before refused",
          arguments: StoreKind.available)
    func delete(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        try fixture.importTOTP("alice", tenant: "acme")
        try fixture.importTOTP("bob", tenant: "acme")
        let session = try fixture.context.multiFactor(for: fixture.user("alice", tenant: "acme")).session()
        let issued = fixture.clock.now()
        fixture.clock.advance(1)
        let removal = try fixture.context.deleteUser(uid: "alice", tenant: "acme", actor: "dpo")
        #expect(removal.factors.count == 1)
        #expect(try fixture.context.userFactors(uid: "alice", tenant: "acme").isEmpty)
        #expect(try fixture.context.listUsers().users.map(\.uid) == ["bob"])
        #expect(errorCode { try TOTPMultiFactorGenerator.generateSecret(with: session) } == .userTokenExpired)
        #expect(errorCode { try fixture.context.checkToken(tenant: "acme", uid: "alice", issuedAt: issued) }
            == .userTokenExpired)
        #expect(fixture.log.all.last?.kind == .userDeleted && fixture.log.all.last?.actor == "dpo")
        #expect(errorCode { try fixture.context.deleteUser(uid: "carol", tenant: "acme", actor: "dpo") }
            == .mfaEnrollmentNotFound)
        #expect(try fixture.context.userFactors(uid: "bob", tenant: "acme").count == 1)
    }

    @Test("stats count users and factors per tenant and kind", arguments: StoreKind.available)
    func stats(_ kind: StoreKind) throws {
        let fixture = try AdminFixture(kind)
        #expect(try fixture.context.stats() == AdminStats(rows: [], tenants: []))
        try fixture.importTOTP("u1")
        try fixture.importTOTP("u1", index: 1)
        try fixture.importTOTP("u2")
        try fixture.importTOTP("t1", tenant: "acme")
        _ = try RecoveryCodesMultiFactorGenerator.generateCodes(
            with: fixture.context.multiFactor(for: fixture.user("u2")).session())
        let stats = try fixture.context.stats()
        #expect(stats.rows == [
            .init(tenant: nil, factorID: "recovery", factors: 1, users: 1),
            .init(tenant: nil, factorID: "totp", factors: 3, users: 2),
            .init(tenant: "acme", factorID: "totp", factors: 1, users: 1),
        ])
        #expect(stats.tenants == [.init(tenant: nil, users: 2), .init(tenant: "acme", users: 1)])
        #expect(stats.totalUsers == 3 && stats.totalFactors == 5)
    }
}
