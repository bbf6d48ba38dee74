import MFA
import Testing

@Suite("The stored audit trail: tampering is found, purges and key rotations keep it verifiable")
struct AuditTamperTests {
    /// A trail of `count` events in chain "main" (tokens revoked, one a minute).
    private func trail(_ kind: StoreKind, count: Int = 8) throws -> AuditFixture {
        let fixture = try AuditFixture(kind)
        for index in 1..<count {
            fixture.clock.advance(60)
            try fixture.context.revokeTokens(uid: "user\(index)")
        }
        let head = try #require(try fixture.context.auditChains().first)
        let intact = try fixture.verify()?.intact
        #expect(head.headSeq == Int64(count) && intact == true)
        return fixture
    }

    private func sql(_ fixture: AuditFixture, _ statement: String) throws {
        try RawStore.execute(fixture.location, statement)
    }

    @Test("a deleted event is found where it was", arguments: StoreKind.available)
    func deleted(_ kind: StoreKind) throws {
        let fixture = try trail(kind)
        try sql(fixture, "DELETE FROM mfa_audit_events WHERE seq = 4")
        let result = try #require(try fixture.verify())
        #expect(result.brokenAt == 4 && result.problem?.contains("missing") == true)
        #expect(!(try fixture.context.verifyAuditTrail().intact))
    }

    @Test("the last event deleted, or the head moved back with it, is found", arguments: StoreKind.available)
    func truncated(_ kind: StoreKind) throws {
        let fixture = try trail(kind)
        try sql(fixture, "DELETE FROM mfa_audit_events WHERE seq = 8")
        #expect(try fixture.verify()?.brokenAt == 8)
        // The head moved back too (with the MAC of event 7): its own MAC no longer matches.
        try sql(fixture, """
            UPDATE mfa_audit_chains SET head_seq = 7, head_mac = (SELECT mac FROM mfa_audit_events WHERE seq = 7)
            """)
        let result = try #require(try fixture.verify())
        #expect(result.brokenAt == 7 && result.problem?.contains("head") == true)
        // The next writer does not launder it: it records what it found, and the chain stays broken.
        try fixture.context.revokeTokens(uid: "late")
        let records = try fixture.stored()
        #expect(records.suffix(2).map(\.kindName) == ["INTEGRITY_FAILURE", "TOKENS_REVOKED"])
        #expect(records.suffix(2).first?.detail == "AUDIT_CHAIN_HEAD")
        #expect(try fixture.verify()?.brokenAt == 8)
    }

    @Test("an altered event is found", arguments: StoreKind.available)
    func altered(_ kind: StoreKind) throws {
        let fixture = try trail(kind)
        try sql(fixture, "UPDATE mfa_audit_events SET uid = 'mallory' WHERE seq = 3")
        #expect(try fixture.verify()?.brokenAt == 3)
        try sql(fixture, "UPDATE mfa_audit_events SET uid = 'user2' WHERE seq = 3")
        #expect(try fixture.verify()?.intact == true)
        try sql(fixture, "UPDATE mfa_audit_events SET time = time + 1 WHERE seq = 6")
        #expect(try fixture.verify()?.brokenAt == 6)
    }

    @Test("an inserted event is found, wherever it goes", arguments: StoreKind.available)
    func inserted(_ kind: StoreKind) throws {
        let insert = """
            INSERT INTO mfa_audit_events (chain, seq, time, kind, tenant, uid, factor_id, enrollment_id, detail, \
            actor, key_id, mac) SELECT chain, %SEQ%, time, kind, tenant, 'mallory', factor_id, enrollment_id, detail, \
            actor, key_id, mac FROM mfa_audit_events WHERE seq = 5
            """
        // After the head.
        var fixture = try trail(kind)
        try sql(fixture, insert.replacingOccurrences(of: "%SEQ%", with: "9"))
        var result = try #require(try fixture.verify())
        #expect(result.brokenAt == 9 && result.problem?.contains("beyond") == true)
        // In the middle: the events after it are renumbered to make room.
        fixture = try trail(kind)
        try sql(fixture, "UPDATE mfa_audit_events SET seq = seq + 100 WHERE seq >= 5")
        try sql(fixture, "UPDATE mfa_audit_events SET seq = seq - 99 WHERE seq >= 105")
        try sql(fixture, insert.replacingOccurrences(of: "%SEQ%", with: "5").replacingOccurrences(
            of: "WHERE seq = 5", with: "WHERE seq = 4"))
        try sql(fixture, "UPDATE mfa_audit_chains SET head_seq = 9")
        result = try #require(try fixture.verify())
        #expect(result.brokenAt == 5)
        // In another chain's name, with no head row.
        fixture = try trail(kind)
        try sql(fixture, insert.replacingOccurrences(of: "chain, %SEQ%", with: "'other', 1"))
        let other = try fixture.context.verifyAuditTrail().chains.first { $0.chain == "other" }
        #expect(other?.brokenAt == 1 && other?.problem?.contains("no head") == true)
        // Before the anchor.
        fixture = try trail(kind)
        try sql(fixture, insert.replacingOccurrences(of: "%SEQ%", with: "0"))
        #expect(try fixture.verify()?.brokenAt == 0)
    }

