import Foundation
import MFA
import Testing

@Suite("SMS second factor (SPEC flows 3 and 5)")
struct PhoneFlowTests {
    @Test("enroll a number by SMS, then sign in with it; hints mask the number", arguments: StoreKind.available)
    func enrollAndSignIn(_ kind: StoreKind) throws {
        let fixture = try PhoneFixture(kind)
        let user = fixture.user()
        let info = try fixture.enrollPhone(user, "+15105551234", name: "Mobile")
        #expect(info.factorID == "phone" && info.phoneNumber == "+15105551234" && info.displayName == "Mobile")
        #expect(fixture.sender.messages.count == 1)
        #expect(fixture.sender.messages[0].message.hasSuffix(" is your verification code."))
        fixture.clock.advance(31)
        let resolver = try fixture.resolver(user)
        #expect(resolver.hints.map(\.phoneNumber) == ["+1******1234"])
        let id = try fixture.provider.verifyPhoneNumber(with: resolver.hints[0], appCredential: "good", resolver: resolver)
        #expect(fixture.sender.messages.count == 2 && fixture.sender.messages[1].number == "+15105551234")
        let code = try #require(fixture.sender.lastCode(to: "+15105551234"))
        let result = try resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(
            with: fixture.provider.credential(withVerificationID: id, verificationCode: code)))
        #expect(result.factorID == "phone" && result.enrollmentID == info.uid)
        #expect(fixture.log.kinds().filter { $0 == .smsSent }.count == 2)
    }

    @Test("numbers must be strict E.164", arguments: StoreKind.available)
    func e164(_ kind: StoreKind) throws {
        let fixture = try PhoneFixture(kind)
        let session = try fixture.context.multiFactor(for: fixture.user()).session()
        for number in ["15105551234", "+1 510 555 1234", "+1-510-555-1234", "+0123456789", "+123456", "+1234567890123456",
                       "+1510555123a", "", "+"] {
            #expect(errorCode { try fixture.provider.verifyPhoneNumber(number, appCredential: "good",
                                                                       multiFactorSession: session) } == .invalidPhoneNumber)
        }
        #expect(PhoneNumber.isValid("+6831234") && PhoneNumber.isValid("+123456789012345"))
        #expect(PhoneNumber.masked("+6831234") == "+6**1234")
        #expect(fixture.sender.messages.isEmpty)
    }

    @Test("app verification: missing, rejected, no verifier, explicitly disabled", arguments: StoreKind.available)
    func appVerification(_ kind: StoreKind) throws {
        let fixture = try PhoneFixture(kind)
        let session = try fixture.context.multiFactor(for: fixture.user()).session()
        #expect(errorCode { try fixture.provider.verifyPhoneNumber("+15105551234", appCredential: nil,
                                                                   multiFactorSession: session) } == .missingAppCredential)
        #expect(errorCode { try fixture.provider.verifyPhoneNumber("+15105551234", appCredential: "",
                                                                   multiFactorSession: session) } == .missingAppCredential)
        #expect(errorCode { try fixture.provider.verifyPhoneNumber("+15105551234", appCredential: "bad",
                                                                   multiFactorSession: session) } == .invalidAppCredential)
        let unverified = try PhoneFixture(verifier: nil)
        let other = try unverified.context.multiFactor(for: unverified.user()).session()
        #expect(errorCode { try unverified.provider.verifyPhoneNumber("+15105551234", appCredential: "good",
                                                                      multiFactorSession: other) } == .operationNotAllowed)
        try unverified.context.setConfig(json: PhoneFixture.phoneConfig.replacingOccurrences(
            of: "\"state\"", with: "\"phone\":{\"appVerification\":\"DISABLED\"},\"state\""))
        _ = try unverified.provider.verifyPhoneNumber("+15105551234", appCredential: nil, multiFactorSession: other)
        #expect(unverified.sender.messages.count == 1)
        #expect(fixture.sender.messages.isEmpty)
    }

    @Test("a code works once, dies after 5 wrong tries, and expires", arguments: StoreKind.available)
    func codeRules(_ kind: StoreKind) throws {
        let fixture = try PhoneFixture(kind)
        let user = fixture.user()
        _ = try fixture.enrollPhone(user, "+15105551234")
        func start() throws -> (MultiFactorResolver, String, String) {
            fixture.clock.advance(31)
            let resolver = try fixture.resolver(user)
            let id = try fixture.provider.verifyPhoneNumber(with: resolver.hints[0], appCredential: "good",
                                                            resolver: resolver)
            return (resolver, id, try #require(fixture.sender.lastCode(to: "+15105551234")))
        }
        func resolve(_ resolver: MultiFactorResolver, _ id: String, _ code: String) throws -> SignInResult {
            try resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(
                with: fixture.provider.credential(withVerificationID: id, verificationCode: code)))
        }
        let (first, firstID, firstCode) = try start()
        _ = try resolve(first, firstID, firstCode)
        #expect(errorCode { try resolve(first, firstID, firstCode) } == .invalidSession)

        let (second, secondID, secondCode) = try start()
        let wrong = secondCode == "000000" ? "000001" : "000000"
        for _ in 0..<5 { #expect(errorCode { try resolve(second, secondID, wrong) } == .invalidVerificationCode) }
        #expect(errorCode { try resolve(second, secondID, secondCode) } == .invalidSession)

        let (third, thirdID, thirdCode) = try start()
        fixture.clock.advance(301)
        #expect(errorCode { try resolve(third, thirdID, thirdCode) } != nil)
    }

    @Test("10^4 guesses on one verification id never succeed", arguments: StoreKind.available)
    func guesses(_ kind: StoreKind) throws {
        let fixture = try PhoneFixture(kind)
        let user = fixture.user()
        _ = try fixture.enrollPhone(user, "+15105551234")
        fixture.clock.advance(31)
        let resolver = try fixture.resolver(user)
        let id = try fixture.provider.verifyPhoneNumber(with: resolver.hints[0], appCredential: "good", resolver: resolver)
        let real = try #require(fixture.sender.lastCode(to: "+15105551234"))
        var successes = 0
        for guess in 0..<10_000 {
            let code = String(repeating: "0", count: 6 - String(guess).count) + String(guess)
            guard code != real else { continue }
            if (try? resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(
                with: fixture.provider.credential(withVerificationID: id, verificationCode: code)))) != nil {
                successes += 1
            }
        }
        #expect(successes == 0)
        #expect(errorCode { try resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(
            with: fixture.provider.credential(withVerificationID: id, verificationCode: real))) } != nil)
    }

    @Test("the same number twice is SECOND_FACTOR_EXISTS; phone and TOTP both appear as hints", arguments: StoreKind.available)
    func existsAndMixed(_ kind: StoreKind) throws {
        let fixture = try PhoneFixture(kind)
        let user = fixture.user()
        _ = try fixture.enrollPhone(user, "+15105551234")
        fixture.clock.advance(31)
        #expect(errorCode { try fixture.enrollPhone(user, "+15105551234") } == .secondFactorExists)
        let multiFactor = fixture.context.multiFactor(for: user)
        let secret = try TOTPMultiFactorGenerator.generateSecret(with: multiFactor.session())
        let totpInfo = try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
            with: secret, oneTimePassword: TOTP(secret: secret.secret).code(at: fixture.clock.now())), displayName: nil)
        fixture.clock.advance(30)
        let resolver = try fixture.resolver(user)
        #expect(Set(resolver.hints.map(\.factorID)) == ["phone", "totp"])
        _ = try resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: totpInfo.uid, oneTimePassword: TOTP(secret: secret.secret).code(at: fixture.clock.now())))
    }

    @Test("a failing sender is SMS_SEND_FAILED and costs nothing", arguments: StoreKind.available)
    func senderFailure(_ kind: StoreKind) throws {
        let fixture = try PhoneFixture(kind, config: """
            {"state":"ENABLED","providers":{"phone":"ENABLED"},"limits":{"smsPerNumberHour":1,"smsResendCooldown":0}}
            """)
        let session = try fixture.context.multiFactor(for: fixture.user()).session()
        fixture.sender.failing = true
        for _ in 0..<3 {
            #expect(errorCode { try fixture.provider.verifyPhoneNumber("+15105551234", appCredential: "good",
                                                                       multiFactorSession: session) } == .smsSendFailed)
        }
        fixture.sender.failing = false
        _ = try fixture.provider.verifyPhoneNumber("+15105551234", appCredential: "good", multiFactorSession: session)
        #expect(errorCode { try fixture.provider.verifyPhoneNumber("+15105551234", appCredential: "good",
                                                                   multiFactorSession: session) } == .quotaExceeded)
    }

    @Test("cooldown and caps per number, per user and per tenant; test numbers bypass them and never send", arguments: StoreKind.available)
    func limits(_ kind: StoreKind) throws {
        let fixture = try PhoneFixture(kind, config: """
            {"state":"ENABLED","providers":{"phone":"ENABLED"},"testPhoneNumbers":{"+15555550100":"123456"},
             "limits":{"smsResendCooldown":60,"smsPerNumberHour":2,"smsPerUserHour":3,"smsPerTenantHour":5}}
            """)
        let alice = fixture.context.multiFactor(for: fixture.user())
        func send(_ number: String, _ multiFactor: MultiFactor) throws -> String {
            try fixture.provider.verifyPhoneNumber(number, appCredential: "good", multiFactorSession: multiFactor.session())
        }
        _ = try send("+15105550001", alice)
        #expect(errorCode { try send("+15105550001", alice) } == .tooManyAttemptsTryLater)
        fixture.clock.advance(61)
        _ = try send("+15105550001", alice)
        fixture.clock.advance(61)
        #expect(errorCode { try send("+15105550001", alice) } == .quotaExceeded)
        _ = try send("+15105550002", alice)
        #expect(errorCode { try send("+15105550003", alice) } == .quotaExceeded)
        for index in 0..<20 { _ = try send("+15555550100", alice); _ = index }
        let bob = fixture.context.multiFactor(for: fixture.user("bob"))
        _ = try send("+15105550004", bob)
        _ = try send("+15105550005", bob)
        #expect(errorCode { try send("+15105550006", fixture.context.multiFactor(for: fixture.user("carol"))) } == .quotaExceeded)
        #expect(fixture.sender.messages.count == 5)
        #expect(!fixture.sender.messages.contains { $0.number == "+15555550100" })
        fixture.clock.advance(3601)
        _ = try send("+15105550006", fixture.context.multiFactor(for: fixture.user("carol")))
        let later = fixture.context.multiFactor(for: fixture.user())
        let id = try send("+15555550100", later)
        _ = try later.enroll(with: PhoneMultiFactorGenerator.assertion(
            with: fixture.provider.credential(withVerificationID: id, verificationCode: "123456")), displayName: nil)
    }

    @Test("the store holds no SMS code and no phone number in the clear")
    func atRest() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mfa-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = try PhoneFixture(store: directory.appendingPathComponent("s.sqlite").path)
        let user = fixture.user()
        let multiFactor = fixture.context.multiFactor(for: user)
        _ = try fixture.provider.verifyPhoneNumber("+15105551234", appCredential: "good",
                                                   multiFactorSession: multiFactor.session())
        let code = try #require(fixture.sender.lastCode(to: "+15105551234"))
        fixture.context.close()
        var bytes = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            bytes.append(try Data(contentsOf: directory.appendingPathComponent(name)))
        }
        #expect(bytes.range(of: Data("5105551234".utf8)) == nil)
        #expect(bytes.range(of: Data(code.utf8)) == nil)
    }
}
