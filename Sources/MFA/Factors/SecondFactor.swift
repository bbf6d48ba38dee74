/// A kind of second factor: everything the engine, the store and the
/// configuration need to know about it, in one place.
///
/// Each kind lives in a folder of its own under `Sources/MFA/Factors/` and
/// is listed once in `FactorRegistry`. The engine drives every kind through
/// this protocol: it never asks which kind it holds.
///
/// What an implementation must do:
/// - **Identity.** `id` is the factor id of `MultiFactorInfo.factorID` and of
///   the audit events ("totp"); `kind` is its number in the C ABI
///   (`MFA_FACTOR_*`). Both never change once released.
/// - **Configuration.** `configKeys` are the top-level keys of the JSON
///   configuration it owns (the first is its section, which may also carry
///   `"state"`); `apply` reads them into its `Settings`, rejecting unknown
///   fields and values out of range with `invalidArgument` naming the field,
///   and never echoing a phone number or a code; `json` writes them back.
///   Whether the kind is enabled is `MFAConfig.providers[id]`.
/// - **Records.** Every factor has a row in `mfa_factors` (ids, display
///   name, enrollment time, backoff, and one sealed payload bound to the
///   row). A few values fixed when the factor is stored may have columns of
///   the kind's own in that row (`factorColumns`, NULL in other kinds'
///   rows: TOTP's parameters, which every sign-in reads). State of its own
///   lives in its own tables (`stateTables`, keyed by `enrollment_id`,
///   deleted with the row). Its `migrations` create both.
/// - **Enrollment.** `enrollment(for:user:context:now:)` checks an
///   assertion and returns what to store: the payload to seal, the token
///   that proved the user (consumed once), and the writes of its own rows,
///   which must also use up whatever proved the factor (a pending secret, an
///   SMS code) so that it works once.
/// - **Sign-in.** `attempt(for:claims:context:now:)` returns how to judge an
///   assertion from what the attempt read (the factor, and the kind's own
///   `attemptColumns`): it accepts with a claim — a conditional update of
///   the kind's own row that uses up what the code proved, which the store
///   runs together with the attempt's bookkeeping, in one statement where
///   the database allows it — or says the code was wrong, so that the
///   engine counts the failure; it throws to refuse without counting. The
///   judge touches no database, so it may run twice (on a first read, then
///   under the user's lock when that read was not enough).
/// - **Presentation.** `hint(of:masked:context:)` says what identifies the
///   factor to its user, masked in sign-in hints; nothing secret.
package protocol SecondFactor: Sendable {
    /// The kind's settings in the configuration.
    associatedtype Settings: FactorSettings

    /// The factor id ("totp", "phone", "recovery", "webauthn", "email").
    static var id: String { get }
    /// The kind's number in the C ABI (`MFA_FACTOR_*`).
    static var kind: Int32 { get }
    /// Whether factors of this kind count toward the per-user factor limit.
    static var countsTowardLimit: Bool { get }
    /// At most one factor of this kind per user: enrolling another replaces it.
    static var replacesPrevious: Bool { get }
    /// The channel its codes are sent on ("sms", "email"), for a kind that sends
    /// codes: the `channel` label of `libmfa_code_sends_total`; nil for others.
    static var codeChannel: String? { get }

    /// The top-level configuration keys it owns; the first is its section.
    static var configKeys: [String] { get }
    /// Other names accepted for it in `providers` (and the guides' shapes).
    static var providerAliases: [String] { get }
    /// Its settings when the configuration says nothing.
    static var defaultSettings: Settings { get }
    /// Reads its keys of `document` (an object) into `settings`.
    static func apply(_ document: JSONValue, to settings: inout Settings) throws(MFAError)
    /// Its keys, every field written out.
    static func json(_ settings: Settings) -> [(String, JSONValue)]
    /// Checks its settings as a whole, once every layer is applied (what no
    /// single field shows: a WebAuthn origin outside the rp id). Run when a
    /// configuration is written, where it throws `invalidArgument` naming
    /// the field.
    static func check(_ settings: Settings) throws(MFAError)

    /// Its migration track (`schema_version:<id>`).
    static var migrations: [Migration] { get }
    /// Its own columns in the factor's row of `mfa_factors`, written with
    /// the row from `FactorEnrollment.columns` (`FactorRecord.kindValues`).
    static var factorColumns: [String] { get }
    /// The kind whose `factorColumns` this kind's rows fill (its own id, or
    /// another's whose columns hold what it needs: HOTP keeps its parameters
    /// and counter in the OATH columns TOTP added).
    static var columnKind: String { get }
    /// Whether its sign-ins claim steps recorded in the user's row
    /// (`UsedStep`), which go when the factor goes.
    static var claimsSteps: Bool { get }
    /// Its own tables keyed by `enrollment_id`, deleted with the factor.
    static var stateTables: [String] { get }
    /// Tables of its own holding sealed values (re-sealed by key rotation).
    static var sealedTables: [SealedTable] { get }
    /// An SQL expression over the factor row `f` that `FactorRecord.summary`
    /// carries (the codes left of a recovery set), or nil.
    static var summarySQL: String? { get }
    /// A join of the kind's own table to the factor row `f`, read with every
    /// sign-in attempt (`LEFT JOIN mfa_webauthn_credentials w ON …`), or "".
    static var attemptJoin: String { get }
    /// The columns the kind's judge reads from the factor row `f` and from
    /// `attemptJoin` (`AttemptInput.state`), in order.
    static var attemptColumns: [String] { get }

    /// What identifies `record` to its user.
    static func hint(of record: FactorRecord, masked: Bool, context: MFAContext) throws(MFAError) -> FactorHint
    /// Checks an enrollment assertion and says what to store.
    static func enrollment(for assertion: any MultiFactorAssertion, user: MFAUser, context: MFAContext,
                           now: Int64) throws(MFAError) -> FactorEnrollment
    /// How to judge a sign-in assertion.
    static func attempt(for assertion: any MultiFactorAssertion, claims: TokenClaims, context: MFAContext,
                        now: Int64) throws(MFAError) -> FactorAttempt
}