    @Test("reordered events are found", arguments: StoreKind.available)
    func reordered(_ kind: StoreKind) throws {
        let fixture = try trail(kind)
        try sql(fixture, "UPDATE mfa_audit_events SET seq = 100 WHERE seq = 3")
        try sql(fixture, "UPDATE mfa_audit_events SET seq = 3 WHERE seq = 6")
        try sql(fixture, "UPDATE mfa_audit_events SET seq = 6 WHERE seq = 100")
        #expect(try fixture.verify()?.brokenAt == 3)
        // Two events' contents swapped, their numbers and MACs left in place.
        let swapped = try trail(kind)
        try sql(swapped, "UPDATE mfa_audit_events SET uid = 'x' WHERE seq = 2")
        try sql(swapped, "UPDATE mfa_audit_events SET uid = 'user1' WHERE seq = 3")
        try sql(swapped, "UPDATE mfa_audit_events SET uid = 'user2' WHERE uid = 'x'")
        #expect(try swapped.verify()?.brokenAt == 2)
    }

    @Test("a deleted or altered head row is found", arguments: StoreKind.available)
    func head(_ kind: StoreKind) throws {
        var fixture = try trail(kind)
        try sql(fixture, "DELETE FROM mfa_audit_chains")
        var result = try #require(try fixture.context.verifyAuditTrail().chains.first)
        #expect(result.brokenAt == 1 && result.problem?.contains("no head") == true)
        // The next writer rebuilds the head from the events, and records that it had to.
        try fixture.context.revokeTokens(uid: "late")
        result = try #require(try fixture.verify())
        #expect(result.brokenAt == 9 && result.problem?.contains("head altered") == true)
        fixture = try trail(kind)
        try sql(fixture, "UPDATE mfa_audit_chains SET anchor_seq = 3")
        #expect(try fixture.verify()?.brokenAt == 3)
    }

