import Foundation
import MFA
import Testing

/// A context with email (and TOTP) enabled, a recording mailer.
private func emailFixture(_ kind: StoreKind, email: String = "{}") throws -> PhoneFixture {
    try PhoneFixture(kind, config: """
        {"state":"ENABLED","providers":{"totp":"ENABLED","email":"ENABLED"},"email":\(email)}
        """)
}

@Suite("Email codes as a second factor")
struct EmailFactorTests {
    @Test("addresses: what is accepted, normalised and masked")
    func addresses() throws {
        for good in ["jane@example.com", "J.Doe+tag@Mail.Example.CO.uk", "a@b.io", "x!#$%&'*+/=?^_`{|}~-@xn--bcher-kva.de",
                     String(repeating: "a", count: 64) + "@example.com"] {
            #expect(EmailAddress.isValid(good), "\(good)")
        }
        for bad in ["", "@example.com", "jane@", "jane", "jane@example", "jane@@example.com", "jane@exa mple.com",
                    "ja ne@example.com", ".jane@example.com", "jane.@example.com", "ja..ne@example.com",
                    "jane@-example.com", "jane@example-.com", "jane@example..com", "jane@example.123",
                    "jané@example.com", "jane@exämple.com", "\"jane\"@example.com", "jane@[127.0.0.1]",
                    "Jane <jane@example.com>", "jane@example.com\n", String(repeating: "a", count: 65) + "@example.com",
                    "a@" + String(repeating: "b", count: 64) + ".com",
                    String(repeating: "a", count: 60) + "@" + Array(repeating: String(repeating: "b", count: 60),
                                                                  count: 4).joined(separator: ".") + ".com"] {
            #expect(!EmailAddress.isValid(bad), "\(bad)")
            #expect(errorCode { try EmailAddress.check(bad) } == .invalidEmail)
        }
        #expect(EmailAddress.normalized("Jane.Doe@Example.COM") == "Jane.Doe@example.com")
        #expect(EmailAddress.masked("jane@example.com") == "j***@e******.com")
        #expect(EmailAddress.masked("j@mail.example.co.uk") == "*@m**************.uk")
    }