extension SecondFactor {
    package static func check(_ settings: Settings) throws(MFAError) {}
    package static var countsTowardLimit: Bool { true }
    package static var replacesPrevious: Bool { false }
    package static var codeChannel: String? { nil }
    package static var providerAliases: [String] { [] }
    package static var factorColumns: [String] { [] }
    package static var columnKind: String { id }
    package static var claimsSteps: Bool { false }
    package static var stateTables: [String] { [] }
    package static var sealedTables: [SealedTable] { [] }
    package static var summarySQL: String? { nil }
    package static var attemptJoin: String { "" }
    package static var attemptColumns: [String] { [] }

    /// The binding of this kind's factor payloads.
    static func binding(tenant: String, uid: String, enrollmentID: String) -> SealBinding {
        .factor(id, tenant: tenant, uid: uid, id: enrollmentID)
    }

    /// The binding of `record`'s payload.
    static func binding(of record: FactorRecord) -> SealBinding {
        .factor(id, tenant: record.tenant, uid: record.uid, id: record.enrollmentID)
    }
}

/// The settings of one factor kind in a configuration.
public protocol FactorSettings: Sendable, Equatable {}

/// What identifies a factor to its user (shown in hints and lists).
package struct FactorHint: Sendable, Equatable {
    /// A short text every kind fills: a masked number, "authenticator app", "7 codes left",
    /// an email address (masked in sign-in hints).
    package var text: String
    /// The phone number of a phone factor (masked in sign-in hints).
    package var phoneNumber: String?
    /// The unused codes of a recovery-code set.
    package var remainingCodes: Int?
    /// The address of an email factor (masked in sign-in hints).
    package var email: String?

    package init(text: String, phoneNumber: String? = nil, remainingCodes: Int? = nil, email: String? = nil) {
        self.text = text
        self.phoneNumber = phoneNumber
        self.remainingCodes = remainingCodes
        self.email = email
    }
}

/// What an enrollment stores, as a factor kind decides it.
package struct FactorEnrollment: Sendable {
    /// The token that proves the user's recent sign-in (its id is consumed once).
    package var session: TokenClaims
    /// The payload to seal into the new factor's row.
    package var payload: SecureBytes
    /// Writes the kind's own rows for the new factor and uses up what proved
    /// it, in the enrollment's transaction; throws to refuse.
    package var write: @Sendable (SQLConnection, FactorRecord) throws(MFAError) -> Void
    /// The values of the kind's `factorColumns`, stored in the factor's row.
    package var columns: [SQLValue] = []
    /// Sees the user's factors inside the transaction, after the user's lock,
    /// and throws to refuse the new one (a phone number the user already has).
    package var admit: @Sendable ([FactorRecord]) throws(MFAError) -> Void
    /// An audit detail for the enrollment ("OK", "IMPORTED").
    package var detail = "OK"
    /// Runs once the enrollment is stored (a claimed token's own audit event).
    package var completed: (@Sendable (FactorRecord) -> Void)?

    package init(session: TokenClaims, payload: SecureBytes,
                 write: @escaping @Sendable (SQLConnection, FactorRecord) throws(MFAError) -> Void,
                 admit: @escaping @Sendable ([FactorRecord]) throws(MFAError) -> Void = { _ in }) {
        self.session = session
        self.payload = payload
        self.write = write
        self.admit = admit
    }
}

