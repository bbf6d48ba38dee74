import Glibc

/// The development outboxes' file (`OutboxSMSSender`, `OutboxEmailSender`):
/// one JSON object per line, each line one `write` to a file opened with
/// `O_APPEND`, so that several processes can share an outbox.
enum OutboxFile {
    /// Appends `fields` to the file at `path` as one JSON line.
    /// - Throws: `failure` (naming the outbox as `what`) if the file cannot be written.
    static func append(_ fields: [(String, JSONValue)], to path: String, failure: MFAErrorCode,
                       what: String) throws(MFAError) {
        let line = JSONValue.object(fields).jsonText + "\n"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw MFAError(failure, "cannot open the \(what)") }
        defer { close(descriptor) }
        let written = line.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
        guard written == line.utf8.count else { throw MFAError(failure, "cannot write the \(what)") }
    }
}
