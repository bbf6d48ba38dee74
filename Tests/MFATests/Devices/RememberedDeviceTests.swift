import Foundation
import MFA
import Testing

/// A context with TOTP, remembering on (30 days, at most 3 per user), and a user with an authenticator app.
private struct DeviceFixture {
    let engine: EngineFixture
    var context: MFAContext { engine.context }
    var clock: TestClock { engine.clock }
    var log: AuditLog { engine.log }
    static let config = """
        {"state":"ENABLED","providers":{"totp":"ENABLED"},
         "rememberedDevices":{"state":"ENABLED","days":30,"maxPerUser":3}}
        """
    private let secrets = SecretBook()

    init(_ kind: StoreKind, config: String = Self.config, keyring: MasterKeyring? = nil) throws {
        engine = try EngineFixture(store: kind.freshLocation(), config: config, keyring: keyring)
    }

    func user(_ uid: String = "alice", tenant: String? = nil) -> MFAUser { engine.user(uid, tenant: tenant) }

    /// Enrolls an authenticator app for `user` (kept for its sign-ins).
    @discardableResult
    func enroll(_ user: MFAUser) throws -> MultiFactorInfo {
        let (info, secret) = try engine.enrollTOTP(user)
        secrets.keep(user, secret)
        return info
    }

    /// A sign-in of `user` that passes the app's code: its resolver, used up.
    func passSecondFactor(_ user: MFAUser) throws -> MultiFactorResolver {
        clock.advance(30)
        let resolver = try engine.resolver(user)
        let factor = try #require(resolver.hints.first { $0.factorID == "totp" })
        _ = try resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: factor.uid, oneTimePassword: engine.code(try #require(secrets.secret(user)))))
        return resolver
    }

    /// Remembers a device of `user` after a second factor.
    func remember(_ user: MFAUser, label: String? = "Firefox on Linux") throws -> DeviceToken {
        try passSecondFactor(user).rememberDevice(label: label)
    }

    /// What a first-factor sign-in with `token` gives: the result, or nil for a resolver.
    func signIn(_ user: MFAUser, _ token: String?) throws -> SignInResult? {
        var fresh = user
        fresh.authTime = clock.now()
        switch try context.signIn(fresh, deviceToken: token) {
        case .signedIn(let result): return result
        case .secondFactorRequired: return nil
        }
    }

    /// The detail of the last DEVICE_REFUSED event.
    var lastRefusal: String? { log.all.last { $0.kind == .deviceRefused }?.detail }
}

/// The TOTP secrets of the fixture's users.
private final class SecretBook: @unchecked Sendable {
    private let lock = NSLock()
    private var secrets: [String: TOTPSecret] = [:]
    func keep(_ user: MFAUser, _ secret: TOTPSecret) { lock.withLock { secrets[(user.tenant ?? "") + "/" + user.uid] = secret } }
    func secret(_ user: MFAUser) -> TOTPSecret? { lock.withLock { secrets[(user.tenant ?? "") + "/" + user.uid] } }
}

@Suite("Remembered devices")
struct RememberedDeviceTests {
    @Test("a remembered device stands in for the second factor, with its claims, audited", arguments: StoreKind.available)
    func standsIn(_ kind: StoreKind) throws {
        let fixture = try DeviceFixture(kind)
        let user = fixture.user()
        try fixture.enroll(user)
        let token = try fixture.remember(user)
        #expect(token.token.hasPrefix("rd1.") && token.device.label == "Firefox on Linux")
        #expect(token.device.expiresAt == token.device.createdAt + 30 * 86_400)
        #expect(fixture.log.all.last?.kind == .deviceRemembered && fixture.log.all.last?.enrollmentID == token.device.id)
        let secondFactorAt = fixture.clock.now()
        fixture.clock.advance(3600)
        let result = try #require(try fixture.signIn(user, token.token))
        #expect(result.factorID == RememberedDeviceFactorID && result.enrollmentID == token.device.id)
        #expect(result.claims.map(\.name) == ["sign_in_second_factor", "second_factor_identifier"])
        #expect(result.claims.map(\.value) == ["remembered_device", token.device.id])
        let event = try #require(fixture.log.all.last)
        #expect(event.kind == .signInSuccess && event.factorID == "remembered_device" && event.enrollmentID == token.device.id)
        // Not a second factor for step-up.
        #expect(try !fixture.context.passedSecondFactor(tenant: nil, uid: user.uid, within: 3599))
        #expect(try fixture.context.passedSecondFactor(tenant: nil, uid: user.uid,
                                                       within: fixture.clock.now() - secondFactorAt))
        let listed = try fixture.context.rememberedDevices(uid: user.uid)
        #expect(listed.map(\.id) == [token.device.id] && listed[0].lastUsedAt == fixture.clock.now())
        // Without the token, the second factor is asked for.
        #expect(try fixture.signIn(user, nil) == nil)
        #expect(!"\(fixture.log.all)".contains(String(token.token.dropFirst(4))), "the token is never audited")
    }

    @Test("only a sign-in that passed a second factor remembers, and only one device", arguments: StoreKind.available)
    func rememberingNeedsTheSecondFactor(_ kind: StoreKind) throws {
        let fixture = try DeviceFixture(kind)
        let user = fixture.user()
        try fixture.enroll(user)
        let unresolved = try fixture.engine.resolver(user)
        #expect(errorCode { try unresolved.rememberDevice(label: nil) } == .invalidSession)
        let resolved = try fixture.passSecondFactor(user)
        #expect(errorCode { try fixture.context.rememberDevice(pendingCredential: resolved.session, tenant: "other",
                                                               label: nil) } == .tenantMismatch)
        #expect(errorCode { try resolved.rememberDevice(label: "bad\u{202E}label") } == .invalidArgument)
        #expect(errorCode { try resolved.rememberDevice(label: String(repeating: "x", count: 257)) } == .invalidArgument)
        _ = try resolved.rememberDevice(label: nil)
        #expect(errorCode { try resolved.rememberDevice(label: nil) } == .invalidSession, "one device per sign-in")
        #expect(errorCode { try fixture.context.rememberDevice(pendingCredential: "v2.garbage", tenant: nil, label: nil) }
            == .invalidSession)
        let late = try fixture.passSecondFactor(user)
        fixture.clock.advance(3600)
        #expect(errorCode { try late.rememberDevice(label: nil) } == .invalidSession, "too old")
        let revoked = try fixture.passSecondFactor(user)
        try fixture.context.revokeTokens(uid: user.uid)
        #expect(errorCode { try revoked.rememberDevice(label: nil) } == .userTokenExpired)
        try fixture.context.updateConfig(json: #"{"rememberedDevices":{"state":"DISABLED"}}"#)
        #expect(errorCode { try fixture.remember(user) } == .operationNotAllowed)
    }

    @Test("expiry: fixed window, and sliding with use", arguments: StoreKind.available)
    func expiry(_ kind: StoreKind) throws {
        let fixture = try DeviceFixture(kind)
        let user = fixture.user()
        try fixture.enroll(user)
        let token = try fixture.remember(user)
        fixture.clock.advance(29 * 86_400)
        #expect(try fixture.signIn(user, token.token) != nil)
        fixture.clock.advance(86_400)
        #expect(try fixture.signIn(user, token.token) == nil, "use does not extend a fixed window")
        #expect(fixture.lastRefusal == "EXPIRED")
        #expect(try fixture.context.rememberedDevices(uid: user.uid).isEmpty)

        try fixture.context.updateConfig(json: #"{"rememberedDevices":{"sliding":true,"days":2}}"#)
        let sliding = try fixture.remember(user)
        for _ in 0..<5 {
            fixture.clock.advance(86_400 + 3600)
            #expect(try fixture.signIn(user, sliding.token) != nil, "each use starts the window again")
        }
        fixture.clock.advance(2 * 86_400)
        #expect(try fixture.signIn(user, sliding.token) == nil)
        // Shortening the window shortens devices remembered before.
        try fixture.context.updateConfig(json: #"{"rememberedDevices":{"sliding":false,"days":30}}"#)
        let long = try fixture.remember(user)
        fixture.clock.advance(2 * 86_400)
        try fixture.context.updateConfig(json: #"{"rememberedDevices":{"days":1}}"#)
        #expect(try fixture.signIn(user, long.token) == nil && fixture.lastRefusal == "EXPIRED")
    }

    @Test("revocation by each path: the device's own, all, revoke_tokens, the last factor, admin reset and delete",
          arguments: StoreKind.available)
    func revocation(_ kind: StoreKind) throws {
        let fixture = try DeviceFixture(kind, config: DeviceFixture.config.replacingOccurrences(of: "\"maxPerUser\":3",
                                                                                                 with: "\"maxPerUser\":9"))
        let user = fixture.user()
        let app = try fixture.enroll(user)
        func forgotten(_ token: DeviceToken, _ detail: String) throws {
            #expect(try fixture.signIn(user, token.token) == nil, "\(detail)")
            #expect(fixture.lastRefusal == "UNKNOWN")
            #expect(fixture.log.all.contains { $0.kind == .deviceRevoked && $0.enrollmentID == token.device.id
                && $0.detail == detail }, "\(detail)")
        }
        // Its own revoke call, and all of them.
        let one = try fixture.remember(user)
        let two = try fixture.remember(user)
        try fixture.context.revokeRememberedDevices(uid: user.uid, deviceID: one.device.id)
        try forgotten(one, "OK")
        #expect(try fixture.signIn(user, two.token) != nil)
        #expect(errorCode { try fixture.context.revokeRememberedDevices(uid: user.uid, deviceID: one.device.id) }
            == .deviceNotFound)
        #expect(errorCode { try fixture.context.revokeRememberedDevices(uid: "bob", deviceID: two.device.id) }
            == .deviceNotFound, "another user's device")
        #expect(try fixture.context.revokeRememberedDevices(uid: user.uid) == 1)
        try forgotten(two, "OK")
        // revoke_tokens (a password change).
        let three = try fixture.remember(user)
        try fixture.context.revokeTokens(uid: user.uid)
        try forgotten(three, "TOKENS_REVOKED")
        // Unenrolling a factor that is not the last keeps them; the last takes them.
        let four = try fixture.remember(user)
        let phoneLike = try fixture.engine.enrollTOTP(user, name: "second app").0
        let five = try fixture.remember(user)
        var recent = user
        recent.authTime = fixture.clock.now()
        try fixture.context.multiFactor(for: recent).unenroll(withFactorUID: phoneLike.uid)
        #expect(try fixture.signIn(user, five.token) != nil, "a factor is left")
        try fixture.context.multiFactor(for: recent).unenroll(withFactorUID: app.uid)
        #expect(fixture.log.all.filter { $0.kind == .deviceRevoked && $0.detail == "LAST_FACTOR_REMOVED" }.count == 2)
        #expect(try fixture.context.rememberedDevices(uid: user.uid).isEmpty)
        _ = four
        // Admin reset and delete, and the admin's revoke, with the actor.
        try fixture.enroll(user)
        let six = try fixture.remember(user)
        try fixture.context.resetUser(uid: user.uid, actor: "ops")
        try fixture.enroll(user)  // a user without factors needs no second factor: enroll one to ask
        try forgotten(six, "USER_RESET")
        let seven = try fixture.remember(user)
        try fixture.context.deleteUser(uid: user.uid, actor: "ops")
        try fixture.enroll(user)
        try forgotten(seven, "USER_DELETED")
        let eight = try fixture.remember(user)
        #expect(try fixture.context.adminRevokeRememberedDevices(uid: user.uid, deviceID: eight.device.id,
                                                                 actor: "ops") == 1)
        try forgotten(eight, "ADMIN")
        #expect(fixture.log.all.last { $0.kind == .deviceRevoked }?.actor == "ops")
        #expect(errorCode { try fixture.context.adminRevokeRememberedDevices(uid: user.uid, actor: "") }
            == .invalidArgument)
    }

    @Test("at most maxPerUser devices: remembering one more forgets the least recently used", arguments: StoreKind.available)
    func limitPerUser(_ kind: StoreKind) throws {
        let fixture = try DeviceFixture(kind)
        let user = fixture.user()
        try fixture.enroll(user)
        let first = try fixture.remember(user, label: "one")
        let second = try fixture.remember(user, label: "two")
        let third = try fixture.remember(user, label: "three")
        #expect(try fixture.signIn(user, first.token) != nil, "the first is now the most recently used")
        let fourth = try fixture.remember(user, label: "four")
        #expect(Set(try fixture.context.rememberedDevices(uid: user.uid).map(\.label))
            == Set(["one", "three", "four"]))
        #expect(fixture.log.all.contains { $0.kind == .deviceRevoked && $0.detail == "LIMIT"
            && $0.enrollmentID == second.device.id })
        #expect(try fixture.signIn(user, second.token) == nil)
        #expect(try fixture.signIn(user, third.token) != nil && fixture.signIn(user, fourth.token) != nil)
    }

    @Test("tenants and users are apart; tampered, foreign and malformed tokens are ignored and audited",
          arguments: StoreKind.available)
    func ignored(_ kind: StoreKind) throws {
        let fixture = try DeviceFixture(kind)
        let alice = fixture.user()
        let bob = fixture.user("bob")
        let tenantAlice = fixture.user("alice", tenant: "t1")
        try fixture.enroll(alice)
        try fixture.enroll(bob)
        try fixture.enroll(tenantAlice)
        try fixture.context.setConfig(json: DeviceFixture.config, tenant: "t1")
        let token = try fixture.remember(alice)
        let tenantToken = try fixture.remember(tenantAlice)
        #expect(tenantToken.device.tenant == "t1")
        #expect(try fixture.signIn(bob, token.token) == nil && fixture.lastRefusal == "FOREIGN")
        #expect(try fixture.signIn(tenantAlice, token.token) == nil && fixture.lastRefusal == "FOREIGN")
        #expect(try fixture.signIn(alice, tenantToken.token) == nil && fixture.lastRefusal == "FOREIGN")
        var bytes = Array(token.token.utf8)
        bytes[bytes.count - 2] = bytes[bytes.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(try fixture.signIn(alice, String(decoding: bytes, as: UTF8.self)) == nil)
        #expect(fixture.lastRefusal == "TAMPERED")
        for garbage in ["", "rd1.", "rd1.AAAA", "v2." + token.token.dropFirst(4), String(repeating: "A", count: 5000),
                        token.token + "A", "rd1.\u{0}"] {
            #expect(try fixture.signIn(alice, garbage) == nil)
            #expect(fixture.lastRefusal == "MALFORMED", "\(garbage.prefix(12))")
        }
        var unknown = Array(token.token.utf8)
        unknown[6] = unknown[6] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
        #expect(try fixture.signIn(alice, String(decoding: unknown, as: UTF8.self)) == nil)
        #expect(fixture.lastRefusal == "UNKNOWN")
        // A tenant may forbid what the project allows: the token is ignored there.
        try fixture.context.setConfig(json: #"{"rememberedDevices":{"state":"DISABLED"}}"#, tenant: "t1")
        #expect(try fixture.signIn(tenantAlice, tenantToken.token) == nil && fixture.lastRefusal == "DISABLED")
        #expect(try fixture.signIn(alice, token.token) != nil, "and the project's still works")
        let refusals = fixture.log.all.filter { $0.kind == .deviceRefused }
        #expect(refusals.allSatisfy { $0.factorID == "remembered_device" && !"\($0)".contains(token.token) })
    }

    @Test("key rotation: a device stays while its key is in the keyring", arguments: StoreKind.available)
    func keyRotation(_ kind: StoreKind) throws {
        let location = try kind.freshLocation(file: true)
        let old = try MasterKey(id: "k1", bytes: EngineFixture.keyBytes)
        let new = try MasterKey(id: "k2", bytes: [UInt8](repeating: 9, count: 32))
        let fixture = try EngineFixture(store: location, config: DeviceFixture.config)
        let user = fixture.user()
        let (_, secret) = try fixture.enrollTOTP(user)
        fixture.clock.advance(30)
        let resolver = try fixture.resolver(user)
        _ = try resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: resolver.hints[0].uid, oneTimePassword: fixture.code(secret)))
        let token = try resolver.rememberDevice(label: nil)
        fixture.context.close()
        let rotated = try EngineFixture(store: location, config: DeviceFixture.config,
                                        keyring: try MasterKeyring(current: new, previous: [old]))
        rotated.clock.advance(fixture.clock.now() - rotated.clock.now())
        _ = try rotated.context.rotateKeys()
        guard case .signedIn = try rotated.context.signIn(user, deviceToken: token.token) else {
            Issue.record("the device was not recognised under the previous key")
            return
        }
        rotated.context.close()
        let dropped = try EngineFixture(store: location, config: DeviceFixture.config,
                                        keyring: try MasterKeyring(current: new))
        guard case .secondFactorRequired = try dropped.context.signIn(user, deviceToken: token.token) else {
            Issue.record("a device hashed under a dropped key still stood in")
            return
        }
        #expect(dropped.log.all.last { $0.kind == .deviceRefused }?.detail == "TAMPERED")
    }

    @Test("configuration: defaults, ranges, types")
    func configuration() throws {
        let fixture = try EngineFixture()
        #expect(try fixture.context.config().rememberedDevices == RememberedDeviceSettings())
        #expect(try fixture.context.configJSON().contains(
            #""rememberedDevices":{"state":"DISABLED","days":30,"sliding":false,"maxPerUser":10}"#))
        for bad in [#"{"rememberedDevices":{"days":0}}"#, #"{"rememberedDevices":{"days":91}}"#,
                    #"{"rememberedDevices":{"maxPerUser":0}}"#, #"{"rememberedDevices":{"sliding":1}}"#,
                    #"{"rememberedDevices":{"state":"ON"}}"#, #"{"rememberedDevices":{"weeks":2}}"#,
                    #"{"rememberedDevices":true}"#] {
            #expect(errorCode { try fixture.context.setConfig(json: bad) } == .invalidArgument, "\(bad)")
        }
        try fixture.context.setConfig(json: #"{"rememberedDevices":{"state":"ENABLED","days":90,"sliding":true}}"#)
        let settings = try fixture.context.config().rememberedDevices
        #expect(settings.state == .enabled && settings.days == 90 && settings.sliding && settings.maxPerUser == 10)
    }
}