    @Test("enroll an address with a mailed code, then sign in with it; hints mask it", arguments: StoreKind.available)
    func enrollAndSignIn(_ kind: StoreKind) throws {
        let fixture = try emailFixture(kind)
        let user = fixture.user()
        let info = try fixture.enrollEmail(user, "Jane.Doe@Example.COM", name: "Work mail")
        #expect(info.factorID == "email" && info.email == "Jane.Doe@example.com" && info.hint == "Jane.Doe@example.com")
        #expect(fixture.mailer.messages.count == 1 && fixture.mailer.messages[0].purpose == .enrollment)
        #expect(fixture.mailer.messages[0].to == "Jane.Doe@example.com")
        #expect(fixture.mailer.messages[0].body.hasPrefix(fixture.mailer.messages[0].code))
        fixture.clock.advance(31)
        let resolver = try fixture.resolver(user)
        #expect(resolver.hints.map(\.hint) == ["J*******@e******.com"] && resolver.hints[0].email == "J*******@e******.com")
        let id = try fixture.emailProvider.sendVerificationCode(with: resolver.hints[0], resolver: resolver)
        #expect(fixture.mailer.messages.last?.purpose == .signIn)
        let code = try #require(fixture.mailer.lastCode(to: "Jane.Doe@example.com"))
        let result = try resolver.resolveSignIn(with: EmailMultiFactorGenerator.assertion(
            with: fixture.emailProvider.credential(withVerificationID: id, verificationCode: code)))
        #expect(result.factorID == "email" && result.enrollmentID == info.uid)
        #expect(fixture.log.kinds().filter { $0 == .emailSent }.count == 2)
        // No address in any audit event.
        #expect(!fixture.log.all.contains { "\($0)".lowercased().contains("jane.doe") })
        // The config says so, and the address in any case is the same address.
        let again = try fixture.context.multiFactor(for: user).session()
        #expect(errorCode { try fixture.emailProvider.sendVerificationCode(to: "JANE.DOE@example.com",
                                                                        multiFactorSession: again) }
            == .secondFactorExists)
    }

    @Test("bad addresses are INVALID_EMAIL, with nothing sent and no address in the message", arguments: StoreKind.available)
    func badAddresses(_ kind: StoreKind) throws {
        let fixture = try emailFixture(kind)
        let session = try fixture.context.multiFactor(for: fixture.user()).session()
        for address in ["not-an-address", "jane@example", "Jane <jane@example.com>"] {
            do {
                _ = try fixture.emailProvider.sendVerificationCode(to: address, multiFactorSession: session)
                Issue.record("accepted \(address)")
            } catch {
                #expect(error.code == .invalidEmail && !error.message.contains("jane") && !error.message.contains(address))
            }
        }
        #expect(fixture.mailer.messages.isEmpty)
    }

    @Test("disabled email: no enrollment, but an enrolled address still signs in", arguments: StoreKind.available)
    func disabled(_ kind: StoreKind) throws {
        let fixture = try emailFixture(kind)
        let user = fixture.user()
        let info = try fixture.enrollEmail(user, "jane@example.com")
        try fixture.context.updateConfig(json: #"{"providers":{"email":"DISABLED"}}"#)
        let session = try fixture.context.multiFactor(for: user).session()
        #expect(errorCode { try fixture.emailProvider.sendVerificationCode(to: "j2@example.com",
                                                                        multiFactorSession: session) }
            == .operationNotAllowed)
        fixture.clock.advance(31)
        let resolver = try fixture.resolver(user)
        _ = try fixture.emailProvider.sendVerificationCode(with: info, resolver: resolver)
    }

    @Test("a code works once, dies after its wrong tries, expires; resend cooldown", arguments: StoreKind.available)
    func codeRules(_ kind: StoreKind) throws {
        let fixture = try emailFixture(kind, email: #"{"maxAttempts":2,"codeLifetime":120}"#)
        let user = fixture.user()
        let address = "jane@example.com"
        let session = try fixture.context.multiFactor(for: user).session()
        let id = try fixture.emailProvider.sendVerificationCode(to: address, multiFactorSession: session)
        #expect(errorCode { try fixture.emailProvider.sendVerificationCode(to: address, multiFactorSession: session) }
            == .tooManyAttemptsTryLater, "resend cooldown")
        let code = try #require(fixture.mailer.lastCode(to: address))
        let wrong = code == "000000" ? "000001" : "000000"
        func enroll(_ id: String, _ code: String) throws -> MultiFactorInfo {
            try fixture.context.multiFactor(for: user).enroll(with: EmailMultiFactorGenerator.assertion(
                with: EmailAuthCredential(verificationID: id, verificationCode: code)), displayName: nil)
        }
        #expect(errorCode { try enroll(id, wrong) } == .invalidVerificationCode)
        #expect(errorCode { try enroll(id, wrong) } == .invalidVerificationCode)
        #expect(errorCode { try enroll(id, code) } == .invalidSession, "dead after its wrong tries")
        fixture.clock.advance(31)
        let second = try fixture.emailProvider.sendVerificationCode(to: address, multiFactorSession: session)
        let secondCode = try #require(fixture.mailer.lastCode(to: address))
        fixture.clock.advance(121)
        #expect(errorCode { try enroll(second, secondCode) } == .codeExpired)
        let fresh = try fixture.context.multiFactor(for: fixture.user()).session()
        let third = try fixture.emailProvider.sendVerificationCode(to: address, multiFactorSession: fresh)
        let info = try enroll(third, try #require(fixture.mailer.lastCode(to: address)))
        #expect(info.factorID == "email")
        #expect(errorCode { try enroll(third, try #require(fixture.mailer.lastCode(to: address))) } == .invalidSession)
    }

    @Test("caps per address across accounts; another account's requests never spend a user's sign-in codes",
          arguments: StoreKind.available)
    func caps(_ kind: StoreKind) throws {
        let fixture = try emailFixture(kind, email: #"{"perAddressHour":2,"perAddressDay":3}"#)
        let victim = fixture.user("victim")
        let info = try fixture.enrollEmail(victim, "victim@example.com")
        // Others ask for enrollment codes to the victim's address until its budget is spent.
        var spent = false
        for index in 0..<6 {
            fixture.clock.advance(31)
            let session = try fixture.context.multiFactor(for: fixture.user("attacker\(index)")).session()
            let code = errorCode { try fixture.emailProvider.sendVerificationCode(to: "Victim@EXAMPLE.com",
                                                                               multiFactorSession: session) }
            if code == .quotaExceeded { spent = true } else { #expect(code == nil) }
        }
        #expect(spent)
        // The victim still gets sign-in codes: a budget of the factor's own.
        fixture.clock.advance(31)
        let resolver = try fixture.resolver(victim)
        let id = try fixture.emailProvider.sendVerificationCode(with: info, resolver: resolver)
        let code = try #require(fixture.mailer.lastCode(to: "victim@example.com"))
        _ = try resolver.resolveSignIn(with: EmailMultiFactorGenerator.assertion(
            with: EmailAuthCredential(verificationID: id, verificationCode: code)))
    }

    @Test("a failing mailer is EMAIL_SEND_FAILED and costs nothing; no mailer likewise", arguments: StoreKind.available)
    func sendFailure(_ kind: StoreKind) throws {
        let fixture = try emailFixture(kind)
        let session = try fixture.context.multiFactor(for: fixture.user()).session()
        fixture.mailer.failing = true
        #expect(errorCode { try fixture.emailProvider.sendVerificationCode(to: "jane@example.com",
                                                                        multiFactorSession: session) }
            == .emailSendFailed)
        #expect(fixture.log.all.last?.kind == .emailSent && fixture.log.all.last?.detail == "EMAIL_SEND_FAILED")
        fixture.mailer.failing = false
        _ = try fixture.emailProvider.sendVerificationCode(to: "jane@example.com", multiFactorSession: session)
        #expect(fixture.mailer.messages.count == 1, "the failed send started no cooldown")
        var options = MFAOptions(store: try kind.freshLocation(), keyring: try MasterKeyring(
            current: MasterKey(id: "k1", bytes: EngineFixture.keyBytes)))
        options.clock = fixture.clock
        let bare = try MFAContext(options: options)
        try bare.setConfig(json: #"{"state":"ENABLED","providers":{"email":"ENABLED"}}"#)
        let user = fixture.user()
        #expect(errorCode { try EmailAuthProvider(context: bare).sendVerificationCode(
            to: "jane@example.com", multiFactorSession: bare.multiFactor(for: user).session()) } == .emailSendFailed)
    }

    @Test("the verified sign-in address: off by default, then enrolled without a code", arguments: StoreKind.available)
    func verifiedSignInEmail(_ kind: StoreKind) throws {
        let fixture = try emailFixture(kind)
        let user = fixture.user()
        let multiFactor = fixture.context.multiFactor(for: user)
        #expect(errorCode { try multiFactor.enroll(with: EmailMultiFactorGenerator.assertionForVerifiedSignInEmail(
            session: multiFactor.session()), displayName: nil) } == .operationNotAllowed)
        try fixture.context.updateConfig(json: #"{"email":{"enrollVerifiedSignInEmail":true}}"#)
        #expect(try fixture.context.config().emailSettings.enrollVerifiedSignInEmail)
        var unverified = user
        unverified.emailVerified = false
        #expect(errorCode { try fixture.context.multiFactor(for: unverified).enroll(
            with: EmailMultiFactorGenerator.assertionForVerifiedSignInEmail(sessionToken: multiFactor.session().token),
            displayName: nil) } == .unverifiedEmail)
        let session = try multiFactor.session()
        let info = try multiFactor.enroll(with: EmailMultiFactorGenerator.assertionForVerifiedSignInEmail(
            session: session), displayName: "Sign-in address")
        #expect(info.email == "alice@example.com" && fixture.mailer.messages.isEmpty)
        #expect(fixture.log.all.last { $0.kind == .enroll }?.detail == "VERIFIED_SIGN_IN_EMAIL")
        #expect(errorCode { try multiFactor.enroll(with: EmailMultiFactorGenerator.assertionForVerifiedSignInEmail(
            session: session), displayName: nil) } != nil, "the session was used")
        #expect(errorCode { try multiFactor.enroll(with: EmailMultiFactorGenerator.assertionForVerifiedSignInEmail(
            session: multiFactor.session()), displayName: nil) } == .secondFactorExists)
    }

    @Test("configuration: every field in range, unknown fields and bad types refused")
    func configuration() throws {
        let fixture = try PhoneFixture()
        let json = try fixture.context.configJSON()
        #expect(json.contains(#""email":{"codeLifetime":600"#) && json.contains(#""enrollVerifiedSignInEmail":false"#))
        for bad in [#"{"email":{"codeLifetime":5}}"#, #"{"email":{"maxAttempts":0}}"#, #"{"email":{"colour":1}}"#,
                    #"{"email":{"enrollVerifiedSignInEmail":"yes"}}"#, #"{"email":[]}"#] {
            #expect(errorCode { try fixture.context.setConfig(json: bad) } == .invalidArgument, "\(bad)")
        }
        try fixture.context.setConfig(json: #"{"email":{"state":"ENABLED","perFactorDay":3}}"#)
        #expect(try fixture.context.config().email == .enabled && fixture.context.config().emailSettings.perFactorDay == 3)
    }
}

