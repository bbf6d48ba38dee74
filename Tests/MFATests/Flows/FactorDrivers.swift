import Foundation
import MFA
import Testing

/// A context with every factor kind enabled, for the flow contract suites.
struct FlowFixture {
    let phone: PhoneFixture
    var context: MFAContext { phone.context }
    var clock: TestClock { phone.clock }
    var log: AuditLog { phone.log }
    static let config = """
        {"state":"ENABLED","providers":{"totp":"ENABLED","phone":"ENABLED","recovery":"ENABLED","webauthn":"ENABLED",
         "email":"ENABLED","hotp":"ENABLED","yubico_otp":"ENABLED"},
         "phone":{"appVerification":"DISABLED"},"webauthn":{"rpId":"example.com"}}
        """

    init(_ kind: StoreKind) throws {
        phone = try PhoneFixture(kind, config: Self.config)
    }

    func user(_ uid: String = "alice", tenant: String? = nil) -> MFAUser { phone.user(uid, tenant: tenant) }
    func resolver(_ user: MFAUser) throws -> MultiFactorResolver { try phone.resolver(user) }
}

/// What a driver enrolled: the factor and what proves it.
struct EnrolledFactor {
    let info: MultiFactorInfo
    var secret: TOTPSecret?
    var number: String?
    var address: String?
    var codes: [String] = []
    var authenticator: TestAuthenticator?
    /// An HOTP token's secret.
    var hotpSecret: [UInt8]?
    /// A YubiKey.
    var yubiKey: YubiKeySimulator?
}

/// How the flow suites drive one factor kind, as a user of it would.
protocol FactorDriver: Sendable, CustomTestStringConvertible {
    /// The kind's factor id.
    var factorID: String { get }
    /// Enrolls a factor of this kind for `user`.
    func enroll(_ fixture: FlowFixture, _ user: MFAUser) throws -> EnrolledFactor
    /// The right second factor for `resolver` (sending an SMS if the kind needs one).
    func right(_ fixture: FlowFixture, _ resolver: MultiFactorResolver, _ factor: EnrolledFactor,
               use: Int) throws -> MultiFactorAssertion
    /// A wrong one.
    func wrong(_ fixture: FlowFixture, _ resolver: MultiFactorResolver,
               _ factor: EnrolledFactor) throws -> MultiFactorAssertion
}

extension FactorDriver {
    var testDescription: String { factorID }
}

/// Every kind's driver: the suites run over all of them.
let allDrivers: [any FactorDriver] = [TOTPDriver(), PhoneDriver(), RecoveryDriver(), WebAuthnDriver(), EmailDriver(),
                                      HOTPDriver(), YubicoOTPDriver()]

struct TOTPDriver: FactorDriver {
    var factorID: String { TOTPMultiFactorID }

    func enroll(_ fixture: FlowFixture, _ user: MFAUser) throws -> EnrolledFactor {
        let multiFactor = fixture.context.multiFactor(for: user)
        let secret = try TOTPMultiFactorGenerator.generateSecret(with: multiFactor.session())
        let code = try TOTP(secret: secret.secret).code(at: fixture.clock.now())
        let info = try multiFactor.enroll(with: TOTPMultiFactorGenerator.assertionForEnrollment(
            with: secret, oneTimePassword: code), displayName: "app")
        return EnrolledFactor(info: info, secret: secret)
    }

    /// Use n is the code of the step n steps ahead (within the window): each a new, later step.
    func right(_ fixture: FlowFixture, _ resolver: MultiFactorResolver, _ factor: EnrolledFactor,
               use: Int) throws -> MultiFactorAssertion {
        let code = try TOTP(secret: factor.secret!.secret).code(at: fixture.clock.now() + 30 * Int64(use + 1))
        return TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: factor.info.uid, oneTimePassword: code)
    }

    func wrong(_ fixture: FlowFixture, _ resolver: MultiFactorResolver,
               _ factor: EnrolledFactor) throws -> MultiFactorAssertion {
        let totp = try TOTP(secret: factor.secret!.secret)
        var wrong = "000000"
        while try totp.verify(wrong, at: fixture.clock.now(), window: 5) != nil { wrong = String(wrong.reversed()) + "1" }
        return TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: factor.info.uid,
                                                           oneTimePassword: String(wrong.prefix(6)))
    }
}

struct PhoneDriver: FactorDriver {
    var factorID: String { PhoneMultiFactorID }

    func enroll(_ fixture: FlowFixture, _ user: MFAUser) throws -> EnrolledFactor {
        let suffix = user.uid.utf8.reduce(0) { ($0 * 31 + Int($1)) % 10000 }
        let number = "+1510555" + String(String(suffix + 10000).dropFirst())
        let info = try fixture.phone.enrollPhone(user, number)
        return EnrolledFactor(info: info, number: number)
    }

