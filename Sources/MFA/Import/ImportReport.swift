/// The formats `MFAContext.importFactors` reads, one factor per line.
public enum ImportFormat: String, Sendable, CaseIterable {
    /// `otpauth://totp/...` key URIs, one per line; the account name is the uid.
    case otpauth
    /// pam_oath / liboath users files: `HOTP/T30/6 user - 3132333435363738393031323334353637383930`.
    case oathUsersFile = "users-file"
    /// CSV: `uid,secret,issuer,digits,period,algorithm` (base32 secret; blank
    /// fields for the defaults; RFC 4180 quoting; a first line naming the
    /// columns is a header and sets their order).
    case csv
    /// The CSV lines YubiKeys are programmed with, stored as unassigned
    /// Yubico OTP tokens: the YubiKey Manager's (`ykman otp yubiotp
    /// --config-output`: serial, public id, private id, AES key, access code,
    /// time) and the YubiKey Personalization Tool's log (`Yubico
    /// OTP,time,slot,public id,private id,AES key,...`).
    case yubikeyCSV = "yubikey-csv"
}

/// What an importer did with one line. Nothing secret is ever in it: no
/// secret, no code, no line text.
public struct ImportLineReport: Sendable, Equatable {
    /// What happened.
    public enum Outcome: String, Sendable, CaseIterable {
        /// A factor (or a recovery code) was stored.
        case imported = "IMPORTED"
        /// The user already has a factor with this secret (a re-run): nothing was stored.
        case alreadyImported = "ALREADY_IMPORTED"
        /// The line is valid but names something libmfa does not do (a key of an unknown algorithm): nothing was stored.
        case unsupported = "UNSUPPORTED"
        /// The line is malformed or was refused (the reason says why): nothing was stored.
        case failed = "FAILED"
        /// Information about how a setting maps onto libmfa (an options line).
        case note = "NOTE"
    }

    /// The line number, from 1.
    public let line: Int
    /// The user the line is about, when it could be read and cannot be a
    /// secret (nil for a swapped column or a line holding only its secret:
    /// see `MFAContext.importFactors`).
    public let uid: String?
    /// What happened.
    public let outcome: Outcome
    /// Why, in words (for people; never a secret).
    public let reason: String
    /// The factor stored or found, when there is one.
    public let enrollmentID: String?
    /// The serial number of the hardware token the line is about, when it has one.
    public let serial: String?
    /// The status a call that stores one factor answers for this outcome
    /// (`MFAContext.importToken`), when it is not success.
    var status: MFAErrorCode?

    /// Creates a line report.
    public init(line: Int, uid: String?, outcome: Outcome, reason: String, enrollmentID: String? = nil,
                serial: String? = nil) {
        self.line = line
        self.uid = uid
        self.outcome = outcome
        self.reason = reason
        self.enrollmentID = enrollmentID
        self.serial = serial
    }
}

/// The totals of an import.
public struct ImportSummary: Sendable, Equatable {
    /// Lines read (blank lines and comments included).
    public var lines = 0
    /// Factors stored, and hardware tokens stored unassigned.
    public var imported = 0
    /// Lines whose factor the user already had.
    public var alreadyImported = 0
    /// Lines naming something libmfa does not do.
    public var unsupported = 0
    /// Malformed or refused lines.
    public var failed = 0
    /// Recovery codes stored (google-authenticator scratch codes).
    public var recoveryCodes = 0
    /// Whether the progress callback stopped the import before the end (the
    /// batches before are stored; running it again imports the rest, and
    /// reports the stored lines as already imported).
    public var stopped = false

    /// An empty summary.
    public init() {}

    mutating func count(_ report: ImportLineReport) {
        switch report.outcome {
        case .imported: imported += 1
        case .alreadyImported: alreadyImported += 1
        case .unsupported: unsupported += 1
        case .failed: failed += 1
        case .note: break
        }
    }
}

/// How to import (`MFAContext.importFactors`).
public struct ImportOptions: Sendable {
    /// Who runs the import, for the audit events (1 to 256 bytes).
    public var actor: String
    /// The tenant of every user in the file, or nil for the project.
    public var tenant: String?
    /// Lines per transaction, 1 to 10,000.
    public var batchSize: Int

    /// Options for `actor`, into the project, 500 lines per transaction.
    public init(actor: String, tenant: String? = nil, batchSize: Int = 500) {
        self.actor = actor
        self.tenant = tenant
        self.batchSize = batchSize
    }
}
