import Foundation
import MFA
import Testing

/// A resolve in the context that signed in uses what the sign-in read
/// (`AttemptMemo`): one conditional write. Whatever another context (another
/// process or server) changed in between still decides.
@Suite("Sign-ins remembered for their resolves")
struct AttemptMemoTests {
    /// Two contexts on one store with one clock, and a TOTP factor of alice's.
    private struct Pair {
        let location: String
        let here: PhoneFixture
        let there: PhoneFixture
        let factor: String
        let totp: TOTP

        init(_ kind: StoreKind, config: String = FlowFixture.config) throws {
            location = try kind.freshLocation(file: true)
            let clock = TestClock()
            here = try PhoneFixture(store: location, config: config, clock: clock)
            there = try PhoneFixture(store: location, config: config, clock: clock)
            let multiFactor = here.context.multiFactor(for: here.user())
            let secret = try TOTPMultiFactorGenerator.generateSecret(with: multiFactor.session())
            totp = try TOTP(secret: secret.secret)
            factor = try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
                with: secret, oneTimePassword: try totp.code(at: clock.now())), displayName: "app").uid
        }

        /// The code `steps` steps after the enrollment's.
        func code(_ steps: Int64) throws -> MultiFactorAssertion {
            TOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: factor, oneTimePassword: try totp.code(at: here.clock.now() + 30 * steps))
        }

        func wrong() -> MultiFactorAssertion {
            var guess = 0
            while (try? totp.verify(String(format: "%06d", guess), at: here.clock.now(), window: 5)) != nil { guess += 1 }
            return TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: factor,
                                                               oneTimePassword: String(format: "%06d", guess))
        }

        /// Signs in here (remembered here), lets `meanwhile` act, then resolves here with `assertion`.
        func resolve(_ assertion: MultiFactorAssertion, after meanwhile: () throws -> Void) throws -> MFAErrorCode? {
            let resolver = try here.resolver(here.user())
            #expect(here.context.rememberedSignIns == 1)
            try meanwhile()
            let code = errorCode { _ = try resolver.resolveSignIn(with: assertion) }
            #expect(here.context.rememberedSignIns == 0, "used once, whatever the answer")
            return code
        }
    }

    @Test("a right code is accepted once; a replay, a wrong code and a used step are refused",
          arguments: StoreKind.available)
    func plain(_ kind: StoreKind) throws {
        let pair = try Pair(kind)
        let resolver = try pair.here.resolver(pair.here.user())
        _ = try resolver.resolveSignIn(with: try pair.code(1))
        #expect(errorCode { _ = try resolver.resolveSignIn(with: try pair.code(2)) } == .invalidSession, "replay")
        #expect(try pair.resolve(pair.wrong()) {} == .invalidVerificationCode)
        #expect(try pair.resolve(pair.code(1)) {} == .invalidVerificationCode, "the step was used")
        #expect(try pair.resolve(pair.code(2)) {} == nil)
        // Each answer was counted as if read afresh: the wrong code's failure is in the user's row.
        let failures = try RawStore.query(pair.location, "SELECT failures FROM mfa_users WHERE uid = 'alice'")
        #expect(failures.first?.first == .int(0), "the accepted code cleared it")
    }

    @Test("what another context changed in between decides: a used step, revoked tokens, a removed factor, a backoff",
          arguments: StoreKind.available)
    func changedElsewhere(_ kind: StoreKind) throws {
        let pair = try Pair(kind)
        let there = pair.there
        // The same code, used by a sign-in of the other context first.
        #expect(try pair.resolve(pair.code(1)) {
            _ = try there.resolver(there.user()).resolveSignIn(with: try pair.code(1))
        } == .invalidVerificationCode)
        // A failure counted there: the right code here still signs in.
        var counted: MFAErrorCode?
        #expect(try pair.resolve(pair.code(2)) {
            counted = errorCode { _ = try there.resolver(there.user()).resolveSignIn(with: pair.wrong()) }
        } == nil)
        #expect(counted == .invalidVerificationCode)
        // Tokens revoked there.
        #expect(try pair.resolve(pair.code(3)) { try there.context.revokeTokens(uid: "alice") } == .userTokenExpired)
        // A backoff started there.
        #expect(try pair.resolve(pair.code(4)) {
            for _ in 0..<10 { _ = errorCode { _ = try there.resolver(there.user()).resolveSignIn(with: pair.wrong()) } }
        } == .tooManyAttemptsTryLater)
        pair.here.clock.advance(24 * 3600)
        // The factor removed there.
        let removed = try pair.resolve(pair.code(1)) {
            try there.context.multiFactor(for: there.user()).unenroll(withFactorUID: pair.factor)
        }
        #expect(removed == .userTokenExpired || removed == .mfaEnrollmentNotFound)
        #expect(try RawStore.query(pair.location, "SELECT COUNT(*) FROM mfa_factors").first?.first == .int(0))
    }

    @Test("a failure counted against the factor in between goes the careful way, which clears both counts",
          arguments: StoreKind.available)
    func factorFailures(_ kind: StoreKind) throws {
        let pair = try Pair(kind)
        let there = pair.there
        for _ in 0..<2 {
            var counted: [SQLValue]?
            #expect(try pair.resolve(pair.code(1)) {
                _ = errorCode { _ = try there.resolver(there.user()).resolveSignIn(with: pair.wrong()) }
                counted = try RawStore.query(pair.location, "SELECT failures FROM mfa_factors").first
            } == nil)
            #expect(counted?.first == .int(1), "the failure was counted against the factor")
            #expect(try RawStore.query(pair.location, "SELECT failures FROM mfa_factors").first?.first == .int(0))
            #expect(try RawStore.query(pair.location, "SELECT failures FROM mfa_users").first?.first == .int(0))
            pair.here.clock.advance(60)
        }
        // Counted before the sign-in read it: the factor is not clear, and the careful way clears it.
        _ = errorCode { _ = try there.resolver(there.user()).resolveSignIn(with: pair.wrong()) }
        #expect(try pair.resolve(pair.code(1)) {} == nil)
        #expect(try RawStore.query(pair.location, "SELECT failures FROM mfa_factors").first?.first == .int(0))
    }

    @Test("a remembered credential is recognized by its exact text only; another context opens it itself",
          arguments: StoreKind.available)
    func credentialText(_ kind: StoreKind) throws {
        let pair = try Pair(kind)
        let here = pair.here.context
        let session = try pair.here.resolver(pair.here.user()).session
        let bytes = Array(session.utf8)
        for index in [5, bytes.count - 1] {
            var changed = bytes
            changed[index] = changed[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let text = String(decoding: changed, as: UTF8.self)
            #expect(errorCode {
                _ = try here.resolveSignIn(pendingCredential: text, tenant: nil, assertion: try pair.code(1))
            } == .invalidSession, "a text that differs at \(index)")
        }
        #expect(errorCode {
            _ = try here.resolveSignIn(pendingCredential: session, tenant: "other-tenant", assertion: try pair.code(1))
        } == .tenantMismatch)
        #expect(here.rememberedSignIns == 1, "refusals before the store leave the sign-in remembered")
        // Another context, which never saw the credential, opens it and signs in.
        _ = try pair.there.context.resolveSignIn(pendingCredential: session, tenant: nil, assertion: try pair.code(1))
        // Here the same credential is now used up, though remembered.
        #expect(errorCode {
            _ = try here.resolveSignIn(pendingCredential: session, tenant: nil, assertion: try pair.code(2))
        } == .invalidSession)
    }

    @Test("bounded, and emptied by a configuration change made here", arguments: StoreKind.available)
    func bounded(_ kind: StoreKind) throws {
        let pair = try Pair(kind)
        let context = pair.here.context
        for _ in 0..<(AttemptMemo.capacity + 100) { _ = try pair.here.resolver(pair.here.user()) }
        #expect(context.rememberedSignIns <= AttemptMemo.capacity && context.rememberedSignIns > 0)
        // When full, entries past their credentials' lifetime make room first.
        let old = context.rememberedSignIns
        pair.here.clock.advance(3600)
        while context.rememberedSignIns < AttemptMemo.capacity { _ = try pair.here.resolver(pair.here.user()) }
        let resolver = try pair.here.resolver(pair.here.user())
        #expect(context.rememberedSignIns == AttemptMemo.capacity - old + 1)
        try context.setConfig(json: FlowFixture.config)
        #expect(context.rememberedSignIns == 0)
        // Not remembered: the resolve reads, and signs in all the same.
        _ = try resolver.resolveSignIn(with: try pair.code(1))
    }
}