    func right(_ fixture: FlowFixture, _ resolver: MultiFactorResolver, _ factor: EnrolledFactor,
               use: Int) throws -> MultiFactorAssertion {
        fixture.clock.advance(31) // past the resend cooldown
        let provider = fixture.phone.provider
        let id = try provider.verifyPhoneNumber(with: factor.info, appCredential: nil, resolver: resolver)
        let code = try #require(fixture.phone.sender.lastCode(to: factor.number!))
        return PhoneMultiFactorGenerator.assertion(with: provider.credential(withVerificationID: id,
                                                                             verificationCode: code))
    }

    func wrong(_ fixture: FlowFixture, _ resolver: MultiFactorResolver,
               _ factor: EnrolledFactor) throws -> MultiFactorAssertion {
        fixture.clock.advance(31)
        let provider = fixture.phone.provider
        let id = try provider.verifyPhoneNumber(with: factor.info, appCredential: nil, resolver: resolver)
        let code = try #require(fixture.phone.sender.lastCode(to: factor.number!))
        let wrong = code == "000000" ? "000001" : "000000"
        return PhoneMultiFactorGenerator.assertion(with: provider.credential(withVerificationID: id,
                                                                             verificationCode: wrong))
    }
}

struct EmailDriver: FactorDriver {
    var factorID: String { EmailMultiFactorID }

    func enroll(_ fixture: FlowFixture, _ user: MFAUser) throws -> EnrolledFactor {
        let address = "\(user.uid).mfa@Example.COM"
        let info = try fixture.phone.enrollEmail(user, address)
        return EnrolledFactor(info: info, address: EmailAddress.normalized(address))
    }

    func right(_ fixture: FlowFixture, _ resolver: MultiFactorResolver, _ factor: EnrolledFactor,
               use: Int) throws -> MultiFactorAssertion {
        try assertion(fixture, resolver, factor) { $0 }
    }

    func wrong(_ fixture: FlowFixture, _ resolver: MultiFactorResolver,
               _ factor: EnrolledFactor) throws -> MultiFactorAssertion {
        try assertion(fixture, resolver, factor) { $0 == "000000" ? "000001" : "000000" }
    }

    /// Past the resend cooldown, a code mailed for the factor, changed by `typed`.
    private func assertion(_ fixture: FlowFixture, _ resolver: MultiFactorResolver, _ factor: EnrolledFactor,
                           typed: (String) -> String) throws -> MultiFactorAssertion {
        fixture.clock.advance(31)
        let provider = fixture.phone.emailProvider
        let id = try provider.sendVerificationCode(with: factor.info, resolver: resolver)
        let code = try #require(fixture.phone.mailer.lastCode(to: factor.address!))
        return EmailMultiFactorGenerator.assertion(with: provider.credential(withVerificationID: id,
                                                                             verificationCode: typed(code)))
    }
}

struct RecoveryDriver: FactorDriver {
    var factorID: String { RecoveryCodesMultiFactorID }

    func enroll(_ fixture: FlowFixture, _ user: MFAUser) throws -> EnrolledFactor {
        let set = try RecoveryCodesMultiFactorGenerator.generateCodes(
            with: fixture.context.multiFactor(for: user).session())
        return EnrolledFactor(info: set.factor, codes: set.codes)
    }

    func right(_ fixture: FlowFixture, _ resolver: MultiFactorResolver, _ factor: EnrolledFactor,
               use: Int) throws -> MultiFactorAssertion {
        RecoveryCodesMultiFactorGenerator.assertionForSignIn(withEnrollmentID: factor.info.uid, code: factor.codes[use])
    }

    func wrong(_ fixture: FlowFixture, _ resolver: MultiFactorResolver,
               _ factor: EnrolledFactor) throws -> MultiFactorAssertion {
        RecoveryCodesMultiFactorGenerator.assertionForSignIn(withEnrollmentID: factor.info.uid, code: "zzzz-zzzz-zz")
    }
}

struct WebAuthnDriver: FactorDriver {
    var factorID: String { WebAuthnMultiFactorID }

    func enroll(_ fixture: FlowFixture, _ user: MFAUser) throws -> EnrolledFactor {
        let multiFactor = fixture.context.multiFactor(for: user)
        let authenticator = TestAuthenticator()
        let options = try WebAuthnMultiFactorGenerator.registrationOptions(with: multiFactor.session(),
                                                                           userName: user.email ?? user.uid)
        let info = try multiFactor.enroll(with: WebAuthnMultiFactorGenerator.assertionForEnrollment(
            credentialJSON: authenticator.register(options)), displayName: "key")
        return EnrolledFactor(info: info, authenticator: authenticator)
    }

    func right(_ fixture: FlowFixture, _ resolver: MultiFactorResolver, _ factor: EnrolledFactor,
               use: Int) throws -> MultiFactorAssertion {
        let options = try WebAuthnMultiFactorGenerator.authenticationOptions(for: resolver)
        return WebAuthnMultiFactorGenerator.assertionForSignIn(credentialJSON: factor.authenticator!.assert(options),
                                                               enrollmentID: factor.info.uid)
    }

