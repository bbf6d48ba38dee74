/// How a second-factor sign-in or an enrollment ended: the `outcome` label
/// of `libmfa_sign_ins_total` and `libmfa_enrollments_total`.
///
/// A small fixed set, so that a label never takes more values than these:
/// every status maps onto one of them (`init(_:)`).
package enum MetricOutcome: Int, CaseIterable, Sendable {
    /// It worked.
    case success
    /// A wrong code or signature (`INVALID_VERIFICATION_CODE`), counted toward backoff.
    case wrongCode
    /// The right code, already used once (a TOTP step, an SMS or recovery code).
    case replay
    /// The code, or the pending credential, expired.
    case expired
    /// Refused while a backoff runs (`TOO_MANY_ATTEMPTS_TRY_LATER`).
    case backoff
    /// The user's tokens were revoked since the flow began (`USER_TOKEN_EXPIRED`).
    case revoked
    /// A session, pending credential or verification id that is tampered,
    /// used, of another user or tenant.
    case invalidSession
    /// No factor has this enrollment id.
    case notFound
    /// Refused by policy: disabled, limits, a factor the user has already,
    /// a WebAuthn origin, rp id, user verification, attestation or clone check.
    case refused
    /// Malformed input.
    case invalidArgument
    /// The store failed (`STORAGE_ERROR`).
    case storeError
    /// Anything else (cryptography, an internal error).
    case error

    /// The label value.
    package var label: String {
        switch self {
        case .success: "success"
        case .wrongCode: "wrong_code"
        case .replay: "replay"
        case .expired: "expired"
        case .backoff: "backoff"
        case .revoked: "revoked"
        case .invalidSession: "invalid_session"
        case .notFound: "not_found"
        case .refused: "refused"
        case .invalidArgument: "invalid_argument"
        case .storeError: "store_error"
        case .error: "error"
        }
    }

    /// The outcome of a failure with this status.
    package init(_ code: MFAErrorCode) {
        switch code {
        case .invalidVerificationCode: self = .wrongCode
        case .codeExpired: self = .expired
        case .tooManyAttemptsTryLater: self = .backoff
        case .userTokenExpired: self = .revoked
        case .invalidSession, .tenantMismatch: self = .invalidSession
        case .mfaEnrollmentNotFound: self = .notFound
        case .operationNotAllowed, .unverifiedEmail, .unsupportedFirstFactor, .requiresRecentLogin,
             .secondFactorExists, .secondFactorLimitExceeded, .enrollmentRequired, .originMismatch, .rpIDMismatch,
             .credentialCloned, .attestationNotTrusted, .userVerificationRequired, .missingAppCredential,
             .invalidAppCredential, .quotaExceeded:
            self = .refused
        case .invalidArgument, .invalidPhoneNumber, .invalidBase32, .invalidURI, .bufferTooSmall:
            self = .invalidArgument
        case .storageError: self = .storeError
        default: self = .error
        }
    }
}

/// How a first-factor sign-in report ended (`MFAContext.signIn`): the
/// `outcome` label of `libmfa_sign_in_starts_total`.
package enum SignInStartOutcome: Int, CaseIterable, Sendable {
    /// The user has second factors: a resolver was returned.
    case secondFactorRequired
    /// The user has none and was signed in.
    case signedIn
    /// MANDATORY, and the user has no factor.
    case enrollmentRequired
    /// The first factor cannot carry a second one.
    case unsupportedFirstFactor
    /// Malformed input.
    case invalidArgument
    /// The store failed.
    case storeError
    /// Anything else.
    case error

    /// The label value.
    package var label: String {
        switch self {
        case .secondFactorRequired: "second_factor_required"
        case .signedIn: "signed_in"
        case .enrollmentRequired: "enrollment_required"
        case .unsupportedFirstFactor: "unsupported_first_factor"
        case .invalidArgument: "invalid_argument"
        case .storeError: "store_error"
        case .error: "error"
        }
    }

    /// The outcome of a failure with this status.
    package init(_ code: MFAErrorCode) {
        switch code {
        case .enrollmentRequired: self = .enrollmentRequired
        case .unsupportedFirstFactor: self = .unsupportedFirstFactor
        case .invalidArgument: self = .invalidArgument
        case .storageError: self = .storeError
        default: self = .error
        }
    }
}

