/// One email libmfa asks the host to send: a code for enrolling an address
/// or for signing in.
public struct EmailMessage: Sendable, Equatable {
    /// What the code is for.
    public enum Purpose: Int32, Sendable {
        /// Proving an address being enrolled.
        case enrollment = 1
        /// Signing in with an enrolled address.
        case signIn = 2
    }

    /// The address (as enrolled: the domain in lower case).
    public let to: String
    /// A subject line ("Your verification code").
    public let subject: String
    /// A plain-text body that holds the code.
    public let body: String
    /// The code alone, for a host that writes its own message.
    public let code: String
    /// Why it is sent.
    public let purpose: Purpose

    /// Creates a message.
    public init(to: String, subject: String, body: String, code: String, purpose: Purpose) {
        self.to = to
        self.subject = subject
        self.body = body
        self.code = code
        self.purpose = purpose
    }
}

/// Sends email for libmfa: the host's mail provider (SMTP, an HTTP API).
/// Called without any lock held, once per code.
public protocol EmailSender: Sendable {
    /// Sends `message`.
    /// - Throws: any `MFAError`; libmfa reports it as `emailSendFailed` and
    ///   counts neither the attempt nor the quota.
    func send(_ message: EmailMessage) throws(MFAError)
}

/// A development sender that appends each message to a file, one JSON
/// object per line (`{"time":…,"to":"…","subject":"…","body":"…"}`), so that
/// demos and tests run offline. Each line is one `write` to a file opened
/// with `O_APPEND`, so several processes can share an outbox.
public struct OutboxEmailSender: EmailSender {
    /// The outbox file.
    public let path: String
    /// The clock that stamps the lines.
    public let clock: any MFAClock

    /// Creates an outbox sender writing to `path`.
    public init(path: String, clock: any MFAClock = SystemClock()) {
        self.path = path
        self.clock = clock
    }

    /// Appends the message to the outbox.
    /// - Throws: `emailSendFailed` if the file cannot be written.
    public func send(_ message: EmailMessage) throws(MFAError) {
        try OutboxFile.append([("time", .int(clock.now())), ("to", .string(message.to)),
                               ("subject", .string(message.subject)), ("body", .string(message.body))],
                              to: path, failure: .emailSendFailed, what: "email outbox")
    }
}
