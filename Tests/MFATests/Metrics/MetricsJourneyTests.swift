import Foundation
import MFA
import Testing

/// The metrics a context keeps, counted through the public flows.
@Suite("Metrics: what the flows count")
struct MetricsJourneyTests {
    /// A sign-in's counter.
    private static func signIns(_ snapshot: MetricsSnapshot, _ kind: String, _ outcome: String) -> UInt64? {
        snapshot.value("libmfa_sign_ins_total", ["kind": kind, "outcome": outcome])
    }

    @Test("a TOTP journey: enrollments, successes, wrong codes, a replay, backoff, expiry, revocation",
          arguments: StoreKind.available)
    func totpJourney(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        let context = fixture.context
        let user = fixture.user()
        // An enrollment with a wrong code, then one that works.
        let multiFactor = context.multiFactor(for: user)
        let secret = try TOTPMultiFactorGenerator.generateSecret(with: multiFactor.session())
        let wrongEnrollment = try fixture.code(secret) == "000000" ? "000001" : "000000"
        #expect(errorCode {
            try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
                with: secret, oneTimePassword: wrongEnrollment), displayName: nil)
        } == .invalidVerificationCode)
        let (info, secret2) = try fixture.enrollTOTP(user)
        fixture.clock.advance(30)
        func attempt(_ code: String) -> MFAErrorCode? {
            errorCode {
                try fixture.resolver(user).resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                    withEnrollmentID: info.uid, oneTimePassword: code))
            }
        }
        let right = try fixture.code(secret2)
        let wrong = right == "000000" ? "000001" : "000000"
        #expect(attempt(right) == nil)
        #expect(attempt(right) == .invalidVerificationCode, "the same code again: a replay")
        for _ in 0..<5 { #expect(attempt(wrong) == .invalidVerificationCode) }
        // Six failures (the replay and five wrong codes) start a backoff; the next attempt meets it.
        #expect(attempt(wrong) == .tooManyAttemptsTryLater)
        fixture.clock.advance(3_700)
        let late = try fixture.resolver(user)
        fixture.clock.advance(301)
        #expect(errorCode {
            try late.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: info.uid, oneTimePassword: try fixture.code(secret2)))
        } == .invalidSession)
        let revoked = try fixture.resolver(user)
        try context.revokeTokens(uid: user.uid)
        #expect(errorCode {
            try revoked.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: info.uid, oneTimePassword: try fixture.code(secret2)))
        } == .userTokenExpired)
        fixture.clock.advance(30)
        #expect(attempt(try fixture.code(secret2)) == nil)
        try context.multiFactor(for: fixture.user()).unenroll(withFactorUID: info.uid)

        let snapshot = context.metrics.snapshot()
        #expect(Self.signIns(snapshot, "totp", "success") == 2)
        #expect(Self.signIns(snapshot, "totp", "replay") == 1)
        #expect(Self.signIns(snapshot, "totp", "wrong_code") == 5)
        #expect(Self.signIns(snapshot, "totp", "backoff") == 1)
        #expect(Self.signIns(snapshot, "totp", "expired") == 1)
        #expect(Self.signIns(snapshot, "totp", "revoked") == 1)
        #expect(Self.signIns(snapshot, "phone", "success") == 0, "every kind's series is there, zeros included")
        #expect(snapshot.value("libmfa_backoff_entries_total", ["kind": "totp"]) == 1)
        #expect(snapshot.value("libmfa_sign_in_duration_seconds", ["kind": "totp"]) == 11,
                "every attempt observed, whatever its outcome")
        #expect(snapshot.value("libmfa_sign_in_starts_total", ["outcome": "second_factor_required"]) == 11)
        #expect(snapshot.value("libmfa_enrollments_total", ["kind": "totp", "outcome": "success"]) == 1)
        #expect(snapshot.value("libmfa_enrollments_total", ["kind": "totp", "outcome": "wrong_code"]) == 1)
        #expect(snapshot.value("libmfa_unenrollments_total", ["kind": "totp", "source": "user"]) == 1)
        let transactions = snapshot.value("libmfa_store_operation_duration_seconds", ["operation": "transaction"])
        #expect((transactions ?? 0) > 0)
        for operation in ["transaction", "read", "write"] {
            #expect(snapshot.value("libmfa_store_errors_total", ["operation": operation]) == 0,
                    "opening a new store (whose first schema read fails by design) is not a store error")
        }
        let histogram = try #require(snapshot.family("libmfa_sign_in_duration_seconds")?.samples.first {
            $0.labelDictionary == ["kind": "totp"]
        })
        #expect(histogram.buckets.last?.upperBound == .infinity && histogram.buckets.last?.count == 11)
        #expect(zip(histogram.buckets, histogram.buckets.dropFirst()).allSatisfy { $0.count <= $1.count })
        #expect(histogram.sum > 0)
    }

    @Test("SMS: sends by purpose and outcome, a test number, a failing gateway, a refused app check")
    func smsSends() throws {
        let fixture = try PhoneFixture(.sqlite)
        let user = fixture.user()
        _ = try fixture.enrollPhone(user, "+15105550101")
        _ = try fixture.enrollPhone(user, "+15555550100")  // the test number
        let multiFactor = fixture.context.multiFactor(for: user)
        #expect(errorCode {
            try fixture.provider.verifyPhoneNumber("+15105550102", appCredential: "bad",
                                                   multiFactorSession: multiFactor.session())
        } == .invalidAppCredential)
        fixture.sender.failing = true
        #expect(errorCode {
            try fixture.provider.verifyPhoneNumber("+15105550103", appCredential: "good",
                                                   multiFactorSession: multiFactor.session())
        } == .smsSendFailed)
        fixture.sender.failing = false
        let resolver = try fixture.resolver(user)
        let hint = try #require(resolver.hints.first { $0.phoneNumber?.hasSuffix("0101") == true })
        let id = try fixture.provider.verifyPhoneNumber(with: hint, appCredential: "good", resolver: resolver)
        #expect(errorCode {
            try fixture.provider.verifyPhoneNumber(with: hint, appCredential: "good", resolver: resolver)
        } == .tooManyAttemptsTryLater, "the resend cooldown")
        let code = try #require(fixture.sender.lastCode(to: "+15105550101"))
        _ = try resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(
            with: fixture.provider.credential(withVerificationID: id, verificationCode: code)))

        let snapshot = fixture.context.metrics.snapshot()
        func sends(_ purpose: String, _ outcome: String) -> UInt64? {
            snapshot.value("libmfa_code_sends_total", ["channel": "sms", "purpose": purpose, "outcome": outcome])
        }
        #expect(sends("enrollment", "sent") == 1)
        #expect(sends("enrollment", "test_number") == 1)
        #expect(sends("enrollment", "app_check_failed") == 1)
        #expect(sends("enrollment", "send_failed") == 1)
        #expect(sends("sign_in", "sent") == 1)
        #expect(sends("sign_in", "throttled") == 1)
        #expect(snapshot.value("libmfa_enrollments_total", ["kind": "phone", "outcome": "success"]) == 2)
        #expect(Self.signIns(snapshot, "phone", "success") == 1)
    }

    @Test("tenant labels on request: bounded, the rest under (other), bad ids never a series")
    func tenantLabels() throws {
        var options = MFAOptions(store: ":memory:", keyring: try MasterKeyring(
            current: MasterKey(id: "k1", bytes: EngineFixture.keyBytes)))
        options.metrics = .byTenant(limit: 2)
        let context = try MFAContext(options: options)
        try context.setConfig(json: #"{"state":"ENABLED","providers":{"totp":"ENABLED"}}"#)
        func signIn(_ tenant: String?, times: Int = 1) {
            for _ in 0..<times {
                _ = errorCode { try context.signIn(MFAUser(uid: "u", tenant: tenant, authTime: 1_800_000_000)) }
            }
        }
        signIn(nil, times: 2)
        signIn("acme", times: 3)
        signIn("globex \"quoted\" \\ back", times: 1)
        signIn("initech", times: 4)  // the third tenant: past the limit
        signIn("bad\ntenant", times: 5)  // refused as input, counted, never a series of its own
        signIn("acme")
        let snapshot = context.metrics.snapshot()
        func started(_ tenant: String, _ outcome: String = "signed_in") -> UInt64? {
            snapshot.value("libmfa_sign_in_starts_total", ["outcome": outcome, "tenant": tenant])
        }
        #expect(started("") == 2)
        #expect(started("acme") == 4)
        #expect(started("globex \"quoted\" \\ back") == 1)
        #expect(started("initech") == nil)
        #expect(started("(other)") == 4)
        #expect(started("(other)", "invalid_argument") == 5)
        let tenants = Set(snapshot.families.flatMap { $0.samples.compactMap { $0.labelDictionary["tenant"] } })
        #expect(tenants == ["", "acme", "globex \"quoted\" \\ back", "(other)"])
        #expect(snapshot.family("libmfa_store_retries_total")?.samples.allSatisfy {
            $0.labelDictionary["tenant"] == nil
        } == true, "the store's metrics never carry the tenant")
        var bad = options
        bad.metrics = .byTenant(limit: MetricsOptions.maxTenantLimit + 1)
        #expect(errorCode { try MFAContext(options: bad) } == .invalidArgument)
        bad.metrics = MetricsOptions(enabled: true, tenantLimit: -1)
        #expect(errorCode { try MFAContext(options: bad) } == .invalidArgument)
    }

    @Test("off: nothing counted, an empty snapshot and text")
    func off() throws {
        var options = MFAOptions(store: ":memory:", keyring: try MasterKeyring(
            current: MasterKey(id: "k1", bytes: EngineFixture.keyBytes)))
        options.metrics = .off
        let context = try MFAContext(options: options)
        _ = errorCode { try context.signIn(MFAUser(uid: "u", authTime: 1_800_000_000)) }
        #expect(!context.metrics.isEnabled)
        #expect(context.metrics.snapshot().families.isEmpty)
        #expect(context.metrics.prometheusText().isEmpty)
    }

    @Test("administrative removals count as the operator's")
    func operatorRemovals() throws {
        let fixture = try EngineFixture(.sqlite)
        let (first, _) = try fixture.enrollTOTP(fixture.user("a"))
        _ = try fixture.enrollTOTP(fixture.user("b"))
        _ = try fixture.enrollTOTP(fixture.user("c"))
        try fixture.context.unenrollFactor(enrollmentID: first.uid, actor: "ops")
        try fixture.context.resetUser(uid: "b", actor: "ops")
        try fixture.context.deleteUser(uid: "c", actor: "ops")
        #expect(fixture.context.metrics.snapshot().value(
            "libmfa_unenrollments_total", ["kind": "totp", "source": "operator"]) == 3)
    }
}
