import MFA
import Synchronization

/// Records what reached the SMS sender; can be told to fail.
final class RecordingSender: SMSSender {
    private let state = Mutex<(messages: [(String, String)], failing: Bool)>(([], false))

    var messages: [(number: String, message: String)] { state.withLock { $0.messages } }
    var failing: Bool {
        get { state.withLock { $0.failing } }
        set { state.withLock { $0.failing = newValue } }
    }

    func send(to number: String, message: String) throws(MFAError) {
        let fail = state.withLock { s -> Bool in
            if !s.failing { s.messages.append((number, message)) }
            return s.failing
        }
        if fail { throw MFAError(.internal, "gateway down") }
    }

    /// The code in the last message sent to `number`.
    func lastCode(to number: String) -> String? {
        messages.last { $0.number == number }.map { String($0.message.prefix(6)) }
    }
}

/// Accepts the credential "good" only.
struct TestVerifier: AppVerifier {
    func verify(credential: String, action: AppVerificationAction) -> Bool { credential == "good" }
}

/// A context with phone and TOTP enabled, a recording SMS sender and mailer, and a test verifier.
struct PhoneFixture {
    let clock: TestClock
    let log = AuditLog()
    let sender = RecordingSender()
    let mailer = RecordingMailer()
    let context: MFAContext
    static let phoneConfig = """
        {"state":"ENABLED","providers":{"totp":"ENABLED","phone":"ENABLED"},
         "testPhoneNumbers":{"+15555550100":"123456"}}
        """

    init(_ kind: StoreKind, config: String = Self.phoneConfig) throws {
        try self.init(store: kind.freshLocation(), config: config)
    }

    init(store: String = ":memory:", config: String = Self.phoneConfig, verifier: (any AppVerifier)? = TestVerifier(),
         clock: TestClock = TestClock()) throws {
        self.clock = clock
        var options = MFAOptions(store: store, keyring: try MasterKeyring(
            current: MasterKey(id: "k1", bytes: EngineFixture.keyBytes)))
        options.clock = clock
        options.smsSender = sender
        options.emailSender = mailer
        options.appVerifier = verifier
        let log = self.log
        options.audit = { log.record($0) }
        context = try MFAContext(options: options)
        try context.setConfig(json: config)
    }

    var provider: PhoneAuthProvider { PhoneAuthProvider(context: context) }

    func user(_ uid: String = "alice", tenant: String? = nil) -> MFAUser {
        MFAUser(uid: uid, tenant: tenant, email: "\(uid)@example.com", emailVerified: true, authTime: clock.now())
    }

    /// Enrolls `number` for `user` through the SMS flow.
    func enrollPhone(_ user: MFAUser, _ number: String, name: String? = "phone") throws -> MultiFactorInfo {
        let multiFactor = context.multiFactor(for: user)
        let id = try provider.verifyPhoneNumber(number, appCredential: "good", multiFactorSession: multiFactor.session())
        let code = sender.lastCode(to: number) ?? "123456"
        return try multiFactor.enroll(with: PhoneMultiFactorGenerator.assertion(
            with: provider.credential(withVerificationID: id, verificationCode: code)), displayName: name)
    }

    func resolver(_ user: MFAUser) throws -> MultiFactorResolver {
        guard case .secondFactorRequired(let resolver) = try context.signIn(user) else {
            throw MFAError(.internal, "expected SECOND_FACTOR_REQUIRED")
        }
        return resolver
    }
}