    /// A response whose signature is not the authenticator's.
    func wrong(_ fixture: FlowFixture, _ resolver: MultiFactorResolver,
               _ factor: EnrolledFactor) throws -> MultiFactorAssertion {
        let options = try WebAuthnMultiFactorGenerator.authenticationOptions(for: resolver)
        let authenticator = factor.authenticator!
        let fields = TestAuthenticator.fields(authenticator.assert(options))
        let response = fields["response"] as! [String: Any]
        var signature = unbase64url(response["signature"] as! String)
        signature[5] ^= 0x01
        let json = authenticator.assertionJSON(
            clientDataJSON: unbase64url(response["clientDataJSON"] as! String),
            authenticatorData: unbase64url(response["authenticatorData"] as! String), signature: signature)
        return WebAuthnMultiFactorGenerator.assertionForSignIn(credentialJSON: json, enrollmentID: factor.info.uid)
    }
}

/// An HOTP token an operator imported unassigned, claimed by its user with
/// the code of counter 0; use n is the code of counter n + 1.
struct HOTPDriver: FactorDriver {
    var factorID: String { HOTPMultiFactorID }

    func enroll(_ fixture: FlowFixture, _ user: MFAUser) throws -> EnrolledFactor {
        var secret = [UInt8](repeating: 0, count: 20)
        for index in secret.indices { secret[index] = UInt8.random(in: 0...255) }
        let serial = "HT" + String(user.uid.utf8.reduce(UInt32(7)) { $0 &* 31 &+ UInt32($1) })
        try fixture.context.importToken(.hotp(secret: secret, serial: serial), for: nil, tenant: user.tenant,
                                        actor: "ops")
        let multiFactor = fixture.context.multiFactor(for: user)
        let code = try HOTP(secret: secret).code(counter: 0)
        let info = try multiFactor.enroll(with: HOTPMultiFactorGenerator.assertionForEnrollment(
            with: multiFactor.session(), serial: serial, oneTimePassword: code), displayName: "token")
        return EnrolledFactor(info: info, hotpSecret: secret)
    }

    func right(_ fixture: FlowFixture, _ resolver: MultiFactorResolver, _ factor: EnrolledFactor,
               use: Int) throws -> MultiFactorAssertion {
        let code = try HOTP(secret: factor.hotpSecret!).code(counter: UInt64(use + 1))
        return HOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: factor.info.uid, oneTimePassword: code)
    }

    /// A code no counter within reach gives.
    func wrong(_ fixture: FlowFixture, _ resolver: MultiFactorResolver,
               _ factor: EnrolledFactor) throws -> MultiFactorAssertion {
        let hotp = try HOTP(secret: factor.hotpSecret!)
        let reach = Set((0...40).map { hotp.code(counter: $0) })
        var wrong = 0
        while reach.contains(String(format: "%06d", wrong)) { wrong += 1 }
        return HOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: factor.info.uid,
                                                           oneTimePassword: String(format: "%06d", wrong))
    }
}

/// A YubiKey an operator imported unassigned, claimed by its user with a
/// touch; each use is a new touch.
struct YubicoOTPDriver: FactorDriver {
    var factorID: String { YubicoOTPMultiFactorID }

    func enroll(_ fixture: FlowFixture, _ user: MFAUser) throws -> EnrolledFactor {
        let key = YubiKeySimulator()
        try fixture.context.importToken(key.seed, for: nil, tenant: user.tenant, actor: "ops")
        let multiFactor = fixture.context.multiFactor(for: user)
        let info = try multiFactor.enroll(with: YubicoOTPMultiFactorGenerator.assertionForEnrollment(
            with: multiFactor.session(), otp: key.touch()), displayName: "yubikey")
        return EnrolledFactor(info: info, yubiKey: key)
    }

    func right(_ fixture: FlowFixture, _ resolver: MultiFactorResolver, _ factor: EnrolledFactor,
               use: Int) throws -> MultiFactorAssertion {
        let key = factor.yubiKey!
        return YubicoOTPMultiFactorGenerator.assertionForSignIn(
            otp: key.otp(use: key.useCounter, session: UInt8(use + 1)), enrollmentID: use % 2 == 0 ? nil : factor.info.uid)
    }

    /// An OTP of the right public id, encrypted with another key.
    func wrong(_ fixture: FlowFixture, _ resolver: MultiFactorResolver,
               _ factor: EnrolledFactor) throws -> MultiFactorAssertion {
        let key = factor.yubiKey!
        return YubicoOTPMultiFactorGenerator.assertionForSignIn(
            otp: key.otp(use: key.useCounter, session: 200, key: [UInt8](repeating: 9, count: 16)),
            enrollmentID: factor.info.uid)
    }
}

/// Every driver on every store.
var driversAndStores: [(any FactorDriver, StoreKind)] {
    allDrivers.flatMap { driver in StoreKind.available.map { (driver, $0) } }
}
