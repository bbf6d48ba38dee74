import Foundation
import MFA
import Testing

@Suite("WebAuthn ceremonies")
struct WebAuthnCeremonyTests {
    @Test("registration options: challenge, rp, user, ES256/EdDSA/RS256, exclusions and policies from the configuration")
    func registrationOptions() throws {
        let fixture = try WebAuthnFixture(config: """
            {"state":"ENABLED","providers":{"webauthn":"ENABLED"},"webauthn":{"rpId":"example.com","rpName":"ACME",
             "userVerification":"required","residentKey":"preferred","attestation":"direct","timeout":60000}}
            """, trust: RecordingTrust(accept: true))
        let user = fixture.user()
        let first = jsonObject(try fixture.registrationOptions(user))
        #expect((first["rp"] as? [String: Any])?["id"] as? String == "example.com")
        #expect((first["rp"] as? [String: Any])?["name"] as? String == "ACME")
        #expect((first["user"] as? [String: Any])?["name"] as? String == "alice@example.com")
        #expect(unbase64url((first["user"] as? [String: Any])?["id"] as? String ?? "").count == 32)
        #expect((first["pubKeyCredParams"] as? [[String: Any]])?.compactMap { $0["alg"] as? Int }
            == [-7, -8, -257, -35, -36, -37])
        #expect((first["extensions"] as? [String: Any])?["credProps"] as? Bool == true)
        #expect(first["timeout"] as? Int == 60000 && first["attestation"] as? String == "direct")
        let selection = first["authenticatorSelection"] as? [String: Any]
        #expect(selection?["userVerification"] as? String == "required")
        #expect(selection?["residentKey"] as? String == "preferred" && selection?["requireResidentKey"] as? Bool == false)
        #expect((first["excludeCredentials"] as? [Any])?.isEmpty == true)
        #expect(unbase64url(first["challenge"] as? String ?? "").count > 32)
        let key = TestAuthenticator()
        try fixture.enroll(user, key)
        let second = jsonObject(try fixture.registrationOptions(user))
        let excluded = second["excludeCredentials"] as? [[String: Any]]
        #expect(excluded?.map { $0["id"] as? String } == [base64url(key.credentialID)])
        #expect(excluded?.first?["transports"] as? [String] == ["usb"])
        #expect((second["user"] as? [String: Any])?["id"] as? String == key.userHandle.map(base64url),
                "the user handle stays the same")
    }

    @Test("sign in: options allow the user's credentials; the result says whether the user was verified")
    func signIn() throws {
        let fixture = try WebAuthnFixture()
        let user = fixture.user()
        let key = TestAuthenticator(), other = TestAuthenticator()
        let info = try fixture.enroll(user, key)
        fixture.clock.advance(1) // listed oldest first
        let second = try fixture.enroll(user, other)
        #expect(info.hint == "security key" && info.factorID == WebAuthnMultiFactorID)
        let resolver = try fixture.resolver(user)
        let options = jsonObject(try WebAuthnMultiFactorGenerator.authenticationOptions(for: resolver))
        #expect(options["rpId"] as? String == "example.com")
        #expect((options["allowCredentials"] as? [[String: Any]])?.map { $0["id"] as? String }
            == [base64url(key.credentialID), base64url(other.credentialID)])
        let only = jsonObject(try WebAuthnMultiFactorGenerator.authenticationOptions(for: resolver,
                                                                                      enrollmentID: second.uid))
        #expect((only["allowCredentials"] as? [Any])?.count == 1)
        let json = other.assert(try WebAuthnMultiFactorGenerator.authenticationOptions(for: resolver))
        let result = try resolver.resolveSignIn(with: WebAuthnMultiFactorGenerator.assertionForSignIn(credentialJSON: json))
        #expect(result.enrollmentID == second.uid && result.factorID == "webauthn")
        #expect(result.factorClaims == [SignInResult.Claim(name: "webauthn_user_verified", value: "true"),
                                        SignInResult.Claim(name: "webauthn_key", value: "device-bound key"),
                                        SignInResult.Claim(name: "webauthn_backed_up", value: "false")])
        #expect(errorCode { try WebAuthnMultiFactorGenerator.authenticationOptions(for: fixture.resolver(user),
                                                                                   enrollmentID: "no-such-factor-id") }
            == .mfaEnrollmentNotFound)
    }

    @Test("a passkey (backup eligible) is hinted as a passkey")
    func passkeyHint() throws {
        let fixture = try WebAuthnFixture()
        let key = TestAuthenticator()
        key.backupEligible = true
        let info = try fixture.enroll(fixture.user(), key)
        #expect(info.hint == "passkey")
        #expect(try fixture.resolver(fixture.user()).hints.first?.hint == "passkey")
        try fixture.signIn(fixture.user(), key)
    }

    @Test("origin mismatch: ORIGIN_MISMATCH at registration and sign-in, audited, not counted toward backoff")
    func originMismatch() throws {
        let fixture = try WebAuthnFixture()
        let user = fixture.user()
        let key = TestAuthenticator()
        key.origin = "https://evil.example.net"
        #expect(errorCode { try fixture.enroll(user, key) } == .originMismatch)
        key.origin = "https://example.com"
        try fixture.enroll(user, key)
        key.origin = "https://example.com.evil.net"
        for _ in 0..<8 { #expect(errorCode { try fixture.signIn(user, key) } == .originMismatch) }
        #expect(fixture.log.all.last?.kind == .signInFailure && fixture.log.all.last?.detail == "ORIGIN_MISMATCH")
        key.origin = "https://example.com"
        try fixture.signIn(user, key)
    }

    @Test("rp id mismatch: RP_ID_MISMATCH at registration and sign-in")
    func rpIDMismatch() throws {
        let fixture = try WebAuthnFixture()
        let user = fixture.user()
        let key = TestAuthenticator()
        key.rpIDOverride = "example.org"
        #expect(errorCode { try fixture.enroll(user, key) } == .rpIDMismatch)
        key.rpIDOverride = nil
        try fixture.enroll(user, key)
        key.rpIDOverride = "login.example.com"
        #expect(errorCode { try fixture.signIn(user, key) } == .rpIDMismatch)
    }

    @Test("mismatches go uncounted 4 times per user, then count toward backoff: endless ones meet TOO_MANY_ATTEMPTS")
    func uncountedRefusalsAreBounded() throws {
        let fixture = try WebAuthnFixture()
        let user = fixture.user()
        let key = TestAuthenticator()
        try fixture.enroll(user, key)
        key.rpIDOverride = "login.example.com"
        for _ in 0..<UncountedRefusals.free {
            #expect(errorCode { try fixture.signIn(fixture.user(), key) } == .rpIDMismatch)
        }
        #expect(!fixture.log.all.contains { $0.kind == .backoff }, "the first ones are not counted")
        var answers: [MFAErrorCode?] = []
        for _ in 0..<12 { answers.append(errorCode { try fixture.signIn(fixture.user(), key) }) }
        #expect(answers.prefix(5).allSatisfy { $0 == .rpIDMismatch }, "counted, still named: \(answers)")
        #expect(answers.last == .tooManyAttemptsTryLater, "\(answers)")
        #expect(fixture.log.all.contains { $0.kind == .backoff && $0.uid == "alice" })
        // The backoff ends by itself, and the key works again.
        fixture.clock.advance(3600)
        key.rpIDOverride = nil
        try fixture.signIn(fixture.user(), key)
    }

    @Test("a wrong challenge: made up, another user's or another tenant's, expired, or already used")
    func wrongChallenge() throws {
        let fixture = try WebAuthnFixture()
        let alice = fixture.user(), bob = fixture.user("bob"), tenantAlice = fixture.user(tenant: "t1")
        let key = TestAuthenticator()
        let enroll = { (user: MFAUser, json: String) throws -> MultiFactorInfo in
            try fixture.context.multiFactor(for: user).enroll(
                with: WebAuthnMultiFactorGenerator.assertionForEnrollment(credentialJSON: json), displayName: nil)
        }
        var made = jsonObject(try fixture.registrationOptions(alice))
        made["challenge"] = base64url(Array(repeating: 7, count: 32))
        #expect(errorCode { try enroll(alice, key.register(jsonText(made))) } == .invalidSession)
        #expect(errorCode { try enroll(alice, key.register(try fixture.registrationOptions(bob))) } == .invalidSession)
        #expect(errorCode { try enroll(alice, key.register(try fixture.registrationOptions(tenantAlice))) }
            == .tenantMismatch)
        let late = key.register(try fixture.registrationOptions(alice))
        fixture.clock.advance(301)
        #expect(errorCode { try enroll(alice, late) } == .invalidSession, "expired")
        let options = try fixture.registrationOptions(fixture.user())
        _ = try enroll(fixture.user(), key.register(options))
        let again = TestAuthenticator()
        #expect(errorCode { try enroll(fixture.user(), again.register(options)) } == .invalidSession, "the session was used")

        // Sign-in: the challenge must be this pending credential's.
        let current = fixture.user()
        let bobKey = TestAuthenticator()
        try fixture.enroll(fixture.user("bob"), bobKey)
        let tenantKey = TestAuthenticator()
        try fixture.enroll(fixture.user(tenant: "t1"), tenantKey)
        let resolver = try fixture.resolver(current)
        let otherSignIn = try fixture.resolver(current)
        let resolve = { (json: String) throws in
            try resolver.resolveSignIn(with: WebAuthnMultiFactorGenerator.assertionForSignIn(credentialJSON: json))
        }
        #expect(errorCode { try resolve(key.assert(WebAuthnMultiFactorGenerator.authenticationOptions(for: otherSignIn))) }
            == .invalidSession, "another sign-in's challenge")
        #expect(errorCode { try resolve(key.assert(WebAuthnMultiFactorGenerator.authenticationOptions(
            for: fixture.resolver(fixture.user("bob"))))) } == .invalidSession, "another user's challenge")
        #expect(errorCode { try resolve(key.assert(WebAuthnMultiFactorGenerator.authenticationOptions(
            for: fixture.resolver(fixture.user(tenant: "t1"))))) } == .tenantMismatch, "another tenant's challenge")
        let stale = key.assert(try WebAuthnMultiFactorGenerator.authenticationOptions(for: resolver))
        fixture.clock.advance(301)
        #expect(errorCode { try resolve(stale) } == .invalidSession, "expired")
    }

    @Test("a replayed assertion is refused: on its own sign-in and on a later one")
    func replay() throws {
        let fixture = try WebAuthnFixture()
        let user = fixture.user()
        let key = TestAuthenticator()
        try fixture.enroll(user, key)
        let resolver = try fixture.resolver(user)
        let assertion = WebAuthnMultiFactorGenerator.assertionForSignIn(
            credentialJSON: key.assert(try WebAuthnMultiFactorGenerator.authenticationOptions(for: resolver)))
        _ = try resolver.resolveSignIn(with: assertion)
        #expect(errorCode { try resolver.resolveSignIn(with: assertion) } == .invalidSession)
        #expect(errorCode { try fixture.resolver(user).resolveSignIn(with: assertion) } == .invalidSession)
    }

    @Test("a cloned authenticator (its counter reset) is CREDENTIAL_CLONED and audited; counters that stay 0 work")
    func clonedCounter() throws {
        let fixture = try WebAuthnFixture()
        let user = fixture.user()
        let key = TestAuthenticator()
        try fixture.enroll(user, key)
        try fixture.signIn(user, key)
        try fixture.signIn(user, key)
        let clone = key.signCount
        key.signCount = 0 // a clone made before the last two uses
        #expect(errorCode { try fixture.signIn(user, key) } == .credentialCloned)
        #expect(fixture.log.all.last?.detail == "CREDENTIAL_CLONED")
        key.signCount = clone - 1
        #expect(errorCode { try fixture.signIn(user, key) } == .credentialCloned, "equal to the last count")
        key.signCount = clone + 5
        try fixture.signIn(user, key)

        let counterless = TestAuthenticator()
        counterless.counterStep = 0
        let bob = fixture.user("bob")
        try fixture.enroll(bob, counterless)
        try fixture.signIn(bob, counterless)
        try fixture.signIn(bob, counterless)
        counterless.counterStep = 1
        try fixture.signIn(bob, counterless)
        counterless.signCount = 0
        counterless.counterStep = 0
        #expect(errorCode { try fixture.signIn(bob, counterless) } == .credentialCloned, "back to 0 after counting")
    }

    @Test("user verification required: USER_VERIFICATION_REQUIRED without the UV flag")
    func userVerification() throws {
        let fixture = try WebAuthnFixture(config: """
            {"state":"ENABLED","providers":{"webauthn":"ENABLED"},"webauthn":{"rpId":"example.com","userVerification":"required"}}
            """)
        let user = fixture.user()
        let key = TestAuthenticator()
        key.userVerified = false
        #expect(errorCode { try fixture.enroll(user, key) } == .userVerificationRequired)
        key.userVerified = true
        try fixture.enroll(user, key)
        key.userVerified = false
        #expect(errorCode { try fixture.signIn(user, key) } == .userVerificationRequired)
        key.userVerified = true
        try fixture.signIn(user, key)
    }

    @Test("attestation: asked for without roots or callback is ATTESTATION_NOT_TRUSTED; the host's callback decides")
    func attestationPolicy() throws {
        let direct = """
            {"state":"ENABLED","providers":{"webauthn":"ENABLED"},"webauthn":{"rpId":"example.com","attestation":"direct"}}
            """
        let strict = try WebAuthnFixture(config: direct)
        let key = TestAuthenticator()
        key.format = "packed"
        #expect(errorCode { try strict.enroll(strict.user(), key) } == .attestationNotTrusted)
        let refusing = RecordingTrust(accept: false)
        let refused = try WebAuthnFixture(config: direct, trust: refusing)
        #expect(errorCode { try refused.enroll(refused.user(), key) } == .attestationNotTrusted)
        #expect(refusing.attestations.first?.format == "packed" && refusing.attestations.first?.kind == "self")
        #expect(refusing.attestations.first?.aaguid == key.aaguid && refusing.attestations.first?.uid == "alice")
        let accepting = RecordingTrust(accept: true)
        let accepted = try WebAuthnFixture(config: direct, trust: accepting)
        try accepted.enroll(accepted.user(), key)
        try accepted.signIn(accepted.user(), key)
    }

    @Test("packed self attestation is verified when attestation is judged: a wrong signature is INVALID_VERIFICATION_CODE")
    func packedSelfAttestation() throws {
        let fixture = try WebAuthnFixture(config: """
            {"state":"ENABLED","providers":{"webauthn":"ENABLED"},"webauthn":{"rpId":"example.com","attestation":"direct"}}
            """, trust: RecordingTrust(accept: true))
        let key = TestAuthenticator()
        key.format = "packed"
        let json = key.register(try fixture.registrationOptions(fixture.user()))
        var fields = TestAuthenticator.fields(json)
        var response = fields["response"] as! [String: Any]
        var object = unbase64url(response["attestationObject"] as! String)
        // The signature is the 64 bytes after "sig" and its byte-string head (0x58 0x40).
        let sig = Array("sig".utf8)
        let at = (0..<object.count - 3).first { Array(object[$0..<$0 + 3]) == sig }! + 5
        object[at] ^= 0x80
        response["attestationObject"] = base64url(object)
        fields["response"] = response
        #expect(errorCode { try fixture.context.multiFactor(for: fixture.user()).enroll(
            with: WebAuthnMultiFactorGenerator.assertionForEnrollment(credentialJSON: jsonText(fields)),
            displayName: nil) } == .invalidVerificationCode)
        _ = try fixture.context.multiFactor(for: fixture.user()).enroll(
            with: WebAuthnMultiFactorGenerator.assertionForEnrollment(credentialJSON: json), displayName: nil)
    }

    @Test("a credential registered once cannot be registered again, by anyone: SECOND_FACTOR_EXISTS")
    func duplicateCredential() throws {
        let fixture = try WebAuthnFixture()
        let key = TestAuthenticator()
        try fixture.enroll(fixture.user(), key)
        #expect(errorCode { try fixture.enroll(fixture.user(), key) } == .secondFactorExists)
        #expect(errorCode { try fixture.enroll(fixture.user("bob"), key) } == .secondFactorExists)
    }

    @Test("without an rp id, or disabled: OPERATION_NOT_ALLOWED")
    func notConfigured() throws {
        let fixture = try WebAuthnFixture(config: #"{"state":"ENABLED","providers":{"webauthn":"ENABLED"}}"#)
        #expect(errorCode { try fixture.registrationOptions(fixture.user()) } == .operationNotAllowed)
        let disabled = try WebAuthnFixture(config: #"{"state":"ENABLED","providers":{"totp":"ENABLED"},"webauthn":{"rpId":"example.com"}}"#)
        #expect(errorCode { try disabled.registrationOptions(disabled.user()) } == .operationNotAllowed)
    }

    @Test("the signature counter is claimed once under racing sign-ins with the same count")
    func counterRace() throws {
        let fixture = try WebAuthnFixture()
        let user = fixture.user()
        let key = TestAuthenticator()
        try fixture.enroll(user, key)
        // Two sign-ins answered with the same counter value: only the first is accepted.
        let first = try fixture.resolver(user), second = try fixture.resolver(user)
        let a = key.assert(try WebAuthnMultiFactorGenerator.authenticationOptions(for: first))
        key.signCount -= 1
        let b = key.assert(try WebAuthnMultiFactorGenerator.authenticationOptions(for: second))
        _ = try first.resolveSignIn(with: WebAuthnMultiFactorGenerator.assertionForSignIn(credentialJSON: a))
        #expect(errorCode { try second.resolveSignIn(with: WebAuthnMultiFactorGenerator.assertionForSignIn(credentialJSON: b)) }
            == .credentialCloned)
    }
}
