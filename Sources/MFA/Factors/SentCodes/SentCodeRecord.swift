/// A sent code waiting to be used: for enrolling an address (a phone
/// number, an email address), or for signing in with an enrolled factor.
package struct SentCodeRecord: Sendable, Equatable {
    /// Why the code was sent.
    package enum Purpose: Int64, Sendable {
        case enrollment = 1
        case signIn = 2
    }

    package var verificationID: String
    package var tenant: String
    package var uid: String
    package var purpose: Purpose
    /// The factor signed in with (sign-in only).
    package var enrollmentID: String?
    /// The token the code belongs to: the enrollment session or the pending credential.
    package var boundToken: [UInt8]
    package var keyID: String
    /// The address, sealed.
    package var sealed: [UInt8]
    /// A keyed hash of the code; the code itself is never stored.
    package var codeHash: [UInt8]
    package var expires: Int64
    package var attempts: Int64 = 0
    package var used = false

    package static let columns = """
        verification_id, tenant, uid, purpose, enrollment_id, bound_token, key_id, sealed, code_hash, expires, \
        attempts, used
        """

    package init(verificationID: String, tenant: String, uid: String, purpose: Purpose, enrollmentID: String?,
                 boundToken: [UInt8], keyID: String, sealed: [UInt8], codeHash: [UInt8], expires: Int64) {
        self.verificationID = verificationID
        self.tenant = tenant
        self.uid = uid
        self.purpose = purpose
        self.enrollmentID = enrollmentID
        self.boundToken = boundToken
        self.keyID = keyID
        self.sealed = sealed
        self.codeHash = codeHash
        self.expires = expires
    }

    init(row: SQLRow) throws(MFAError) {
        guard row.count == 12, let id = row[0].text, let tenant = row[1].text, let uid = row[2].text,
              let purpose = row[3].int.flatMap(Purpose.init(rawValue:)), row[4].text != nil || row[4] == .null,
              let bound = row[5].blob, let keyID = row[6].text, let sealed = row[7].blob, let hash = row[8].blob,
              let expires = row[9].int, let attempts = row[10].int, let used = row[11].int else {
            throw MFAError(.storageError, "a stored code verification is malformed")
        }
        self.init(verificationID: id, tenant: tenant, uid: uid, purpose: purpose, enrollmentID: row[4].text,
                  boundToken: bound, keyID: keyID, sealed: sealed, codeHash: hash, expires: expires)
        self.attempts = attempts
        self.used = used != 0
    }

    var values: [SQLValue] {
        [.text(verificationID), .text(tenant), .text(uid), .int(purpose.rawValue),
         enrollmentID.map(SQLValue.text) ?? .null, .blob(boundToken), .text(keyID), .blob(sealed), .blob(codeHash),
         .int(expires), .int(attempts), .int(used ? 1 : 0)]
    }

    /// What the sealed address is bound to, in `channel`.
    func binding(_ channel: SentCodeChannel) -> SealBinding {
        SealBinding(record: channel.record, kind: channel.factorID, tenant: tenant, uid: uid, id: verificationID)
    }
}

/// The SMS verifications of the phone factor (a `SentCodeRecord` of its channel).
package typealias SMSVerificationRecord = SentCodeRecord

/// One budget of sends: at most `perHour` and `perDay` sends in `scope`.
package struct CodeQuota: Sendable, Equatable {
    /// The name new sends are recorded under.
    package var scope: String
    /// Earlier names of the same budget (under previous master keys), counted but not written.
    package var aliases: [String] = []
    package var perHour: Int64
    package var perDay: Int64

    package init(scope: String, aliases: [String] = [], perHour: Int64, perDay: Int64) {
        self.scope = scope
        self.aliases = aliases
        self.perHour = perHour
        self.perDay = perDay
    }
}

/// The budgets of SMS sends (a `CodeQuota`).
package typealias SMSQuota = CodeQuota

/// What a channel allows: a code's lifetime and wrong tries, the resend
/// cooldown, and the caps of each budget. All durations in seconds.
package struct SentCodeLimits: Sendable, Equatable {
    /// How long a code stays valid.
    package var codeLifetime: Int64
    /// Wrong codes allowed per verification id; after them the id is dead.
    package var maxAttempts: Int64
    /// The shortest time between two sends to one address (enrollment) or factor (sign-in).
    package var resendCooldown: Int64
    /// Enrollment sends per address, across every account.
    package var perAddressHour: Int64
    package var perAddressDay: Int64
    /// Enrollment sends per user.
    package var perUserHour: Int64
    package var perUserDay: Int64
    /// Enrollment sends per tenant (or the project).
    package var perTenantHour: Int64
    package var perTenantDay: Int64
    /// Sign-in sends per enrolled factor: a budget of its own, which no
    /// other account's enrollment requests can spend.
    package var perFactorHour: Int64
    package var perFactorDay: Int64
}