@Suite("Email addresses in CSV imports")
struct EmailImportTests {
    @Test("an email column imports addresses as email factors, alone or beside a secret; a re-run finds them",
          arguments: StoreKind.available)
    func csvEmailColumn(_ kind: StoreKind) throws {
        let fixture = try emailFixture(kind)
        let csv = """
            uid,secret,issuer,email
            alice,,Work mail,alice@Example.com
            bob,JBSWY3DPEHPK3PXP,Bob's app,Bob@EXAMPLE.com
            carol,,,not-an-address
            dave,,,
            """
        var reports: [ImportLineReport] = []
        let summary = try fixture.context.importFactors(csv, format: .csv, options: ImportOptions(actor: "ops")) {
            reports.append($0)
        }
        #expect(summary.imported == 3 && summary.failed == 2)
        #expect(reports.map(\.line) == [2, 3, 3, 4, 5])
        #expect(!reports.contains { $0.reason.contains("not-an-address") })
        let alice = try fixture.context.userFactors(uid: "alice", maskPhoneNumbers: false)
        #expect(alice.map(\.factorID) == ["email"] && alice[0].email == "alice@example.com"
            && alice[0].displayName == "Work mail")
        #expect(try fixture.context.userFactors(uid: "bob").map(\.factorID).sorted() == ["email", "totp"])
        var again: [ImportLineReport] = []
        _ = try fixture.context.importFactors(csv, format: .csv, options: ImportOptions(actor: "ops")) {
            again.append($0)
        }
        #expect(again.filter { $0.outcome == .alreadyImported }.count == 3)
        // The imported address signs in.
        fixture.clock.advance(31)
        let user = fixture.user("alice")
        let resolver = try fixture.resolver(user)
        let id = try fixture.emailProvider.sendVerificationCode(with: resolver.hints[0], resolver: resolver)
        _ = try resolver.resolveSignIn(with: EmailMultiFactorGenerator.assertion(with: EmailAuthCredential(
            verificationID: id, verificationCode: try #require(fixture.mailer.lastCode(to: "alice@example.com")))))
    }
}
