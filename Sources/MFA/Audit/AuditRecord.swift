/// One event of the stored audit trail, as read back.
public struct AuditRecord: Sendable, Equatable {
    /// The chain the event is in (`MFAOptions.auditChain` of the process that wrote it).
    public let chain: String
    /// Its number in the chain, from 1.
    public let seq: Int64
    /// The kind's name ("SIGN_IN_SUCCESS", ...), as stored: a kind this
    /// libmfa does not know (written by a newer one) keeps its name.
    public let kindName: String
    /// The tenant, or "" for the project.
    public let tenant: String
    /// The user, or "".
    public let uid: String
    /// The factor id, or "".
    public let factorID: String
    /// The enrollment id, or "".
    public let enrollmentID: String
    /// When it happened (Unix seconds).
    public let time: Int64
    /// The outcome or other detail.
    public let detail: String
    /// Who did it (administrative calls), or "".
    public let actor: String
    /// The id of the master key whose audit subkey made the event's MAC.
    public let keyID: String

    /// The kind, if this libmfa knows it.
    public var kind: AuditEvent.Kind? { AuditEvent.Kind(rawValue: kindName) }

    /// The event, if this libmfa knows its kind.
    public var event: AuditEvent? {
        kind.map {
            AuditEvent(kind: $0, tenant: tenant, uid: uid, factorID: factorID, enrollmentID: enrollmentID,
                       time: time, detail: detail, actor: actor)
        }
    }

    /// Creates a record.
    public init(chain: String, seq: Int64, kindName: String, tenant: String, uid: String, factorID: String,
                enrollmentID: String, time: Int64, detail: String, actor: String, keyID: String) {
        self.chain = chain
        self.seq = seq
        self.kindName = kindName
        self.tenant = tenant
        self.uid = uid
        self.factorID = factorID
        self.enrollmentID = enrollmentID
        self.time = time
        self.detail = detail
        self.actor = actor
        self.keyID = keyID
    }

    /// Where the record is in the trail's order (time, then chain, then number).
    public var position: AuditPosition { AuditPosition(time: time, chain: chain, seq: seq) }
}

/// A place in the stored trail's order: by time, then chain, then number.
public struct AuditPosition: Sendable, Equatable {
    /// The event's time.
    public var time: Int64
    /// Its chain.
    public var chain: String
    /// Its number in the chain.
    public var seq: Int64

    /// Creates a position.
    public init(time: Int64, chain: String, seq: Int64) {
        self.time = time
        self.chain = chain
        self.seq = seq
    }
}

/// Which stored audit events to read (`MFAContext.auditRecords`). Every
/// filter is optional; the events come oldest first (by time, then chain,
/// then number; by number alone when `chain` is given).
public struct AuditQuery: Sendable, Equatable {
    /// The most records a query returns.
    public static let maxLimit = 10_000

    /// Only this tenant's events ("" for the project's); nil for every tenant.
    public var tenant: String?
    /// Only events about this user.
    public var uid: String?
    /// Only events of this kind (its name, as `AuditEvent.Kind.rawValue`).
    public var kindName: String?
    /// Only events at or after this time (Unix seconds).
    public var since: Int64?
    /// Only events before this time (Unix seconds).
    public var until: Int64?
    /// Only this chain's events, in the order of their numbers.
    public var chain: String?
    /// With `chain`: only events numbered after this one (to follow a chain).
    public var afterSeq: Int64?
    /// Only events after this position (the last one of the previous page);
    /// ignored with `chain`.
    public var after: AuditPosition?
    /// At most this many records, 1 to `maxLimit`.
    public var limit: Int
    /// The latest `limit` matching events instead of the earliest (still
    /// returned oldest first): `mfactl audit tail`.
    public var latest: Bool

    /// A query for every event, the earliest `limit` first.
    public init(tenant: String? = nil, uid: String? = nil, kindName: String? = nil, since: Int64? = nil,
                until: Int64? = nil, chain: String? = nil, afterSeq: Int64? = nil, after: AuditPosition? = nil,
                limit: Int = 100, latest: Bool = false) {
        self.tenant = tenant
        self.uid = uid
        self.kindName = kindName
        self.since = since
        self.until = until
        self.chain = chain
        self.afterSeq = afterSeq
        self.after = after
        self.limit = limit
        self.latest = latest
    }
}

/// A chain of the stored trail, as its head row says.
public struct AuditChainHead: Sendable, Equatable {
    /// The chain's name.
    public let chain: String
    /// The first event kept (after purges).
    public let anchorSeq: Int64
    /// The last event's number (anchorSeq - 1 when none is kept).
    public let headSeq: Int64

    /// Creates a head.
    public init(chain: String, anchorSeq: Int64, headSeq: Int64) {
        self.chain = chain
        self.anchorSeq = anchorSeq
        self.headSeq = headSeq
    }
}
