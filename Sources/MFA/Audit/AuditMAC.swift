/// The MACs of the stored audit trail: BLAKE2b keyed with the audit subkey
/// of a master key (`MasterKey.auditKey`), over an unambiguous encoding
/// (each text length-prefixed, each number 8 bytes big-endian).
///
/// An event's MAC covers its chain, its number, the MAC of the event before
/// it in the chain (`prev`), the key id, and every field of the event; so a
/// row altered, inserted, deleted, renumbered or moved to another chain
/// breaks the chain at that row or the next. A chain's head row is MACed
/// as well: its last number and MAC (a deleted last event is seen) and its
/// anchor (where the kept events begin, after a purge).
package enum AuditMAC {
    /// The `crypto_kdf` subkey number of the audit key (`MasterKey.auditKey`);
    /// 4 is the key check value's (`KeyCheck`).
    static let subkey: UInt64 = 5
    /// The length of a MAC, and of the `prev` of a chain's first event (all zero).
    package static let count = 32
    /// The `prev` of the first event of a chain that was never purged.
    package static let genesis = [UInt8](repeating: 0, count: count)

    /// An event's MAC.
    package static func event(key: MasterKey, chain: String, seq: Int64, prev: [UInt8], kind: String,
                              fields: AuditFields) -> [UInt8] {
        var message: [UInt8] = Array("libmfa audit event 1".utf8)
        message.reserveCapacity(160)
        append(chain, to: &message)
        append(seq, to: &message)
        append(prev, to: &message)
        append(key.id, to: &message)
        append(kind, to: &message)
        append(fields.time, to: &message)
        for text in [fields.tenant, fields.uid, fields.factorID, fields.enrollmentID, fields.detail, fields.actor] {
            append(text, to: &message)
        }
        return KeyedHash.hash(message, key: key.auditKey)
    }

    /// A chain head's MAC.
    package static func head(key: MasterKey, _ head: AuditHead) -> [UInt8] {
        var message: [UInt8] = Array("libmfa audit head 1".utf8)
        append(head.chain, to: &message)
        append(head.seq, to: &message)
        append(head.mac, to: &message)
        append(head.anchorSeq, to: &message)
        append(head.anchorPrev, to: &message)
        append(key.id, to: &message)
        return KeyedHash.hash(message, key: key.auditKey)
    }

    private static func append(_ text: String, to message: inout [UInt8]) {
        append(Array(text.utf8), to: &message)
    }

    private static func append(_ bytes: [UInt8], to message: inout [UInt8]) {
        append(Int64(bytes.count), to: &message)
        message += bytes
    }

    private static func append(_ number: Int64, to message: inout [UInt8]) {
        let bits = UInt64(bitPattern: number)
        for shift in stride(from: 56, through: 0, by: -8) { message.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }
}

/// The fields of an event as the trail stores them (the kind apart).
package struct AuditFields: Sendable, Equatable {
    package var time: Int64
    package var tenant: String
    package var uid: String
    package var factorID: String
    package var enrollmentID: String
    package var detail: String
    package var actor: String

    package init(time: Int64, tenant: String, uid: String, factorID: String, enrollmentID: String, detail: String,
                 actor: String) {
        self.time = time
        self.tenant = tenant
        self.uid = uid
        self.factorID = factorID
        self.enrollmentID = enrollmentID
        self.detail = detail
        self.actor = actor
    }

    package init(_ event: AuditEvent) {
        self.init(time: event.time, tenant: event.tenant, uid: event.uid, factorID: event.factorID,
                  enrollmentID: event.enrollmentID, detail: event.detail, actor: event.actor)
    }
}

/// A chain's head row.
package struct AuditHead: Sendable, Equatable {
    /// The chain's name.
    package var chain: String
    /// The last event's number (anchorSeq - 1 when the chain holds none).
    package var seq: Int64
    /// The last event's MAC (`anchorPrev` when the chain holds none).
    package var mac: [UInt8]
    /// The first event kept.
    package var anchorSeq: Int64
    /// The MAC of the event before the first kept (`AuditMAC.genesis` before any purge).
    package var anchorPrev: [UInt8]

    /// A new chain's head.
    package static func empty(_ chain: String) -> AuditHead {
        AuditHead(chain: chain, seq: 0, mac: AuditMAC.genesis, anchorSeq: 1, anchorPrev: AuditMAC.genesis)
    }
}