/// How a factor kind judges one sign-in attempt.
package struct FactorAttempt {
    /// The factor the assertion names, when it names one.
    package var enrollmentID: String?
    /// Finds the factor when the assertion does not name it (an SMS
    /// verification names its factor); runs before the attempt's read, and
    /// again under the user's lock if the attempt needs it.
    package var locate: ((SQLConnection) throws(MFAError) -> String?)?
    /// Judges the attempt from what it read (see `AttemptVerdict`); no database access.
    package var judge: (AttemptInput) throws(MFAError) -> AttemptVerdict
    /// Claims for the sign-in result, read after the attempt was accepted
    /// (the codes left of a recovery set), or nil.
    package var accepted: ((SQLConnection, FactorRecord) throws(MFAError) -> [(name: String, value: String)])?

    package init(enrollmentID: String?, locate: ((SQLConnection) throws(MFAError) -> String?)? = nil,
                 accepted: ((SQLConnection, FactorRecord) throws(MFAError) -> [(name: String, value: String)])? = nil,
                 judge: @escaping (AttemptInput) throws(MFAError) -> AttemptVerdict) {
        self.enrollmentID = enrollmentID
        self.locate = locate
        self.accepted = accepted
        self.judge = judge
    }
}

/// What a factor kind sees when it judges an attempt.
package struct AttemptInput: Sendable {
    /// The factor, already checked to be of this kind and the user's.
    package var factor: FactorRecord
    /// The kind's `attemptColumns`, read with the factor.
    package var state: [SQLValue]
    /// The effective configuration.
    package var config: MFAConfig
    /// The pending credential's claims.
    package var claims: TokenClaims
    package var now: Int64
    /// What the user's row records: the steps the user's factors accepted last.
    package var consumed = ConsumedTokens()
}

/// A factor kind's verdict on an attempt.
package enum AttemptVerdict: Sendable {
    /// The code is right if `claim` still holds (it uses up what the code
    /// proved); `claims` go into the sign-in result beside the service's two.
    case accept(FactorClaim, claims: [(name: String, value: String)])
    /// The code was wrong: the engine counts a failure. `penalty`, if any,
    /// is the kind's own count (an SMS code's wrong tries), made in the same
    /// transaction; when it changes no row the attempt is refused uncounted.
    case wrong(message: String, penalty: FactorClaim?)
}

/// What an accepted attempt uses up, so that racing attempts cannot both
/// win it. Either a conditional update of one row of a factor kind's own
/// table, which changes the row only while what it claims still holds
/// (`used = 0`): the store runs it as `UPDATE table SET assignments WHERE
/// (condition) …`, alone or joined to the attempt's own checks and
/// bookkeeping in one statement. Or a TOTP step (`UsedStep`), checked
/// against the user's row and recorded in it with the pending credential,
/// in the write the sign-in makes anyway.
package struct FactorClaim: Sendable {
    /// The statement, without its values (nil for a step).
    package var shape: ClaimShape?
    /// The parameters of the shape's assignments, then of its condition.
    package var parameters: [SQLValue]
    /// The step claimed in the user's row, for a step.
    package var step: UsedStep?

    package init(_ shape: ClaimShape, _ parameters: [SQLValue]) {
        self.shape = shape
        self.parameters = parameters
    }

    /// The claim of a TOTP step, recorded in the user's row.
    package init(step: UsedStep) {
        shape = nil
        parameters = []
        self.step = step
    }

    /// Runs the claim in `db`, and says whether it held. A step holds
    /// against `recorded`, the user's row as read under the user's lock.
    func run(_ db: SQLConnection, recorded: ConsumedTokens = ConsumedTokens()) throws(MFAError) -> Bool {
        if let shape { return try db.execute(shape.statement, parameters) == 1 }
        return step?.holds(in: recorded) ?? false
    }

    /// What a claim that does not hold means.
    var missed: ClaimShape.Miss { shape?.missed ?? .wrong("the code is wrong or was already used") }
}

/// The text of a claim, built once (each kind keeps its shapes in `static let`s).
package final class ClaimShape: Sendable {
    /// What a claim that changed no row means.
    package enum Miss: Sendable {
        /// The code was wrong after all (a step used already): the failure is counted.
        case wrong(String)
        /// The attempt is refused, uncounted.
        case refuse(MFAError)
    }

    /// `UPDATE table SET assignments WHERE (condition)`.
    let statement: String
    /// What an update that changed no row means.
    let missed: Miss
    /// The accepting statement built on this claim (see `MFAStore.resolveAttempt`).
    let acceptSQL: String

    /// - Parameters:
    ///   - table: the kind's table.
    ///   - assignments: `column = ?, …`.
    ///   - condition: the condition of the claim, over the table's own columns.
    ///   - missed: what an update that changed no row means.
    /// How many parameters the assignments take (they come first).
    let assignmentParameters: Int

    package init(table: String, assignments: String, condition: String, missed: Miss) {
        statement = "UPDATE \(table) SET \(assignments) WHERE (\(condition))"
        self.missed = missed
        assignmentParameters = assignments.filter { $0 == "?" }.count
        acceptSQL = MFAStore.acceptSQL(table: table, condition: condition, claim: statement)
    }
}
