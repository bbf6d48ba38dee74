import MFA
import Synchronization

/// Records what reached the email sender; can be told to fail.
final class RecordingMailer: EmailSender {
    private let state = Mutex<(messages: [EmailMessage], failing: Bool)>(([], false))

    var messages: [EmailMessage] { state.withLock { $0.messages } }
    var failing: Bool {
        get { state.withLock { $0.failing } }
        set { state.withLock { $0.failing = newValue } }
    }

    func send(_ message: EmailMessage) throws(MFAError) {
        let fail = state.withLock { s -> Bool in
            if !s.failing { s.messages.append(message) }
            return s.failing
        }
        if fail { throw MFAError(.internal, "mail server down") }
    }

    /// The code of the last message sent to `address`.
    func lastCode(to address: String) -> String? {
        messages.last { $0.to == address }.map { String($0.body.prefix(6)) }
    }
}

extension PhoneFixture {
    var emailProvider: EmailAuthProvider { EmailAuthProvider(context: context) }

    /// Enrolls `address` for `user` with a code sent to it.
    func enrollEmail(_ user: MFAUser, _ address: String, name: String? = "mail") throws -> MultiFactorInfo {
        let multiFactor = context.multiFactor(for: user)
        let id = try emailProvider.sendVerificationCode(to: address, multiFactorSession: multiFactor.session())
        let code = try mailer.lastCode(to: EmailAddress.normalized(address)) ?? { throw MFAError(.internal, "no mail") }()
        return try multiFactor.enroll(with: EmailMultiFactorGenerator.assertion(
            with: emailProvider.credential(withVerificationID: id, verificationCode: code)), displayName: name)
    }
}
