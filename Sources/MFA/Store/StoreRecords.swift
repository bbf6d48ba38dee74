/// An enrolled factor as stored. `sealed` is the TOTP secret (or phone
/// number) encrypted under the master key `keyID`.
package struct FactorRecord: Sendable, Equatable {
    package var enrollmentID: String
    package var tenant: String
    package var uid: String
    package var factorID: String
    package var displayName: String?
    package var enrolledAt: Int64
    package var keyID: String
    package var sealed: [UInt8]
    package var algorithm: Int32
    package var digits: Int
    package var period: Int64
    /// The last TOTP step accepted (-1 for none): codes at or before it are refused.
    package var lastStep: Int64
    package var lockedUntil: Int64

    static let columns = """
        enrollment_id, tenant, uid, factor_id, display_name, enrolled_at, key_id, sealed, algorithm, \
        digits, period, last_step, locked_until
        """

    /// `columns`, each qualified with the alias `f`.
    static let joinedColumns = columns.split(separator: ",")
        .map { "f." + $0.trimmingPrefix(" ") }.joined(separator: ", ")

    init(row: SQLRow) throws(MFAError) {
        guard row.count == 13, let id = row[0].text, let tenant = row[1].text, let uid = row[2].text,
              let factorID = row[3].text, let enrolledAt = row[5].int, let keyID = row[6].text,
              let sealed = row[7].blob, let algorithm = row[8].int, let digits = row[9].int,
              let period = row[10].int, let lastStep = row[11].int, let lockedUntil = row[12].int else {
            throw MFAError(.storageError, "a stored factor is malformed")
        }
        self.init(enrollmentID: id, tenant: tenant, uid: uid, factorID: factorID, displayName: row[4].text,
                  enrolledAt: enrolledAt, keyID: keyID, sealed: sealed, algorithm: Int32(algorithm),
                  digits: Int(digits), period: period, lastStep: lastStep, lockedUntil: lockedUntil)
    }

    package init(enrollmentID: String, tenant: String, uid: String, factorID: String, displayName: String?,
                 enrolledAt: Int64, keyID: String, sealed: [UInt8], algorithm: Int32, digits: Int,
                 period: Int64, lastStep: Int64, lockedUntil: Int64 = 0) {
        self.enrollmentID = enrollmentID
        self.tenant = tenant
        self.uid = uid
        self.factorID = factorID
        self.displayName = displayName
        self.enrolledAt = enrolledAt
        self.keyID = keyID
        self.sealed = sealed
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
        self.lastStep = lastStep
        self.lockedUntil = lockedUntil
    }
}

/// A TOTP secret waiting for its enrollment to be finished.
package struct PendingRecord: Sendable, Equatable {
    package var pendingID: String
    package var tenant: String
    package var uid: String
    package var keyID: String
    package var sealed: [UInt8]
    package var deadline: Int64

    package init(pendingID: String, tenant: String, uid: String, keyID: String, sealed: [UInt8], deadline: Int64) {
        self.pendingID = pendingID
        self.tenant = tenant
        self.uid = uid
        self.keyID = keyID
        self.sealed = sealed
        self.deadline = deadline
    }
}

/// What the store keeps about a user beyond the factors.
package struct UserRecord: Sendable, Equatable {
    /// Credentials issued before this time are revoked.
    package var tokensValidAfter: Int64 = 0
    /// When the user last passed a second factor.
    package var lastSecondFactorAt: Int64 = 0
    /// Until when the user's second-factor attempts are refused.
    package var lockedUntil: Int64 = 0
}

/// The stored configuration documents that apply to one tenant.
package struct ConfigDocuments: Sendable, Equatable, Hashable {
    /// The project's document, if one was stored.
    package var project: String?
    /// The tenant's document, if one was stored (nil for the project itself).
    package var tenant: String?
}

/// What a sign-in attempt finds in the store.
package struct AttemptView: Sendable {
    /// The factor named by the attempt, if it exists.
    package var factor: FactorRecord?
    /// The user's record.
    package var user: UserRecord
    /// Whether the pending credential was already used.
    package var consumed: Bool
    /// The configuration documents of the user's tenant.
    package var documents: ConfigDocuments
    /// The SMS verification the attempt names, if any.
    package var sms: SMSVerificationRecord?
}

/// The attempt to run in `MFAStore.resolveAttempt`.
package struct AttemptRequest: Sendable {
    /// The factor (nil when the SMS verification names it).
    package var enrollmentID: String?
    /// The SMS verification of a phone attempt.
    package var smsVerificationID: String?
    package var tenant: String
    package var uid: String
    /// The pending credential to consume on success.
    package var tokenID: [UInt8]
    package var tokenExpires: Int64
    package var now: Int64

    package init(enrollmentID: String?, smsVerificationID: String?, tenant: String, uid: String, tokenID: [UInt8],
                 tokenExpires: Int64, now: Int64) {
        self.enrollmentID = enrollmentID
        self.smsVerificationID = smsVerificationID
        self.tenant = tenant
        self.uid = uid
        self.tokenID = tokenID
        self.tokenExpires = tokenExpires
        self.now = now
    }
}

/// What the engine decided about an attempt.
package enum AttemptDecision: Sendable {
    /// The code was wrong: count a failure under these limits.
    case wrong(MFALimits)
    /// The code was right: use up this claim.
    case accept(FactorClaim)
}

/// The outcome of a backoff-counted failure.
package struct FailureOutcome: Sendable, Equatable {
    /// Until when attempts are refused now (0 when not locked).
    package var lockedUntil: Int64
    /// Whether this failure started (or lengthened) a backoff.
    package var startedBackoff: Bool

    package init(lockedUntil: Int64, startedBackoff: Bool) {
        self.lockedUntil = lockedUntil
        self.startedBackoff = startedBackoff
    }
}

/// An SMS code waiting to be used: for enrolling a number, or for signing in
/// with an enrolled phone factor.
package struct SMSVerificationRecord: Sendable, Equatable {
    /// Why the code was sent.
    package enum Purpose: Int64, Sendable {
        case enrollment = 1
        case signIn = 2
    }

    package var verificationID: String
    package var tenant: String
    package var uid: String
    package var purpose: Purpose
    /// The phone factor signed in with (sign-in only).
    package var enrollmentID: String?
    /// The token the code belongs to: the enrollment session or the pending credential.
    package var boundToken: [UInt8]
    package var keyID: String
    /// The phone number, sealed.
    package var sealed: [UInt8]
    /// A keyed hash of the code; the code itself is never stored.
    package var codeHash: [UInt8]
    package var expires: Int64
    package var attempts: Int64 = 0
    package var used = false

    static let columns = """
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
              let purpose = row[3].int.flatMap(Purpose.init(rawValue:)), let bound = row[5].blob,
              let keyID = row[6].text, let sealed = row[7].blob, let hash = row[8].blob, let expires = row[9].int,
              let attempts = row[10].int, let used = row[11].int else {
            throw MFAError(.storageError, "a stored SMS verification is malformed")
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
}

/// One SMS budget: at most `perHour` and `perDay` sends in `scope`.
package struct SMSQuota: Sendable, Equatable {
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

/// What an enrollment or sign-in uses up, in the same transaction that stores its result.
package enum FactorClaim: Sendable, Equatable {
    /// A TOTP secret waiting for enrollment.
    case pendingSecret(id: String)
    /// A TOTP time step (it must be later than the factor's last one).
    case totpStep(Int64)
    /// An SMS code: the verification is marked used, if it still can be.
    case smsCode(verificationID: String, maxAttempts: Int64, now: Int64)
}
