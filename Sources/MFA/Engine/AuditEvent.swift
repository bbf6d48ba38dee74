/// Something that happened, reported to the host's audit callback as it happens.
///
/// Events carry ids and outcomes, never a secret, a code or a token.
public struct AuditEvent: Sendable, Equatable {
    /// What kind of event this is.
    public enum Kind: String, Sendable, CaseIterable {
        /// A second factor was enrolled.
        case enroll = "ENROLL"
        /// A second factor was removed.
        case unenroll = "UNENROLL"
        /// A sign-in finished with a second factor.
        case signInSuccess = "SIGN_IN_SUCCESS"
        /// A second-factor attempt failed (wrong code, expired, replayed).
        case signInFailure = "SIGN_IN_FAILURE"
        /// Failed attempts put a factor or a user into backoff.
        case backoff = "BACKOFF"
        /// A project or tenant configuration changed.
        case configChange = "CONFIG_CHANGE"
        /// An SMS code was sent.
        case smsSent = "SMS_SENT"
        /// A stored value failed its integrity check: a sealed payload that
        /// does not decrypt for its row (altered, or moved to another user).
        case integrityFailure = "INTEGRITY_FAILURE"
        /// The host revoked a user's credentials and tokens.
        case tokensRevoked = "TOKENS_REVOKED"
        /// An operator renamed a factor (admin API).
        case factorRenamed = "FACTOR_RENAMED"
        /// An operator reset a user: every factor removed, tokens revoked (admin API).
        case userReset = "USER_RESET"
        /// An operator deleted everything stored about a user (admin API).
        case userDeleted = "USER_DELETED"
        /// An operator re-encrypted stored secrets under the current master key.
        case keysRotated = "KEYS_ROTATED"
        /// A device was remembered: the host got a device token for it.
        case deviceRemembered = "DEVICE_REMEMBERED"
        /// A device token presented at sign-in was ignored (unknown,
        /// tampered, another user's, expired, or remembering is off); the
        /// detail says which. The sign-in went on to the second factor.
        case deviceRefused = "DEVICE_REFUSED"
        /// A remembered device was revoked; the detail says by what.
        case deviceRevoked = "DEVICE_REVOKED"
        /// An email code was sent.
        case emailSent = "EMAIL_SENT"
        /// A user signed in with a passkey alone (both factors at once).
        case passkeySignInSuccess = "PASSKEY_SIGN_IN_SUCCESS"
        /// A passkey sign-in was refused (`uid` is "" when no credential of
        /// the tenant answered, or none that signs in).
        case passkeySignInFailure = "PASSKEY_SIGN_IN_FAILURE"
        /// A hardware token was imported unassigned (the detail names its serial).
        case tokenImported = "TOKEN_IMPORTED"
        /// A hardware token became a user's factor (assigned by an operator, or claimed by its user).
        case tokenAssigned = "TOKEN_ASSIGNED"
        /// An HOTP token's counter was brought forward by two consecutive codes.
        case tokenResynced = "TOKEN_RESYNCED"
        /// An operator removed an unassigned hardware token.
        case tokenRemoved = "TOKEN_REMOVED"
    }

    /// The kind of event.
    public let kind: Kind
    /// The tenant, or "" for the project.
    public let tenant: String
    /// The user, or "" when the event is not about one user.
    public let uid: String
    /// The factor id ("totp", "phone", "recovery", "email"), `"remembered_device"`
    /// for a device's events, or "" when no factor is involved.
    public let factorID: String
    /// The enrollment id of the factor (a remembered device's id), or "".
    public let enrollmentID: String
    /// When it happened (Unix seconds).
    public let time: Int64
    /// The outcome's stable name ("OK", "INVALID_VERIFICATION_CODE", ...) or other detail.
    public let detail: String
    /// Who did it, for administrative calls (the `actor` they were given, such
    /// as an operator's name); "" for the user's own actions.
    public let actor: String

    /// Creates an event.
    public init(kind: Kind, tenant: String, uid: String = "", factorID: String = "",
                enrollmentID: String = "", time: Int64, detail: String = "OK", actor: String = "") {
        self.kind = kind
        self.tenant = tenant
        self.uid = uid
        self.factorID = factorID
        self.enrollmentID = enrollmentID
        self.time = time
        self.detail = detail
        self.actor = actor
    }
}
