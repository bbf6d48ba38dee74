import Foundation
import MFA
import Testing

/// Signing in with a passkey alone (`MFAContext.passkeySignInOptions`,
/// `signInWithPasskey`): the contract, on SQLite and PostgreSQL.
@Suite("Passkey sign-in")
struct PasskeySignInTests {
    static let notAccepted = "the passkey was not accepted: sign in another way, or use another passkey"

    @Test("options: no user, empty allowCredentials, UV required, a fresh challenge for each call, hints",
          arguments: StoreKind.available)
    func options(_ kind: StoreKind) throws {
        let fixture = try PasskeyFixture(kind)
        let first = jsonObject(try fixture.context.passkeySignInOptions())
        #expect(first["rpId"] as? String == "example.com" && first["userVerification"] as? String == "required")
        #expect((first["allowCredentials"] as? [Any])?.isEmpty == true && first["timeout"] as? Int == 300_000)
        #expect(first["hints"] == nil)
        let second = jsonObject(try fixture.context.passkeySignInOptions(
            options: WebAuthnCeremonyOptions(hints: [.clientDevice, .hybrid])))
        #expect(second["hints"] as? [String] == ["client-device", "hybrid"])
        #expect(first["challenge"] as? String != second["challenge"] as? String)
        // Another tenant's challenge is TENANT_MISMATCH when it comes back.
        let key = TestAuthenticator()
        try fixture.enroll(fixture.user(), key)
        let tenantOptions = try fixture.context.passkeySignInOptions(tenant: "t1")
        #expect(errorCode { try fixture.context.signInWithPasskey(credentialJSON: key.assert(tenantOptions)) }
            == .tenantMismatch)
    }

    @Test("success: the user, both factors met, claims in the shape of a sign-in result, audited",
          arguments: StoreKind.available)
    func success(_ kind: StoreKind) throws {
        let fixture = try PasskeyFixture(kind)
        let alice = fixture.user()
        let key = TestAuthenticator()
        let info = try fixture.enroll(alice, key)
        #expect(info.hint == "device-bound passkey")
        let result = try fixture.signIn(key)
        #expect(result.uid == "alice" && result.tenant == nil && result.factorID == "webauthn")
        #expect(result.enrollmentID == info.uid && result.time == fixture.clock.now())
        #expect(result.claims.map(\.name) == ["sign_in_second_factor", "second_factor_identifier", "sign_in_method",
                                              "amr", "webauthn_user_verified", "webauthn_key", "webauthn_backed_up"])
        let claims = Dictionary(uniqueKeysWithValues: result.claims.map { ($0.name, $0.value) })
        #expect(claims["sign_in_second_factor"] == "webauthn" && claims["second_factor_identifier"] == info.uid)
        #expect(claims["sign_in_method"] == "passkey" && claims["amr"] == "hwk user mfa")
        #expect(claims["webauthn_user_verified"] == "true" && claims["webauthn_key"] == "device-bound key")
        #expect(fixture.log.all.last?.kind == .passkeySignInSuccess && fixture.log.all.last?.uid == "alice")
        #expect(try fixture.context.passedSecondFactor(tenant: nil, uid: "alice", within: 60), "counts as MFA")

        // A synced passkey (BE) in a tenant: "swk", "synced passkey".
        let synced = TestAuthenticator()
        synced.backupEligible = true
        let bob = fixture.user("bob", tenant: "t1")
        #expect(try fixture.enroll(bob, synced).hint == "synced passkey")
        let tenantResult = try fixture.signIn(synced, tenant: "t1")
        #expect(tenantResult.uid == "bob" && tenantResult.tenant == "t1")
        let tenantClaims = Dictionary(uniqueKeysWithValues: tenantResult.claims.map { ($0.name, $0.value) })
        #expect(tenantClaims["amr"] == "swk user mfa" && tenantClaims["webauthn_key"] == "synced passkey")
        let listed = try fixture.context.webAuthnCredentials(uid: "bob", tenant: "t1")
        #expect(listed.count == 1 && listed[0].isPasskey && listed[0].backup == "synced passkey")
        #expect(listed[0].discoverable == true && listed[0].lastUsedAt == fixture.clock.now())
    }

    @Test("a user with two passkeys signs in with either; the counter of each is its own", arguments: StoreKind.available)
    func twoPasskeys(_ kind: StoreKind) throws {
        let fixture = try PasskeyFixture(kind)
        let alice = fixture.user()
        let phone = TestAuthenticator(), laptop = TestAuthenticator()
        let first = try fixture.enroll(alice, phone, name: "phone")
        let second = try fixture.enroll(alice, laptop, name: "laptop")
        #expect(phone.userHandle == laptop.userHandle, "one user handle per user")
        #expect(try fixture.signIn(laptop).enrollmentID == second.uid)
        #expect(try fixture.signIn(phone).enrollmentID == first.uid)
        #expect(try fixture.signIn(laptop).enrollmentID == second.uid)
    }

    @Test("a wrong userHandle is refused and counted, answered as not accepted", arguments: StoreKind.available)
    func wrongUserHandle(_ kind: StoreKind) throws {
        let fixture = try PasskeyFixture(kind)
        let key = TestAuthenticator()
        try fixture.enroll(fixture.user(), key)
        try fixture.enroll(fixture.user("bob"), TestAuthenticator())
        key.userHandleOverride = Array(repeating: 7, count: 32)
        let refused = fixture.refusal { try fixture.signIn(key) }
        #expect(refused?.code == .invalidVerificationCode && refused?.message == Self.notAccepted)
        #expect(fixture.log.all.last?.kind == .passkeySignInFailure && fixture.log.all.last?.uid == "alice")
        key.userHandleOverride = nil
        try fixture.signIn(key)
        // No user handle at all is malformed.
        let options = try fixture.context.passkeySignInOptions()
        var fields = jsonObject(key.assert(options))
        var response = fields["response"] as! [String: Any]
        response["userHandle"] = NSNull()
        fields["response"] = response
        #expect(errorCode { try fixture.context.signInWithPasskey(credentialJSON: jsonText(fields)) } == .invalidArgument)
    }

    @Test("only passkeys sign in: a credential not discoverable, or registered without UV, is not accepted",
          arguments: StoreKind.available)
    func onlyPasskeys(_ kind: StoreKind) throws {
        let fixture = try PasskeyFixture(kind)
        // A security key registered as a second factor (no resident key asked for).
        let securityKey = TestAuthenticator()
        let info = try fixture.enroll(fixture.user(), securityKey, options: WebAuthnCeremonyOptions())
        #expect(info.hint == "security key")
        #expect(fixture.refusal { try fixture.signIn(securityKey) }?.message == Self.notAccepted)
        // The browser says it is not discoverable (credProps.rk false) though one was preferred.
        let notResident = TestAuthenticator()
        notResident.residentKeys = false
        try fixture.enroll(fixture.user("bob"), notResident, options: WebAuthnCeremonyOptions(residentKey: .preferred))
        #expect(fixture.refusal { try fixture.signIn(notResident) }?.message == Self.notAccepted)
        // Discoverable, but the user was not verified at registration.
        let unverified = TestAuthenticator()
        unverified.userVerified = false
        try fixture.enroll(fixture.user("carol"), unverified,
                           options: WebAuthnCeremonyOptions(userVerification: .discouraged, residentKey: .required))
        unverified.userVerified = true
        #expect(fixture.refusal { try fixture.signIn(unverified) }?.message == Self.notAccepted)
        #expect(try !fixture.context.webAuthnCredentials(uid: "carol")[0].isPasskey)
        // Each still works as a second factor.
        let resolver = try #require({ () throws -> MultiFactorResolver? in
            if case .secondFactorRequired(let r) = try fixture.context.signIn(fixture.user()) { return r }
            return nil
        }())
        _ = try resolver.resolveSignIn(with: WebAuthnMultiFactorGenerator.assertionForSignIn(
            credentialJSON: securityKey.assert(try WebAuthnMultiFactorGenerator.authenticationOptions(for: resolver))))
    }

    @Test("a passkey registration must be discoverable, verify the user, and use an algorithm offered")
    func registrationTerms() throws {
        let fixture = try PasskeyFixture()
        let key = TestAuthenticator()
        key.residentKeys = false
        #expect(errorCode { try fixture.enroll(fixture.user(), key) } == .invalidArgument, "credProps.rk false")
        key.residentKeys = true
        key.userVerified = false
        #expect(errorCode { try fixture.enroll(fixture.user(), key) } == .userVerificationRequired)
        key.userVerified = true
        var options = WebAuthnCeremonyOptions.passkey
        options.algorithms = [.es256]
        #expect(errorCode { try fixture.enroll(fixture.user(), key, options: options) } == .invalidArgument,
                "an Ed25519 key where only ES256 was offered")
        options.algorithms = [.edDSA, .es256]
        try fixture.enroll(fixture.user(), key, options: options)
        #expect(try fixture.context.webAuthnCredentials(uid: "alice")[0].isPasskey)
        // A browser that does not report credProps: required means discoverable.
        let quiet = TestAuthenticator()
        quiet.reportsCredProps = false
        try fixture.enroll(fixture.user("bob"), quiet)
        #expect(try fixture.context.webAuthnCredentials(uid: "bob")[0].discoverable == true)
        try fixture.signIn(quiet)
    }

    @Test("user verification missing at sign-in: USER_VERIFICATION_REQUIRED, uncounted", arguments: StoreKind.available)
    func userVerificationMissing(_ kind: StoreKind) throws {
        let fixture = try PasskeyFixture(kind)
        let key = TestAuthenticator()
        try fixture.enroll(fixture.user(), key)
        key.userVerified = false
        for _ in 0..<8 { #expect(errorCode { try fixture.signIn(key) } == .userVerificationRequired) }
        key.userVerified = true
        try fixture.signIn(key) // no backoff was counted
    }

    @Test("a replayed response is refused: INVALID_SESSION (the challenge is used), or the counter",
          arguments: StoreKind.available)
    func replay(_ kind: StoreKind) throws {
        let fixture = try PasskeyFixture(kind)
        let key = TestAuthenticator()
        try fixture.enroll(fixture.user(), key)
        let response = try fixture.answer(key)
        _ = try fixture.context.signInWithPasskey(credentialJSON: response)
        #expect(errorCode { try fixture.context.signInWithPasskey(credentialJSON: response) } == .invalidSession)
        fixture.clock.advance(301)
        #expect(errorCode { try fixture.context.signInWithPasskey(credentialJSON: response) } == .invalidSession,
                "expired")
    }

    @Test("a cloned passkey (its counter back) is CREDENTIAL_CLONED and audited", arguments: StoreKind.available)
    func clone(_ kind: StoreKind) throws {
        let fixture = try PasskeyFixture(kind)
        let key = TestAuthenticator()
        try fixture.enroll(fixture.user(), key)
        try fixture.signIn(key)
        try fixture.signIn(key)
        key.signCount = 1
        #expect(errorCode { try fixture.signIn(key) } == .credentialCloned)
        #expect(fixture.log.all.last?.kind == .passkeySignInFailure && fixture.log.all.last?.detail == "CREDENTIAL_CLONED")
    }

    @Test("a removed passkey, and another tenant's, are not accepted", arguments: StoreKind.available)
    func removedAndOtherTenant(_ kind: StoreKind) throws {
        let fixture = try PasskeyFixture(kind)
        let key = TestAuthenticator()
        let info = try fixture.enroll(fixture.user(), key)
        try fixture.signIn(key)
        try fixture.context.multiFactor(for: fixture.user()).unenroll(withFactorUID: info.uid)
        fixture.clock.advance(1)
        #expect(fixture.refusal { try fixture.signIn(key) }?.message == Self.notAccepted)
        let tenantKey = TestAuthenticator()
        try fixture.enroll(fixture.user("bob", tenant: "t1"), tenantKey)
        #expect(fixture.refusal { try fixture.signIn(tenantKey) }?.message == Self.notAccepted, "the project's")
        #expect(fixture.refusal { try fixture.signIn(tenantKey, tenant: "t2") }?.message == Self.notAccepted)
        try fixture.signIn(tenantKey, tenant: "t1")
    }

    @Test("revocation: a sign-in started before the user's tokens were revoked is USER_TOKEN_EXPIRED",
          arguments: StoreKind.available)
    func revocation(_ kind: StoreKind) throws {
        let fixture = try PasskeyFixture(kind)
        let key = TestAuthenticator()
        try fixture.enroll(fixture.user(), key)
        let early = try fixture.answer(key)
        fixture.clock.advance(1)
        try fixture.context.revokeTokens(uid: "alice")
        #expect(errorCode { try fixture.context.signInWithPasskey(credentialJSON: early) } == .userTokenExpired)
        fixture.clock.advance(1)
        let result = try fixture.signIn(key)
        try fixture.context.checkToken(tenant: nil, uid: "alice", issuedAt: result.time + 1)
    }

    @Test("backoff: wrong signatures count; then even the right one waits; the backoff ends by itself",
          arguments: StoreKind.available)
    func backoff(_ kind: StoreKind) throws {
        let fixture = try PasskeyFixture(kind)
        let key = TestAuthenticator()
        try fixture.enroll(fixture.user(), key)
        let options = try fixture.context.passkeySignInOptions()
        for _ in 0..<6 {
            var fields = jsonObject(key.assert(options))
            var response = fields["response"] as! [String: Any]
            response["signature"] = base64url(Array(repeating: 1, count: 64))
            fields["response"] = response
            #expect(fixture.refusal { try fixture.context.signInWithPasskey(credentialJSON: jsonText(fields)) }?
                .message == Self.notAccepted)
        }
        #expect(fixture.log.all.contains { $0.kind == .backoff && $0.uid == "alice" })
        #expect(errorCode { try fixture.signIn(key) } == .tooManyAttemptsTryLater)
        // The resolver path shares the backoff.
        #expect(errorCode { () throws -> SignInResult in
            guard case .secondFactorRequired(let resolver) = try fixture.context.signIn(fixture.user()) else {
                throw MFAError(.internal)
            }
            return try resolver.resolveSignIn(with: WebAuthnMultiFactorGenerator.assertionForSignIn(
                credentialJSON: key.assert(try WebAuthnMultiFactorGenerator.authenticationOptions(for: resolver))))
        } == .tooManyAttemptsTryLater)
        fixture.clock.advance(3600)
        try fixture.signIn(key)
    }

    @Test("no enumeration: unknown, removed, other tenant's, not a passkey, wrong signature: one answer, similar time",
          arguments: StoreKind.available)
    func noEnumeration(_ kind: StoreKind) throws {
        let fixture = try PasskeyFixture(kind)
        let known = TestAuthenticator(), stranger = TestAuthenticator()
        try fixture.enroll(fixture.user(), known)
        stranger.userHandle = known.userHandle
        /// A response of `key` whose signature is wrong.
        func forged(_ key: TestAuthenticator) throws -> String {
            var fields = jsonObject(try fixture.answer(key))
            var response = fields["response"] as! [String: Any]
            response["signature"] = base64url(Array(repeating: 3, count: 64))
            fields["response"] = response
            return jsonText(fields)
        }
        let answers = [try forged(known), try forged(stranger), try fixture.answer(stranger)].map { json in
            fixture.refusal { try fixture.context.signInWithPasskey(credentialJSON: json) }
        }
        #expect(answers.allSatisfy { $0?.code == .invalidVerificationCode && $0?.message == Self.notAccepted })
        // The options are the same whoever asks: nothing to tell apart there.
        let options = jsonObject(try fixture.context.passkeySignInOptions())
        #expect(Set(options.keys) == ["challenge", "rpId", "allowCredentials", "userVerification", "timeout"])

        // Similar time: known and unknown credential ids, interleaved (the noise is shared), medians.
        var knownTimes: [Double] = [], unknownTimes: [Double] = []
        for round in 0..<24 {
            fixture.clock.advance(3601) // the known user's backoff from the last rounds is over
            let pair = [(try forged(known), true), (try forged(stranger), false)]
            for (json, isKnown) in round % 2 == 0 ? pair : pair.reversed() {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = fixture.refusal { try fixture.context.signInWithPasskey(credentialJSON: json) }
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
                if isKnown { knownTimes.append(elapsed) } else { unknownTimes.append(elapsed) }
            }
        }
        let median = { (values: [Double]) -> Double in values.sorted()[values.count / 2] }
        let ratio = median(knownTimes) / median(unknownTimes)
        #expect(ratio > 0.4 && ratio < 2.5, "known/unknown median time ratio \(ratio)")
    }

    @Test("a user without passkeys gets the normal path; a passkey is a second factor there too",
          arguments: StoreKind.available)
    func normalPath(_ kind: StoreKind) throws {
        let fixture = try PasskeyFixture(kind)
        guard case .signedIn = try fixture.context.signIn(fixture.user("nobody")) else {
            Issue.record("a user without factors is signed in by the first factor")
            return
        }
        let key = TestAuthenticator()
        try fixture.enroll(fixture.user(), key)
        guard case .secondFactorRequired(let resolver) = try fixture.context.signIn(fixture.user()) else {
            Issue.record("a user with a passkey who signs in with a password gets a resolver")
            return
        }
        #expect(resolver.hints.map(\.hint) == ["device-bound passkey"])
        let result = try resolver.resolveSignIn(with: WebAuthnMultiFactorGenerator.assertionForSignIn(
            credentialJSON: key.assert(try WebAuthnMultiFactorGenerator.authenticationOptions(for: resolver))))
        #expect(!result.claims.contains { $0.name == "sign_in_method" })
    }

    @Test("passkey sign-in is allowed per project and tenant: OPERATION_NOT_ALLOWED where it is not")
    func configuration() throws {
        let fixture = try PasskeyFixture(config: """
            {"state":"ENABLED","providers":{"webauthn":"ENABLED"},"webauthn":{"rpId":"example.com"}}
            """)
        #expect(errorCode { try fixture.context.passkeySignInOptions() } == .operationNotAllowed)
        try fixture.context.setConfig(json: #"{"webauthn":{"rpId":"example.com","passkeySignIn":true}}"#, tenant: "t1")
        let key = TestAuthenticator()
        try fixture.enroll(fixture.user(tenant: "t1"), key)
        try fixture.signIn(key, tenant: "t1")
        let answer = try fixture.answer(key, tenant: "t1")
        try fixture.context.setConfig(json: #"{"webauthn":{"rpId":"example.com","passkeySignIn":false}}"#, tenant: "t1")
        #expect(errorCode { try fixture.context.signInWithPasskey(credentialJSON: answer, tenant: "t1") }
            == .operationNotAllowed)
        #expect(errorCode { try fixture.context.setConfig(json: #"{"webauthn":{"passkeySignIn":"yes"}}"#) }
            == .invalidArgument)
    }
}
