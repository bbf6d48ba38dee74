/// A way of sending one-time codes to the address a factor holds: SMS to a
/// phone number, mail to an email address. A channel names its tables, its
/// budgets and the form of its code hashes; everything else (making,
/// budgeting, judging and claiming codes) is shared (`SentCodeStore`,
/// `MFAContext+SentCodes`).
///
/// Each channel has three tables of its own: its verifications (one code
/// waiting to be used, the address sealed, the code as a keyed hash), its
/// sends (one row per budget a send spent) and its budgets (one row per
/// budget, locked by each send that spends it).
package final class SentCodeChannel: Sendable {
    /// The factor id of the kind that sends through it ("phone", "email").
    package let factorID: String
    /// The `SealBinding.record` of its sealed verifications ("sms", "email").
    package let record: String
    /// What an address is called in budget names ("number", "address").
    package let addressScope: String
    /// Its verifications table.
    package let verifications: String
    /// Its sends table.
    package let sends: String
    /// Its budgets table.
    package let budgets: String
    /// Its verifications, as key rotation sees them.
    package let verificationsTable: SealedTable
    /// The purpose of its verification ids (opaque tokens).
    let tokenPurpose: TokenPurpose
    /// The audit event of a send (`SMS_SENT`, `EMAIL_SENT`).
    let sentEvent: AuditEvent.Kind
    /// What a failed send is (`smsSendFailed`, `emailSendFailed`).
    let sendFailure: MFAErrorCode
    /// The channel's limits in a configuration.
    let limits: @Sendable (MFAConfig) -> SentCodeLimits
    /// The first bytes of every code hash ("libmfa sms code v1").
    let hashLabel: [UInt8]
    /// A wrong try, counted while the verification is unused and has tries left.
    let wrongCodeShape: ClaimShape
    /// The claim of a right code: unused, tries left, unexpired.
    let claimShape: ClaimShape
    /// `SELECT <columns> FROM <verifications> WHERE verification_id = ?`.
    let selectVerification: String
    /// `INSERT INTO <verifications> (<columns>) VALUES (…)`.
    let insertVerification: String

    /// - Parameters:
    ///   - factorID: the kind's factor id.
    ///   - record: the sealed verifications' record name.
    ///   - addressScope: the budget name prefix of an address.
    ///   - tablePrefix: the tables are `<prefix>_verifications`, `_sends` and `_budgets`.
    ///   - hashLabel: the text the code hashes begin with.
    ///   - tokenPurpose: the purpose of its verification ids.
    ///   - sentEvent: the audit event of a send.
    ///   - sendFailure: the error of a failed send.
    ///   - limits: its limits in a configuration.
    init(factorID: String, record: String, addressScope: String, tablePrefix: String, hashLabel: String,
         tokenPurpose: TokenPurpose, sentEvent: AuditEvent.Kind, sendFailure: MFAErrorCode,
         limits: @escaping @Sendable (MFAConfig) -> SentCodeLimits) {
        self.factorID = factorID
        self.tokenPurpose = tokenPurpose
        self.sentEvent = sentEvent
        self.sendFailure = sendFailure
        self.limits = limits
        self.record = record
        self.addressScope = addressScope
        verifications = tablePrefix + "_verifications"
        sends = tablePrefix + "_sends"
        budgets = tablePrefix + "_budgets"
        verificationsTable = SealedTable(table: verifications, idColumn: "verification_id", record: record,
                                         kind: factorID)
        self.hashLabel = Array(hashLabel.utf8)
        let used = MFAError(.invalidSession, "this code was already used")
        wrongCodeShape = ClaimShape(table: verifications, assignments: "attempts = attempts + 1",
                                    condition: "verification_id = ? AND used = 0 AND attempts < ?",
                                    missed: .refuse(used))
        claimShape = ClaimShape(table: verifications, assignments: "used = 1",
                                condition: "verification_id = ? AND used = 0 AND attempts < ? AND expires >= ?",
                                missed: .refuse(used))
        selectVerification = "SELECT \(SentCodeRecord.columns) FROM \(verifications) WHERE verification_id = ?"
        insertVerification = "INSERT INTO \(verifications) (\(SentCodeRecord.columns)) VALUES "
            + "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    }

    /// The statements that create the three tables (a new channel's first migration).
    package func createTables(_ d: any SQLDialect) -> [String] {
        [
            d.createKeyedTable(verifications, Self.verificationColumns(d)),
            "CREATE INDEX \(verifications)_expires ON \(verifications) (expires)",
            "CREATE TABLE \(sends) (scope TEXT NOT NULL, sent_at BIGINT NOT NULL, verification_id TEXT NOT NULL)",
            "CREATE INDEX \(sends)_scope ON \(sends) (scope, sent_at)",
            "CREATE INDEX \(sends)_verification ON \(sends) (verification_id)",
            d.createKeyedTable(budgets, "scope TEXT PRIMARY KEY, touched_at BIGINT NOT NULL"),
        ]
    }

    /// The columns of a verifications table (the phone's, in the core schema's version 2, are the same).
    package static func verificationColumns(_ d: any SQLDialect) -> String {
        """
        verification_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, \
        uid TEXT NOT NULL, purpose INTEGER NOT NULL, enrollment_id TEXT, bound_token \(d.blobType) NOT NULL, \
        key_id TEXT NOT NULL, sealed \(d.blobType) NOT NULL, code_hash \(d.blobType) NOT NULL, \
        expires BIGINT NOT NULL, attempts BIGINT NOT NULL DEFAULT 0, used INTEGER NOT NULL DEFAULT 0
        """
    }

    /// The budget scope of a user's enrollment sends.
    package static func userScope(tenant: String, uid: String) -> String { "user:" + tenant + "\u{1f}" + uid }

    /// The budget scope of sign-in sends to one enrolled factor.
    package static func factorScope(_ enrollmentID: String) -> String { "factor:" + enrollmentID }

    /// The budget scope of a tenant's enrollment sends.
    package static func tenantScope(_ tenant: String) -> String { "tenant:" + tenant }

    /// Every channel, for what the store does to all of them (purging, an admin's reset or delete).
    package static var all: [SentCodeChannel] { [SMSStore.channel, EmailCodes.channel] }
}
