import MFA
import Testing

/// Key rotation in batches: progress, a stop between batches, resumption.
@Suite("Key rotation in batches")
struct KeyRotationTests {
    @Test("a rotation stopped after one batch resumes, loses nothing, and every factor still signs in",
          arguments: StoreKind.available)
    func stopAndResume(_ kind: StoreKind) throws {
        let location = try kind.freshLocation(file: true)
        let old = try MasterKey(id: "old", bytes: [UInt8](repeating: 1, count: 32))
        let fixture = try AdminFixture(store: location, keyring: MasterKeyring(current: old))
        var imported: [(String, MultiFactorInfo, TOTP)] = []
        for index in 0..<25 {
            let (info, totp) = try fixture.importTOTP("user\(index)")
            imported.append(("user\(index)", info, totp))
        }
        let rotated = try AdminFixture(store: location, keyring: MasterKeyring(
            current: MasterKey(id: "new", bytes: [UInt8](repeating: 2, count: 32)), previous: [old]))
        var seen: [(Int, Int)] = []
        let first = try rotated.context.rotateKeys(batchSize: 10, actor: "ops") { done, total in
            seen.append((done, total))
            return false
        }
        #expect(first.stopped && first.rotated == 10 && first.remaining == 15)
        #expect(seen.count == 1 && seen[0] == (10, 25))
        let second = try rotated.context.rotateKeys(batchSize: 10) { done, total in
            seen.append((done, total))
            return true
        }
        #expect(!second.stopped && second.rotated == 15 && second.remaining == 0)
        #expect(seen.suffix(2).map(\.0) == [10, 15] && seen.last?.1 == 15)
        #expect(rotated.log.all.last?.kind == .keysRotated)
        // Only the new key now: every factor opens and signs in.
        let fresh = try AdminFixture(store: location, keyring: MasterKeyring(
            current: MasterKey(id: "new", bytes: [UInt8](repeating: 2, count: 32))))
        for (uid, info, totp) in imported {
            #expect(try fresh.signIn(uid, enrollmentID: info.uid, totp: totp).enrollmentID == info.uid)
        }
        #expect(try fresh.context.rotateKeys(batchSize: 10) { _, _ in true } == KeyRotationResult(
            rotated: 0, remaining: 0, stopped: false))
        #expect(errorCode { try fresh.context.rotateKeys(batchSize: 0) { _, _ in true } } == .invalidArgument)
    }
}
