import Foundation
import MFA
import Testing

/// Issue 8, items 11 to 15: flows that answered wrong.
@Suite("Hardening: flows that answered wrong")
struct FlowAnswerTests {
    @Test("item 11: other accounts' enrollment requests to a number never block its owner's sign-in SMS",
          arguments: StoreKind.available)
    func regressionSignInSMSNotSpentByOthers(_ kind: StoreKind) throws {
        let fixture = try PhoneFixture(kind)
        let victimNumber = "+15105550199"
        let victim = fixture.user("victim")
        let enrolled = try fixture.enrollPhone(victim, victimNumber)
        var refused = 0
        for attacker in ["mallory", "trudy", "eve"] {
            for _ in 0..<4 {
                fixture.clock.advance(31)
                let session = try fixture.context.multiFactor(for: fixture.user(attacker)).session()
                if errorCode({ try fixture.provider.verifyPhoneNumber(victimNumber, appCredential: "good",
                                                                       multiFactorSession: session) }) != nil {
                    refused += 1
                }
            }
        }
        #expect(refused > 0, "the anti-pumping cap per number holds for enrollments")
        fixture.clock.advance(31)
        let sent = fixture.sender.messages.count
        let resolver = try fixture.resolver(fixture.user("victim"))
        let id = try fixture.provider.verifyPhoneNumber(with: enrolled, appCredential: "good", resolver: resolver)
        #expect(fixture.sender.messages.count == sent + 1 && fixture.sender.messages.last?.number == victimNumber)
        let code = try #require(fixture.sender.lastCode(to: victimNumber))
        _ = try resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(
            with: fixture.provider.credential(withVerificationID: id, verificationCode: code)))
    }

    @Test("item 11: sign-in SMS have their own per-factor budget and cooldown", arguments: StoreKind.available)
    func signInBudgetPerFactor(_ kind: StoreKind) throws {
        let fixture = try PhoneFixture(kind, config: """
            {"state":"ENABLED","providers":{"phone":"ENABLED"},"limits":{"smsPerFactorHour":2,"smsPerFactorDay":3}}
            """)
        let info = try fixture.enrollPhone(fixture.user(), "+15105550142")
        let resolver = try fixture.resolver(fixture.user())
        func send() -> MFAErrorCode? {
            errorCode { try fixture.provider.verifyPhoneNumber(with: info, appCredential: "good", resolver: resolver) }
        }
        #expect(send() == nil)
        #expect(send() == .tooManyAttemptsTryLater, "cooldown")
        fixture.clock.advance(31)
        #expect(send() == nil)
        fixture.clock.advance(31)
        #expect(send() == .quotaExceeded, "two an hour")
    }

    @Test("item 12: under MANDATORY, a first factor that cannot carry MFA is UNSUPPORTED_FIRST_FACTOR at sign-in",
          arguments: StoreKind.available)
    func regressionMandatoryUnsupportedFirstFactor(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind, config: #"{"state":"MANDATORY","providers":{"totp":"ENABLED"}}"#)
        for provider in ["anonymous", "phone", "custom", "gc.apple.com"] {
            var user = fixture.user("u-" + provider)
            user.provider = provider
            #expect(errorCode { try fixture.context.signIn(user) } == .unsupportedFirstFactor)
            #expect(errorCode { try fixture.context.multiFactor(for: user).session() } == .unsupportedFirstFactor)
        }
        #expect(errorCode { try fixture.context.signIn(fixture.user()) } == .enrollmentRequired)
    }

    @Test("item 13: provider ids are compared without regard to case and surrounding space",
          arguments: StoreKind.available)
    func regressionProviderCase(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        let (_, _) = try fixture.enrollTOTP(fixture.user())
        let providers = ["Phone", "PHONE", "Anonymous", " anonymous ", "Custom", "GC.Apple.com", "\tphone\n"]
        for (index, provider) in providers.enumerated() {
            var user = fixture.user()
            user.provider = provider
            #expect(errorCode { try fixture.context.signIn(user) } == .unsupportedFirstFactor, "\(provider)")
            // (A uid holds no control character: the provider's tab and line break stay out of it.)
            var fresh = fixture.user("new-\(index)")
            fresh.provider = provider
            #expect(errorCode { try fixture.context.multiFactor(for: fresh).session() } == .unsupportedFirstFactor)
        }
        var google = fixture.user("g")
        google.provider = "Google.com"
        _ = try fixture.context.multiFactor(for: google).session()
    }

    @Test("item 14: an SMS sign-in code used after it expired is CODE_EXPIRED", arguments: StoreKind.available)
    func regressionExpiredSignInCode(_ kind: StoreKind) throws {
        let fixture = try PhoneFixture(kind)
        let info = try fixture.enrollPhone(fixture.user(), "+15105550143")
        fixture.clock.advance(31)
        let resolver = try fixture.resolver(fixture.user())
        let id = try fixture.provider.verifyPhoneNumber(with: info, appCredential: "good", resolver: resolver)
        let code = try #require(fixture.sender.lastCode(to: "+15105550143"))
        fixture.clock.advance(301)
        #expect(errorCode { try resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(
            with: fixture.provider.credential(withVerificationID: id, verificationCode: code))) } == .codeExpired)
    }

    @Test("item 15: configuration errors never repeat a phone number or a code")
    func regressionConfigErrorsEchoNothing() throws {
        let fixture = try EngineFixture()
        let cases = [
            #"{"testPhoneNumbers":{"+15555550123":"98765"}}"#,
            #"{"testPhoneNumbers":{"15555550123":"987654"}}"#,
            #"{"testPhoneNumbers":{"+15555550123":"98765x"}}"#,
            #"{"testPhoneNumbers":{"+15555550123":"987654","+15555550124":987654}}"#,
            #"{"+15555550123":"987654"}"#,
            #"{"limits":{"+15555550123":987654}}"#,
            #"{"mfa":{"factorIds":["+15555550123"],"providerConfigs":[{"987654":1}]}}"#,
        ]
        for json in cases {
            do {
                try fixture.context.setConfig(json: json)
                Issue.record("accepted \(json)")
            } catch {
                #expect(error.code == .invalidArgument)
                for secret in ["5555550123", "98765", "987654"] {
                    #expect(!error.message.contains(secret), "\(error.message)")
                }
            }
        }
    }
}
