import CMFATypes
import Glibc
import MFA

/// Fills `query` with the defaults of struct version `version` (pass
/// MFA_TRAIL_QUERY_VERSION): every event, the earliest 100. Only the fields
/// that version has are written; MFA_TRAIL_QUERY_INIT is the same as a
/// static initializer.
///
/// Returns MFA_OK or MFA_ERR_INVALID_ARGUMENT (NULL `query`, a version 0 or
/// newer than the library's).
@c(mfa_trail_query_init)
public func mfa_trail_query_init(_ query: UnsafeMutablePointer<mfa_trail_query>?, _ version: UInt32) -> Int32 {
    CResults.status { () throws(MFAError) in try CStructs.auditQuery.initialize(query, version: version) }
}

/// Reads stored audit events (the configuration's auditTrail.store keeps
/// them), as `query` selects them (NULL: the defaults of
/// MFA_TRAIL_QUERY_INIT), oldest first: by time, then chain, then number;
/// by number alone when `query->chain` is set. For the next page, pass the
/// last record's time, chain and number as after_time, after_chain and
/// after_seq (or, with `chain`, its number as after_seq).
///
/// On MFA_OK, `*out` holds the records (free with
/// mfa_trail_record_list_free()). Returns MFA_OK, MFA_ERR_INVALID_ARGUMENT
/// (NULL `ctx` or `out`, a bad version, a limit out of 1 to
/// MFA_TRAIL_READ_MAX, an unknown kind, a bad tenant, uid or chain) or
/// MFA_ERR_STORAGE_ERROR.
@c(mfa_trail_read)
public func mfa_trail_read(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                           _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_trail_record_list>?>?,
                           _ query: UnsafePointer<mfa_trail_query>?,
                           _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let fields = query == nil ? CStructs.auditQuery.defaults(UInt32(MFA_TRAIL_QUERY_VERSION))
            : try CStructs.auditQuery.read(query)
        let records = try context.auditRecords(try auditQuery(fields))
        out.pointee = try CBlock.make { arena in
            mfa_trail_record_list(count: records.count, records: arena.array(records) { record in
                mfa_trail_record(
                    chain: arena.string(record.chain), seq: record.seq, key_id: arena.string(record.keyID),
                    event: mfa_audit_event(
                        kind: record.kind.flatMap { CAudit.kinds[$0] } ?? 0, kind_name: arena.string(record.kindName),
                        tenant: arena.string(record.tenant), uid: arena.string(record.uid),
                        factor_id: arena.string(record.factorID), enrollment_id: arena.string(record.enrollmentID),
                        time: record.time, detail: arena.string(record.detail), actor: arena.string(record.actor)))
            })
        }
    }
}

/// The Swift query of a C one.
private func auditQuery(_ fields: mfa_trail_query) throws(MFAError) -> AuditQuery {
    var kindName = try CArguments.optionalString(fields.kind_name, "query->kind_name")
    if fields.kind != 0 {
        guard let kind = CAudit.kinds.first(where: { $0.value == fields.kind })?.key else {
            throw MFAError(.invalidArgument, "query->kind is not an MFA_AUDIT_* kind")
        }
        guard kindName == nil || kindName == kind.rawValue else {
            throw MFAError(.invalidArgument, "query->kind and query->kind_name name different kinds")
        }
        kindName = kind.rawValue
    }
    guard fields.limit >= 1, fields.limit <= MFA_TRAIL_READ_MAX else {
        throw MFAError(.invalidArgument, "query->limit must be 1 to MFA_TRAIL_READ_MAX")
    }
    let chain = try CArguments.optionalString(fields.chain, "query->chain")
    let afterChain = try CArguments.optionalString(fields.after_chain, "query->after_chain")
    return AuditQuery(
        tenant: try CArguments.optionalString(fields.tenant, "query->tenant"),
        uid: try CArguments.optionalString(fields.uid, "query->uid"), kindName: kindName,
        since: fields.since == Int64.min ? nil : fields.since, until: fields.until == Int64.max ? nil : fields.until,
        chain: chain, afterSeq: chain != nil && fields.after_seq != 0 ? fields.after_seq : nil,
        after: chain == nil ? afterChain.map { AuditPosition(time: fields.after_time, chain: $0, seq: fields.after_seq) }
            : nil,
        limit: Int(fields.limit), latest: fields.latest != 0)
}

/// Frees the records from mfa_trail_read(). NULL is a no-op.
@c(mfa_trail_record_list_free)
public func mfa_trail_record_list_free(_ list: UnsafeMutablePointer<mfa_trail_record_list>?) {
    free(list)
}

/// Verifies the stored audit trail: in each chain, every event's MAC and
/// its link to the event before, the numbering from the anchor (the first
/// event kept after purges) to the head, and the head's own MAC. Events
/// MACed under a key that is not among the context's keys are counted as
/// unchecked. Reads without locks while other processes append.
///
/// On MFA_OK, `*out` says what was found (free with
/// mfa_trail_verification_free()): MFA_OK means the trail could be read,
/// `(*out)->intact` whether it is whole, and each broken chain's
/// `broken_at` the event where it breaks. Returns MFA_OK,
/// MFA_ERR_INVALID_ARGUMENT (NULL `ctx` or `out`) or MFA_ERR_STORAGE_ERROR.
@c(mfa_trail_verify)
public func mfa_trail_verify(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                             _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_trail_verification>?>?,
                             _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let result = try context.verifyAuditTrail()
        out.pointee = try CBlock.make { arena in
            mfa_trail_verification(
                intact: result.intact, verified: Int64(result.verified), unchecked: Int64(result.unchecked),
                chain_count: result.chains.count, chains: arena.array(result.chains) { chain in
                    mfa_trail_chain_report(
                        chain: arena.string(chain.chain), anchor_seq: chain.anchorSeq, head_seq: chain.headSeq,
                        verified: Int64(chain.verified), unchecked: Int64(chain.unchecked),
                        missing_key_count: chain.missingKeys.count,
                        missing_keys: arena.array(chain.missingKeys) { arena.string($0) },
                        broken: !chain.intact, broken_at: chain.brokenAt ?? 0, problem: arena.string(chain.problem))
                })
        }
    }
}

/// Frees the result of mfa_trail_verify(). NULL is a no-op.
@c(mfa_trail_verification_free)
public func mfa_trail_verification_free(_ verification: UnsafeMutablePointer<mfa_trail_verification>?) {
    free(verification)
}

/// Deletes stored audit events by the configuration's retention and size
/// (auditTrail.retentionDays, auditTrail.maxEvents), keeping each chain
/// verifiable from its new anchor. mfa_purge_expired() does this too.
///
/// `out` may be NULL; if not, it receives how many events were deleted. Returns MFA_OK, MFA_ERR_INVALID_ARGUMENT (NULL `ctx`) or
/// MFA_ERR_STORAGE_ERROR.
@c(mfa_trail_purge)
public func mfa_trail_purge(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ out: UnsafeMutablePointer<Int64>?,
                            _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        out?.pointee = 0
        let deleted = try context.purgeAuditTrail()
        out?.pointee = Int64(deleted)
    }
}
