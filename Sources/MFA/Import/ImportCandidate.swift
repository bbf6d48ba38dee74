/// One factor an importer read from a line, ready to store.
struct ImportCandidate {
    /// The line it came from.
    var line: Int
    var uid: String
    var secret: [UInt8]
    var parameters: TOTPParameters
    var displayName: String?
    /// The last time step used before the import (-1: none), so a code used
    /// just before cannot be replayed after.
    var lastStep: Int64 = -1
    /// Recovery codes to store with it (google-authenticator scratch codes),
    /// each with its line.
    var recoveryCodes: [(line: Int, code: String)] = []
    /// What the report of its line says beside "imported".
    var note: String?
    /// The last code the other system accepted, and when (pam_oath's users
    /// file): the step it belongs to is looked for at the import's time and
    /// counted as used (`OathLastUse`).
    var lastUse: OathLastUse?
    /// An email address to import as an email factor (then `secret` is empty), normalised.
    var email: String?
}

/// One record of a file (a line, or a CSV record that spans lines) and what
/// its parser made of it.
struct ImportRecord {
    /// The line it starts on, from 1.
    var line: Int
    /// The line it ends on.
    var lastLine: Int
    var parsed: ParsedLine
}

/// Reads a file record by record, for `MFAContext.importFactors`.
protocol ImportReader {
    /// Whether every record has been read.
    var atEnd: Bool { get }
    /// The next record, or nil after the last.
    mutating func next() -> ImportRecord?
}

/// The lines of a file, each parsed on its own (otpauth URIs, users files).
struct LineImportReader: ImportReader {
    private var cursor: LineCursor
    private var line = 0
    private let parse: (Substring, Int) -> ParsedLine

    init(_ text: Substring, _ parse: @escaping (Substring, Int) -> ParsedLine) {
        cursor = LineCursor(text)
        self.parse = parse
    }

    var atEnd: Bool { cursor.atEnd }

    mutating func next() -> ImportRecord? {
        guard let text = cursor.next() else { return nil }
        line += 1
        return ImportRecord(line: line, lastLine: line, parsed: parse(text, line))
    }
}

/// What a parser made of one line.
enum ParsedLine {
    /// A factor to import.
    case factor(ImportCandidate)
    /// Factors to import from one line (a CSV line's app and email address), each reported.
    case factors([ImportCandidate])
    /// A report with no factor (a blank line or comment is `skip`).
    case report(ImportLineReport)
    /// Nothing to say (blank line, comment, header).
    case skip

    static func failed(_ line: Int, _ uid: String?, _ reason: String) -> ParsedLine {
        .report(ImportLineReport(line: line, uid: uid, outcome: .failed, reason: reason))
    }

    static func unsupported(_ line: Int, _ uid: String?, _ reason: String) -> ParsedLine {
        .report(ImportLineReport(line: line, uid: uid, outcome: .unsupported, reason: reason))
    }
}