/// How a request for a one-time code by SMS (or another channel) ended:
/// the `outcome` label of `libmfa_code_sends_total`.
package enum SendOutcome: Int, CaseIterable, Sendable {
    /// The gateway took the message.
    case sent
    /// A configured test number: nothing was sent.
    case testNumber
    /// The gateway failed, or none is configured.
    case sendFailed
    /// A cap per number, user, tenant or factor is used up (`QUOTA_EXCEEDED`).
    case quotaExceeded
    /// Too soon: the resend cooldown, or the factor's backoff (`TOO_MANY_ATTEMPTS_TRY_LATER`).
    case throttled
    /// The app verification credential was missing or rejected.
    case appCheckFailed
    /// Refused by policy (the channel disabled, the factor limit, a number the user has).
    case refused
    /// A session or pending credential that is invalid, expired or revoked.
    case invalidSession
    /// Malformed input (a phone number that is not strict E.164, an email address libmfa does not take).
    case invalidArgument
    /// The store failed.
    case storeError
    /// Anything else.
    case error

    /// The label value.
    package var label: String {
        switch self {
        case .sent: "sent"
        case .testNumber: "test_number"
        case .sendFailed: "send_failed"
        case .quotaExceeded: "quota_exceeded"
        case .throttled: "throttled"
        case .appCheckFailed: "app_check_failed"
        case .refused: "refused"
        case .invalidSession: "invalid_session"
        case .invalidArgument: "invalid_argument"
        case .storeError: "store_error"
        case .error: "error"
        }
    }

    /// The outcome of a failure with this status.
    package init(_ code: MFAErrorCode) {
        switch code {
        case .smsSendFailed, .emailSendFailed: self = .sendFailed
        case .quotaExceeded: self = .quotaExceeded
        case .tooManyAttemptsTryLater: self = .throttled
        case .missingAppCredential, .invalidAppCredential: self = .appCheckFailed
        case .invalidSession, .codeExpired, .userTokenExpired, .tenantMismatch, .mfaEnrollmentNotFound:
            self = .invalidSession
        case .invalidArgument, .invalidPhoneNumber, .invalidEmail: self = .invalidArgument
        case .storageError: self = .storeError
        case .crypto, .internal, .outOfMemory: self = .error
        default: self = .refused
        }
    }
}

/// Why a code was requested: the `purpose` label of `libmfa_code_sends_total`.
package enum SendPurpose: Int, CaseIterable, Sendable {
    /// To enroll a factor.
    case enrollment
    /// To sign in with an enrolled factor.
    case signIn

    /// The label value.
    package var label: String { self == .enrollment ? "enrollment" : "sign_in" }
}

/// Who removed a factor: the `source` label of `libmfa_unenrollments_total`.
package enum UnenrollSource: Int, CaseIterable, Sendable {
    /// The user, from their own sign-in.
    case user
    /// An operator (the administrative calls: remove a factor, reset or delete a user).
    case `operator`

    /// The label value.
    package var label: String { self == .user ? "user" : "operator" }
}

/// What kind of store operation ran: the `operation` label of the store's metrics.
package enum StoreOperation: Int, CaseIterable, Sendable {
    /// A transaction (BEGIN … COMMIT).
    case transaction
    /// Reads, statement by statement.
    case read
    /// Writes that each commit by themselves.
    case write

    /// The label value.
    package var label: String {
        switch self {
        case .transaction: "transaction"
        case .read: "read"
        case .write: "write"
        }
    }
}

/// Why a store operation ran again: the `reason` label of `libmfa_store_retries_total`.
package enum StoreRetryReason: Int, CaseIterable, Sendable {
    /// PostgreSQL (or a distributed SQL server) ended the transaction with a serialization failure (40001).
    case serializationFailure
    /// The server ended it to break a deadlock (40P01).
    case deadlock
    /// A prepared statement did not last: a transaction pooler in between (26000).
    case statementLost
    /// SQLite: a statement waited for another connection's lock and tried again.
    case busy

    /// The label value.
    package var label: String {
        switch self {
        case .serializationFailure: "serialization_failure"
        case .deadlock: "deadlock"
        case .statementLost: "statement_lost"
        case .busy: "busy"
        }
    }
}
