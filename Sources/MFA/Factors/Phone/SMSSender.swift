/// Sends SMS messages for libmfa: the host's gateway (Twilio, SNS, an SMPP
/// link...). Called without any lock held, once per code.
public protocol SMSSender: Sendable {
    /// Sends `message` to `number` (strict E.164).
    /// - Throws: any `MFAError`; libmfa reports it as `smsSendFailed` and
    ///   counts neither the attempt nor the quota.
    func send(to number: String, message: String) throws(MFAError)
}

/// A development sender that appends each message to a file, one JSON
/// object per line (`{"time":…,"to":"+1…","message":"…"}`), so that demos
/// and tests run offline. Each line is one `write` to a file opened with
/// `O_APPEND`, so several processes can share an outbox.
public struct OutboxSMSSender: SMSSender {
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
    /// - Throws: `smsSendFailed` if the file cannot be written.
    public func send(to number: String, message: String) throws(MFAError) {
        try OutboxFile.append([("time", .int(clock.now())), ("to", .string(number)), ("message", .string(message))],
                              to: path, failure: .smsSendFailed, what: "SMS outbox")
    }
}