    @Test("a purge by retention keeps the chain verifiable; deleting the first kept event is still found",
          arguments: StoreKind.available)
    func retention(_ kind: StoreKind) throws {
        let fixture = try trail(kind, count: 10)
        // Events one a minute (1 at t0, 10 at t0 + 540); keep one day, as of a day after t0 + 241:
        // 1 .. 5 are older.
        fixture.clock.advance(86_400 - 300 + 1)
        try fixture.context.updateConfig(json: #"{"auditTrail":{"retentionDays":1}}"#)
        try fixture.context.purgeExpired()
        let result = try #require(try fixture.verify())
        #expect(result.anchorSeq == 6 && result.intact && result.verified == 6)
        #expect(try fixture.stored().map(\.seq) == Array(6...11))
        try sql(fixture, "DELETE FROM mfa_audit_events WHERE seq = 6")
        #expect(try fixture.verify()?.brokenAt == 6)
    }

    @Test("a purge by size keeps the newest events and the chain verifiable", arguments: StoreKind.available)
    func maxEvents(_ kind: StoreKind) throws {
        let fixture = try trail(kind, count: 10)
        try fixture.context.updateConfig(json: #"{"auditTrail":{"maxEvents":4}}"#)
        #expect(try fixture.context.purgeAuditTrail() == 7)
        #expect(try fixture.stored().map(\.seq) == [8, 9, 10, 11])
        #expect(try fixture.verify()?.intact == true)
        try fixture.context.revokeTokens(uid: "late")
        #expect(try fixture.verify()?.verified == 5)
        // A purge does not delete a run that is not whole: a deletion stays visible.
        try sql(fixture, "DELETE FROM mfa_audit_events WHERE seq = 8")
        #expect(try fixture.context.purgeAuditTrail() == 0)
        #expect(try fixture.verify()?.brokenAt == 8)
    }

    @Test("after a master key rotation the chain goes on; old events need the old key", arguments: StoreKind.available)
    func keyRotation(_ kind: StoreKind) throws {
        let fixture = try trail(kind, count: 4)
        let k1 = try MasterKey(id: "k1", bytes: AuditFixture.k1)
        let k2 = try MasterKey(id: "k2", bytes: AuditFixture.k2)
        let rotated = try AuditFixture(location: fixture.location, clock: fixture.clock,
                                       keyring: MasterKeyring(current: k2, previous: [k1]))
        _ = try rotated.context.rotateKeys(batchSize: 100, actor: "ops") { _, _ in true }
        try rotated.context.revokeTokens(uid: "after")
        #expect(try rotated.stored().map(\.keyID) == ["k1", "k1", "k1", "k1", "k2", "k2"])
        let both = try #require(try rotated.verify())
        #expect(both.intact && both.verified == 6 && both.unchecked == 0)
        // With the new key alone: the old events are unchecked, the rest verified, the chain whole.
        let alone = try AuditFixture(location: fixture.location, clock: fixture.clock,
                                     keyring: MasterKeyring(current: k2))
        let result = try #require(try alone.verify())
        #expect(result.intact && result.verified == 2 && result.unchecked == 4 && result.missingKeys == ["k1"])
        // Tampering with an unchecked event's MAC still breaks the first checked link.
        try sql(fixture, "UPDATE mfa_audit_events SET mac = (SELECT mac FROM mfa_audit_events WHERE seq = 1) WHERE seq = 4")
        #expect(try alone.verify()?.brokenAt == 5)
    }

    @Test("an event altered and given a key id no key checks, after checked events, is a break",
          arguments: StoreKind.available)
    func keyIDAltered(_ kind: StoreKind) throws {
        let fixture = try trail(kind, count: 4)
        try sql(fixture, "UPDATE mfa_audit_events SET uid = 'mallory', key_id = 'zz' WHERE seq = 3")
        let result = try #require(try fixture.verify())
        #expect(!result.intact && result.brokenAt == 3 && result.unchecked == 0)
        #expect(result.problem?.contains("key zz") == true)
        // On the first event (where a rotation's earlier keys' events are): zz never opened the store.
        let first = try trail(kind, count: 4)
        try sql(first, "UPDATE mfa_audit_events SET uid = 'mallory', key_id = 'zz' WHERE seq = 1")
        let found = try #require(try first.verify())
        #expect(!found.intact && found.brokenAt == 1 && found.problem?.contains("never opened") == true)
        // The head row's key id likewise.
        let head = try trail(kind, count: 4)
        try sql(head, "UPDATE mfa_audit_chains SET key_id = 'zz'")
        #expect(try head.verify()?.brokenAt == 4)
    }

    @Test("processes on separate chains each keep a verifiable chain", arguments: StoreKind.available)
    func chains(_ kind: StoreKind) throws {
        let fixture = try AuditFixture(kind)
        let east = try AuditFixture(location: fixture.location, clock: fixture.clock, chain: "east")
        for index in 0..<5 {
            try fixture.context.revokeTokens(uid: "m\(index)")
            try east.context.revokeTokens(uid: "e\(index)")
        }
        let result = try fixture.context.verifyAuditTrail()
        #expect(result.intact && result.chains.map(\.chain) == ["east", "main"] && result.verified == 11)
        #expect(try east.context.auditRecords(AuditQuery(chain: "east")).map(\.uid) == ["e0", "e1", "e2", "e3", "e4"])
    }

    @Test("an integrity failure found inside a store call is stored after it", arguments: StoreKind.available)
    func integrityInsideACall(_ kind: StoreKind) throws {
        let fixture = try AuditFixture(kind)
        _ = try fixture.enrollTOTP(fixture.user())
        let (moved, secret) = try fixture.enrollTOTP(fixture.user("mallory"))
        try sql(fixture, "UPDATE mfa_factors SET uid = 'alice' WHERE enrollment_id = '\(moved.uid)'")
        fixture.clock.advance(30)
        let code = try TOTP(secret: secret.secret).code(at: fixture.clock.now())
        // On SQLite the attempt is judged again inside its transaction: the event waits for it to end.
        #expect(errorCode { try fixture.signIn(fixture.user(), moved, code: code) } == .crypto)
        let stored = try fixture.stored()
        #expect(stored.contains { $0.kindName == "INTEGRITY_FAILURE" && $0.enrollmentID == moved.uid })
        #expect(stored.last?.kindName == "SIGN_IN_FAILURE")
        #expect(Set(stored.map(\.fields)) == Set(fixture.log.all.map(\.fields)))
        #expect(try fixture.context.verifyAuditTrail().intact)
    }
}
